//! The bulk component's tables: operations, the identifiers an upload brought, the
//! records an operation matched (with what its rules propose and what its commit wrote)
//! and each step's errors. Rows of an operation are keyed `{operation}:{n:08}`, so a
//! keyset scan by id reads them in order.

use store::{Migration, RecordTable, Writer};
use uuid::Uuid;

use crate::{Error, Result};

pub const MIGRATIONS: store::Component = store::Component {
    name: "bulk",
    migrations: &[Migration {
        version: 1,
        description: "bulk operations, their identifiers, records and errors",
        sql: "
        CREATE TABLE bulk_operations (
            id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL,
            hrid INTEGER NOT NULL UNIQUE,
            status TEXT NOT NULL,
            entity_type TEXT NOT NULL,
            approach TEXT,
            operation_type TEXT,
            user_id TEXT,
            start_time TEXT,
            end_time TEXT
        );
        CREATE INDEX bulk_operations_status ON bulk_operations (status);
        CREATE TABLE bulk_identifiers (
            id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL
        );
        CREATE TABLE bulk_records (
            id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL
        );
        CREATE TABLE bulk_errors (
            id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL
        );
        ",
    }],
};

pub(crate) const OPERATIONS: RecordTable = RecordTable {
    table: "bulk_operations",
    record_type: "bulk_operation",
    cached: false,
    columns: &[
        "hrid",
        "status",
        "entity_type",
        "approach",
        "operation_type",
        "user_id",
        "start_time",
        "end_time",
    ],
};

/// Bookkeeping no follower reads: not in the change log.
pub(crate) const IDENTIFIERS: RecordTable =
    RecordTable { table: "bulk_identifiers", record_type: "", cached: false, columns: &[] };
pub(crate) const RECORDS: RecordTable =
    RecordTable { table: "bulk_records", record_type: "", cached: false, columns: &[] };
pub(crate) const ERRORS: RecordTable =
    RecordTable { table: "bulk_errors", record_type: "", cached: false, columns: &[] };

/// The key of an operation's `n`th row in one of its tables; `part` names a sub-list
/// (the errors of one step).
pub(crate) fn row_id(operation: Uuid, part: &str, n: u64) -> String {
    format!("{operation}:{part}{n:08}")
}

/// Up to `limit` rows of `operation`'s `part` in `table`, from the `from`th on.
pub(crate) fn rows<T: serde::de::DeserializeOwned>(
    r: &store::Reader<'_>,
    table: &RecordTable,
    operation: Uuid,
    part: &str,
    from: u64,
    limit: usize,
) -> Result<Vec<T>> {
    let prefix = format!("{operation}:{part}");
    // Every row id of the list is the prefix and eight digits; the prefix alone sorts
    // before them all.
    let after = if from == 0 { prefix.clone() } else { row_id(operation, part, from - 1) };
    let mut out = Vec::new();
    for row in r.scan(table, Some(&after), limit)? {
        let Some(n) = row.id.strip_prefix(&prefix) else { break };
        if n.len() != 8 || !n.bytes().all(|b| b.is_ascii_digit()) {
            break;
        }
        out.push(decode(&row.body)?);
    }
    Ok(out)
}

/// Removes every row of `operation`'s `part` in `table` from the `from`th on.
pub(crate) fn clear_rows(
    w: &mut Writer<'_>,
    table: &RecordTable,
    operation: Uuid,
    part: &str,
    from: u64,
    count: u64,
) -> Result<()> {
    for n in from..count {
        w.delete(table, &row_id(operation, part, n))?;
    }
    Ok(())
}

pub(crate) fn put_row<T: serde::Serialize>(
    w: &mut Writer<'_>,
    table: &RecordTable,
    operation: Uuid,
    part: &str,
    n: u64,
    row: &T,
) -> Result<()> {
    w.put(table, &row_id(operation, part, n), 1, &encode(row)?, &[])?;
    Ok(())
}

pub(crate) fn encode<T: serde::Serialize>(value: &T) -> Result<String> {
    serde_json::to_string(value).map_err(|e| Error::Corrupt(e.to_string()))
}

pub(crate) fn decode<T: serde::de::DeserializeOwned>(body: &str) -> Result<T> {
    serde_json::from_str(body).map_err(|e| Error::Corrupt(e.to_string()))
}
