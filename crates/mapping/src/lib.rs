//! MARC to inventory records: FOLIO's mapping rules (the format of
//! `/mapping-rules/{marc-bib|marc-holdings|marc-authority}`), Quire's default rule sets,
//! each tenant's rules as stored, and the engine that applies them ([`map_record`], with
//! FOLIO's semantics).
//!
//! What it owns: the rule format ([`rules`]), the defaults, the `mapping_rules` table
//! and its verbs (a tenant without stored rules maps with the defaults; a PUT stores a
//! whole rule set, checked against the format first; a restore goes back to the
//! defaults). What it does not own: HTTP, and reading MARC ([`marc`] crate).
//!
//! ```
//! let rules = mapping::defaults(mapping::RecordType::MarcBib);
//! assert!(rules.contains_key("245"));
//! let json = serde_json::to_vec(&rules).unwrap();
//! assert_eq!(mapping::rules::parse(&json).unwrap(), rules);
//! ```

pub mod rules;

mod defaults;
mod engine;
#[cfg(test)]
mod engine_tests;
mod functions;
mod reference;
mod shape;

use store::{Migration, Reader, RecordTable, Writer};

pub use engine::{MARC_HOLDINGS_SOURCE_ID, Target, map_record};
pub use functions::STUB_ID;
pub use reference::{Entry, Lookup, ReferenceData};
pub use rules::{ParseError, Rules};

/// The component's schema: one row per record type whose rules a tenant changed.
pub const MIGRATIONS: store::Component = store::Component {
    name: "mapping",
    migrations: &[Migration {
        version: 1,
        description: "mapping rules",
        sql: "CREATE TABLE mapping_rules (
            id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL
        );",
    }],
};

const TABLE: RecordTable = RecordTable {
    table: "mapping_rules",
    record_type: "mapping_rules",
    cached: false,
    columns: &[],
};

/// The kinds of MARC record FOLIO keeps mapping rules for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RecordType {
    MarcBib,
    MarcHoldings,
    MarcAuthority,
}

impl RecordType {
    pub const ALL: [RecordType; 3] =
        [RecordType::MarcBib, RecordType::MarcHoldings, RecordType::MarcAuthority];

    /// The path segment: `marc-bib`, `marc-holdings`, `marc-authority`.
    pub fn path(self) -> &'static str {
        match self {
            RecordType::MarcBib => "marc-bib",
            RecordType::MarcHoldings => "marc-holdings",
            RecordType::MarcAuthority => "marc-authority",
        }
    }

    pub fn from_path(path: &str) -> Option<RecordType> {
        RecordType::ALL.into_iter().find(|t| t.path() == path)
    }

    /// Whether a tenant may change the type's rules: FOLIO keeps the authority rules
    /// fixed.
    pub fn editable(self) -> bool {
        self != RecordType::MarcAuthority
    }
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Parse(#[from] ParseError),
    /// FOLIO's words for a change to the authority rules.
    #[error("Can't edit MARC Authority default mapping rules")]
    NotEditable,
    #[error(transparent)]
    Store(#[from] store::Error),
    #[error("corrupt mapping rules for {0}: {1}")]
    Corrupt(&'static str, String),
}

/// Quire's default rules for a record type.
pub fn defaults(record_type: RecordType) -> Rules {
    match record_type {
        RecordType::MarcBib => defaults::bib(),
        RecordType::MarcHoldings => defaults::holdings(),
        RecordType::MarcAuthority => defaults::authority(),
    }
}

/// The tenant's rules for a record type, as JSON: the stored set, else the defaults.
pub fn rules_json(reader: &Reader<'_>, record_type: RecordType) -> Result<String, Error> {
    match reader.get(&TABLE, record_type.path())? {
        Some(stored) => Ok(stored.body),
        None => to_json(&defaults(record_type), record_type),
    }
}

/// The tenant's rules for a record type, typed (what an import maps with).
pub fn rules(reader: &Reader<'_>, record_type: RecordType) -> Result<Rules, Error> {
    match reader.get(&TABLE, record_type.path())? {
        Some(stored) => rules::parse(stored.body.as_bytes())
            .map_err(|e| Error::Corrupt(record_type.path(), e.to_string())),
        None => Ok(defaults(record_type)),
    }
}

/// Replaces the tenant's rules with `body`, a whole rule set; answers them as stored.
pub fn replace_rules(
    writer: &mut Writer<'_>,
    record_type: RecordType,
    body: &[u8],
) -> Result<String, Error> {
    if !record_type.editable() {
        return Err(Error::NotEditable);
    }
    let rules = rules::parse(body)?;
    store_rules(writer, record_type, &rules)
}

/// Puts the record type's defaults back; answers them.
pub fn restore_defaults(writer: &mut Writer<'_>, record_type: RecordType) -> Result<String, Error> {
    if !record_type.editable() {
        return Err(Error::NotEditable);
    }
    store_rules(writer, record_type, &defaults(record_type))
}

fn store_rules(
    writer: &mut Writer<'_>,
    record_type: RecordType,
    rules: &Rules,
) -> Result<String, Error> {
    let json = to_json(rules, record_type)?;
    let version = writer.version_and_columns(&TABLE, record_type.path())?.map_or(1, |(v, _)| v + 1);
    writer.upsert(&TABLE, record_type.path(), version, &json, &[])?;
    Ok(json)
}

fn to_json(rules: &Rules, record_type: RecordType) -> Result<String, Error> {
    serde_json::to_string(rules).map_err(|e| Error::Corrupt(record_type.path(), e.to_string()))
}

#[cfg(test)]
mod tests {
    use expect_test::expect;
    use store::Store;

    use super::*;

    #[test]
    fn a_tenant_maps_with_the_defaults_until_it_stores_its_own() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path(), store::testing::options(), &[MIGRATIONS]).unwrap();
        let (tenant, _) = store.create_tenant("diku").unwrap();
        let bib = RecordType::MarcBib;
        let defaults = tenant.read(|r| rules(r, bib)).unwrap();
        assert_eq!(defaults, super::defaults(bib));

        let mut changed = defaults.clone();
        changed.remove("590");
        let body = serde_json::to_vec(&changed).unwrap();
        tenant.write(|w| replace_rules(w, bib, &body)).unwrap();
        assert_eq!(tenant.read(|r| rules(r, bib)).unwrap(), changed);
        assert_eq!(
            tenant.read(|r| rules(r, RecordType::MarcHoldings)).unwrap(),
            super::defaults(RecordType::MarcHoldings),
            "the other types keep theirs"
        );
        tenant.write(|w| restore_defaults(w, bib)).unwrap();
        assert_eq!(tenant.read(|r| rules(r, bib)).unwrap(), defaults);

        let refused = tenant.write(|w| replace_rules(w, RecordType::MarcAuthority, b"{}"));
        assert_eq!(
            refused.unwrap_err().to_string(),
            "Can't edit MARC Authority default mapping rules"
        );
    }

    #[test]
    fn a_rule_set_is_checked_against_the_format() {
        let check = |json: &str| match rules::parse(json.as_bytes()) {
            Ok(rules) => format!("ok: {} tags", rules.len()),
            Err(e) => e.to_string(),
        };
        expect!["Can not update rules in non-JSON format"].assert_eq(&check("[1, 2]"));
        expect!["Can not update rules in non-JSON format"].assert_eq(&check("{\"245\": "));
        expect!["ok: 1 tags"]
            .assert_eq(&check(r#"{"245": [{"target": "title", "subfield": ["a"]}]}"#));
        expect!["Invalid mapping rule at 245[0]: missing field `target`"]
            .assert_eq(&check(r#"{"245": [{"subfield": ["a"]}]}"#));
        expect!["Invalid mapping rule at 650[0]: entity[1].rules[0].conditions[0].name: unknown field `name`, expected one of `type`, `parameter`, `value`, `LDR`"]
            .assert_eq(&check(
                r#"{"650": [{"entity": [{"target": "subjects.value", "subfield": ["a"]},
                    {"target": "subjects.typeId", "rules": [{"conditions": [{"name": "x"}]}]}]}]}"#,
            ));
        expect!["Invalid mapping rule at 100[0]: tagret: unknown field `tagret`, expected one of `target`, `description`, `subfield`, `requiredSubfield`, `exclusiveSubfield`, `applyRulesOnConcatenatedData`, `subFieldDelimiter`, `subFieldSplit`, `indicators`, `ignoreSubsequentFields`, `ignoreSubsequentSubfields`, `createSingleObject`, `alternativeMapping`, `fieldReplacementBy3Digits`, `fieldReplacementRule`, `rules`"]
            .assert_eq(&check(r#"{"100": [{"tagret": "contributors.name"}]}"#));
    }

    #[test]
    fn the_defaults_cover_what_folio_maps() {
        let tags = |t: RecordType| super::defaults(t).keys().cloned().collect::<Vec<_>>().join(" ");
        expect!["001 008 010 019 020 022 024 028 035 041 050 060 074 080 082 086 090 100 110 111 130 240 245 246 247 250 255 260 264 300 310 321 336 338 362 500 501 502 504 505 506 507 508 510 511 513 514 515 516 518 520 521 522 524 525 526 530 532 533 534 535 536 538 540 541 542 544 545 546 547 550 552 555 556 561 562 563 565 567 580 581 583 584 585 586 588 590 600 610 611 630 647 648 650 651 653 654 655 656 657 658 662 688 700 710 711 720 780 785 800 810 811 830 856 880 LDR"]
            .assert_eq(&tags(RecordType::MarcBib));
        expect!["001 035 561 562 563 583 852 856 866 867 868"]
            .assert_eq(&tags(RecordType::MarcHoldings));
        let bib = super::defaults(RecordType::MarcBib);
        // A subject heading of each thesaurus, and one named by `$2`.
        assert_eq!(bib["650"].len(), 9);
        let json = serde_json::to_string(&bib["245"]).unwrap();
        expect![[r#"[{"target":"title","subfield":["a","n","p","b","c","f","g","h","k","s"],"applyRulesOnConcatenatedData":true},{"target":"indexTitle","subfield":["a","n","p","b"],"applyRulesOnConcatenatedData":true,"rules":[{"conditions":[{"type":"remove_prefix_by_indicator, capitalize"}]}]}]"#]]
            .assert_eq(&json);
    }
}
