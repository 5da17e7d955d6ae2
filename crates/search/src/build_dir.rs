//! The directory a full build writes its generation through.
//!
//! Tantivy's memory-mapped directory syncs every file as it is finished
//! (`fdatasync`), so the indexing thread that flushed a segment waits for the disk
//! before it takes another document: on a 200,000-instance reindex one of the two
//! indexing threads spent 1.6 s of a 15.4 s build waiting so (session 16, in the
//! history of docs/benchmarks.md). A build has no use for a file being
//! durable on its own: nothing reads its generation before the commit that names the
//! files, and a crash before that commit leaves a directory that the next open removes.
//!
//! So a finished file here is handed to a thread of the build's own that syncs files
//! one after another, and the commit (`meta.json`, written last) first waits until it
//! has synced every file handed to it, then syncs the directory. By then most of the
//! data is on the disk. The invariant tantivy relies on holds as before: a commit
//! names only durable files. (`sync_file_range`, which starts a writeback without
//! waiting, would do without the thread, but needs `unsafe`, which this crate forbids.)

use std::collections::VecDeque;
use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use tantivy::directory::error::{DeleteError, LockError, OpenReadError, OpenWriteError};
use tantivy::directory::{
    AntiCallToken, Directory, DirectoryLock, FileHandle, Lock, MmapDirectory, TerminatingWrite,
    WatchCallback, WatchHandle, WritePtr,
};

/// The file whose atomic write is a commit (tantivy's `META_FILEPATH`).
const META: &str = "meta.json";

/// A generation directory under construction: tantivy's `MmapDirectory` with each
/// finished file synced in the background, and the commit waiting for those syncs.
#[derive(Clone, Debug)]
pub(crate) struct BuildDirectory {
    inner: MmapDirectory,
    root: PathBuf,
    syncer: Arc<Syncer>,
}

impl BuildDirectory {
    /// Opens `root` and starts its syncing thread, which ends when the last clone of
    /// the directory is dropped.
    pub(crate) fn open(root: &Path) -> tantivy::Result<BuildDirectory> {
        let inner = MmapDirectory::open(root).map_err(tantivy::TantivyError::from)?;
        let shared = Arc::new(Shared::default());
        let worker = shared.clone();
        std::thread::Builder::new()
            .name("index-sync".to_string())
            .spawn(move || worker.run())
            .map_err(|e| tantivy::TantivyError::SystemError(e.to_string()))?;
        Ok(BuildDirectory { inner, root: root.to_path_buf(), syncer: Arc::new(Syncer(shared)) })
    }
}

impl Directory for BuildDirectory {
    fn get_file_handle(&self, path: &Path) -> Result<Arc<dyn FileHandle>, OpenReadError> {
        self.inner.get_file_handle(path)
    }

    fn delete(&self, path: &Path) -> Result<(), DeleteError> {
        self.inner.delete(path)
    }

    fn exists(&self, path: &Path) -> Result<bool, OpenReadError> {
        self.inner.exists(path)
    }

    fn open_write(&self, path: &Path) -> Result<WritePtr, OpenWriteError> {
        let full = self.root.join(path);
        let file = OpenOptions::new().write(true).create_new(true).open(&full).map_err(|e| {
            if e.kind() == io::ErrorKind::AlreadyExists {
                OpenWriteError::FileAlreadyExists(path.to_path_buf())
            } else {
                OpenWriteError::wrap_io_error(e, path.to_path_buf())
            }
        })?;
        let writer = BuildFile { file, path: full, shared: self.syncer.0.clone() };
        Ok(BufWriter::new(Box::new(writer)))
    }

    fn atomic_read(&self, path: &Path) -> Result<Vec<u8>, OpenReadError> {
        self.inner.atomic_read(path)
    }

    fn atomic_write(&self, path: &Path, data: &[u8]) -> io::Result<()> {
        if path == Path::new(META) {
            self.syncer.0.wait_until_synced()?;
            self.inner.sync_directory()?;
        }
        self.inner.atomic_write(path, data)
    }

    fn sync_directory(&self) -> io::Result<()> {
        self.inner.sync_directory()
    }

    fn acquire_lock(&self, lock: &Lock) -> Result<DirectoryLock, LockError> {
        self.inner.acquire_lock(lock)
    }

    fn watch(&self, watch_callback: WatchCallback) -> tantivy::Result<WatchHandle> {
        self.inner.watch(watch_callback)
    }
}

/// A file being written by a build; finishing it queues its sync.
struct BuildFile {
    file: File,
    path: PathBuf,
    shared: Arc<Shared>,
}

impl Write for BuildFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.file.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

impl TerminatingWrite for BuildFile {
    fn terminate_ref(&mut self, _: AntiCallToken) -> io::Result<()> {
        self.file.flush()?;
        let mut state = self.shared.lock();
        state.queue.push_back(self.path.clone());
        self.shared.changed.notify_all();
        Ok(())
    }
}

/// Owned by the directory's clones; dropping the last one stops the syncing thread.
#[derive(Debug)]
struct Syncer(Arc<Shared>);

impl Drop for Syncer {
    fn drop(&mut self) {
        self.0.lock().closed = true;
        self.0.changed.notify_all();
    }
}

#[derive(Debug, Default)]
struct Shared {
    state: Mutex<SyncState>,
    changed: Condvar,
}

#[derive(Debug, Default)]
struct SyncState {
    /// Finished files not yet synced.
    queue: VecDeque<PathBuf>,
    /// Whether the thread is syncing a file taken from the queue.
    busy: bool,
    /// The first failed sync since the last commit, which that commit reports.
    failed: Option<String>,
    closed: bool,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, SyncState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The syncing thread: syncs queued files in order until the directory is gone.
    fn run(&self) {
        loop {
            let path = {
                let mut state = self.lock();
                loop {
                    if let Some(path) = state.queue.pop_front() {
                        state.busy = true;
                        break path;
                    }
                    if state.closed {
                        return;
                    }
                    state = self.changed.wait(state).unwrap_or_else(|p| p.into_inner());
                }
            };
            let synced = sync_file(&path);
            let mut state = self.lock();
            state.busy = false;
            if let Err(e) = synced {
                state.failed.get_or_insert_with(|| format!("{}: {e}", path.display()));
            }
            self.changed.notify_all();
        }
    }

    /// Waits until every file queued so far is synced; fails if a sync failed.
    fn wait_until_synced(&self) -> io::Result<()> {
        let mut state = self.lock();
        while !state.queue.is_empty() || state.busy {
            state = self.changed.wait(state).unwrap_or_else(|p| p.into_inner());
        }
        match state.failed.take() {
            Some(failure) => Err(io::Error::other(format!("syncing an index file: {failure}"))),
            None => Ok(()),
        }
    }
}

fn sync_file(path: &Path) -> io::Result<()> {
    match File::open(path) {
        Ok(file) => file.sync_data(),
        // Deleted since (a segment merged away): nothing left to keep.
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::BuildDirectory;
    use tantivy::schema::{STRING, Schema};
    use tantivy::{Index, TantivyDocument};

    /// A build through the directory commits an index that opens as an ordinary one,
    /// and the commit leaves no finished file waiting for its sync.
    #[test]
    fn commits_sync_the_finished_files() {
        let tmp = tempfile::tempdir().unwrap();
        let mut schema = Schema::builder();
        let word = schema.add_text_field("word", STRING);
        let directory = BuildDirectory::open(tmp.path()).unwrap();
        let index = Index::create(directory.clone(), schema.build(), Default::default()).unwrap();
        let mut writer = index.writer_with_num_threads(1, 15_000_000).unwrap();
        for n in 0..100_000u32 {
            let mut doc = TantivyDocument::default();
            doc.add_text(word, format!("w{n}"));
            writer.add_document(doc).unwrap();
        }
        writer.prepare_commit().unwrap().commit().unwrap();
        let state = directory.syncer.0.lock();
        assert!(state.queue.is_empty() && !state.busy && state.failed.is_none());
        drop(state);
        drop(writer);

        let reopened = Index::open_in_dir(tmp.path()).unwrap();
        let searcher = reopened.reader().unwrap().searcher();
        assert_eq!(searcher.num_docs(), 100_000);
    }
}
