//! Storing reference records of every kind, one table per kind, all of one shape.
//!
//! Rules applied on every write: FOLIO's unique values (each kind's [`Unique`] keys)
//! compared case-insensitively; links to other reference records (the location
//! hierarchy, a statistical code's type) must point to existing records; a record other
//! records use cannot be deleted.

use store::{Page, Reader, RecordTable, Writer};
use uuid::Uuid;

use folio::Actor;
use folio::record::Mode;

use crate::reference::{KindVisitor, Reference, Unique};
use crate::{
    RefKind, RefRecord,
    storage::{Error, HOLDINGS, ITEMS, Result},
};

/// Adds the seed records of every kind that are not there yet; returns how many it added.
/// Safe to run on every start of a tenant: an existing record, or one whose name is taken
/// by a record the library made, is left alone.
pub fn load_reference_data(writer: &mut Writer<'_>) -> Result<usize> {
    let mut n_added = 0;
    for &kind in RefKind::all() {
        n_added += kind.visit(Seed { writer: &mut *writer })?;
    }
    n_added += crate::source_files::seed_source_files(writer)?;
    Ok(n_added)
}

/// Stores the seed records of one kind that are missing.
struct Seed<'w, 'c> {
    writer: &'w mut Writer<'c>,
}

impl KindVisitor for Seed<'_, '_> {
    type Out = Result<usize>;

    fn visit<T: Reference>(self) -> Result<usize> {
        let name = T::KIND.record_type();
        let records: Vec<T> = serde_json::from_str(T::KIND.seed_json())
            .map_err(|e| Error::Corrupt(format!("seed data for {name}: {e}")))?;
        let mut n_added = 0;
        for mut record in records {
            let id = record.id().ok_or_else(|| Error::Corrupt(format!("seed {name} has no id")))?;
            if self.writer.exists(&T::TABLE, &id.to_string())?
                || unique_clash(self.writer, &record)?.is_some()
            {
                continue;
            }
            folio::record::write(
                self.writer,
                &mut record,
                Mode::Create,
                Actor::default(),
                |_, _, _| Ok::<_, Error>(()),
            )?;
            n_added += 1;
        }
        Ok(n_added)
    }
}

/// Creates a reference record from a request body.
pub fn create_reference(
    writer: &mut Writer<'_>,
    kind: RefKind,
    body: &[u8],
    actor: Actor,
) -> Result<RefRecord> {
    kind.visit(Store { writer, body, path_id: None, actor })
}

/// Replaces a reference record.
pub fn replace_reference(
    writer: &mut Writer<'_>,
    kind: RefKind,
    id: Uuid,
    body: &[u8],
    actor: Actor,
) -> Result<()> {
    kind.visit(Store { writer, body, path_id: Some(id), actor })?;
    Ok(())
}

/// One write of a request body through FOLIO's shared verb, typed by its kind: a POST,
/// or a PUT to `path_id`. Unique names and codes, and links to other reference
/// records, are checked in the write's hook.
struct Store<'w, 'c, 'b> {
    writer: &'w mut Writer<'c>,
    body: &'b [u8],
    path_id: Option<Uuid>,
    actor: Actor,
}

impl KindVisitor for Store<'_, '_, '_> {
    type Out = Result<RefRecord>;

    fn visit<T: Reference>(self) -> Result<RefRecord> {
        let mut record: T = folio::decode(self.body)?;
        let mode = match self.path_id {
            Some(id) => {
                folio::record::claim_id(&mut record, id)?;
                Mode::Replace
            }
            None => Mode::Create,
        };
        folio::record::write(self.writer, &mut record, mode, self.actor, |w, record, _| {
            check(w, record)
        })
        .map_err(|e| match e {
            Error::Store(store::Error::DuplicateId { id, .. }) => Error::invalid(
                "id",
                &id,
                format!("id value already exists in table {}: {id}", T::TABLE.table),
            ),
            other => other,
        })?;
        Ok(record.into())
    }
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
    // The reference records that link here with a foreign key in FOLIO, by the link's
    // field (see `Reference::links`), found through the child kind's CQL index on it.
    let children: &[(RefKind, &str)] = match kind {
        RefKind::Institution => {
            &[(RefKind::Campus, "institutionId"), (RefKind::Location, "institutionId")]
        }
        RefKind::Campus => &[(RefKind::Library, "campusId"), (RefKind::Location, "campusId")],
        RefKind::Library => &[(RefKind::Location, "libraryId")],
        RefKind::StatisticalCodeType => &[(RefKind::StatisticalCode, "statisticalCodeTypeId")],
        _ => &[],
    };
    for (child, field) in children {
        let query = format!("{field}==\"{id_text}\"");
        let count_only = Page { offset: 0, limit: 0 };
        let (_, n_children) =
            writer.list(&child.table(), child.query_fields(), Some(&query), count_only)?;
        if n_children > 0 {
            let message = format!("{} records refer to it", child.record_type());
            return Err(Error::InUse { record_type: kind.record_type(), id: id_text, message });
        }
    }
    if writer.delete(&kind.table(), &id_text)? {
        Ok(())
    } else {
        Err(Error::NotFound { record_type: kind.record_type(), id: id_text })
    }
}

/// A reference record's stored JSON.
pub fn get_reference_json(reader: &Reader<'_>, kind: RefKind, id: Uuid) -> Result<String> {
    reader
        .get(&kind.table(), &id.to_string())?
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
    let (records, total) = reader.list(&kind.table(), kind.query_fields(), cql, page)?;
    Ok((records.into_iter().map(|r| r.body).collect(), total))
}

/// The name of one reference record, if it exists (for views that show names).
pub(crate) fn name_of(reader: &Reader<'_>, kind: RefKind, id: Uuid) -> Result<Option<String>> {
    // The name column holds the record's name as written: no need to parse the body.
    Ok(reader.get_column(&kind.table(), &id.to_string(), "name")?.map(Option::unwrap_or_default))
}

/// The id of the record of a kind with this name, if any (names are unique per kind).
pub fn reference_id_by_name(
    reader: &Reader<'_>,
    kind: RefKind,
    name: &str,
) -> Result<Option<Uuid>> {
    let found = reader.find_by(&kind.table(), "name", name)?;
    Ok(found.first().and_then(|r| Uuid::parse_str(&r.id).ok()))
}

fn check<T: Reference>(writer: &Writer<'_>, record: &T) -> Result<()> {
    if let Some((key, value)) = unique_clash(writer, record)? {
        let field = key.field;
        let within = key.within.map(|link| format!(" for the same {link}")).unwrap_or_default();
        return Err(Error::invalid(
            field,
            &value,
            format!("{field} value already exists in table {}{within}: {value}", T::TABLE.table),
        ));
    }
    for (field, kind, target) in record.links() {
        if !writer.exists(&kind.table(), &target.to_string())? {
            return Err(Error::invalid(
                field,
                target,
                format!(
                    "Cannot set {field} = {target} because it does not exist in {}",
                    kind.table().table
                ),
            ));
        }
    }
    Ok(())
}

/// The first unique key whose value another record of the kind already has, with the
/// value. A key unique within a link clashes only with a record of the same link.
fn unique_clash<T: Reference>(reader: &Reader<'_>, record: &T) -> Result<Option<(Unique, String)>> {
    let own_id = record.id().map(|id| id.to_string());
    for unique in record.unique_values() {
        let others = reader.find_by(&T::TABLE, unique.key.field, unique.value)?;
        for other in others.iter().filter(|other| Some(other.id.as_str()) != own_id.as_deref()) {
            let clash = match unique.key.within {
                None => true,
                Some(_) => {
                    let other: T = serde_json::from_str(&other.body).map_err(|e| {
                        Error::Corrupt(format!("stored {} {}: {e}", T::NAME, other.id))
                    })?;
                    other
                        .unique_values()
                        .iter()
                        .any(|v| v.key == unique.key && v.scope == unique.scope)
                }
            };
            if clash {
                return Ok(Some((unique.key, unique.value.to_string())));
            }
        }
    }
    Ok(None)
}
