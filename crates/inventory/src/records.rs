//! Storing instances, holdings, items and authorities: one set of verbs over the record
//! types.
//!
//! Every write goes through [`save`], which applies FOLIO's storage rules in order:
//! assign an id, check `_version` (optimistic locking), keep `createdDate`, stamp
//! `metadata`, assign an HRID, check references and derive read-only fields, then write
//! the JSON body and its extracted columns (and, through the store, the change log).

use store::{ColumnValue, Page, QueryField, Reader, RecordTable, Writer};
use uuid::Uuid;

use folio::record::Mode;
use folio::{Actor, Metadata, Stored, Timestamp};

use crate::hrid::{HridKind, HridSettings};

use crate::{
    Authority, HoldingsRecord, Instance, Item,
    storage::{AUTHORITIES, Error, HOLDINGS, INSTANCES, ITEMS, Result},
};

/// An inventory record type: [`Instance`], [`HoldingsRecord`], [`Item`] or [`Authority`].
/// What FOLIO's verbs share (id, `_version`, metadata, table, columns) it declares as a
/// [`folio::Record`]; this adds what inventory storage does beyond them. Sealed: the set
/// is fixed by this crate.
pub trait Record: folio::Record + Clone + sealed::Sealed {
    /// Which HRID setting numbers the type; `None` for records without HRIDs
    /// (authorities).
    const HRID: Option<HridKind>;

    fn hrid(&self) -> Option<&str>;
    fn set_hrid(&mut self, hrid: String);
    /// Checks references to other records and derives read-only fields.
    fn prepare(&mut self, reader: &Reader<'_>, checked: &mut Checked) -> Result<()>;

    /// Keeps records derived from this one true after it was updated.
    fn after_update(&self, _id: Uuid, _writer: &mut Writer<'_>, _actor: Actor) -> Result<()> {
        Ok(())
    }
}

/// References already found to exist in this transaction. A batch of a thousand items
/// names the same material type a thousand times; it is looked up once.
#[derive(Debug, Default)]
pub struct Checked {
    found: std::collections::HashSet<(&'static str, Uuid)>,
    // The holdings record of the previous item: a batch lists a holdings record's items
    // together, and each needs its parent to derive its effective fields. Only item
    // batches fill it, and they change no holdings record.
    holdings: Option<HoldingsRecord>,
    // The tenant's HRID settings, read once per transaction's batch.
    hrid_settings: Option<HridSettings>,
}

/// Stores one record through FOLIO's shared write, adding an HRID (kept from the stored
/// record, or the next of its type) and inventory's checks; returns it as stored.
pub(crate) fn save<R: Record>(
    writer: &mut Writer<'_>,
    mut record: R,
    mode: Mode,
    actor: Actor,
    checked: &mut Checked,
) -> Result<R> {
    let written =
        folio::record::write(writer, &mut record, mode, actor, |writer, record, previous| {
            if record.hrid().is_none() {
                // An update without an HRID keeps the one assigned at creation.
                let kept = previous.and_then(|p| p.hrid()).map(str::to_string);
                let hrid = match (kept, R::HRID) {
                    (Some(kept), _) => Some(kept),
                    (None, Some(kind)) => Some(next_in_batch(writer, checked, kind)?),
                    (None, None) => None,
                };
                if let Some(hrid) = hrid {
                    record.set_hrid(hrid);
                }
            }
            record.prepare(writer, checked)
        })
        .map_err(|e| unique_error::<R>(e, &record))?;
    if written.replaced {
        record.after_update(written.id, writer, actor)?;
    }
    Ok(record)
}

/// The next HRID of `kind`, with the settings read once for a whole batch.
fn next_in_batch(writer: &mut Writer<'_>, checked: &mut Checked, kind: HridKind) -> Result<String> {
    let settings = match &checked.hrid_settings {
        Some(settings) => settings,
        None => checked.hrid_settings.insert(crate::hrid::hrid_settings(writer)?),
    };
    crate::hrid::next(writer, settings, kind)
}

/// Names the field behind a unique-index violation, as FOLIO's 422 does.
fn unique_error<R: Record>(e: Error, record: &R) -> Error {
    let Error::Store(e) = e else { return e };
    match e {
        store::Error::Unique { column, .. } if column == "hrid" => Error::invalid(
            "hrid",
            record.hrid().unwrap_or_default(),
            format!(
                "HRID value already exists in table {}: {}",
                R::TABLE.table,
                record.hrid().unwrap_or_default()
            ),
        ),
        store::Error::Unique { column, .. } if column == "barcode" => {
            let barcode = record.columns().get(1).and_then(|c| match c {
                ColumnValue::Text(t) => Some(t.clone()),
                _ => None,
            });
            let barcode = barcode.unwrap_or_default();
            Error::invalid(
                "barcode",
                &barcode,
                format!("Barcode must be unique, {barcode} is already assigned to another item"),
            )
        }
        store::Error::DuplicateId { id, .. } => Error::invalid(
            "id",
            &id,
            format!("id value already exists in table {}: {id}", R::TABLE.table),
        ),
        other => other.into(),
    }
}

/// A stored record, parsed.
pub(crate) fn get<R: Record>(reader: &Reader<'_>, id: Uuid) -> Result<Option<Stored<R>>> {
    Ok(folio::record::get(reader, id)?)
}

/// Reads stored JSON as a type that is not itself a record (a summary, a reference
/// record's model).
pub(crate) fn parse<T: serde::de::DeserializeOwned>(body: &str) -> Result<T> {
    serde_json::from_str(body).map_err(|e| Error::Corrupt(e.to_string()))
}

fn uuid_column(id: Option<Uuid>) -> ColumnValue {
    id.map_or(ColumnValue::Null, |id| ColumnValue::Text(id.to_string()))
}

fn date_column(metadata: Option<&Metadata>) -> ColumnValue {
    metadata
        .and_then(|m| m.updated_date)
        .map_or(ColumnValue::Null, |d| ColumnValue::Text(d.to_string()))
}

/// Fails unless a record with `id` exists in `table`.
pub(crate) fn require_reference(
    reader: &Reader<'_>,
    checked: &mut Checked,
    table: &RecordTable,
    field: &str,
    id: Uuid,
    what: &str,
) -> Result<()> {
    if checked.found.contains(&(table.table, id)) {
        return Ok(());
    }
    if reader.exists(table, &id.to_string())? {
        checked.found.insert((table.table, id));
        Ok(())
    } else {
        Err(Error::invalid(
            field,
            id,
            format!("Cannot set {field} = {id} because it does not exist in {what}"),
        ))
    }
}

use store::FieldKind::{Exact, Text};

/// The HRID accessors of the inventory models that have one.
macro_rules! hrid_accessors {
    () => {
        fn hrid(&self) -> Option<&str> {
            self.hrid.as_deref()
        }
        fn set_hrid(&mut self, hrid: String) {
            self.hrid = Some(hrid);
        }
    };
}

impl folio::Record for Instance {
    const TABLE: RecordTable = INSTANCES;
    const NAME: &'static str = "Instance";
    const QUERY: &'static [QueryField] = &[
        QueryField { index: "id", column: "id", kind: Text },
        QueryField { index: "hrid", column: "hrid", kind: Text },
        QueryField { index: "source", column: "source", kind: Text },
        QueryField { index: "metadata.updatedDate", column: "updated_date", kind: Exact },
    ];

    folio::id_and_metadata!(versioned);
    fn columns(&self) -> Vec<ColumnValue> {
        vec![
            self.hrid.clone().into(),
            ColumnValue::Text(self.source.clone()),
            date_column(self.metadata.as_ref()),
        ]
    }
}

impl Record for Instance {
    const HRID: Option<HridKind> = Some(HridKind::Instances);

    hrid_accessors!();
    fn prepare(&mut self, reader: &Reader<'_>, checked: &mut Checked) -> Result<()> {
        let types = crate::RefKind::InstanceType.table();
        require_reference(
            reader,
            checked,
            &types,
            "instanceTypeId",
            self.instance_type_id,
            "instance types",
        )
    }
}

impl folio::Record for HoldingsRecord {
    const TABLE: RecordTable = HOLDINGS;
    const NAME: &'static str = "Holdings record";
    const QUERY: &'static [QueryField] = &[
        QueryField { index: "id", column: "id", kind: Text },
        QueryField { index: "hrid", column: "hrid", kind: Text },
        QueryField { index: "instanceId", column: "instance_id", kind: Text },
        QueryField { index: "permanentLocationId", column: "permanent_location_id", kind: Text },
        QueryField { index: "effectiveLocationId", column: "effective_location_id", kind: Text },
        QueryField { index: "metadata.updatedDate", column: "updated_date", kind: Exact },
    ];

    folio::id_and_metadata!(versioned);
    fn columns(&self) -> Vec<ColumnValue> {
        vec![
            self.hrid.clone().into(),
            ColumnValue::Text(self.instance_id.to_string()),
            ColumnValue::Text(self.permanent_location_id.to_string()),
            uuid_column(self.effective_location_id),
            date_column(self.metadata.as_ref()),
        ]
    }
}

impl Record for HoldingsRecord {
    const HRID: Option<HridKind> = Some(HridKind::Holdings);

    hrid_accessors!();
    fn prepare(&mut self, reader: &Reader<'_>, checked: &mut Checked) -> Result<()> {
        require_reference(
            reader,
            checked,
            &INSTANCES,
            "instanceId",
            self.instance_id,
            "instances",
        )?;
        let locations = crate::RefKind::Location.table();
        require_reference(
            reader,
            checked,
            &locations,
            "permanentLocationId",
            self.permanent_location_id,
            "locations",
        )?;
        if let Some(temporary) = self.temporary_location_id {
            require_reference(
                reader,
                checked,
                &locations,
                "temporaryLocationId",
                temporary,
                "locations",
            )?;
        }
        let sources = crate::RefKind::HoldingsSource.table();
        require_reference(
            reader,
            checked,
            &sources,
            "sourceId",
            self.source_id,
            "holdings sources",
        )?;
        self.derive_effective_fields();
        Ok(())
    }

    /// A holdings record's location and call number flow into its items' effective
    /// values; items whose values change are rewritten.
    fn after_update(&self, id: Uuid, writer: &mut Writer<'_>, actor: Actor) -> Result<()> {
        let id = id.to_string();
        for stored in writer.find_by(&ITEMS, "holdings_record_id", &id)? {
            let item: Item = folio::record::parse(&stored.body, &stored.id)?;
            let mut derived = item.clone();
            derived.derive_effective_fields(self);
            if derived.effective_location_id != item.effective_location_id
                || derived.effective_call_number_components != item.effective_call_number_components
            {
                // The item's check reads its holdings from here, not the database.
                let mut checked = Checked { holdings: Some(self.clone()), ..Checked::default() };
                save(writer, derived, Mode::Replace, actor, &mut checked)?;
            }
        }
        Ok(())
    }
}

impl folio::Record for Item {
    const TABLE: RecordTable = ITEMS;
    const NAME: &'static str = "Item";
    const QUERY: &'static [QueryField] = &[
        QueryField { index: "id", column: "id", kind: Text },
        QueryField { index: "hrid", column: "hrid", kind: Text },
        QueryField { index: "barcode", column: "barcode", kind: Text },
        QueryField { index: "holdingsRecordId", column: "holdings_record_id", kind: Text },
        QueryField { index: "status.name", column: "status_name", kind: Exact },
        QueryField { index: "effectiveLocationId", column: "effective_location_id", kind: Text },
        QueryField { index: "materialTypeId", column: "material_type_id", kind: Text },
        QueryField { index: "permanentLoanTypeId", column: "permanent_loan_type_id", kind: Text },
        QueryField { index: "metadata.updatedDate", column: "updated_date", kind: Exact },
    ];

    folio::id_and_metadata!(versioned);
    fn columns(&self) -> Vec<ColumnValue> {
        vec![
            self.hrid.clone().into(),
            self.barcode.clone().filter(|b| !b.is_empty()).into(),
            ColumnValue::Text(self.holdings_record_id.to_string()),
            ColumnValue::Text(self.status.name.as_str().to_string()),
            uuid_column(self.effective_location_id),
            ColumnValue::Text(self.material_type_id.to_string()),
            ColumnValue::Text(self.permanent_loan_type_id.to_string()),
            date_column(self.metadata.as_ref()),
        ]
    }
}

impl Record for Item {
    const HRID: Option<HridKind> = Some(HridKind::Items);

    hrid_accessors!();
    fn prepare(&mut self, reader: &Reader<'_>, checked: &mut Checked) -> Result<()> {
        let cached = checked.holdings.take().filter(|h| h.id == Some(self.holdings_record_id));
        let holdings = match cached {
            Some(holdings) => Some(holdings),
            None => get::<HoldingsRecord>(reader, self.holdings_record_id)?.map(|h| h.record),
        };
        let Some(holdings) = holdings else {
            return Err(Error::invalid(
                "holdingsRecordId",
                self.holdings_record_id,
                format!(
                    "Cannot set holdingsRecordId = {} because it does not exist in holdings records",
                    self.holdings_record_id
                ),
            ));
        };
        let material_types = crate::RefKind::MaterialType.table();
        require_reference(
            reader,
            checked,
            &material_types,
            "materialTypeId",
            self.material_type_id,
            "material types",
        )?;
        let loan_types = crate::RefKind::LoanType.table();
        require_reference(
            reader,
            checked,
            &loan_types,
            "permanentLoanTypeId",
            self.permanent_loan_type_id,
            "loan types",
        )?;
        if let Some(temporary) = self.temporary_loan_type_id {
            require_reference(
                reader,
                checked,
                &loan_types,
                "temporaryLoanTypeId",
                temporary,
                "loan types",
            )?;
        }
        let locations = crate::RefKind::Location.table();
        for (field, location) in [
            ("permanentLocationId", self.permanent_location_id),
            ("temporaryLocationId", self.temporary_location_id),
        ] {
            if let Some(location) = location {
                require_reference(reader, checked, &locations, field, location, "locations")?;
            }
        }
        if self.status.date.is_none() {
            self.status.date = Some(Timestamp::now());
        }
        self.derive_effective_fields(&holdings);
        checked.holdings = Some(holdings);
        Ok(())
    }
}

impl folio::Record for Authority {
    const TABLE: RecordTable = AUTHORITIES;
    const NAME: &'static str = "Authority";
    // mod-entities-links answers CQL on its table's columns; these are the ones kept.
    const QUERY: &'static [QueryField] = &[
        QueryField { index: "id", column: "id", kind: Text },
        QueryField { index: "naturalId", column: "natural_id", kind: Text },
        QueryField { index: "source", column: "source", kind: Text },
        QueryField { index: "sourceFileId", column: "source_file_id", kind: Text },
        QueryField { index: "headingType", column: "heading_type", kind: Exact },
        QueryField { index: "metadata.updatedDate", column: "updated_date", kind: Exact },
    ];

    folio::id_and_metadata!(versioned);
    fn columns(&self) -> Vec<ColumnValue> {
        let heading_type = crate::model::HeadingKind::ALL
            .into_iter()
            .find(|kind| self.headings(*kind).0.is_some())
            .map(|kind| kind.field());
        vec![
            ColumnValue::Text(self.natural_id.clone()),
            ColumnValue::Text(self.source.clone()),
            uuid_column(self.source_file_id),
            heading_type.into(),
            date_column(self.metadata.as_ref()),
        ]
    }
}

impl Record for Authority {
    const HRID: Option<HridKind> = None;

    fn hrid(&self) -> Option<&str> {
        None
    }
    fn set_hrid(&mut self, _hrid: String) {}
    fn prepare(&mut self, _reader: &Reader<'_>, _checked: &mut Checked) -> Result<()> {
        // FOLIO requires these to be present; an empty string is as good as absent.
        for (field, value) in [("source", &self.source), ("naturalId", &self.natural_id)] {
            if value.trim().is_empty() {
                return Err(Error::invalid(field, value, format!("{field} must not be blank")));
            }
        }
        Ok(())
    }
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for crate::Authority {}
    impl Sealed for crate::Instance {}
    impl Sealed for crate::HoldingsRecord {}
    impl Sealed for crate::Item {}
}

/// Creates a record from a request body (FOLIO's POST).
pub fn create<R: Record>(writer: &mut Writer<'_>, body: &[u8], actor: Actor) -> Result<R> {
    let record: R = folio::decode(body)?;
    save(writer, record, Mode::Create, actor, &mut Checked::default())
}

/// Creates a typed record, remembering in `checked` the references found, so that the
/// records of one transaction (an import's chunk) look each up once.
pub fn create_record<R: Record>(
    writer: &mut Writer<'_>,
    record: R,
    actor: Actor,
    checked: &mut Checked,
) -> Result<R> {
    save(writer, record, Mode::Create, actor, checked)
}

/// Replaces a typed record (an import's overlay), its `_version` checked as a PUT's.
pub fn replace_record<R: Record>(
    writer: &mut Writer<'_>,
    record: R,
    actor: Actor,
    checked: &mut Checked,
) -> Result<R> {
    save(writer, record, Mode::Replace, actor, checked)
}

/// Replaces a record (FOLIO's PUT). The body's id, if any, must be the path's.
pub fn replace<R: Record>(
    writer: &mut Writer<'_>,
    id: Uuid,
    body: &[u8],
    actor: Actor,
) -> Result<R> {
    let mut record: R = folio::decode(body)?;
    folio::record::claim_id(&mut record, id)?;
    save(writer, record, Mode::Replace, actor, &mut Checked::default())
}

/// Writes many records in one transaction (FOLIO's `batch/synchronous`): all or none.
/// Without `upsert`, an id that exists already fails the batch. Returns the records as
/// stored: ids, HRIDs, metadata and computed fields filled in.
pub fn save_batch<R: Record>(
    writer: &mut Writer<'_>,
    records: Vec<R>,
    upsert: bool,
    actor: Actor,
) -> Result<Vec<R>> {
    let mode = if upsert { Mode::Upsert } else { Mode::Create };
    let mut checked = Checked::default();
    let mut saved = Vec::with_capacity(records.len());
    for (idx, record) in records.into_iter().enumerate() {
        saved.push(save(writer, record, mode, actor, &mut checked).map_err(|e| in_batch(e, idx))?);
    }
    Ok(saved)
}

/// Says which record of a batch failed.
fn in_batch(e: Error, idx: usize) -> Error {
    match e {
        Error::Invalid { field, value, message } => Error::Invalid {
            field: format!("[{idx}].{field}"),
            value,
            message: format!("record {idx}: {message}"),
        },
        other => other,
    }
}

/// The next HRID of a record type, as saving a record without one assigns it (`None` for
/// types without HRIDs). For callers that must know it before saving: a MARC record's
/// 001 holds its instance's HRID.
pub fn next_hrid<R: Record>(writer: &mut Writer<'_>) -> Result<Option<String>> {
    Ok(next_hrids::<R>(writer, 1)?.pop())
}

/// The next `n` HRIDs of a record type (none for types without HRIDs), the settings read
/// once: for a batch whose MARC records carry their instances' HRIDs.
pub fn next_hrids<R: Record>(writer: &mut Writer<'_>, n: usize) -> Result<Vec<String>> {
    let Some(kind) = R::HRID else { return Ok(Vec::new()) };
    let settings = crate::hrid::hrid_settings(writer)?;
    (0..n).map(|_| crate::hrid::next(writer, &settings, kind)).collect()
}

/// Deletes a record. Instances with holdings and holdings with items cannot be deleted.
pub fn delete<R: Record>(writer: &mut Writer<'_>, id: Uuid) -> Result<()> {
    let id_text = id.to_string();
    let dependants = match R::TABLE.table {
        "instances" => Some((HOLDINGS, "instance_id", "holdings records refer to it")),
        "holdings" => Some((ITEMS, "holdings_record_id", "items refer to it")),
        _ => None,
    };
    if let Some((table, column, message)) = dependants
        && !writer.find_by(&table, column, &id_text)?.is_empty()
    {
        return Err(Error::InUse {
            record_type: R::NAME,
            id: id_text,
            message: message.to_string(),
        });
    }
    Ok(folio::record::delete::<R>(writer, id)?)
}

/// A record's stored JSON.
pub fn get_json<R: Record>(reader: &Reader<'_>, id: Uuid) -> Result<String> {
    Ok(folio::record::get_json::<R>(reader, id)?)
}

/// One page of records matching a CQL query, as stored JSON, and the exact total.
pub fn list_json<R: Record>(
    reader: &Reader<'_>,
    cql: Option<&str>,
    page: Page,
) -> Result<(Vec<String>, u64)> {
    Ok(folio::record::list_json::<R>(reader, cql, page)?)
}

/// Decodes a batch body such as `{"instances":[...]}`; `key` names the array.
pub fn decode_batch<R: Record>(body: &[u8], key: &str) -> Result<Vec<R>> {
    let mut map: std::collections::BTreeMap<String, Vec<R>> = folio::decode(body)?;
    let unexpected = map.keys().find(|k| k.as_str() != key).cloned();
    if let Some(other) = unexpected {
        return Err(Error::invalid(
            &other,
            "",
            format!("Unrecognized field \"{other}\": the batch goes in \"{key}\""),
        ));
    }
    map.remove(key).ok_or_else(|| Error::invalid(key, "null", "must not be null"))
}
