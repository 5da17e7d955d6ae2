//! The per-tenant change log: one row per record written, in commit order.
//!
//! Readers (the search indexer, OAI-PMH datestamps, event publishing) remember the last
//! sequence number they applied and ask for what came after it.

/// What a write did to a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operation {
    Create,
    Update,
    Delete,
}

impl Operation {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Operation::Create => "CREATE",
            Operation::Update => "UPDATE",
            Operation::Delete => "DELETE",
        }
    }

    pub(crate) fn parse(s: &str) -> Option<Operation> {
        match s {
            "CREATE" => Some(Operation::Create),
            "UPDATE" => Some(Operation::Update),
            "DELETE" => Some(Operation::Delete),
            _ => None,
        }
    }
}

/// One row of the change log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// Strictly increasing within a tenant; never reused.
    pub seq: i64,
    pub record_type: String,
    pub record_id: String,
    pub op: Operation,
    /// RFC 3339 commit time, UTC.
    pub at: String,
}

/// The record types whose changes can be read by record id ([`Reader::record_history`]):
/// the change log's partial index `change_log_record` covers these and no others, so
/// the writes of every other type (a desk's items, loans, check-ins) do not maintain it.
///
/// [`Reader::record_history`]: crate::Reader::record_history
pub const HISTORY_TYPES: &[&str] = &["instance", "holdings"];

/// A page of one record's changes ([`Reader::record_history`]).
///
/// [`Reader::record_history`]: crate::Reader::record_history
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordHistory {
    /// Newest first, each with its kept bodies, if any.
    pub changes: Vec<(Change, Option<Bodies>)>,
    /// How many changes the log holds for the record in all.
    pub total: u64,
}

/// The condition of that index, written as its migration writes it: a query must repeat
/// it word for word for SQLite to use a partial index.
pub(crate) const HISTORY_INDEXED: &str = "record_type IN ('instance', 'holdings')";

/// The commit time, RFC 3339 in UTC with milliseconds (`2024-01-31T10:11:12.123+00:00`).
/// The store keeps no FOLIO conventions, so it formats the time itself; `folio::Timestamp`
/// reads this text.
pub(crate) fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, false)
}

/// A change's record bodies, kept beside its change-log row for publishers: the record
/// as it was before the write (none for a create) and after it (none for a delete).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Bodies {
    pub old: Option<String>,
    pub new: Option<String>,
}

/// A reader of the change log that must see every change exactly as written, such as the
/// event publisher: where it has got to, and which record types' bodies it needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Publisher {
    pub name: String,
    /// The last sequence number it has published; bodies after it are kept.
    pub published: i64,
    pub record_types: Vec<String>,
}

/// The record types whose bodies the tenant's writes keep: the union of its publishers'.
/// Empty, and so free, unless a publisher was ever started.
#[derive(Default)]
pub(crate) struct KeptTypes(parking_lot::RwLock<std::sync::Arc<[String]>>);

impl KeptTypes {
    pub(crate) fn get(&self) -> std::sync::Arc<[String]> {
        self.0.read().clone()
    }

    pub(crate) fn set(&self, publishers: &[Publisher]) {
        let mut types: Vec<String> =
            publishers.iter().flat_map(|p| p.record_types.iter().cloned()).collect();
        types.sort();
        types.dedup();
        *self.0.write() = types.into();
    }
}

#[cfg(test)]
mod tests {
    use super::Bodies;
    use crate::fixtures::{PAIRS, THINGS, TITLES, tenant};
    use crate::{ColumnValue, Store, Tenant};

    fn bodies(tenant: &Tenant, after: i64) -> Vec<(String, Option<Bodies>)> {
        let changes = tenant.read(|r| r.changes_with_bodies(after, 100)).unwrap();
        changes.into_iter().map(|(c, b)| (format!("{:?} {}", c.op, c.record_id), b)).collect()
    }

    fn kept(old: Option<&str>, new: Option<&str>) -> Option<Bodies> {
        Some(Bodies { old: old.map(String::from), new: new.map(String::from) })
    }

    /// Once a publisher wants a record type, every kind of write keeps the record as it
    /// was and as it became; other types, and writes before, keep nothing.
    #[test]
    fn a_publisher_makes_the_log_keep_its_types_bodies() {
        let options = crate::testing::options();
        let (dir, tenant) = crate::fixtures::tenant_with(options.clone());
        let parent = [ColumnValue::Null];
        let pair = [ColumnValue::Null, ColumnValue::Null];
        tenant.write(|w| w.insert(&THINGS, "a", 1, r#"{"v":0}"#, &parent)).unwrap();
        let publisher = tenant.start_publisher("events", &["thing"]).unwrap();
        assert_eq!(publisher.published, 1, "a new publisher starts at the end of the log");
        tenant
            .write(|w| {
                w.update(&THINGS, "a", 2, r#"{"v":1}"#, &parent)?;
                w.upsert(&THINGS, "a", 3, r#"{"v":2}"#, &parent)?;
                w.upsert(&THINGS, "b", 1, r#"{"b":1}"#, &parent)?;
                assert!(!w.update(&THINGS, "none", 1, "{}", &parent)?);
                w.insert(&PAIRS, "p", 1, "{}", &pair)?;
                w.delete(&THINGS, "a")
            })
            .unwrap();
        let expected = vec![
            ("Create a".to_string(), None),
            ("Update a".to_string(), kept(Some(r#"{"v":0}"#), Some(r#"{"v":1}"#))),
            ("Update a".to_string(), kept(Some(r#"{"v":1}"#), Some(r#"{"v":2}"#))),
            ("Create b".to_string(), kept(None, Some(r#"{"b":1}"#))),
            ("Create p".to_string(), None),
            ("Delete a".to_string(), kept(Some(r#"{"v":2}"#), None)),
        ];
        assert_eq!(bodies(&tenant, 0), expected);

        // A store opened again still keeps them.
        drop(tenant);
        let store = Store::open(dir.path(), options, &[]).unwrap();
        let tenant = store.tenant("t").unwrap();
        tenant.write(|w| w.insert(&THINGS, "c", 1, "{}", &parent)).unwrap();
        assert_eq!(bodies(&tenant, 6), vec![("Create c".to_string(), kept(None, Some("{}")))]);

        // Published and dropped, then the last publisher stopped: nothing is kept.
        tenant.write(|w| w.set_published("events", 4)).unwrap();
        assert_eq!(tenant.write(|w| w.drop_bodies(0, 3)).unwrap(), 2);
        assert_eq!(tenant.read(|r| r.first_kept_body()).unwrap(), Some(4));
        assert_eq!(tenant.read(|r| r.publishers()).unwrap()[0].published, 4);
        tenant.stop_publisher("events").unwrap();
        tenant.write(|w| w.insert(&THINGS, "d", 1, "{}", &parent)).unwrap();
        assert!(bodies(&tenant, 0).iter().all(|(_, b)| b.is_none()));
    }

    /// A record's history is its own changes, newest first, with their kept bodies,
    /// paged back in time; it reads the log's index by record, and is refused for the
    /// record types that index leaves out.
    #[test]
    fn a_record_history_reads_its_changes_by_record() {
        let (_dir, tenant) = tenant();
        let none: [ColumnValue; 0] = [];
        tenant.write(|w| w.insert(&TITLES, "a", 1, r#"{"v":0}"#, &none)).unwrap();
        tenant.write(|w| w.insert(&TITLES, "b", 1, "{}", &none)).unwrap();
        tenant.start_publisher("events", &["instance"]).unwrap();
        tenant.write(|w| w.update(&TITLES, "a", 2, r#"{"v":1}"#, &none)).unwrap();
        tenant.write(|w| w.delete(&TITLES, "a")).unwrap();
        let history = |id: &str, before: Option<&str>, limit: usize| {
            let history = tenant.read(|r| r.record_history(&TITLES, id, before, limit)).unwrap();
            let changes: Vec<_> = history
                .changes
                .into_iter()
                .map(|(c, b)| (format!("{:?}", c.op), c.at, b))
                .collect();
            (changes, history.total)
        };
        let (all, total) = history("a", None, 10);
        assert_eq!(total, 3);
        let ops: Vec<_> = all.iter().map(|(op, _, _)| op.as_str()).collect();
        assert_eq!(ops, ["Delete", "Update", "Create"]);
        assert_eq!(all[0].2, kept(Some(r#"{"v":1}"#), None));
        assert_eq!(all[1].2, kept(Some(r#"{"v":0}"#), Some(r#"{"v":1}"#)));
        assert_eq!(all[2].2, None, "written before the publisher started");

        let (newest, total) = history("a", None, 1);
        assert_eq!((newest.len(), total), (1, 3), "the total counts every change");
        let (earlier, _) = history("a", Some(&all[0].1), 10);
        assert!(earlier.iter().all(|(_, at, _)| *at < all[0].1));
        assert_eq!(history("a", Some("0000"), 10).0.len(), 0);
        assert_eq!(history("b", None, 10).1, 1);
        assert_eq!(history("none", None, 10).1, 0);

        let refused = tenant.read(|r| r.record_history(&THINGS, "a", None, 10));
        assert!(matches!(refused, Err(crate::Error::Query(_))), "{refused:?}");
    }

    /// SQLite uses the partial index for the history's query, which repeats the index's
    /// condition as written.
    #[test]
    fn a_record_history_is_read_through_the_index() {
        let indexed = super::HISTORY_INDEXED;
        let migration = crate::migrate::CORE.migrations.iter().find(|m| m.sql.contains(indexed));
        assert!(migration.is_some(), "the index's migration states its condition as written");
        let listed: Vec<String> = super::HISTORY_TYPES.iter().map(|t| format!("'{t}'")).collect();
        assert!(indexed.contains(&listed.join(", ")), "HISTORY_TYPES are the indexed types");
        let (_dir, tenant) = crate::fixtures::sqlite_tenant();
        let conn = rusqlite::Connection::open(tenant.dir().join("quire.sqlite")).unwrap();
        let sql = format!(
            "EXPLAIN QUERY PLAN SELECT c.seq FROM change_log c \
             LEFT JOIN change_bodies b ON b.seq = c.seq \
             WHERE c.record_id = 'a' AND c.record_type = 'instance' AND c.{indexed} \
             ORDER BY c.seq DESC LIMIT 10"
        );
        let plan: Vec<String> = conn
            .prepare(&sql)
            .unwrap()
            .query_map([], |row| row.get::<_, String>(3))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert!(plan.iter().any(|step| step.contains("INDEX change_log_record")), "{plan:?}");
    }

    /// The last change before a time is found among those in range, whatever the
    /// range's size.
    #[test]
    fn the_last_change_before_a_time_is_found_by_bisection() {
        let (_dir, tenant) = tenant();
        let parent = [ColumnValue::Null];
        for n in 0..37 {
            tenant.write(|w| w.insert(&THINGS, &format!("t{n}"), 1, "{}", &parent)).unwrap();
        }
        let changes = tenant.read(|r| r.changes_since(0, 100)).unwrap();
        for probe in [0, 1, 5, 17, 36] {
            // The first change committed at a later time than the probe's.
            let Some(later) = changes.iter().find(|c| c.at > changes[probe].at) else { continue };
            let expected = later.seq - 1;
            for (after, through) in [(0, 37), (3, 30), (expected - 1, expected), (0, expected)] {
                let found =
                    tenant.read(|r| r.last_change_before(&later.at, after, through)).unwrap();
                let want = (expected.min(through) > after).then_some(expected.min(through));
                assert_eq!(found, want, "before {} in ({after}, {through}]", later.at);
            }
        }
        let found = tenant.read(|r| r.last_change_before("0000", 0, 37)).unwrap();
        assert_eq!(found, None);
        let found = tenant.read(|r| r.last_change_before("9999", 0, 37)).unwrap();
        assert_eq!(found, Some(37));
    }
}
