//! The typed model of every circulation record, as FOLIO's storage modules define them
//! (mod-circulation-storage, mod-feesfines, mod-patron-blocks).
//!
//! Each type names the fields Quire interprets; anything else a client sends is kept
//! in `other` and written back unchanged, so no stored field is lost. Dates are
//! [`folio::Timestamp`], so they read every spelling FOLIO clients send and write
//! FOLIO's.

mod account;
mod block;
mod loan;
mod policy;
mod request;

pub use account::{Account, AccountStatus, CheckIn};
pub use block::{ManualBlock, PatronBlockCondition, PatronBlockLimit};
pub use loan::{Loan, LoanStatus};
pub use policy::{
    FineInterval, FineRate, FixedDueDateSchedule, Interval, LoanPolicy, LoanProfile, LoansPolicy,
    LostItemFeePolicy, NoticePolicy, OverdueFinePolicy, Period, RenewalsPolicy, RequestManagement,
    RequestPolicy, ScheduleEntry, StaffSlip,
};
pub use request::{Request, RequestStatus, RequestType};

/// Fields a record keeps as sent.
pub type Other = serde_json::Map<String, serde_json::Value>;
