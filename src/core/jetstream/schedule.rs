//! Message schedules (ADR-51; streams with `allow_msg_schedules`): a
//! message whose `Nats-Schedule` header makes the stream publish its body
//! (or the last message of a source subject) to a target subject once
//! (`@at <RFC 3339>`, server 2.12), at an interval (`@every <Go duration>`,
//! at least 1 s), or on a 6-field cron expression or a predefined alias,
//! optionally in a time zone (server 2.14). [`Schedule`] holds nats.js's
//! `ScheduleOptions`. The server judges the pattern, target, source, TTL,
//! time zone and rollup, each with its own error code (10189 to 10223), so
//! the wasm carries no cron, Go duration or RFC 3339 reader; [`check`]
//! refuses before sending only what nats.js does and the server would
//! not: a cancellation (`Nats-Scheduler` with `Nats-Schedule-Next: purge`)
//! together with a schedule, or of the subject it is published to.

use std::time::{Duration, SystemTime};

use crate::core::error::Error;
use crate::core::header::{
    HeaderMap, NATS_SCHEDULE, NATS_SCHEDULE_NEXT, NATS_SCHEDULE_ROLLUP, NATS_SCHEDULE_SOURCE, NATS_SCHEDULE_TARGET,
    NATS_SCHEDULE_TIME_ZONE, NATS_SCHEDULE_TTL, NATS_SCHEDULER,
};
use crate::core::jetstream::api::timestamp::format_rfc3339;
use crate::core::jetstream::publish::ttl_value;

/// The cron aliases the server knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Predefined {
    /// `0 0 0 1 1 *`
    Yearly,
    /// `@annually`, the same as `@yearly`.
    Annually,
    /// `0 0 0 1 * *`
    Monthly,
    /// `0 0 0 * * 0`
    Weekly,
    /// `0 0 0 * * *`
    Daily,
    /// `@midnight`, the same as `@daily`.
    Midnight,
    /// `0 0 * * * *`
    Hourly,
}

impl Predefined {
    /// Every alias, in the server's order.
    pub const ALL: [Predefined; 7] = [
        Predefined::Yearly,
        Predefined::Annually,
        Predefined::Monthly,
        Predefined::Weekly,
        Predefined::Daily,
        Predefined::Midnight,
        Predefined::Hourly,
    ];

    /// The alias as the `Nats-Schedule` header writes it (`@hourly`…).
    pub fn as_str(self) -> &'static str {
        match self {
            Predefined::Yearly => "@yearly",
            Predefined::Annually => "@annually",
            Predefined::Monthly => "@monthly",
            Predefined::Weekly => "@weekly",
            Predefined::Daily => "@daily",
            Predefined::Midnight => "@midnight",
            Predefined::Hourly => "@hourly",
        }
    }
}

/// A schedule to publish with (`Publish::schedule`), as nats.js's
/// `ScheduleOptions`: when, where to, and what the produced messages get.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Schedule {
    pattern: String,
    target: String,
    source: Option<String>,
    ttl: Option<String>,
    time_zone: Option<String>,
    rollup: bool,
}

impl Schedule {
    /// Once, at `time` (`@at`, in UTC; a time past fires at once).
    pub fn at(time: SystemTime, target: impl Into<String>) -> Self {
        Self::new(format!("@at {}", format_rfc3339(time)), target)
    }

    /// Every `interval` from when it is stored (at least 1 s; server 2.14).
    pub fn every(interval: Duration, target: impl Into<String>) -> Self {
        Self::new(format!("@every {}", go_duration(interval)), target)
    }

    /// On a cron expression of 6 fields, seconds first (`"0 30 4 * * mon-fri"`; server 2.14).
    pub fn cron(expression: impl Into<String>, target: impl Into<String>) -> Self {
        Self::new(expression, target)
    }

    /// On a predefined cron schedule (`@hourly`…; server 2.14).
    pub fn predefined(alias: Predefined, target: impl Into<String>) -> Self {
        Self::new(alias.as_str(), target)
    }

    /// Any value of the `Nats-Schedule` header (`"@every 5m"`, `"@at
    /// 2030-01-01T00:00:00Z"`, a cron expression, an alias), as nats.js's
    /// string specification.
    pub fn new(pattern: impl Into<String>, target: impl Into<String>) -> Self {
        let (pattern, target) = (pattern.into(), target.into());
        Schedule { pattern, target, source: None, ttl: None, time_zone: None, rollup: false }
    }

    /// Publishes the last message of `subject` (no wildcards) instead of the
    /// schedule's own body, which is the fallback when there is none.
    pub fn source(mut self, subject: impl Into<String>) -> Self {
        self.source = Some(subject.into());
        self
    }

    /// Each produced message expires `ttl` after it is stored (the stream
    /// needs `allow_msg_ttl`); whole seconds, at least one.
    pub fn ttl(self, ttl: Duration) -> Self {
        self.ttl_text(ttl_value(ttl))
    }

    /// [`ttl`](Self::ttl) as the server reads it: a Go duration, seconds, or `never`.
    pub fn ttl_text(mut self, ttl: impl Into<String>) -> Self {
        self.ttl = Some(ttl.into());
        self
    }

    /// The cron expression's time zone, an IANA name such as
    /// `America/New_York` (UTC without one; cron schedules only, server 2.14).
    pub fn time_zone(mut self, zone: impl Into<String>) -> Self {
        self.time_zone = Some(zone.into());
        self
    }

    /// Each produced message rolls up its subject (`Nats-Rollup: sub`): the
    /// target keeps only the latest (server 2.14).
    pub fn rollup(mut self) -> Self {
        self.rollup = true;
        self
    }

    /// The `Nats-Schedule` value.
    pub fn pattern(&self) -> &str {
        &self.pattern
    }

    /// Writes the schedule's headers into `headers`.
    pub(crate) fn write(self, headers: &mut HeaderMap) {
        headers.insert(NATS_SCHEDULE, self.pattern);
        headers.insert(NATS_SCHEDULE_TARGET, self.target);
        let optional = [(NATS_SCHEDULE_SOURCE, self.source), (NATS_SCHEDULE_TTL, self.ttl)];
        for (name, value) in optional.into_iter().chain([(NATS_SCHEDULE_TIME_ZONE, self.time_zone)]) {
            if let Some(value) = value {
                headers.insert(name, value);
            }
        }
        if self.rollup {
            headers.insert(NATS_SCHEDULE_ROLLUP, "sub");
        }
    }
}

/// Writes the headers that stop the schedule on `schedule_subject` once this
/// message is stored (atomically): `Nats-Scheduler` and `Nats-Schedule-Next: purge`.
pub(crate) fn write_cancel(schedule_subject: &str, headers: &mut HeaderMap) {
    headers.insert(NATS_SCHEDULER, schedule_subject);
    headers.insert(NATS_SCHEDULE_NEXT, "purge");
}

/// `d` as a Go duration (`"90s"`, `"1500ms"`-like nanoseconds when fractional).
fn go_duration(d: Duration) -> String {
    if d.subsec_nanos() == 0 { format!("{}s", d.as_secs()) } else { format!("{}ns", d.as_nanos()) }
}

/// Refuses what nats.js refuses before sending in the schedule headers of
/// a message to `subject` (a message without them passes untouched): a
/// cancellation together with a schedule (the server would store both) or
/// of the subject the message goes to. The rest is the server's to judge.
pub fn check(subject: &str, headers: &HeaderMap) -> Result<(), Error> {
    let Some(scheduler) = headers.get(NATS_SCHEDULER) else { return Ok(()) };
    let why = match headers.get(NATS_SCHEDULE) {
        Some(_) => "schedule and cancelSchedule are mutually exclusive",
        None if scheduler.as_str() == subject => "cancelSchedule.scheduleSubject must not equal the publish subject",
        None => return Ok(()),
    };
    Err(Error::InvalidArgument(why.into()))
}

#[cfg(test)]
mod tests {
    use std::time::UNIX_EPOCH;

    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn headers(schedule: Schedule) -> HeaderMap {
        let mut headers = HeaderMap::new();
        schedule.write(&mut headers);
        headers
    }

    fn pairs(headers: &HeaderMap) -> Vec<(&str, &str)> {
        headers.iter().collect()
    }

    fn refused(subject: &str, headers: &HeaderMap) -> String {
        match check(subject, headers) {
            Err(Error::InvalidArgument(why)) => why,
            other => panic!("expected a refusal, got {other:?} for {headers:?}"),
        }
    }

    #[test]
    fn options_become_nats_js_headers() {
        let at = UNIX_EPOCH + Duration::from_millis(1_900_000_000_500);
        let all = Schedule::at(at, "orders").source("sensors.t").ttl(Duration::from_secs(300)).rollup();
        assert_eq!(
            pairs(&headers(all)),
            [
                ("Nats-Schedule", "@at 2030-03-17T17:46:40.5Z"),
                ("Nats-Schedule-Target", "orders"),
                ("Nats-Schedule-Source", "sensors.t"),
                ("Nats-Schedule-TTL", "300"),
                ("Nats-Schedule-Rollup", "sub"),
            ]
        );
        let cron = Schedule::cron("0 30 4 * * mon-fri", "t").time_zone("Europe/Amsterdam").ttl_text("5m");
        assert_eq!(
            pairs(&headers(cron)),
            [
                ("Nats-Schedule", "0 30 4 * * mon-fri"),
                ("Nats-Schedule-Target", "t"),
                ("Nats-Schedule-TTL", "5m"),
                ("Nats-Schedule-Time-Zone", "Europe/Amsterdam"),
            ]
        );
        assert_eq!(Schedule::every(Duration::from_secs(90), "t").pattern(), "@every 90s");
        assert_eq!(Schedule::every(Duration::from_millis(1500), "t").pattern(), "@every 1500000000ns");
        assert_eq!(Schedule::predefined(Predefined::Hourly, "t").pattern(), "@hourly");
        let mut cancel = HeaderMap::new();
        write_cancel("schedules.a", &mut cancel);
        assert_eq!(pairs(&cancel), [("Nats-Scheduler", "schedules.a"), ("Nats-Schedule-Next", "purge")]);
    }

    #[test]
    fn what_the_server_judges_goes_out_unchecked() {
        // Bad patterns, targets, sources, TTLs, zones and rollups: the server
        // answers each with its code (tests/schedules.rs), so nothing here.
        let server_judges = [
            Schedule::cron("0 0 5 * *", "t"),
            Schedule::every(Duration::from_millis(500), "t"),
            Schedule::new("@at tomorrow", "t"),
            Schedule::every(Duration::from_secs(5), "t").time_zone("UTC"),
            Schedule::cron("@daily", "schedules.a"),
            Schedule::cron("@daily", "t").source("t"),
            Schedule::cron("@daily", "t").ttl_text("soon"),
        ];
        for schedule in server_judges {
            assert_eq!(check("schedules.a", &headers(schedule)), Ok(()));
        }
    }

    #[test]
    fn a_cancellation_names_another_subject_and_no_schedule() {
        let mut cancel = HeaderMap::new();
        write_cancel("schedules.a", &mut cancel);
        assert_eq!(check("orders", &cancel), Ok(()));
        assert!(refused("schedules.a", &cancel).contains("must not equal"));
        let mut both = headers(Schedule::cron("@daily", "orders"));
        write_cancel("schedules.b", &mut both);
        assert!(refused("schedules.a", &both).contains("mutually exclusive"));
        let mut bad = HeaderMap::new();
        write_cancel("bad subject", &mut bad);
        assert_eq!(check("orders", &bad), Ok(()), "the server's to refuse (10212)");
        assert_eq!(check("orders", &HeaderMap::new()), Ok(()), "no schedule headers: nothing to check");
    }
}
