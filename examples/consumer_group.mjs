// Partitioned consumer groups from Node, with the verbs of orbit.go's `cg`
// tool (and of examples/consumer_group.rs): groups made here are joined by Go
// and Rust members, and the other way round.
//
// Usage: node examples/consumer_group.mjs <static|elastic> <verb> <args…>
// (server from NATS_URL, default nats://127.0.0.1:4222)
//   static  create STREAM GROUP MAX MEMBER...
//   elastic create STREAM GROUP MAX [FILTER [WILDCARD...]]
//   elastic add|drop STREAM GROUP MEMBER...
//   <kind>  ls STREAM | info STREAM GROUP | step-down STREAM GROUP MEMBER | delete STREAM GROUP
//   <kind>  join STREAM GROUP MEMBER [SLEEP_MS]
import { connect, consumerGroups, jetstream } from "natsjet";

const [kind, verb, ...args] = process.argv.slice(2);
if (!["static", "elastic"].includes(kind) || !verb) {
  console.error("usage: node examples/consumer_group.mjs <static|elastic> <verb> <args…> (see the file's head)");
  process.exit(2);
}
const nc = await connect({ servers: process.env.NATS_URL ?? "nats://127.0.0.1:4222" });
const groups = consumerGroups(jetstream(nc));
const [stream, group, ...rest] = args;
try {
  switch (`${kind} ${verb}`) {
    case "static create":
      console.log(await groups.createStatic(stream, group, { max_members: Number(rest[0]), members: rest.slice(1) }));
      break;
    case "elastic create": {
      const [max, filter, ...wildcards] = rest;
      const partitioning_filters = filter ? [{ filter, partitioning_wildcards: wildcards.map(Number) }] : null;
      console.log(await groups.createElastic(stream, group, { max_members: Number(max), partitioning_filters }));
      break;
    }
    case "elastic add":
      console.log("members:", await groups.addMembers(stream, group, rest));
      break;
    case "elastic drop":
      console.log("members:", await groups.dropMembers(stream, group, rest));
      break;
    default:
      switch (verb) {
        case "ls":
          console.log(await groups.list(kind, stream));
          break;
        case "info":
          console.log(await groups.info(kind, stream, group));
          for (const s of await groups.members(kind, stream, group)) console.log(s);
          break;
        case "step-down":
          await groups.stepDown(kind, stream, group, rest[0]);
          break;
        case "delete":
          await groups.delete(kind, stream, group);
          break;
        case "join": {
          const sleep = Number(rest[1] ?? 20);
          const messages = await groups.join(kind, stream, group, rest[0], { config: { max_ack_pending: 1 } });
          for await (const m of messages) {
            await new Promise((resolve) => setTimeout(resolve, sleep));
            console.log(m.subject, m.string());
            m.ack();
          }
          console.log("the group was deleted");
          break;
        }
        default:
          throw new Error(`unknown verb ${verb}`);
      }
  }
} finally {
  await nc.close();
}
