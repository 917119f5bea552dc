//! Service names, versions and the subjects they make (ADR-32): checked
//! before a subscription is made, with async-nats's words for what is wrong.
//!
//! A service `name` with instance `id` answers the verbs on
//! `$SRV.<VERB>`, `$SRV.<VERB>.<name>` and `$SRV.<VERB>.<name>.<id>`; an
//! endpoint listens on its group's prefix joined to its own subject, in
//! the queue group `q` unless the service, group or endpoint names another.

use std::fmt;

use crate::core::error::Error;

/// The prefix of every discovery subject.
pub const SERVICE_API_PREFIX: &str = "$SRV";
/// The queue group endpoints join unless told otherwise.
pub const DEFAULT_QUEUE_GROUP: &str = "q";
/// The header an error reply's text goes in.
pub const NATS_SERVICE_ERROR: &str = "Nats-Service-Error";
/// The header an error reply's numeric code goes in.
pub const NATS_SERVICE_ERROR_CODE: &str = "Nats-Service-Error-Code";

/// What refuses a version, in async-nats's words.
pub const INVALID_VERSION: &str = "service version is not a valid semver string";
/// What refuses a name, in async-nats's words.
pub const INVALID_NAME: &str = "service name is not a valid string (only A-Z, a-z, 0-9, _, - are allowed)";

/// The requests every service answers, by the subject token naming them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Verb {
    /// `$SRV.PING`: who is there.
    Ping,
    /// `$SRV.STATS`: the endpoints' counters.
    Stats,
    /// `$SRV.INFO`: the service and its endpoints.
    Info,
    /// Named by ADR-32's tools; async-nats and natsjet services do not answer it.
    Schema,
}

impl Verb {
    /// The verbs a service answers.
    pub const ANSWERED: [Verb; 3] = [Verb::Ping, Verb::Info, Verb::Stats];

    /// The subject token.
    pub fn as_str(self) -> &'static str {
        match self {
            Verb::Ping => "PING",
            Verb::Stats => "STATS",
            Verb::Info => "INFO",
            Verb::Schema => "SCHEMA",
        }
    }

    /// The verb a discovery subject (`$SRV.<VERB>[...]`) asks for.
    pub fn of_subject(subject: &str) -> Option<Verb> {
        let rest = subject.strip_prefix(SERVICE_API_PREFIX)?.strip_prefix('.')?;
        match rest.split('.').next()? {
            "PING" => Some(Verb::Ping),
            "STATS" => Some(Verb::Stats),
            "INFO" => Some(Verb::Info),
            "SCHEMA" => Some(Verb::Schema),
            _ => None,
        }
    }

    /// The three subjects a service instance answers `self` on: all
    /// services, those named `name`, and the instance `id`.
    pub fn subjects(self, name: &str, id: &str) -> [String; 3] {
        let all = format!("{SERVICE_API_PREFIX}.{self}");
        [format!("{all}.{name}.{id}"), format!("{all}.{name}"), all]
    }
}

impl fmt::Display for Verb {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `[A-Za-z0-9_-]+` (ADR-32, as ADR-33's names).
pub fn is_valid_name(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// A semantic version (semver.org 2.0.0): `MAJOR.MINOR.PATCH`, numbers
/// without leading zeros, then optionally `-` and dot-separated pre-release
/// identifiers (numeric ones without leading zeros), then optionally `+`
/// and dot-separated build identifiers.
pub fn is_valid_version(version: &str) -> bool {
    let (rest, build) = match version.split_once('+') {
        Some((rest, build)) => (rest, Some(build)),
        None => (version, None),
    };
    // The core has no '-', so the first one starts the pre-release.
    let (core, pre) = match rest.split_once('-') {
        Some((core, pre)) => (core, Some(pre)),
        None => (rest, None),
    };
    let numbers: Vec<&str> = core.split('.').collect();
    numbers.len() == 3
        && numbers.iter().all(|n| is_number(n))
        && pre.is_none_or(|pre| pre.split('.').all(|id| is_identifier(id) && (!is_digits(id) || is_number(id))))
        && build.is_none_or(|build| build.split('.').all(is_identifier))
}

fn is_digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// `0|[1-9][0-9]*`.
fn is_number(s: &str) -> bool {
    is_digits(s) && (s == "0" || !s.starts_with('0'))
}

/// `[0-9A-Za-z-]+`.
fn is_identifier(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
}

/// Checks a service's version, then its name, as async-nats does.
pub fn check_service(name: &str, version: &str) -> Result<(), Error> {
    if !is_valid_version(version) {
        return Err(Error::InvalidArgument(INVALID_VERSION.into()));
    }
    if !is_valid_name(name) {
        return Err(Error::InvalidArgument(INVALID_NAME.into()));
    }
    Ok(())
}

/// `prefix.subject`, or either alone when the other is empty (ADR-32: a
/// group's name may be empty).
pub fn join_subject(prefix: &str, subject: &str) -> String {
    match (prefix.is_empty(), subject.is_empty()) {
        (true, _) => subject.to_string(),
        (false, true) => prefix.to_string(),
        (false, false) => format!("{prefix}.{subject}"),
    }
}

/// An endpoint's key in the service's stats (its name, else its subject)
/// and the name its info and stats report (its name, else its subject with
/// `-` for `.`), as async-nats names them.
pub fn endpoint_names(name: Option<&str>, subject: &str) -> (String, String) {
    match name {
        Some(name) => (name.to_string(), name.to_string()),
        None => (subject.to_string(), subject.replace('.', "-")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn versions_follow_semver() {
        for good in [
            "0.0.0",
            "1.0.0",
            "10.20.30",
            "1.1.2-prerelease+meta",
            "1.0.0-alpha",
            "1.0.0-alpha.beta.1",
            "1.0.0-0A.is.legal",
            "1.0.0-alpha-a.b-c-somethinglong+build.1-aef.1-its-okay",
            "1.0.0+0.build.1-rc.10000aaa-kk-0.1",
            "1.0.0-x-y-z.--",
            "2.0.0+build.1848",
            "1.2.3----RC-SNAPSHOT.12.9.1--.12+788",
        ] {
            assert!(is_valid_version(good), "{good}");
        }
        for bad in [
            "",
            "1",
            "1.2",
            "1.2.3.4",
            "1.0.0.1",
            "01.1.1",
            "1.01.1",
            "1.1.01",
            "1.2.3-0123",
            "1.2.3-",
            "1.2.3+",
            "1.2.3-a..b",
            "1.2.3+a..b",
            "1.2.3-a+b+c",
            "+invalid",
            "-invalid",
            "1.2.3-a_b",
            "1.2.3 ",
            "v1.2.3",
            "1.2.-3",
        ] {
            assert!(!is_valid_version(bad), "{bad}");
        }
    }

    #[test]
    fn names_are_letters_digits_dash_and_underscore() {
        for good in ["a", "Echo_Service-2", "_", "-"] {
            assert!(is_valid_name(good), "{good}");
        }
        for bad in ["", "a.b", "a b", "a*", "a>", "ü", "$SRV"] {
            assert!(!is_valid_name(bad), "{bad}");
        }
    }

    #[test]
    fn the_version_is_checked_before_the_name() {
        assert_eq!(check_service("bad name", "x"), Err(Error::InvalidArgument(INVALID_VERSION.into())));
        assert_eq!(check_service("bad name", "1.0.0"), Err(Error::InvalidArgument(INVALID_NAME.into())));
        assert_eq!(check_service("good", "1.0.0"), Ok(()));
    }

    #[test]
    fn verbs_and_their_subjects() {
        assert_eq!(
            Verb::Ping.subjects("echo", "ID1"),
            ["$SRV.PING.echo.ID1".to_string(), "$SRV.PING.echo".into(), "$SRV.PING".into()]
        );
        assert_eq!(Verb::Stats.to_string(), "STATS");
        assert_eq!(Verb::of_subject("$SRV.INFO"), Some(Verb::Info));
        assert_eq!(Verb::of_subject("$SRV.STATS.echo.ID1"), Some(Verb::Stats));
        assert_eq!(Verb::of_subject("$SRV.SCHEMA.echo"), Some(Verb::Schema));
        for other in ["$SRV", "$SRV.", "$SRV.PONG", "SRV.PING", "$SRVPING", "$SRV.ping"] {
            assert_eq!(Verb::of_subject(other), None, "{other}");
        }
    }

    #[test]
    fn endpoint_subjects_and_names() {
        assert_eq!(join_subject("v1", "products"), "v1.products");
        assert_eq!(join_subject("", "products"), "products");
        assert_eq!(join_subject("v1.admin", ""), "v1.admin");
        assert_eq!(endpoint_names(None, "v1.products"), ("v1.products".into(), "v1-products".into()));
        assert_eq!(endpoint_names(Some("list"), "v1.products"), ("list".into(), "list".into()));
    }
}
