//! An item with what circulation says about it: its title (from the instance), material
//! type name, effective location, and call number.

use folio::Stored;
use inventory::model::ItemStatus;
use inventory::{Item, RefKind};
use serde::Serialize;
use store::Reader;
use uuid::Uuid;

use crate::Result;

pub(crate) struct ItemContext {
    pub(crate) item: Stored<Item>,
    pub(crate) instance_id: Option<Uuid>,
    pub(crate) title: String,
    pub(crate) contributors: Vec<String>,
    pub(crate) material_type: String,
    pub(crate) location_name: String,
}

impl ItemContext {
    pub(crate) fn load(reader: &Reader<'_>, item: Stored<Item>) -> Result<ItemContext> {
        let (instance_id, instance) =
            match inventory::instance_of_holdings(reader, item.holdings_record_id)? {
                Some((id, summary)) => (Some(id), summary),
                None => (None, Default::default()),
            };
        let material_type =
            inventory::reference_name(reader, RefKind::MaterialType, item.material_type_id)?
                .unwrap_or_default();
        let location_name = match item.effective_location_id {
            Some(id) => {
                inventory::reference_name(reader, RefKind::Location, id)?.unwrap_or_default()
            }
            None => String::new(),
        };
        Ok(ItemContext {
            instance_id,
            title: instance.title,
            contributors: instance.contributors.into_iter().map(|c| c.name).collect(),
            material_type,
            location_name,
            item,
        })
    }

    /// The context of the item with this id, if it exists.
    pub(crate) fn of_item(reader: &Reader<'_>, item_id: Uuid) -> Result<Option<ItemContext>> {
        match inventory::get_item(reader, item_id)? {
            Some(item) => Ok(Some(ItemContext::load(reader, item)?)),
            None => Ok(None),
        }
    }

    pub(crate) fn barcode(&self) -> &str {
        self.item.barcode.as_deref().unwrap_or("")
    }

    pub(crate) fn status_name(&self) -> &'static str {
        self.item.status.name.as_str()
    }

    pub(crate) fn call_number(&self) -> Option<String> {
        self.item.effective_call_number_components.as_ref().and_then(|c| c.call_number.clone())
    }

    /// The item summary FOLIO embeds in loans and check-in responses.
    pub(crate) fn summary(&self) -> ItemSummary {
        ItemSummary {
            id: self.item.id,
            holdings_record_id: self.item.holdings_record_id,
            instance_id: self.instance_id,
            title: self.title.clone(),
            barcode: self.item.barcode.clone(),
            contributors: self.contributors.iter().map(|n| Name { name: n.clone() }).collect(),
            call_number: self.call_number(),
            status: self.item.status.clone(),
            location: Name { name: self.location_name.clone() },
            material_type: Name { name: self.material_type.clone() },
            in_transit_destination_service_point_id: self
                .item
                .in_transit_destination_service_point_id,
        }
    }
}

/// The item as loans and check-in responses embed it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ItemSummary {
    pub id: Uuid,
    pub holdings_record_id: Uuid,
    pub instance_id: Option<Uuid>,
    pub title: String,
    pub barcode: Option<String>,
    pub contributors: Vec<Name>,
    pub call_number: Option<String>,
    pub status: ItemStatus,
    pub location: Name,
    pub material_type: Name,
    pub in_transit_destination_service_point_id: Option<Uuid>,
}

/// `{"name": ...}`, the shape FOLIO embeds a named thing in.
#[derive(Debug, Clone, Serialize)]
pub struct Name {
    pub name: String,
}
