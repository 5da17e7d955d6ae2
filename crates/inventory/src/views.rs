//! The business views FOLIO's mod-inventory serves over storage: `/inventory/items` with
//! the derived fields the desk and search UIs read (title, contributor names, call number,
//! names of the effective location, material type and loan types), and
//! `/inventory/instances` with its relationship arrays.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use store::{Page, Reader};
use uuid::Uuid;

use crate::{
    HoldingsRecord, Instance, Item, RefKind, records,
    storage::{Error, Result},
};

/// A linked record, shown by id and name.
#[derive(Debug, Clone, Serialize)]
pub struct NamedRef {
    pub id: Uuid,
    pub name: String,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct ContributorName {
    #[serde(default)]
    pub name: String,
}

/// An item as `/inventory/items` shows it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ItemView {
    #[serde(flatten)]
    pub item: Item,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    pub contributor_names: Vec<ContributorName>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub call_number: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub effective_location: Option<NamedRef>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub permanent_location: Option<NamedRef>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temporary_location: Option<NamedRef>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub material_type: Option<NamedRef>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub permanent_loan_type: Option<NamedRef>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temporary_loan_type: Option<NamedRef>,
    pub is_bound_with: bool,
}

/// An instance as `/inventory/instances` shows it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InstanceView {
    #[serde(flatten)]
    pub instance: Instance,
    pub is_bound_with: bool,
    pub parent_instances: Vec<serde_json::Value>,
    pub child_instances: Vec<serde_json::Value>,
    pub preceding_titles: Vec<serde_json::Value>,
    pub succeeding_titles: Vec<serde_json::Value>,
}

/// What a business view adds to its stored record, and how a body in the view's shape
/// (what a GET gave, or what a FOLIO client writes to `/inventory/...`) becomes one in
/// the storage shape.
pub struct ViewShape {
    /// Derived, read-only properties: dropped.
    added: &'static [&'static str],
    /// Linked records mod-inventory takes as `{"id": ...}` objects, and the storage id
    /// each gives when the body does not name that id itself.
    links: &'static [(&'static str, &'static str)],
    /// Relationships Quire does not store yet: refused unless empty, so a client's
    /// intent is never dropped in silence.
    unsupported: &'static [&'static str],
}

/// `/inventory/items`.
pub const ITEM_VIEW: ViewShape = ViewShape {
    added: &[
        "title",
        "contributorNames",
        "callNumber",
        "effectiveLocation",
        "permanentLocation",
        "temporaryLocation",
        "materialType",
        "permanentLoanType",
        "temporaryLoanType",
        "isBoundWith",
    ],
    links: &[
        ("materialType", "materialTypeId"),
        ("permanentLoanType", "permanentLoanTypeId"),
        ("temporaryLoanType", "temporaryLoanTypeId"),
        ("permanentLocation", "permanentLocationId"),
        ("temporaryLocation", "temporaryLocationId"),
    ],
    unsupported: &[],
};

/// `/inventory/instances`.
pub const INSTANCE_VIEW: ViewShape = ViewShape {
    added: &["isBoundWith"],
    links: &[],
    unsupported: &["parentInstances", "childInstances", "precedingTitles", "succeedingTitles"],
};

impl ViewShape {
    /// `body` in the storage shape.
    pub fn storage_body(&self, body: &[u8]) -> Result<Vec<u8>> {
        let mut object: serde_json::Map<String, serde_json::Value> = folio::decode(body)?;
        for (object_key, id_key) in self.links {
            let id = object.get(*object_key).and_then(|linked| linked.get("id")).cloned();
            if let Some(id) = id
                && !object.contains_key(*id_key)
            {
                object.insert(id_key.to_string(), id);
            }
        }
        for key in self.unsupported {
            match object.remove(*key) {
                None | Some(serde_json::Value::Null) => {}
                Some(serde_json::Value::Array(list)) if list.is_empty() => {}
                Some(value) => {
                    return Err(Error::invalid(
                        key,
                        value,
                        format!(
                            "{key} must be empty: Quire does not store instance relationships yet"
                        ),
                    ));
                }
            }
        }
        for key in self.added {
            object.remove(*key);
        }
        serde_json::to_vec(&object).map_err(|e| Error::Corrupt(e.to_string()))
    }
}

/// Names of the reference records a request shows, each looked up once by id: a desk's
/// barcode lookup names three records and should not read every location the tenant has.
#[derive(Default)]
struct Names {
    known: HashMap<(RefKind, Uuid), String>,
}

impl Names {
    fn named(
        &mut self,
        reader: &Reader<'_>,
        kind: RefKind,
        id: Option<Uuid>,
    ) -> Result<Option<NamedRef>> {
        let Some(id) = id else { return Ok(None) };
        let name = match self.known.get(&(kind, id)) {
            Some(name) => name.clone(),
            None => {
                // A dangling id is shown with an empty name, as before it was checked.
                let name = crate::refdata::name_of(reader, kind, id)?.unwrap_or_default();
                self.known.insert((kind, id), name.clone());
                name
            }
        };
        Ok(Some(NamedRef { id, name }))
    }
}

fn item_view(reader: &Reader<'_>, item: Item, names: &mut Names) -> Result<ItemView> {
    let holdings = records::get::<HoldingsRecord>(reader, item.holdings_record_id)?;
    let instance: Option<Instance> = match &holdings {
        Some(h) => records::get::<Instance>(reader, h.instance_id)?.map(|i| i.record),
        None => None,
    };
    let call_number =
        item.effective_call_number_components.as_ref().and_then(|c| c.call_number.clone());
    Ok(ItemView {
        title: instance.as_ref().map(|i| i.title.clone()),
        contributor_names: instance
            .as_ref()
            .map(|i| {
                i.contributors.iter().map(|c| ContributorName { name: c.name.clone() }).collect()
            })
            .unwrap_or_default(),
        call_number,
        effective_location: names.named(reader, RefKind::Location, item.effective_location_id)?,
        permanent_location: names.named(reader, RefKind::Location, item.permanent_location_id)?,
        temporary_location: names.named(reader, RefKind::Location, item.temporary_location_id)?,
        material_type: names.named(reader, RefKind::MaterialType, Some(item.material_type_id))?,
        permanent_loan_type: names.named(
            reader,
            RefKind::LoanType,
            Some(item.permanent_loan_type_id),
        )?,
        temporary_loan_type: names.named(reader, RefKind::LoanType, item.temporary_loan_type_id)?,
        is_bound_with: false,
        item,
    })
}

/// One item as `/inventory/items/{id}` shows it.
pub fn item_view_json(reader: &Reader<'_>, id: Uuid) -> Result<String> {
    let item = records::get::<Item>(reader, id)?.ok_or_else(|| Error::NotFound {
        record_type: <Item as folio::Record>::NAME,
        id: id.to_string(),
    })?;
    let view = item_view(reader, item.record, &mut Names::default())?;
    serde_json::to_string(&view).map_err(|e| Error::Corrupt(e.to_string()))
}

/// A page of items as `/inventory/items` shows them, and the total.
pub fn list_item_views_json(
    reader: &Reader<'_>,
    cql: Option<&str>,
    page: Page,
) -> Result<(Vec<String>, u64)> {
    let (bodies, total) = records::list_json::<Item>(reader, cql, page)?;
    let mut names = Names::default();
    let mut out = Vec::with_capacity(bodies.len());
    for body in bodies {
        let view = item_view(reader, records::parse(&body)?, &mut names)?;
        out.push(serde_json::to_string(&view).map_err(|e| Error::Corrupt(e.to_string()))?);
    }
    Ok((out, total))
}

fn instance_view(instance: Instance) -> InstanceView {
    InstanceView {
        instance,
        is_bound_with: false,
        parent_instances: Vec::new(),
        child_instances: Vec::new(),
        preceding_titles: Vec::new(),
        succeeding_titles: Vec::new(),
    }
}

/// One instance as `/inventory/instances/{id}` shows it.
pub fn instance_view_json(reader: &Reader<'_>, id: Uuid) -> Result<String> {
    let instance = records::get::<Instance>(reader, id)?.ok_or_else(|| Error::NotFound {
        record_type: <Instance as folio::Record>::NAME,
        id: id.to_string(),
    })?;
    serde_json::to_string(&instance_view(instance.record))
        .map_err(|e| Error::Corrupt(e.to_string()))
}

/// A page of instances as `/inventory/instances` shows them, and the total.
pub fn list_instance_views_json(
    reader: &Reader<'_>,
    cql: Option<&str>,
    page: Page,
) -> Result<(Vec<String>, u64)> {
    let (bodies, total) = records::list_json::<Instance>(reader, cql, page)?;
    let mut out = Vec::with_capacity(bodies.len());
    for body in bodies {
        let view = instance_view(records::parse(&body)?);
        out.push(serde_json::to_string(&view).map_err(|e| Error::Corrupt(e.to_string()))?);
    }
    Ok((out, total))
}
