//! Where circulation records live: their tables, the migrations that make them, and
//! the errors of circulation.

use store::{Migration, RecordTable};

use crate::overrides::Overridable;

macro_rules! tables {
    ($($name:ident = $table:literal, $record_type:literal, [$($column:literal),*] $(, $cached:ident)?;)*) => {
        $(pub(crate) const $name: RecordTable = RecordTable {
            table: $table,
            record_type: $record_type,
            cached: tables!(@cached $($cached)?),
            columns: &[$($column),*],
        };)*
    };
    (@cached cached) => { true };
    (@cached) => { false };
}

tables! {
    LOAN_POLICIES = "loan_policies", "loan_policy", ["name"], cached;
    REQUEST_POLICIES = "request_policies", "request_policy", ["name"], cached;
    NOTICE_POLICIES = "notice_policies", "notice_policy", ["name"], cached;
    OVERDUE_FINE_POLICIES = "overdue_fine_policies", "overdue_fine_policy", ["name"], cached;
    LOST_ITEM_FEE_POLICIES = "lost_item_fee_policies", "lost_item_fee_policy", ["name"], cached;
    FIXED_DUE_DATE_SCHEDULES = "fixed_due_date_schedules", "fixed_due_date_schedule", ["name"], cached;
    CIRCULATION_RULES = "circulation_rules", "circulation_rules", [], cached;
    LOANS = "loans", "loan",
        ["user_id", "item_id", "status_name", "action", "loan_date", "due_date", "proxy_user_id"];
    REQUESTS = "requests", "request",
        ["item_id", "instance_id", "requester_id", "status", "request_type", "position", "request_date",
         "pickup_service_point_id"];
    ACCOUNTS = "accounts", "account",
        ["user_id", "item_id", "loan_id", "status_name", "fee_fine_type", "remaining_cents"];
    MANUAL_BLOCKS = "manual_blocks", "manual_block", ["user_id"];
    PATRON_BLOCK_CONDITIONS = "patron_block_conditions", "patron_block_condition", ["name"], cached;
    PATRON_BLOCK_LIMITS = "patron_block_limits", "patron_block_limit", ["patron_group_id", "condition_id"], cached;
    CHECK_INS = "check_ins", "check_in", ["item_id", "occurred_date_time"];
    STAFF_SLIPS = "staff_slips", "staff_slip", ["name"], cached;
}

/// The circulation component's schema.
pub const MIGRATIONS: store::Component = store::Component {
    name: "circulation",
    migrations: &[
        Migration {
            version: 1,
            description: "policies, circulation rules, loans, requests, accounts, patron blocks, check-ins",
            sql: include_str!("../migrations/0001_circulation.sql"),
        },
        Migration {
            version: 2,
            description: "staff slips; requests queried by pickup service point",
            sql: include_str!("../migrations/0002_staff_slips_request_pickup.sql"),
        },
    ],
};

/// One reason a circulation action is refused, as FOLIO's 422 lists them:
/// a message, the request parameters it is about, and FOLIO's error code if it has one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    pub message: String,
    pub parameters: Vec<(String, String)>,
    pub code: Option<&'static str>,
    /// Set on the refusals a check-out or renewal may override (`overrideBlocks`).
    pub overridable: Option<Overridable>,
}

impl Refusal {
    pub(crate) fn new(message: impl Into<String>, key: &str, value: impl Into<String>) -> Refusal {
        Refusal {
            message: message.into(),
            parameters: vec![(key.to_string(), value.into())],
            code: None,
            overridable: None,
        }
    }

    pub(crate) fn code(mut self, code: &'static str) -> Refusal {
        self.code = Some(code);
        self
    }

    pub(crate) fn overridable(mut self, overridable: Overridable) -> Refusal {
        self.overridable = Some(overridable);
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
    Decode(#[from] folio::DecodeError),
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

#[cfg(test)]
mod tests {
    use store::{Page, Store};

    /// A tenant written at schema version 1 opens at version 2 with its requests'
    /// pickup service points filled from their bodies.
    #[test]
    fn version_1_requests_are_carried_into_version_2() {
        let dir = tempfile::tempdir().unwrap();
        let options = store::testing::options();
        let v1 = store::Component {
            name: "circulation",
            migrations: &super::MIGRATIONS.migrations[..1],
        };
        let id = "00000000-0000-4000-8000-0000000000a1";
        let sp = "3a40852d-49fd-4df2-a1f9-6e2641a6e91f";
        {
            let store = Store::open(dir.path(), options.clone(), &[v1]).unwrap();
            let (tenant, _) = store.create_tenant("t").unwrap();
            let body = format!(
                r#"{{"id":"{id}","requestType":"Hold","requestDate":"2026-01-01T00:00:00.000+00:00","requesterId":"00000000-0000-4000-8000-0000000000b1","itemId":"00000000-0000-4000-8000-0000000000c1","status":"Open - Awaiting pickup","position":1,"fulfillmentPreference":"Hold Shelf","pickupServicePointId":"{sp}"}}"#
            );
            let v1_requests = store::RecordTable {
                table: "requests",
                record_type: "request",
                cached: false,
                columns: &[
                    "item_id",
                    "instance_id",
                    "requester_id",
                    "status",
                    "request_type",
                    "position",
                    "request_date",
                ],
            };
            use store::ColumnValue::{Int, Null, Text};
            tenant
                .write(|w| {
                    w.upsert(
                        &v1_requests,
                        id,
                        1,
                        &body,
                        &[
                            Text("00000000-0000-4000-8000-0000000000c1".into()),
                            Null,
                            Text("00000000-0000-4000-8000-0000000000b1".into()),
                            Text("Open - Awaiting pickup".into()),
                            Text("Hold".into()),
                            Int(1),
                            Text("2026-01-01T00:00:00.000+00:00".into()),
                        ],
                    )
                })
                .unwrap();
        }
        let store = Store::open(dir.path(), options.clone(), &[super::MIGRATIONS]).unwrap();
        let tenant = store.tenant("t").unwrap();
        let page = Page { offset: 0, limit: 10 };
        let cql = format!("pickupServicePointId=={sp}");
        let (bodies, total) = tenant
            .read(|r| crate::list_json::<crate::model::Request>(r, Some(&cql), page))
            .unwrap();
        assert_eq!(total, 1, "{bodies:?}");
        assert!(bodies[0].contains(id));
    }
}
