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

/// The commit time, RFC 3339 in UTC with milliseconds (`2024-01-31T10:11:12.123+00:00`).
/// The store keeps no FOLIO conventions, so it formats the time itself; `folio::Timestamp`
/// reads this text.
pub(crate) fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, false)
}
