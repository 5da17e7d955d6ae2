//! Index generations on disk: `<root>/g000001/`, `<root>/g000002/`, ... and the
//! `CURRENT` file naming the one in service.
//!
//! Owns the pointer file's format and its atomic replacement (write a temporary file,
//! fsync it, rename it over `CURRENT`, fsync the directory), so a crash at any point
//! leaves either the old or the new generation current, never neither, and the shape
//! of a full build's segments ([`build_writer`], [`compact`]). Does not own what a
//! generation holds.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use tantivy::directory::{Advice, MmapDirectory};
use tantivy::indexer::NoMergePolicy;
use tantivy::{Index, IndexWriter};

use crate::error::{Result, io_error};

const CURRENT: &str = "CURRENT";

/// Bumped whenever the schema, the analysers or the document shape change, so that an
/// index written by an older Quire is rebuilt rather than misread.
/// 2: term dictionaries as sstables instead of FSTs (tantivy's `quickwit` feature).
/// 3: field presence as bits of `_present<n>` columns instead of `_present` terms.
/// 4: no `_full` stored field (`expandAll` reads the store).
/// 5: gram maps over whole-value terms (a segment plugin) instead of `#g` trigram fields.
/// 6: sort keys as columns only; identifier fields answer suffixes from gram maps.
/// 7: index titles, series and alternative titles answer suffixes from gram maps.
/// 8: fields that repeat others' values keep a bit instead of the terms (`Echo`).
/// 9: the public notes echo the notes.
/// 10: English stems only in records whose languages include English (mod-search's rule).
/// 11: gram files written front to back, each field's map built in bounded passes.
pub(crate) const FORMAT_VERSION: u32 = 11;

/// The generation `CURRENT` names, if the file exists and has this format version.
pub(crate) fn read_current(root: &Path) -> Option<String> {
    let text = fs::read_to_string(root.join(CURRENT)).ok()?;
    let mut lines = text.lines();
    let format: u32 = lines.next()?.strip_prefix("format ")?.parse().ok()?;
    let name = lines.next()?.strip_prefix("generation ")?.to_string();
    (format == FORMAT_VERSION && is_generation_name(&name)).then_some(name)
}

/// Opens a built generation to serve from. Searches read its files through memory maps,
/// term dictionary blocks and postings scattered over them, so the maps are advised
/// random access: otherwise each page fault on a page that has left the page cache
/// reads `read_ahead_kb` around it (8 MiB on some virtual disks) where a few KiB are
/// wanted.
pub(crate) fn open_for_serving(dir: &Path) -> Result<Index> {
    let directory = MmapDirectory::open_with_madvice(dir, Advice::Random)
        .map_err(tantivy::TantivyError::from)?;
    Ok(Index::open(directory)?)
}

/// Makes `name` the current generation, atomically.
pub(crate) fn write_current(root: &Path, name: &str) -> Result<()> {
    let tmp = root.join("CURRENT.tmp");
    let body = format!("format {FORMAT_VERSION}\ngeneration {name}\n");
    let mut file = fs::File::create(&tmp).map_err(|e| io_error(&tmp, e))?;
    file.write_all(body.as_bytes()).map_err(|e| io_error(&tmp, e))?;
    file.sync_all().map_err(|e| io_error(&tmp, e))?;
    let target = root.join(CURRENT);
    fs::rename(&tmp, &target).map_err(|e| io_error(&target, e))?;
    if let Ok(dir) = fs::File::open(root) {
        let _ignored = dir.sync_all();
    }
    Ok(())
}

/// The writer of a full build: `threads` indexing threads sharing `memory`, each
/// flushing a segment whenever its share fills. It merges nothing while it writes:
/// the build ends with one merge of everything ([`compact`]) instead of rewriting the
/// early segments level after level.
pub(crate) fn build_writer(index: &Index, threads: usize, memory: usize) -> Result<IndexWriter> {
    let writer = index.writer_with_num_threads(threads.max(1), memory)?;
    writer.set_merge_policy(Box::new(NoMergePolicy));
    Ok(writer)
}

/// Merges a committed build into one segment and waits for it. A search looks each of
/// its terms up in every segment's dictionary, and with sstable dictionaries that
/// lookup decodes a block; on 200,000 instances in six segments it was 40% of a
/// search's CPU, and one segment served 1.6 times the searches per second
/// (in the history of docs/benchmarks.md). The merge keeps the last commit's payload.
pub(crate) fn compact(mut writer: IndexWriter) -> Result<()> {
    let segments = writer.index().searchable_segment_ids()?;
    if segments.len() > 1 {
        writer.merge(&segments).wait()?;
    }
    writer.wait_merging_threads()?;
    Ok(())
}

/// The directory, inside a generation being merged, that holds the hard links to the
/// serving generation's files.
pub(crate) const SNAPSHOT: &str = "snapshot";

/// Hard-links every file of the index in `from` (its lock files aside) into a new
/// directory `to`: a copy of the index as it is now that costs no disk and that later
/// commits and merges in `from` cannot change, since tantivy never rewrites a file in
/// place.
pub(crate) fn link_files(from: &Path, to: &Path) -> Result<()> {
    fs::create_dir_all(to).map_err(|e| io_error(to, e))?;
    for entry in fs::read_dir(from).map_err(|e| io_error(from, e))? {
        let entry = entry.map_err(|e| io_error(from, e))?;
        let name = entry.file_name();
        let is_file = entry.file_type().map_err(|e| io_error(&entry.path(), e))?.is_file();
        if !is_file || name.to_string_lossy().starts_with(".tantivy-") {
            continue;
        }
        let target = to.join(&name);
        fs::hard_link(entry.path(), &target).map_err(|e| io_error(&target, e))?;
    }
    Ok(())
}

fn is_generation_name(name: &str) -> bool {
    name.len() == 7 && name.starts_with('g') && name[1..].bytes().all(|b| b.is_ascii_digit())
}

/// The generation directories under `root`, oldest first.
pub(crate) fn list(root: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(root)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| is_generation_name(n))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// A fresh generation directory, numbered after every existing one.
pub(crate) fn create_next(root: &Path) -> Result<(String, PathBuf)> {
    let next = list(root).last().and_then(|n| n[1..].parse::<u32>().ok()).map_or(1, |n| n + 1);
    let name = format!("g{next:06}");
    let dir = root.join(&name);
    fs::create_dir_all(&dir).map_err(|e| io_error(&dir, e))?;
    Ok((name, dir))
}

/// Removes every generation but `keep`; failures are logged, not returned (a leftover
/// directory is removed at the next open).
pub(crate) fn remove_others(root: &Path, keep: &str) {
    for name in list(root) {
        if name != keep {
            let dir = root.join(&name);
            if let Err(e) = fs::remove_dir_all(&dir) {
                tracing::warn!(dir = %dir.display(), error = %e, "could not remove old index generation");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{
        build_writer, compact, create_next, list, read_current, remove_others, write_current,
    };

    /// A build flushes several segments and merges none of them while it writes; the
    /// compaction leaves one, with every document and the commit's payload.
    #[test]
    fn a_build_ends_in_one_segment() {
        use tantivy::schema::{STRING, Schema};
        use tantivy::{Index, TantivyDocument};

        let mut schema = Schema::builder();
        let word = schema.add_text_field("word", STRING);
        let index = Index::create_in_ram(schema.build());
        // The smallest budget tantivy allows, so the writer flushes often.
        let mut writer = build_writer(&index, 1, 15_000_000).unwrap();
        for n in 0..200_000u32 {
            let mut doc = TantivyDocument::default();
            doc.add_text(word, format!("w{n}"));
            writer.add_document(doc).unwrap();
        }
        let mut prepared = writer.prepare_commit().unwrap();
        prepared.set_payload("seq 42");
        prepared.commit().unwrap();
        assert!(index.searchable_segment_ids().unwrap().len() > 1);

        compact(writer).unwrap();
        assert_eq!(index.searchable_segment_ids().unwrap().len(), 1);
        let metas = index.load_metas().unwrap();
        assert_eq!(metas.payload.as_deref(), Some("seq 42"));
        let reader = index.reader().unwrap();
        assert_eq!(reader.searcher().num_docs(), 200_000);
    }

    #[test]
    fn pointer_and_directories() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        assert_eq!(read_current(root), None);
        let (first, _) = create_next(root).unwrap();
        let (second, _) = create_next(root).unwrap();
        assert_eq!((first.as_str(), second.as_str()), ("g000001", "g000002"));
        write_current(root, &second).unwrap();
        assert_eq!(read_current(root).as_deref(), Some("g000002"));
        remove_others(root, &second);
        assert_eq!(list(root), ["g000002"]);
        std::fs::write(root.join("CURRENT"), "format 0\ngeneration g000002\n").unwrap();
        assert_eq!(read_current(root), None);
    }
}
