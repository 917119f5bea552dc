//! Sequence ranges: merging, splitting, pruning; checked against a plain set.

use std::collections::BTreeSet;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use crate::core::jetstream::ack::SeqRanges;

fn set(r: &SeqRanges) -> BTreeSet<u64> {
    r.ranges().iter().flat_map(|&(a, b)| a..=b).collect()
}

/// Sorted, disjoint and never adjacent.
fn assert_canonical(r: &SeqRanges) {
    for w in r.ranges().windows(2) {
        assert!(w[0].1 + 1 < w[1].0, "{:?} not canonical", r.ranges());
    }
    assert!(r.ranges().iter().all(|&(a, b)| a <= b));
}

#[test]
fn consecutive_sequences_are_one_range() {
    let r: SeqRanges = (1..=10_000).collect();
    assert_eq!(r.ranges(), [(1, 10_000)]);
    assert_eq!(r.count(), 10_000);
}

#[test]
fn inserts_merge_neighbours_and_overlaps() {
    let mut r = SeqRanges::new();
    r.insert_range(10, 20);
    r.insert_range(30, 40);
    r.insert(21);
    assert_eq!(r.ranges(), [(10, 21), (30, 40)]);
    r.insert_range(22, 29);
    assert_eq!(r.ranges(), [(10, 40)]);
    r.insert_range(1, 5);
    r.insert_range(3, 50);
    assert_eq!(r.ranges(), [(1, 50)]);
    r.insert(u64::MAX);
    assert_eq!(r.ranges(), [(1, 50), (u64::MAX, u64::MAX)]);
}

#[test]
fn removal_splits_and_pruning_cuts() {
    let mut r: SeqRanges = (1..=10).collect();
    r.remove(5);
    assert_eq!(r.ranges(), [(1, 4), (6, 10)]);
    r.remove(1);
    r.remove(10);
    r.remove(42);
    assert_eq!(r.ranges(), [(2, 4), (6, 9)]);
    r.remove_through(3);
    assert_eq!(r.ranges(), [(4, 4), (6, 9)]);
    r.remove_through(100);
    assert!(r.is_empty());
}

#[test]
fn agrees_with_a_set_under_mixed_operations() {
    // A fixed xorshift: the same walk every run.
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut r = SeqRanges::new();
    let mut model = BTreeSet::new();
    for _ in 0..5_000 {
        let a = next() % 300 + 1;
        match next() % 6 {
            0 | 1 => {
                r.insert(a);
                model.insert(a);
            }
            2 => {
                let b = a + next() % 20;
                r.insert_range(a, b);
                model.extend(a..=b);
            }
            3 => {
                r.remove(a);
                model.remove(&a);
            }
            4 if a % 2 == 0 => {
                // A union with a few scattered ranges, some touching or overlapping.
                let other: SeqRanges =
                    (0..next() % 6).map(|_| next() % 300 + 1).collect::<BTreeSet<_>>().into_iter().collect();
                model.extend(set(&other));
                r.extend(&other);
            }
            _ => {
                let floor = next() % 40;
                r.remove_through(floor);
                model.retain(|&s| s > floor);
            }
        }
        assert_canonical(&r);
        assert_eq!(set(&r), model);
        assert_eq!(r.count(), model.len() as u64);
        assert_eq!(r.contains(a), model.contains(&a));
    }
}
