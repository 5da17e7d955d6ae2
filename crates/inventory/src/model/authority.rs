//! `Authority`: an authority record (FOLIO mod-entities-links
//! `authority-storage/authorityDto.yaml`): one authorised heading, its see-from
//! (`sft*`) and see-also-from (`saft*`) tracings, identifiers and notes.

use serde::{Deserialize, Serialize};
use uuid::Uuid;

use folio::Metadata;

use crate::model::nullable;

/// A heading kind: the FOLIO field of its authorised form (`personalName`), whose
/// tracings are `sft<Kind>` and `saft<Kind>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HeadingKind {
    PersonalName,
    PersonalNameTitle,
    CorporateName,
    CorporateNameTitle,
    MeetingName,
    MeetingNameTitle,
    UniformTitle,
    NamedEvent,
    GeneralSubdivision,
    TopicalTerm,
    GeographicName,
    GenreTerm,
    ChronTerm,
    MediumPerfTerm,
    GeographicSubdivision,
    ChronSubdivision,
    FormSubdivision,
}

impl HeadingKind {
    /// Every kind, in the order of mod-search's authority model (which is the order
    /// of an authority's search documents).
    pub const ALL: [HeadingKind; 17] = [
        HeadingKind::PersonalName,
        HeadingKind::PersonalNameTitle,
        HeadingKind::CorporateName,
        HeadingKind::CorporateNameTitle,
        HeadingKind::MeetingName,
        HeadingKind::MeetingNameTitle,
        HeadingKind::GeographicName,
        HeadingKind::UniformTitle,
        HeadingKind::NamedEvent,
        HeadingKind::GeneralSubdivision,
        HeadingKind::TopicalTerm,
        HeadingKind::GenreTerm,
        HeadingKind::ChronTerm,
        HeadingKind::MediumPerfTerm,
        HeadingKind::GeographicSubdivision,
        HeadingKind::ChronSubdivision,
        HeadingKind::FormSubdivision,
    ];

    /// The FOLIO field of the authorised heading.
    pub fn field(self) -> &'static str {
        self.fields().0
    }

    /// The FOLIO fields of the authorised heading, its see-from and see-also-from
    /// tracings.
    pub fn fields(self) -> (&'static str, &'static str, &'static str) {
        match self {
            HeadingKind::PersonalName => ("personalName", "sftPersonalName", "saftPersonalName"),
            HeadingKind::PersonalNameTitle => {
                ("personalNameTitle", "sftPersonalNameTitle", "saftPersonalNameTitle")
            }
            HeadingKind::CorporateName => {
                ("corporateName", "sftCorporateName", "saftCorporateName")
            }
            HeadingKind::CorporateNameTitle => {
                ("corporateNameTitle", "sftCorporateNameTitle", "saftCorporateNameTitle")
            }
            HeadingKind::MeetingName => ("meetingName", "sftMeetingName", "saftMeetingName"),
            HeadingKind::MeetingNameTitle => {
                ("meetingNameTitle", "sftMeetingNameTitle", "saftMeetingNameTitle")
            }
            HeadingKind::UniformTitle => ("uniformTitle", "sftUniformTitle", "saftUniformTitle"),
            HeadingKind::NamedEvent => ("namedEvent", "sftNamedEvent", "saftNamedEvent"),
            HeadingKind::GeneralSubdivision => {
                ("generalSubdivision", "sftGeneralSubdivision", "saftGeneralSubdivision")
            }
            HeadingKind::TopicalTerm => ("topicalTerm", "sftTopicalTerm", "saftTopicalTerm"),
            HeadingKind::GeographicName => {
                ("geographicName", "sftGeographicName", "saftGeographicName")
            }
            HeadingKind::GenreTerm => ("genreTerm", "sftGenreTerm", "saftGenreTerm"),
            HeadingKind::ChronTerm => ("chronTerm", "sftChronTerm", "saftChronTerm"),
            HeadingKind::MediumPerfTerm => {
                ("mediumPerfTerm", "sftMediumPerfTerm", "saftMediumPerfTerm")
            }
            HeadingKind::GeographicSubdivision => {
                ("geographicSubdivision", "sftGeographicSubdivision", "saftGeographicSubdivision")
            }
            HeadingKind::ChronSubdivision => {
                ("chronSubdivision", "sftChronSubdivision", "saftChronSubdivision")
            }
            HeadingKind::FormSubdivision => {
                ("formSubdivision", "sftFormSubdivision", "saftFormSubdivision")
            }
        }
    }

    /// mod-search's `headingType` of the kind.
    pub fn heading_type(self) -> &'static str {
        match self {
            HeadingKind::PersonalName | HeadingKind::PersonalNameTitle => "Personal Name",
            HeadingKind::CorporateName | HeadingKind::CorporateNameTitle => "Corporate Name",
            HeadingKind::MeetingName | HeadingKind::MeetingNameTitle => "Conference Name",
            HeadingKind::UniformTitle => "Uniform Title",
            HeadingKind::NamedEvent => "Named Event",
            HeadingKind::GeneralSubdivision => "General Subdivision",
            HeadingKind::TopicalTerm => "Topical",
            HeadingKind::GeographicName => "Geographic Name",
            HeadingKind::GenreTerm => "Genre",
            HeadingKind::ChronTerm => "Chronological Term",
            HeadingKind::MediumPerfTerm => "Medium of Performance Term",
            HeadingKind::GeographicSubdivision => "Geographic Subdivision",
            HeadingKind::ChronSubdivision => "Chronological Subdivision",
            HeadingKind::FormSubdivision => "Form Subdivision",
        }
    }

    /// Whether the heading is a name with a title (`personalNameTitle`, ...).
    pub fn is_title(self) -> bool {
        matches!(
            self,
            HeadingKind::PersonalNameTitle
                | HeadingKind::CorporateNameTitle
                | HeadingKind::MeetingNameTitle
        )
    }
}

macro_rules! authority {
    ($( $kind:ident => $field:ident, $sft:ident, $saft:ident, $json:literal, $sft_json:literal, $saft_json:literal; )*) => {
        /// An authority record. At most one heading kind is set in practice (MARC has
        /// one 1XX), but FOLIO's schema does not say so, and search indexes every
        /// heading given.
        #[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
        #[serde(rename_all = "camelCase", deny_unknown_fields)]
        pub struct Authority {
            /// Assigned by the server when a create request has none.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub id: Option<Uuid>,
            /// Optimistic-locking version, maintained by the server.
            #[serde(default, rename = "_version", skip_serializing_if = "Option::is_none")]
            pub version: Option<i64>,
            /// Where the record comes from: `MARC`, `FOLIO`, `CONSORTIUM-MARC`, ...
            pub source: String,
            /// The record's id in its source file, such as an LCCN without spaces
            /// (`sh85000001`).
            pub natural_id: String,
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub source_file_id: Option<Uuid>,
            /// The subject heading system code (MARC 008/11, `a` for LCSH).
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub subject_headings: Option<String>,
            $(
                #[serde(rename = $json, default, skip_serializing_if = "Option::is_none")]
                pub $field: Option<String>,
                #[serde(rename = $sft_json, default, deserialize_with = "nullable::vec", skip_serializing_if = "Vec::is_empty")]
                pub $sft: Vec<String>,
                #[serde(rename = $saft_json, default, deserialize_with = "nullable::vec", skip_serializing_if = "Vec::is_empty")]
                pub $saft: Vec<String>,
            )*
            #[serde(default, deserialize_with = "nullable::vec")]
            pub identifiers: Vec<AuthorityIdentifier>,
            #[serde(default, deserialize_with = "nullable::vec")]
            pub notes: Vec<AuthorityNote>,
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub metadata: Option<Metadata>,
        }

        impl Authority {
            /// The authorised heading and the tracings of one kind.
            pub fn headings(&self, kind: HeadingKind) -> (Option<&str>, &[String], &[String]) {
                match kind {
                    $( HeadingKind::$kind => (self.$field.as_deref(), &self.$sft, &self.$saft), )*
                }
            }

            /// Mutable access to the authorised heading and the tracings of one kind.
            pub fn headings_mut(
                &mut self,
                kind: HeadingKind,
            ) -> (&mut Option<String>, &mut Vec<String>, &mut Vec<String>) {
                match kind {
                    $( HeadingKind::$kind => (&mut self.$field, &mut self.$sft, &mut self.$saft), )*
                }
            }
        }
    };
}

authority! {
    PersonalName => personal_name, sft_personal_name, saft_personal_name, "personalName", "sftPersonalName", "saftPersonalName";
    PersonalNameTitle => personal_name_title, sft_personal_name_title, saft_personal_name_title, "personalNameTitle", "sftPersonalNameTitle", "saftPersonalNameTitle";
    CorporateName => corporate_name, sft_corporate_name, saft_corporate_name, "corporateName", "sftCorporateName", "saftCorporateName";
    CorporateNameTitle => corporate_name_title, sft_corporate_name_title, saft_corporate_name_title, "corporateNameTitle", "sftCorporateNameTitle", "saftCorporateNameTitle";
    MeetingName => meeting_name, sft_meeting_name, saft_meeting_name, "meetingName", "sftMeetingName", "saftMeetingName";
    MeetingNameTitle => meeting_name_title, sft_meeting_name_title, saft_meeting_name_title, "meetingNameTitle", "sftMeetingNameTitle", "saftMeetingNameTitle";
    UniformTitle => uniform_title, sft_uniform_title, saft_uniform_title, "uniformTitle", "sftUniformTitle", "saftUniformTitle";
    NamedEvent => named_event, sft_named_event, saft_named_event, "namedEvent", "sftNamedEvent", "saftNamedEvent";
    GeneralSubdivision => general_subdivision, sft_general_subdivision, saft_general_subdivision, "generalSubdivision", "sftGeneralSubdivision", "saftGeneralSubdivision";
    TopicalTerm => topical_term, sft_topical_term, saft_topical_term, "topicalTerm", "sftTopicalTerm", "saftTopicalTerm";
    GeographicName => geographic_name, sft_geographic_name, saft_geographic_name, "geographicName", "sftGeographicName", "saftGeographicName";
    GenreTerm => genre_term, sft_genre_term, saft_genre_term, "genreTerm", "sftGenreTerm", "saftGenreTerm";
    ChronTerm => chron_term, sft_chron_term, saft_chron_term, "chronTerm", "sftChronTerm", "saftChronTerm";
    MediumPerfTerm => medium_perf_term, sft_medium_perf_term, saft_medium_perf_term, "mediumPerfTerm", "sftMediumPerfTerm", "saftMediumPerfTerm";
    GeographicSubdivision => geographic_subdivision, sft_geographic_subdivision, saft_geographic_subdivision, "geographicSubdivision", "sftGeographicSubdivision", "saftGeographicSubdivision";
    ChronSubdivision => chron_subdivision, sft_chron_subdivision, saft_chron_subdivision, "chronSubdivision", "sftChronSubdivision", "saftChronSubdivision";
    FormSubdivision => form_subdivision, sft_form_subdivision, saft_form_subdivision, "formSubdivision", "sftFormSubdivision", "saftFormSubdivision";
}

/// An identifier of an authority (LCCN, control number, ...).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AuthorityIdentifier {
    pub value: String,
    /// An `/identifier-types` record.
    pub identifier_type_id: Uuid,
}

/// A note on an authority.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AuthorityNote {
    /// An authority note type.
    pub note_type_id: Uuid,
    pub note: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub staff_only: Option<bool>,
}

#[cfg(test)]
mod tests {
    use folio::{DecodeError, decode};

    use super::{Authority, HeadingKind};

    #[test]
    fn decodes_headings_and_rejects_what_folio_rejects() {
        let body = br#"{"source": "MARC", "naturalId": "sh85029552", "topicalTerm": "Computers",
            "sftTopicalTerm": ["Automatic computers"], "saftTopicalTerm": null,
            "identifiers": [{"value": "sh 85029552", "identifierTypeId": "c858e4f2-2b6b-4385-842b-60732ee14abb"}]}"#;
        let authority: Authority = decode(body).unwrap();
        let (heading, sft, saft) = authority.headings(HeadingKind::TopicalTerm);
        assert_eq!((heading, sft.len(), saft.len()), (Some("Computers"), 1, 0));
        let json = serde_json::to_value(&authority).unwrap();
        // Empty tracing arrays are not written; identifiers and notes always are.
        assert!(json.get("saftTopicalTerm").is_none());
        assert_eq!(json["notes"], serde_json::json!([]));
        assert_eq!(decode::<Authority>(json.to_string().as_bytes()).unwrap(), authority);

        let missing = decode::<Authority>(br#"{"source": "MARC"}"#).unwrap_err();
        assert!(matches!(missing, DecodeError::Invalid { field, .. } if field == "naturalId"));
        let unknown = decode::<Authority>(br#"{"source": "MARC", "naturalId": "x", "hrid": "1"}"#);
        assert!(matches!(unknown, Err(DecodeError::Invalid { field, .. }) if field == "hrid"));
        for kind in HeadingKind::ALL {
            let (field, sft, saft) = kind.fields();
            let body = format!(
                r#"{{"source": "MARC", "naturalId": "x", "{field}": "a", "{sft}": ["b"], "{saft}": ["c"]}}"#
            );
            let authority: Authority = decode(body.as_bytes()).unwrap();
            assert_eq!(authority.headings(kind).0, Some("a"), "{field}");
        }
    }
}
