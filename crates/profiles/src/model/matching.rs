//! Match profiles (`matchProfile.json` and `match-profile-detail/`): how an incoming
//! record finds the existing record it stands for.
//!
//! A match detail compares a value of the incoming record with a value of existing
//! records. Each side is a [`MatchExpression`]: values read from the record, named by
//! labelled fields (`field`, `indicator1`, `indicator2`, `recordSubfield` for MARC; one
//! `field` path such as `instance.hrid` for Inventory records), or a static value.

use folio::Metadata;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use uuid::Uuid;

use super::{
    EntityType, Profile, ProfileContent, ProfileSnapshotWrapper, ProfileType, Tags, UserInfo,
};

/// A match profile.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MatchProfile {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Uuid>,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tags: Option<Tags>,
    pub incoming_record_type: EntityType,
    pub existing_record_type: EntityType,
    #[serde(default)]
    pub match_details: Vec<MatchDetail>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_info: Option<UserInfo>,
    #[serde(default)]
    pub parent_profiles: Vec<ProfileSnapshotWrapper>,
    #[serde(default)]
    pub child_profiles: Vec<ProfileSnapshotWrapper>,
    #[serde(default)]
    pub hidden: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

/// One comparison of a match profile (`matchDetail.json`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MatchDetail {
    pub incoming_record_type: EntityType,
    pub existing_record_type: EntityType,
    pub incoming_match_expression: MatchExpression,
    pub match_criterion: MatchCriterion,
    pub existing_match_expression: MatchExpression,
    /// How this comparison joins the ones before it (sub-matches).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub boolean_operation: Option<BooleanOperation>,
    /// Anything else a client sends, kept as sent.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// How the incoming value must relate to the existing one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum MatchCriterion {
    ExactlyMatches,
    ExistingValueContainsIncomingValue,
    IncomingValueContainsExistingValue,
    ExistingValueBeginsWithIncomingValue,
    IncomingValueBeginsWithExistingValue,
    ExistingValueEndsWithIncomingValue,
    IncomingValueEndsWithExistingValue,
}

/// How a sub-match joins the comparisons before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum BooleanOperation {
    #[serde(rename = "AND")]
    And,
    #[serde(rename = "AND NOT")]
    AndNot,
    #[serde(rename = "OR")]
    Or,
}

/// One side of a comparison (`matchExpression.json`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MatchExpression {
    pub data_value_type: DataValueType,
    /// The value's place in the record, when `dataValueType` is `VALUE_FROM_RECORD`.
    #[serde(default)]
    pub fields: Vec<FieldDefinition>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub static_value_details: Option<StaticValueDetails>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub qualifier: Option<Qualifier>,
    /// Anything else a client sends, kept as sent.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

impl MatchExpression {
    /// The value of the field with this label (`field`, `indicator1`, `recordSubfield`,
    /// `identifierTypeId`), if the expression has one.
    pub fn field(&self, label: &str) -> Option<&str> {
        self.fields.iter().find(|f| f.label == label).map(|f| f.value.as_str())
    }
}

/// Where a compared value comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum DataValueType {
    ValueFromRecord,
    StaticValue,
}

/// One labelled part of a value's place (`fieldDefinition.json`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FieldDefinition {
    pub label: String,
    #[serde(default)]
    pub value: String,
    /// Anything else a client sends, kept as sent.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// A static value to compare with (`staticValueDetails.json`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StaticValueDetails {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub static_value_type: Option<StaticValueType>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub number: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from_date: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to_date: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exact_date: Option<String>,
    /// Anything else a client sends, kept as sent.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum StaticValueType {
    Text,
    Number,
    DateRange,
    ExactDate,
}

/// Which values take part, and which part of them is compared (`qualifier.json`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Qualifier {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub qualifier_type: Option<QualifierType>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub qualifier_value: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comparison_part: Option<ComparisonPart>,
    /// Anything else a client sends, kept as sent.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum QualifierType {
    BeginsWith,
    EndsWith,
    Contains,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ComparisonPart {
    NumericsOnly,
    AlphanumericsOnly,
}

super::profile_record!(
    MatchProfile,
    "match_profiles",
    "match_profile",
    "match profile",
    ["incomingRecordType", "existingRecordType"]
);

impl Profile for MatchProfile {
    const TYPE: ProfileType = ProfileType::MatchProfile;
    const LABEL: &'static str = "Match profile";

    super::profile_accessors!();
    fn into_content(self) -> ProfileContent {
        ProfileContent::Match(Box::new(self))
    }
}
