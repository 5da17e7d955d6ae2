//! The record verbs: create, replace, read, list, delete and un-delete with FOLIO's
//! rules, and the fast batch path for generated data.
//!
//! Every write goes through [`write`], which derives what FOLIO derives (`matchedId`,
//! content ids, `leaderRecordStatus`, `deleted`, `metadata`) and stores the record in
//! its compact form (`stored.rs`) with its extracted columns.

use store::{ColumnValue, Page, QueryField, Reader, Writer};
use uuid::Uuid;

use crate::model::{
    AdditionalInfo, ExternalIdsHolder, ParsedRecord, RawRecord, Record, RecordType, SourceRecord,
    State,
};
use folio::Actor;

use crate::storage::{Error, RECORDS, Result};
use crate::stored;

/// Which id a by-id request names (FOLIO's `idType` parameter).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum IdType {
    /// The SRS record id (the default).
    #[default]
    SrsRecord,
    /// `matchedId`, stable across generations.
    Record,
    /// The external id: instance, holdings or authority id by record type.
    Instance,
    Holdings,
    Authority,
    External,
}

impl IdType {
    /// Parses the parameter; `None` for an unknown value.
    pub fn parse(s: &str) -> Option<IdType> {
        Some(match s {
            "SRS_RECORD" => IdType::SrsRecord,
            "RECORD" => IdType::Record,
            "INSTANCE" => IdType::Instance,
            "HOLDINGS" => IdType::Holdings,
            "AUTHORITY" => IdType::Authority,
            "EXTERNAL" => IdType::External,
            _ => return None,
        })
    }

    fn column(self) -> &'static str {
        match self {
            IdType::SrsRecord => "id",
            IdType::Record => "matched_id",
            IdType::Instance | IdType::Holdings | IdType::Authority | IdType::External => {
                "external_id"
            }
        }
    }
}

/// Filters of `GET /source-storage/records` and `/source-storage/source-records`; all
/// given ones must hold.
#[derive(Debug, Clone, Default)]
pub struct RecordFilter {
    pub record_id: Option<Uuid>,
    pub snapshot_id: Option<Uuid>,
    pub external_id: Option<Uuid>,
    pub external_hrid: Option<String>,
    /// Like `external_id`, for MARC bibliographic records only.
    pub instance_id: Option<Uuid>,
    pub instance_hrid: Option<String>,
    pub record_type: Option<RecordType>,
    pub state: Option<State>,
    pub suppress_from_discovery: Option<bool>,
    pub deleted: Option<bool>,
    pub leader_record_status: Option<char>,
    /// Inclusive bounds on `metadata.updatedDate`, in the stored format.
    pub updated_after: Option<String>,
    pub updated_before: Option<String>,
}

const QUERY_FIELDS: &[QueryField] = &[
    field("id", store::FieldKind::Exact),
    field("snapshot_id", store::FieldKind::Exact),
    field("external_id", store::FieldKind::Exact),
    field("external_hrid", store::FieldKind::Exact),
    field("record_type", store::FieldKind::Exact),
    field("state", store::FieldKind::Exact),
    field("suppress", store::FieldKind::Int),
    field("deleted", store::FieldKind::Int),
    field("leader_record_status", store::FieldKind::Exact),
    field("updated_date", store::FieldKind::Exact),
];

const fn field(column: &'static str, kind: store::FieldKind) -> QueryField {
    QueryField { index: column, column, kind }
}

impl RecordFilter {
    /// The filter as the store's CQL over the extracted columns.
    fn cql(&self) -> Option<String> {
        let mut clauses = Vec::new();
        let mut eq = |column: &str, value: &str| {
            clauses.push(format!("{column}==\"{}\"", cql_escape(value)));
        };
        if let Some(id) = self.record_id {
            eq("id", &id.to_string());
        }
        if let Some(id) = self.snapshot_id {
            eq("snapshot_id", &id.to_string());
        }
        if let Some(id) = self.external_id {
            eq("external_id", &id.to_string());
        }
        if let Some(hrid) = &self.external_hrid {
            eq("external_hrid", hrid);
        }
        if let Some(id) = self.instance_id {
            eq("external_id", &id.to_string());
            eq("record_type", RecordType::MarcBib.as_str());
        }
        if let Some(hrid) = &self.instance_hrid {
            eq("external_hrid", hrid);
            eq("record_type", RecordType::MarcBib.as_str());
        }
        if let Some(t) = self.record_type {
            eq("record_type", t.as_str());
        }
        if let Some(s) = self.state {
            eq("state", s.as_str());
        }
        if let Some(s) = self.suppress_from_discovery {
            eq("suppress", if s { "1" } else { "0" });
        }
        if let Some(d) = self.deleted {
            eq("deleted", if d { "1" } else { "0" });
        }
        if let Some(c) = self.leader_record_status {
            eq("leader_record_status", &c.to_string());
        }
        if let Some(after) = &self.updated_after {
            clauses.push(format!("updated_date>=\"{}\"", cql_escape(after)));
        }
        if let Some(before) = &self.updated_before {
            clauses.push(format!("updated_date<=\"{}\"", cql_escape(before)));
        }
        (!clauses.is_empty()).then(|| clauses.join(" and "))
    }
}

fn cql_escape(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        if matches!(c, '\\' | '"' | '*' | '?' | '^') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The current time in FOLIO's date-time format.
pub(crate) fn now() -> String {
    folio::Timestamp::now().to_string()
}

/// MARC 005 for now, `yyyyMMddHHmmss.S` as FOLIO writes it.
fn now_005() -> String {
    let now = chrono::Utc::now();
    format!("{}.{}", now.format("%Y%m%d%H%M%S"), now.timestamp_subsec_millis() / 100)
}

/// Parses a request body into a record (400 for malformed JSON, 422 otherwise).
pub fn decode(body: &[u8]) -> Result<Record> {
    decode_json(body)
}

/// A record from its stored form (the `body` of a change kept for publishers).
pub fn from_stored(body: &str) -> Result<Record> {
    Ok(crate::stored::decode(body)?.record)
}

/// A request body as `T`, with FOLIO's split of failures (`folio::decode`).
pub(crate) fn decode_json<T: serde::de::DeserializeOwned>(body: &[u8]) -> Result<T> {
    Ok(folio::decode(body)?)
}

/// `POST /source-storage/records`: stores a new record; returns it as stored.
pub fn create(w: &mut Writer<'_>, record: Record, actor: Actor) -> Result<Record> {
    if record.raw_record.is_none() {
        return Err(Error::invalid("rawRecord", "null", "rawRecord must not be null"));
    }
    check_snapshot(w, record.snapshot_id)?;
    let ord = next_ord(w)?;
    write(w, record, None, ord, actor)
}

/// `PUT /source-storage/records/{id}`: replaces a record in place, keeping its
/// creation metadata and ordinal.
pub fn replace(w: &mut Writer<'_>, id: Uuid, mut record: Record, actor: Actor) -> Result<Record> {
    let (ord, previous) = load(w, id)?.ok_or_else(|| not_found(id))?;
    record.id = Some(id);
    if record.raw_record.is_none() {
        record.raw_record = previous.raw_record.clone();
    }
    write(w, record, Some(&previous), ord, actor)
}

/// An overlay's new generation of the record `old` (an SRS id): `record` is stored as
/// the ACTUAL one, with `old`'s `matchedId` and the next generation, and `old` becomes
/// OLD. Both stay stored, as in FOLIO, so the history of a record can be read back.
pub fn new_generation(
    w: &mut Writer<'_>,
    old: Uuid,
    mut record: Record,
    actor: Actor,
) -> Result<Record> {
    let (ord, mut previous) = load(w, old)?.ok_or_else(|| not_found(old))?;
    record.matched_id = previous.matched_id.or(Some(old));
    record.generation = previous.generation + 1;
    let before = previous.clone();
    previous.state = State::Old;
    write(w, previous, Some(&before), ord, actor)?;
    create(w, record, actor)
}

/// `DELETE /source-storage/records/{id}`: FOLIO's soft delete. The record (found by
/// `id_type`, latest ACTUAL or DELETED generation) gets state DELETED, leader/05 `d`,
/// `suppressDiscovery` true and 005 = now, and stays stored. Deleting again succeeds.
pub fn delete(w: &mut Writer<'_>, id: Uuid, id_type: IdType, actor: Actor) -> Result<Record> {
    let (ord, mut record) = find_live(w, id, id_type)?.ok_or_else(|| not_found(id))?;
    let previous = record.clone();
    record.state = State::Deleted;
    record.additional_info.suppress_discovery = true;
    if let Some(marc) = record.parsed_record.as_mut().and_then(|p| p.content.as_mut()) {
        set_leader_status(marc, 'd');
        set_005(marc, &now_005());
    }
    write(w, record, Some(&previous), ord, actor)
}

/// `POST /source-storage/records/{id}/un-delete`: state ACTUAL and leader/05 `c`.
pub fn undelete(w: &mut Writer<'_>, id: Uuid, id_type: IdType, actor: Actor) -> Result<Record> {
    let (ord, mut record) = find_live(w, id, id_type)?.ok_or_else(|| not_found(id))?;
    let previous = record.clone();
    record.state = State::Actual;
    if let Some(marc) = record.parsed_record.as_mut().and_then(|p| p.content.as_mut()) {
        set_leader_status(marc, 'c');
    }
    write(w, record, Some(&previous), ord, actor)
}

fn set_leader_status(marc: &mut marc::Record, status: char) {
    // Position 5 always exists and 'c'/'d' are printable, so this cannot fail.
    let _ = marc.leader_mut().set(5, status);
}

/// Sets 005, adding it after the 00X fields before it when missing.
fn set_005(marc: &mut marc::Record, value: &str) {
    if let Some(field) = marc.field_mut("005") {
        let _ = field.set_value(value);
        return;
    }
    let Ok(field) = marc::Tag::new("005").and_then(|tag| marc::Field::control(tag, value)) else {
        return;
    };
    let fields = marc.fields_mut();
    let at = fields.iter().position(|f| f.tag().as_str() > "005").unwrap_or(fields.len());
    fields.insert(at, field);
}

/// What a harvest needs of an SRS record, from its columns alone: the instance of a
/// MARC bib, whether it is a live generation (ACTUAL or DELETED), deleted, suppressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BibState {
    pub instance_id: Uuid,
    pub live: bool,
    pub deleted: bool,
    pub suppressed: bool,
}

/// The [`BibState`] of SRS record `id`; `None` when there is no such record or it is
/// not a MARC bib of an instance.
pub fn bib_state(r: &Reader<'_>, id: Uuid) -> Result<Option<BibState>> {
    let Some((_, columns)) = r.get_with_columns(&RECORDS, &id.to_string())? else {
        return Ok(None);
    };
    let column = |name: &str| {
        let i = RECORDS.columns.iter().position(|c| *c == name).expect("an SRS records column");
        &columns[i]
    };
    let text = |name: &str| match column(name) {
        ColumnValue::Text(t) => Some(t.as_str()),
        _ => None,
    };
    let flag = |name: &str| matches!(column(name), ColumnValue::Int(n) if *n != 0);
    if text("record_type") != Some(RecordType::MarcBib.as_str()) {
        return Ok(None);
    }
    let Some(instance_id) = text("external_id").and_then(|t| Uuid::parse_str(t).ok()) else {
        return Ok(None);
    };
    let live = matches!(text("state"), Some(s) if s == State::Actual.as_str() || s == State::Deleted.as_str());
    Ok(Some(BibState { instance_id, live, deleted: flag("deleted"), suppressed: flag("suppress") }))
}

/// A record by id, with its contents.
pub fn get(r: &Reader<'_>, id: Uuid) -> Result<Record> {
    Ok(load(r, id)?.ok_or_else(|| not_found(id))?.1)
}

/// A record found by `id_type`: by SRS id any record; otherwise the latest generation
/// that is ACTUAL or DELETED, as FOLIO's lookups do.
pub fn get_by(r: &Reader<'_>, id: Uuid, id_type: IdType) -> Result<Record> {
    Ok(find_live(r, id, id_type)?.ok_or_else(|| not_found(id))?.1)
}

/// One page of records matching `filter`, in id order, and the total.
pub fn list(r: &Reader<'_>, filter: &RecordFilter, page: Page) -> Result<(Vec<Record>, u64)> {
    let cql = filter.cql();
    let (rows, total) = r.list(&RECORDS, QUERY_FIELDS, cql.as_deref(), page)?;
    let records = rows
        .iter()
        .map(|row| stored::decode(&row.body).map(|d| d.record))
        .collect::<Result<Vec<_>>>()?;
    Ok((records, total))
}

/// One page of source records matching `filter`, and the total.
pub fn list_source_records(
    r: &Reader<'_>,
    filter: &RecordFilter,
    page: Page,
) -> Result<(Vec<SourceRecord>, u64)> {
    let (records, total) = list(r, filter, page)?;
    Ok((records.iter().map(Record::to_source_record).collect(), total))
}

/// `POST /source-storage/source-records`: the source records of these ids (read as
/// `id_type`), skipping deleted ones unless `include_deleted`; in the order asked.
pub fn source_records_by_ids(
    r: &Reader<'_>,
    ids: &[Uuid],
    id_type: IdType,
    include_deleted: bool,
) -> Result<Vec<SourceRecord>> {
    let texts: Vec<String> = ids.iter().map(Uuid::to_string).collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let rows = r.find_by_any(&RECORDS, id_type.column(), &refs)?;
    let mut found: std::collections::HashMap<String, Record> = std::collections::HashMap::new();
    for row in rows {
        let record = stored::decode(&row.body)?.record;
        if id_type != IdType::SrsRecord && !matches!(record.state, State::Actual | State::Deleted) {
            continue;
        }
        if !include_deleted && record.deleted {
            continue;
        }
        let key = match id_type.column() {
            "id" => record.id.map(|id| id.to_string()),
            "matched_id" => record.matched_id.map(|id| id.to_string()),
            _ => record.external_id().map(|id| id.to_string()),
        };
        if let Some(key) = key {
            let replace = found.get(&key).is_none_or(|old| old.generation < record.generation);
            if replace {
                found.insert(key, record);
            }
        }
    }
    Ok(texts.iter().filter_map(|t| found.remove(t)).map(|r| r.to_source_record()).collect())
}

/// `POST /source-storage/batch/records`: stores each record; those that fail are
/// reported by message and the rest are kept, as FOLIO does.
pub fn save_batch(
    w: &mut Writer<'_>,
    records: Vec<Record>,
    actor: Actor,
) -> Result<(Vec<Record>, Vec<String>)> {
    let mut saved = Vec::with_capacity(records.len());
    let mut errors = Vec::new();
    for record in records {
        let result = match record.id {
            Some(id) if load(w, id)?.is_some() => replace(w, id, record, actor),
            _ => create(w, record, actor),
        };
        match result {
            Ok(record) => saved.push(record),
            Err(e @ (Error::Invalid { .. } | Error::NotFound { .. } | Error::Decode(_))) => {
                errors.push(e.to_string())
            }
            Err(e) => return Err(e),
        }
    }
    Ok((saved, errors))
}

/// A generated MARC bibliographic record for [`put_marc_bibs`].
#[derive(Debug, Clone)]
pub struct NewBib {
    /// The SRS record id; a random one when `None`.
    pub id: Option<Uuid>,
    pub marc: marc::Record,
    pub instance_id: Uuid,
    pub instance_hrid: String,
    pub snapshot_id: Uuid,
    pub suppress_discovery: bool,
    pub state: State,
}

/// Stores generated bibliographic records fast: no JSON parsing, one ISO 2709 encoding
/// per record, one insert each. Adds FOLIO's `999 ff $i instanceId $s recordId` when the
/// record has no 999 `ff`. The snapshot must exist ([`ensure_generated_snapshot`]).
/// Returns how many were stored.
pub fn put_marc_bibs(w: &mut Writer<'_>, records: impl Iterator<Item = NewBib>) -> Result<u64> {
    let metadata = folio::stamp(None, Actor::default());
    let mut n = 0;
    for bib in records {
        let id = bib.id.unwrap_or_else(store::new_record_id);
        let mut marc = bib.marc;
        let has_999 = marc.fields_with_tag("999").any(|f| f.indicators() == Some(['f', 'f']));
        if !has_999 {
            let (i, s) = (bib.instance_id.to_string(), id.to_string());
            let tag = marc::Tag::new("999").map_err(|e| Error::Corrupt(e.to_string()))?;
            let field = marc::Field::data(tag, 'f', 'f', [('i', i.as_str()), ('s', s.as_str())])
                .map_err(|e| Error::Corrupt(e.to_string()))?;
            marc.push(field);
        }
        let status = marc.leader().record_status();
        let record = Record {
            id: Some(id),
            snapshot_id: bib.snapshot_id,
            matched_id: Some(id),
            matched_profile_id: None,
            generation: 0,
            record_type: RecordType::MarcBib,
            raw_record: Some(RawRecord { id: Some(id), content: None }),
            parsed_record: Some(ParsedRecord {
                id: Some(id),
                content: Some(marc),
                formatted_content: None,
            }),
            error_record: None,
            deleted: bib.state == State::Deleted || matches!(status, 'd' | 's' | 'x'),
            order: None,
            external_ids_holder: Some(ExternalIdsHolder {
                instance_id: Some(bib.instance_id),
                instance_hrid: Some(bib.instance_hrid),
                ..ExternalIdsHolder::default()
            }),
            additional_info: AdditionalInfo { suppress_discovery: bib.suppress_discovery },
            state: bib.state,
            leader_record_status: Some(status.to_string()),
            metadata: Some(metadata.clone()),
        };
        let ord = next_ord(w)?;
        // The raw content is the ISO 2709 text itself, which the stored form drops.
        let body = stored::encode(&record, ord)?;
        w.insert(&RECORDS, &id.to_string(), 1, &body, &columns(&record, ord))?;
        n += 1;
    }
    Ok(n)
}

/// Stores a record built by a verb: derives FOLIO's computed fields and writes it.
fn write(
    w: &mut Writer<'_>,
    mut record: Record,
    previous: Option<&Record>,
    ord: u32,
    actor: Actor,
) -> Result<Record> {
    let id = *record.id.get_or_insert_with(store::new_record_id);
    if record.matched_id.is_none() {
        record.matched_id = previous.and_then(|p| p.matched_id).or(Some(id));
    }
    if let Some(raw) = record.raw_record.as_mut() {
        raw.id = Some(id);
        if raw.content.is_none() {
            return Err(Error::invalid(
                "rawRecord.content",
                "null",
                "rawRecord.content must not be null",
            ));
        }
    }
    let status = match record.parsed_record.as_mut() {
        Some(parsed) => {
            parsed.id = Some(id);
            parsed.formatted_content = None;
            parsed.content.as_ref().map(|m| m.leader().record_status())
        }
        None => None,
    };
    record.leader_record_status = status.map(|c| c.to_string());
    record.deleted = record.state == State::Deleted || matches!(status, Some('d' | 's' | 'x'));
    record.metadata = Some(folio::stamp(previous.and_then(|p| p.metadata.as_ref()), actor));
    let body = stored::encode(&record, ord)?;
    let columns = columns(&record, ord);
    let id_text = id.to_string();
    if previous.is_some() {
        let version = w.get(&RECORDS, &id_text)?.map_or(1, |r| r.version + 1);
        w.update(&RECORDS, &id_text, version, &body, &columns)?;
    } else {
        w.insert(&RECORDS, &id_text, 1, &body, &columns).map_err(|e| match e {
            store::Error::DuplicateId { id, .. } => {
                Error::invalid("id", &id, format!("Record with id '{id}' already exists"))
            }
            other => other.into(),
        })?;
    }
    Ok(record)
}

fn columns(record: &Record, ord: u32) -> Vec<ColumnValue> {
    let text = |s: Option<String>| ColumnValue::from(s);
    vec![
        ColumnValue::Int(i64::from(ord)),
        ColumnValue::Text(record.snapshot_id.to_string()),
        text(record.matched_id.map(|u| u.to_string())),
        ColumnValue::Text(record.record_type.as_str().to_string()),
        ColumnValue::Text(record.state.as_str().to_string()),
        text(record.external_id().map(|u| u.to_string())),
        text(record.external_hrid().map(str::to_string)),
        text(record.leader_record_status.clone()),
        ColumnValue::Int(i64::from(record.additional_info.suppress_discovery)),
        ColumnValue::Int(i64::from(record.deleted)),
        text(record.metadata.as_ref().and_then(|m| m.updated_date).map(|t| t.to_string())),
    ]
}

/// The next record ordinal: the MARC index's key, fixed for a record's life.
fn next_ord(w: &mut Writer<'_>) -> Result<u32> {
    let n = w.next_sequence("srs_record_ord", 0)?;
    u32::try_from(n).map_err(|_| Error::Corrupt(format!("record ordinal {n} out of range")))
}

fn load(r: &Reader<'_>, id: Uuid) -> Result<Option<(u32, Record)>> {
    match r.get(&RECORDS, &id.to_string())? {
        None => Ok(None),
        Some(row) => {
            let d = stored::decode(&row.body)?;
            Ok(Some((d.ord, d.record)))
        }
    }
}

fn find_live(r: &Reader<'_>, id: Uuid, id_type: IdType) -> Result<Option<(u32, Record)>> {
    if id_type == IdType::SrsRecord {
        return load(r, id);
    }
    let rows = r.find_by(&RECORDS, id_type.column(), &id.to_string())?;
    let mut best: Option<(u32, Record)> = None;
    for row in rows {
        let d = stored::decode(&row.body)?;
        keep_newest(&mut best, d.ord, d.record);
    }
    Ok(best)
}

/// The live records of many external ids (instance, holdings or authority ids) at
/// once, each as [`get_by`] finds it (the newest generation that is actual or deleted),
/// read with one query rather than one an id: a page of an OAI-PMH harvest asks for a
/// hundred.
pub fn get_many_by_external(
    r: &Reader<'_>,
    ids: &[Uuid],
) -> Result<std::collections::HashMap<Uuid, Record>> {
    let texts: Vec<String> = ids.iter().map(Uuid::to_string).collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let mut best: std::collections::HashMap<Uuid, Option<(u32, Record)>> =
        std::collections::HashMap::new();
    for row in r.find_by_any(&RECORDS, IdType::External.column(), &refs)? {
        let d = stored::decode(&row.body)?;
        if let Some(id) = d.record.external_id() {
            keep_newest(best.entry(id).or_default(), d.ord, d.record);
        }
    }
    Ok(best.into_iter().filter_map(|(id, kept)| Some((id, kept?.1))).collect())
}

/// Keeps `record` in `best` when it is live and of a later generation.
fn keep_newest(best: &mut Option<(u32, Record)>, ord: u32, record: Record) {
    if !matches!(record.state, State::Actual | State::Deleted) {
        return;
    }
    if best.as_ref().is_none_or(|(_, b)| b.generation < record.generation) {
        *best = Some((ord, record));
    }
}

fn check_snapshot(w: &mut Writer<'_>, id: Uuid) -> Result<()> {
    if w.exists_remembered(&crate::storage::SNAPSHOTS, &id.to_string())? {
        Ok(())
    } else {
        Err(Error::invalid("snapshotId", id, format!("Snapshot with id '{id}' was not found")))
    }
}

fn not_found(id: Uuid) -> Error {
    Error::NotFound { what: "Record", id: id.to_string() }
}

/// FOLIO's `formattedContent`: the leader and one line per field, subfields as `$a`.
pub fn formatted(marc: &marc::Record) -> String {
    use std::fmt::Write;
    let mut out = format!("LEADER {}\n", marc.leader());
    for field in marc.fields() {
        match field.value() {
            Some(value) => {
                let _ = writeln!(out, "{} {value}", field.tag());
            }
            None => {
                let _ = write!(out, "{} {}{}", field.tag(), field.ind1(), field.ind2());
                for s in field.subfields() {
                    let _ = write!(out, "${}{}", s.code, s.value);
                }
                out.push('\n');
            }
        }
    }
    out
}

/// `GET /source-storage/records/{id}/formatted`: the record with `formattedContent`.
pub fn get_formatted(r: &Reader<'_>, id: Uuid, id_type: IdType) -> Result<Record> {
    let mut record = get_by(r, id, id_type)?;
    if let Some(parsed) = record.parsed_record.as_mut() {
        parsed.formatted_content = parsed.content.as_ref().map(formatted);
    }
    Ok(record)
}
