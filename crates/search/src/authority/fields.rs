//! The authority field registry: every CQL index of `/search/authorities`, after
//! FOLIO's `model/authority.json`.
//!
//! Owns the field list (the heading fields of each kind with their `sft`/`saft`
//! tracings, the common fields copied into every heading document, and the computed
//! `headingType`, `authRefType`, `headingRef`, `headingTermRef`, `isTitleHeadingRef`,
//! `lccn`, `canceledLccn`), the one alias (`keyword` = `headingTermRef`) and Quire's own
//! fields. Does not own what goes into them (`document`).
//!
//! Invariant: `id` is the first field, so `Registry::id` is its handle; it holds the
//! authority's id on each of its heading documents, so one term deletes them all.

use std::sync::OnceLock;

use tantivy::schema::{FAST, Field, STORED, Schema};

use crate::registry::{
    Alias, FACET, FieldDef, NGRAM, Norm, Registry, TermProc, add_fields, add_presence_fields,
    boolean, date, id, kw, standard, with_term,
};

/// A heading field: `standard` full text, with trigrams for infix wildcards.
const fn heading(name: &'static str) -> FieldDef {
    standard(name, NGRAM)
}

/// Every searchable authority field. Order is the schema's order; names are FOLIO's.
pub(crate) const FIELDS: &[FieldDef] = &[
    id("id", 0),
    kw("tenantId", Norm::Exact, FACET),
    heading("personalName"),
    heading("sftPersonalName"),
    heading("saftPersonalName"),
    heading("personalNameTitle"),
    heading("sftPersonalNameTitle"),
    heading("saftPersonalNameTitle"),
    heading("corporateName"),
    heading("sftCorporateName"),
    heading("saftCorporateName"),
    heading("corporateNameTitle"),
    heading("sftCorporateNameTitle"),
    heading("saftCorporateNameTitle"),
    heading("meetingName"),
    heading("sftMeetingName"),
    heading("saftMeetingName"),
    heading("meetingNameTitle"),
    heading("sftMeetingNameTitle"),
    heading("saftMeetingNameTitle"),
    heading("geographicName"),
    heading("sftGeographicName"),
    heading("saftGeographicName"),
    heading("uniformTitle"),
    heading("sftUniformTitle"),
    heading("saftUniformTitle"),
    heading("namedEvent"),
    heading("sftNamedEvent"),
    heading("saftNamedEvent"),
    heading("generalSubdivision"),
    heading("sftGeneralSubdivision"),
    heading("saftGeneralSubdivision"),
    heading("topicalTerm"),
    heading("sftTopicalTerm"),
    heading("saftTopicalTerm"),
    heading("genreTerm"),
    heading("sftGenreTerm"),
    heading("saftGenreTerm"),
    heading("chronTerm"),
    heading("sftChronTerm"),
    heading("saftChronTerm"),
    heading("mediumPerfTerm"),
    heading("sftMediumPerfTerm"),
    heading("saftMediumPerfTerm"),
    heading("geographicSubdivision"),
    heading("sftGeographicSubdivision"),
    heading("saftGeographicSubdivision"),
    heading("chronSubdivision"),
    heading("sftChronSubdivision"),
    heading("saftChronSubdivision"),
    heading("formSubdivision"),
    heading("sftFormSubdivision"),
    heading("saftFormSubdivision"),
    kw("subjectHeadings", Norm::Lower, FACET),
    kw("identifiers.value", Norm::Lower, 0),
    id("identifiers.identifierTypeId", 0),
    date("metadata.createdDate"),
    kw("metadata.createdByUserId", Norm::Exact, crate::registry::UUID),
    date("metadata.updatedDate"),
    kw("metadata.updatedByUserId", Norm::Exact, crate::registry::UUID),
    id("notes.noteTypeId", 0),
    // FOLIO indexes `sourceFileId` as "NULL" when a record has none, so it can be
    // filtered and faceted on.
    kw("sourceFileId", Norm::Exact, FACET | crate::registry::UUID),
    kw("naturalId", Norm::Lower, 0),
    boolean("shared", FACET),
    // Computed search fields (FOLIO's `searchFields`). `authRefType` is a fast column
    // for sorting, not a facet FOLIO offers.
    kw("headingType", Norm::Exact, FACET),
    boolean("isTitleHeadingRef", 0),
    kw("authRefType", Norm::Lower, FACET),
    kw("headingRef", Norm::Lower, 0),
    standard("headingTermRef", NGRAM),
    with_term(kw("lccn", Norm::Lower, 0), TermProc::NoSpace),
    with_term(kw("canceledLccn", Norm::Lower, 0), TermProc::NoSpace),
];

/// FOLIO's `searchAliases`, inverted.
pub(crate) const ALIASES: &[Alias] = &[("keyword", &["headingTermRef"])];

/// The facets `/search/authorities/facets` offers, as mod-search's model marks them.
pub(crate) const FACETS: &[&str] =
    &["headingType", "sourceFileId", "subjectHeadings", "tenantId", "shared"];

/// The authority schema: the registry's fields plus Quire's own.
pub(crate) struct Fields {
    pub(crate) schema: Schema,
    registry: Registry,
    /// FOLIO's `sort_headingRef`: the heading lowercased, a fast column.
    pub(crate) sort_heading_ref: Field,
    /// Stored: the authority id, on Authorized documents only (`numberOfTitles` is
    /// counted for those).
    pub(crate) authorized_id: Field,
    /// Stored: the heading document in FOLIO's shape (`expandAll=true`).
    pub(crate) full: Field,
    /// Stored: the basic fields (`expandAll=false`).
    pub(crate) basic: Field,
}

impl std::ops::Deref for Fields {
    type Target = Registry;

    fn deref(&self) -> &Registry {
        &self.registry
    }
}

pub(crate) const SORT_HEADING_REF: &str = "_sort_headingRef";

impl Fields {
    pub(crate) fn get() -> &'static Fields {
        static FIELDS_: OnceLock<Fields> = OnceLock::new();
        FIELDS_.get_or_init(Fields::build)
    }

    fn build() -> Fields {
        let mut builder = Schema::builder();
        let handles = add_fields(&mut builder, FIELDS);
        let present = add_presence_fields(&mut builder, FIELDS, &[]);
        let registry =
            Registry::new(FIELDS, ALIASES, &[], handles, present, "authority", str::to_string);
        let sort_heading_ref = builder.add_text_field(SORT_HEADING_REF, FAST);
        let authorized_id = builder.add_text_field("_authorized_id", STORED);
        let full = builder.add_text_field("_full", STORED);
        let basic = builder.add_text_field("_basic", STORED);
        Fields { schema: builder.build(), registry, sort_heading_ref, authorized_id, full, basic }
    }
}

#[cfg(test)]
mod tests {
    use inventory::model::HeadingKind;

    use super::{FACETS, Fields};

    #[test]
    fn registry_has_every_heading_field() {
        let fields = Fields::get();
        fields.check_aliases();
        for kind in HeadingKind::ALL {
            let (authorized, sft, saft) = kind.fields();
            for name in [authorized, sft, saft] {
                assert!(fields.index_of(name).is_some(), "{name}");
            }
        }
        for facet in FACETS {
            let idx = fields.index_of(facet).unwrap();
            assert!(fields.def(idx).has(crate::registry::FACET), "{facet}");
        }
        assert_eq!(fields.resolve("keyword"), fields.resolve("headingTermRef"));
    }
}
