//! The instance field registry: every CQL index of `/search/instances`, its kind, its
//! aliases, and the tantivy fields that hold it.
//!
//! Owns the mapping from FOLIO's `model/instance.json` (field paths, index types,
//! `searchAliases`, facet and sort flags, the computed `searchFields`) to Quire's
//! schema. Does not own how values are extracted from records (`document`) or how a
//! relation becomes a query (`query`).
//!
//! The kinds, flags and the tantivy fields each becomes are the crate's `registry`.
//!
//! Invariant: `id` is the first field, so `Fields::id` is its handle.

use std::sync::OnceLock;

use tantivy::schema::{FAST, Field, STORED, Schema};

use crate::registry::{
    Alias, Echo, Registry, add_fields, add_presence_fields, boolean, date, def, id, kw, standard,
    stemmed, with_term,
};
pub(crate) use crate::registry::{FACET, FieldDef, Kind, NGRAM, NO_REV, Norm, TermProc, UUID};

use Norm::{Exact, Icu, Lower};

/// Every searchable instance field. Order is the schema's order; names are FOLIO's.
pub(crate) const FIELDS: &[FieldDef] = &[
    id("id", 0),
    kw("tenantId", Exact, FACET),
    kw("hrid", Lower, NGRAM | NO_REV),
    kw("source", Exact, FACET),
    stemmed("title", NGRAM),
    def("alternativeTitles.alternativeTitleTypeId", Kind::Keyword(Exact), UUID),
    stemmed("alternativeTitles.alternativeTitle", NGRAM | NO_REV),
    id("alternativeTitles.authorityId", 0),
    stemmed("indexTitle", NGRAM | NO_REV),
    stemmed("series.value", NGRAM | NO_REV),
    id("series.authorityId", 0),
    def("identifiers.value", Kind::Whitespace, NGRAM | NO_REV),
    id("identifiers.identifierTypeId", 0),
    standard("contributors.name", NGRAM),
    boolean("contributors.primary", 0),
    id("contributors.contributorNameTypeId", 0),
    id("contributors.contributorTypeId", 0),
    id("contributors.authorityId", 0),
    stemmed("subjects.value", NGRAM),
    id("subjects.authorityId", 0),
    id("subjects.sourceId", 0),
    id("subjects.typeId", 0),
    def("dates.dateTypeId", Kind::Keyword(Exact), UUID),
    kw("dates.date1", Exact, NGRAM | NO_REV),
    kw("dates.date2", Exact, NGRAM | NO_REV),
    id("instanceTypeId", FACET),
    id("statisticalCodeIds", FACET),
    id("statusId", FACET),
    id("instanceFormatIds", FACET),
    kw("languages", Lower, FACET),
    date("metadata.createdDate"),
    id("metadata.createdByUserId", 0),
    date("metadata.updatedDate"),
    id("metadata.updatedByUserId", 0),
    id("modeOfIssuanceId", FACET),
    id("natureOfContentTermIds", FACET),
    stemmed("publication.publisher", 0),
    kw("publication.dateOfPublication", Exact, 0),
    standard("publication.place", 0),
    stemmed("tags.tagList", NO_REV),
    kw("classifications.classificationNumber", Icu, NGRAM | NO_REV),
    id("classifications.classificationTypeId", 0),
    stemmed("administrativeNotes", NO_REV),
    stemmed("notes.note", NO_REV),
    boolean("notes.staffOnly", 0),
    kw("electronicAccess.uri", Icu, NO_REV),
    stemmed("electronicAccess.linkText", NO_REV),
    stemmed("electronicAccess.publicNote", NO_REV),
    id("electronicAccess.relationshipId", 0),
    boolean("staffSuppress", FACET),
    boolean("discoverySuppress", FACET),
    boolean("isBoundWith", FACET),
    boolean("shared", FACET),
    // Items.
    id("items.id", 0),
    kw("items.tenantId", Exact, 0),
    def("items.holdingsRecordId", Kind::Keyword(Exact), UUID),
    kw("items.hrid", Lower, NO_REV),
    kw("items.accessionNumber", Icu, NO_REV),
    kw("items.formerIds", Icu, NO_REV),
    kw("items.itemIdentifier", Exact, NO_REV),
    kw("items.barcode", Icu, NO_REV),
    id("items.effectiveLocationId", FACET),
    def("items.statisticalCodeIds", Kind::Keyword(Icu), FACET | UUID),
    kw("items.status.name", Exact, FACET),
    id("items.materialTypeId", FACET),
    boolean("items.discoverySuppress", FACET),
    id("items.itemLevelCallNumberTypeId", 0),
    kw("items.effectiveCallNumberComponents.callNumber", Exact, NO_REV),
    kw("items.effectiveCallNumberComponents.prefix", Exact, NO_REV),
    kw("items.effectiveCallNumberComponents.suffix", Exact, NO_REV),
    def("items.effectiveCallNumberComponents.typeId", Kind::Keyword(Exact), UUID),
    stemmed("items.tags.tagList", NO_REV),
    kw("items.electronicAccess.uri", Icu, NO_REV),
    stemmed("items.electronicAccess.linkText", NO_REV),
    stemmed("items.electronicAccess.publicNote", NO_REV),
    id("items.electronicAccess.relationshipId", 0),
    stemmed("items.administrativeNotes", NO_REV),
    stemmed("items.notes.note", 0),
    boolean("items.notes.staffOnly", 0),
    stemmed("items.circulationNotes.note", 0),
    boolean("items.circulationNotes.staffOnly", 0),
    date("items.metadata.createdDate"),
    id("items.metadata.createdByUserId", 0),
    date("items.metadata.updatedDate"),
    id("items.metadata.updatedByUserId", 0),
    // Holdings.
    id("holdings.id", 0),
    kw("holdings.tenantId", Exact, FACET),
    def("holdings.sourceId", Kind::Keyword(Exact), FACET | UUID),
    id("holdings.holdingsTypeId", FACET),
    id("holdings.permanentLocationId", FACET),
    def("holdings.statisticalCodeIds", Kind::Keyword(Icu), FACET | UUID),
    boolean("holdings.discoverySuppress", FACET),
    kw("holdings.hrid", Lower, NO_REV),
    kw("holdings.formerIds", Exact, NO_REV),
    kw("holdings.callNumber", Exact, NO_REV),
    kw("holdings.callNumberPrefix", Exact, NO_REV),
    kw("holdings.callNumberSuffix", Exact, NO_REV),
    kw("holdings.copyNumber", Exact, NO_REV),
    stemmed("holdings.tags.tagList", NO_REV),
    kw("holdings.electronicAccess.uri", Icu, NO_REV),
    stemmed("holdings.electronicAccess.linkText", NO_REV),
    stemmed("holdings.electronicAccess.publicNote", NO_REV),
    id("holdings.electronicAccess.relationshipId", 0),
    stemmed("holdings.administrativeNotes", NO_REV),
    stemmed("holdings.notes.note", NO_REV),
    boolean("holdings.notes.staffOnly", 0),
    date("holdings.metadata.createdDate"),
    id("holdings.metadata.createdByUserId", 0),
    date("holdings.metadata.updatedDate"),
    id("holdings.metadata.updatedByUserId", 0),
    // Computed search fields (FOLIO's `searchFields`).
    def("normalizedDate1", Kind::Number, 0),
    stemmed("publicNotes", NO_REV),
    stemmed("itemPublicNotes", NO_REV),
    stemmed("holdingsPublicNotes", NO_REV),
    with_term(standard("oclc", NGRAM | NO_REV), TermProc::Oclc),
    with_term(standard("isbn", NGRAM | NO_REV), TermProc::Isbn),
    kw("issn", Norm::NoSpaceDash, NGRAM | NO_REV),
    kw("instanceTags", Icu, FACET),
    kw("itemTags", Icu, FACET),
    kw("holdingsTags", Icu, FACET),
    id("holdingsTypeId", FACET),
    def("statisticalCodes", Kind::Keyword(Icu), FACET | UUID),
    kw("itemFullCallNumbers", Icu, NO_REV),
    kw("holdingsFullCallNumbers", Icu, NO_REV),
    with_term(kw("itemNormalizedCallNumbers", Lower, NO_REV), TermProc::AlphaNumeric),
    with_term(kw("holdingsNormalizedCallNumbers", Lower, NO_REV), TermProc::AlphaNumeric),
    // Former ids and record ids: UUIDs, whose trigrams would be nearly all distinct.
    kw("holdingsIdentifiers", Icu, NO_REV),
    kw("itemIdentifiers", Icu, NO_REV),
    stemmed("uniformTitle", NO_REV),
    with_term(kw("lccn", Icu, NGRAM | NO_REV), TermProc::NoSpace),
    with_term(kw("canceledLccn", Icu, NGRAM | NO_REV), TermProc::NoSpace),
    with_term(kw("normalizedClassificationNumber", Icu, NGRAM | NO_REV), TermProc::AlphaNumeric),
];

/// FOLIO's `searchAliases`, inverted: each alias and the fields it searches. An alias
/// wins over a field of the same name (`title` searches four fields).
pub(crate) const ALIASES: &[Alias] = &[
    (
        "keyword",
        &[
            "title",
            "alternativeTitles.alternativeTitle",
            "indexTitle",
            "series.value",
            "contributors.name",
        ],
    ),
    ("title", &["title", "alternativeTitles.alternativeTitle", "indexTitle", "series.value"]),
    ("series", &["series.value"]),
    ("contributors", &["contributors.name"]),
    ("subjects", &["subjects.value"]),
    ("publisher", &["publication.publisher"]),
    ("identifiers", &["identifiers.value"]),
    (
        "authorityId",
        &[
            "alternativeTitles.authorityId",
            "series.authorityId",
            "contributors.authorityId",
            "subjects.authorityId",
        ],
    ),
    ("sourceId", &["subjects.sourceId"]),
    ("typeId", &["subjects.typeId"]),
    (
        "electronicAccess",
        &["electronicAccess.uri", "electronicAccess.linkText", "electronicAccess.publicNote"],
    ),
    (
        "items.electronicAccess",
        &[
            "items.electronicAccess.uri",
            "items.electronicAccess.linkText",
            "items.electronicAccess.publicNote",
        ],
    ),
    (
        "holdings.electronicAccess",
        &[
            "holdings.electronicAccess.uri",
            "holdings.electronicAccess.linkText",
            "holdings.electronicAccess.publicNote",
        ],
    ),
    ("items.notes.note", &["items.notes.note", "items.circulationNotes.note"]),
    ("items.effectiveCallNumberComponents", &["itemFullCallNumbers"]),
    ("items.fullCallNumber", &["itemFullCallNumbers"]),
    ("holdings.fullCallNumber", &["holdingsFullCallNumbers"]),
    ("items.normalizedCallNumbers", &["itemNormalizedCallNumbers"]),
    ("holdings.normalizedCallNumbers", &["holdingsNormalizedCallNumbers"]),
];

/// Fields that repeat others' values ([`Echo`](crate::registry::Echo)): the item and
/// holdings identifier unions, the items' call numbers and holdings ids, which items
/// inherit from their holdings unless they have their own, and the public notes,
/// which are all the notes unless one is staff-only (the items' come from two note
/// lists, so they are not an echo of one).
pub(crate) const ECHOES: &[Echo] = &[
    ("publicNotes", &["notes.note"]),
    ("holdingsPublicNotes", &["holdings.notes.note"]),
    (
        "itemIdentifiers",
        &[
            "items.id",
            "items.hrid",
            "items.formerIds",
            "items.accessionNumber",
            "items.itemIdentifier",
        ],
    ),
    ("holdingsIdentifiers", &["holdings.id", "holdings.hrid", "holdings.formerIds"]),
    ("items.holdingsRecordId", &["holdings.id"]),
    ("items.effectiveCallNumberComponents.callNumber", &["holdings.callNumber"]),
    ("itemFullCallNumbers", &["holdingsFullCallNumbers"]),
    ("itemNormalizedCallNumbers", &["holdingsNormalizedCallNumbers"]),
];

/// The instance schema: the registry's fields plus Quire's own. Derefs to the
/// [`Registry`], so `fields.handles`, `fields.presence_bit` and `fields.index_of` read it.
pub(crate) struct Fields {
    pub(crate) schema: Schema,
    registry: Registry,
    /// The instance id as two `u64` fast values, for id streaming and linkage lookups.
    pub(crate) id_hi: Field,
    pub(crate) id_lo: Field,
    pub(crate) sort_title: Field,
    pub(crate) sort_contributors: Field,
    /// Stored: the basic fields (`expandAll=false`).
    pub(crate) basic: Field,
}

impl std::ops::Deref for Fields {
    type Target = Registry;

    fn deref(&self) -> &Registry {
        &self.registry
    }
}

pub(crate) const ID_HI: &str = "_id_hi";
pub(crate) const ID_LO: &str = "_id_lo";
pub(crate) const SORT_TITLE: &str = "_sort_title";
pub(crate) const SORT_CONTRIBUTORS: &str = "_sort_contributors";

impl Fields {
    pub(crate) fn get() -> &'static Fields {
        static FIELDS_: OnceLock<Fields> = OnceLock::new();
        FIELDS_.get_or_init(Fields::build)
    }

    fn build() -> Fields {
        let mut builder = Schema::builder();
        let handles = add_fields(&mut builder, FIELDS);
        let id_hi = builder.add_u64_field(ID_HI, FAST);
        let id_lo = builder.add_u64_field(ID_LO, FAST);
        let present = add_presence_fields(&mut builder, FIELDS, ECHOES);
        let registry =
            Registry::new(FIELDS, ALIASES, ECHOES, handles, present, "instance", normalize_index);
        // Sort keys are read as columns only; as terms they would add a nearly unique
        // dictionary entry per document for nothing.
        let sort_title = builder.add_text_field(SORT_TITLE, FAST);
        let sort_contributors = builder.add_text_field(SORT_CONTRIBUTORS, FAST);
        let basic = builder.add_text_field("_basic", STORED);
        Fields {
            schema: builder.build(),
            registry,
            id_hi,
            id_lo,
            sort_title,
            sort_contributors,
            basic,
        }
    }
}

/// What a CQL index names: the registry fields it searches.
pub(crate) fn resolve(index: &str) -> Option<Vec<usize>> {
    Fields::get().resolve(index)
}

/// `item.` is `items.` (FOLIO's `ItemSearchFieldModifier`).
pub(crate) fn normalize_index(index: &str) -> String {
    match index.strip_prefix("item.") {
        Some(rest) => format!("items.{rest}"),
        None => index.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::{ALIASES, FIELDS, Fields, resolve};

    #[test]
    fn registry_is_consistent() {
        let fields = Fields::get();
        assert_eq!(fields.handles.len(), FIELDS.len());
        assert!(!ALIASES.is_empty());
        fields.check_aliases();
        assert_eq!(resolve("title").unwrap().len(), 4);
        assert_eq!(resolve("item.status.name"), resolve("items.status.name"));
        assert!(resolve("unknownField").is_none());
    }
}
