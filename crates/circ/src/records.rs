//! Storage verbs shared by every circulation record type: create, replace, delete, get
//! and list with the storage CQL subset, with ids and metadata assigned as FOLIO's
//! storage modules do.

use folio::Actor;
use serde::de::DeserializeOwned;
use store::{ColumnValue, FieldKind, Page, QueryField, Reader, RecordTable, Writer};
use uuid::Uuid;

use crate::model::{
    Account, CheckIn, FixedDueDateSchedule, Loan, LoanPolicy, LostItemFeePolicy, ManualBlock,
    NoticePolicy, OverdueFinePolicy, PatronBlockCondition, PatronBlockLimit, Request,
    RequestPolicy, StaffSlip,
};
use crate::storage::*;
use crate::{Error, Result};

/// The circulation record types: this crate's models, each a [`folio::Record`].
pub use folio::Record;

const TEXT: FieldKind = FieldKind::Text;

macro_rules! field {
    ($index:literal, $column:literal) => {
        QueryField { index: $index, column: $column, kind: TEXT }
    };
    ($index:literal, $column:literal, $kind:expr) => {
        QueryField { index: $index, column: $column, kind: $kind }
    };
}

const NAMED: &[QueryField] = &[field!("id", "id"), field!("name", "name")];

macro_rules! record {
    (
        $type:ty, $table:expr, $name:literal, $query:expr, |$r:ident| $columns:expr
        $(, put_creates = $pc:literal)? $(, read_only = $ro:expr)?
    ) => {
        impl Record for $type {
            const TABLE: RecordTable = $table;
            const NAME: &'static str = $name;
            const QUERY: &'static [QueryField] = $query;
            $(const PUT_CREATES: bool = $pc;)?
            $(const READ_ONLY: &'static [&'static str] = $ro;)?
            folio::id_and_metadata!();
            fn columns(&self) -> Vec<ColumnValue> {
                let $r = self;
                $columns
            }
        }
    };
}

fn text(value: impl ToString) -> ColumnValue {
    ColumnValue::Text(value.to_string())
}

fn opt(value: Option<impl ToString>) -> ColumnValue {
    value.map_or(ColumnValue::Null, text)
}

record!(LoanPolicy, LOAN_POLICIES, "loan policy", NAMED, |r| vec![text(&r.name)]);
record!(RequestPolicy, REQUEST_POLICIES, "request policy", NAMED, |r| vec![text(&r.name)]);
record!(NoticePolicy, NOTICE_POLICIES, "patron notice policy", NAMED, |r| vec![text(&r.name)]);
record!(StaffSlip, STAFF_SLIPS, "staff slip", NAMED, |r| vec![text(&r.name)]);
record!(OverdueFinePolicy, OVERDUE_FINE_POLICIES, "overdue fine policy", NAMED, |r| vec![text(
    &r.name
)]);
record!(LostItemFeePolicy, LOST_ITEM_FEE_POLICIES, "lost item fee policy", NAMED, |r| vec![text(
    &r.name
)]);
record!(FixedDueDateSchedule, FIXED_DUE_DATE_SCHEDULES, "fixed due date schedule", NAMED, |r| {
    vec![text(&r.name)]
});
record!(
    Loan,
    LOANS,
    "loan",
    &[
        field!("id", "id"),
        field!("userId", "user_id"),
        field!("itemId", "item_id"),
        field!("status.name", "status_name"),
        field!("action", "action"),
        field!("loanDate", "loan_date"),
        field!("dueDate", "due_date"),
        field!("proxyUserId", "proxy_user_id"),
    ],
    |r| vec![
        opt(r.user_id),
        text(r.item_id),
        text(r.status().as_str()),
        opt(r.action.as_ref()),
        text(r.loan_date),
        opt(r.due_date),
        opt(r.proxy_user_id),
    ],
    put_creates = true,
    read_only = &crate::views::LoanView::EMBEDDED
);
record!(
    Request,
    REQUESTS,
    "request",
    &[
        field!("id", "id"),
        field!("itemId", "item_id"),
        field!("instanceId", "instance_id"),
        field!("requesterId", "requester_id"),
        field!("status", "status", FieldKind::Exact),
        field!("requestType", "request_type", FieldKind::Exact),
        field!("position", "position", FieldKind::Int),
        field!("requestDate", "request_date"),
        field!("pickupServicePointId", "pickup_service_point_id"),
    ],
    |r| vec![
        opt(r.item_id),
        opt(r.instance_id),
        text(r.requester_id),
        text(r.status().as_str()),
        text(r.request_type.as_str()),
        r.position.map_or(ColumnValue::Null, |p| ColumnValue::Int(i64::from(p))),
        text(r.request_date),
        opt(r.pickup_service_point_id),
    ],
    put_creates = true,
    read_only = &crate::views::RequestView::EMBEDDED
);
record!(
    Account,
    ACCOUNTS,
    "account",
    &[
        field!("id", "id"),
        field!("userId", "user_id"),
        field!("itemId", "item_id"),
        field!("loanId", "loan_id"),
        field!("status.name", "status_name"),
        field!("feeFineType", "fee_fine_type"),
    ],
    |r| vec![
        text(r.user_id),
        opt(r.item_id),
        opt(r.loan_id),
        text(&r.status.name),
        opt(r.fee_fine_type.as_ref()),
        ColumnValue::Int((r.remaining * 100.0).round() as i64),
    ]
);
record!(
    ManualBlock,
    MANUAL_BLOCKS,
    "manual block",
    &[field!("id", "id"), field!("userId", "user_id")],
    |r| vec![text(r.user_id)]
);
record!(PatronBlockCondition, PATRON_BLOCK_CONDITIONS, "patron block condition", NAMED, |r| {
    vec![text(&r.name)]
});
record!(
    PatronBlockLimit,
    PATRON_BLOCK_LIMITS,
    "patron block limit",
    &[
        field!("id", "id"),
        field!("patronGroupId", "patron_group_id"),
        field!("conditionId", "condition_id"),
    ],
    |r| vec![text(r.patron_group_id), text(r.condition_id)]
);
record!(
    CheckIn,
    CHECK_INS,
    "check-in",
    &[
        field!("id", "id"),
        field!("itemId", "item_id"),
        field!("occurredDateTime", "occurred_date_time")
    ],
    |r| vec![text(r.item_id), text(r.occurred_date_time)]
);

/// Decodes a request body into a record type, with FOLIO's 400/422 distinctions.
pub fn decode<R: Record>(body: &[u8]) -> Result<R> {
    Ok(folio::record::decode(body)?)
}

/// Stores a new record; assigns an id when it has none.
pub fn create<R: Record>(writer: &mut Writer<'_>, record: R, actor: Actor) -> Result<R> {
    folio::record::create(writer, record, actor).map_err(error::<R>)
}

/// Replaces a stored record (FOLIO's PUT). The body's id, if any, must be the path's.
pub fn replace<R: Record>(writer: &mut Writer<'_>, id: Uuid, record: R, actor: Actor) -> Result<R> {
    folio::record::replace(writer, id, record, actor).map_err(error::<R>)
}

/// Updates a record the verbs changed, stamping its metadata.
pub(crate) fn update<R: Record>(
    writer: &mut Writer<'_>,
    record: &mut R,
    actor: Actor,
) -> Result<()> {
    folio::record::update(writer, record, actor).map_err(error::<R>)
}

/// Changes a record this transaction read and writes it back, stamping its metadata,
/// without reading it again ([`folio::record::update_read`]).
pub(crate) fn update_read<R: Record + Clone>(
    writer: &mut Writer<'_>,
    record: &mut R,
    actor: Actor,
    change: impl FnOnce(&mut R),
) -> Result<()> {
    folio::record::update_read(writer, record, actor, change).map_err(error::<R>)
}

/// Deletes a record.
pub fn delete<R: Record>(writer: &mut Writer<'_>, id: Uuid) -> Result<()> {
    folio::record::delete::<R>(writer, id).map_err(error::<R>)
}

/// The record with this id, typed.
pub fn get<R: Record>(reader: &Reader<'_>, id: Uuid) -> Result<Option<folio::Stored<R>>> {
    folio::record::get(reader, id).map_err(error::<R>)
}

/// The stored JSON of a record; `NotFound` when there is none.
pub fn get_json<R: Record>(reader: &Reader<'_>, id: Uuid) -> Result<String> {
    folio::record::get_json::<R>(reader, id).map_err(error::<R>)
}

/// One page of records matching a CQL query, as stored JSON, and the exact total.
pub fn list_json<R: Record>(
    reader: &Reader<'_>,
    cql: Option<&str>,
    page: Page,
) -> Result<(Vec<String>, u64)> {
    folio::record::list_json::<R>(reader, cql, page).map_err(error::<R>)
}

/// Every record whose columns equal all of `conditions`, typed.
pub(crate) fn find<R: Record>(reader: &Reader<'_>, conditions: &[(&str, &str)]) -> Result<Vec<R>> {
    find_const(reader, conditions, &[])
}

/// The records `read` names ([`store::Reader::records`]): a lookup that may have been
/// read ahead ([`store::Reader::prefetch`]).
pub(crate) fn read<R: Record>(reader: &Reader<'_>, read: &store::Read<'_>) -> Result<Vec<R>> {
    let stored = reader.records(read)?;
    stored.iter().map(|s| parse(&s.body, &s.id)).collect()
}

/// As [`find`], with `constants` (such as a loan status) fixed in the query: see
/// [`store::Reader::find_where_const`].
pub(crate) fn find_const<R: Record>(
    reader: &Reader<'_>,
    conditions: &[(&str, &str)],
    constants: &[(&str, &'static str)],
) -> Result<Vec<R>> {
    let stored = reader.find_where_const(&R::TABLE, conditions, constants)?;
    stored.iter().map(|s| parse(&s.body, &s.id)).collect()
}

/// Reads a stored body back as its type (a record's, or the rules document's).
pub(crate) fn parse<R: DeserializeOwned>(body: &str, id: &str) -> Result<R> {
    serde_json::from_str(body).map_err(|e| Error::Corrupt(format!("record {id}: {e}")))
}

/// A verb's failure in mod-circulation-storage's words: a taken id, name or open loan
/// is a 422 naming the field.
fn error<R: Record>(e: folio::record::Error) -> Error {
    match e {
        folio::record::Error::NotFound { record, id } => {
            Error::NotFound { record_type: record, id: id.to_string() }
        }
        folio::record::Error::IdMismatch { body, path } => Error::invalid(
            "id",
            body,
            format!("The id in the body ({body}) does not match the id in the path ({path})"),
        ),
        folio::record::Error::Store(store::Error::DuplicateId { id, .. }) => {
            Error::invalid("id", &id, format!("{} with id {id} already exists", R::NAME))
        }
        folio::record::Error::Store(store::Error::Unique { column, .. }) if column == "name" => {
            Error::invalid("name", "", format!("A {} with this name already exists", R::NAME))
        }
        folio::record::Error::Store(store::Error::Unique { column, .. }) if column == "item_id" => {
            Error::invalid("itemId", "", "Cannot have more than one open loan for the same item")
        }
        folio::record::Error::Store(e) => e.into(),
        // Circulation's records carry no `_version`, so a conflict means a fault.
        e @ (folio::record::Error::Corrupt { .. }
        | folio::record::Error::VersionConflict { .. }) => Error::Corrupt(e.to_string()),
    }
}
