//! What lets several nodes on one PostgreSQL database share long work: leases on jobs,
//! so that one node at a time runs each and another takes it over when that one dies,
//! and files kept in the store, so that the node taking over an import finds its file.
//!
//! A lease is a row (`job_leases`): the job's name, the node holding it and when it
//! expires, by the holder's clock in milliseconds (nodes' clocks must agree to well
//! within a lease's length, as NTP keeps them). It is taken, renewed and given up in the
//! tenant's serialised write transactions, so two nodes never both hold one. A lease
//! only says who runs a job; the jobs themselves write each chunk with a check of their
//! stored cursor, so even a node that ran on after losing its lease writes nothing twice.

use std::{
    io::{Read, Write},
    path::Path,
    sync::atomic::{AtomicUsize, Ordering},
    time::{Duration, SystemTime, UNIX_EPOCH},
};

use base64::Engine;

use crate::{Error, Reader, Result, Tenant, tenant::io_error};

/// Who holds a job's lease, and until when.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lease {
    pub job: String,
    pub node: String,
    /// Milliseconds since the Unix epoch, by the holder's clock.
    pub expires_ms: i64,
}

/// This process's name for a store it opens: host, process id, and the store's number
/// within the process (tests open several).
pub(crate) fn node_name() -> String {
    static OPENED: AtomicUsize = AtomicUsize::new(0);
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|host| host.trim().to_string())
        .ok()
        .filter(|host| !host.is_empty())
        .unwrap_or_else(|| "localhost".into());
    format!("{host}:{}:{}", std::process::id(), OPENED.fetch_add(1, Ordering::Relaxed))
}

/// How long a job's lease lasts unless renewed: how long a job whose node died waits
/// before another node takes it over. Holders renew at a third of it.
pub const LEASE_TTL: Duration = Duration::from_secs(10);

/// Milliseconds since the Unix epoch: the clock leases run by.
pub fn now_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64)
}

impl Reader<'_> {
    /// Every lease on the tenant's jobs, run out or not, by job.
    pub fn leases(&self) -> Result<Vec<Lease>> {
        self.tx().query("SELECT job, node, expires FROM job_leases ORDER BY job", &[], |row| {
            Ok(Lease { job: row.text(0)?, node: row.text(1)?, expires_ms: row.int(2)? })
        })
    }
}

/// Raw bytes per stored part of a shared file (kept as base64 text, so that every table
/// holds only the value kinds the statement layer and `tenant move` carry).
const PART: usize = 1 << 20;

/// Parts written per transaction: a large file never holds the tenant's writer long.
const PARTS_PER_WRITE: usize = 8;

/// The part that records a complete file's length, written after its last part.
const LENGTH_PART: i64 = -1;

impl Tenant {
    /// Takes `job`'s lease for this node for `ttl`, or renews it: true when this node
    /// holds it now, false while another node's lease on it runs.
    pub fn hold_lease(&self, job: &str, ttl: Duration) -> Result<bool> {
        let node = self.node.clone();
        self.write(|w| {
            let tx = w.tx();
            let now = now_ms();
            let holder = tx.query_opt(
                "SELECT node, expires FROM job_leases WHERE job = ?1",
                &[job.into()],
                |row| Ok((row.text(0)?, row.int(1)?)),
            )?;
            if let Some((holder, expires)) = holder
                && *holder != *node
                && expires > now
            {
                return Ok(false);
            }
            let expires = now.saturating_add(ttl.as_millis() as i64);
            tx.execute(
                "INSERT INTO job_leases (job, node, expires) VALUES (?1, ?2, ?3)
                 ON CONFLICT(job) DO UPDATE SET node = excluded.node, expires = excluded.expires",
                &[job.into(), (*node).into(), expires.into()],
            )?;
            Ok::<_, Error>(true)
        })
    }

    /// Gives up `job`'s lease if this node holds it: the job is done, or handed on.
    pub fn release_lease(&self, job: &str) -> Result<()> {
        let node = self.node.clone();
        self.write(|w| {
            w.tx().execute(
                "DELETE FROM job_leases WHERE job = ?1 AND node = ?2",
                &[job.into(), (*node).into()],
            )?;
            Ok::<_, Error>(())
        })
    }

    /// Keeps the file at `path` in the store under `name`, replacing any file of that
    /// name, so that every node can fetch it ([`Tenant::fetch_shared_file`]). Only on
    /// PostgreSQL: on SQLite one node serves the data directory, which holds the file.
    pub fn share_file(&self, name: &str, path: &Path) -> Result<()> {
        if !self.is_shared() {
            return Ok(());
        }
        let mut file = std::fs::File::open(path).map_err(|e| io_error(path, e))?;
        self.write(|w| {
            w.tx().execute("DELETE FROM shared_files WHERE name = ?1", &[name.into()])?;
            Ok::<_, Error>(())
        })?;
        let (mut part, mut length) = (0i64, 0i64);
        let mut buf = vec![0u8; PART];
        loop {
            let mut parts = Vec::new();
            while parts.len() < PARTS_PER_WRITE {
                let n = read_full(&mut file, &mut buf).map_err(|e| io_error(path, e))?;
                if n == 0 {
                    break;
                }
                length += n as i64;
                parts.push(base64::engine::general_purpose::STANDARD.encode(&buf[..n]));
            }
            let last = parts.len() < PARTS_PER_WRITE;
            self.write(|w| {
                let tx = w.tx();
                for data in &parts {
                    tx.execute(
                        "INSERT INTO shared_files (name, part, data) VALUES (?1, ?2, ?3)",
                        &[name.into(), part.into(), data.as_str().into()],
                    )?;
                    part += 1;
                }
                if last {
                    let length = length.to_string();
                    tx.execute(
                        "INSERT INTO shared_files (name, part, data) VALUES (?1, ?2, ?3)",
                        &[name.into(), LENGTH_PART.into(), length.as_str().into()],
                    )?;
                }
                Ok::<_, Error>(())
            })?;
            if last {
                return Ok(());
            }
        }
    }

    /// Makes sure `path` holds the file kept under `name`: true when it does. A node that
    /// lacks it fetches it from the store (on PostgreSQL); false when neither this node
    /// nor the store has all of it.
    pub fn fetch_shared_file(&self, name: &str, path: &Path) -> Result<bool> {
        if path.exists() {
            return Ok(true);
        }
        if !self.is_shared() {
            return Ok(false);
        }
        let length = self.read(|r| {
            r.tx().query_opt(
                "SELECT data FROM shared_files WHERE name = ?1 AND part = ?2",
                &[name.into(), LENGTH_PART.into()],
                |row| row.text(0),
            )
        })?;
        let Some(length) = length.and_then(|l| l.parse::<u64>().ok()) else { return Ok(false) };
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| io_error(dir, e))?;
        }
        let partial = path.with_extension("fetching");
        let mut file = std::fs::File::create(&partial).map_err(|e| io_error(&partial, e))?;
        let (mut next, mut written) = (0i64, 0u64);
        loop {
            let parts = self.read(|r| {
                r.tx().query(
                    "SELECT data FROM shared_files WHERE name = ?1 AND part >= ?2 AND part < ?3
                     ORDER BY part",
                    &[name.into(), next.into(), (next + PARTS_PER_WRITE as i64).into()],
                    |row| row.text(0),
                )
            })?;
            for data in &parts {
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(data)
                    .map_err(|e| Error::Corrupt(format!("shared file {name:?}: {e}")))?;
                file.write_all(&bytes).map_err(|e| io_error(&partial, e))?;
                written += bytes.len() as u64;
            }
            next += parts.len() as i64;
            if parts.len() < PARTS_PER_WRITE {
                break;
            }
        }
        if written != length {
            return Err(Error::Corrupt(format!(
                "shared file {name:?} has {written} bytes, not the {length} recorded"
            )));
        }
        file.sync_all().map_err(|e| io_error(&partial, e))?;
        std::fs::rename(&partial, path).map_err(|e| io_error(path, e))?;
        Ok(true)
    }

    /// Drops the file kept under `name` from the store, and every file under `name/`.
    pub fn forget_shared_files(&self, name: &str) -> Result<()> {
        if !self.is_shared() {
            return Ok(());
        }
        let under = format!("{name}/%");
        self.write(|w| {
            w.tx().execute(
                "DELETE FROM shared_files WHERE name = ?1 OR name LIKE ?2",
                &[name.into(), under.as_str().into()],
            )?;
            Ok::<_, Error>(())
        })
    }
}

/// Reads until `buf` is full or the file ends.
fn read_full(file: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match file.read(&mut buf[n..])? {
            0 => break,
            read => n += read,
        }
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::Store;

    /// Two nodes on one store: two stores on one PostgreSQL database, or on SQLite two
    /// processes' worth of stores on one data directory.
    fn two_nodes() -> (Vec<tempfile::TempDir>, Arc<Tenant>, Arc<Tenant>) {
        let options = crate::testing::options();
        let dirs = vec![tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap()];
        let second = if crate::testing::postgres_url().is_some() { &dirs[1] } else { &dirs[0] };
        let one = Store::open(dirs[0].path(), options.clone(), &[]).unwrap();
        let (t1, _) = one.create_tenant("t").unwrap();
        let two = Store::open(second.path(), options, &[]).unwrap();
        assert_ne!(one.node(), two.node());
        let t2 = two.tenant("t").unwrap();
        (dirs, t1, t2)
    }

    #[test]
    fn one_node_holds_a_lease_until_it_gives_it_up_or_it_runs_out() {
        let (_dirs, one, two) = two_nodes();
        let long = Duration::from_secs(60);
        assert!(one.hold_lease("import:a", long).unwrap());
        assert!(!two.hold_lease("import:a", long).unwrap(), "two nodes hold one lease");
        assert!(one.hold_lease("import:a", long).unwrap(), "the holder cannot renew");
        assert!(two.hold_lease("import:b", long).unwrap(), "leases are per job");

        one.release_lease("import:a").unwrap();
        assert!(two.hold_lease("import:a", long).unwrap(), "a given-up lease stays taken");
        // Giving up a lease one does not hold changes nothing.
        one.release_lease("import:a").unwrap();
        assert!(!one.hold_lease("import:a", long).unwrap());

        // A lease that runs out (its node died) goes to whoever asks next.
        assert!(one.hold_lease("import:c", Duration::ZERO).unwrap());
        std::thread::sleep(Duration::from_millis(2));
        assert!(two.hold_lease("import:c", long).unwrap());
        let held: Vec<(String, bool)> = one
            .read(|r| r.leases())
            .unwrap()
            .into_iter()
            .map(|lease| (lease.job, lease.node == *one.node))
            .collect();
        let expected = [("import:a", false), ("import:b", false), ("import:c", false)];
        assert_eq!(held, expected.map(|(job, mine)| (job.to_string(), mine)));
    }

    #[test]
    fn a_shared_file_reaches_the_other_node_whole() {
        let (dirs, one, two) = two_nodes();
        // Larger than one write's parts, and not a whole number of parts.
        let bytes: Vec<u8> =
            (0..PART * PARTS_PER_WRITE + PART / 3).map(|i| (i % 251) as u8).collect();
        let source = dirs[0].path().join("upload.mrc");
        std::fs::write(&source, &bytes).unwrap();
        one.share_file("a/upload.mrc", &source).unwrap();

        let fetched = dirs[1].path().join("imports").join("a").join("upload.mrc");
        let found = two.fetch_shared_file("a/upload.mrc", &fetched).unwrap();
        if !two.is_shared() {
            // On SQLite the data directory is the one place files are kept.
            assert!(!found);
            return;
        }
        assert!(found);
        assert!(std::fs::read(&fetched).unwrap() == bytes, "the fetched file differs");
        assert!(!two.fetch_shared_file("b/none.mrc", &dirs[1].path().join("none")).unwrap());

        one.forget_shared_files("a").unwrap();
        std::fs::remove_file(&fetched).unwrap();
        assert!(!two.fetch_shared_file("a/upload.mrc", &fetched).unwrap());
    }
}
