//! The last of async-nats 0.52's connect options and values natsjet once
//! lacked: `local_address`, `read_buffer_capacity`, `client_capacity`,
//! `skip_subject_validation`, `tls_client_config` with the `rustls`
//! re-export, `Subject::validated` with `SubjectError`, and the `datetime`
//! module.

use std::net::{SocketAddr, TcpListener};
use std::time::Duration;

use futures_util::StreamExt;

use crate::nats::rustls::pki_types::CertificateDer;
use crate::nats::rustls::pki_types::pem::PemObject;
use crate::nats::rustls::{ClientConfig, RootCertStore};
use crate::nats::{self, Subject, SubjectError, datetime};
use crate::{Outcome, Transcript};

/// A socket bound to a local address (the system's port, then a taken
/// one), a small read buffer, a small command capacity, and publishes
/// whose subjects are not checked for empty tokens.
pub async fn connect_options(url: &str) -> Outcome {
    let mut seen = Transcript::new();
    let local: SocketAddr = "127.0.0.1:0".parse()?;
    let client = nats::ConnectOptions::new()
        .local_address(local)
        .read_buffer_capacity(64)
        .client_capacity(4)
        .connect(url)
        .await?;
    let mut subscriber = client.subscribe("options.>").await?;
    client.publish("options.big", vec![7u8; 100_000].into()).await?;
    for i in 0..1000 {
        client.publish(format!("options.{i}"), "x".into()).await?;
    }
    client.flush().await?;
    let big = subscriber.next().await.expect("the big message");
    seen.push(format!("through a 64-byte read buffer: {} bytes", big.payload.len()));
    let small = subscriber.take(1000).count().await;
    seen.push(format!("through a command capacity of 4: {small} messages"));

    let taken = TcpListener::bind("127.0.0.1:0")?;
    match nats::ConnectOptions::new().local_address(taken.local_addr()?).connect(url).await {
        Err(e) if e.kind() == nats::ConnectErrorKind::Io => seen.push("taken local address: io".into()),
        Err(e) => seen.push(format!("taken local address: {:?}", e.kind())),
        Ok(_) => seen.push("taken local address: connected".into()),
    }

    let lenient = nats::ConnectOptions::new().skip_subject_validation(true).connect(url).await?;
    lenient.publish("options..empty.token", "x".into()).await?;
    lenient.flush().await?;
    seen.push("skipping validation: empty token published".into());
    match lenient.publish("", "x".into()).await {
        Err(e) if e.kind() == nats::PublishErrorKind::InvalidSubject => seen.push("empty subject: invalid".into()),
        other => seen.push(format!("empty subject: {:?}", other.map_err(|e| e.kind()))),
    }
    match lenient.subscribe("options..empty").await {
        Err(e) if e.kind() == nats::SubscribeErrorKind::InvalidSubject => seen.push("subscribe: invalid".into()),
        other => seen.push(format!("subscribe: {:?}", other.map(drop).map_err(|e| e.kind()))),
    }
    Ok(seen)
}

/// A rustls `ClientConfig` trusting `ca_pem`, built with the re-exported
/// rustls, for the TLS handshake; one trusting nothing is refused.
pub async fn tls_client_config(url: &str, ca_pem: &str) -> Outcome {
    let mut seen = Transcript::new();
    let mut roots = RootCertStore::empty();
    let (added, _) = roots.add_parsable_certificates(CertificateDer::pem_slice_iter(ca_pem.as_bytes()).flatten());
    seen.push(format!("roots {added}"));
    let config = ClientConfig::builder().with_root_certificates(roots).with_no_client_auth();
    let client = nats::ConnectOptions::new().require_tls(true).tls_client_config(config).connect(url).await?;
    let mut subscriber = client.subscribe("tls").await?;
    client.publish("tls", "sealed".into()).await?;
    let message = subscriber.next().await.expect("the message");
    seen.push(format!("over TLS: {}", String::from_utf8_lossy(&message.payload)));

    let nothing = ClientConfig::builder().with_root_certificates(RootCertStore::empty()).with_no_client_auth();
    let refused = nats::ConnectOptions::new()
        .tls_client_config(nothing)
        .connection_timeout(Duration::from_secs(3))
        .connect(url)
        .await
        .is_err();
    seen.push(format!("trusting nothing refused: {refused}"));
    Ok(seen)
}

/// Subjects checked when made, and the `datetime` helpers.
pub async fn subjects_and_times(_url: &str) -> Outcome {
    const EVENTS: Subject = Subject::from_static_validated("events.data");
    let mut seen = Transcript::new();
    seen.push(format!("validated {}", Subject::validated("events.data")?));
    for bad in ["invalid subject", "", ".invalid", "a..b"] {
        let refused = Subject::validated(bad);
        seen.push(format!("{bad:?}: {:?} {}", refused, refused.as_ref().map_or_else(|e| e.to_string(), |_| "".into())));
    }
    seen.push(format!("const {EVENTS} valid: {}", EVENTS.is_valid()));
    seen.push(format!("is_valid a..b: {}", Subject::from("a..b").is_valid()));
    seen.push(format!("an error to match: {}", Subject::validated("a b") == Err(SubjectError::InvalidFormat)));

    let t: datetime::DateTime = datetime::parse_rfc3339("2023-01-02T05:04:05.123456789+02:00")?;
    seen.push(format!("parsed {t} ({} ns)", t.unix_timestamp_nanos()));
    seen.push(format!("from nanos {}", datetime::from_nanos(-1)?));
    seen.push(format!("plus 1.5s {}", datetime::add_std_duration(t, Duration::from_millis(1500))?));
    seen.push(format!("overflow refused: {}", datetime::add_std_duration(t, Duration::MAX).is_err()));
    seen.push(format!("garbage refused: {}", datetime::parse_rfc3339("yesterday").is_err()));
    seen.push(format!("now is later: {}", datetime::now() > t));
    Ok(seen)
}
