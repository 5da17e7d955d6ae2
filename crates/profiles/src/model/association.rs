//! Profile associations (`profileAssociation.json`): the links of the trees, and the
//! body every profile write takes (`*UpdateDto.json`): the profile with the links to
//! add and to remove.

use serde::{Deserialize, Serialize};
use store::{ColumnValue, FieldKind, QueryField, RecordTable};
use uuid::Uuid;

use super::{ProfileType, ReactTo};

/// A link from a master profile to one of its details.
///
/// `masterWrapperId` and `detailWrapperId` name the two ends as tree nodes. A match
/// profile gets a node of its own each time it is linked as a detail, so the same match
/// profile can sit twice in one job with different branches; a job's, action's or
/// mapping's node is shared by all its links. A link whose master is a match profile
/// carries the job it belongs to (`jobProfileId`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProfileAssociation {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Uuid>,
    /// Filled with the profile being written when a profile body's link leaves it out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub master_profile_id: Option<Uuid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail_profile_id: Option<Uuid>,
    /// The detail's place among its master's details.
    #[serde(default)]
    pub order: i32,
    /// Under a match profile: on which outcome the detail runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub react_to: Option<ReactTo>,
    /// Kept for FOLIO's shape: FOLIO no longer stores it, and reads answer `false`.
    #[serde(default, deserialize_with = "super::bool_or_string")]
    pub triggered: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub master_profile_type: Option<ProfileType>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail_profile_type: Option<ProfileType>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub master_wrapper_id: Option<Uuid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail_wrapper_id: Option<Uuid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job_profile_id: Option<Uuid>,
}

impl ProfileAssociation {
    /// The link's master and detail: set on every stored link.
    pub(crate) fn ends(&self) -> Option<((ProfileType, Uuid), (ProfileType, Uuid))> {
        Some((
            (self.master_profile_type?, self.master_profile_id?),
            (self.detail_profile_type?, self.detail_profile_id?),
        ))
    }
}

const QUERY: &[QueryField] = &[
    QueryField { index: "id", column: "id", kind: FieldKind::Text },
    QueryField { index: "masterProfileId", column: "master_profile_id", kind: FieldKind::Text },
    QueryField { index: "detailProfileId", column: "detail_profile_id", kind: FieldKind::Text },
    QueryField { index: "masterProfileType", column: "master_type", kind: FieldKind::Exact },
    QueryField { index: "detailProfileType", column: "detail_type", kind: FieldKind::Exact },
    QueryField { index: "jobProfileId", column: "job_profile_id", kind: FieldKind::Text },
];

pub(crate) const ASSOCIATION_COLUMNS: &[&str] = &[
    "master_profile_id",
    "master_type",
    "detail_profile_id",
    "detail_type",
    "master_wrapper_id",
    "detail_wrapper_id",
    "job_profile_id",
    "detail_order",
    "react_to",
];

impl folio::Record for ProfileAssociation {
    const TABLE: RecordTable = RecordTable {
        table: "profile_associations",
        record_type: "profile_association",
        cached: false,
        columns: ASSOCIATION_COLUMNS,
    };
    const NAME: &'static str = "profile association";
    const QUERY: &'static [QueryField] = QUERY;
    /// `detail` is the detail profile's content, which FOLIO fills on some reads.
    const READ_ONLY: &'static [&'static str] = &["detail"];

    fn id(&self) -> Option<Uuid> {
        self.id
    }
    fn set_id(&mut self, id: Uuid) {
        self.id = Some(id);
    }
    /// Associations carry no `metadata` in FOLIO's shape.
    fn metadata(&self) -> Option<&folio::Metadata> {
        None
    }
    fn set_metadata(&mut self, _metadata: folio::Metadata) {}
    fn columns(&self) -> Vec<ColumnValue> {
        let text =
            |id: Option<Uuid>| id.map_or(ColumnValue::Null, |id| ColumnValue::Text(id.to_string()));
        let kind = |t: Option<ProfileType>| ColumnValue::from(t.map(ProfileType::as_str));
        vec![
            text(self.master_profile_id),
            kind(self.master_profile_type),
            text(self.detail_profile_id),
            kind(self.detail_profile_type),
            text(self.master_wrapper_id),
            text(self.detail_wrapper_id),
            text(self.job_profile_id),
            ColumnValue::Int(i64::from(self.order)),
            ColumnValue::from(self.react_to.map(ReactTo::as_str)),
        ]
    }
}

/// What a profile POST or PUT takes and a POST answers (FOLIO's `*UpdateDto`): the
/// profile, and the links to add and to remove with it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProfileDto<P> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<Uuid>,
    pub profile: P,
    pub added_relations: Vec<ProfileAssociation>,
    pub deleted_relations: Vec<ProfileAssociation>,
}
