//! Sets of stream sequences kept as sorted, disjoint ranges: a checkpoint's
//! 10,000 consecutive messages are one range, not 10,000 numbers.

/// Stream sequences as inclusive `(first, last)` ranges, sorted, disjoint
/// and never adjacent (neighbours merge).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SeqRanges(Vec<(u64, u64)>);

impl SeqRanges {
    /// An empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// The ranges, lowest first.
    pub fn ranges(&self) -> &[(u64, u64)] {
        &self.0
    }

    /// Whether no sequence is held.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Sequences held (a count, not the number of ranges).
    pub fn count(&self) -> u64 {
        self.0.iter().map(|&(first, last)| last - first + 1).sum()
    }

    /// Whether `seq` is held.
    pub fn contains(&self, seq: u64) -> bool {
        // New deliveries come after everything held: no search for them.
        match self.0.last() {
            Some(&(_, last)) if seq <= last => self.find(seq).is_ok(),
            _ => false,
        }
    }

    /// `Ok(i)`: range `i` holds `seq`; `Err(i)`: `seq` would go before range `i`.
    fn find(&self, seq: u64) -> Result<usize, usize> {
        let at = self.0.partition_point(|&(_, last)| last < seq);
        match self.0.get(at) {
            Some(&(first, _)) if first <= seq => Ok(at),
            _ => Err(at),
        }
    }

    /// Adds `seq`, merging it with a neighbouring range.
    pub fn insert(&mut self, seq: u64) {
        self.insert_range(seq, seq);
    }

    /// Adds `first..=last`, merging what it touches or overlaps.
    pub fn insert_range(&mut self, first: u64, last: u64) {
        if first > last {
            return;
        }
        // The common case, after all others: no search.
        if self.0.last().is_none_or(|&(_, end)| first > end) {
            match self.0.last_mut() {
                Some((_, end)) if *end + 1 == first => *end = last,
                _ => self.0.push((first, last)),
            }
            return;
        }
        // Ranges ending at or after first - 1 may touch; those starting at or
        // before last + 1 too. Everything between merges into one.
        let lo = self.0.partition_point(|&(_, end)| end.saturating_add(1) < first);
        let hi = self.0.partition_point(|&(start, _)| start <= last.saturating_add(1));
        if lo == hi {
            self.0.insert(lo, (first, last));
            return;
        }
        let merged = (first.min(self.0[lo].0), last.max(self.0[hi - 1].1));
        self.0.splice(lo..hi, [merged]);
    }

    /// Removes `seq`; a range it splits becomes two.
    pub fn remove(&mut self, seq: u64) {
        let Ok(at) = self.find(seq) else { return };
        let (first, last) = self.0[at];
        match (first == seq, last == seq) {
            (true, true) => {
                self.0.remove(at);
            }
            (true, false) => self.0[at].0 = seq + 1,
            (false, true) => self.0[at].1 = seq - 1,
            (false, false) => {
                self.0[at].1 = seq - 1;
                self.0.insert(at + 1, (seq + 1, last));
            }
        }
    }

    /// Removes every sequence at or below `floor`.
    pub fn remove_through(&mut self, floor: u64) {
        let whole = self.0.partition_point(|&(_, last)| last <= floor);
        self.0.drain(..whole);
        if let Some(front) = self.0.first_mut() {
            front.0 = front.0.max(floor.saturating_add(1));
        }
    }

    /// Adds every range of `other`, in one merge of the two sorted lists
    /// (inserting each would move the ranges after it, every time).
    pub fn extend(&mut self, other: &SeqRanges) {
        let (mut mine, mut theirs) = (self.0.iter().peekable(), other.0.iter().peekable());
        let mut merged: Vec<(u64, u64)> = Vec::with_capacity(self.0.len() + other.0.len());
        loop {
            let next = match (mine.peek(), theirs.peek()) {
                (Some(a), Some(b)) if a.0 <= b.0 => mine.next(),
                (_, Some(_)) => theirs.next(),
                (Some(_), None) => mine.next(),
                (None, None) => break,
            };
            let Some(&(first, last)) = next else { break };
            match merged.last_mut() {
                Some((_, end)) if end.saturating_add(1) >= first => *end = (*end).max(last),
                _ => merged.push((first, last)),
            }
        }
        self.0 = merged;
    }
}

impl FromIterator<u64> for SeqRanges {
    fn from_iter<I: IntoIterator<Item = u64>>(iter: I) -> Self {
        let mut ranges = SeqRanges::new();
        for seq in iter {
            // Mostly ascending input: extending the last range is the common case.
            match ranges.0.last_mut() {
                Some((_, last)) if *last + 1 == seq => *last = seq,
                Some(&mut (_, last)) if last < seq => ranges.0.push((seq, seq)),
                None => ranges.0.push((seq, seq)),
                _ => ranges.insert(seq),
            }
        }
        ranges
    }
}
