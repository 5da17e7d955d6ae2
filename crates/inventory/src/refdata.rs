//! Storing reference records of every kind, one table per kind, all of one shape.
//!
//! Rules applied on every write: FOLIO's unique fields (name, and code where FOLIO has a
//! unique code) compared case-insensitively; the location hierarchy's links must point
//! to existing records; a record other records use cannot be deleted.

use store::{ColumnValue, FieldKind::Text, Page, QueryField, Reader, RecordTable, Writer};
use uuid::Uuid;

use folio::Actor;

use crate::{
    RefKind, RefRecord,
    storage::{Error, HOLDINGS, ITEMS, Result},
};

const COLUMNS: &[&str] = &["name", "code", "institution_id", "campus_id", "library_id"];

macro_rules! tables {
    ($($kind:ident => $table:literal, $type:literal;)*) => {
        /// The table of a kind.
        pub(crate) fn table(kind: RefKind) -> RecordTable {
            match kind {
                $(RefKind::$kind => RecordTable { table: $table, record_type: $type, columns: COLUMNS },)*
            }
        }
    };
}

tables! {
    InstanceType => "ref_instance_type", "instance_type";
    ContributorNameType => "ref_contributor_name_type", "contributor_name_type";
    IdentifierType => "ref_identifier_type", "identifier_type";
    HoldingsType => "ref_holdings_type", "holdings_type";
    CallNumberType => "ref_call_number_type", "call_number_type";
    MaterialType => "ref_material_type", "material_type";
    LoanType => "ref_loan_type", "loan_type";
    Institution => "ref_institution", "institution";
    Campus => "ref_campus", "campus";
    Library => "ref_library", "library";
    Location => "ref_location", "location";
    ServicePoint => "ref_service_point", "service_point";
    HoldingsSource => "ref_holdings_source", "holdings_source";
}

const QUERY_FIELDS: &[QueryField] = &[
    QueryField { index: "id", column: "id", kind: Text },
    QueryField { index: "name", column: "name", kind: Text },
    QueryField { index: "code", column: "code", kind: Text },
    QueryField { index: "institutionId", column: "institution_id", kind: Text },
    QueryField { index: "campusId", column: "campus_id", kind: Text },
    QueryField { index: "libraryId", column: "library_id", kind: Text },
];

fn columns(record: &RefRecord) -> Vec<ColumnValue> {
    let code =
        record.unique_fields().into_iter().find(|(f, _)| *f == "code").map(|(_, v)| v.to_string());
    let link = |field: &str| {
        record
            .references()
            .into_iter()
            .find(|(f, _, _)| *f == field)
            .map(|(_, _, id)| id.to_string())
    };
    vec![
        ColumnValue::Text(record.name().to_string()),
        code.into(),
        link("institutionId").into(),
        link("campusId").into(),
        link("libraryId").into(),
    ]
}

/// Adds the seed records of every kind that are not there yet; returns how many it added.
/// Safe to run on every start of a tenant: an existing record, or one whose name is taken
/// by a record the library made, is left alone.
pub fn load_reference_data(writer: &mut Writer<'_>) -> Result<usize> {
    let mut n_added = 0;
    for &kind in RefKind::all() {
        let records = kind
            .decode_array(crate::seed_records(kind))
            .map_err(|e| Error::Corrupt(format!("seed data for {}: {e}", kind.record_type())))?;
        let table = table(kind);
        for mut record in records {
            let id = record
                .id()
                .ok_or_else(|| Error::Corrupt(format!("seed {} has no id", kind.record_type())))?;
            if writer.exists(&table, &id.to_string())?
                || unique_clash(writer, &record, Some(id))?.is_some()
            {
                continue;
            }
            record.set_metadata(Some(folio::stamp(None, Actor::default())));
            write(writer, &record, 1, false)?;
            n_added += 1;
        }
    }
    Ok(n_added)
}

/// Creates a reference record from a request body.
pub fn create_reference(
    writer: &mut Writer<'_>,
    kind: RefKind,
    body: &[u8],
    actor: Actor,
) -> Result<RefRecord> {
    let mut record = kind.decode(body)?;
    let id = match record.id() {
        Some(id) => id,
        None => {
            let id = Uuid::new_v4();
            record.set_id(id);
            id
        }
    };
    if writer.exists(&table(kind), &id.to_string())? {
        return Err(Error::invalid(
            "id",
            id,
            format!("id value already exists in table {}: {id}", table(kind).table),
        ));
    }
    check(writer, &record, id)?;
    record.set_metadata(Some(folio::stamp(None, actor)));
    write(writer, &record, 1, false)?;
    Ok(record)
}

/// Replaces a reference record.
pub fn replace_reference(
    writer: &mut Writer<'_>,
    kind: RefKind,
    id: Uuid,
    body: &[u8],
    actor: Actor,
) -> Result<()> {
    let mut record = kind.decode(body)?;
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
    let table = table(kind);
    let Some(stored) = writer.get(&table, &id.to_string())? else {
        return Err(Error::NotFound { record_type: kind.record_type(), id: id.to_string() });
    };
    check(writer, &record, id)?;
    let previous = kind.decode(stored.body.as_bytes())?;
    record.set_metadata(Some(folio::stamp(previous.metadata(), actor)));
    write(writer, &record, stored.version + 1, true)
}

/// Deletes a reference record that nothing uses.
pub fn delete_reference(writer: &mut Writer<'_>, kind: RefKind, id: Uuid) -> Result<()> {
    let id_text = id.to_string();
    let users: &[(RecordTable, &str, &str)] = match kind {
        RefKind::MaterialType => &[(ITEMS, "material_type_id", "items")],
        RefKind::LoanType => &[(ITEMS, "permanent_loan_type_id", "items")],
        RefKind::Location => &[
            (HOLDINGS, "permanent_location_id", "holdings records"),
            (ITEMS, "effective_location_id", "items"),
        ],
        _ => &[],
    };
    for (user_table, column, what) in users {
        if !writer.find_by(user_table, column, &id_text)?.is_empty() {
            return Err(Error::InUse {
                record_type: kind.record_type(),
                id: id_text,
                message: format!("{what} refer to it"),
            });
        }
    }
    let children: &[(RefKind, &str)] = match kind {
        RefKind::Institution => {
            &[(RefKind::Campus, "institution_id"), (RefKind::Location, "institution_id")]
        }
        RefKind::Campus => &[(RefKind::Library, "campus_id"), (RefKind::Location, "campus_id")],
        RefKind::Library => &[(RefKind::Location, "library_id")],
        _ => &[],
    };
    for (child, column) in children {
        if !writer.find_by(&table(*child), column, &id_text)?.is_empty() {
            let message = format!("{} records refer to it", child.record_type());
            return Err(Error::InUse { record_type: kind.record_type(), id: id_text, message });
        }
    }
    if writer.delete(&table(kind), &id_text)? {
        Ok(())
    } else {
        Err(Error::NotFound { record_type: kind.record_type(), id: id_text })
    }
}

/// A reference record's stored JSON.
pub fn get_reference_json(reader: &Reader<'_>, kind: RefKind, id: Uuid) -> Result<String> {
    reader
        .get(&table(kind), &id.to_string())?
        .map(|r| r.body)
        .ok_or_else(|| Error::NotFound { record_type: kind.record_type(), id: id.to_string() })
}

/// One page of reference records matching a CQL query, and the total. Unsorted lists
/// come back in name order, as FOLIO's settings pages expect.
pub fn list_reference_json(
    reader: &Reader<'_>,
    kind: RefKind,
    cql: Option<&str>,
    page: Page,
) -> Result<(Vec<String>, u64)> {
    let default_sort;
    let cql = match cql {
        Some(q) => Some(q),
        None => {
            default_sort = "cql.allRecords=1 sortBy name".to_string();
            Some(default_sort.as_str())
        }
    };
    let (records, total) = reader.list(&table(kind), QUERY_FIELDS, cql, page)?;
    Ok((records.into_iter().map(|r| r.body).collect(), total))
}

/// The name of one reference record, if it exists (for views that show names).
pub(crate) fn name_of(reader: &Reader<'_>, kind: RefKind, id: Uuid) -> Result<Option<String>> {
    // The name column holds the record's name as written: no need to parse the body.
    Ok(reader.get_column(&table(kind), &id.to_string(), "name")?.map(Option::unwrap_or_default))
}

/// The id of the record of a kind with this name, if any (names are unique per kind).
pub fn reference_id_by_name(
    reader: &Reader<'_>,
    kind: RefKind,
    name: &str,
) -> Result<Option<Uuid>> {
    let found = reader.find_by(&table(kind), "name", name)?;
    Ok(found.first().and_then(|r| Uuid::parse_str(&r.id).ok()))
}

fn check(writer: &Writer<'_>, record: &RefRecord, id: Uuid) -> Result<()> {
    if let Some((field, value)) = unique_clash(writer, record, Some(id))? {
        return Err(Error::invalid(
            field,
            &value,
            format!(
                "{field} value already exists in table {}: {value}",
                table(record.kind()).table
            ),
        ));
    }
    for (field, kind, target) in record.references() {
        if !writer.exists(&table(kind), &target.to_string())? {
            return Err(Error::invalid(
                field,
                target,
                format!(
                    "Cannot set {field} = {target} because it does not exist in {}",
                    table(kind).table
                ),
            ));
        }
    }
    Ok(())
}

/// The first unique field whose value another record of the kind already has.
fn unique_clash(
    reader: &Reader<'_>,
    record: &RefRecord,
    own_id: Option<Uuid>,
) -> Result<Option<(&'static str, String)>> {
    let table = table(record.kind());
    for (field, value) in record.unique_fields() {
        let others = reader.find_by(&table, field, value)?;
        if others
            .iter()
            .any(|other| Some(other.id.as_str()) != own_id.map(|i| i.to_string()).as_deref())
        {
            return Ok(Some((field, value.to_string())));
        }
    }
    Ok(None)
}

fn write(writer: &mut Writer<'_>, record: &RefRecord, version: i64, exists: bool) -> Result<()> {
    let body = serde_json::to_string(record).map_err(|e| Error::Corrupt(e.to_string()))?;
    let id = record.id().expect("id assigned before writing").to_string();
    let table = table(record.kind());
    if exists {
        writer.update(&table, &id, version, &body, &columns(record))?;
    } else {
        writer.insert(&table, &id, version, &body, &columns(record))?;
    }
    Ok(())
}
