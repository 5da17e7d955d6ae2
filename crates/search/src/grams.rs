//! Trigram indexes over term dictionaries: what answers infix wildcards (`*foo*`).
//!
//! Owns a tantivy segment plugin that, for each whole-value field it is given, maps
//! every trigram to the ordinals of the segment's terms containing it, and
//! [`InfixQuery`], which reads that map to find the terms an infix pattern can match,
//! checks each against the pattern, and unions their postings. Does not own the
//! pattern syntax (`pattern`) or which fields have a gram index (the registries).
//!
//! Why per term and not per document: a catalogue repeats its values (a subject
//! heading or an author's name appears on thousands of records, a title on several),
//! so trigrams of each *distinct* value are a fraction of trigrams of every value of
//! every document; on the generated million-instance catalogue, 88 against 243 per
//! instance. And they are not fed through tantivy's postings writer at all: the plugin
//! reads the dictionary the segment has just written (at flush and after a merge) and
//! groups its terms' trigrams by key, which is far cheaper than a posting
//! with positions per trigram per document. The segment's own dictionary is the
//! source, so the map never holds a term the segment lacks, and a merge drops the
//! terms whose documents were all deleted, as tantivy's does.
//!
//! A term's trigrams are padded at the end so that every character starts one (`abc`:
//! `abc`, `bc_`, `c__`): a literal of three or more characters narrows the candidates
//! to the terms holding each of its trigrams, a shorter one to those holding a trigram
//! that starts with it. Candidates are then matched against the whole pattern, so the
//! answer is exact.
//!
//! File layout (`<segment>.grams`, little-endian), written front to back so that a
//! field's map is never held whole (see [`PASS_PAIRS`]): `QGR2`; per field, the
//! postings (for each key the ascending term ordinals as LEB128 deltas), the sorted
//! trigram keys (`u64`, three 21-bit code points) and the start of each key's list in
//! the postings (`u64`, one more than there are keys); then a table with each field's
//! id, key count and the byte offsets of its keys, starts and postings; the field
//! count (`u32`); `QGR2` again.

use std::any::Any;
use std::io::Write;
use std::sync::Arc;

use tantivy::directory::{CompositeFile, FileSlice};
use tantivy::index::SegmentComponent;
use tantivy::plugin::{PluginMergeContext, PluginWriter, PluginWriterContext, SegmentPlugin};
use tantivy::query::{
    BitSetDocSet, ConstScorer, EnableScoring, Explanation, Query, Scorer, Weight,
};
use tantivy::schema::Field;
use tantivy::termdict::TermDictionary;
use tantivy::{BitSet, DocId, Score, Segment, SegmentReader};

use crate::pattern::{Pattern, explain_unscored, insert_postings};

const EXTENSION: &str = "grams";
/// What looking one term up by ordinal costs, in terms streamed past.
const LOOKUP_COST: u64 = 1_000;
const MAGIC: &[u8; 4] = b"QGR2";
/// The padding after a term's last characters.
const END: u32 = 0;

fn component() -> SegmentComponent {
    SegmentComponent::Custom(EXTENSION.to_string())
}

/// A trigram as one sortable number: the first character in the high bits, so the
/// trigrams starting with a given character or pair form one key range.
fn key(a: u32, b: u32, c: u32) -> u64 {
    (u64::from(a) << 42) | (u64::from(b) << 21) | u64::from(c)
}

/// The keys of a term's trigrams, padded, in order (with repeats).
fn term_keys(term: &str, out: &mut Vec<u64>) {
    out.clear();
    let mut window = [END; 3];
    let mut filled = 0;
    for c in term.chars().map(u32::from).chain([END, END]) {
        window = [window[1], window[2], c];
        filled += 1;
        if filled >= 3 {
            out.push(key(window[0], window[1], window[2]));
        }
    }
}

/// The segment plugin: registered on every index whose registry has gram fields.
pub(crate) struct GramPlugin {
    fields: Vec<Field>,
}

/// The plugin indexing the trigrams of `fields`' terms (whole-value fields).
pub(crate) fn plugin(fields: Vec<Field>) -> Arc<dyn SegmentPlugin> {
    Arc::new(GramPlugin { fields })
}

impl SegmentPlugin for GramPlugin {
    fn extensions(&self) -> &[&str] {
        &[EXTENSION]
    }

    fn create_writer(
        &self,
        _ctx: &PluginWriterContext<'_>,
    ) -> tantivy::Result<Box<dyn PluginWriter>> {
        Ok(Box::new(GramWriter { fields: self.fields.clone() }))
    }

    fn merge(&self, ctx: PluginMergeContext<'_>) -> tantivy::Result<()> {
        // The postings plugin has written the merged dictionary already.
        write_segment(ctx.target_segment, &self.fields)
    }
}

/// Collects nothing per document: everything it needs is in the dictionary the
/// segment has written by the time it serialises.
struct GramWriter {
    fields: Vec<Field>,
}

impl PluginWriter for GramWriter {
    fn serialize(
        self: Box<Self>,
        segment: &Segment,
        _doc_id_map: Option<&tantivy::indexer::doc_id_mapping::DocIdMapping>,
    ) -> tantivy::Result<()> {
        write_segment(segment, &self.fields)
    }

    fn mem_usage(&self) -> usize {
        0
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

/// Writes the gram file of a segment whose term dictionaries are written.
fn write_segment(segment: &Segment, fields: &[Field]) -> tantivy::Result<()> {
    let terms = CompositeFile::open(&segment.open_read(SegmentComponent::Terms)?)?;
    let mut dictionaries = Vec::with_capacity(fields.len());
    for &field in fields {
        let dictionary = match terms.open_read(field) {
            Some(slice) => TermDictionary::open(slice)?,
            None => TermDictionary::empty(),
        };
        dictionaries.push((field, dictionary));
    }
    let mut out = segment.open_write(component())?;
    write_file(&dictionaries, PASS_PAIRS, &mut out)?;
    tantivy::directory::TerminatingWrite::terminate(out)?;
    Ok(())
}

/// The most (trigram, term) pairs a field's map holds at once: 16 MiB of ordinals.
/// A larger field is built in several passes over its dictionary, one range of keys
/// each, so that the map of a merged million-document segment costs passes, not
/// gigabytes (a map built whole took 116 MiB for a 200,000-instance merge).
const PASS_PAIRS: usize = 4 << 20;

/// Writes the gram file front to back, each field's postings as they are built.
fn write_file(
    dictionaries: &[(Field, TermDictionary)],
    pass_pairs: usize,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let mut out = Counting { out, written: 0 };
    out.write_all(MAGIC)?;
    let mut table = Vec::with_capacity(dictionaries.len());
    for (field, dictionary) in dictionaries {
        table.push((*field, write_field(dictionary, pass_pairs, &mut out)?));
    }
    for (field, section) in &table {
        out.write_all(&field.field_id().to_le_bytes())?;
        out.write_all(&section.keys.to_le_bytes())?;
        for at in [section.keys_at, section.starts_at, section.postings_at] {
            out.write_all(&at.to_le_bytes())?;
        }
    }
    out.write_all(&(table.len() as u32).to_le_bytes())?;
    out.write_all(MAGIC)
}

/// A writer that knows its offset: sections are placed where the writing has got to.
struct Counting<'a> {
    out: &'a mut dyn Write,
    written: u64,
}

impl Write for Counting<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.out.write(buf)?;
        self.written += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

/// Where a field's sections are in the file.
struct SectionAt {
    keys: u32,
    keys_at: u64,
    starts_at: u64,
    postings_at: u64,
}

/// Calls `each(ord, keys)` with every term's trigram keys, in ordinal order.
fn for_each_term(
    dictionary: &TermDictionary,
    mut each: impl FnMut(u32, &[u64]),
) -> std::io::Result<()> {
    let mut keys = Vec::new();
    let mut stream = dictionary.stream()?;
    let mut ord: u32 = 0;
    while stream.advance() {
        if let Ok(term) = std::str::from_utf8(stream.key()) {
            term_keys(term, &mut keys);
            each(ord, &keys);
        }
        ord += 1;
    }
    Ok(())
}

/// Writes one field's postings, keys and list starts. A first pass counts each key's
/// terms; then each pass over the dictionary takes the keys whose lists fit in
/// `pass_pairs` together and places their ordinals straight into their lists.
fn write_field(
    dictionary: &TermDictionary,
    pass_pairs: usize,
    out: &mut Counting<'_>,
) -> std::io::Result<SectionAt> {
    // Key -> (terms holding it, the last term counted plus one: a key repeats in a term).
    let mut counted: rustc_hash::FxHashMap<u64, (u32, u32)> = Default::default();
    for_each_term(dictionary, |ord, keys| {
        for &k in keys {
            let (terms, last) = counted.entry(k).or_default();
            if *last != ord + 1 {
                *terms += 1;
                *last = ord + 1;
            }
        }
    })?;
    let mut counts: Vec<(u64, u32)> = counted.into_iter().map(|(k, (n, _))| (k, n)).collect();
    counts.sort_unstable_by_key(|&(k, _)| k);

    let postings_at = out.written;
    let mut starts = Vec::with_capacity(counts.len() + 1);
    let mut ords: Vec<u32> = Vec::new();
    let mut varints = Vec::new();
    let mut rest = &counts[..];
    while !rest.is_empty() {
        // At least one key a pass; one key's list is at most the dictionary's size.
        let mut take = 1;
        let mut pairs = rest[0].1 as usize;
        while take < rest.len() && pairs + rest[take].1 as usize <= pass_pairs {
            pairs += rest[take].1 as usize;
            take += 1;
        }
        let (pass, after) = rest.split_at(take);
        rest = after;
        // Each key's list in `ords`: where it begins and its next free place.
        let mut lists: rustc_hash::FxHashMap<u64, (usize, usize)> = Default::default();
        let mut at = 0;
        for &(k, n) in pass {
            lists.insert(k, (at, at));
            at += n as usize;
        }
        ords.clear();
        ords.resize(pairs, 0);
        let (low, high) = (pass[0].0, pass[pass.len() - 1].0);
        for_each_term(dictionary, |ord, keys| {
            for k in keys.iter().filter(|&&k| (low..=high).contains(&k)) {
                let (begin, next) = lists.get_mut(k).expect("the counting pass saw every key");
                // A key repeated within one term is listed once.
                if *next == *begin || ords[*next - 1] != ord {
                    ords[*next] = ord;
                    *next += 1;
                }
            }
        })?;
        let mut at = 0;
        for &(_, n) in pass {
            starts.push(out.written - postings_at);
            let mut previous = 0u32;
            varints.clear();
            for &ord in &ords[at..at + n as usize] {
                write_varint(&mut varints, ord - previous);
                previous = ord;
            }
            out.write_all(&varints)?;
            at += n as usize;
        }
    }
    starts.push(out.written - postings_at);

    let keys_at = out.written;
    for &(k, _) in &counts {
        out.write_all(&k.to_le_bytes())?;
    }
    let starts_at = out.written;
    for start in starts {
        out.write_all(&start.to_le_bytes())?;
    }
    Ok(SectionAt { keys: counts.len() as u32, keys_at, starts_at, postings_at })
}

fn write_varint(out: &mut Vec<u8>, mut value: u32) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

fn read_varint(bytes: &[u8], at: &mut usize) -> Option<u32> {
    let mut value = 0u32;
    let mut shift = 0;
    loop {
        let byte = *bytes.get(*at)?;
        *at += 1;
        value |= u32::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Some(value);
        }
        shift += 7;
        if shift > 28 {
            return None;
        }
    }
}

/// One field's gram map in a segment's file.
struct FieldGrams<'a> {
    keys: &'a [u8],
    starts: &'a [u8],
    postings: &'a [u8],
}

fn u64_at(bytes: &[u8], i: usize) -> u64 {
    u64::from_le_bytes(bytes[i * 8..i * 8 + 8].try_into().expect("eight bytes"))
}

impl FieldGrams<'_> {
    /// Finds `field`'s section in a gram file; `None` if the file is malformed or does
    /// not index the field.
    fn find(file: &[u8], field: Field) -> Option<FieldGrams<'_>> {
        let end = file.len().checked_sub(8)?;
        if file.get(..4)? != MAGIC || file.get(end + 4..)? != MAGIC {
            return None;
        }
        let count = u32::from_le_bytes(file.get(end..end + 4)?.try_into().ok()?) as usize;
        let table = file.get(end.checked_sub(count.checked_mul(32)?)?..end)?;
        for header in table.chunks_exact(32) {
            let id = u32::from_le_bytes(header[0..4].try_into().ok()?);
            if id != field.field_id() {
                continue;
            }
            let keys = u32::from_le_bytes(header[4..8].try_into().ok()?) as usize;
            let offset = |j: usize| u64_at(&header[8..], j) as usize;
            let (keys_at, starts_at, postings_at) = (offset(0), offset(1), offset(2));
            let starts = file.get(starts_at..starts_at.checked_add(8 * (keys + 1))?)?;
            let end = u64_at(starts, keys) as usize;
            return Some(FieldGrams {
                keys: file.get(keys_at..keys_at.checked_add(8 * keys)?)?,
                starts,
                postings: file.get(postings_at..postings_at.checked_add(end)?)?,
            });
        }
        None
    }

    fn len(&self) -> usize {
        self.keys.len() / 8
    }

    /// The index of the first key not less than `key`.
    fn lower_bound(&self, key: u64) -> usize {
        let (mut lo, mut hi) = (0, self.len());
        while lo < hi {
            let mid = (lo + hi) / 2;
            if u64_at(self.keys, mid) < key {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }

    /// The ordinals of the terms holding the trigram at key index `i`, ascending.
    fn list(&self, i: usize, out: &mut Vec<u32>) {
        let (start, end) = (u64_at(self.starts, i) as usize, u64_at(self.starts, i + 1) as usize);
        let bytes = self.postings.get(start..end).unwrap_or_default();
        let mut at = 0;
        let mut ord = 0u32;
        while let Some(delta) = read_varint(bytes, &mut at) {
            ord = ord.saturating_add(delta);
            out.push(ord);
        }
    }

    /// The terms holding every trigram of `literal` (three characters or more) or a
    /// trigram starting with it (one or two); `None` when that would be most terms
    /// anyway (a common letter), which is cheaper to check term by term.
    fn candidates(&self, literal: &[u32]) -> Option<Vec<u32>> {
        if literal.len() >= 3 {
            let mut lists: Vec<Vec<u32>> = Vec::new();
            for w in literal.windows(3) {
                let k = key(w[0], w[1], w[2]);
                let i = self.lower_bound(k);
                if i == self.len() || u64_at(self.keys, i) != k {
                    return Some(Vec::new());
                }
                let mut list = Vec::new();
                self.list(i, &mut list);
                lists.push(list);
            }
            lists.sort_by_key(Vec::len);
            let mut lists = lists.into_iter();
            let mut found = lists.next().unwrap_or_default();
            for list in lists {
                found = intersect(&found, &list);
                if found.is_empty() {
                    break;
                }
            }
            Some(found)
        } else {
            let (lo, hi) = match *literal {
                [a] => (key(a, 0, 0), key(a + 1, 0, 0)),
                [a, b] => (key(a, b, 0), key(a, b + 1, 0)),
                _ => return None,
            };
            let (first, last) = (self.lower_bound(lo), self.lower_bound(hi));
            let bytes = u64_at(self.starts, last) - u64_at(self.starts, first);
            if bytes > u64_at(self.starts, self.len()) / 4 {
                return None;
            }
            let mut found = Vec::new();
            for i in first..last {
                self.list(i, &mut found);
            }
            found.sort_unstable();
            found.dedup();
            Some(found)
        }
    }
}

fn intersect(a: &[u32], b: &[u32]) -> Vec<u32> {
    let mut out = Vec::with_capacity(a.len().min(b.len()));
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                out.push(a[i]);
                i += 1;
                j += 1;
            }
        }
    }
    out
}

/// Opens the gram file of each segment `searcher` serves. Holding the slices keeps
/// the files mapped: the writer's merges delete the files of the segments they
/// replace while searchers still serve them, and [`InfixQuery`] opens a segment's
/// file by name on each query (found in the directory's map cache while a slice of it
/// lives). A file gone would make each infix query scan whole dictionaries instead,
/// ten to thirty times slower (a worn 100,000-instance index, 2026-11-30).
pub(crate) fn hold_files(searcher: &tantivy::Searcher) -> Vec<FileSlice> {
    searcher.segment_readers().iter().filter_map(gram_file).collect()
}

/// A segment's gram file, if it has one (and it can still be opened).
pub(crate) fn gram_file(reader: &SegmentReader) -> Option<FileSlice> {
    reader.open_read(component()).ok()
}

/// Documents with a term of `field` that `pattern` matches, the terms found through
/// the segment's gram map. Unscored, like [`TermScanQuery`](crate::pattern::TermScanQuery).
/// A segment without a gram file (an index built without the plugin) is answered by
/// scanning its dictionary.
#[derive(Clone, Debug)]
pub(crate) struct InfixQuery {
    field: Field,
    pattern: Arc<Pattern>,
    /// [`LOOKUP_COST`]; tests set it to take either path.
    lookup_cost: u64,
}

impl InfixQuery {
    pub(crate) fn new(field: Field, pattern: Pattern) -> InfixQuery {
        InfixQuery { field, pattern: Arc::new(pattern), lookup_cost: LOOKUP_COST }
    }

    /// The ordinals of the terms that may match, ascending; `None` when the segment has
    /// no gram map to ask or the pattern has no literal to narrow by.
    fn candidates(&self, file: &FileSlice) -> std::io::Result<Option<Vec<u32>>> {
        let bytes = file.read_bytes()?;
        // Every field the plugin indexes has a section, empty or not; a field without
        // one is not indexed and its dictionary answers.
        let Some(grams) = FieldGrams::find(bytes.as_slice(), self.field) else {
            return Ok(None);
        };
        let mut found: Option<Vec<u32>> = None;
        let literals: Vec<&str> = self.pattern.literals().collect();
        let ends_pattern = !self.pattern.suffix().is_empty();
        for (i, literal) in literals.iter().enumerate() {
            let mut chars: Vec<u32> = literal.chars().map(u32::from).collect();
            // A literal that ends the pattern ends the term too: with the padding its
            // last trigrams are the term's own last ones (`*cho`: `cho`, `ho_`, `o__`),
            // which few terms share where `cho` alone is in many.
            if ends_pattern && i + 1 == literals.len() {
                chars.extend([END, END]);
            }
            let Some(these) = grams.candidates(&chars) else { continue };
            found = Some(match found {
                None => these,
                Some(before) => intersect(&before, &these),
            });
            if found.as_ref().is_some_and(Vec::is_empty) {
                break;
            }
        }
        Ok(found)
    }
}

impl Query for InfixQuery {
    fn weight(&self, _scoring: EnableScoring<'_>) -> tantivy::Result<Box<dyn Weight>> {
        Ok(Box::new(self.clone()))
    }
}

impl Weight for InfixQuery {
    fn scorer(&self, reader: &SegmentReader, boost: Score) -> tantivy::Result<Box<dyn Scorer>> {
        let mut docs = BitSet::with_max_value(reader.max_doc());
        let inverted_index = reader.inverted_index(self.field)?;
        let terms = inverted_index.terms();
        let candidates = match gram_file(reader) {
            Some(file) => self.candidates(&file)?,
            None => None,
        };
        let mut add =
            |info: &tantivy::postings::TermInfo| insert_postings(&inverted_index, info, &mut docs);
        let matches = |key: &[u8]| std::str::from_utf8(key).is_ok_and(|k| self.pattern.matches(k));
        match candidates {
            // Few candidates: look each up (two block decodes, tens of microseconds).
            // More: one pass over the dictionary (tens of nanoseconds a term) is cheaper.
            Some(candidates)
                if (candidates.len() as u64).saturating_mul(self.lookup_cost)
                    < terms.num_terms() as u64 =>
            {
                let mut key = Vec::new();
                for ord in candidates {
                    if terms.ord_to_term(u64::from(ord), &mut key)?
                        && matches(&key)
                        && let Some(info) = terms.get(&key)?
                    {
                        add(&info)?;
                    }
                }
            }
            candidates => {
                let mut wanted = candidates.map(|c| c.into_iter().peekable());
                let mut stream = terms.stream()?;
                while stream.advance() {
                    if let Some(wanted) = &mut wanted {
                        let ord = stream.term_ord();
                        while wanted.next_if(|&c| u64::from(c) < ord).is_some() {}
                        if wanted.next_if(|&c| u64::from(c) == ord).is_none() {
                            if wanted.peek().is_none() {
                                break;
                            }
                            continue;
                        }
                    }
                    if matches(stream.key()) {
                        add(stream.value())?;
                    }
                }
            }
        }
        Ok(Box::new(ConstScorer::new(BitSetDocSet::from(docs), boost)))
    }

    fn explain(&self, reader: &SegmentReader, doc: DocId) -> tantivy::Result<Explanation> {
        explain_unscored(self, "InfixQuery", reader, doc)
    }
}

#[cfg(test)]
mod tests {
    use tantivy::indexer::NoMergePolicy;
    use tantivy::schema::{STRING, Schema};
    use tantivy::{Index, TantivyDocument, Term};

    use super::{FieldGrams, InfixQuery, component, key, plugin, term_keys, write_file};
    use crate::pattern::Pattern;

    /// The documents matching, checked to be the same whether the candidates are
    /// looked up one by one or found in one pass over the dictionary.
    fn count(index: &Index, field: tantivy::schema::Field, pattern: &str) -> usize {
        let searcher = index.reader().unwrap().searcher();
        let mut counts = [0, u64::MAX].map(|lookup_cost| {
            let query =
                InfixQuery { lookup_cost, ..InfixQuery::new(field, Pattern::parse(pattern)) };
            searcher.search(&query, &tantivy::collector::Count).unwrap()
        });
        counts.sort_unstable();
        assert_eq!(counts[0], counts[1], "{pattern}: lookups and a pass agree");
        counts[0]
    }

    #[test]
    fn keys_are_padded_so_every_character_starts_one() {
        let mut keys = Vec::new();
        term_keys("ab", &mut keys);
        assert_eq!(keys, [key('a' as u32, 'b' as u32, 0), key('b' as u32, 0, 0)]);
        term_keys("", &mut keys);
        assert!(keys.is_empty());
    }

    /// Segments flushed and merged both carry a gram file; infix patterns find exactly
    /// the values that contain their literals, in order; a merge forgets the values
    /// only deleted documents had.
    #[test]
    fn infix_patterns_through_flushes_merges_and_deletes() {
        let mut builder = Schema::builder();
        let value = builder.add_text_field("value", STRING);
        let other = builder.add_text_field("other", STRING);
        let index = Index::builder()
            .schema(builder.build())
            .register_plugin(plugin(vec![value]))
            .create_in_ram()
            .unwrap();
        let mut writer = index.writer_with_num_threads(1, 15_000_000).unwrap();
        writer.set_merge_policy(Box::new(NoMergePolicy));
        let values = [
            "rivers mississippi",
            "mississippi delta",
            "the river",
            "delta blues",
            "riverside",
            "ab",
            "ba",
            "déjà vu",
        ];
        for (n, v) in values.iter().enumerate() {
            let mut doc = TantivyDocument::default();
            doc.add_text(value, v);
            doc.add_text(other, "river");
            writer.add_document(doc).unwrap();
            if n % 3 == 2 {
                writer.commit().unwrap();
            }
        }
        writer.commit().unwrap();
        assert_eq!(index.searchable_segment_ids().unwrap().len(), 3);

        let check = |index: &Index| {
            assert_eq!(count(index, value, "*river*"), 3);
            assert_eq!(count(index, value, "*ssi*"), 2);
            assert_eq!(count(index, value, "*delta*"), 2);
            assert_eq!(count(index, value, "*ver*ss*"), 1, "literals in order");
            assert_eq!(count(index, value, "*ss*ver*"), 0);
            assert_eq!(count(index, value, "*a*"), 4);
            assert_eq!(count(index, value, "*ab*"), 1);
            assert_eq!(count(index, value, "*b*"), 3);
            assert_eq!(count(index, value, "*jà v*"), 1);
            assert_eq!(count(index, value, "*r?ver*"), 3);
            assert_eq!(count(index, value, "*nowhere*"), 0);
            // A literal that ends the pattern ends the value.
            assert_eq!(count(index, value, "*delta"), 1);
            assert_eq!(count(index, value, "*ver"), 1);
            assert_eq!(count(index, value, "*a"), 2);
            assert_eq!(count(index, value, "*b"), 1);
            assert_eq!(count(index, value, "*i?pi"), 1);
            assert_eq!(count(index, value, "*ver*ppi"), 1);
            assert_eq!(count(index, value, "*à vu"), 1);
            assert_eq!(count(index, other, "*river*"), 8, "no gram map: the dictionary");
        };
        check(&index);
        let reader = index.reader().unwrap();
        for segment in reader.searcher().segment_readers() {
            assert!(segment.open_read(component()).is_ok());
        }

        writer.delete_term(Term::from_field_text(value, "riverside"));
        writer.commit().unwrap();
        writer.merge(&index.searchable_segment_ids().unwrap()).wait().unwrap();
        let searcher = index.reader().unwrap().searcher();
        assert_eq!(searcher.segment_readers().len(), 1);
        assert!(searcher.segment_readers()[0].open_read(component()).is_ok());
        assert_eq!(count(&index, value, "*river*"), 2);
        assert_eq!(count(&index, value, "*ssi*"), 2);
        assert_eq!(count(&index, value, "*side*"), 0);
        let file = searcher.segment_readers()[0].open_read(component()).unwrap();
        let candidates = |pattern| {
            InfixQuery::new(value, Pattern::parse(pattern)).candidates(&file).unwrap().unwrap()
        };
        assert_eq!(candidates("*delta*").len(), 2);
        assert_eq!(candidates("*delta").len(), 1, "only the value that ends with it");
        assert_eq!(
            searcher.segment_readers()[0].inverted_index(value).unwrap().terms().num_terms(),
            7
        );
    }

    /// A field built in passes of a few pairs writes the same file as one built in a
    /// single pass, and a trigram repeated within a term lists that term once.
    #[test]
    fn passes_write_the_file_one_pass_would() {
        let mut builder = Schema::builder();
        let value = builder.add_text_field("value", STRING);
        let index = Index::create_in_ram(builder.build());
        let mut writer = index.writer_with_num_threads(1, 15_000_000).unwrap();
        for v in ["aaaa", "banana", "bandana", "cab", "ab", "déjà vu", "zz"] {
            let mut doc = TantivyDocument::default();
            doc.add_text(value, v);
            writer.add_document(doc).unwrap();
        }
        writer.commit().unwrap();
        let searcher = index.reader().unwrap().searcher();
        let dictionary = searcher.segment_readers()[0].inverted_index(value).unwrap();
        let dictionaries = [(value, dictionary.terms().clone())];
        let file = |pass_pairs| {
            let mut bytes = Vec::new();
            write_file(&dictionaries, pass_pairs, &mut bytes).unwrap();
            bytes
        };
        let whole = file(usize::MAX);
        for pass_pairs in [1, 2, 5] {
            assert_eq!(file(pass_pairs), whole, "passes of {pass_pairs} pairs");
        }
        let grams = FieldGrams::find(&whole, value).unwrap();
        let ana = ['a', 'n', 'a'].map(u32::from);
        // Terms in order: aaaa, ab, banana, bandana, cab, déjà vu, zz.
        assert_eq!(
            grams.candidates(&ana),
            Some(vec![2, 3]),
            "banana once, though it has ana twice"
        );
        assert_eq!(grams.candidates(&['a', 'a', 'a'].map(u32::from)), Some(vec![0]));
        assert_eq!(grams.candidates(&['a', 'n'].map(u32::from)), Some(vec![2, 3]));
        assert!(FieldGrams::find(&whole[..whole.len() - 1], value).is_none(), "a cut file");
    }
}
