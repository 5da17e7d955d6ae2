//! Storage verbs shared by every circulation record type: create, replace, delete, get
//! and list with the storage CQL subset, with ids and metadata assigned as FOLIO's
//! storage modules do.

use folio::{Actor, Metadata, stamp};
use serde::Serialize;
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

/// A circulation record type. Sealed: the types are this crate's models.
pub trait Record: Serialize + DeserializeOwned + Clone + sealed::Sealed {
    const TABLE: RecordTable;
    /// For messages: "loan policy".
    const NAME: &'static str;
    /// The CQL indexes its list endpoint answers.
    const QUERY: &'static [QueryField];
    /// FOLIO's storage PUT creates a missing record for some types (loans, requests).
    const PUT_CREATES: bool = false;
    fn id(&self) -> Option<Uuid>;
    fn set_id(&mut self, id: Uuid);
    fn metadata(&self) -> Option<&Metadata>;
    fn set_metadata(&mut self, metadata: Metadata);
    fn columns(&self) -> Vec<ColumnValue>;
}

mod sealed {
    pub trait Sealed {}
}

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
    ($type:ty, $table:expr, $name:literal, $query:expr, |$r:ident| $columns:expr $(, put_creates = $pc:literal)?) => {
        impl sealed::Sealed for $type {}
        impl Record for $type {
            const TABLE: RecordTable = $table;
            const NAME: &'static str = $name;
            const QUERY: &'static [QueryField] = $query;
            $(const PUT_CREATES: bool = $pc;)?
            fn id(&self) -> Option<Uuid> {
                self.id
            }
            fn set_id(&mut self, id: Uuid) {
                self.id = Some(id);
            }
            fn metadata(&self) -> Option<&Metadata> {
                self.metadata.as_ref()
            }
            fn set_metadata(&mut self, metadata: Metadata) {
                self.metadata = Some(metadata);
            }
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
    put_creates = true
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
    put_creates = true
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
    Ok(folio::decode(body)?)
}

/// Stores a new record; assigns an id when it has none.
pub fn create<R: Record>(writer: &mut Writer<'_>, mut record: R, actor: Actor) -> Result<R> {
    let id = match record.id() {
        Some(id) => id,
        None => {
            let id = Uuid::new_v4();
            record.set_id(id);
            id
        }
    };
    record.set_metadata(stamp(None, actor));
    let body = to_json(&record)?;
    writer
        .insert(&R::TABLE, &id.to_string(), 1, &body, &record.columns())
        .map_err(|e| unique_error::<R>(e, &id))?;
    Ok(record)
}

/// Replaces a stored record (FOLIO's PUT). The body's id, if any, must be the path's.
pub fn replace<R: Record>(
    writer: &mut Writer<'_>,
    id: Uuid,
    mut record: R,
    actor: Actor,
) -> Result<R> {
    match record.id() {
        Some(body_id) if body_id != id => {
            return Err(Error::invalid(
                "id",
                body_id,
                format!("The id in the body ({body_id}) does not match the id in the path ({id})"),
            ));
        }
        _ => record.set_id(id),
    }
    let previous = get::<R>(writer, id)?;
    match previous {
        None if R::PUT_CREATES => create(writer, record, actor),
        None => Err(Error::NotFound { record_type: R::NAME, id: id.to_string() }),
        Some(previous) => {
            record.set_metadata(stamp(previous.metadata(), actor));
            save(writer, &record)?;
            Ok(record)
        }
    }
}

/// Writes an existing record back (the verbs' own updates, metadata already set).
pub(crate) fn save<R: Record>(writer: &mut Writer<'_>, record: &R) -> Result<()> {
    let id = record.id().expect("a stored record has an id");
    let id_text = id.to_string();
    let body = to_json(record)?;
    let columns = record.columns();
    // Only the version and columns are read back: the body is replaced whole, and the
    // columns that did not change keep their index entries.
    let written = match writer.version_and_columns(&R::TABLE, &id_text)? {
        Some((version, previous)) => writer
            .update_changed(&R::TABLE, (&id_text, version + 1, &body), &columns, &previous)
            .map(|_| ()),
        None => writer.insert(&R::TABLE, &id_text, 1, &body, &columns),
    };
    written.map_err(|e| unique_error::<R>(e, &id))?;
    Ok(())
}

/// Updates a record the verbs changed, stamping its metadata.
pub(crate) fn update<R: Record>(
    writer: &mut Writer<'_>,
    record: &mut R,
    actor: Actor,
) -> Result<()> {
    let metadata = stamp(record.metadata(), actor);
    record.set_metadata(metadata);
    save(writer, record)
}

/// Deletes a record.
pub fn delete<R: Record>(writer: &mut Writer<'_>, id: Uuid) -> Result<()> {
    if writer.delete(&R::TABLE, &id.to_string())? {
        Ok(())
    } else {
        Err(Error::NotFound { record_type: R::NAME, id: id.to_string() })
    }
}

/// The record with this id, typed.
pub fn get<R: Record>(reader: &Reader<'_>, id: Uuid) -> Result<Option<R>> {
    reader.get(&R::TABLE, &id.to_string())?.map(|s| parse(&s.body, &s.id)).transpose()
}

/// The stored JSON of a record; `NotFound` when there is none.
pub fn get_json<R: Record>(reader: &Reader<'_>, id: Uuid) -> Result<String> {
    match reader.get(&R::TABLE, &id.to_string())? {
        Some(stored) => Ok(stored.body),
        None => Err(Error::NotFound { record_type: R::NAME, id: id.to_string() }),
    }
}

/// One page of records matching a CQL query, as stored JSON, and the exact total.
pub fn list_json<R: Record>(
    reader: &Reader<'_>,
    cql: Option<&str>,
    page: Page,
) -> Result<(Vec<String>, u64)> {
    let (records, total) = reader.list(&R::TABLE, R::QUERY, cql, page)?;
    Ok((records.into_iter().map(|r| r.body).collect(), total))
}

/// Every record whose columns equal all of `conditions`, typed.
pub(crate) fn find<R: Record>(reader: &Reader<'_>, conditions: &[(&str, &str)]) -> Result<Vec<R>> {
    find_const(reader, conditions, &[])
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

pub(crate) fn parse<R: DeserializeOwned>(body: &str, id: &str) -> Result<R> {
    serde_json::from_str(body).map_err(|e| Error::Corrupt(format!("record {id}: {e}")))
}

fn to_json(record: &impl Serialize) -> Result<String> {
    serde_json::to_string(record).map_err(|e| Error::Corrupt(e.to_string()))
}

fn unique_error<R: Record>(e: store::Error, id: &Uuid) -> Error {
    match e {
        store::Error::DuplicateId { .. } => {
            Error::invalid("id", id, format!("{} with id {id} already exists", R::NAME))
        }
        store::Error::Unique { column, .. } if column == "name" => {
            Error::invalid("name", "", format!("A {} with this name already exists", R::NAME))
        }
        store::Error::Unique { column, .. } if column == "item_id" => {
            Error::invalid("itemId", "", "Cannot have more than one open loan for the same item")
        }
        other => other.into(),
    }
}
