//! async-nats's `datetime` module: its [`DateTime`] type (`time`'s
//! `OffsetDateTime`, async-nats's default) and the helpers that make one.
//! Native only; the wasm carries no date-time crate.
//!
//! natsjet's own API keeps times as `SystemTime` (message metadata
//! `published`, Key-Value `created`, object `modified`) and as the server's
//! RFC 3339 strings in stream and consumer info. A program that wants
//! async-nats's type converts: `DateTime::from(metadata.published)`, or
//! `datetime::parse_rfc3339(&info.created)?`.

use std::time::Duration;

use crate::core::error::Error;

/// The date-time type of async-nats's JetStream and service APIs:
/// `time::OffsetDateTime` (async-nats's `chrono` feature has no
/// counterpart here).
pub type DateTime = time::OffsetDateTime;

/// Parses an RFC 3339 time (`2023-01-02T03:04:05.123Z`, or with an offset
/// such as `+02:00`), as UTC.
pub fn parse_rfc3339(s: &str) -> Result<DateTime, Error> {
    DateTime::parse(s, &time::format_description::well_known::Rfc3339)
        .map(|t| t.to_offset(time::UtcOffset::UTC))
        .map_err(|e| Error::InvalidArgument(format!("{s:?} is not an RFC 3339 time: {e}")))
}

/// The time `nanos` nanoseconds after the Unix epoch (before it when
/// negative), in UTC.
pub fn from_nanos(nanos: i128) -> Result<DateTime, Error> {
    DateTime::from_unix_timestamp_nanos(nanos)
        .map_err(|e| Error::InvalidArgument(format!("{nanos} ns since the Unix epoch: {e}")))
}

/// The current time, in UTC.
pub fn now() -> DateTime {
    DateTime::now_utc()
}

/// `datetime` plus `duration`; an error when the sum is out of range.
pub fn add_std_duration(datetime: DateTime, duration: Duration) -> Result<DateTime, Error> {
    let overflow = || Error::InvalidArgument(format!("{datetime} + {duration:?} is out of range"));
    let duration = time::Duration::try_from(duration).map_err(|_| overflow())?;
    datetime.checked_add(duration).ok_or_else(overflow)
}

#[cfg(test)]
mod tests {
    use std::time::{SystemTime, UNIX_EPOCH};

    use super::*;

    const NANOS: i128 = 1_672_628_645_123_456_789;

    #[test]
    fn server_times_parse_to_the_instant_they_name() {
        for (text, nanos) in [
            ("2023-01-02T03:04:05Z", 1_672_628_645_000_000_000),
            ("2023-01-02T03:04:05.123Z", 1_672_628_645_123_000_000),
            ("2023-01-02T03:04:05.123456789Z", NANOS),
            ("2023-01-02T05:04:05.123456789+02:00", NANOS),
        ] {
            let parsed = parse_rfc3339(text).unwrap();
            assert_eq!((parsed, parsed.offset()), (from_nanos(nanos).unwrap(), time::UtcOffset::UTC), "{text}");
        }
        assert!(matches!(parse_rfc3339("yesterday"), Err(Error::InvalidArgument(_))));
    }

    #[test]
    fn nanos_before_and_after_the_epoch() {
        assert_eq!(from_nanos(NANOS).unwrap().unix_timestamp_nanos(), NANOS);
        assert_eq!(from_nanos(-1).unwrap(), parse_rfc3339("1969-12-31T23:59:59.999999999Z").unwrap());
        assert!(from_nanos(i128::MAX).is_err());
    }

    #[test]
    fn durations_add_until_out_of_range() {
        let start = from_nanos(NANOS).unwrap();
        let later = add_std_duration(start, Duration::from_millis(1500)).unwrap();
        assert_eq!(later.unix_timestamp_nanos(), NANOS + 1_500_000_000);
        assert!(add_std_duration(start, Duration::MAX).is_err());
        assert!(
            add_std_duration(DateTime::new_utc(time::Date::MAX, time::Time::MIDNIGHT), Duration::from_secs(86_400))
                .is_err()
        );
    }

    #[test]
    fn now_is_the_system_clock_in_utc() {
        let before = SystemTime::now();
        let now = now();
        assert!(DateTime::from(before) <= now && now.offset() == time::UtcOffset::UTC);
        assert_eq!(DateTime::from(UNIX_EPOCH), from_nanos(0).unwrap());
    }
}
