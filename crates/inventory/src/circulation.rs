//! What circulation reads and writes of inventory: items by barcode, an item's
//! holdings, instance and location, and item updates made inside a check-out or
//! check-in transaction.
//!
//! Useful for: the `circ` crate, which composes these with its own records in one
//! transaction. Not useful for: HTTP item updates, which go through [`crate::replace`]
//! with the client's `_version`.

use serde::Deserialize;
use store::{Key, Read, Reader, Writer};
use uuid::Uuid;

use folio::{Actor, Stored};

use crate::model::{Location, ServicePoint};
use crate::records::{get, parse};
use crate::storage::{Error, HOLDINGS, INSTANCES, ITEMS};
use crate::views::ContributorName;
use crate::{HoldingsRecord, Instance, Item, RefKind, Result};

/// The item with this barcode (barcodes compare case-insensitively, as in FOLIO).
pub fn item_by_barcode(reader: &Reader<'_>, barcode: &str) -> Result<Option<Stored<Item>>> {
    match reader.records(&item_by_barcode_read(barcode))?.into_iter().next() {
        Some(row) => Ok(Some(Stored::from_row(&row)?)),
        None => Ok(None),
    }
}

/// What [`item_by_barcode`] reads, to read it ahead ([`Reader::prefetch`]).
pub fn item_by_barcode_read(barcode: &str) -> Read<'_> {
    Read::Where(&ITEMS, vec![("barcode", barcode)], &[])
}

/// The item with this barcode as the key of reads that follow from it
/// ([`Read::Via`]): `column` is `id` or `holdings_record_id`.
pub fn item_by_barcode_key<'r>(barcode: &'r str, column: &'static str) -> Key<'r> {
    Key { table: &ITEMS, by: "barcode", value: barcode, column }
}

pub fn get_item(reader: &Reader<'_>, id: Uuid) -> Result<Option<Stored<Item>>> {
    get(reader, id)
}

pub fn get_holdings(reader: &Reader<'_>, id: Uuid) -> Result<Option<Stored<HoldingsRecord>>> {
    get(reader, id)
}

pub fn get_instance(reader: &Reader<'_>, id: Uuid) -> Result<Option<Stored<Instance>>> {
    get(reader, id)
}

/// The instance a holdings record belongs to: its id and [`InstanceSummary`], read
/// in one statement through the holdings record's `instance_id` column.
pub fn instance_of_holdings(
    reader: &Reader<'_>,
    holdings_id: Uuid,
) -> Result<Option<(Uuid, InstanceSummary)>> {
    let holdings_id = holdings_id.to_string();
    match reader.records(&instance_of_holdings_read(&holdings_id))?.into_iter().next() {
        Some(stored) => {
            let id = Uuid::parse_str(&stored.id)
                .map_err(|e| Error::Corrupt(format!("instance id {}: {e}", stored.id)))?;
            Ok(Some((id, parse(&stored.body)?)))
        }
        None => Ok(None),
    }
}

/// What [`instance_of_holdings`] reads, to read it ahead ([`Reader::prefetch`]):
/// `holdings_id` is the holdings record's.
pub fn instance_of_holdings_read(holdings_id: &str) -> Read<'_> {
    Read::NamedBy(&INSTANCES, (&HOLDINGS, holdings_id, "instance_id"))
}

/// What the desk shows of an instance: its title and its contributors' names. Every
/// check-out and check-in shows one; parsing only these fields skips the rest of a
/// record that can run to hundreds of fields.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct InstanceSummary {
    #[serde(default)]
    pub title: String,
    #[serde(default)]
    pub contributors: Vec<ContributorName>,
}

pub fn get_location(reader: &Reader<'_>, id: Uuid) -> Result<Option<Location>> {
    typed_reference(reader, RefKind::Location, id)
}

pub fn get_service_point(reader: &Reader<'_>, id: Uuid) -> Result<Option<ServicePoint>> {
    typed_reference(reader, RefKind::ServicePoint, id)
}

/// The name of a reference record (material type, loan type, location, ...), if it exists.
pub fn reference_name(reader: &Reader<'_>, kind: RefKind, id: Uuid) -> Result<Option<String>> {
    crate::refdata::name_of(reader, kind, id)
}

fn typed_reference<T: serde::de::DeserializeOwned>(
    reader: &Reader<'_>,
    kind: RefKind,
    id: Uuid,
) -> Result<Option<T>> {
    match reader.get(&kind.table(), &id.to_string())? {
        Some(stored) => Ok(Some(parse(&stored.body)?)),
        None => Ok(None),
    }
}

/// Changes an item this transaction read, as circulation does (its status, in-transit
/// destination, last check-in), and writes it back with its change-log entry, without
/// reading it again (a round trip on PostgreSQL). Inventory's derivations are not run
/// again: they come from the item's holdings, locations and call number, which
/// circulation does not change, and would read the holdings once more.
pub fn update_item(
    writer: &mut Writer<'_>,
    mut item: Stored<Item>,
    actor: Actor,
    change: impl FnOnce(&mut Item),
) -> Result<Stored<Item>> {
    folio::record::update_read(writer, &mut item.record, actor, change)?;
    Ok(item)
}
