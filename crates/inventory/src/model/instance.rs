//! `Instance`: the bibliographic record (FOLIO `instance-storage/instance.json`) and
//! the types nested in it.

use serde::{Deserialize, Serialize};
use uuid::Uuid;

use folio::Metadata;

use crate::model::nullable;
use crate::model::{ElectronicAccess, Tags, Virtual};

/// An instance: what a library describes (a work in one form), independent of copies.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Instance {
    /// Assigned by the server when a create request has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Uuid>,
    /// Optimistic-locking version, maintained by the server.
    #[serde(default, rename = "_version", skip_serializing_if = "Option::is_none")]
    pub version: Option<i64>,
    /// Human-readable id (`in00000000001`); assigned by the server when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hrid: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub match_key: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_uri: Option<String>,
    /// Where the record comes from: `FOLIO`, `MARC`, `EPKB`, `CONSORTIUM-MARC`,
    /// `CONSORTIUM-FOLIO`, ... A free string in FOLIO's schema, so not an enum here.
    pub source: String,
    pub title: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index_title: Option<String>,
    #[serde(default, deserialize_with = "nullable::set")]
    pub alternative_titles: Vec<AlternativeTitle>,
    #[serde(default, deserialize_with = "nullable::set")]
    pub editions: Vec<String>,
    #[serde(default, deserialize_with = "nullable::set")]
    pub series: Vec<Series>,
    #[serde(default, deserialize_with = "nullable::vec")]
    pub identifiers: Vec<Identifier>,
    #[serde(default, deserialize_with = "nullable::vec")]
    pub contributors: Vec<Contributor>,
    #[serde(default, deserialize_with = "nullable::set")]
    pub subjects: Vec<Subject>,
    #[serde(default, deserialize_with = "nullable::vec")]
    pub classifications: Vec<Classification>,
    #[serde(default, deserialize_with = "nullable::vec")]
    pub publication: Vec<Publication>,
    #[serde(default, deserialize_with = "nullable::set")]
    pub publication_frequency: Vec<String>,
    #[serde(default, deserialize_with = "nullable::set")]
    pub publication_range: Vec<String>,
    #[serde(default, deserialize_with = "nullable::vec")]
    pub electronic_access: Vec<ElectronicAccess>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dates: Option<InstanceDates>,
    /// The RDA content type (`text`, `still image`, ...): an `/instance-types` record.
    pub instance_type_id: Uuid,
    #[serde(default, deserialize_with = "nullable::vec")]
    pub instance_format_ids: Vec<Uuid>,
    #[serde(default, skip_serializing)]
    pub instance_formats: Virtual,
    #[serde(default, deserialize_with = "nullable::vec")]
    pub physical_descriptions: Vec<String>,
    /// MARC language codes (ISO 639-2/B), e.g. `eng`. Not checked against a list,
    /// as FOLIO does not check them either.
    #[serde(default, deserialize_with = "nullable::vec")]
    pub languages: Vec<String>,
    #[serde(default, deserialize_with = "nullable::vec")]
    pub notes: Vec<InstanceNote>,
    #[serde(default, deserialize_with = "nullable::vec")]
    pub administrative_notes: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode_of_issuance_id: Option<Uuid>,
    /// A date or timestamp as the cataloguer wrote it; FOLIO keeps it as a string.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cataloged_date: Option<String>,
    #[serde(default, deserialize_with = "nullable::or_default")]
    pub previously_held: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub staff_suppress: Option<bool>,
    #[serde(default, deserialize_with = "nullable::or_default")]
    pub discovery_suppress: bool,
    #[serde(default, deserialize_with = "nullable::or_default")]
    pub deleted: bool,
    #[serde(default, deserialize_with = "nullable::set")]
    pub statistical_code_ids: Vec<Uuid>,
    /// Read-only: `MARC-JSON` when a source record exists. Set by the server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_record_format: Option<SourceRecordFormat>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_id: Option<Uuid>,
    /// A date or timestamp string, kept as sent (FOLIO types it as a plain string).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_updated_date: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tags: Option<Tags>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
    #[serde(default, rename = "holdingsRecords2", skip_serializing)]
    pub holdings_records2: Virtual,
    /// Read-only in FOLIO (computed from bound-with parts); a GET gives it, a PUT drops it.
    #[serde(default, skip_serializing)]
    pub is_bound_with: Virtual,
    #[serde(default, deserialize_with = "nullable::set")]
    pub nature_of_content_term_ids: Vec<Uuid>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AlternativeTitle {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alternative_title_type_id: Option<Uuid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alternative_title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authority_id: Option<Uuid>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Series {
    pub value: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authority_id: Option<Uuid>,
}

/// A typed identifier (`common/identifier.json`): ISBN, ISSN, OCLC number, ...
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Identifier {
    pub value: String,
    /// An `/identifier-types` record.
    pub identifier_type_id: Uuid,
    #[serde(default, skip_serializing)]
    pub identifier_type_object: Virtual,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Contributor {
    pub name: String,
    /// A relator term (`/contributor-types`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contributor_type_id: Option<Uuid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contributor_type_text: Option<String>,
    /// Personal, corporate or meeting name (`/contributor-name-types`).
    pub contributor_name_type_id: Uuid,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authority_id: Option<Uuid>,
    #[serde(default, skip_serializing)]
    pub contributor_name_type: Virtual,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub primary: Option<bool>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Subject {
    pub value: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authority_id: Option<Uuid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_id: Option<Uuid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub type_id: Option<Uuid>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Classification {
    pub classification_number: String,
    pub classification_type_id: Uuid,
    #[serde(default, skip_serializing)]
    pub classification_type: Virtual,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Publication {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub publisher: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub place: Option<String>,
    /// Free text (`1946-`, `[c1999]`), not a date.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date_of_publication: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
}

/// The MARC 008 dates of an instance.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct InstanceDates {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date_type_id: Option<Uuid>,
    /// Invariant: at most 4 characters (FOLIO `maxLength: 4`), checked when decoding.
    #[serde(
        default,
        deserialize_with = "nullable::max_len_4",
        skip_serializing_if = "Option::is_none"
    )]
    pub date1: Option<String>,
    /// Invariant: at most 4 characters, as `date1`.
    #[serde(
        default,
        deserialize_with = "nullable::max_len_4",
        skip_serializing_if = "Option::is_none"
    )]
    pub date2: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct InstanceNote {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instance_note_type_id: Option<Uuid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    #[serde(default, deserialize_with = "nullable::or_default")]
    pub staff_only: bool,
}

/// `sourceRecordFormat`: the one format FOLIO names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SourceRecordFormat {
    #[serde(rename = "MARC-JSON")]
    MarcJson,
}
