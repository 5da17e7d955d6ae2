//! Action profiles (`actionProfile.json`): what to do with a record (create, update,
//! modify, delete) and which record type it is done to; its mapping profile says how.

use folio::Metadata;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::{
    Profile, ProfileContent, ProfileReactTo, ProfileSnapshotWrapper, ProfileType, Tags, UserInfo,
};

/// What an action does. CREATE applies to every record type, UPDATE to all but orders
/// and invoices, MODIFY only to MARC records.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Action {
    Create,
    Update,
    Delete,
    Modify,
}

impl Action {
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Create => "CREATE",
            Action::Update => "UPDATE",
            Action::Delete => "DELETE",
            Action::Modify => "MODIFY",
        }
    }
}

/// The record type an action is done to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum FolioRecord {
    Instance,
    Holdings,
    Authority,
    Item,
    Order,
    Invoice,
    MarcBibliographic,
    MarcHoldings,
    MarcAuthority,
    MarcAuthorityExtended,
}

impl FolioRecord {
    /// The type's wire name, which is also the [`super::EntityType`] name a mapping
    /// profile for it has as its existing record type.
    pub fn as_str(self) -> &'static str {
        match self {
            FolioRecord::Instance => "INSTANCE",
            FolioRecord::Holdings => "HOLDINGS",
            FolioRecord::Authority => "AUTHORITY",
            FolioRecord::Item => "ITEM",
            FolioRecord::Order => "ORDER",
            FolioRecord::Invoice => "INVOICE",
            FolioRecord::MarcBibliographic => "MARC_BIBLIOGRAPHIC",
            FolioRecord::MarcHoldings => "MARC_HOLDINGS",
            FolioRecord::MarcAuthority => "MARC_AUTHORITY",
            FolioRecord::MarcAuthorityExtended => "MARC_AUTHORITY_EXTENDED",
        }
    }
}

/// An action profile.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ActionProfile {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Uuid>,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tags: Option<Tags>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub react_to: Option<ProfileReactTo>,
    pub action: Action,
    pub folio_record: FolioRecord,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_info: Option<UserInfo>,
    #[serde(default)]
    pub parent_profiles: Vec<ProfileSnapshotWrapper>,
    #[serde(default)]
    pub child_profiles: Vec<ProfileSnapshotWrapper>,
    #[serde(default)]
    pub hidden: bool,
    /// Whether `$9` subfields are removed from the linkable MARC Bib fields.
    #[serde(default, rename = "remove9Subfields")]
    pub remove_9_subfields: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

super::profile_record!(
    ActionProfile,
    "action_profiles",
    "action_profile",
    "action profile",
    ["action", "folioRecord"]
);

impl Profile for ActionProfile {
    const TYPE: ProfileType = ProfileType::ActionProfile;
    const LABEL: &'static str = "Action profile";

    super::profile_accessors!();
    fn check(
        reader: &store::Reader<'_>,
        dto: &super::ProfileDto<Self>,
        stored: Option<&Self>,
    ) -> crate::Result<Vec<String>> {
        crate::rules::action(reader, dto, stored)
    }
    fn into_content(self) -> ProfileContent {
        ProfileContent::Action(Box::new(self))
    }
    /// FOLIO sets `remove9Subfields` on every save, to whether the action is on an
    /// instance or a MARC Bib record, whatever the client sent.
    fn normalise(&mut self) {
        self.remove_9_subfields =
            matches!(self.folio_record, FolioRecord::Instance | FolioRecord::MarcBibliographic);
    }
}
