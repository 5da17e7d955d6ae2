//! Which index keys a MARC record gives (the table in `index.rs`), from its
//! [`FlatRecord`] form.
//!
//! Keys come in two shapes, so the index build can treat them apart: the *small* keys
//! (`L`, `P`, `Q`, `I`, `M`, `N`: at most seven bytes, packed into a `u64`; few distinct
//! ones, each on many records) and the *value* keys (`S` tag code value: mostly one
//! record each).

use crate::expr::{LEADER_SLOTS, LEADER_STATUS_SLOT};
use crate::flat::FlatRecord;

/// A key of at most seven bytes, packed: the bytes from the most significant end, the
/// length in the low byte.
pub(crate) type SmallKey = u64;

pub(crate) fn pack(bytes: &[u8]) -> SmallKey {
    debug_assert!(bytes.len() <= 7);
    let mut word = [0u8; 8];
    word[..bytes.len()].copy_from_slice(bytes);
    word[7] = bytes.len() as u8;
    u64::from_be_bytes(word)
}

pub(crate) fn unpack(key: SmallKey) -> Vec<u8> {
    let word = key.to_be_bytes();
    word[..word[7] as usize].to_vec()
}

/// The head of a value key: `S`, the tag and the subfield code.
pub(crate) type ValueHead = [u8; 5];

/// Calls `value` with each value key of the record (repeats possible) and leaves its
/// small keys in `small`, sorted and distinct.
pub(crate) fn keys(
    flat: &FlatRecord,
    small: &mut Vec<SmallKey>,
    mut value: impl FnMut(&ValueHead, &[u8]),
) {
    small.clear();
    let leader = &flat.leader;
    for (slot, (_, start, len)) in LEADER_SLOTS.iter().enumerate() {
        let mut k = [0u8; 7];
        k[0] = b'L';
        k[1] = slot as u8;
        for (i, &b) in leader[*start..start + len].iter().enumerate() {
            k[2 + i] = if slot as u8 == LEADER_STATUS_SLOT {
                b
            } else if b == b' ' {
                b'#'
            } else {
                b.to_ascii_lowercase()
            };
        }
        small.push(pack(&k[..2 + len]));
    }
    // (tag, code, value) and (tag, which, indicator), for the `M`/`N` keys.
    let mut values: Vec<([u8; 4], &[u8])> = Vec::with_capacity(64);
    let mut indicators: Vec<[u8; 5]> = Vec::new();
    for field in &flat.fields {
        let [t0, t1, t2] = field.tag;
        small.push(pack(&[b'P', t0, t1, t2]));
        if !field.control {
            for (which, ind) in [(b'1', field.ind[0]), (b'2', field.ind[1])] {
                let ind = if ind == b' ' { b'#' } else { ind };
                small.push(pack(&[b'I', t0, t1, t2, which, ind]));
                indicators.push([t0, t1, t2, which, ind]);
            }
        }
        for (code, v) in flat.subfields(field) {
            value(&[b'S', t0, t1, t2, code], v);
            small.push(pack(&[b'Q', t0, t1, t2, code]));
            values.push(([t0, t1, t2, code], v));
        }
    }
    // Two distinct values of one subfield, or of one field whatever their codes: a
    // group (sorted by tag and code, so by tag too) holds a value other than its first.
    values.sort_unstable_by_key(|(field, _)| u32::from_be_bytes(*field));
    let mut code_first = 0;
    let mut tag_first = 0;
    for i in 1..values.len() {
        let (field, value) = values[i];
        if field[..3] != values[tag_first].0[..3] {
            tag_first = i;
            code_first = i;
            continue;
        }
        if field != values[code_first].0 {
            code_first = i;
        } else if value != values[code_first].1 {
            small.push(pack(&[b'M', field[0], field[1], field[2], field[3]]));
        }
        if value != values[tag_first].1 {
            small.push(pack(&[b'M', field[0], field[1], field[2]]));
        }
    }
    indicators.sort_unstable();
    indicators.dedup();
    for pair in indicators.windows(2) {
        if pair[0][..4] == pair[1][..4] {
            let [t0, t1, t2, which, _] = pair[0];
            small.push(pack(&[b'N', t0, t1, t2, which]));
        }
    }
    small.sort_unstable();
    small.dedup();
}

/// Every key of one record as bytes (for the incremental path).
pub(crate) fn all_keys(flat: &FlatRecord) -> Vec<Vec<u8>> {
    let mut small = Vec::new();
    let mut out = Vec::with_capacity(flat.fields.len() * 4 + 32);
    keys(flat, &mut small, |head, v| out.push([head.as_slice(), v].concat()));
    out.extend(small.iter().map(|k| unpack(*k)));
    out
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeSet, HashMap};

    use super::*;
    use crate::expr::{LEADER_SLOTS, LEADER_STATUS_SLOT};

    /// The keys of a record as the first version of the index computed them, straight
    /// from a `marc::Record` with maps and sets: the reference the fast path must match.
    fn reference_keys(marc: &marc::Record) -> BTreeSet<Vec<u8>> {
        let key = |kind: u8, head: &[u8], value: &[u8]| [&[kind][..], head, value].concat();
        let mut keys = BTreeSet::new();
        let leader = marc.leader().as_bytes();
        for (slot, (_, start, len)) in LEADER_SLOTS.iter().enumerate() {
            let raw = &leader[*start..start + len];
            let value: Vec<u8> = if slot as u8 == LEADER_STATUS_SLOT {
                raw.to_vec()
            } else {
                raw.iter().map(|b| if *b == b' ' { b'#' } else { b.to_ascii_lowercase() }).collect()
            };
            keys.insert(key(b'L', &[slot as u8], &value));
        }
        let mut values: HashMap<([u8; 3], u8), BTreeSet<&str>> = HashMap::new();
        let mut field_values: HashMap<[u8; 3], BTreeSet<&str>> = HashMap::new();
        let mut indicators: HashMap<([u8; 3], u8), BTreeSet<u8>> = HashMap::new();
        for field in marc.fields() {
            let tag = *field.tag().as_bytes();
            keys.insert(key(b'P', &tag, b""));
            let s_key = |code: u8, value: &[u8]| key(b'S', &[tag[0], tag[1], tag[2], code], value);
            match field.value() {
                Some(value) => {
                    keys.insert(s_key(b'0', value.as_bytes()));
                    keys.insert(key(b'Q', &[tag[0], tag[1], tag[2], b'0'], b""));
                    values.entry((tag, b'0')).or_default().insert(value);
                    field_values.entry(tag).or_default().insert(value);
                }
                None => {
                    for s in field.subfields() {
                        keys.insert(s_key(s.code as u8, s.value.as_bytes()));
                        keys.insert(key(b'Q', &[tag[0], tag[1], tag[2], s.code as u8], b""));
                        values.entry((tag, s.code as u8)).or_default().insert(s.value);
                        field_values.entry(tag).or_default().insert(s.value);
                    }
                    for (which, ind) in [(b'1', field.ind1()), (b'2', field.ind2())] {
                        let ind = if ind == ' ' { b'#' } else { ind as u8 };
                        keys.insert(key(b'I', &[tag[0], tag[1], tag[2], which], &[ind]));
                        indicators.entry((tag, which)).or_default().insert(ind);
                    }
                }
            }
        }
        for ((tag, code), set) in &values {
            if set.len() > 1 {
                keys.insert(key(b'M', &[tag[0], tag[1], tag[2], *code], b""));
            }
        }
        for (tag, set) in &field_values {
            if set.len() > 1 {
                keys.insert(key(b'M', tag, b""));
            }
        }
        for ((tag, which), set) in &indicators {
            if set.len() > 1 {
                keys.insert(key(b'N', &[tag[0], tag[1], tag[2], *which], b""));
            }
        }
        keys
    }

    #[test]
    fn fast_keys_match_the_reference_on_real_records() {
        let mut n_records = 0;
        let mut flat = FlatRecord::default();
        for name in ["100.mrc", "CornellFOLIOExemplars.mrc", "61PRINT160129.mrc"] {
            let file = std::fs::File::open(format!(
                "{}/../../../shared/data/marc/{name}",
                env!("CARGO_MANIFEST_DIR")
            ))
            .unwrap();
            for (record, _) in marc::LenientReader::new(file).filter_map(Result::ok) {
                let Ok(bytes) = marc::encode(&record) else { continue };
                let Ok(text) = String::from_utf8(bytes.clone()) else { continue };
                // The leader as stored (`marc::encode` computes 00-04 and 12-16).
                let Ok(record) = marc::decode(&bytes) else { continue };
                let expected = reference_keys(&record);
                let read_iso = flat.read_iso(&text);
                if !read_iso {
                    flat.read_record(&record);
                }
                let keys: BTreeSet<Vec<u8>> = all_keys(&flat).into_iter().collect();
                let show = |set: BTreeSet<&Vec<u8>>| -> Vec<String> {
                    set.into_iter().map(|k| String::from_utf8_lossy(k).into_owned()).collect()
                };
                let extra = show(keys.difference(&expected).collect());
                let missing = show(expected.difference(&keys).collect());
                assert!(
                    extra.is_empty() && missing.is_empty(),
                    "{name}, record {n_records} (read_iso {read_iso}): extra {extra:?}, missing {missing:?}"
                );
                n_records += 1;
            }
        }
        assert!(n_records >= 400, "{n_records} records");
    }

    #[test]
    fn small_keys_pack_and_sort_as_bytes() {
        let keys: Vec<&[u8]> = vec![b"I245", b"L\x00abcde", b"M245", b"M245a", b"P245", b"Q245a"];
        let mut packed: Vec<SmallKey> = keys.iter().map(|k| pack(k)).collect();
        packed.sort_unstable();
        let back: Vec<Vec<u8>> = packed.into_iter().map(unpack).collect();
        assert_eq!(back, keys);
    }
}
