//! `IdMap`: the map of things keyed by ids that only grow (sids, request,
//! flush and ledger ids), kept as a deque sorted by id. New ids go at the
//! back and the oldest usually leave first (requests are answered, fetches
//! end, in about the order they were made), both O(1); lookups are binary
//! searches over contiguous memory. It iterates in id order, so
//! resubscribing after a reconnect is deterministic. And one small generic
//! type, instead of a `HashMap` or `BTreeMap` per value type, saves tens of
//! kilobytes of wasm.

use std::collections::VecDeque;
use std::mem;

/// A map from ids to `V`, in id order; the subset of `HashMap`'s API the
/// connection and driver use.
#[derive(Debug)]
pub(crate) struct IdMap<K, V> {
    entries: VecDeque<(K, V)>,
}

impl<K, V> Default for IdMap<K, V> {
    fn default() -> Self {
        IdMap { entries: VecDeque::new() }
    }
}

impl<K: Ord + Copy, V> IdMap<K, V> {
    /// The newest entry is tried first: it is usually the busy one (a
    /// reader's inbox is the newest subscription), and a message for it is
    /// looked up by the connection, the session and the driver in turn.
    fn find(&self, id: &K) -> Result<usize, usize> {
        match self.entries.back() {
            Some((last, _)) if last == id => Ok(self.entries.len() - 1),
            _ => self.entries.binary_search_by_key(id, |(k, _)| *k),
        }
    }

    /// Adds or replaces the value of `id`; the old value, if any.
    pub fn insert(&mut self, id: K, value: V) -> Option<V> {
        if self.entries.back().is_none_or(|(last, _)| *last < id) {
            self.entries.push_back((id, value));
            return None;
        }
        match self.find(&id) {
            Ok(i) => Some(mem::replace(&mut self.entries[i].1, value)),
            Err(i) => {
                self.entries.insert(i, (id, value));
                None
            }
        }
    }

    pub fn get(&self, id: &K) -> Option<&V> {
        self.find(id).ok().map(|i| &self.entries[i].1)
    }

    pub fn get_mut(&mut self, id: &K) -> Option<&mut V> {
        self.find(id).ok().map(|i| &mut self.entries[i].1)
    }

    pub fn remove(&mut self, id: &K) -> Option<V> {
        let i = self.find(id).ok()?;
        self.entries.remove(i).map(|(_, value)| value)
    }

    pub fn keys(&self) -> impl Iterator<Item = &K> {
        self.entries.iter().map(|(k, _)| k)
    }

    pub fn iter(&self) -> impl Iterator<Item = (&K, &V)> {
        self.entries.iter().map(|(k, v)| (k, v))
    }

    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut V> {
        self.entries.iter_mut().map(|(_, v)| v)
    }

    pub fn iter_mut(&mut self) -> impl Iterator<Item = (&K, &mut V)> {
        self.entries.iter_mut().map(|(k, v)| (&*k, v))
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Keeps only the entries `keep` says yes to.
    pub fn retain(&mut self, mut keep: impl FnMut(&K, &mut V) -> bool) {
        self.entries.retain_mut(|(k, v)| keep(k, v));
    }

    /// Every entry, in id order; the map is empty after.
    pub fn drain(&mut self) -> impl Iterator<Item = (K, V)> {
        self.entries.drain(..)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn a_map_in_id_order() {
        let mut map = IdMap::default();
        for id in [1, 2, 5, 9] {
            assert_eq!(map.insert(id, id * 10), None);
        }
        assert_eq!(map.insert(3, 30), None, "an id below the last goes in its place");
        assert_eq!(map.insert(5, 55), Some(50));
        assert_eq!(map.keys().copied().collect::<Vec<_>>(), [1, 2, 3, 5, 9]);
        assert_eq!((map.get(&5), map.get(&4)), (Some(&55), None));
        *map.get_mut(&1).unwrap() += 1;
        assert_eq!((map.remove(&1), map.remove(&1), map.remove(&7)), (Some(11), None, None));
        assert_eq!(map.remove(&9), Some(90));
        assert_eq!(map.insert(6, 60), None);
        map.values_mut().for_each(|v| *v += 1);
        assert_eq!(map.iter_mut().map(|(k, v)| (*k, *v)).collect::<Vec<_>>(), [(2, 21), (3, 31), (5, 56), (6, 61)]);
        assert_eq!(map.iter().map(|(_, v)| *v).sum::<i32>(), 169);
        assert_eq!(map.iter().map(|(k, _)| k).sum::<i32>(), 16);
        assert_eq!(map.drain().count(), 4);
        assert!(map.is_empty());
    }
}
