//! Job profiles (`jobProfile.json`): what an import runs, as the root of a tree of
//! match and action profiles.

use folio::Metadata;
use serde::{Deserialize, Serialize};
use store::{ColumnValue, QueryField, RecordTable};
use uuid::Uuid;

use super::{
    COMMON_QUERY, Profile, ProfileContent, ProfileReactTo, ProfileSnapshotWrapper, ProfileType,
    Tags, UserInfo, body_text,
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

const QUERY: &[QueryField] = &[
    COMMON_QUERY[0],
    COMMON_QUERY[1],
    COMMON_QUERY[2],
    COMMON_QUERY[3],
    COMMON_QUERY[4],
    COMMON_QUERY[5],
    COMMON_QUERY[6],
    COMMON_QUERY[7],
    COMMON_QUERY[8],
    COMMON_QUERY[9],
    body_text!("dataType"),
];

impl folio::Record for JobProfile {
    const TABLE: RecordTable = RecordTable {
        table: "job_profiles",
        record_type: "job_profile",
        columns: &["name", "name_key", "hidden"],
    };
    const NAME: &'static str = "job profile";
    const QUERY: &'static [QueryField] = QUERY;
    const READ_ONLY: &'static [&'static str] = super::READ_ONLY;

    folio::id_and_metadata!();
    fn columns(&self) -> Vec<ColumnValue> {
        super::profile_columns(&self.name, self.hidden)
    }
}

impl Profile for JobProfile {
    const TYPE: ProfileType = ProfileType::JobProfile;
    const LABEL: &'static str = "Job profile";

    fn name(&self) -> &str {
        &self.name
    }
    fn hidden(&self) -> bool {
        self.hidden
    }
    fn set_user_info(&mut self, user_info: Option<UserInfo>) {
        self.user_info = user_info;
    }
    fn set_relations(
        &mut self,
        parents: Vec<ProfileSnapshotWrapper>,
        children: Vec<ProfileSnapshotWrapper>,
    ) {
        self.parent_profiles = parents;
        self.child_profiles = children;
    }
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
