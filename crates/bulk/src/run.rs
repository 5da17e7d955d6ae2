//! The flow of an operation: made from an upload, a query or a rollback; matched,
//! edited and committed a chunk at a time by the runtime's runner ([`step`]), each chunk
//! one background write with the operation's cursor and counts.

use std::collections::HashSet;

use folio::Actor;
use serde_json::Value;
use store::{Page, Tenant, Writer};
use uuid::Uuid;

use crate::identifiers::{self, check_kind};
use crate::operation::{
    self, Approach, EntityType, ErrorType, IdentifierType, Operation, OperationError, RecordRow,
    Status, Step, Stored,
};
use crate::rules::{self, Applied, RuleCollection};
use crate::storage::{self, IDENTIFIERS, RECORDS};
use crate::{Error, Result, invalid};

/// Records (or identifiers) a step takes in one write at most; a background write also
/// ends early when a desk write waits.
pub const CHUNK: usize = 500;

fn now() -> String {
    folio::Timestamp::now().to_string()
}

fn new_operation(
    w: &mut Writer<'_>,
    entity: EntityType,
    kind: IdentifierType,
    approach: Approach,
    status: Status,
    user: Option<Uuid>,
) -> Result<Stored> {
    let id = store::new_record_id();
    Ok(Stored {
        operation: Operation {
            id,
            hr_id: operation::next_hrid(w)?,
            user_id: user,
            operation_type: "UPDATE".into(),
            entity_type: entity,
            entity_custom_identifier_type: kind,
            status,
            approach,
            link_to_triggering_csv_file: None,
            link_to_matched_records_csv_file: None,
            link_to_matched_records_errors_csv_file: None,
            link_to_modified_records_csv_file: None,
            link_to_committed_records_csv_file: None,
            link_to_committed_records_errors_csv_file: None,
            total_num_of_records: 0,
            processed_num_of_records: 0,
            matched_num_of_records: 0,
            committed_num_of_records: 0,
            matched_num_of_errors: 0,
            matched_num_of_warnings: 0,
            committed_num_of_errors: 0,
            committed_num_of_warnings: 0,
            start_time: Some(now()),
            end_time: None,
            error_message: None,
            expired: false,
            fql_query: None,
            user_friendly_query: None,
            cql_query: None,
            rollback_of: None,
            rolled_back_by: None,
        },
        file_name: None,
        identifiers: 0,
        records: 0,
        cursor: 0,
        match_errors: 0,
        commit_errors: 0,
        edit_errors: 0,
        rules: None,
        cancel_requested: false,
    })
}

/// A line of an uploaded identifiers file, and whether an earlier line had the same
/// identifier (FOLIO's "Duplicate entry").
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub(crate) struct IdentifierLine {
    pub(crate) value: String,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(crate) repeated: bool,
}

/// The link FOLIO reports for a file: here, the download route that serves it.
fn link(id: Uuid, kind: &str) -> Option<String> {
    Some(format!("/bulk-operations/{id}/download?fileContentType={kind}"))
}

/// An operation for the records an uploaded file identifies (`NEW`, to be started with
/// the UPLOAD step).
pub fn create_upload(
    w: &mut Writer<'_>,
    entity: EntityType,
    kind: IdentifierType,
    identifiers: &[String],
    file_name: Option<String>,
    user: Option<Uuid>,
) -> Result<Operation> {
    check_kind(entity, kind)?;
    if identifiers.is_empty() {
        return Err(invalid("The file has no identifiers"));
    }
    let mut stored = new_operation(w, entity, kind, Approach::InApp, Status::New, user)?;
    let id = stored.operation.id;
    // Repeats are marked now, while the whole file is at hand: the matching then goes
    // a chunk at a time without reading back the lines before it.
    let mut seen = HashSet::with_capacity(identifiers.len());
    for (n, identifier) in identifiers.iter().enumerate() {
        let line = IdentifierLine { value: identifier.clone(), repeated: !seen.insert(identifier) };
        storage::put_row(w, &IDENTIFIERS, id, "", n as u64, &line)?;
    }
    stored.identifiers = identifiers.len() as u64;
    stored.file_name = file_name;
    stored.operation.total_num_of_records = stored.identifiers;
    stored.operation.link_to_triggering_csv_file = link(id, "TRIGGERING_FILE");
    operation::insert(w, &stored)?;
    Ok(stored.operation)
}

/// An operation for the records a storage CQL query selects; it starts retrieving them
/// at once.
pub fn create_query(
    w: &mut Writer<'_>,
    entity: EntityType,
    cql: &str,
    user: Option<Uuid>,
) -> Result<Operation> {
    // Runs the query once, so a bad one is refused now (and counted).
    let (_, total) = identifiers::query(w, entity, cql, Page { offset: 0, limit: 0 })?;
    let mut stored = new_operation(
        w,
        entity,
        IdentifierType::Id,
        Approach::Query,
        Status::RetrievingRecords,
        user,
    )?;
    stored.operation.cql_query = Some(cql.to_string());
    stored.operation.user_friendly_query = Some(cql.to_string());
    stored.operation.total_num_of_records = total;
    operation::insert(w, &stored)?;
    Ok(stored.operation)
}

/// Starts a step, as `POST /bulk-operations/{id}/start` does; the runner does the work.
pub fn start(
    w: &mut Writer<'_>,
    id: Uuid,
    step: Step,
    approach: Option<Approach>,
) -> Result<Operation> {
    let mut stored = operation::load(w, id)?;
    let status = stored.operation.status;
    let refuse = || {
        invalid(format!(
            "Step {} is not applicable for bulk operation status {}",
            step.as_str(),
            status.as_str()
        ))
    };
    match step {
        Step::Upload if status == Status::New => {
            stored.operation.status = Status::RetrievingRecords;
            stored.cursor = 0;
        }
        Step::Edit if matches!(status, Status::DataModification | Status::ReviewChanges) => {
            if approach == Some(Approach::Manual) {
                return Err(invalid("Approach MANUAL is not supported: edit with content-update"));
            }
            if stored.rules.is_none() {
                return Err(invalid(
                    "There are no rules for bulk operation: send content-update first",
                ));
            }
            stored.operation.status = Status::DataModificationInProgress;
            stored.operation.processed_num_of_records = 0;
            stored.operation.link_to_modified_records_csv_file = None;
            storage::clear_rows(w, &storage::ERRORS, id, "e", 0, stored.edit_errors)?;
            stored.edit_errors = 0;
            stored.cursor = 0;
        }
        Step::Commit if status == Status::ReviewChanges => {
            stored.operation.status = Status::ApplyChanges;
            stored.operation.processed_num_of_records = 0;
            stored.cursor = 0;
        }
        Step::Delete => return Err(invalid("Step DELETE is not supported")),
        _ => return Err(refuse()),
    }
    operation::save(w, &stored)?;
    Ok(stored.operation)
}

/// Keeps the rules of a content update (checked first) and has the operation wait for
/// the EDIT step.
pub fn content_update(
    w: &mut Writer<'_>,
    id: Uuid,
    rules: RuleCollection,
) -> Result<RuleCollection> {
    let mut stored = operation::load(w, id)?;
    let status = stored.operation.status;
    if !matches!(status, Status::DataModification | Status::ReviewChanges) {
        return Err(invalid(format!(
            "Bulk operation with status {} cannot be edited",
            status.as_str()
        )));
    }
    rules::check(w, stored.operation.entity_type, &rules)?;
    let mut rules = rules;
    for rule in &mut rules.bulk_operation_rules {
        rule.bulk_operation_id = Some(id);
        rule.id.get_or_insert_with(Uuid::new_v4);
    }
    stored.rules = Some(rules.clone());
    stored.operation.status = Status::DataModification;
    operation::save(w, &stored)?;
    Ok(rules)
}

/// Cancels an operation that has not committed, or stops a commit at its next chunk
/// (what it committed stays, and can be rolled back).
pub fn cancel(w: &mut Writer<'_>, id: Uuid) -> Result<Operation> {
    let mut stored = operation::load(w, id)?;
    let status = stored.operation.status;
    if status.is_final() {
        return Err(invalid(format!(
            "Bulk operation with status {} can't be cancelled",
            status.as_str()
        )));
    }
    stored.operation.status = Status::Cancelled;
    stored.operation.end_time = Some(now());
    operation::save(w, &stored)?;
    Ok(stored.operation)
}

/// Undoes a committed operation: a new operation, whose records are the ones committed
/// and whose changes put back what each was before. It commits without review.
pub fn rollback(w: &mut Writer<'_>, id: Uuid, user: Option<Uuid>) -> Result<Operation> {
    let mut original = operation::load(w, id)?;
    let op = &original.operation;
    if !op.status.is_final() || op.committed_num_of_records == 0 {
        return Err(invalid(format!(
            "Bulk operation with status {} has no committed records to roll back",
            op.status.as_str()
        )));
    }
    if let Some(by) = op.rolled_back_by {
        return Err(invalid(format!("Bulk operation was already rolled back by {by}")));
    }
    let mut stored = new_operation(
        w,
        op.entity_type,
        IdentifierType::Id,
        Approach::InApp,
        Status::RetrievingRecords,
        user,
    )?;
    stored.operation.rollback_of = Some(id);
    stored.operation.total_num_of_records = op.committed_num_of_records;
    original.operation.rolled_back_by = Some(stored.operation.id);
    operation::insert(w, &stored)?;
    operation::save(w, &original)?;
    Ok(stored.operation)
}

/// What one step of the runner did.
#[derive(Debug, Default)]
pub struct Progress {
    /// The operation has more to do now.
    pub more: bool,
    /// Its commit is written: the runner brings the search index up to date, then
    /// calls [`finish`].
    pub written: bool,
    /// Users whose records changed (their sessions are checked again).
    pub users: Vec<Uuid>,
    /// The step wrote records (a commit's chunk).
    pub committing: bool,
}

/// Does the next chunk of an operation's running step.
pub fn step(tenant: &Tenant, id: Uuid) -> Result<Progress> {
    tenant.write_background(|w| {
        let mut stored = operation::load(w, id)?;
        let mut progress = Progress::default();
        match stored.operation.status {
            Status::RetrievingRecords => {
                progress.more = retrieve(w, &mut stored)?;
            }
            Status::DataModificationInProgress => {
                progress.more = edit(w, &mut stored)?;
            }
            Status::ApplyChanges if stored.cursor >= stored.records => {
                progress.written = true;
                return Ok(progress);
            }
            Status::ApplyChanges => {
                commit(w, &mut stored, &mut progress.users)?;
                progress.more = true;
                progress.committing = true;
            }
            _ => return Ok(progress),
        }
        operation::save(w, &stored)?;
        Ok(progress)
    })
}

/// Ends a commit whose records are all written: COMPLETED, or COMPLETED_WITH_ERRORS
/// when some record failed or needed no change.
pub fn finish(w: &mut Writer<'_>, id: Uuid) -> Result<Operation> {
    let mut stored = operation::load(w, id)?;
    if stored.operation.status != Status::ApplyChanges {
        return Ok(stored.operation);
    }
    let op = &mut stored.operation;
    op.status =
        if stored.commit_errors > 0 { Status::CompletedWithErrors } else { Status::Completed };
    op.end_time = Some(now());
    if op.committed_num_of_records > 0 {
        op.link_to_committed_records_csv_file = link(op.id, "COMMITTED_RECORDS_FILE");
    }
    if stored.commit_errors > 0 {
        op.link_to_committed_records_errors_csv_file = link(op.id, "COMMITTING_CHANGES_ERROR_FILE");
    }
    operation::save(w, &stored)?;
    Ok(stored.operation)
}

fn add_record(w: &mut Writer<'_>, stored: &mut Stored, row: &RecordRow) -> Result<()> {
    storage::put_row(w, &RECORDS, stored.operation.id, "", stored.records, row)?;
    stored.records += 1;
    stored.operation.matched_num_of_records = stored.records;
    Ok(())
}

fn record_id(record: &Value) -> String {
    record.get("id").and_then(Value::as_str).unwrap_or_default().to_string()
}

/// Matches the next chunk of identifiers (or query results, or a rolled-back
/// operation's records); true while more are left.
fn retrieve(w: &mut Writer<'_>, stored: &mut Stored) -> Result<bool> {
    let id = stored.operation.id;
    let entity = stored.operation.entity_type;
    let done = if let Some(original) = stored.operation.rollback_of {
        let rows: Vec<RecordRow> = storage::rows(w, &RECORDS, original, "", stored.cursor, CHUNK)?;
        for row in &rows {
            stored.cursor += 1;
            let Some(committed) = &row.committed else { continue };
            // Back to the record as matched, written at the version the commit left.
            let mut restored = row.matched.clone();
            if let (Some(obj), Some(version)) =
                (restored.as_object_mut(), committed.get("_version"))
            {
                obj.insert("_version".into(), version.clone());
            }
            let back = RecordRow {
                identifier: record_id(committed),
                matched: committed.clone(),
                proposed: Some(restored),
                refused: None,
                committed: None,
            };
            add_record(w, stored, &back)?;
        }
        stored.operation.processed_num_of_records = stored.records;
        rows.len() < CHUNK
    } else if let Some(cql) = stored.operation.cql_query.clone() {
        let page = Page { offset: stored.cursor, limit: CHUNK as u64 };
        let (records, _) = identifiers::query(w, entity, &cql, page)?;
        for record in &records {
            let row = RecordRow {
                identifier: record_id(record),
                matched: record.clone(),
                proposed: None,
                refused: None,
                committed: None,
            };
            add_record(w, stored, &row)?;
        }
        stored.cursor += records.len() as u64;
        stored.operation.processed_num_of_records = stored.cursor;
        records.len() < CHUNK
    } else {
        let lines: Vec<IdentifierLine> =
            storage::rows(w, &IDENTIFIERS, id, "", stored.cursor, CHUNK)?;
        let kind = stored.operation.entity_custom_identifier_type;
        let firsts: Vec<String> =
            lines.iter().filter(|l| !l.repeated).map(|l| l.value.clone()).collect();
        let mut found = identifiers::find(w, entity, kind, &firsts)?.into_iter();
        for line in &lines {
            let value = &line.value;
            let error = |message: &str, error_type| OperationError {
                identifier: value.clone(),
                message: message.into(),
                error_type,
            };
            if line.repeated {
                operation::push_error(
                    w,
                    stored,
                    Step::Upload,
                    error("Duplicate entry", ErrorType::Warning),
                )?;
                continue;
            }
            let records = found.next().unwrap_or_default();
            let parent =
                matches!(kind, IdentifierType::HoldingsRecordId | IdentifierType::InstanceHrid);
            match records.len() {
                0 => operation::push_error(
                    w,
                    stored,
                    Step::Upload,
                    error("No match found", ErrorType::Error),
                )?,
                n if n > 1 && !parent => operation::push_error(
                    w,
                    stored,
                    Step::Upload,
                    error("Multiple matches for the same identifier.", ErrorType::Error),
                )?,
                _ => {
                    for record in records {
                        let row = RecordRow {
                            identifier: value.clone(),
                            matched: record,
                            proposed: None,
                            refused: None,
                            committed: None,
                        };
                        add_record(w, stored, &row)?;
                    }
                }
            }
        }
        stored.cursor += lines.len() as u64;
        stored.operation.processed_num_of_records = stored.cursor;
        stored.cursor >= stored.identifiers
    };
    if !done {
        return Ok(true);
    }
    let op = &mut stored.operation;
    if op.rollback_of.is_some() {
        // A rollback commits what it retrieved, without review.
        op.status = Status::ApplyChanges;
        op.processed_num_of_records = 0;
        stored.cursor = 0;
        return Ok(true);
    }
    if op.approach == Approach::Query {
        op.total_num_of_records = stored.records;
    }
    if stored.records > 0 {
        op.link_to_matched_records_csv_file = link(op.id, "MATCHED_RECORDS_FILE");
    }
    if stored.match_errors > 0 {
        op.link_to_matched_records_errors_csv_file = link(op.id, "RECORD_MATCHING_ERROR_FILE");
    }
    if stored.records == 0 {
        op.status = Status::CompletedWithErrors;
        op.end_time = Some(now());
    } else {
        op.status = Status::DataModification;
    }
    Ok(false)
}

/// Applies the rules to the next chunk of records; true while more are left.
fn edit(w: &mut Writer<'_>, stored: &mut Stored) -> Result<bool> {
    let id = stored.operation.id;
    let entity = stored.operation.entity_type;
    let rules = stored.rules.clone().ok_or_else(|| invalid("no rules"))?;
    let rows: Vec<RecordRow> = storage::rows(w, &RECORDS, id, "", stored.cursor, CHUNK)?;
    let at = now();
    for mut row in rows {
        match rules::apply(entity, &rules, &row.matched, &at) {
            Applied::Changed(record) => {
                row.proposed = Some(record);
                row.refused = None;
            }
            Applied::Refused(message) => {
                row.proposed = None;
                row.refused = Some(message.clone());
                let error = OperationError {
                    identifier: row.identifier.clone(),
                    message,
                    error_type: ErrorType::Error,
                };
                operation::push_error(w, stored, Step::Edit, error)?;
            }
        }
        storage::put_row(w, &RECORDS, id, "", stored.cursor, &row)?;
        stored.cursor += 1;
    }
    stored.operation.processed_num_of_records = stored.cursor;
    if stored.cursor < stored.records {
        return Ok(true);
    }
    let op = &mut stored.operation;
    op.status = Status::ReviewChanges;
    op.link_to_modified_records_csv_file = link(op.id, "PROPOSED_CHANGES_FILE");
    Ok(false)
}

/// Commits the next chunk of records, each at the version it was matched at.
fn commit(w: &mut Writer<'_>, stored: &mut Stored, users: &mut Vec<Uuid>) -> Result<()> {
    let id = stored.operation.id;
    let entity = stored.operation.entity_type;
    let actor = Actor { user_id: stored.operation.user_id };
    let rows: Vec<RecordRow> = storage::rows(w, &RECORDS, id, "", stored.cursor, CHUNK)?;
    // The references the chunk's records name, checked once for the chunk.
    let mut checked = inventory::Checked::default();
    let items_suppression = match (entity, &stored.rules) {
        (EntityType::Holdings, Some(rules)) => rules::items_suppression(rules),
        _ => None,
    };
    for (done, mut row) in rows.into_iter().enumerate() {
        if done > 0 && w.should_end() {
            break;
        }
        let error_type = |message: String, error_type| OperationError {
            identifier: row.identifier.clone(),
            message,
            error_type,
        };
        let outcome = match (&row.proposed, &row.refused) {
            (_, Some(refused)) => Err(error_type(refused.clone(), ErrorType::Error)),
            (None, None) => Err(error_type("The record was not edited".into(), ErrorType::Error)),
            (Some(proposed), None) if same_record(proposed, &row.matched) => {
                Err(error_type("No change in value required".into(), ErrorType::Warning))
            }
            (Some(proposed), None) => {
                // A savepoint: a record that fails leaves nothing of itself behind.
                let write = |w: &mut Writer<'_>| {
                    let record =
                        write_record(w, entity, proposed, &row.matched, actor, &mut checked)?;
                    if let Some(suppress) = items_suppression {
                        suppress_items(w, &record_id(&record), suppress, actor, &mut checked)?;
                    }
                    Ok(record)
                };
                match w.attempt(write) {
                    Ok(record) => Ok(record),
                    Err(Refused::Record(message)) => Err(error_type(message, ErrorType::Error)),
                    Err(Refused::Store(e)) => return Err(e),
                }
            }
        };
        match outcome {
            Ok(record) => {
                if entity == EntityType::User {
                    users.extend(Uuid::parse_str(&record_id(&record)).ok());
                }
                row.committed = Some(record);
                stored.operation.committed_num_of_records += 1;
                storage::put_row(w, &RECORDS, id, "", stored.cursor, &row)?;
            }
            Err(error) => operation::push_error(w, stored, Step::Commit, error)?,
        }
        stored.cursor += 1;
        stored.operation.processed_num_of_records = stored.cursor;
    }
    Ok(())
}

/// Whether two versions of a record are the same but for what every save changes.
fn same_record(a: &Value, b: &Value) -> bool {
    let strip = |v: &Value| {
        let mut v = v.clone();
        if let Some(obj) = v.as_object_mut() {
            obj.remove("metadata");
            obj.remove("_version");
        }
        v
    };
    strip(a) == strip(b)
}

/// Why one record's write did not happen: the record's fault (its message, for the
/// errors file) or the store's.
enum Refused {
    Record(String),
    Store(Error),
}

impl From<store::Error> for Refused {
    fn from(e: store::Error) -> Self {
        Refused::Store(e.into())
    }
}

impl From<Error> for Refused {
    fn from(e: Error) -> Self {
        Refused::Store(e)
    }
}

/// Writes one record's change as a PUT would, at the version it was matched at.
fn write_record(
    w: &mut Writer<'_>,
    entity: EntityType,
    proposed: &Value,
    matched: &Value,
    actor: Actor,
    checked: &mut inventory::Checked,
) -> std::result::Result<Value, Refused> {
    let id = Uuid::parse_str(&record_id(proposed)).map_err(|e| Error::Corrupt(e.to_string()))?;
    let body = serde_json::to_vec(proposed).map_err(|e| Error::Corrupt(e.to_string()))?;
    let saved = match entity {
        EntityType::Item => replace::<inventory::Item>(w, &body, actor, checked),
        EntityType::Holdings => replace::<inventory::HoldingsRecord>(w, &body, actor, checked),
        EntityType::Instance => replace::<inventory::Instance>(w, &body, actor, checked),
        EntityType::User => return write_user(w, id, &body, matched, actor),
    };
    match saved {
        Ok(record) => Ok(record),
        Err(inventory::Error::VersionConflict { stored, sent, .. }) => {
            Err(Refused::Record(format!(
                "The record cannot be saved because it is not the most recent version. Stored version is {stored}, bulk edit version is {sent}."
            )))
        }
        Err(inventory::Error::Store(e)) => Err(e.into()),
        Err(e) => Err(Refused::Record(e.to_string())),
    }
}

/// Sets the suppression of a holdings record's items, as FOLIO's "including items"
/// actions do. The items are not the operation's records: a rollback leaves them.
fn suppress_items(
    w: &mut Writer<'_>,
    holdings: &str,
    suppress: bool,
    actor: Actor,
    checked: &mut inventory::Checked,
) -> std::result::Result<(), Refused> {
    for row in w.find_by(&inventory::ITEMS, "holdings_record_id", holdings)? {
        let mut item: Value = storage::decode(&row.body)?;
        if item.get("discoverySuppress").and_then(Value::as_bool) == Some(suppress) {
            continue;
        }
        item["discoverySuppress"] = Value::Bool(suppress);
        let body = serde_json::to_vec(&item).map_err(|e| Error::Corrupt(e.to_string()))?;
        replace::<inventory::Item>(w, &body, actor, checked).map_err(|e| match e {
            inventory::Error::Store(e) => Refused::from(e),
            e => Refused::Record(format!("An item of the holdings record cannot be changed: {e}")),
        })?;
    }
    Ok(())
}

/// An inventory record saved as its PUT saves it (its `_version` checked), with the
/// references it names checked once per chunk.
fn replace<R: inventory::Record>(
    w: &mut Writer<'_>,
    body: &[u8],
    actor: Actor,
    checked: &mut inventory::Checked,
) -> inventory::Result<Value> {
    let record: R = folio::decode(body)?;
    inventory::replace_record(w, record, actor, checked).map(json)
}

fn json<T: serde::Serialize>(record: T) -> Value {
    serde_json::to_value(record).unwrap_or(Value::Null)
}

/// Users carry no `_version`: a user changed since it was matched is one whose stored
/// record differs from the one matched.
fn write_user(
    w: &mut Writer<'_>,
    id: Uuid,
    body: &[u8],
    matched: &Value,
    actor: Actor,
) -> std::result::Result<Value, Refused> {
    let page = Page { offset: 0, limit: 1 };
    let (current, _) = identifiers::query(w, EntityType::User, &format!("id==\"{id}\""), page)?;
    match current.first() {
        None => return Err(Refused::Record("No match found".into())),
        Some(current) if current != matched => {
            return Err(Refused::Record(
                "The record cannot be saved because it is not the most recent version: it changed since it was matched."
                    .into(),
            ));
        }
        Some(_) => {}
    }
    let user = auth::decode_user(body).map_err(|e| Refused::Record(e.to_string()))?;
    match auth::update_user(w, id, user, actor.user_id) {
        Ok(user) => Ok(json(user)),
        Err(auth::Error::Store(e)) => Err(e.into()),
        Err(e) => Err(Refused::Record(e.to_string())),
    }
}
