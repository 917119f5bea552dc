//! NATS message headers: multi-valued, case-preserving, with an optional
//! status line (`NATS/1.0 408 Request Timeout`).

use std::fmt;

/// Header names and values in the order they were added. Names keep their
/// case; [`HeaderMap::get`] matches exactly, as nats.js and async-nats do, and
/// [`HeaderMap::get_ignore_case`] is there for servers or peers that vary case.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct HeaderMap {
    entries: Vec<(String, Vec<String>)>,
}

impl HeaderMap {
    pub fn new() -> Self {
        Self::default()
    }

    /// A map from entries already grouped by distinct name, in order. The
    /// wire parser groups with a hash index: calling [`HeaderMap::append`]
    /// per line would be quadratic in a hostile block of many names.
    pub(crate) fn from_grouped(entries: Vec<(String, Vec<String>)>) -> Self {
        HeaderMap { entries }
    }

    /// Replaces every value of `name` with `value`.
    pub fn insert(&mut self, name: impl Into<String>, value: impl Into<String>) {
        let name = name.into();
        let value = value.into();
        match self.entries.iter_mut().find(|(n, _)| *n == name) {
            Some((_, values)) => *values = vec![value],
            None => self.entries.push((name, vec![value])),
        }
    }

    /// Adds `value` to the values of `name`.
    pub fn append(&mut self, name: impl Into<String>, value: impl Into<String>) {
        let name = name.into();
        let value = value.into();
        match self.entries.iter_mut().find(|(n, _)| *n == name) {
            Some((_, values)) => values.push(value),
            None => self.entries.push((name, vec![value])),
        }
    }

    /// The first value of `name` (exact match).
    pub fn get(&self, name: &str) -> Option<&str> {
        self.get_all(name).next()
    }

    /// The first value of `name`, matching the name without regard to ASCII case.
    pub fn get_ignore_case(&self, name: &str) -> Option<&str> {
        self.entries.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).and_then(|(_, v)| v.first().map(String::as_str))
    }

    /// Every value of `name` (exact match), in order.
    pub fn get_all<'a>(&'a self, name: &str) -> impl Iterator<Item = &'a str> + 'a {
        let values = self.entries.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_slice());
        values.unwrap_or_default().iter().map(String::as_str)
    }

    /// Removes `name` and returns whether it was there.
    pub fn remove(&mut self, name: &str) -> bool {
        let before = self.entries.len();
        self.entries.retain(|(n, _)| n != name);
        before != self.entries.len()
    }

    /// `(name, value)` pairs, one per value, in order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.entries.iter().flat_map(|(n, vs)| vs.iter().map(move |v| (n.as_str(), v.as_str())))
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Number of distinct names.
    pub fn len(&self) -> usize {
        self.entries.len()
    }
}

impl fmt::Debug for HeaderMap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.entries.iter().map(|(n, v)| (n, v))).finish()
    }
}

impl<N: Into<String>, V: Into<String>> FromIterator<(N, V)> for HeaderMap {
    fn from_iter<I: IntoIterator<Item = (N, V)>>(iter: I) -> Self {
        let mut map = HeaderMap::new();
        for (n, v) in iter {
            map.append(n, v);
        }
        map
    }
}

/// A NATS status code from the header status line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StatusCode(pub u16);

impl StatusCode {
    pub const IDLE_HEARTBEAT: StatusCode = StatusCode(100);
    pub const OK: StatusCode = StatusCode(200);
    pub const EOB: StatusCode = StatusCode(204);
    pub const BAD_REQUEST: StatusCode = StatusCode(400);
    pub const NOT_FOUND: StatusCode = StatusCode(404);
    pub const REQUEST_TIMEOUT: StatusCode = StatusCode(408);
    pub const CONFLICT: StatusCode = StatusCode(409);
    pub const PRECONDITION_FAILED: StatusCode = StatusCode(412);
    pub const TOO_LARGE: StatusCode = StatusCode(413);
    pub const LOCKED: StatusCode = StatusCode(423);
    pub const NO_RESPONDERS: StatusCode = StatusCode(503);
}

impl fmt::Display for StatusCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn multi_valued_and_case_preserving() {
        let mut h = HeaderMap::new();
        h.append("X-Key", "a");
        h.append("X-Key", "b");
        h.append("x-key", "c");
        assert_eq!(h.get_all("X-Key").collect::<Vec<_>>(), ["a", "b"]);
        assert_eq!(h.get("x-key"), Some("c"));
        assert_eq!(h.get_ignore_case("X-KEY"), Some("a"));
        h.insert("X-Key", "z");
        assert_eq!(h.get_all("X-Key").collect::<Vec<_>>(), ["z"]);
        assert_eq!(h.iter().count(), 2);
        assert!(h.remove("x-key"));
        assert_eq!(h.len(), 1);
    }
}
