//! The tenant's reference records a mapping looks up by name or code: identifier types
//! by name, contributor types by relator code, instance types by RDA code, locations
//! by code, ... The import fills a [`ReferenceData`] once per job from inventory; this
//! crate does not read storage for it.

use std::collections::HashMap;

/// Which list a lookup reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Lookup {
    IdentifierTypes,
    ClassificationTypes,
    ContributorTypes,
    ContributorNameTypes,
    InstanceTypes,
    InstanceFormats,
    IssuanceModes,
    InstanceNoteTypes,
    AlternativeTitleTypes,
    SubjectTypes,
    SubjectSources,
    ElectronicAccessRelationships,
    InstanceDateTypes,
    HoldingsTypes,
    CallNumberTypes,
    Locations,
    HoldingsNoteTypes,
    AuthorityNoteTypes,
    /// Authority identifier types, by code (`lccn`, `control-number`).
    AuthorityIdentifierTypes,
}

impl Lookup {
    pub const ALL: [Lookup; 19] = [
        Lookup::IdentifierTypes,
        Lookup::ClassificationTypes,
        Lookup::ContributorTypes,
        Lookup::ContributorNameTypes,
        Lookup::InstanceTypes,
        Lookup::InstanceFormats,
        Lookup::IssuanceModes,
        Lookup::InstanceNoteTypes,
        Lookup::AlternativeTitleTypes,
        Lookup::SubjectTypes,
        Lookup::SubjectSources,
        Lookup::ElectronicAccessRelationships,
        Lookup::InstanceDateTypes,
        Lookup::HoldingsTypes,
        Lookup::CallNumberTypes,
        Lookup::Locations,
        Lookup::HoldingsNoteTypes,
        Lookup::AuthorityNoteTypes,
        Lookup::AuthorityIdentifierTypes,
    ];

    /// The FOLIO path of the reference records the lookup reads (`/identifier-types`):
    /// how the caller finds them in its storage.
    pub fn path(self) -> &'static str {
        match self {
            Lookup::IdentifierTypes => "/identifier-types",
            Lookup::ClassificationTypes => "/classification-types",
            Lookup::ContributorTypes => "/contributor-types",
            Lookup::ContributorNameTypes => "/contributor-name-types",
            Lookup::InstanceTypes => "/instance-types",
            Lookup::InstanceFormats => "/instance-formats",
            Lookup::IssuanceModes => "/modes-of-issuance",
            Lookup::InstanceNoteTypes => "/instance-note-types",
            Lookup::AlternativeTitleTypes => "/alternative-title-types",
            Lookup::SubjectTypes => "/subject-types",
            Lookup::SubjectSources => "/subject-sources",
            Lookup::ElectronicAccessRelationships => "/electronic-access-relationships",
            Lookup::InstanceDateTypes => "/instance-date-types",
            Lookup::HoldingsTypes => "/holdings-types",
            Lookup::CallNumberTypes => "/call-number-types",
            Lookup::Locations => "/locations",
            Lookup::HoldingsNoteTypes => "/holdings-note-types",
            Lookup::AuthorityNoteTypes => "/authority-note-types",
            Lookup::AuthorityIdentifierTypes => "/authority-identifier-types",
        }
    }
}

/// One reference record as a lookup sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub id: String,
    pub name: String,
    pub code: Option<String>,
}

impl Entry {
    pub fn new(id: impl Into<String>, name: impl Into<String>, code: Option<&str>) -> Entry {
        Entry { id: id.into(), name: name.into(), code: code.map(str::to_string) }
    }
}

/// The reference records of each [`Lookup`], indexed by name and by code (ignoring
/// case; where two share one, the first given wins, as FOLIO's lookups take the first
/// match).
#[derive(Clone, Debug, Default)]
pub struct ReferenceData {
    lists: HashMap<Lookup, Vec<Entry>>,
    names: HashMap<(Lookup, String), String>,
    codes: HashMap<(Lookup, String), String>,
}

impl ReferenceData {
    pub fn insert(&mut self, lookup: Lookup, entries: Vec<Entry>) {
        for entry in &entries {
            let name = entry.name.trim().to_lowercase();
            self.names.entry((lookup, name)).or_insert_with(|| entry.id.clone());
            if let Some(code) = &entry.code {
                let code = code.trim().to_lowercase();
                self.codes.entry((lookup, code)).or_insert_with(|| entry.id.clone());
            }
        }
        self.lists.insert(lookup, entries);
    }

    /// Adds reference records as FOLIO stores them (JSON with `id`, `name` and, where
    /// the kind has one, `code`); records without an id or a name are skipped.
    pub fn insert_records(&mut self, lookup: Lookup, records: &[serde_json::Value]) {
        let entries = records
            .iter()
            .filter_map(|r| {
                let text = |key: &str| r.get(key).and_then(serde_json::Value::as_str);
                Some(Entry::new(text("id")?, text("name")?, text("code")))
            })
            .collect();
        self.insert(lookup, entries);
    }

    pub(crate) fn list(&self, lookup: Lookup) -> &[Entry] {
        self.lists.get(&lookup).map_or(&[], Vec::as_slice)
    }

    /// Whether the tenant has any records of this list (FOLIO answers differently for
    /// an empty list and a missing name).
    pub(crate) fn has(&self, lookup: Lookup) -> bool {
        !self.list(lookup).is_empty()
    }

    /// The id of the entry named `name`, ignoring case and surrounding spaces.
    pub(crate) fn by_name(&self, lookup: Lookup, name: &str) -> Option<&str> {
        self.names.get(&(lookup, name.trim().to_lowercase())).map(String::as_str)
    }

    /// The id of the entry whose code is `code`, ignoring case.
    pub(crate) fn by_code(&self, lookup: Lookup, code: &str) -> Option<&str> {
        self.codes.get(&(lookup, code.trim().to_lowercase())).map(String::as_str)
    }
}
