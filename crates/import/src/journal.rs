//! The job log: one entry per record (FOLIO's `recordProcessingLogDto`), what became of
//! it: the SRS record and the inventory records made or changed, with their ids and
//! HRIDs, or the error. Written with the record's own writes, so the log and the
//! records always agree.

use serde::{Deserialize, Serialize};
use store::{ColumnValue, FieldKind, Page, QueryField, Reader, Writer};
use uuid::Uuid;

use crate::Result;
use crate::job::{decode, encode};
use crate::storage::JOURNAL;

/// What happened to a record or a record it made.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Action {
    Created,
    Updated,
    Deleted,
    Multiple,
    Discarded,
}

impl Action {
    fn as_str(self) -> &'static str {
        match self {
            Action::Created => "CREATED",
            Action::Updated => "UPDATED",
            Action::Deleted => "DELETED",
            Action::Multiple => "MULTIPLE",
            Action::Discarded => "DISCARDED",
        }
    }
}

/// A related record's part of an entry (`processedEntityInfo`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Related {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action_status: Option<Action>,
    #[serde(default)]
    pub id_list: Vec<Uuid>,
    #[serde(default)]
    pub hrid_list: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// One holdings record or item an entry names.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RelatedRecord {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action_status: Option<Action>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Uuid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hrid: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permanent_location_id: Option<Uuid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub holdings_id: Option<Uuid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// One record's entry.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Entry {
    pub job_execution_id: Uuid,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub incoming_record_id: Option<Uuid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_record_id: Option<Uuid>,
    /// 0-based, as a string, as FOLIO answers it.
    pub source_record_order: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_record_title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_record_action_status: Option<Action>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_record_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub related_instance_info: Option<Related>,
    #[serde(default)]
    pub related_holdings_info: Vec<RelatedRecord>,
    #[serde(default)]
    pub related_item_info: Vec<RelatedRecord>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub related_authority_info: Option<Related>,
}

impl Entry {
    pub fn new(job: Uuid, order: u64, record_type: &str) -> Entry {
        Entry {
            job_execution_id: job,
            incoming_record_id: Some(store::new_record_id()),
            source_record_id: None,
            source_record_order: order.to_string(),
            source_record_title: None,
            source_record_action_status: None,
            source_record_type: Some(record_type.to_string()),
            error: None,
            related_instance_info: None,
            related_holdings_info: Vec::new(),
            related_item_info: Vec::new(),
            related_authority_info: None,
        }
    }

    /// A record that failed: its error, and nothing made.
    pub fn failed(job: Uuid, order: u64, record_type: &str, error: String) -> Entry {
        let mut entry = Entry::new(job, order, record_type);
        entry.source_record_action_status = Some(Action::Discarded);
        entry.error = Some(error);
        entry
    }

    fn order(&self) -> i64 {
        self.source_record_order.parse().unwrap_or(0)
    }

    fn columns(&self) -> Vec<ColumnValue> {
        let status = |a: Option<Action>| ColumnValue::from(a.map(|a| a.as_str().to_string()));
        let first = |list: &[RelatedRecord]| list.first().and_then(|r| r.action_status);
        vec![
            ColumnValue::Text(self.job_execution_id.to_string()),
            ColumnValue::Int(self.order()),
            ColumnValue::from(self.source_record_title.clone()),
            status(self.source_record_action_status),
            status(self.related_instance_info.as_ref().and_then(|r| r.action_status)),
            status(first(&self.related_holdings_info)),
            status(first(&self.related_item_info)),
            status(self.related_authority_info.as_ref().and_then(|r| r.action_status)),
            ColumnValue::from(self.error.clone()),
        ]
    }
}

pub(crate) fn write(w: &mut Writer<'_>, entry: &Entry) -> Result<()> {
    let id = format!("{}:{:010}", entry.job_execution_id, entry.order());
    w.put(&JOURNAL, &id, 1, &encode(entry)?, &entry.columns())?;
    Ok(())
}

const QUERY: &[QueryField] = &[
    QueryField { index: "jobId", column: "job_id", kind: FieldKind::Text },
    QueryField { index: "order", column: "ord", kind: FieldKind::Int },
    QueryField { index: "title", column: "title", kind: FieldKind::Text },
    QueryField { index: "sourceStatus", column: "source_status", kind: FieldKind::Exact },
    QueryField { index: "instanceStatus", column: "instance_status", kind: FieldKind::Exact },
    QueryField { index: "holdingsStatus", column: "holdings_status", kind: FieldKind::Exact },
    QueryField { index: "itemStatus", column: "item_status", kind: FieldKind::Exact },
    QueryField { index: "authorityStatus", column: "authority_status", kind: FieldKind::Exact },
    QueryField { index: "error", column: "error", kind: FieldKind::Text },
];

/// How `/metadata-provider/jobLogEntries` sorts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SortBy {
    Order,
    Title,
    SourceStatus,
    InstanceStatus,
    HoldingsStatus,
    ItemStatus,
    AuthorityStatus,
    Error,
}

impl SortBy {
    /// FOLIO's `sortBy` values.
    pub fn parse(text: &str) -> Option<SortBy> {
        Some(match text {
            "source_record_order" => SortBy::Order,
            "title" => SortBy::Title,
            "source_record_action_status" => SortBy::SourceStatus,
            "instance_action_status" => SortBy::InstanceStatus,
            "holdings_action_status" => SortBy::HoldingsStatus,
            "item_action_status" => SortBy::ItemStatus,
            "authority_action_status" => SortBy::AuthorityStatus,
            "error" => SortBy::Error,
            _ => return None,
        })
    }

    fn index(self) -> &'static str {
        match self {
            SortBy::Order => "order",
            SortBy::Title => "title",
            SortBy::SourceStatus => "sourceStatus",
            SortBy::InstanceStatus => "instanceStatus",
            SortBy::HoldingsStatus => "holdingsStatus",
            SortBy::ItemStatus => "itemStatus",
            SortBy::AuthorityStatus => "authorityStatus",
            SortBy::Error => "error",
        }
    }
}

/// A page of a job's entries, and how many there are.
pub fn entries(
    r: &Reader<'_>,
    job: Uuid,
    errors_only: bool,
    sort: SortBy,
    descending: bool,
    page: Page,
) -> Result<(Vec<Entry>, u64)> {
    let mut cql = format!("jobId==\"{job}\"");
    if errors_only {
        cql.push_str(" and error=\"*\"");
    }
    let direction = if descending { "/sort.descending" } else { "" };
    cql.push_str(&format!(" sortBy {}{direction} order", sort.index()));
    let (rows, total) = r.list(&JOURNAL, QUERY, Some(&cql), page)?;
    let entries = rows.iter().map(|row| decode(&row.body)).collect::<Result<_>>()?;
    Ok((entries, total))
}

/// One record's entry, by its order.
pub fn entry(r: &Reader<'_>, job: Uuid, order: u64) -> Result<Option<Entry>> {
    let id = format!("{job}:{order:010}");
    r.get(&JOURNAL, &id)?.map(|row| decode(&row.body)).transpose()
}

/// Counts per record kind (`entityProcessingSummary`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Counts {
    pub total_created_entities: u64,
    pub total_updated_entities: u64,
    pub total_deleted_entities: u64,
    pub total_discarded_entities: u64,
    pub total_errors: u64,
}

/// `/metadata-provider/jobSummary/{id}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    pub job_execution_id: Uuid,
    pub total_errors: u64,
    pub source_record_summary: Counts,
    pub instance_summary: Counts,
    pub holding_summary: Counts,
    pub item_summary: Counts,
    pub authority_summary: Counts,
}

pub fn summary(r: &Reader<'_>, job: Uuid) -> Result<Summary> {
    let count = |cql: String| -> Result<u64> {
        Ok(r.list(&JOURNAL, QUERY, Some(&cql), Page { offset: 0, limit: 0 })?.1)
    };
    let counts = |index: &str| -> Result<Counts> {
        let of =
            |action: Action| count(format!("jobId==\"{job}\" and {index}=={}", action.as_str()));
        Ok(Counts {
            total_created_entities: of(Action::Created)?,
            total_updated_entities: of(Action::Updated)?,
            total_deleted_entities: of(Action::Deleted)?,
            total_discarded_entities: of(Action::Discarded)?,
            total_errors: 0,
        })
    };
    let errors = count(format!("jobId==\"{job}\" and error=\"*\""))?;
    let mut source = counts("sourceStatus")?;
    source.total_errors = errors;
    let mut instance = counts("instanceStatus")?;
    let mut authority = counts("authorityStatus")?;
    // An error belongs to the kinds of record the job was making.
    if instance.total_created_entities + instance.total_updated_entities > 0
        || authority.total_created_entities == 0
    {
        instance.total_errors = errors;
    } else {
        authority.total_errors = errors;
    }
    Ok(Summary {
        job_execution_id: job,
        total_errors: errors,
        source_record_summary: source,
        instance_summary: instance,
        holding_summary: counts("holdingsStatus")?,
        item_summary: counts("itemStatus")?,
        authority_summary: authority,
    })
}
