//! Index generations on disk: `<root>/g000001/`, `<root>/g000002/`, ... and the
//! `CURRENT` file naming the one in service.
//!
//! Owns the pointer file's format and its atomic replacement (write a temporary file,
//! fsync it, rename it over `CURRENT`, fsync the directory), so a crash at any point
//! leaves either the old or the new generation current, never neither. Does not own
//! what a generation holds.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::{Result, io_error};

const CURRENT: &str = "CURRENT";

/// Bumped whenever the schema, the analysers or the document shape change, so that an
/// index written by an older Quire is rebuilt rather than misread.
/// 2: term dictionaries as sstables instead of FSTs (tantivy's `quickwit` feature).
pub(crate) const FORMAT_VERSION: u32 = 2;

/// The generation `CURRENT` names, if the file exists and has this format version.
pub(crate) fn read_current(root: &Path) -> Option<String> {
    let text = fs::read_to_string(root.join(CURRENT)).ok()?;
    let mut lines = text.lines();
    let format: u32 = lines.next()?.strip_prefix("format ")?.parse().ok()?;
    let name = lines.next()?.strip_prefix("generation ")?.to_string();
    (format == FORMAT_VERSION && is_generation_name(&name)).then_some(name)
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
    use super::{create_next, list, read_current, remove_others, write_current};

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
