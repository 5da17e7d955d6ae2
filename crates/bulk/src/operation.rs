//! An operation as FOLIO reports it (`bulkOperationDto`), what the runner needs to go
//! on with it after a restart, and its errors.

use serde::{Deserialize, Serialize};
use store::{ColumnValue, Page, QueryField, Reader, Writer};
use uuid::Uuid;

use crate::rules::RuleCollection;
use crate::storage::{self, ERRORS, OPERATIONS};
use crate::{Error, Result};

macro_rules! wire_enum {
    ($(#[$meta:meta])* $name:ident { $($variant:ident = $wire:literal,)* }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
        pub enum $name {
            $(#[serde(rename = $wire)] $variant,)*
        }

        impl $name {
            pub fn as_str(self) -> &'static str {
                match self { $(Self::$variant => $wire,)* }
            }

            pub fn parse(s: &str) -> Option<Self> {
                match s { $($wire => Some(Self::$variant),)* _ => None }
            }
        }
    };
}

wire_enum!(
    /// The kind of record an operation changes.
    EntityType {
        User = "USER",
        Item = "ITEM",
        Holdings = "HOLDINGS_RECORD",
        Instance = "INSTANCE",
    }
);

wire_enum!(
    /// What the lines of an uploaded file identify records by.
    IdentifierType {
        Id = "ID",
        Barcode = "BARCODE",
        Hrid = "HRID",
        FormerIds = "FORMER_IDS",
        AccessionNumber = "ACCESSION_NUMBER",
        HoldingsRecordId = "HOLDINGS_RECORD_ID",
        UserName = "USER_NAME",
        ExternalSystemId = "EXTERNAL_SYSTEM_ID",
        InstanceHrid = "INSTANCE_HRID",
        ItemBarcode = "ITEM_BARCODE",
        Isbn = "ISBN",
        Issn = "ISSN",
    }
);

wire_enum!(
    /// FOLIO's operation statuses (`operation_status_type.json`); Quire passes through
    /// those of the in-app flow.
    Status {
        New = "NEW",
        RetrievingRecords = "RETRIEVING_RECORDS",
        SavingRecordsLocally = "SAVING_RECORDS_LOCALLY",
        DataModification = "DATA_MODIFICATION",
        DataModificationInProgress = "DATA_MODIFICATION_IN_PROGRESS",
        ReviewChanges = "REVIEW_CHANGES",
        ApplyChanges = "APPLY_CHANGES",
        Completed = "COMPLETED",
        CompletedWithErrors = "COMPLETED_WITH_ERRORS",
        Cancelled = "CANCELLED",
        Failed = "FAILED",
        ExecutingQuery = "EXECUTING_QUERY",
    }
);

wire_enum!(
    /// How the operation's records and changes were given.
    Approach {
        InApp = "IN_APP",
        Manual = "MANUAL",
        Query = "QUERY",
    }
);

wire_enum!(
    /// A step of the flow, as `start` names it.
    Step {
        Upload = "UPLOAD",
        Edit = "EDIT",
        Commit = "COMMIT",
        Delete = "DELETE",
    }
);

wire_enum!(
    ErrorType {
        Error = "ERROR",
        Warning = "WARNING",
    }
);

impl Status {
    /// The runner has work to do in this status.
    pub fn is_running(self) -> bool {
        matches!(
            self,
            Self::RetrievingRecords | Self::DataModificationInProgress | Self::ApplyChanges
        )
    }

    pub fn is_final(self) -> bool {
        matches!(self, Self::Completed | Self::CompletedWithErrors | Self::Cancelled | Self::Failed)
    }
}

/// FOLIO's `bulkOperationDto`; Quire adds the CQL query an operation was made from and
/// the operation a rollback undoes.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Operation {
    pub id: Uuid,
    pub hr_id: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_id: Option<Uuid>,
    pub operation_type: String,
    pub entity_type: EntityType,
    pub entity_custom_identifier_type: IdentifierType,
    pub status: Status,
    pub approach: Approach,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link_to_triggering_csv_file: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link_to_matched_records_csv_file: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link_to_matched_records_errors_csv_file: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link_to_modified_records_csv_file: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link_to_committed_records_csv_file: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link_to_committed_records_errors_csv_file: Option<String>,
    pub total_num_of_records: u64,
    pub processed_num_of_records: u64,
    pub matched_num_of_records: u64,
    pub committed_num_of_records: u64,
    pub matched_num_of_errors: u64,
    pub matched_num_of_warnings: u64,
    pub committed_num_of_errors: u64,
    pub committed_num_of_warnings: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_time: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_time: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_message: Option<String>,
    pub expired: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fql_query: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_friendly_query: Option<String>,
    /// The storage CQL the records were selected by (an operation made from a query).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cql_query: Option<String>,
    /// The operation this one undoes (a rollback).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rollback_of: Option<Uuid>,
    /// The rollback that undid this operation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rolled_back_by: Option<Uuid>,
}

/// An operation as stored: what FOLIO reports and what the runner needs besides.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Stored {
    pub(crate) operation: Operation,
    /// The uploaded file's name.
    #[serde(default)]
    pub(crate) file_name: Option<String>,
    /// The identifiers an upload brought (lines of its file).
    #[serde(default)]
    pub(crate) identifiers: u64,
    /// The records matched: rows of `bulk_records`.
    #[serde(default)]
    pub(crate) records: u64,
    /// Where the running step goes on: the next identifier line (UPLOAD) or record (EDIT,
    /// COMMIT).
    #[serde(default)]
    pub(crate) cursor: u64,
    /// Errors (and warnings) written by the matching and by the commit.
    #[serde(default)]
    pub(crate) match_errors: u64,
    #[serde(default)]
    pub(crate) commit_errors: u64,
    /// Records the rules cannot apply to, found by the last EDIT.
    #[serde(default)]
    pub(crate) edit_errors: u64,
    /// The rules of the last content update.
    #[serde(default)]
    pub(crate) rules: Option<RuleCollection>,
    /// A cancel was asked for; the runner stops at its next chunk.
    #[serde(default)]
    pub(crate) cancel_requested: bool,
}

impl Stored {
    fn columns(&self) -> Vec<ColumnValue> {
        let op = &self.operation;
        vec![
            ColumnValue::Int(op.hr_id),
            ColumnValue::Text(op.status.as_str().into()),
            ColumnValue::Text(op.entity_type.as_str().into()),
            ColumnValue::Text(op.approach.as_str().into()),
            ColumnValue::Text(op.operation_type.clone()),
            ColumnValue::from(op.user_id.map(|u| u.to_string())),
            ColumnValue::from(op.start_time.clone()),
            ColumnValue::from(op.end_time.clone()),
        ]
    }
}

pub(crate) fn load(r: &Reader<'_>, id: Uuid) -> Result<Stored> {
    let row = r.get(&OPERATIONS, &id.to_string())?.ok_or(Error::NotFound(id))?;
    storage::decode(&row.body)
}

pub(crate) fn insert(w: &mut Writer<'_>, stored: &Stored) -> Result<()> {
    let id = stored.operation.id.to_string();
    w.insert(&OPERATIONS, &id, 1, &storage::encode(stored)?, &stored.columns())?;
    Ok(())
}

pub(crate) fn save(w: &mut Writer<'_>, stored: &Stored) -> Result<()> {
    let id = stored.operation.id.to_string();
    let version = w.get(&OPERATIONS, &id)?.map_or(0, |row| row.version);
    w.update(&OPERATIONS, &id, version + 1, &storage::encode(stored)?, &stored.columns())?;
    Ok(())
}

pub(crate) fn next_hrid(w: &mut Writer<'_>) -> Result<i64> {
    Ok(w.next_sequence("bulk_operation_hrid", 1)?)
}

pub fn get_operation(r: &Reader<'_>, id: Uuid) -> Result<Operation> {
    Ok(load(r, id)?.operation)
}

/// The fields `GET /bulk-operations?query=` may name.
const QUERY: &[QueryField] = &[
    QueryField { index: "id", column: "id", kind: store::FieldKind::Exact },
    QueryField { index: "hrId", column: "hrid", kind: store::FieldKind::Int },
    QueryField { index: "status", column: "status", kind: store::FieldKind::Exact },
    QueryField { index: "entityType", column: "entity_type", kind: store::FieldKind::Exact },
    QueryField { index: "approach", column: "approach", kind: store::FieldKind::Exact },
    QueryField { index: "operationType", column: "operation_type", kind: store::FieldKind::Exact },
    QueryField { index: "userId", column: "user_id", kind: store::FieldKind::Exact },
    QueryField { index: "startTime", column: "start_time", kind: store::FieldKind::Exact },
    QueryField { index: "endTime", column: "end_time", kind: store::FieldKind::Exact },
];

/// Operations matching `cql` (all when `None`), with the exact total.
pub fn list_operations(
    r: &Reader<'_>,
    cql: Option<&str>,
    page: Page,
) -> Result<(Vec<Operation>, u64)> {
    let (rows, total) = r.list(&OPERATIONS, QUERY, cql, page)?;
    let operations = rows
        .iter()
        .map(|row| storage::decode::<Stored>(&row.body).map(|s| s.operation))
        .collect::<Result<_>>()?;
    Ok((operations, total))
}

/// Operations the runner was working on: to take back at start-up.
pub fn unfinished_operations(r: &Reader<'_>) -> Result<Vec<Uuid>> {
    let mut ids = Vec::new();
    for status in
        [Status::RetrievingRecords, Status::DataModificationInProgress, Status::ApplyChanges]
    {
        for row in r.find_by(&OPERATIONS, "status", status.as_str())? {
            ids.push(Uuid::parse_str(&row.id).map_err(|e| Error::Corrupt(e.to_string()))?);
        }
    }
    Ok(ids)
}

/// One error (or warning) of a step: the record's identifier and what happened.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OperationError {
    pub identifier: String,
    pub message: String,
    #[serde(rename = "type")]
    pub error_type: ErrorType,
}

/// The part of `bulk_errors` that holds each step's errors.
pub(crate) fn error_part(step: Step) -> &'static str {
    match step {
        Step::Commit => "c",
        Step::Edit => "e",
        _ => "m",
    }
}

/// A record an operation matched: what identified it, the record as matched (its
/// `_version` the one a commit writes at), what the rules make of it and what the
/// commit wrote.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RecordRow {
    pub(crate) identifier: String,
    pub(crate) matched: serde_json::Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) proposed: Option<serde_json::Value>,
    /// Why the rules cannot apply to this record.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) refused: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) committed: Option<serde_json::Value>,
}

pub(crate) fn push_error(
    w: &mut Writer<'_>,
    stored: &mut Stored,
    step: Step,
    error: OperationError,
) -> Result<()> {
    let id = stored.operation.id;
    let op = &mut stored.operation;
    let warning = error.error_type == ErrorType::Warning;
    let n = match step {
        Step::Commit => {
            if warning {
                op.committed_num_of_warnings += 1
            } else {
                op.committed_num_of_errors += 1
            }
            stored.commit_errors += 1;
            stored.commit_errors - 1
        }
        Step::Edit => {
            stored.edit_errors += 1;
            stored.edit_errors - 1
        }
        _ => {
            if warning {
                op.matched_num_of_warnings += 1
            } else {
                op.matched_num_of_errors += 1
            }
            stored.match_errors += 1;
            stored.match_errors - 1
        }
    };
    storage::put_row(w, &ERRORS, id, error_part(step), n, &error)
}

/// The errors of an operation's latest step, optionally of one type: a page and the
/// total. Before a commit these are the matching's and the edit's; after, the commit's.
pub fn errors(
    r: &Reader<'_>,
    id: Uuid,
    error_type: Option<ErrorType>,
    page: Page,
) -> Result<(Vec<OperationError>, u64)> {
    let stored = load(r, id)?;
    let all = current_errors(r, &stored)?;
    let all: Vec<_> =
        all.into_iter().filter(|e| error_type.is_none_or(|t| e.error_type == t)).collect();
    let total = all.len() as u64;
    let page =
        all.into_iter().skip(page.offset as usize).take(page.limit as usize).collect::<Vec<_>>();
    Ok((page, total))
}

/// The errors `errors` pages through, all of them.
pub(crate) fn current_errors(r: &Reader<'_>, stored: &Stored) -> Result<Vec<OperationError>> {
    let status = stored.operation.status;
    if status == Status::ApplyChanges || (status.is_final() && stored.commit_errors > 0) {
        return step_errors(r, stored, Step::Commit);
    }
    let mut all = step_errors(r, stored, Step::Upload)?;
    all.extend(step_errors(r, stored, Step::Edit)?);
    Ok(all)
}

/// Every error of a step, in order.
pub(crate) fn step_errors(
    r: &Reader<'_>,
    stored: &Stored,
    step: Step,
) -> Result<Vec<OperationError>> {
    let count = match step {
        Step::Commit => stored.commit_errors,
        Step::Edit => stored.edit_errors,
        _ => stored.match_errors,
    };
    storage::rows(r, &ERRORS, stored.operation.id, error_part(step), 0, count as usize)
}
