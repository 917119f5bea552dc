//! RFC 3339 times as the server writes them (`2026-09-01T10:11:12.5Z`),
//! to and from `SystemTime`, without a date-time crate.
//!
//! API types keep times as the server's strings; these helpers convert when a
//! caller needs a value, e.g. `opt_start_time` or `pause_until`. Only
//! `SystemTime` arithmetic is used, which also works in wasm, where
//! `SystemTime::now()` does not.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

const SECS_PER_DAY: i64 = 86_400;

/// Formats `t` in UTC with the fewest fraction digits, as Go's
/// `RFC3339Nano` does. Times before 1970 format as the epoch.
pub fn format_rfc3339(t: SystemTime) -> String {
    let since = t.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = i64::try_from(since.as_secs()).unwrap_or(i64::MAX);
    let (year, month, day) = civil_from_days(secs / SECS_PER_DAY);
    let rem = secs % SECS_PER_DAY;
    let mut out = format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}", rem / 3600, rem / 60 % 60, rem % 60);
    if since.subsec_nanos() != 0 {
        let frac = format!("{:09}", since.subsec_nanos());
        out.push('.');
        out.push_str(frac.trim_end_matches('0'));
    }
    out.push('Z');
    out
}

/// `nanos` since the Unix epoch (an ack subject's timestamp) as a `SystemTime`.
pub fn from_unix_nanos(nanos: u64) -> SystemTime {
    UNIX_EPOCH + Duration::from_nanos(nanos)
}

/// Parses `YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)`. `None` when malformed or
/// before 1970, which covers Go's zero time `0001-01-01T00:00:00Z` ("never").
pub fn parse_rfc3339(s: &str) -> Option<SystemTime> {
    let b = s.as_bytes();
    let layout_ok =
        b.len() >= 20 && b[4] == b'-' && b[7] == b'-' && matches!(b[10], b'T' | b't') && b[13] == b':' && b[16] == b':';
    if !layout_ok {
        return None;
    }
    let num = |from: usize, to: usize| digits(s.get(from..to)?);
    let (year, month, day) = (num(0, 4)?, num(5, 7)?, num(8, 10)?);
    let (hour, min, sec) = (num(11, 13)?, num(14, 16)?, num(17, 19)?);
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) || hour > 23 || min > 59 || sec > 59 {
        return None;
    }
    let mut rest = &s[19..];
    let mut nanos = 0;
    if let Some(frac) = rest.strip_prefix('.') {
        let len = frac.bytes().take_while(u8::is_ascii_digit).count();
        if len == 0 {
            return None;
        }
        // Go keeps nanoseconds; further digits are dropped.
        let kept = &frac[..len.min(9)];
        nanos = digits(kept)? * 10_i64.pow(9 - kept.len() as u32);
        rest = &frac[len..];
    }
    let offset = match rest.as_bytes() {
        [b'Z' | b'z'] => 0,
        [sign @ (b'+' | b'-'), _, _, b':', _, _] => {
            let secs = digits(rest.get(1..3)?)? * 3600 + digits(rest.get(4..6)?)? * 60;
            if *sign == b'+' { secs } else { -secs }
        }
        _ => return None,
    };
    let secs = days_from_civil(year, month, day) * SECS_PER_DAY + hour * 3600 + min * 60 + sec - offset;
    let secs = u64::try_from(secs).ok()?;
    UNIX_EPOCH.checked_add(Duration::new(secs, nanos as u32))
}

/// `SystemTime` as an RFC 3339 string, for `#[serde(with = "timestamp::rfc3339")]`:
/// written by [`format_rfc3339`], read by [`parse_rfc3339`] (a time it
/// refuses is an error).
pub mod rfc3339 {
    use std::time::SystemTime;

    use serde::{Deserialize, Deserializer, Serializer, de::Error};

    /// Writes `t` with [`format_rfc3339`](super::format_rfc3339).
    pub fn serialize<S: Serializer>(t: &SystemTime, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&super::format_rfc3339(*t))
    }

    /// Reads a time with [`parse_rfc3339`](super::parse_rfc3339); a string it refuses is an error.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<SystemTime, D::Error> {
        let text = String::deserialize(d)?;
        super::parse_rfc3339(&text).ok_or_else(|| D::Error::custom(format!("not an RFC 3339 time: {text:?}")))
    }
}

fn digits(text: &str) -> Option<i64> {
    text.bytes().try_fold(0_i64, |n, c| c.is_ascii_digit().then(|| n * 10 + i64::from(c - b'0')))
}

// Days since 1970-01-01 of a proleptic Gregorian date, and back
// (Howard Hinnant's `days_from_civil` / `civil_from_days`).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (month + if month > 2 { -3 } else { 9 }) + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(month <= 2), month, day)
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn at(secs: u64, nanos: u32) -> SystemTime {
        UNIX_EPOCH + Duration::new(secs, nanos)
    }

    #[test]
    fn formats_like_go_rfc3339nano() {
        assert_eq!(format_rfc3339(UNIX_EPOCH), "1970-01-01T00:00:00Z");
        assert_eq!(format_rfc3339(at(1_700_000_000, 0)), "2023-11-14T22:13:20Z");
        assert_eq!(format_rfc3339(at(951_782_400, 500_000_000)), "2000-02-29T00:00:00.5Z");
        assert_eq!(format_rfc3339(at(4_102_444_799, 123_456_789)), "2099-12-31T23:59:59.123456789Z");
    }

    #[test]
    fn parses_server_times() {
        assert_eq!(parse_rfc3339("2023-11-14T22:13:20Z"), Some(at(1_700_000_000, 0)));
        assert_eq!(parse_rfc3339("2000-02-29T00:00:00.5Z"), Some(at(951_782_400, 500_000_000)));
        assert_eq!(parse_rfc3339("2023-11-15T00:13:20.000000001+02:00"), Some(at(1_700_000_000, 1)));
        assert_eq!(parse_rfc3339("2023-11-14T20:13:20-02:00"), Some(at(1_700_000_000, 0)));
        assert_eq!(parse_rfc3339("2023-11-14t22:13:20.1234567891z"), Some(at(1_700_000_000, 123_456_789)));
        for t in [at(0, 0), at(1_756_721_472, 7), at(4_102_444_799, 999_999_999)] {
            assert_eq!(parse_rfc3339(&format_rfc3339(t)), Some(t));
        }
    }

    #[test]
    fn rejects_malformed_and_zero_time() {
        for bad in [
            "0001-01-01T00:00:00Z",
            "",
            "2023-11-14 22:13:20Z",
            "2023-13-14T22:13:20Z",
            "2023-11-14T24:13:20Z",
            "2023-11-14T22:13:20",
            "2023-11-14T22:13:20.Z",
            "2023-11-14T22:13:20+0200",
            "2023-11-14T22:13:2éZ",
            "+023-11-14T22:13:20Z",
        ] {
            assert_eq!(parse_rfc3339(bad), None, "{bad:?}");
        }
    }
}
