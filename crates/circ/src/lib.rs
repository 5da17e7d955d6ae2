//! Circulation: FOLIO's policies, circulation rules, loans, requests, patron blocks and
//! overdue fines, and the desk's transactions: check-out, check-in and renewal by
//! barcode.
//!
//! What it owns: the circulation tables (declared as migrations), the typed model of
//! every circulation record, the storage verbs, and the transactions, each of which
//! runs inside one `store` write transaction it is handed, so a check-out's item
//! update, loan and request changes commit together or not at all. What it does not
//! own: HTTP (the `server` crate maps [`Error`] to FOLIO's responses), the rules
//! language (`circ-rules`), users and groups (`auth`), items (`inventory`).
//!
//! Invariants:
//! - An item has at most one open loan: checked in the transaction and enforced by a
//!   unique index, so concurrent check-outs of one item make exactly one loan.
//! - Every change goes through a `store::Writer`, so it lands in the change log; an
//!   item's status change reaches the search index like any other item update.
//! - A refused transaction writes nothing and lists every reason (FOLIO's 422).
//!
//! ```
//! use circ::model::Period;
//! let period: Period = serde_json::from_str(r#"{"duration": 3, "intervalId": "Weeks"}"#).unwrap();
//! let loaned = chrono::DateTime::parse_from_rfc3339("2026-03-02T10:00:00Z").unwrap().to_utc();
//! assert_eq!(period.after(loaned).to_rfc3339(), "2026-03-23T10:00:00+00:00");
//! ```

pub mod model;

mod blocks;
mod check_in;
mod check_out;
mod defaults;
mod due_date;
mod fines;
mod item_context;
mod item_limit;
mod loan_actions;
mod opening_hours;
mod overrides;
mod queue;
mod records;
mod renew;
mod requests;
mod rules;
mod staff_slip;
mod storage;
mod views;

#[cfg(test)]
mod fixtures;

pub use blocks::{AutomatedBlock, automated_blocks, condition};
pub use check_in::{CheckInOutcome, CheckInRequest, CheckInView, check_in};
pub use check_out::{CheckOutRequest, CheckedOut, check_out};
pub use defaults::{
    DEFAULT_LOAN_POLICY_ID, DEFAULT_LOST_ITEM_FEE_POLICY_ID, DEFAULT_NOTICE_POLICY_ID,
    DEFAULT_OVERDUE_FINE_POLICY_ID, DEFAULT_REQUEST_POLICY_ID, seed,
};
pub use fines::{OVERDUE_FINE_TYPE_ID, overdue_fine};
pub use item_context::{ItemSummary, Name};
pub use loan_actions::{
    ChangeDueDateRequest, ClaimReturnedRequest, DeclareLostRequest, MissingRequest,
    change_due_date, claim_item_returned, declare_claimed_returned_item_as_missing,
    declare_item_lost,
};
pub use overrides::{BlockOverrides, NotLoanableOverride, Overridable, OverridableBlock};
pub use records::{Record, create, decode, delete, get, get_json, list_json, replace};
pub use renew::{RenewRequest, renew};
pub use requests::{create_request, replace_request};
pub use rules::{
    PolicyMatch, RuleInputs, RulesCache, RulesDocument, get_rules, lookup, lookup_all, put_rules,
};
pub use staff_slip::{SlipItem, SlipRequest, SlipRequester, StaffSlipContext};
pub use storage::{Error, MIGRATIONS, Refusal, Result};
pub use views::{
    Borrower, FeesAndFines, LoanView, PatronGroupRef, PolicyName, RequestView, RequestedItem,
    Requester, ServicePointSummary, list_loan_views, list_request_views, loan_view, request_view,
};

/// Re-exported so callers name policy kinds without depending on `circ-rules`.
pub use circ_rules::PolicyKind;
