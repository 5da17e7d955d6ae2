//! Mapping profiles (`mappingProfile.json` and `mapping-profile-detail/`): how an
//! action's record is filled from the incoming one.
//!
//! For Inventory and acquisitions records, `mappingDetails.mappingFields` holds one
//! rule per target field: a path (`holdings.permanentLocationId`) and an expression
//! over the incoming record (`949$a`, `"Available"`, `###TODAY###`; see
//! [`crate::Expression`]), or an action on a boolean or repeatable field. For MARC
//! records, `marcMappingDetails` lists field edits (add, delete, edit, move) and
//! `marcMappingOption` says whether they update or modify the record.

use folio::Metadata;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use uuid::Uuid;

use super::{
    EntityType, Profile, ProfileContent, ProfileSnapshotWrapper, ProfileType, Tags, UserInfo,
};

/// A mapping profile.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MappingProfile {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Uuid>,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tags: Option<Tags>,
    pub incoming_record_type: EntityType,
    /// The record type filled: an action using this profile must act on the same type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub existing_record_type: Option<EntityType>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_info: Option<UserInfo>,
    /// Overrides of the tenant's MARC field protection for this profile.
    #[serde(default)]
    pub marc_field_protection_settings: Vec<MarcFieldProtectionSetting>,
    #[serde(default)]
    pub parent_profiles: Vec<ProfileSnapshotWrapper>,
    #[serde(default)]
    pub child_profiles: Vec<ProfileSnapshotWrapper>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mapping_details: Option<MappingDetails>,
    #[serde(default)]
    pub hidden: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

/// A mapping profile's rules (`mappingDetail.json`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MappingDetails {
    pub name: String,
    pub record_type: EntityType,
    #[serde(default)]
    pub mapping_fields: Vec<MappingRule>,
    #[serde(default)]
    pub marc_mapping_details: Vec<MarcMappingDetail>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub marc_mapping_option: Option<MarcMappingOption>,
    /// Anything else a client sends, kept as sent.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// The rule for one target field (`mappingRule.json`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MappingRule {
    pub name: String,
    /// `"true"` or `"false"`: FOLIO's mapper applies only rules whose text reads true.
    #[serde(
        default,
        deserialize_with = "super::string_or_bool",
        skip_serializing_if = "Option::is_none"
    )]
    pub enabled: Option<String>,
    #[serde(default)]
    pub required: bool,
    /// The target, e.g. `holdings.permanentLocationId` or `instance.statisticalCodeIds[]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// The expression, e.g. `949$a` or `"Available"`; see [`crate::Expression`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub boolean_field_action: Option<BooleanFieldAction>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeatable_field_action: Option<RepeatableFieldAction>,
    #[serde(default)]
    pub subfields: Vec<RepeatableSubfield>,
    /// Reference-data choices: id to label (`"name (code)"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accepted_values: Option<Map<String, Value>>,
    /// Anything else a client sends, kept as sent.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

impl MappingRule {
    /// Whether the rule is applied (`enabled` reads true, ignoring case, as Java's
    /// `Boolean.parseBoolean`).
    pub fn is_enabled(&self) -> bool {
        self.enabled.as_deref().is_some_and(|e| e.eq_ignore_ascii_case("true"))
    }
}

/// A value for a boolean target.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum BooleanFieldAction {
    AllTrue,
    AllFalse,
    AsIs,
    Ignore,
}

/// What happens to an array target's existing entries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum RepeatableFieldAction {
    /// Add the incoming entries to the existing ones.
    ExtendExisting,
    /// Remove every existing entry.
    DeleteExisting,
    /// Replace the existing entries with the incoming ones.
    ExchangeExisting,
    /// Remove the existing entries equal to incoming ones.
    DeleteIncoming,
}

impl RepeatableFieldAction {
    pub fn as_str(self) -> &'static str {
        match self {
            RepeatableFieldAction::ExtendExisting => "EXTEND_EXISTING",
            RepeatableFieldAction::DeleteExisting => "DELETE_EXISTING",
            RepeatableFieldAction::ExchangeExisting => "EXCHANGE_EXISTING",
            RepeatableFieldAction::DeleteIncoming => "DELETE_INCOMING",
        }
    }
}

/// One entry of an array target, itself a set of rules (`repeatableSubfieldMapping.json`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RepeatableSubfield {
    pub order: i32,
    pub path: String,
    #[serde(default)]
    pub fields: Vec<MappingRule>,
    /// Anything else a client sends, kept as sent.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// Whether a MARC mapping updates the record or modifies it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum MarcMappingOption {
    Update,
    Modify,
}

impl MarcMappingOption {
    pub fn as_str(self) -> &'static str {
        match self {
            MarcMappingOption::Update => "UPDATE",
            MarcMappingOption::Modify => "MODIFY",
        }
    }
}

/// One edit of a MARC record (`marcMappingDetail.json`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MarcMappingDetail {
    pub order: i32,
    pub action: MarcFieldAction,
    pub field: MarcField,
    /// Anything else a client sends, kept as sent.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum MarcFieldAction {
    Add,
    Delete,
    Edit,
    Move,
}

/// A MARC field an edit names (`marcField.json`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MarcField {
    pub field: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub indicator1: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub indicator2: Option<String>,
    #[serde(default)]
    pub subfields: Vec<MarcSubfield>,
    /// Anything else a client sends, kept as sent.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// A subfield an edit names, with what is done to it (`marcSubfield.json`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MarcSubfield {
    pub subfield: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<MarcData>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subaction: Option<MarcSubfieldSubaction>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<MarcSubfieldPosition>,
    /// Anything else a client sends, kept as sent.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// The data of a subfield edit (`marcData.json`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MarcData {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub find: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replace_with: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub marc_field: Option<MarcField>,
    /// Anything else a client sends, kept as sent.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum MarcSubfieldSubaction {
    AddSubfield,
    Insert,
    Replace,
    Remove,
    CreateNewField,
    AddToExistingField,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum MarcSubfieldPosition {
    BeforeString,
    AfterString,
    NewSubfield,
}

/// A MARC field protection entry (`marcFieldProtectionSetting.json`): a field an
/// update leaves alone, or with `override`, one this profile may change after all.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MarcFieldProtectionSetting {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Uuid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub indicator1: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub indicator2: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subfield: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    #[serde(default, rename = "override", skip_serializing_if = "Option::is_none")]
    pub override_protection: Option<bool>,
    /// Anything else a client sends (its `metadata`), kept as sent.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

super::profile_record!(
    MappingProfile,
    "mapping_profiles",
    "mapping_profile",
    "mapping profile",
    ["incomingRecordType", "existingRecordType"]
);

impl Profile for MappingProfile {
    const TYPE: ProfileType = ProfileType::MappingProfile;
    const LABEL: &'static str = "The field mapping profile";

    super::profile_accessors!();
    fn check(
        reader: &store::Reader<'_>,
        dto: &super::ProfileDto<Self>,
        stored: Option<&Self>,
    ) -> crate::Result<Vec<String>> {
        crate::rules::mapping(reader, dto, stored)
    }
    fn into_content(self) -> ProfileContent {
        ProfileContent::Mapping(Box::new(self))
    }
}
