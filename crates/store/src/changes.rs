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

/// The current time in FOLIO's timestamp format (`2024-01-31T10:11:12.123+00:00`).
pub(crate) fn now() -> String {
    folio::Timestamp::now().to_string()
}
