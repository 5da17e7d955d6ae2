//! What a new tenant starts with: reference records of every [`RefKind`] and the
//! MARC language list, compiled into the binary from `reference_data/`.
//!
//! The vocabularies use FOLIO's well-known UUIDs and names (RDA content types,
//! identifier types, call-number types, ...), so records exported from FOLIO load
//! unchanged. The location hierarchy follows FOLIO's sample tenant (institution
//! `KU`, campus `CC`, library `DI`) with its location ids, plus two locations of
//! Quire's own. Does not own loading them into a store.

use serde::Deserialize;

use crate::reference::{RefKind, RefRecord};

/// The seed records of `kind`: a JSON array of records in FOLIO's shape.
pub fn seed_records(kind: RefKind) -> &'static str {
    kind.seed_json()
}

/// The seed records of `kind`, decoded. Every record has an id.
pub fn seed(kind: RefKind) -> Vec<RefRecord> {
    // Cannot fail: the files are compiled in and `tests::seeds_are_consistent`
    // decodes every one of them.
    kind.decode_array(seed_records(kind)).expect("seed files are checked by tests")
}

/// ISO 639-2/B language codes (the MARC codes in `instance.languages`) with English
/// names: a JSON array of `{"code": "eng", "name": "English"}`, sorted by code.
/// The `qaa-qtz` local-use range is left out.
pub fn languages() -> &'static str {
    include_str!("../reference_data/languages.json")
}

/// One entry of [`languages`].
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Language {
    pub code: String,
    pub name: String,
}

/// [`languages`], decoded.
pub fn language_list() -> Vec<Language> {
    serde_json::from_str(languages()).expect("languages.json is checked by tests")
}

#[cfg(test)]
mod tests {
    use std::collections::{HashMap, HashSet};

    use expect_test::expect;
    use uuid::Uuid;

    use super::{language_list, seed, seed_records};
    use crate::reference::RefKind;

    #[test]
    fn seeds_are_consistent() {
        let mut ids: HashMap<RefKind, HashSet<Uuid>> = HashMap::new();
        let mut summary = String::new();
        // `RefKind::ALL` lists referenced kinds first, so every reference can be
        // checked against the kinds already seen.
        for &kind in RefKind::all() {
            let records = kind
                .decode_array(seed_records(kind))
                .unwrap_or_else(|e| panic!("{}: {e}", kind.record_type()));
            assert_eq!(records, seed(kind));
            let mut seen_ids = HashSet::new();
            let mut seen_unique = HashSet::new();
            for record in &records {
                let id = record.id().unwrap_or_else(|| panic!("{kind:?} without id"));
                assert!(seen_ids.insert(id), "{kind:?}: duplicate id {id}");
                for value in record.unique_values() {
                    // A key unique within a link names a link the record has.
                    assert_eq!(value.scope.is_some(), value.key.within.is_some(), "{kind:?}");
                    // FOLIO compares unique values case-insensitively.
                    let key = (value.key, value.value.to_lowercase(), value.scope);
                    let field = value.key.field;
                    assert!(seen_unique.insert(key), "{kind:?}: duplicate {field} {}", value.value);
                }
                for (field, target, target_id) in record.references() {
                    assert!(
                        ids.get(&target).is_some_and(|known| known.contains(&target_id)),
                        "{kind:?} {}: {field} {target_id} is not a {target:?} seed",
                        record.name()
                    );
                }
                // Every seed record also decodes through the request-body path.
                let body = serde_json::to_vec(record).unwrap();
                assert_eq!(&kind.decode(&body).unwrap(), record);
            }
            // A unique code on a kind whose seeds have none: its `code:` is missing from
            // the `kinds!` table, and the code would go unchecked.
            if kind.unique_keys().iter().any(|key| key.field == "code") {
                assert!(records.iter().any(|r| r.code().is_some()), "{kind:?} has no codes");
            }
            summary.push_str(&format!("{}: {}\n", kind.record_type(), records.len()));
            ids.insert(kind, seen_ids);
        }
        expect![[r#"
            instance_type: 25
            contributor_name_type: 3
            identifier_type: 30
            holdings_type: 5
            holdings_source: 2
            call_number_type: 12
            instance_status: 6
            mode_of_issuance: 5
            alternative_title_type: 13
            classification_type: 10
            contributor_type: 268
            electronic_access_relationship: 5
            instance_date_type: 15
            instance_format: 57
            instance_note_type: 53
            instance_relationship_type: 3
            nature_of_content_term: 21
            subject_source: 7
            subject_type: 16
            holdings_note_type: 7
            ill_policy: 8
            item_note_type: 7
            item_damaged_status: 2
            statistical_code_type: 4
            statistical_code: 28
            authority_note_type: 1
            material_type: 8
            loan_type: 4
            institution: 1
            campus: 2
            library: 2
            service_point: 3
            location: 8
        "#]]
        .assert_eq(&summary);
    }

    #[test]
    fn location_hierarchy_is_consistent() {
        use crate::reference::RefRecord;
        let campus_of_library: HashMap<Uuid, Uuid> = seed(RefKind::Library)
            .into_iter()
            .filter_map(|r| match r {
                RefRecord::Library(l) => Some((l.id?, l.campus_id)),
                _ => None,
            })
            .collect();
        let institution_of_campus: HashMap<Uuid, Uuid> = seed(RefKind::Campus)
            .into_iter()
            .filter_map(|r| match r {
                RefRecord::Campus(c) => Some((c.id?, c.institution_id)),
                _ => None,
            })
            .collect();
        for record in seed(RefKind::Location) {
            let RefRecord::Location(location) = record else { panic!() };
            assert_eq!(campus_of_library[&location.library_id], location.campus_id);
            assert_eq!(institution_of_campus[&location.campus_id], location.institution_id);
            assert!(location.service_point_ids.contains(&location.primary_service_point));
        }
    }

    #[test]
    fn well_known_ids() {
        let find = |kind: RefKind, name: &str| {
            seed(kind).into_iter().find(|r| r.name() == name).and_then(|r| r.id()).unwrap()
        };
        let text = find(RefKind::InstanceType, "text");
        assert_eq!(text.to_string(), "6312d172-f0cf-40f6-b27d-9fa8feaf332f");
        let isbn = find(RefKind::IdentifierType, "ISBN");
        assert_eq!(isbn.to_string(), "8261054f-be78-422d-bd51-4ed9f33c3422");
        let book = find(RefKind::MaterialType, "book");
        assert_eq!(book.to_string(), "1a54b431-2e4f-452d-9cae-9cee66c9a892");
        let folio = find(RefKind::HoldingsSource, "FOLIO");
        assert_eq!(folio.to_string(), "f32d531e-df79-46b3-8932-cdd35f7a2264");
        let can_circulate = find(RefKind::LoanType, "Can circulate");
        assert_eq!(can_circulate.to_string(), "2b94c631-fca9-4892-a730-03ee529ffe27");
    }

    #[test]
    fn languages_are_iso_639_2_b() {
        let languages = language_list();
        let mut codes = HashSet::new();
        for language in &languages {
            let code = &language.code;
            assert!(
                code.len() == 3 && code.bytes().all(|b| b.is_ascii_lowercase()),
                "bad code {code:?}"
            );
            assert!(codes.insert(code.clone()), "duplicate code {code}");
            assert!(!language.name.trim().is_empty(), "{code} has no name");
        }
        assert!(languages.len() > 450, "only {} languages", languages.len());
        let name = |code: &str| &languages.iter().find(|l| l.code == code).unwrap().name;
        // The bibliographic (B) codes, not the terminology (T) ones.
        assert_eq!(name("ger"), "German");
        assert_eq!(name("fre"), "French");
        assert_eq!(name("chi"), "Chinese");
        assert!(!codes.contains("deu"));
    }
}
