//! Building the term segments of the MARC index from many records at once (the index
//! build on open), without a map insert per posting.
//!
//! Small keys (`keys.rs`) are interned to dense ids once, and each id collects the
//! ordinals of a chunk of records in a vector, sorted and turned into a roaring bitmap
//! per chunk. Value keys are appended to an arena with their ordinal, sorted once per
//! chunk (tag and code, then the first eight value bytes as one integer, then the rest)
//! and written out as one sorted segment per chunk. Does not own the per-record state
//! (instance ids, state bitmaps), which is `index.rs`'s.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use roaring::RoaringBitmap;

use crate::keys::{self, SmallKey, ValueHead};
use crate::terms::{Segment, Terms};

/// A chunk's value postings are sorted into a segment beyond this many (about 250 MB
/// of buffers, two or three chunks alive at once; a million LC records make about
/// fifteen segments).
const CHUNK_POSTINGS: usize = 6_000_000;

/// One value posting: where its value is in the arena, and the sort prefix.
#[derive(Clone, Copy)]
struct Entry {
    /// The first eight value bytes, big-endian, zero-padded (values hold no NUL).
    head: u64,
    /// Tag and code, big-endian.
    field: u32,
    ord: u32,
    start: u32,
    len: u32,
}

pub(crate) struct Builder {
    small_ids: HashMap<SmallKey, u32, BuildHasherDefault<MixHasher>>,
    small_keys: Vec<SmallKey>,
    // Per small id: ordinals of the current chunk, and all chunks before.
    small_chunk: Vec<Vec<u32>>,
    small_done: Vec<RoaringBitmap>,
    arena: Vec<u8>,
    entries: Vec<Entry>,
    small_scratch: Vec<SmallKey>,
    // Full chunks go to a second thread, which sorts them into segments while this
    // one reads on: the two halves cost about the same.
    sorter: Option<(std::sync::mpsc::SyncSender<Chunk>, std::thread::JoinHandle<Vec<Segment>>)>,
}

struct Chunk {
    arena: Vec<u8>,
    entries: Vec<Entry>,
}

impl Default for Builder {
    fn default() -> Builder {
        let (send, receive) = std::sync::mpsc::sync_channel::<Chunk>(1);
        let sorter = std::thread::Builder::new()
            .name("marc-index-sort".into())
            .spawn(move || receive.into_iter().map(sort_chunk).collect())
            .expect("spawning a thread");
        Builder {
            small_ids: HashMap::default(),
            small_keys: Vec::new(),
            small_chunk: Vec::new(),
            small_done: Vec::new(),
            arena: Vec::new(),
            entries: Vec::new(),
            small_scratch: Vec::new(),
            sorter: Some((send, sorter)),
        }
    }
}

impl Builder {
    /// Adds one record's keys.
    pub(crate) fn add(&mut self, ord: u32, flat: &crate::flat::FlatRecord) {
        let mut small = std::mem::take(&mut self.small_scratch);
        let (arena, entries) = (&mut self.arena, &mut self.entries);
        keys::keys(flat, &mut small, |head: &ValueHead, value: &[u8]| {
            let mut first = [0u8; 8];
            let n = value.len().min(8);
            first[..n].copy_from_slice(&value[..n]);
            entries.push(Entry {
                head: u64::from_be_bytes(first),
                field: u32::from_be_bytes([head[1], head[2], head[3], head[4]]),
                ord,
                start: arena.len() as u32,
                len: value.len() as u32,
            });
            arena.extend_from_slice(value);
        });
        for key in &small {
            let next = self.small_keys.len() as u32;
            let id = *self.small_ids.entry(*key).or_insert(next) as usize;
            if id == self.small_keys.len() {
                self.small_keys.push(*key);
                self.small_chunk.push(Vec::new());
                self.small_done.push(RoaringBitmap::new());
            }
            self.small_chunk[id].push(ord);
        }
        self.small_scratch = small;
        if self.entries.len() >= CHUNK_POSTINGS || self.arena.len() >= u32::MAX as usize / 2 {
            self.flush();
        }
    }

    /// Sorts the chunk's postings into a segment and its small keys into bitmaps.
    fn flush(&mut self) {
        for (ords, done) in self.small_chunk.iter_mut().zip(&mut self.small_done) {
            if ords.is_empty() {
                continue;
            }
            if !ords.is_sorted() {
                ords.sort_unstable();
            }
            // `extend`, not `from_sorted_iter`: the latter rescans a dense container
            // for its maximum on every value.
            done.extend(ords.drain(..));
        }
        if self.entries.is_empty() {
            return;
        }
        let chunk = Chunk {
            arena: std::mem::take(&mut self.arena),
            entries: std::mem::take(&mut self.entries),
        };
        if let Some((send, _)) = &self.sorter
            && let Err(unsent) = send.send(chunk)
        {
            // The sorter thread is gone (it panicked); `finish` reports it.
            drop(unsent);
        }
    }

    /// The terms of every record added.
    pub(crate) fn finish(mut self) -> Terms {
        self.flush();
        let segments = match self.sorter.take() {
            Some((send, sorter)) => {
                drop(send);
                sorter.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            }
            None => Vec::new(),
        };
        let mut small: Vec<(Vec<u8>, RoaringBitmap)> = self
            .small_keys
            .iter()
            .zip(std::mem::take(&mut self.small_done))
            .map(|(key, posting)| (keys::unpack(*key), posting))
            .collect();
        small.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        let mut segment = Segment::default();
        for (key, posting) in small {
            segment.push_bitmap(&key, posting);
        }
        segment.shrink();
        let mut terms = Terms::default();
        terms.push_segment(segment);
        for segment in segments {
            terms.push_segment(segment);
        }
        terms
    }
}

/// A fast hasher for the packed small keys (std's SipHash costs more than the rest of
/// a lookup); a multiply-xorshift of the one `u64` written.
#[derive(Default)]
struct MixHasher(u64);

impl Hasher for MixHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_u64(&mut self, n: u64) {
        let x = (self.0 ^ n).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        self.0 = x ^ (x >> 29);
    }
}

/// Sorts a chunk's value postings into a segment.
fn sort_chunk(chunk: Chunk) -> Segment {
    let Chunk { arena, mut entries } = chunk;
    let value = |e: &Entry| &arena[e.start as usize..(e.start + e.len) as usize];
    entries.sort_unstable_by(|a, b| {
        a.field
            .cmp(&b.field)
            .then(a.head.cmp(&b.head))
            .then_with(|| {
                if a.len <= 8 || b.len <= 8 {
                    a.len.cmp(&b.len)
                } else {
                    value(a)[8..].cmp(&value(b)[8..])
                }
            })
            .then(a.ord.cmp(&b.ord))
    });
    let mut segment = Segment::default();
    let mut key = Vec::new();
    let mut ords: Vec<u32> = Vec::new();
    let mut run_start = 0;
    let same = |a: &Entry, b: &Entry| {
        a.field == b.field && a.head == b.head && a.len == b.len && value(a) == value(b)
    };
    for i in 1..=entries.len() {
        if i < entries.len() && same(&entries[run_start], &entries[i]) {
            continue;
        }
        let first = &entries[run_start];
        key.clear();
        key.push(b'S');
        key.extend_from_slice(&first.field.to_be_bytes());
        key.extend_from_slice(value(first));
        ords.clear();
        ords.extend(entries[run_start..i].iter().map(|e| e.ord));
        ords.dedup();
        segment.push_ords(&key, &ords);
        run_start = i;
    }
    segment.shrink();
    segment
}
