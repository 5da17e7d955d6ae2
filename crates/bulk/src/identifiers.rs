//! An upload's identifiers, and the records each identifies.

use std::collections::HashMap;

use serde_json::Value;
use store::{Page, Reader};

use crate::operation::{EntityType, IdentifierType};
use crate::{Result, invalid};

/// The identifiers of an uploaded file: one a line, as FOLIO reads it (a byte-order
/// mark dropped, surrounding quotes and blanks trimmed, empty lines skipped).
pub fn parse_identifiers(bytes: &[u8]) -> Result<Vec<String>> {
    let text = std::str::from_utf8(bytes).map_err(|_| invalid("The file is not UTF-8 text"))?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    Ok(text
        .lines()
        .map(|line| line.trim().trim_matches('"').trim().to_string())
        .filter(|line| !line.is_empty())
        .collect())
}

/// Whether records of `entity` can be identified by `kind` (the identifier types FOLIO
/// offers for each).
pub(crate) fn check_kind(entity: EntityType, kind: IdentifierType) -> Result<()> {
    use IdentifierType::*;
    let ok = match entity {
        EntityType::User => matches!(kind, Id | Barcode | UserName | ExternalSystemId),
        EntityType::Item => {
            matches!(kind, Id | Barcode | Hrid | FormerIds | AccessionNumber | HoldingsRecordId)
        }
        EntityType::Holdings => matches!(kind, Id | Hrid | InstanceHrid | ItemBarcode),
        EntityType::Instance => matches!(kind, Id | Hrid | Isbn | Issn),
    };
    if ok {
        Ok(())
    } else {
        Err(invalid(format!(
            "Identifier type {} is not supported for entity type {}",
            kind.as_str(),
            entity.as_str()
        )))
    }
}

/// A CQL term for an exact match on `value`.
fn quoted(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 2);
    out.push('"');
    for c in value.chars() {
        if matches!(c, '"' | '\\' | '*' | '?' | '^') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

/// Records of `entity` matching a CQL query on storage: their JSON as stored, up to
/// `limit`, and how many match.
pub(crate) fn query(
    r: &Reader<'_>,
    entity: EntityType,
    cql: &str,
    page: Page,
) -> Result<(Vec<Value>, u64)> {
    let (bodies, total) = match entity {
        EntityType::Item => inventory::list_json::<inventory::Item>(r, Some(cql), page)?,
        EntityType::Holdings => {
            inventory::list_json::<inventory::HoldingsRecord>(r, Some(cql), page)?
        }
        EntityType::Instance => inventory::list_json::<inventory::Instance>(r, Some(cql), page)?,
        EntityType::User => auth::list_users(r, Some(cql), page)?,
    };
    let records = bodies
        .iter()
        .map(|body| serde_json::from_str(body).map_err(|e| crate::Error::Corrupt(e.to_string())))
        .collect::<Result<_>>()?;
    Ok((records, total))
}

/// The most records one identifier may match where several are expected (all the
/// items of a holdings record, all the holdings of an instance).
const MANY: u64 = 10_000;

/// The records each of `values` identifies (none, one, or, for identifiers of a
/// parent, several), in the order of `values`.
pub(crate) fn find(
    r: &Reader<'_>,
    entity: EntityType,
    kind: IdentifierType,
    values: &[String],
) -> Result<Vec<Vec<Value>>> {
    use IdentifierType::*;
    if matches!(kind, FormerIds | AccessionNumber | Isbn | Issn) {
        return find_by_scan(r, kind, values);
    }
    let one = Page { offset: 0, limit: 2 };
    let many = Page { offset: 0, limit: MANY };
    let mut out = Vec::with_capacity(values.len());
    for value in values {
        let q = quoted(value);
        let found = match (entity, kind) {
            (EntityType::Item | EntityType::Holdings | EntityType::Instance, Id) => {
                by_id(r, entity, value)?
            }
            (_, Id) => query(r, entity, &format!("id=={q}"), one)?.0,
            (EntityType::User, Barcode) => query(r, entity, &format!("barcode=={q}"), one)?.0,
            (EntityType::User, UserName) => query(r, entity, &format!("username=={q}"), one)?.0,
            (EntityType::User, ExternalSystemId) => {
                query(r, entity, &format!("externalSystemId=={q}"), one)?.0
            }
            (EntityType::Item, Barcode) => query(r, entity, &format!("barcode=={q}"), one)?.0,
            (EntityType::Item, HoldingsRecordId) => {
                query(r, entity, &format!("holdingsRecordId=={q}"), many)?.0
            }
            (_, Hrid) => query(r, entity, &format!("hrid=={q}"), one)?.0,
            (EntityType::Holdings, InstanceHrid) => {
                let instances = query(r, EntityType::Instance, &format!("hrid=={q}"), one)?.0;
                match instances.as_slice() {
                    [instance] => {
                        let id = instance["id"].as_str().unwrap_or_default();
                        query(r, entity, &format!("instanceId=={}", quoted(id)), many)?.0
                    }
                    _ => Vec::new(),
                }
            }
            (EntityType::Holdings, ItemBarcode) => {
                let items = query(r, EntityType::Item, &format!("barcode=={q}"), one)?.0;
                match items.as_slice() {
                    [item] => {
                        let id = item["holdingsRecordId"].as_str().unwrap_or_default();
                        query(r, entity, &format!("id=={}", quoted(id)), one)?.0
                    }
                    _ => Vec::new(),
                }
            }
            _ => Vec::new(),
        };
        out.push(found);
    }
    Ok(out)
}

/// An inventory record by its id, read straight from its table.
fn by_id(r: &Reader<'_>, entity: EntityType, id: &str) -> Result<Vec<Value>> {
    let table = match entity {
        EntityType::Item => &inventory::ITEMS,
        EntityType::Holdings => &inventory::HOLDINGS,
        _ => &inventory::INSTANCES,
    };
    let Ok(id) = uuid::Uuid::parse_str(id) else { return Ok(Vec::new()) };
    match r.get(table, &id.to_string())? {
        Some(row) => Ok(vec![
            serde_json::from_str(&row.body).map_err(|e| crate::Error::Corrupt(e.to_string()))?,
        ]),
        None => Ok(Vec::new()),
    }
}

/// Records by a value no index holds (items by accession number or former identifier,
/// instances by ISBN or ISSN): one pass over the table for the whole chunk of values.
/// ISBNs and ISSNs are compared without hyphens or spaces.
fn find_by_scan(
    r: &Reader<'_>,
    kind: IdentifierType,
    values: &[String],
) -> Result<Vec<Vec<Value>>> {
    let standard = matches!(kind, IdentifierType::Isbn | IdentifierType::Issn);
    let key = |value: &str| {
        let value = value.to_lowercase();
        if standard { value.chars().filter(|c| !matches!(c, '-' | ' ')).collect() } else { value }
    };
    let mut wanted: HashMap<String, Vec<usize>> = HashMap::new();
    for (i, value) in values.iter().enumerate() {
        wanted.entry(key(value)).or_default().push(i);
    }
    let (table, type_id) = match kind {
        IdentifierType::Isbn | IdentifierType::Issn => {
            let name = kind.as_str();
            let id = inventory::reference_id_by_name(r, inventory::RefKind::IdentifierType, name)?;
            (&inventory::INSTANCES, id.map(|id| id.to_string()))
        }
        _ => (&inventory::ITEMS, None),
    };
    let mut out = vec![Vec::new(); values.len()];
    let mut after: Option<String> = None;
    loop {
        let rows = r.scan(table, after.as_deref(), 1000)?;
        let Some(last) = rows.last() else { break };
        after = Some(last.id.clone());
        for row in &rows {
            let record: Value = serde_json::from_str(&row.body)
                .map_err(|e| crate::Error::Corrupt(e.to_string()))?;
            let keys: Vec<String> = match kind {
                IdentifierType::AccessionNumber => {
                    record["accessionNumber"].as_str().map(key).into_iter().collect()
                }
                IdentifierType::FormerIds => record["formerIds"]
                    .as_array()
                    .map(|ids| ids.iter().filter_map(Value::as_str).map(key).collect())
                    .unwrap_or_default(),
                _ => record["identifiers"]
                    .as_array()
                    .map(|ids| {
                        ids.iter()
                            .filter(|i| {
                                type_id.is_some()
                                    && i["identifierTypeId"].as_str() == type_id.as_deref()
                            })
                            .filter_map(|i| i["value"].as_str())
                            .map(key)
                            .collect()
                    })
                    .unwrap_or_default(),
            };
            for k in keys {
                for &i in wanted.get(&k).into_iter().flatten() {
                    if !out[i].contains(&record) {
                        out[i].push(record.clone());
                    }
                }
            }
        }
    }
    Ok(out)
}
