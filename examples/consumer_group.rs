//! Partitioned consumer groups from the command line, with the verbs of
//! orbit.go's `cg` tool: a group made here is joined by Go members and the
//! other way round (same buckets, documents, streams and consumers).
//!
//! Usage: cargo run --example consumer_group -- <static|elastic> <verb> <args…>
//! (server from `NATS_URL`, default nats://127.0.0.1:4222)
//!
//! ```text
//! static  create  STREAM GROUP MAX MEMBER...        balanced members
//! elastic create  STREAM GROUP MAX [FILTER [WILDCARD...]]
//! elastic add     STREAM GROUP MEMBER...
//! elastic drop    STREAM GROUP MEMBER...
//! elastic map     STREAM GROUP MEMBER:P,P... ...
//! <kind>  ls      STREAM
//! <kind>  info    STREAM GROUP                       members, pinned instances
//! <kind>  join    STREAM GROUP MEMBER [SLEEP_MS]     consume and ack, printing each message
//! <kind>  watch   STREAM GROUP                       print the members' states every second
//! <kind>  step-down STREAM GROUP MEMBER
//! <kind>  delete  STREAM GROUP
//! ```

use std::time::Duration;

use futures_util::StreamExt;
use natsjet::jetstream::consumer::pull;
use natsjet::jetstream::groups::{self, ElasticConfig, Kind, MemberMapping, PartitioningFilter, StaticConfig};
use natsjet::jetstream::{self, Context};

fn usage() -> ! {
    let lines = include_str!("consumer_group.rs").lines().take(20).skip(8);
    eprintln!("{}", lines.map(|l| l.trim_start_matches("//!").trim_start()).collect::<Vec<_>>().join("\n"));
    std::process::exit(2)
}

#[tokio::main]
async fn main() -> Result<(), natsjet::Error> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let kind = match args.first().map(String::as_str) {
        Some("static") => Kind::Static,
        Some("elastic") => Kind::Elastic,
        _ => usage(),
    };
    let verb = args.get(1).map(String::as_str).unwrap_or_else(|| usage());
    let rest = &args[2..];
    let arg = |i: usize| rest.get(i).map(String::as_str).unwrap_or_else(|| usage());
    let url = std::env::var("NATS_URL").unwrap_or_else(|_| "nats://127.0.0.1:4222".into());
    let js = jetstream::new(natsjet::connect(url.as_str()).await?);
    match (kind, verb) {
        (Kind::Static, "create") => {
            let max: u32 = arg(2).parse().unwrap_or_else(|_| usage());
            let members = rest[3..].to_vec();
            let config = StaticConfig { max_members: max, members, ..StaticConfig::default() };
            println!("{:?}", groups::create_static(&js, arg(0), arg(1), config).await?);
        }
        (Kind::Elastic, "create") => {
            let max: u32 = arg(2).parse().unwrap_or_else(|_| usage());
            let filters = rest.get(3).map(|filter| {
                let wildcards = rest[4..].iter().filter_map(|w| w.parse().ok()).collect();
                vec![PartitioningFilter { filter: filter.clone(), partitioning_wildcards: Some(wildcards) }]
            });
            let config = ElasticConfig { max_members: max, partitioning_filters: filters, ..ElasticConfig::default() };
            println!("{:?}", groups::create_elastic(&js, arg(0), arg(1), config).await?);
        }
        (Kind::Elastic, "add") => {
            println!("members: {:?}", groups::add_members(&js, arg(0), arg(1), &rest[2..]).await?)
        }
        (Kind::Elastic, "drop") => {
            println!("members: {:?}", groups::drop_members(&js, arg(0), arg(1), &rest[2..]).await?)
        }
        (Kind::Elastic, "map") => {
            let mappings = rest[2..].iter().map(|m| parse_mapping(m)).collect();
            groups::set_mappings(&js, arg(0), arg(1), mappings).await?;
        }
        (_, "ls") => println!("{:?}", groups::list(&js, kind, arg(0)).await?),
        (_, "info") => print_states(&js, kind, arg(0), arg(1)).await?,
        (_, "watch") => loop {
            print_states(&js, kind, arg(0), arg(1)).await?;
            tokio::time::sleep(Duration::from_secs(1)).await;
        },
        (_, "step-down") => groups::step_down(&js, kind, arg(0), arg(1), arg(2)).await?,
        (_, "delete") => groups::delete(&js, kind, arg(0), arg(1)).await?,
        (_, "join") => {
            let work = Duration::from_millis(rest.get(3).and_then(|s| s.parse().ok()).unwrap_or(20));
            let template = pull::Config { max_ack_pending: 1, ..Default::default() };
            let mut member = groups::join(&js, kind, arg(0), arg(1), arg(2), template).await?;
            println!("joined as {}: partitions {:?}", member.name(), member.partitions());
            while let Some(message) = member.next().await {
                let message = message?;
                tokio::time::sleep(work).await;
                let payload = String::from_utf8_lossy(&message.payload);
                println!("[{}] {} {payload}", message.partition, message.subject);
                message.ack().await?;
            }
            println!("the group was deleted");
        }
        _ => usage(),
    }
    Ok(())
}

/// `member:0,1,2`
fn parse_mapping(text: &str) -> MemberMapping {
    let (member, partitions) = text.split_once(':').unwrap_or_else(|| usage());
    let partitions = partitions.split(',').map(|p| p.parse().unwrap_or_else(|_| usage())).collect();
    MemberMapping { member: member.into(), partitions }
}

async fn print_states(js: &Context, kind: Kind, stream: &str, group: &str) -> Result<(), natsjet::Error> {
    for state in groups::members(js, kind, stream, group).await? {
        let pinned = state.pinned_client_id.as_deref().unwrap_or("-");
        println!("{:<16} active={:<5} waiting={:<3} pinned={pinned}", state.member, state.active, state.waiting);
    }
    Ok(())
}
