//! An item with what circulation says about it: its title (from the instance), material
//! type name, effective location, and call number.

use folio::Stored;
use inventory::{Item, RefKind};
use serde_json::json;
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
        let instance_id = inventory::instance_of_holdings(reader, item.holdings_record_id)?;
        let instance = match instance_id {
            Some(id) => inventory::instance_summary(reader, id)?,
            None => None,
        }
        .unwrap_or_default();
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
    pub(crate) fn summary(&self) -> serde_json::Value {
        json!({
            "id": self.item.id,
            "holdingsRecordId": self.item.holdings_record_id,
            "instanceId": self.instance_id,
            "title": self.title,
            "barcode": self.item.barcode,
            "contributors": self.contributors.iter().map(|n| json!({"name": n})).collect::<Vec<_>>(),
            "callNumber": self.call_number(),
            "status": self.item.status,
            "location": {"name": self.location_name},
            "materialType": {"name": self.material_type},
            "inTransitDestinationServicePointId": self.item.in_transit_destination_service_point_id,
        })
    }
}
