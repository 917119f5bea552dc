//! `IdMap`: the map of things keyed by ids that only grow (sids, request,
//! flush and ledger ids). New ids go at the back and the oldest usually
//! leave first (requests are answered, fetches end, in about the order they
//! were made), both O(1); lookups are binary searches over contiguous
//! memory. It iterates in id order, so resubscribing after a reconnect is
//! deterministic.
//!
//! Size matters here: the map is instantiated for many value types, and the
//! wasm pays for every instance of a collection's code. So the ordered part,
//! a deque of `(id, slot)` pairs, is one non-generic [`Index`]; values live
//! in a plain `Vec<Option<V>>` of slots (freed slots are reused), the only
//! code made per value type.

use std::collections::VecDeque;
use std::fmt;
use std::marker::PhantomData;
use std::mem;

/// An id an [`IdMap`] can be keyed by: a `u64` or a newtype of one.
pub(crate) trait Id: Copy {
    fn to_u64(self) -> u64;
    fn from_u64(id: u64) -> Self;
}

impl Id for u64 {
    fn to_u64(self) -> u64 {
        self
    }
    fn from_u64(id: u64) -> Self {
        id
    }
}

/// Implements [`Id`] for newtypes of `u64`.
macro_rules! impl_id {
    ($($name:ty),*) => {$(
        impl $crate::id_map::Id for $name {
            fn to_u64(self) -> u64 {
                self.0
            }
            fn from_u64(id: u64) -> Self {
                Self(id)
            }
        }
    )*};
}
pub(crate) use impl_id;

/// The ids of a map in order, each with the slot holding its value, and the
/// slots free for reuse. Knows nothing of values: compiled once.
#[derive(Default)]
struct Index {
    entries: VecDeque<(u64, usize)>,
    free: Vec<usize>,
    /// Slots handed out so far (the length of the map's slot vector).
    slots: usize,
}

impl Index {
    fn find(&self, id: u64) -> Result<usize, usize> {
        self.entries.binary_search_by_key(&id, |&(k, _)| k)
    }

    fn slot(&self, id: u64) -> Option<usize> {
        let i = self.find(id).ok()?;
        self.entries.get(i).map(|&(_, slot)| slot)
    }

    /// The slot of `id`, given a fresh one when `id` is new.
    fn insert(&mut self, id: u64) -> usize {
        let at = match self.entries.back() {
            Some(&(last, _)) if last >= id => match self.find(id) {
                Ok(i) => return self.entries[i].1,
                Err(i) => Some(i),
            },
            _ => None,
        };
        let slot = self.free.pop().unwrap_or_else(|| {
            self.slots += 1;
            self.slots - 1
        });
        match at {
            Some(i) => self.entries.insert(i, (id, slot)),
            None => self.entries.push_back((id, slot)),
        }
        slot
    }

    /// Frees the slot of `id`; the slot, if `id` was there.
    fn remove(&mut self, id: u64) -> Option<usize> {
        let i = self.find(id).ok()?;
        let (_, slot) = self.entries.remove(i)?;
        self.free.push(slot);
        Some(slot)
    }
}

/// A map from ids to `V`, in id order; the subset of `HashMap`'s API the
/// connection and driver use.
pub(crate) struct IdMap<K, V> {
    index: Index,
    slots: Vec<Option<V>>,
    ids: PhantomData<fn(K) -> K>,
}

impl<K, V> Default for IdMap<K, V> {
    fn default() -> Self {
        IdMap { index: Index::default(), slots: Vec::new(), ids: PhantomData }
    }
}

impl<K: Id + fmt::Debug, V: fmt::Debug> fmt::Debug for IdMap<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<K: Id, V> IdMap<K, V> {
    /// Adds or replaces the value of `id`; the old value, if any.
    pub fn insert(&mut self, id: K, value: V) -> Option<V> {
        let slot = self.index.insert(id.to_u64());
        if slot == self.slots.len() {
            self.slots.push(None);
        }
        self.slots[slot].replace(value)
    }

    pub fn get(&self, id: &K) -> Option<&V> {
        self.slots.get(self.index.slot(id.to_u64())?)?.as_ref()
    }

    pub fn get_mut(&mut self, id: &K) -> Option<&mut V> {
        self.slots.get_mut(self.index.slot(id.to_u64())?)?.as_mut()
    }

    pub fn remove(&mut self, id: &K) -> Option<V> {
        self.slots[self.index.remove(id.to_u64())?].take()
    }

    pub fn keys(&self) -> impl Iterator<Item = K> {
        self.index.entries.iter().map(|&(id, _)| K::from_u64(id))
    }

    pub fn iter(&self) -> impl Iterator<Item = (K, &V)> {
        self.index.entries.iter().filter_map(|&(id, slot)| Some((K::from_u64(id), self.slots[slot].as_ref()?)))
    }

    pub fn values(&self) -> impl Iterator<Item = &V> {
        self.iter().map(|(_, v)| v)
    }

    /// Every value in id order. Not for hot paths: it collects the slots first.
    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut V> {
        self.iter_mut().map(|(_, v)| v)
    }

    /// Every entry in id order. Not for hot paths: it collects the slots first.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = (K, &mut V)> {
        let mut slots: Vec<Option<&mut V>> = self.slots.iter_mut().map(Option::as_mut).collect();
        self.index.entries.iter().filter_map(move |&(id, slot)| Some((K::from_u64(id), slots[slot].take()?)))
    }

    pub fn is_empty(&self) -> bool {
        self.index.entries.is_empty()
    }

    /// Every entry, in id order; the map is empty after.
    pub fn drain(&mut self) -> impl Iterator<Item = (K, V)> + use<K, V> {
        let mut slots = mem::take(&mut self.slots);
        let index = mem::take(&mut self.index);
        index.entries.into_iter().filter_map(move |(id, slot)| Some((K::from_u64(id), slots[slot].take()?)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(map: &IdMap<u64, i32>) -> Vec<(u64, i32)> {
        map.iter().map(|(k, v)| (k, *v)).collect()
    }

    #[test]
    fn a_map_in_id_order() {
        let mut map = IdMap::default();
        for id in [1, 2, 5, 9] {
            assert_eq!(map.insert(id, id as i32 * 10), None);
        }
        assert_eq!(map.insert(3, 30), None, "an id below the last goes in its place");
        assert_eq!(map.insert(5, 55), Some(50));
        assert_eq!(map.keys().collect::<Vec<_>>(), [1, 2, 3, 5, 9]);
        assert_eq!((map.get(&5), map.get(&4)), (Some(&55), None));
        *map.get_mut(&1).unwrap() += 1;
        assert_eq!((map.remove(&1), map.remove(&1), map.remove(&7)), (Some(11), None, None));
        assert_eq!(map.remove(&9), Some(90));
        assert_eq!(map.insert(6, 60), None);
        map.values_mut().for_each(|v| *v += 1);
        assert_eq!(map.iter_mut().map(|(k, v)| (k, *v)).collect::<Vec<_>>(), [(2, 21), (3, 31), (5, 56), (6, 61)]);
        assert_eq!(map.values().sum::<i32>(), 169);
        assert_eq!(map.iter().map(|(k, _)| k).sum::<u64>(), 16);
        assert_eq!(map.drain().collect::<Vec<_>>(), [(2, 21), (3, 31), (5, 56), (6, 61)]);
        assert!(map.is_empty());
        assert_eq!(map.get(&2), None);
        assert_eq!(map.remove(&3), None);
    }

    #[test]
    fn freed_slots_are_reused_and_ids_keep_their_order() {
        let mut map = IdMap::default();
        for id in 0..8 {
            map.insert(id, id as i32);
        }
        for id in [0, 1, 2, 6] {
            assert_eq!(map.remove(&id), Some(id as i32));
        }
        // New ids take the freed slots, old ones keep theirs.
        for id in [10, 4, 11] {
            map.insert(id, id as i32 * 100);
        }
        assert_eq!(map.slots.len(), 8, "no slot added while freed ones were there");
        assert_eq!(entries(&map), [(3, 3), (4, 400), (5, 5), (7, 7), (10, 1000), (11, 1100)]);
        for id in [3, 5, 7] {
            map.remove(&id);
        }
        map.insert(12, 1200);
        assert_eq!(entries(&map), [(4, 400), (10, 1000), (11, 1100), (12, 1200)]);
    }

    #[test]
    fn fifo_use_stays_small() {
        let mut map = IdMap::default();
        for id in 0..10_000u64 {
            map.insert(id, id as i32);
            if id >= 3 {
                assert_eq!(map.remove(&(id - 3)), Some(id as i32 - 3));
            }
        }
        assert_eq!(map.keys().collect::<Vec<_>>(), [9997, 9998, 9999]);
        assert!(map.slots.len() <= 4);
    }

    #[test]
    fn an_empty_map_and_a_drain_left_unread() {
        let mut map: IdMap<u64, String> = IdMap::default();
        assert!(map.is_empty());
        assert_eq!(map.get(&0), None);
        assert_eq!(map.get_mut(&0), None);
        assert_eq!(map.remove(&0), None);
        assert_eq!(map.iter_mut().count(), 0);
        map.insert(u64::MAX, "last".into());
        map.insert(0, "first".into());
        drop(map.drain());
        assert!(map.is_empty(), "drain empties the map even when not iterated");
        assert_eq!(map.insert(7, "again".into()), None);
        assert_eq!(format!("{map:?}"), r#"{7: "again"}"#);
    }
}
