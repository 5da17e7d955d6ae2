//! The JSON models of mod-di-converter-storage (data-import-raml-storage's
//! `schemas/mod-di-converter-storage/`), one module per profile type, and what they share:
//! the profile types, record types, tags and `userInfo`, and the [`Profile`] trait the
//! storage verbs are generic over.
//!
//! A profile's own properties are strict, as FOLIO's schemas (`additionalProperties:
//! false`): an unknown one is a 422 naming it. Nested detail (match expressions, mapping
//! rules) keeps whatever else a client sends, so nothing a client stores is lost.

use serde::{Deserialize, Deserializer, Serialize};
use store::{ColumnValue, FieldKind, QueryField};

mod action;
mod association;
mod job;
mod mapping;
mod matching;
mod snapshot;

pub use self::{
    action::{Action, ActionProfile, FolioRecord},
    association::{ProfileAssociation, ProfileDto},
    job::{DataType, JobProfile},
    mapping::{
        BooleanFieldAction, MappingDetails, MappingProfile, MappingRule, MarcData, MarcField,
        MarcFieldAction, MarcFieldProtectionSetting, MarcMappingDetail, MarcMappingOption,
        MarcSubfield, MarcSubfieldPosition, MarcSubfieldSubaction, RepeatableFieldAction,
        RepeatableSubfield,
    },
    matching::{
        BooleanOperation, ComparisonPart, DataValueType, FieldDefinition, MatchCriterion,
        MatchDetail, MatchExpression, MatchProfile, Qualifier, QualifierType, StaticValueDetails,
        StaticValueType,
    },
    snapshot::{ProfileContent, ProfileSnapshotWrapper},
};

/// The four kinds of profile (FOLIO's `profileType.json`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ProfileType {
    JobProfile,
    MatchProfile,
    ActionProfile,
    MappingProfile,
}

impl ProfileType {
    /// Every type, in the order FOLIO's messages list them.
    pub const ALL: [ProfileType; 4] = [
        ProfileType::ActionProfile,
        ProfileType::MappingProfile,
        ProfileType::MatchProfile,
        ProfileType::JobProfile,
    ];

    /// The type's wire name: `JOB_PROFILE`.
    pub fn as_str(self) -> &'static str {
        match self {
            ProfileType::JobProfile => "JOB_PROFILE",
            ProfileType::MatchProfile => "MATCH_PROFILE",
            ProfileType::ActionProfile => "ACTION_PROFILE",
            ProfileType::MappingProfile => "MAPPING_PROFILE",
        }
    }

    /// Reads a wire name exactly, as FOLIO's `ProfileType.fromValue`.
    pub fn parse(text: &str) -> Option<ProfileType> {
        ProfileType::ALL.into_iter().find(|t| t.as_str() == text)
    }

    /// How FOLIO's not-found messages name the type: "Job Profile".
    pub fn title(self) -> &'static str {
        match self {
            ProfileType::JobProfile => "Job Profile",
            ProfileType::MatchProfile => "Match Profile",
            ProfileType::ActionProfile => "Action Profile",
            ProfileType::MappingProfile => "Mapping Profile",
        }
    }

    /// Whether a profile of this type may have a detail of type `detail`: FOLIO's seven
    /// association types (`JOB_PROFILE_TO_MATCH_PROFILE`, ...).
    pub fn may_link(self, detail: ProfileType) -> bool {
        use ProfileType::*;
        matches!(
            (self, detail),
            (JobProfile, MatchProfile | ActionProfile)
                | (MatchProfile, MatchProfile | ActionProfile)
                | (ActionProfile, ActionProfile | MatchProfile | MappingProfile)
        )
    }
}

impl std::fmt::Display for ProfileType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which outcome of its match a profile runs on (FOLIO's `reactToType.json`). Profiles
/// themselves spell the second `NON-MATCH` ([`ProfileReactTo`]); links and trees use
/// this one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ReactTo {
    Match,
    NonMatch,
}

impl ReactTo {
    pub fn as_str(self) -> &'static str {
        match self {
            ReactTo::Match => "MATCH",
            ReactTo::NonMatch => "NON_MATCH",
        }
    }
}

/// A profile's own `reactTo` (job and action profiles), spelt as their schemas spell it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ProfileReactTo {
    #[serde(rename = "MATCH")]
    Match,
    #[serde(rename = "NON-MATCH")]
    NonMatch,
}

/// A record type a profile reads or writes (FOLIO's `entityType.json`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum EntityType {
    MarcBibliographic,
    MarcHoldings,
    MarcAuthority,
    EdifactInvoice,
    Delimited,
    Instance,
    Holdings,
    Authority,
    Item,
    Order,
    Invoice,
    StaticValue,
    PoLine,
}

impl EntityType {
    /// The type's wire name: `MARC_BIBLIOGRAPHIC`.
    pub fn as_str(self) -> &'static str {
        match self {
            EntityType::MarcBibliographic => "MARC_BIBLIOGRAPHIC",
            EntityType::MarcHoldings => "MARC_HOLDINGS",
            EntityType::MarcAuthority => "MARC_AUTHORITY",
            EntityType::EdifactInvoice => "EDIFACT_INVOICE",
            EntityType::Delimited => "DELIMITED",
            EntityType::Instance => "INSTANCE",
            EntityType::Holdings => "HOLDINGS",
            EntityType::Authority => "AUTHORITY",
            EntityType::Item => "ITEM",
            EntityType::Order => "ORDER",
            EntityType::Invoice => "INVOICE",
            EntityType::StaticValue => "STATIC_VALUE",
            EntityType::PoLine => "PO_LINE",
        }
    }

    /// Whether records of the type are MARC, whose match fields are tag, indicators and
    /// subfield rather than a path.
    pub fn is_marc(self) -> bool {
        matches!(
            self,
            EntityType::MarcBibliographic | EntityType::MarcHoldings | EntityType::MarcAuthority
        )
    }
}

/// FOLIO's `tags` block (raml-util `tags.schema`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tags {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tag_list: Option<Vec<String>>,
    /// Anything else a client sends, kept as sent.
    #[serde(flatten)]
    pub other: serde_json::Map<String, serde_json::Value>,
}

/// Who last changed a profile, by name (FOLIO's `userInfo.json`). The server fills it
/// from the user making the change; what a client sends is dropped.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UserInfo {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_name: Option<String>,
}

impl UserInfo {
    /// How FOLIO marks the profiles it seeds.
    pub fn system() -> UserInfo {
        UserInfo {
            first_name: Some("System".into()),
            last_name: Some("System".into()),
            user_name: Some("System".into()),
        }
    }
}

/// What the storage verbs need of a profile type; implemented by [`JobProfile`],
/// [`MatchProfile`], [`ActionProfile`] and [`MappingProfile`].
pub trait Profile: folio::Record + Clone + Send + 'static {
    const TYPE: ProfileType;
    /// How FOLIO's validation messages name the type: "Job profile".
    const LABEL: &'static str;

    fn name(&self) -> &str;
    fn hidden(&self) -> bool;
    fn set_user_info(&mut self, user_info: Option<UserInfo>);
    /// Fills the read-only `parentProfiles` and `childProfiles` (`withRelations`).
    fn set_relations(
        &mut self,
        parents: Vec<ProfileSnapshotWrapper>,
        children: Vec<ProfileSnapshotWrapper>,
    );
    /// The profile as a tree node's content.
    fn into_content(self) -> ProfileContent;
    /// What the server sets whatever a client sends (an action's `remove9Subfields`).
    fn normalise(&mut self) {}
    /// The type's own rules for a write, beyond the unique name: the messages of the
    /// rules the body breaks (FOLIO's 422), or an error for a profile a link names that
    /// does not exist. `stored` is the profile as stored, when the write replaces it.
    fn check(
        reader: &store::Reader<'_>,
        dto: &ProfileDto<Self>,
        stored: Option<&Self>,
    ) -> crate::Result<Vec<String>> {
        let _ = (reader, dto, stored);
        Ok(Vec::new())
    }
}

/// Top-level properties FOLIO's storage fills itself: a client sending them back (a GET
/// put back) has them dropped, never refused.
pub(crate) const READ_ONLY: &[&str] = &["userInfo", "parentProfiles", "childProfiles", "metadata"];

/// The extracted columns every profile table has, in its `RecordTable` order.
pub(crate) fn profile_columns(name: &str, hidden: bool) -> Vec<ColumnValue> {
    vec![
        ColumnValue::Text(name.to_string()),
        ColumnValue::Text(name_key(name)),
        ColumnValue::Int(i64::from(hidden)),
    ]
}

/// A name as FOLIO compares names for uniqueness: trimmed, lower-cased.
pub(crate) fn name_key(name: &str) -> String {
    name.trim().to_lowercase()
}

/// A CQL index over a top-level text property of the stored body. Profile tables stay
/// small (tens to hundreds of rows), so reading the table answers such a query at once.
macro_rules! body_text {
    ($index:literal) => {
        store::QueryField {
            index: $index,
            column: concat!("json_extract(body, '$.", $index, "') COLLATE NOCASE"),
            kind: store::FieldKind::Text,
        }
    };
}
pub(crate) use body_text;

/// The declarations every profile type shares: its table, its CQL indexes (the common
/// ones, then `extra` top-level properties of the body) and FOLIO's record verbs.
macro_rules! profile_record {
    ($ty:ident, $table:literal, $record_type:literal, $name:literal, [$($extra:literal),*]) => {
        impl folio::Record for $ty {
            const TABLE: store::RecordTable = store::RecordTable {
                table: $table,
                record_type: $record_type, cached: false,
                columns: &["name", "name_key", "hidden"],
            };
            const NAME: &'static str = $name;
            const QUERY: &'static [store::QueryField] = &[
                $crate::model::COMMON_QUERY[0],
                $crate::model::COMMON_QUERY[1],
                $crate::model::COMMON_QUERY[2],
                $crate::model::COMMON_QUERY[3],
                $crate::model::COMMON_QUERY[4],
                $crate::model::COMMON_QUERY[5],
                $crate::model::COMMON_QUERY[6],
                $crate::model::COMMON_QUERY[7],
                $crate::model::COMMON_QUERY[8],
                $crate::model::COMMON_QUERY[9],
                $($crate::model::body_text!($extra),)*
            ];
            const READ_ONLY: &'static [&'static str] = $crate::model::READ_ONLY;

            folio::id_and_metadata!();
            fn columns(&self) -> Vec<store::ColumnValue> {
                $crate::model::profile_columns(&self.name, self.hidden)
            }
        }
    };
}
pub(crate) use profile_record;

/// The accessors of [`Profile`] that every profile type answers from the same fields.
macro_rules! profile_accessors {
    () => {
        fn name(&self) -> &str {
            &self.name
        }
        fn hidden(&self) -> bool {
            self.hidden
        }
        fn set_user_info(&mut self, user_info: Option<$crate::model::UserInfo>) {
            self.user_info = user_info;
        }
        fn set_relations(
            &mut self,
            parents: Vec<$crate::model::ProfileSnapshotWrapper>,
            children: Vec<$crate::model::ProfileSnapshotWrapper>,
        ) {
            self.parent_profiles = parents;
            self.child_profiles = children;
        }
    };
}
pub(crate) use profile_accessors;

/// The CQL indexes every profile list answers; each type adds its own.
pub(crate) const COMMON_QUERY: [QueryField; 10] = [
    QueryField { index: "id", column: "id", kind: FieldKind::Text },
    QueryField { index: "name", column: "name", kind: FieldKind::Text },
    QueryField { index: "hidden", column: "hidden", kind: FieldKind::Bool },
    body_text!("description"),
    // Tags are matched against the tag list joined by spaces.
    QueryField {
        index: "tags.tagList",
        column: "(SELECT group_concat(value, ' ') FROM json_each(body, '$.tags.tagList')) COLLATE NOCASE",
        kind: FieldKind::Text,
    },
    body_text!("userInfo.firstName"),
    body_text!("userInfo.lastName"),
    body_text!("userInfo.userName"),
    body_text!("metadata.createdDate"),
    body_text!("metadata.updatedDate"),
];

/// Reads a property FOLIO types as a string that clients also send as a boolean
/// (`"enabled": true` in some of FOLIO's own mapping rules); it is written back as the
/// string, as FOLIO answers it.
pub(crate) fn string_or_bool<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Either {
        Text(String),
        Flag(bool),
    }
    Ok(Option::<Either>::deserialize(d)?.map(|v| match v {
        Either::Text(s) => s,
        Either::Flag(b) => b.to_string(),
    }))
}

/// Reads a boolean that clients also send as the string `"true"` or `"false"`
/// (FOLIO's own association example sends `"triggered": "true"`).
pub(crate) fn bool_or_string<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Either {
        Flag(bool),
        Text(String),
    }
    match Option::<Either>::deserialize(d)? {
        None => Ok(false),
        Some(Either::Flag(b)) => Ok(b),
        Some(Either::Text(s)) => match s.as_str() {
            "true" => Ok(true),
            "false" => Ok(false),
            _ => Err(serde::de::Error::custom(format!("expected true or false, got \"{s}\""))),
        },
    }
}
