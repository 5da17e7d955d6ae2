//! Job profiles (`jobProfile.json`): what an import runs, as the root of a tree of
//! match and action profiles.

use folio::Metadata;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::{
    Profile, ProfileContent, ProfileReactTo, ProfileSnapshotWrapper, ProfileType, Tags, UserInfo,
};

/// The kind of file a job imports (FOLIO's `dataType.json`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum DataType {
    #[serde(rename = "MARC")]
    Marc,
    #[serde(rename = "EDIFACT")]
    Edifact,
    #[serde(rename = "Delimited")]
    Delimited,
}

/// A job profile.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct JobProfile {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Uuid>,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub data_type: DataType,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub react_to: Option<ProfileReactTo>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tags: Option<Tags>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_info: Option<UserInfo>,
    /// Read-only: filled on a read `withRelations`, empty as stored.
    #[serde(default)]
    pub parent_profiles: Vec<ProfileSnapshotWrapper>,
    /// Read-only: filled on a read `withRelations`, empty as stored.
    #[serde(default)]
    pub child_profiles: Vec<ProfileSnapshotWrapper>,
    #[serde(default)]
    pub hidden: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

super::profile_record!(JobProfile, "job_profiles", "job_profile", "job profile", ["dataType"]);

impl Profile for JobProfile {
    const TYPE: ProfileType = ProfileType::JobProfile;
    const LABEL: &'static str = "Job profile";

    super::profile_accessors!();
    fn check(
        reader: &store::Reader<'_>,
        dto: &super::ProfileDto<Self>,
        stored: Option<&Self>,
    ) -> crate::Result<Vec<String>> {
        crate::rules::job(reader, dto, stored)
    }
    fn into_content(self) -> ProfileContent {
        ProfileContent::Job(Box::new(self))
    }
}
