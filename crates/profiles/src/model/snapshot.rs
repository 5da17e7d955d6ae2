//! FOLIO's `profileSnapshotWrapper.json`: one node of a profile tree, with the profile
//! itself as `content`. The same shape lists a profile's parents and children
//! (`withRelations`) and answers `/profileSnapshots/{id}`.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use uuid::Uuid;

use super::{ActionProfile, JobProfile, MappingProfile, MatchProfile, ProfileType, ReactTo};

/// A node of a profile tree.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProfileSnapshotWrapper {
    /// The node's own id: new for each tree built. In `parentProfiles` and
    /// `childProfiles`, FOLIO puts the profile's id here.
    pub id: Uuid,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub profile_id: Option<Uuid>,
    /// The node the link names (the association's wrapper id).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub profile_wrapper_id: Option<Uuid>,
    pub content_type: ProfileType,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub react_to: Option<ReactTo>,
    pub order: i32,
    pub content: ProfileContent,
    pub child_snapshot_wrappers: Vec<ProfileSnapshotWrapper>,
}

/// A node's profile, typed by the node's `contentType`.
#[derive(Clone, Debug, PartialEq)]
pub enum ProfileContent {
    Job(Box<JobProfile>),
    Match(Box<MatchProfile>),
    Action(Box<ActionProfile>),
    Mapping(Box<MappingProfile>),
}

impl ProfileContent {
    pub fn profile_type(&self) -> ProfileType {
        match self {
            ProfileContent::Job(_) => ProfileType::JobProfile,
            ProfileContent::Match(_) => ProfileType::MatchProfile,
            ProfileContent::Action(_) => ProfileType::ActionProfile,
            ProfileContent::Mapping(_) => ProfileType::MappingProfile,
        }
    }

    pub fn id(&self) -> Option<Uuid> {
        match self {
            ProfileContent::Job(p) => p.id,
            ProfileContent::Match(p) => p.id,
            ProfileContent::Action(p) => p.id,
            ProfileContent::Mapping(p) => p.id,
        }
    }
}

impl Serialize for ProfileContent {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            ProfileContent::Job(p) => p.serialize(serializer),
            ProfileContent::Match(p) => p.serialize(serializer),
            ProfileContent::Action(p) => p.serialize(serializer),
            ProfileContent::Mapping(p) => p.serialize(serializer),
        }
    }
}

/// Reads a node with its content typed by `contentType` (a stored snapshot, or one a
/// client sends).
impl<'de> Deserialize<'de> for ProfileSnapshotWrapper {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase", deny_unknown_fields)]
        struct Raw {
            id: Uuid,
            #[serde(default)]
            profile_id: Option<Uuid>,
            #[serde(default)]
            profile_wrapper_id: Option<Uuid>,
            content_type: ProfileType,
            #[serde(default)]
            react_to: Option<ReactTo>,
            #[serde(default)]
            order: i32,
            content: Value,
            #[serde(default)]
            child_snapshot_wrappers: Vec<ProfileSnapshotWrapper>,
        }
        let raw = Raw::deserialize(deserializer)?;
        let content = match raw.content_type {
            ProfileType::JobProfile => serde_json::from_value(raw.content).map(ProfileContent::Job),
            ProfileType::MatchProfile => {
                serde_json::from_value(raw.content).map(ProfileContent::Match)
            }
            ProfileType::ActionProfile => {
                serde_json::from_value(raw.content).map(ProfileContent::Action)
            }
            ProfileType::MappingProfile => {
                serde_json::from_value(raw.content).map(ProfileContent::Mapping)
            }
        }
        .map_err(|e| serde::de::Error::custom(format!("content: {e}")))?;
        Ok(ProfileSnapshotWrapper {
            id: raw.id,
            profile_id: raw.profile_id,
            profile_wrapper_id: raw.profile_wrapper_id,
            content_type: raw.content_type,
            react_to: raw.react_to,
            order: raw.order,
            content,
            child_snapshot_wrappers: raw.child_snapshot_wrappers,
        })
    }
}
