//! The harvest index: each instance's datestamp and whether it is deleted or
//! suppressed, kept in the tenant's database and ordered by (datestamp, id) for keyset
//! pages. It is derived from the change log: whatever changes an instance, its MARC
//! record, a holdings record or an item moves the instance's datestamp to that commit's
//! second; a deleted instance (or one whose MARC is deleted) stays as a tombstone with
//! the datestamp of its deletion, for ever (`deletedRecord` persistent).
//!
//! A holdings record or item deleted is gone from its table before the index sees the
//! change, so the index keeps which instance each holdings record, item and SRS record
//! belongs to (`oai_parents`) to find it then.

use serde::Deserialize;
use store::{ColumnValue, Migration, Reader, RecordTable, Tenant, Writer};
use uuid::Uuid;

use crate::Result;

const RECORDS: RecordTable = RecordTable {
    table: "oai_records",
    record_type: "",
    cached: false,
    columns: &["datestamp", "deleted", "suppressed"],
};

const PARENTS: RecordTable =
    RecordTable { table: "oai_parents", record_type: "", cached: false, columns: &["instance_id"] };

/// The named counter holding the last change-log row applied.
const APPLIED: &str = "oai_applied_seq";

/// The named counter holding the latest second a harvest was cut at: the end it
/// was given, with every change committed before it applied. A change applied
/// afterwards is stamped no earlier than that second, so the next harvest (`from`
/// that second) finds it, however late it committed or was applied.
const CUT: &str = "oai_cut";

/// Change-log rows read at a time; a transaction applies them until its slice is over
/// ([`store::Writer::should_end`]).
const PAGE: usize = 256;

/// Changes behind that make a backlog.
const BACKLOG: i64 = 10_000;

/// The writer's page cache while a long backlog is applied (a tenant's whole history,
/// the first time): the index's tables are keyed by random UUIDs, and with the default
/// cache each insert re-reads a page an earlier one of the batch wrote.
const BACKLOG_CACHE: u64 = 1 << 30;

pub const MIGRATIONS: store::Component = store::Component {
    name: "oai",
    migrations: &[Migration {
        version: 1,
        description: "OAI-PMH harvest index",
        sql: "
            CREATE TABLE oai_records (
                id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL,
                datestamp INTEGER NOT NULL, deleted INTEGER NOT NULL, suppressed INTEGER NOT NULL
            );
            CREATE INDEX oai_records_datestamp ON oai_records (datestamp, id);
            CREATE TABLE oai_parents (
                id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL,
                instance_id TEXT NOT NULL
            );
            CREATE TABLE oai_api_keys (
                id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL,
                username TEXT NOT NULL
            );
            CREATE TABLE oai_sets (
                id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL,
                set_spec TEXT NOT NULL UNIQUE
            );
            CREATE TABLE oai_settings (
                id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL,
                config_name TEXT NOT NULL UNIQUE
            );
        ",
    }],
};

/// Why an instance is deleted or suppressed: bits, so the instance and its MARC record
/// each keep their own.
const INSTANCE: i64 = 1;
const MARC: i64 = 2;

/// An instance as the index has it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Entry {
    pub id: Uuid,
    /// UTC seconds.
    pub datestamp: i64,
    pub deleted: bool,
    pub suppressed: bool,
}

/// Applies the change-log rows committed before the call; returns the last one applied.
/// With `cut`, a harvest ending at that second begins: later changes are stamped from
/// it on ([`CUT`]). Written in the background: a check-out waiting for the writer goes
/// first.
pub fn catch_up(tenant: &Tenant, cut: Option<i64>) -> Result<i64> {
    catch_up_while(tenant, cut, &|| true)
}

/// Like [`catch_up`], but ends early, committing what it has applied, once `go_on`
/// says so: checked between two changes, as a backlog of a tenant's whole history (a
/// new index, a tenant just moved) is one transaction while the desk is quiet and
/// took minutes on PostgreSQL, a server told to stop waiting all along. Returns the
/// last change applied.
pub(crate) fn catch_up_while(
    tenant: &Tenant,
    cut: Option<i64>,
    go_on: &(dyn Fn() -> bool + Sync),
) -> Result<i64> {
    let target = tenant.last_seq()?;
    // Current already (the follower's doing, usually): no write, so a request that
    // needs no cut never takes the writer from the desk.
    if cut.is_none() {
        let applied = tenant.read(|r| r.sequence_value(APPLIED))?.unwrap_or(0);
        if applied >= target {
            return Ok(applied);
        }
    }
    let mut cache_raised = false;
    let result = loop {
        let applied = tenant.write_background(|w| {
            let applied = w.sequence_value(APPLIED)?.unwrap_or(0);
            let mut last = applied;
            // The log has nothing more to apply now: it ended, or went past `target`.
            let mut log_ended = false;
            if applied < target {
                let floor = w.sequence_value(CUT)?.unwrap_or(i64::MIN);
                'pages: loop {
                    let changes = w.changes_since(last, PAGE)?;
                    for change in &changes {
                        if change.seq > target {
                            log_ended = true;
                            break 'pages;
                        }
                        if last > applied && (w.should_end() || !go_on()) {
                            break 'pages;
                        }
                        apply(w, change, floor)?;
                        last = change.seq;
                    }
                    if changes.len() < PAGE {
                        log_ended = true;
                        break;
                    }
                }
                w.restart_sequence(APPLIED, last + 1)?;
            }
            let done = last >= target || log_ended;
            if done
                && let Some(cut) = cut
                && w.sequence_value(CUT)?.is_none_or(|c| c < cut)
            {
                w.restart_sequence(CUT, cut + 1)?;
            }
            Ok::<_, crate::Error>((last, done))
        });
        match applied {
            Ok((last, true)) => break Ok(last),
            Ok((last, false)) if !go_on() => break Ok(last),
            Ok((last, false)) if !cache_raised && target - last > BACKLOG => {
                cache_raised = tenant.set_write_cache(Some(BACKLOG_CACHE)).is_ok();
            }
            Ok(_) => {}
            Err(e) => break Err(e),
        }
    };
    if cache_raised {
        tenant.set_write_cache(None)?;
    }
    result
}

/// Applies one change, stamping what it touches with its commit second or `floor`,
/// whichever is later.
fn apply(w: &mut Writer<'_>, change: &store::Change, floor: i64) -> Result<()> {
    let at = chrono::DateTime::parse_from_rfc3339(&change.at)
        .map_err(|e| crate::Error::Corrupt(format!("change {}: {e}", change.seq)))?
        .timestamp()
        .max(floor);
    let id = change.record_id.as_str();
    let deleted = change.op == store::Operation::Delete;
    match change.record_type.as_str() {
        "instance" => {
            let suppressed = if deleted {
                None
            } else {
                match w.get(&inventory::INSTANCES, id)? {
                    Some(stored) => Some(instance_suppressed(&stored.body)),
                    None => return Ok(()),
                }
            };
            touch(w, id, at, |d, s| {
                *d = bit(*d, INSTANCE, deleted);
                if let Some(suppressed) = suppressed {
                    *s = bit(*s, INSTANCE, suppressed);
                }
            })?;
        }
        "holdings" => {
            let now = w.get_column(&inventory::HOLDINGS, id, "instance_id")?.flatten();
            bump_parents(w, id, now, at)?;
        }
        "item" => {
            let holdings = w.get_column(&inventory::ITEMS, id, "holdings_record_id")?.flatten();
            let now = match holdings {
                Some(h) => parent_of_holdings(w, &h)?,
                None => None,
            };
            bump_parents(w, id, now, at)?;
        }
        t if t == srs::RECORD_CHANGE_TYPE => {
            let srs_id = Uuid::parse_str(id).map_err(|e| crate::Error::Corrupt(e.to_string()))?;
            match srs::bib_state(w, srs_id)? {
                Some(state) => {
                    let instance = state.instance_id.to_string();
                    set_parent(w, id, Some(&instance))?;
                    touch(w, &instance, at, |d, s| {
                        if state.live {
                            *d = bit(*d, MARC, state.deleted);
                            *s = bit(*s, MARC, state.suppressed);
                        }
                    })?;
                }
                None => {
                    // Gone (or never a bib): the instance has no MARC of its own now.
                    if let Some(instance) = parent(w, id)? {
                        touch(w, &instance, at, |d, s| {
                            *d = bit(*d, MARC, false);
                            *s = bit(*s, MARC, false);
                        })?;
                        set_parent(w, id, None)?;
                    }
                }
            }
        }
        _ => {}
    }
    Ok(())
}

/// A holdings record or item changed: its instance now and, if it moved or went, the
/// one it had.
fn bump_parents(w: &mut Writer<'_>, id: &str, now: Option<String>, at: i64) -> Result<()> {
    let before = parent(w, id)?;
    if let Some(before) = &before
        && Some(before) != now.as_ref()
    {
        touch(w, before, at, |_, _| {})?;
    }
    if let Some(now) = &now {
        touch(w, now, at, |_, _| {})?;
    }
    if before != now {
        set_parent(w, id, now.as_deref())?;
    }
    Ok(())
}

fn parent_of_holdings(r: &Reader<'_>, holdings: &str) -> Result<Option<String>> {
    match r.get_column(&inventory::HOLDINGS, holdings, "instance_id")? {
        Some(instance) => Ok(instance),
        None => parent(r, holdings),
    }
}

fn parent(r: &Reader<'_>, id: &str) -> Result<Option<String>> {
    Ok(r.get_column(&PARENTS, id, "instance_id")?.flatten())
}

fn set_parent(w: &mut Writer<'_>, id: &str, instance: Option<&str>) -> Result<()> {
    match instance {
        Some(instance) => {
            w.put(&PARENTS, id, 1, "", &[ColumnValue::Text(instance.to_string())])?;
        }
        None => {
            w.delete(&PARENTS, id)?;
        }
    }
    Ok(())
}

/// Moves an instance's datestamp to `at` (never back) and lets `change` set its bits.
/// An instance the index has not seen is left alone unless it is one (`instance`
/// changes come first for any instance).
fn touch(
    w: &mut Writer<'_>,
    id: &str,
    at: i64,
    change: impl FnOnce(&mut i64, &mut i64),
) -> Result<()> {
    let stored = w.get_with_columns(&RECORDS, id)?.map(|(_, columns)| columns);
    let (mut datestamp, mut deleted, mut suppressed) = match &stored {
        Some(columns) => (int(&columns[0]), int(&columns[1]), int(&columns[2])),
        None => (at, 0, 0),
    };
    datestamp = datestamp.max(at);
    change(&mut deleted, &mut suppressed);
    let columns =
        [ColumnValue::Int(datestamp), ColumnValue::Int(deleted), ColumnValue::Int(suppressed)];
    // What was read says which statement to run: one round trip on PostgreSQL, and
    // none when nothing moved (the instance was touched earlier in the same second).
    match stored {
        Some(stored) if stored[..] == columns[..] => {}
        Some(stored) => {
            w.update_changed(&RECORDS, (id, 1, ""), &columns, &stored)?;
        }
        None => w.insert(&RECORDS, id, 1, "", &columns)?,
    }
    Ok(())
}

fn bit(bits: i64, bit: i64, on: bool) -> i64 {
    if on { bits | bit } else { bits & !bit }
}

fn int(value: &ColumnValue) -> i64 {
    match value {
        ColumnValue::Int(n) => *n,
        _ => 0,
    }
}

fn instance_suppressed(body: &str) -> bool {
    #[derive(Deserialize)]
    struct Flags {
        #[serde(rename = "discoverySuppress", default)]
        discovery_suppress: Option<bool>,
    }
    serde_json::from_str::<Flags>(body).ok().and_then(|f| f.discovery_suppress).unwrap_or(false)
}

fn entry(id: &str, columns: &[ColumnValue]) -> Result<Entry> {
    Ok(Entry {
        id: Uuid::parse_str(id)
            .map_err(|e| crate::Error::Corrupt(format!("harvest index id {id}: {e}")))?,
        datestamp: int(&columns[0]),
        deleted: int(&columns[1]) != 0,
        suppressed: int(&columns[2]) != 0,
    })
}

/// Up to `limit` instances after `after` in (datestamp, id) order, with datestamps up
/// to `until`.
pub(crate) fn page(
    r: &Reader<'_>,
    after: (i64, Uuid),
    until: i64,
    limit: usize,
) -> Result<Vec<Entry>> {
    let rows = r.scan_by(&RECORDS, "datestamp", (after.0, &after.1.to_string()), until, limit)?;
    rows.iter().map(|(id, columns)| entry(id, columns)).collect()
}

/// How many instances have datestamps in `from..=until`.
pub(crate) fn count(r: &Reader<'_>, from: i64, until: i64) -> Result<u64> {
    Ok(r.count_between(&RECORDS, "datestamp", from, until)?)
}

/// One instance, if the index has it.
pub(crate) fn get(r: &Reader<'_>, id: Uuid) -> Result<Option<Entry>> {
    match r.get_with_columns(&RECORDS, &id.to_string())? {
        Some((_, columns)) => entry(&id.to_string(), &columns).map(Some),
        None => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use uuid::Uuid;

    #[test]
    fn a_catch_up_told_to_stop_commits_what_it_applied_and_the_next_goes_on() {
        let dir = tempfile::tempdir().unwrap();
        let components = [inventory::MIGRATIONS, srs::MIGRATIONS, super::MIGRATIONS];
        let store = store::Store::open(dir.path(), store::testing::options(), &components).unwrap();
        let (tenant, _) = store.create_tenant("diku").unwrap();
        // The reference records come first in the log, the instances after them.
        tenant.write(inventory::load_reference_data).unwrap();
        let ids: Vec<Uuid> = (0..3).map(|_| Uuid::new_v4()).collect();
        tenant
            .write(|w| {
                for id in &ids {
                    let body = format!(
                        r#"{{"id":"{id}","source":"FOLIO","title":"T",
                            "instanceTypeId":"6312d172-f0cf-40f6-b27d-9fa8feaf332f"}}"#
                    );
                    inventory::create::<inventory::Instance>(
                        w,
                        body.as_bytes(),
                        Default::default(),
                    )?;
                }
                Ok::<_, inventory::Error>(())
            })
            .unwrap();
        let last = tenant.last_seq().unwrap();
        let indexed = || {
            tenant
                .read(|r| {
                    ids.iter().map(|id| super::get(r, *id)).collect::<crate::Result<Vec<_>>>()
                })
                .unwrap()
                .iter()
                .filter(|entry| entry.is_some())
                .count()
        };

        let first = tenant.read(|r| r.changes_since(0, 1)).unwrap()[0].seq;
        assert_eq!(super::catch_up_while(&tenant, None, &|| false).unwrap(), first);
        assert_eq!(indexed(), 0);
        assert_eq!(super::catch_up(&tenant, None).unwrap(), last);
        assert_eq!(indexed(), 3);
    }
}
