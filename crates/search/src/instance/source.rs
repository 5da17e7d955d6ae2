//! Reading instance families from the system of record, in batches.
//!
//! Owns the table names of inventory records as the search indexer reads them and the
//! batched lookups: an instance page by id, then its holdings and items with one
//! `IN (...)` query each (an index lookup per id, no per-instance round trips). Does not
//! own the documents built from them (`document`).

use std::collections::{HashMap, HashSet};

use inventory::{HoldingsRecord, Instance, Item, RefKind};
use store::{Reader, StoredRecord};
use uuid::Uuid;

use crate::error::{Error, Result};
use crate::instance::document::{Family, RefIds};

pub(crate) use inventory::{HOLDINGS, INSTANCES, ITEMS};

fn parse<T: serde::de::DeserializeOwned>(record: &StoredRecord, what: &str) -> Result<T> {
    serde_json::from_str(&record.body).map_err(|e| {
        Error::Inventory(inventory::Error::Corrupt(format!("{what} {}: {e}", record.id)))
    })
}

/// The reference ids the computed fields depend on, looked up by FOLIO's names.
pub(crate) fn ref_ids(reader: &Reader<'_>) -> Result<RefIds> {
    let ids = |names: &[&str]| -> Result<HashSet<Uuid>> {
        let mut out = HashSet::new();
        for name in names {
            if let Some(id) =
                inventory::reference_id_by_name(reader, RefKind::IdentifierType, name)?
            {
                out.insert(id);
            }
        }
        Ok(out)
    };
    Ok(RefIds {
        isbn: ids(&["ISBN", "Invalid ISBN"])?,
        issn: ids(&["ISSN", "Invalid ISSN", "Linking ISSN"])?,
        oclc: ids(&["OCLC", "Cancelled OCLC"])?,
        lccn: ids(&["LCCN"])?,
        canceled_lccn: ids(&["Canceled LCCN"])?,
        uniform_title: HashSet::new(),
    })
}

/// The families of these instances; instances that no longer exist are left out.
pub(crate) fn load_families(reader: &Reader<'_>, ids: &[String]) -> Result<Vec<Family>> {
    let id_refs: Vec<&str> = ids.iter().map(String::as_str).collect();
    let instances = reader.get_many(&INSTANCES, &id_refs)?;
    families(reader, instances)
}

/// The families of a page of stored instances, with their holdings and items.
pub(crate) fn families(reader: &Reader<'_>, instances: Vec<StoredRecord>) -> Result<Vec<Family>> {
    read_family_records(reader, instances)?.assemble()
}

/// A page of stored instances with their holdings and items, as read: a full build
/// reads the next page while another thread parses and indexes this one.
pub(crate) struct FamilyRecords {
    instances: Vec<StoredRecord>,
    holdings: Vec<StoredRecord>,
    items: Vec<StoredRecord>,
}

/// The stored holdings and items of a page of stored instances.
pub(crate) fn read_family_records(
    reader: &Reader<'_>,
    instances: Vec<StoredRecord>,
) -> Result<FamilyRecords> {
    let id_refs: Vec<&str> = instances.iter().map(|r| r.id.as_str()).collect();
    let holdings = reader.find_by_any(&HOLDINGS, "instance_id", &id_refs)?;
    let holdings_ids: Vec<&str> = holdings.iter().map(|r| r.id.as_str()).collect();
    let items = reader.find_by_any(&ITEMS, "holdings_record_id", &holdings_ids)?;
    Ok(FamilyRecords { instances, holdings, items })
}

impl FamilyRecords {
    /// Parses the records and puts each holdings record and item with its instance.
    pub(crate) fn assemble(self) -> Result<Vec<Family>> {
        let FamilyRecords { instances, holdings, items } = self;
        let mut by_instance: HashMap<Uuid, usize> = HashMap::with_capacity(instances.len());
        let mut out = Vec::with_capacity(instances.len());
        for stored in instances {
            let instance: Instance = parse(&stored, "instance")?;
            if let Some(id) = instance.id {
                by_instance.insert(id, out.len());
            }
            out.push(Family {
                instance,
                instance_json: stored.body,
                holdings: Vec::new(),
                items: Vec::new(),
            });
        }
        let mut holdings_owner: HashMap<Uuid, usize> = HashMap::with_capacity(holdings.len());
        for stored in holdings {
            let record: HoldingsRecord = parse(&stored, "holdings record")?;
            if let Some(&idx) = by_instance.get(&record.instance_id) {
                if let Some(id) = record.id {
                    holdings_owner.insert(id, idx);
                }
                out[idx].holdings.push((record, stored.body));
            }
        }
        for stored in items {
            let item: Item = parse(&stored, "item")?;
            if let Some(&idx) = holdings_owner.get(&item.holdings_record_id) {
                out[idx].items.push((item, stored.body));
            }
        }
        Ok(out)
    }
}

/// The instances that holdings records (as stored now) belong to.
pub(crate) fn instances_of_holdings(reader: &Reader<'_>, ids: &[&str]) -> Result<Vec<Uuid>> {
    let mut out = Vec::new();
    for stored in reader.get_many(&HOLDINGS, ids)? {
        let record: HoldingsRecord = parse(&stored, "holdings record")?;
        out.push(record.instance_id);
    }
    Ok(out)
}

/// The instances that items (as stored now) belong to, through their holdings.
pub(crate) fn instances_of_items(reader: &Reader<'_>, ids: &[&str]) -> Result<Vec<Uuid>> {
    let mut holdings = Vec::new();
    for stored in reader.get_many(&ITEMS, ids)? {
        let item: Item = parse(&stored, "item")?;
        holdings.push(item.holdings_record_id.to_string());
    }
    let refs: Vec<&str> = holdings.iter().map(String::as_str).collect();
    instances_of_holdings(reader, &refs)
}
