//! Sets defined by a saved query (`/oai-pmh/sets`): a name, a spec and a CQL query over
//! the instance search index. FOLIO's sets take a few fixed filtering conditions and
//! Koha's map single MARC field values; here a set is anything the catalogue's search
//! language can say, which is how a library exposes a collection (its maps, its
//! e-books, one library's holdings).
//!
//! A set's members are what its query finds when a page is asked for; a deleted
//! instance is in no search result, so a set's harvest carries every deletion (a
//! harvester drops those it never had), and none is missed.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};
use store::{ColumnValue, Reader, RecordTable, Writer};
use uuid::Uuid;

use crate::{Error, Result};

pub(crate) const SETS: RecordTable =
    RecordTable { table: "oai_sets", record_type: "", cached: false, columns: &["set_spec"] };

/// A set, in the shape `/oai-pmh/sets` takes and answers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Set {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Uuid>,
    pub name: String,
    pub set_spec: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// CQL over `/search/instances`' indexes.
    pub query: String,
}

/// Finds a set's members: the ids of the instances a query finds. The caller holds the
/// search index.
pub trait Members {
    /// The ids `query` finds, or why it cannot be run (a message for a 422).
    fn members(&self, query: &str) -> std::result::Result<HashSet<Uuid>, String>;
}

/// Every set, by spec.
pub fn list(r: &Reader<'_>) -> Result<Vec<Set>> {
    let mut out: Vec<Set> = crate::all_rows(r, &SETS)?;
    out.sort_by(|a, b| a.set_spec.cmp(&b.set_spec));
    Ok(out)
}

pub fn get(r: &Reader<'_>, id: Uuid) -> Result<Set> {
    match r.get(&SETS, &id.to_string())? {
        Some(row) => decode(&row.body),
        None => Err(Error::NotFound(id)),
    }
}

pub(crate) fn by_spec(r: &Reader<'_>, spec: &str) -> Result<Option<Set>> {
    r.find_by(&SETS, "set_spec", spec)?.first().map(|row| decode(&row.body)).transpose()
}

/// Stores a new set; its query is checked by `members` first.
pub fn create(w: &mut Writer<'_>, mut set: Set, members: &dyn Members) -> Result<Set> {
    check(w, &set, None, members)?;
    let id = *set.id.get_or_insert_with(store::new_record_id);
    save(w, id, &set)?;
    Ok(set)
}

pub fn replace(w: &mut Writer<'_>, id: Uuid, mut set: Set, members: &dyn Members) -> Result<()> {
    get(w, id)?;
    check(w, &set, Some(id), members)?;
    set.id = Some(id);
    save(w, id, &set)
}

pub fn delete(w: &mut Writer<'_>, id: Uuid) -> Result<()> {
    if w.delete(&SETS, &id.to_string())? { Ok(()) } else { Err(Error::NotFound(id)) }
}

fn check(r: &Reader<'_>, set: &Set, id: Option<Uuid>, members: &dyn Members) -> Result<()> {
    let invalid = |field: &str, message: String| Error::Invalid { field: field.into(), message };
    if set.name.trim().is_empty() {
        return Err(invalid("name", "A set needs a name".into()));
    }
    if !crate::protocol::valid_spec(&set.set_spec) || set.set_spec == "all" {
        return Err(invalid(
            "setSpec",
            format!(
                "'{}' cannot be a set spec: letters, digits and -_.!~*'() in parts joined by ':', and not 'all'",
                set.set_spec
            ),
        ));
    }
    if let Some(other) = by_spec(r, &set.set_spec)?
        && other.id != id
    {
        return Err(invalid(
            "setSpec",
            format!("A set with spec '{}' exists already", set.set_spec),
        ));
    }
    members.members(&set.query).map_err(|message| invalid("query", message))?;
    Ok(())
}

fn save(w: &mut Writer<'_>, id: Uuid, set: &Set) -> Result<()> {
    let body = serde_json::to_string(set).map_err(|e| Error::Corrupt(e.to_string()))?;
    w.upsert(&SETS, &id.to_string(), 1, &body, &[ColumnValue::Text(set.set_spec.clone())])?;
    Ok(())
}

fn decode(body: &str) -> Result<Set> {
    serde_json::from_str(body).map_err(|e| Error::Corrupt(format!("a stored set: {e}")))
}
