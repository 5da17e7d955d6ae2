//! Where circulation records live: their tables, the migrations that make them, and
//! the errors of circulation.

use store::{Migration, RecordTable};

macro_rules! tables {
    ($($name:ident = $table:literal, $record_type:literal, [$($column:literal),*];)*) => {
        $(pub(crate) const $name: RecordTable = RecordTable {
            table: $table,
            record_type: $record_type,
            columns: &[$($column),*],
        };)*
    };
}

tables! {
    LOAN_POLICIES = "loan_policies", "loan_policy", ["name"];
    REQUEST_POLICIES = "request_policies", "request_policy", ["name"];
    NOTICE_POLICIES = "notice_policies", "notice_policy", ["name"];
    OVERDUE_FINE_POLICIES = "overdue_fine_policies", "overdue_fine_policy", ["name"];
    LOST_ITEM_FEE_POLICIES = "lost_item_fee_policies", "lost_item_fee_policy", ["name"];
    FIXED_DUE_DATE_SCHEDULES = "fixed_due_date_schedules", "fixed_due_date_schedule", ["name"];
    CIRCULATION_RULES = "circulation_rules", "circulation_rules", [];
    LOANS = "loans", "loan",
        ["user_id", "item_id", "status_name", "action", "loan_date", "due_date", "proxy_user_id"];
    REQUESTS = "requests", "request",
        ["item_id", "instance_id", "requester_id", "status", "request_type", "position", "request_date"];
    ACCOUNTS = "accounts", "account",
        ["user_id", "item_id", "loan_id", "status_name", "fee_fine_type", "remaining_cents"];
    MANUAL_BLOCKS = "manual_blocks", "manual_block", ["user_id"];
    PATRON_BLOCK_CONDITIONS = "patron_block_conditions", "patron_block_condition", ["name"];
    PATRON_BLOCK_LIMITS = "patron_block_limits", "patron_block_limit", ["patron_group_id", "condition_id"];
    CHECK_INS = "check_ins", "check_in", ["item_id", "occurred_date_time"];
}

/// The circulation component's schema.
pub const MIGRATIONS: store::Component = store::Component {
    name: "circulation",
    migrations: &[Migration {
        version: 1,
        description: "policies, circulation rules, loans, requests, accounts, patron blocks, check-ins",
        sql: include_str!("../migrations/0001_circulation.sql"),
    }],
};

/// One reason a circulation action is refused, as FOLIO's 422 lists them:
/// a message, the request parameters it is about, and FOLIO's error code if it has one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    pub message: String,
    pub parameters: Vec<(String, String)>,
    pub code: Option<&'static str>,
}

impl Refusal {
    pub(crate) fn new(message: impl Into<String>, key: &str, value: impl Into<String>) -> Refusal {
        Refusal {
            message: message.into(),
            parameters: vec![(key.to_string(), value.into())],
            code: None,
        }
    }

    pub(crate) fn code(mut self, code: &'static str) -> Refusal {
        self.code = Some(code);
        self
    }

    pub(crate) fn with(mut self, key: &str, value: impl Into<String>) -> Refusal {
        self.parameters.push((key.to_string(), value.into()));
        self
    }
}

/// A circulation error.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{record_type} not found: {id}")]
    NotFound { record_type: &'static str, id: String },
    /// A record breaks a rule about its content (a missing reference, a taken name).
    #[error("{message}")]
    Invalid { field: String, value: String, message: String },
    /// A check-out, check-in, renewal or request was refused; FOLIO lists every reason.
    #[error("{}", .0.iter().map(|r| r.message.as_str()).collect::<Vec<_>>().join("; "))]
    Refused(Vec<Refusal>),
    /// The circulation rules text does not compile, or names a policy that does not exist.
    #[error("{message}")]
    Rules { message: String, line: usize, column: usize },
    /// The record cannot be deleted while others refer to it.
    #[error("Cannot delete {record_type} {id}: {message}")]
    InUse { record_type: &'static str, id: String, message: String },
    #[error(transparent)]
    Decode(#[from] inventory::DecodeError),
    #[error(transparent)]
    Inventory(#[from] inventory::Error),
    #[error(transparent)]
    Auth(#[from] auth::Error),
    #[error(transparent)]
    Store(#[from] store::Error),
    /// A stored record does not parse.
    #[error("corrupt circulation data: {0}")]
    Corrupt(String),
}

impl Error {
    pub(crate) fn invalid(field: &str, value: impl ToString, message: impl Into<String>) -> Error {
        Error::Invalid {
            field: field.to_string(),
            value: value.to_string(),
            message: message.into(),
        }
    }

    pub(crate) fn refused(refusal: Refusal) -> Error {
        Error::Refused(vec![refusal])
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
