//! The term dictionary of the MARC index: byte-string keys to sets of record ordinals.
//!
//! Frozen [`Segment`]s hold most terms compactly (keys concatenated in sorted order,
//! one `u32` per term: the ordinal itself when one record has the term, which is most
//! terms, or the index of a roaring bitmap); a small mutable delta (`BTreeMap`) takes
//! records changed since. A changed record's ordinal is marked dead in every segment, so
//! its old postings stop counting, and its new terms go to the delta. The delta is
//! frozen into a new segment when it grows; segments are merged when dead postings
//! pile up. Exact lookups are binary searches; prefix and range lookups walk a sorted
//! key range, never all records.

use std::collections::{BTreeMap, HashMap};
use std::ops::Bound;

use roaring::RoaringBitmap;

/// Marks a posting word that indexes `Segment::bitmaps` rather than being an ordinal.
const MANY: u32 = 1 << 31;

/// An immutable sorted run of terms.
#[derive(Default)]
pub(crate) struct Segment {
    // Invariant: keys are strictly increasing; key i is keys[ends[i-1]..ends[i]].
    keys: Vec<u8>,
    ends: Vec<u32>,
    // Invariant: one word per key; `MANY | n` refers to bitmaps[n], else an ordinal.
    postings: Vec<u32>,
    bitmaps: Vec<RoaringBitmap>,
    /// Ordinals whose postings here are out of date.
    dead: RoaringBitmap,
}

impl Segment {
    fn len(&self) -> usize {
        self.ends.len()
    }

    fn key(&self, idx: usize) -> &[u8] {
        let start = if idx == 0 { 0 } else { self.ends[idx - 1] as usize };
        &self.keys[start..self.ends[idx] as usize]
    }

    /// The first index whose key is `>= key`.
    fn lower_bound(&self, key: &[u8]) -> usize {
        let (mut lo, mut hi) = (0, self.len());
        while lo < hi {
            let mid = (lo + hi) / 2;
            if self.key(mid) < key { lo = mid + 1 } else { hi = mid }
        }
        lo
    }

    fn add_posting(&self, idx: usize, out: &mut RoaringBitmap) {
        let word = self.postings[idx];
        if word & MANY == 0 {
            if !self.dead.contains(word) {
                out.insert(word);
            }
        } else if self.dead.is_empty() {
            *out |= &self.bitmaps[(word & !MANY) as usize];
        } else {
            *out |= &self.bitmaps[(word & !MANY) as usize] - &self.dead;
        }
    }

    fn posting(&self, idx: usize) -> RoaringBitmap {
        let mut out = RoaringBitmap::new();
        self.add_posting(idx, &mut out);
        out
    }

    fn bytes(&self) -> usize {
        self.keys.capacity()
            + self.ends.capacity() * 4
            + self.postings.capacity() * 4
            + self.bitmaps.iter().map(|b| b.serialized_size() + 32).sum::<usize>()
            + self.dead.serialized_size()
    }

    /// Appends a term: `key` must sort after every key already in, `ords` sorted and
    /// distinct. Nothing is added when `ords` is empty.
    pub(crate) fn push_ords(&mut self, key: &[u8], ords: &[u32]) {
        match ords {
            [] => {}
            [one] => {
                self.push_key(key);
                self.postings.push(*one);
            }
            many => self.push_bitmap(key, many.iter().copied().collect()),
        }
    }

    /// Appends a term with its records (see [`Segment::push_ords`]).
    pub(crate) fn push_bitmap(&mut self, key: &[u8], posting: RoaringBitmap) {
        match posting.len() {
            0 => {}
            1 => {
                self.push_key(key);
                self.postings.push(posting.min().unwrap_or_default());
            }
            _ => {
                self.push_key(key);
                self.postings.push(MANY | self.bitmaps.len() as u32);
                self.bitmaps.push(posting);
            }
        }
    }

    fn push_key(&mut self, key: &[u8]) {
        debug_assert!(self.ends.is_empty() || self.key(self.len() - 1) < key);
        self.keys.extend_from_slice(key);
        self.ends.push(self.keys.len() as u32);
    }

    pub(crate) fn shrink(&mut self) {
        self.keys.shrink_to_fit();
        self.ends.shrink_to_fit();
        self.postings.shrink_to_fit();
        self.bitmaps.shrink_to_fit();
    }

    /// Builds a segment from sorted, distinct keys and their postings.
    fn build(items: impl Iterator<Item = (Vec<u8>, RoaringBitmap)>) -> Segment {
        let mut seg = Segment::default();
        for (key, posting) in items {
            seg.push_bitmap(&key, posting);
        }
        seg.shrink();
        seg
    }
}

/// All terms: frozen segments and the mutable delta.
#[derive(Default)]
pub(crate) struct Terms {
    segments: Vec<Segment>,
    delta: BTreeMap<Box<[u8]>, RoaringBitmap>,
    // The delta's keys per ordinal, so a record changed twice is taken out of the delta.
    delta_keys: HashMap<u32, Vec<Box<[u8]>>>,
    delta_postings: usize,
}

/// The delta is frozen into a segment beyond this many postings.
const DELTA_LIMIT: usize = 2_000_000;

/// Beyond this many segments they are merged. The index build makes one segment per
/// few million postings (about ten for a million LC records), and a lookup costs one
/// binary search per segment, so a few dozen are cheap.
const MAX_SEGMENTS: usize = 48;

impl Terms {
    /// Adds a record's terms (keys may repeat). The record must not be present.
    pub(crate) fn add(&mut self, ord: u32, keys: Vec<Vec<u8>>) {
        let mut own = Vec::with_capacity(keys.len());
        for key in keys {
            let key: Box<[u8]> = key.into_boxed_slice();
            let posting = self.delta.entry(key.clone()).or_default();
            if posting.insert(ord) {
                self.delta_postings += 1;
                own.push(key);
            }
        }
        self.delta_keys.insert(ord, own);
        if self.delta_postings >= DELTA_LIMIT {
            self.freeze();
        }
    }

    /// Takes a record out: marks it dead in the segments and removes it from the delta.
    pub(crate) fn remove(&mut self, ord: u32) {
        for seg in &mut self.segments {
            seg.dead.insert(ord);
        }
        if let Some(keys) = self.delta_keys.remove(&ord) {
            for key in keys {
                if let Some(posting) = self.delta.get_mut(&key) {
                    posting.remove(ord);
                    self.delta_postings -= 1;
                    if posting.is_empty() {
                        self.delta.remove(&key);
                    }
                }
            }
        }
    }

    /// Adds a segment built elsewhere (the index build's).
    pub(crate) fn push_segment(&mut self, segment: Segment) {
        self.segments.push(segment);
    }

    /// Turns the delta into a segment; merges all segments when about a third of the
    /// postings they hold are dead or there are more than [`MAX_SEGMENTS`].
    pub(crate) fn freeze(&mut self) {
        if !self.delta.is_empty() {
            let delta = std::mem::take(&mut self.delta);
            self.delta_keys.clear();
            self.delta_postings = 0;
            self.segments.push(Segment::build(delta.into_iter().map(|(k, v)| (k.into_vec(), v))));
        }
        // A changed record is dead in every segment at once, so the largest dead set
        // is about the number of changed records (a sum would count each many times).
        let n_dead: u64 = self.segments.iter().map(|s| s.dead.len()).max().unwrap_or(0);
        let n_terms: usize = self.segments.iter().map(Segment::len).sum();
        if self.segments.len() > MAX_SEGMENTS || (n_dead > 0 && n_dead as usize * 20 > n_terms / 3)
        {
            self.merge_all();
        }
    }

    /// Merges every segment into one, dropping dead postings: a k-way merge over the
    /// sorted keys, copying a posting as it is when only one segment has the key.
    fn merge_all(&mut self) {
        use std::cmp::Reverse;
        let segments = std::mem::take(&mut self.segments);
        let mut merged = Segment::default();
        let mut heap: std::collections::BinaryHeap<Reverse<(&[u8], usize, usize)>> = segments
            .iter()
            .enumerate()
            .filter(|(_, s)| s.len() > 0)
            .map(|(i, s)| Reverse((s.key(0), i, 0)))
            .collect();
        let mut from: Vec<(usize, usize)> = Vec::new();
        while let Some(Reverse((key, seg_idx, idx))) = heap.pop() {
            from.clear();
            from.push((seg_idx, idx));
            while let Some(Reverse((next, _, _))) = heap.peek()
                && *next == key
            {
                let Some(Reverse((_, s, i))) = heap.pop() else { break };
                from.push((s, i));
            }
            if let [(s, i)] = from[..] {
                let seg = &segments[s];
                let word = seg.postings[i];
                if word & MANY == 0 {
                    if !seg.dead.contains(word) {
                        merged.push_ords(key, &[word]);
                    }
                } else {
                    merged.push_bitmap(key, seg.posting(i));
                }
            } else {
                let mut posting = RoaringBitmap::new();
                for &(s, i) in &from {
                    segments[s].add_posting(i, &mut posting);
                }
                merged.push_bitmap(key, posting);
            }
            for &(s, i) in &from {
                if i + 1 < segments[s].len() {
                    heap.push(Reverse((segments[s].key(i + 1), s, i + 1)));
                }
            }
        }
        merged.shrink();
        self.segments = vec![merged];
    }

    /// The records with exactly this key.
    pub(crate) fn get(&self, key: &[u8]) -> RoaringBitmap {
        let mut out = RoaringBitmap::new();
        for seg in &self.segments {
            let idx = seg.lower_bound(key);
            if idx < seg.len() && seg.key(idx) == key {
                seg.add_posting(idx, &mut out);
            }
        }
        if let Some(posting) = self.delta.get(key) {
            out |= posting;
        }
        out
    }

    /// Calls `f` with each key in `[from, to)` (`to = None`: every key starting with
    /// `prefix`) and its records. Keys come per segment in order, not merged.
    pub(crate) fn scan(
        &self,
        prefix: &[u8],
        from: &[u8],
        to: Option<&[u8]>,
        mut f: impl FnMut(&[u8], RoaringBitmap),
    ) {
        let in_range = |key: &[u8]| key.starts_with(prefix) && to.is_none_or(|to| key < to);
        for seg in &self.segments {
            let mut idx = seg.lower_bound(from);
            while idx < seg.len() && in_range(seg.key(idx)) {
                f(seg.key(idx), seg.posting(idx));
                idx += 1;
            }
        }
        let range = self.delta.range::<[u8], _>((Bound::Included(from), Bound::Unbounded));
        for (key, posting) in range {
            if !in_range(key) {
                break;
            }
            f(key, posting.clone());
        }
    }

    /// The union of the records of every key in range.
    pub(crate) fn union(&self, prefix: &[u8], from: &[u8], to: Option<&[u8]>) -> RoaringBitmap {
        let mut out = RoaringBitmap::new();
        let in_range = |key: &[u8]| key.starts_with(prefix) && to.is_none_or(|to| key < to);
        for seg in &self.segments {
            let mut idx = seg.lower_bound(from);
            while idx < seg.len() && in_range(seg.key(idx)) {
                seg.add_posting(idx, &mut out);
                idx += 1;
            }
        }
        let range = self.delta.range::<[u8], _>((Bound::Included(from), Bound::Unbounded));
        for (key, posting) in range {
            if !in_range(key) {
                break;
            }
            out |= posting;
        }
        out
    }

    /// Approximate heap bytes held.
    pub(crate) fn bytes(&self) -> usize {
        let delta: usize =
            self.delta.iter().map(|(k, v)| k.len() + 64 + v.serialized_size()).sum::<usize>()
                + self.delta_keys.values().map(|v| v.len() * 16 + 48).sum::<usize>();
        self.segments.iter().map(Segment::bytes).sum::<usize>() + delta
    }

    pub(crate) fn n_terms(&self) -> usize {
        self.segments.iter().map(Segment::len).sum::<usize>() + self.delta.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each key in range with its records, merged across segments, empty ones dropped.
    fn keys(t: &Terms, prefix: &[u8]) -> Vec<(String, Vec<u32>)> {
        let mut out: std::collections::BTreeMap<String, RoaringBitmap> = Default::default();
        t.scan(prefix, prefix, None, |k, p| {
            *out.entry(String::from_utf8_lossy(k).into_owned()).or_default() |= p;
        });
        out.into_iter()
            .filter(|(_, p)| !p.is_empty())
            .map(|(k, p)| (k, p.iter().collect()))
            .collect()
    }

    #[test]
    fn segments_delta_dead_and_merge_agree() {
        let mut t = Terms::default();
        t.add(0, vec![b"Sa1".to_vec(), b"Sb1".to_vec()]);
        t.add(1, vec![b"Sa1".to_vec(), b"Sa2".to_vec()]);
        t.freeze();
        t.add(2, vec![b"Sa1".to_vec()]);
        assert_eq!(t.get(b"Sa1").iter().collect::<Vec<_>>(), [0, 1, 2]);
        // Record 1 changes: its old terms stop counting, the new ones count.
        t.remove(1);
        t.add(1, vec![b"Sa3".to_vec()]);
        assert_eq!(t.get(b"Sa1").iter().collect::<Vec<_>>(), [0, 2]);
        assert!(t.get(b"Sa2").is_empty());
        assert_eq!(t.union(b"Sa", b"Sa", None).iter().collect::<Vec<_>>(), [0, 1, 2]);
        let before = keys(&t, b"S");
        t.freeze();
        t.merge_all();
        assert_eq!(keys(&t, b"S"), before);
        assert_eq!(t.segments.len(), 1);
        assert_eq!(t.union(b"Sa", b"Sa2", Some(b"Sa4")).iter().collect::<Vec<_>>(), [1]);
    }
}
