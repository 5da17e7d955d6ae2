//! Shapes shared by several record types: `tags`, electronic access,
//! call-number components, and the marker for FOLIO's virtual (join) fields.

use serde::{Deserialize, Deserializer, Serialize};
use uuid::Uuid;

use crate::model::nullable;

/// FOLIO's `tags` block (raml-util `tags.schema`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Tags {
    #[serde(default, deserialize_with = "nullable::vec")]
    pub tag_list: Vec<String>,
}

/// One link to an online resource (`common/electronicAccessItem.json`), on instances,
/// holdings and items.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ElectronicAccess {
    pub uri: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link_text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub materials_specification: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub public_note: Option<String>,
    /// An electronic-access relationship (Resource, Version of resource, ...). FOLIO's
    /// schema types it as a plain string; Quire holds every reference as a UUID.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relationship_id: Option<Uuid>,
}

/// A call number with its parts (`common/callNumberComponents.json`), the shape of
/// `additionalCallNumbers` on holdings and items.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CallNumberComponents {
    pub call_number: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefix: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suffix: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub type_id: Option<Uuid>,
}

/// A FOLIO *virtual* field (`folio:isVirtual`, `readonly`): a copy of a linked record
/// that FOLIO joins in on some reads (`item.materialType`, `instance.instanceFormats`,
/// `location.servicePoints`, ...). Clients echo these back on updates, so they are
/// accepted, whatever their content, and dropped: Quire never stores or returns them.
/// The type is zero-sized and all values are equal.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Virtual;

impl<'de> Deserialize<'de> for Virtual {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Virtual, D::Error> {
        serde::de::IgnoredAny::deserialize(deserializer)?;
        Ok(Virtual)
    }
}
