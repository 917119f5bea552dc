//! Message schedules (ADR-51; streams with `allow_msg_schedules`): a
//! message whose `Nats-Schedule` header makes the stream publish its body
//! (or the last message of a source subject) to a target subject once
//! (`@at <RFC 3339>`, server 2.12), at an interval (`@every <Go duration>`,
//! at least 1 s), or on a 6-field cron expression or a predefined alias,
//! optionally in a time zone (server 2.14). [`Schedule`] holds nats.js's
//! `ScheduleOptions`; [`check`] refuses, before a byte is written, what the
//! server would: a pattern that does not parse (cron fields, their ranges,
//! a duration), a time zone on anything but cron, a target or source that
//! is the schedule's own subject, a TTL the server cannot read, a rollup
//! other than `sub`, and a cancellation (`Nats-Scheduler` with
//! `Nats-Schedule-Next: purge`) of the subject it is published to or
//! together with a schedule. Time zone names are the server's to check.

use std::time::{Duration, SystemTime};

use crate::core::error::Error;
use crate::core::header::{
    HeaderMap, NATS_SCHEDULE, NATS_SCHEDULE_NEXT, NATS_SCHEDULE_ROLLUP, NATS_SCHEDULE_SOURCE, NATS_SCHEDULE_TARGET,
    NATS_SCHEDULE_TIME_ZONE, NATS_SCHEDULE_TTL, NATS_SCHEDULER,
};
use crate::core::jetstream::api::timestamp::{format_rfc3339, parse_rfc3339};
use crate::core::jetstream::publish::ttl_value;
use crate::core::subject::validate_publish_subject;

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

/// What a pattern schedules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    At,
    Every,
    Cron,
}

/// Refuses what the server would refuse in the schedule headers of a
/// message to `subject` (a message without any passes untouched).
pub fn check(subject: &str, headers: &HeaderMap) -> Result<(), Error> {
    refusal(subject, headers).map_err(|(what, value, why)| Error::InvalidArgument(format!("{what} {value:?}: {why}")))
}

/// What is refused (which header or part), its value and why.
type Refusal<'a> = (&'static str, &'a str, &'static str);

fn refusal<'a>(subject: &str, headers: &'a HeaderMap) -> Result<(), Refusal<'a>> {
    let value = |name| headers.get(name).map(|v| v.as_str());
    let subject_ok = |what, s: &'a str| match validate_publish_subject(s, false) {
        Ok(()) => Ok(()),
        Err(_) => Err((what, s, "not a subject to publish to")),
    };
    if let Some(scheduler) = value(NATS_SCHEDULER) {
        if value(NATS_SCHEDULE).is_some() {
            return Err(("cancelSchedule", scheduler, "schedule and cancelSchedule are mutually exclusive"));
        }
        if scheduler == subject {
            return Err(("cancelSchedule", scheduler, "scheduleSubject must not equal the publish subject"));
        }
        subject_ok("cancelSchedule.scheduleSubject", scheduler)?;
    }
    let Some(pattern) = value(NATS_SCHEDULE) else { return Ok(()) };
    let kind = check_pattern(pattern)?;
    if let Some(zone) = value(NATS_SCHEDULE_TIME_ZONE) {
        if zone.trim().is_empty() || kind != Kind::Cron {
            return Err(("schedule time zone", zone, "an IANA name, for cron schedules only"));
        }
    }
    let target = value(NATS_SCHEDULE_TARGET).unwrap_or_default();
    if target.is_empty() || target == subject {
        return Err(("schedule target", target, "a subject other than the schedule's own"));
    }
    subject_ok("schedule target", target)?;
    if let Some(source) = value(NATS_SCHEDULE_SOURCE) {
        if source == target || source == subject {
            return Err(("schedule source", source, "neither the target nor the schedule's subject"));
        }
        subject_ok("schedule source", source)?;
    }
    if let Some(ttl) = value(NATS_SCHEDULE_TTL).filter(|ttl| !is_ttl(ttl)) {
        return Err(("schedule TTL", ttl, "a Go duration of at least 1s, whole seconds, or never"));
    }
    match value(NATS_SCHEDULE_ROLLUP) {
        Some(rollup) if rollup != "sub" => Err(("schedule rollup", rollup, "only sub")),
        _ => Ok(()),
    }
}

/// What `pattern` schedules, or why the server would not parse it.
fn check_pattern(pattern: &str) -> Result<Kind, Refusal<'_>> {
    let bad = |why| Err(("schedule", pattern, why));
    if let Some(time) = pattern.strip_prefix("@at ") {
        return match parse_rfc3339(time) {
            Some(_) => Ok(Kind::At),
            None => bad("@at takes an RFC 3339 time, such as 2030-01-02T15:04:05Z"),
        };
    }
    if let Some(interval) = pattern.strip_prefix("@every ") {
        return match parse_go_duration(interval) {
            Some(nanos) if nanos >= 1_000_000_000 => Ok(Kind::Every),
            Some(_) => bad("@every interval must be at least 1s"),
            None => bad("@every takes a Go duration, such as 90s or 1h30m"),
        };
    }
    if Predefined::ALL.iter().any(|p| p.as_str() == pattern) {
        return Ok(Kind::Cron);
    }
    if pattern.starts_with('@') {
        return bad("not @at, @every or a predefined schedule (@yearly, @monthly, @weekly, @daily, @hourly…)");
    }
    if pattern.split_ascii_whitespace().count() != 6 {
        return bad("a cron expression has 6 fields, seconds first");
    }
    for (field, bounds) in pattern.split_ascii_whitespace().zip(&CRON_FIELDS) {
        check_cron_field(field, bounds).map_err(|why| (bounds.name, field, why))?;
    }
    Ok(Kind::Cron)
}

/// One cron field's range and names.
struct Bounds {
    name: &'static str,
    min: u32,
    max: u32,
    names: &'static [&'static str],
}

const MONTHS: &[&str] = &["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const DAYS: &[&str] = &["sun", "mon", "tue", "wed", "thu", "fri", "sat"];
const CRON_FIELDS: [Bounds; 6] = [
    Bounds { name: "cron seconds (0-59)", min: 0, max: 59, names: &[] },
    Bounds { name: "cron minutes (0-59)", min: 0, max: 59, names: &[] },
    Bounds { name: "cron hours (0-23)", min: 0, max: 23, names: &[] },
    Bounds { name: "cron day of month (1-31)", min: 1, max: 31, names: &[] },
    Bounds { name: "cron month (1-12, jan-dec)", min: 1, max: 12, names: MONTHS },
    Bounds { name: "cron day of week (0-6, sun-sat)", min: 0, max: 6, names: DAYS },
];

/// A comma-separated list of `*`, `?`, `n`, `n-m`, each with an optional
/// `/step`, numbers or names within the field's bounds (the server's rules).
fn check_cron_field(field: &str, b: &Bounds) -> Result<(), &'static str> {
    let value = |text: &str| -> Result<u32, &'static str> {
        if let Some(i) = b.names.iter().position(|n| n.eq_ignore_ascii_case(text)) {
            // Months count from 1, days of the week from 0.
            return Ok(i as u32 + b.min);
        }
        let digits = text.strip_prefix('+').unwrap_or(text);
        match digits.parse::<u32>() {
            Ok(n) if digits.bytes().all(|c| c.is_ascii_digit()) => Ok(n),
            _ => Err("not a number or name"),
        }
    };
    let mut items = field.split(',').filter(|item| !item.is_empty()).peekable();
    if items.peek().is_none() {
        return Err("empty");
    }
    for item in items {
        let (range, step) = match item.split_once('/') {
            Some((range, step)) if !step.contains('/') => (range, Some(step)),
            Some(_) => return Err("more than one '/'"),
            None => (item, None),
        };
        let (start, end) = match range {
            "*" | "?" => (b.min, b.max),
            _ => match range.split_once('-') {
                Some((low, high)) if !high.contains('-') => (value(low)?, value(high)?),
                Some(_) => return Err("more than one '-'"),
                // `n/step` runs from n to the field's maximum.
                None => (value(range)?, if step.is_some() { b.max } else { value(range)? }),
            },
        };
        if start < b.min || end > b.max || start > end {
            return Err("out of range");
        }
        if step.map(value).transpose()? == Some(0) {
            return Err("a step of 0");
        }
    }
    Ok(())
}

/// Nanoseconds of a Go duration (`time.ParseDuration`: `"1h30m"`, `"1.5s"`,
/// `"0"`), `None` when malformed; a negative one is `Some(0)`. Integers only
/// (float parsing would add its tables to the wasm); a fraction's digits
/// below a nanosecond are dropped.
fn parse_go_duration(text: &str) -> Option<u64> {
    let (negative, mut rest) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    if rest == "0" {
        return Some(0);
    }
    if rest.is_empty() {
        return None;
    }
    let mut total: u64 = 0;
    while !rest.is_empty() {
        let whole_len = rest.bytes().take_while(u8::is_ascii_digit).count();
        let (whole, after) = rest.split_at(whole_len);
        let (fraction, after) = match after.strip_prefix('.') {
            Some(f) => f.split_at(f.bytes().take_while(u8::is_ascii_digit).count()),
            None => ("", after),
        };
        if whole.is_empty() && fraction.is_empty() {
            return None;
        }
        let unit_len = after.find(|c: char| c.is_ascii_digit() || c == '.').unwrap_or(after.len());
        let per: u64 = match &after[..unit_len] {
            "ns" => 1,
            "us" | "µs" | "μs" => 1_000,
            "ms" => 1_000_000,
            "s" => 1_000_000_000,
            "m" => 60_000_000_000,
            "h" => 3_600_000_000_000,
            _ => return None,
        };
        rest = &after[unit_len..];
        let mut nanos = if whole.is_empty() { 0 } else { whole.parse::<u64>().ok()?.checked_mul(per)? };
        let mut place = per;
        for digit in fraction.bytes() {
            place /= 10;
            nanos += u64::from(digit - b'0') * place;
        }
        total = total.checked_add(nanos)?;
    }
    // Go refuses durations past about 292 years.
    match total > i64::MAX as u64 {
        true => None,
        false => Some(if negative { 0 } else { total }),
    }
}

/// Whether the server reads `ttl` as a message TTL: `never`, a Go duration
/// of at least a second, or whole seconds.
fn is_ttl(ttl: &str) -> bool {
    ttl.eq_ignore_ascii_case("never")
        || parse_go_duration(ttl).is_some_and(|nanos| nanos >= 1_000_000_000)
        || (!ttl.is_empty() && ttl.bytes().all(|c| c.is_ascii_digit()))
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
    fn patterns_the_server_parses_pass() {
        let at = [
            "@at 2030-01-02T15:04:05Z",
            "@at 2030-01-02T15:04:05.123+02:00",
            "@every 1s",
            "@every 1h30m",
            "@every 1.5s",
            "@every 1000ms",
        ];
        let cron = [
            "0 0 5 * * *",
            "*/5 * * * * ?",
            "0 30 4 1,15 * 5",
            "0 0 8-18/2 * jan-MAR mon,wed,FRI",
            "0 0 0 1 1 *",
            "59 59 23 31 12 6",
            "5/10 * * * * *",
            "  0  0 *  * * *  ",
        ];
        for pattern in at.into_iter().chain(cron).chain(Predefined::ALL.map(Predefined::as_str)) {
            let headers = headers(Schedule::new(pattern, "orders"));
            assert_eq!(check("schedules.a", &headers), Ok(()), "{pattern}");
        }
    }

    #[test]
    fn patterns_the_server_refuses_are_refused_before_sending() {
        let cases = [
            ("@at tomorrow", "RFC 3339"),
            ("@at 2030-01-02 15:04:05Z", "RFC 3339"),
            ("@every 500ms", "at least 1s"),
            ("@every 0", "at least 1s"),
            ("@every -5s", "at least 1s"),
            ("@every 5", "Go duration"),
            ("@every 1d", "Go duration"),
            ("@every", "not @at, @every"),
            ("@fortnightly", "not @at, @every"),
            ("0 0 5 * *", "6 fields"),
            ("0 0 5 * * * *", "6 fields"),
            ("60 * * * * *", "cron seconds (0-59) \"60\": out of range"),
            ("* * 24 * * *", "cron hours"),
            ("* * * 0 * *", "cron day of month"),
            ("* * * * 13 *", "cron month"),
            ("* * * * * 7", "cron day of week"),
            ("* * * * * sunday", "not a number"),
            ("5-1 * * * * *", "out of range"),
            ("*/0 * * * * *", "step of 0"),
            ("1-2-3 * * * * *", "more than one '-'"),
            ("1/2/3 * * * * *", "more than one '/'"),
            (", * * * * *", "empty"),
        ];
        for (pattern, why) in cases {
            let headers = headers(Schedule::new(pattern, "orders"));
            let refusal = refused("schedules.a", &headers);
            assert!(refusal.contains(why), "{pattern}: {refusal}");
        }
    }

    #[test]
    fn the_other_headers_follow_the_servers_rules() {
        let cases = [
            (Schedule::every(Duration::from_secs(5), "t").time_zone("UTC"), "cron schedules only"),
            (Schedule::cron("0 0 5 * * *", "t").time_zone(""), "an IANA name"),
            (Schedule::cron("@daily", "schedules.a"), "other than the schedule's own"),
            (Schedule::cron("@daily", ""), "other than the schedule's own"),
            (Schedule::cron("@daily", "t").source("t"), "neither the target"),
            (Schedule::cron("@daily", "t").source("schedules.a"), "neither the target"),
            (Schedule::cron("@daily", "t").ttl_text("500ms"), "TTL"),
            (Schedule::cron("@daily", "t").ttl_text("soon"), "TTL"),
        ];
        for (schedule, why) in cases {
            let refusal = refused("schedules.a", &headers(schedule));
            assert!(refusal.contains(why), "{refusal}");
        }
        assert!(check("schedules.a", &headers(Schedule::cron("@daily", "bad target"))).is_err());
        let mut rollup = headers(Schedule::cron("@daily", "t"));
        rollup.insert(NATS_SCHEDULE_ROLLUP, "all");
        assert!(refused("schedules.a", &rollup).contains("only sub"));
        for ttl in ["never", "NEVER", "90", "1h", "1.5s"] {
            assert_eq!(check("s", &headers(Schedule::cron("@daily", "t").ttl_text(ttl))), Ok(()), "{ttl}");
        }
        let zoned = Schedule::predefined(Predefined::Daily, "t").time_zone("America/New_York");
        assert_eq!(check("s", &headers(zoned)), Ok(()));
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
        assert!(check("orders", &bad).is_err());
        assert_eq!(check("orders", &HeaderMap::new()), Ok(()), "no schedule headers: nothing to check");
    }

    #[test]
    fn go_durations() {
        let s = 1_000_000_000;
        let cases = [
            ("1s", Some(s)),
            ("1h30m", Some(5400 * s)),
            ("1.5s", Some(s + s / 2)),
            (".5s", Some(s / 2)),
            ("2m3s4ms", Some(123 * s + 4_000_000)),
            ("1µs", Some(1000)),
            ("1us", Some(1000)),
            ("0", Some(0)),
            ("+2s", Some(2 * s)),
            ("-2s", Some(0)),
            ("", None),
            ("s", None),
            ("5", None),
            ("1.2.3s", None),
            ("1d", None),
            ("1s ", None),
            ("300000000h", None),
            ("0.9999999999s", Some(s - 1)),
        ];
        for (text, nanos) in cases {
            assert_eq!(parse_go_duration(text), nanos, "{text:?}");
        }
    }
}
