//! One typed serde model per FOLIO inventory record type, matching
//! mod-inventory-storage's JSON schemas field for field.
//!
//! Owns the wire shape of instances, holdings records, items and every kind of
//! reference record, plus the derivation rules FOLIO applies to read-only fields. It
//! does not own storage, cross-record checks (does `instanceTypeId` exist?) or the
//! mapping of decode errors to HTTP responses.
//!
//! Conventions, the same in every model:
//! - `#[serde(deny_unknown_fields)]`: FOLIO answers 422 to a property its schema does
//!   not list, so Quire rejects it too (also where a few FOLIO schemas forgot
//!   `additionalProperties: false`).
//! - Fields FOLIO requires are plain types; other scalars are `Option`s, skipped when
//!   `None`. An explicit JSON `null` on an optional field reads as absent.
//! - Arrays default to empty and are always written, `[]` included, as FOLIO writes
//!   them. `uniqueItems` arrays drop duplicates on read, as FOLIO's sets do.
//! - Booleans with a schema default (`discoverySuppress` on instances, `staffOnly`,
//!   `isShadow`) are plain `bool`s, always written.
//! - Every field that names another record is a `uuid::Uuid`, so a malformed id is
//!   rejected on read, even where FOLIO's schema just says `string`.
//! - `format: date-time` fields are `folio::Timestamp`s; free-form dates stay `String`.
//! - Enumerated strings are Rust enums with FOLIO's exact spellings.
//! - Virtual fields (joined copies of linked records) are accepted and dropped, see
//!   [`Virtual`].

mod authority;
mod common;
mod holdings_record;
mod instance;
mod item;
mod location;
pub(crate) mod nullable;
mod reference;

pub use authority::{Authority, AuthorityIdentifier, AuthorityNote, HeadingKind};
pub use common::{CallNumberComponents, ElectronicAccess, Tags, Virtual};
pub use holdings_record::{
    HoldingsNote, HoldingsRecord, HoldingsStatement, ReceivingHistory, ReceivingHistoryEntry,
};
pub use instance::{
    AlternativeTitle, Classification, Contributor, Identifier, Instance, InstanceDates,
    InstanceNote, Publication, Series, SourceRecordFormat, Subject,
};
pub use item::{
    CirculationNote, CirculationNoteSource, CirculationNoteType, EffectiveCallNumberComponents,
    Item, ItemNote, ItemStatus, ItemStatusName, LastCheckIn, PersonalName,
};
pub use location::{
    Campus, CheckInActionForUseAtLocation, ClosedLibraryDateManagement, Institution, Library,
    Location, ServicePoint, StaffSlip, TimeInterval, TimePeriod,
};
pub use reference::{
    AlternativeTitleType, AuthorityNoteType, CallNumberType, ClassificationType,
    ContributorNameType, ContributorType, DateDisplayFormat, DateTypeOrigin,
    ElectronicAccessRelationship, HoldingsNoteType, HoldingsSource, HoldingsType, IdentifierType,
    IllPolicy, InstanceDateType, InstanceFormat, InstanceNoteType, InstanceRelationshipType,
    InstanceStatus, InstanceType, ItemDamagedStatus, ItemNoteType, LoanType, MaterialType,
    ModeOfIssuance, NatureOfContentTerm, Origin, StatisticalCode, StatisticalCodeType,
    SubjectSource, SubjectType,
};

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};
    use serde::Serialize;
    use serde::de::DeserializeOwned;

    use crate::model::{HoldingsRecord, Instance, Item};
    use folio::decode;

    /// Decodes `fixture`, checks that serialising and decoding again gives the same
    /// value, and prints how the serialised JSON differs from the fixture (keys added
    /// or dropped, values rewritten).
    fn check<T>(fixture: &str, expect: Expect)
    where
        T: DeserializeOwned + Serialize + PartialEq + std::fmt::Debug,
    {
        let value: T = decode(fixture.as_bytes()).unwrap();
        let json = serde_json::to_vec(&value).unwrap();
        let again: T = decode(&json).unwrap();
        assert_eq!(again, value);

        let input: serde_json::Value = serde_json::from_str(fixture).unwrap();
        let output: serde_json::Value = serde_json::from_slice(&json).unwrap();
        let mut diff = String::new();
        compare("", &input, &output, &mut diff);
        expect.assert_eq(&diff);
    }

    fn compare(
        path: &str,
        input: &serde_json::Value,
        output: &serde_json::Value,
        out: &mut String,
    ) {
        use serde_json::Value;
        match (input, output) {
            (Value::Object(a), Value::Object(b)) => {
                for (key, av) in a {
                    match b.get(key) {
                        Some(bv) => compare(&format!("{path}.{key}"), av, bv, out),
                        None => out.push_str(&format!("dropped {path}.{key}\n")),
                    }
                }
                for (key, bv) in b {
                    if !a.contains_key(key) {
                        out.push_str(&format!("added {path}.{key} = {bv}\n"));
                    }
                }
            }
            (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
                for (idx, (av, bv)) in a.iter().zip(b).enumerate() {
                    compare(&format!("{path}[{idx}]"), av, bv, out);
                }
            }
            (a, b) if a == b => {}
            (a, b) => out.push_str(&format!("changed {path}: {a} -> {b}\n")),
        }
    }

    #[test]
    fn instance_round_trip() {
        check::<Instance>(include_str!("../../test_data/instance.json"), expect![[r#""#]]);
    }

    #[test]
    fn holdings_record_round_trip() {
        check::<HoldingsRecord>(
            include_str!("../../test_data/holdings_record.json"),
            expect![[r#""#]],
        );
    }

    #[test]
    fn item_round_trip() {
        check::<Item>(include_str!("../../test_data/item.json"), expect![[r#""#]]);
    }

    #[test]
    fn minimal_records_gain_folio_defaults() {
        check::<Instance>(
            r#"{"source": "FOLIO", "title": "Minimal",
                "instanceTypeId": "30fffe0e-e985-4144-b2e2-1e8179bdb41f"}"#,
            expect![[r#"
                added .administrativeNotes = []
                added .alternativeTitles = []
                added .classifications = []
                added .contributors = []
                added .deleted = false
                added .discoverySuppress = false
                added .editions = []
                added .electronicAccess = []
                added .identifiers = []
                added .instanceFormatIds = []
                added .languages = []
                added .natureOfContentTermIds = []
                added .notes = []
                added .physicalDescriptions = []
                added .previouslyHeld = false
                added .publication = []
                added .publicationFrequency = []
                added .publicationRange = []
                added .series = []
                added .statisticalCodeIds = []
                added .subjects = []
            "#]],
        );
        check::<Item>(
            r#"{"holdingsRecordId": "fb223b29-66ec-4127-b0db-b4e1756399d6",
                "status": {"name": "In process"},
                "materialTypeId": "1a54b431-2e4f-452d-9cae-9cee66c9a892",
                "permanentLoanTypeId": "2b94c631-fca9-4892-a730-03ee529ffe27"}"#,
            expect![[r#"
                added .additionalCallNumbers = []
                added .administrativeNotes = []
                added .circulationNotes = []
                added .electronicAccess = []
                added .formerIds = []
                added .notes = []
                added .statisticalCodeIds = []
                added .yearCaption = []
            "#]],
        );
    }

    #[test]
    fn nulls_sets_and_virtual_fields() {
        // Explicit nulls read as absent, duplicates in `uniqueItems` arrays go, and
        // virtual (joined) fields are accepted and dropped.
        check::<Item>(
            r#"{"holdingsRecordId": "fb223b29-66ec-4127-b0db-b4e1756399d6",
                "status": {"name": "Available", "date": "2024-06-03T14:22:10.118+0000"},
                "materialTypeId": "1a54b431-2e4f-452d-9cae-9cee66c9a892",
                "materialType": {"id": "1a54b431-2e4f-452d-9cae-9cee66c9a892", "name": "book"},
                "permanentLoanTypeId": "2b94c631-fca9-4892-a730-03ee529ffe27",
                "discoverySuppress": null, "barcode": null, "notes": null,
                "formerIds": ["a", "b", "a"], "yearCaption": null}"#,
            expect![[r#"
                dropped .barcode
                dropped .discoverySuppress
                changed .formerIds: ["a","b","a"] -> ["a","b"]
                dropped .materialType
                changed .notes: null -> []
                changed .status.date: "2024-06-03T14:22:10.118+0000" -> "2024-06-03T14:22:10.118+00:00"
                changed .yearCaption: null -> []
                added .additionalCallNumbers = []
                added .administrativeNotes = []
                added .circulationNotes = []
                added .electronicAccess = []
                added .statisticalCodeIds = []
            "#]],
        );
    }
}
