//! The instance field registry: every CQL index of `/search/instances`, its kind, its
//! aliases, and the tantivy fields that hold it.
//!
//! Owns the mapping from FOLIO's `model/instance.json` (field paths, index types,
//! `searchAliases`, facet and sort flags, the computed `searchFields`) to Quire's
//! schema. Does not own how values are extracted from records (`document`) or how a
//! relation becomes a query (`query`).
//!
//! Each field becomes up to four tantivy fields, named after the FOLIO path with `.`
//! replaced by `_`:
//! - the field itself: analysed tokens with positions (text kinds), or the whole
//!   normalised value as one term (keyword kinds), or an `i64` (dates, numbers);
//! - `#p`, text kinds only: the whole value folded (`plain_<field>` in FOLIO), for
//!   `==/string` and wildcards;
//! - `#r`: the whole value reversed, so a suffix pattern is a term-dictionary prefix;
//! - `#g`: trigrams of the whole value with positions, for infix patterns.
//!
//! Invariant: `id` is the first field, so `Fields::id` is its handle.

use std::collections::HashMap;
use std::sync::OnceLock;

use tantivy::schema::{
    FAST, Field, INDEXED, IndexRecordOption, STORED, Schema, TextFieldIndexing, TextOptions,
};

use crate::text;

/// How a field is analysed, after FOLIO's index types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `standard` (`stem: false`) or `multilang` (`stem: true`, with English stems).
    Text {
        stem: bool,
    },
    /// `whitespace`: split on whitespace, folded.
    Whitespace,
    /// A whole-value keyword under a normaliser.
    Keyword(Norm),
    Bool,
    /// Epoch milliseconds; ISO dates in queries.
    Date,
    /// A small integer (`normalizedDate1`).
    Number,
}

/// FOLIO's keyword normalisers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Norm {
    /// `keyword` and `source`: the value as it is, case-sensitive.
    Exact,
    /// `keyword_lowercase`: trimmed, lowercased.
    Lower,
    /// `keyword_icu`: trimmed, lowercased, diacritics folded.
    Icu,
    /// ISSNs: folded, spaces and dashes removed.
    NoSpaceDash,
}

/// How a query term is rewritten before it is matched (FOLIO's `searchTermProcessor`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TermProc {
    None,
    Isbn,
    Oclc,
    /// Whitespace removed, lowercased (LCCNs).
    NoSpace,
    /// Only letters and digits kept (classification and call numbers).
    AlphaNumeric,
}

pub(crate) const FACET: u8 = 1;
/// Trigrams of the whole value, for infix wildcards.
pub(crate) const NGRAM: u8 = 2;
/// Values are UUIDs: no reversed or trigram copies (a leading wildcard on an id field
/// scans its term dictionary instead).
pub(crate) const UUID: u8 = 4;
/// No reversed copy: per-record values (former ids, call-number parts, notes, URIs)
/// whose suffix patterns are rare, where a reversed copy would only grow the term
/// dictionary (its build dominates indexing time). Suffix patterns on these scan the
/// field's own dictionary.
pub(crate) const NO_REV: u8 = 8;

#[derive(Debug, Clone, Copy)]
pub(crate) struct FieldDef {
    pub(crate) name: &'static str,
    pub(crate) kind: Kind,
    pub(crate) flags: u8,
    pub(crate) term: TermProc,
}

impl FieldDef {
    pub(crate) fn has(&self, flag: u8) -> bool {
        self.flags & flag != 0
    }

    pub(crate) fn is_text(&self) -> bool {
        matches!(self.kind, Kind::Text { .. } | Kind::Whitespace)
    }

    pub(crate) fn stemmed(&self) -> bool {
        matches!(self.kind, Kind::Text { stem: true })
    }

    /// Whether the whole value is kept as a term (keyword kinds, or text kinds' plain
    /// copy), so it has a reversed copy for suffix patterns.
    pub(crate) fn has_reversed(&self) -> bool {
        !self.has(UUID)
            && !self.has(NO_REV)
            && matches!(self.kind, Kind::Text { .. } | Kind::Whitespace | Kind::Keyword(_))
    }
}

const fn def(name: &'static str, kind: Kind, flags: u8) -> FieldDef {
    FieldDef { name, kind, flags, term: TermProc::None }
}
const fn stemmed(name: &'static str, flags: u8) -> FieldDef {
    def(name, Kind::Text { stem: true }, flags)
}
const fn standard(name: &'static str, flags: u8) -> FieldDef {
    def(name, Kind::Text { stem: false }, flags)
}
const fn kw(name: &'static str, norm: Norm, flags: u8) -> FieldDef {
    def(name, Kind::Keyword(norm), flags)
}
const fn id(name: &'static str, flags: u8) -> FieldDef {
    def(name, Kind::Keyword(Norm::Lower), flags | UUID)
}
const fn boolean(name: &'static str, flags: u8) -> FieldDef {
    def(name, Kind::Bool, flags)
}
const fn date(name: &'static str) -> FieldDef {
    def(name, Kind::Date, 0)
}
const fn with_term(mut field: FieldDef, term: TermProc) -> FieldDef {
    field.term = term;
    field
}

use Norm::{Exact, Icu, Lower};

/// Every searchable instance field. Order is the schema's order; names are FOLIO's.
pub(crate) const FIELDS: &[FieldDef] = &[
    id("id", 0),
    kw("tenantId", Exact, FACET),
    kw("hrid", Lower, NGRAM),
    kw("source", Exact, FACET),
    stemmed("title", NGRAM),
    def("alternativeTitles.alternativeTitleTypeId", Kind::Keyword(Exact), UUID),
    stemmed("alternativeTitles.alternativeTitle", NGRAM),
    id("alternativeTitles.authorityId", 0),
    stemmed("indexTitle", NGRAM),
    stemmed("series.value", NGRAM),
    id("series.authorityId", 0),
    def("identifiers.value", Kind::Whitespace, 0),
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
    kw("dates.date1", Exact, NGRAM),
    kw("dates.date2", Exact, NGRAM),
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
    kw("classifications.classificationNumber", Icu, NGRAM),
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
    kw("items.hrid", Lower, 0),
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
    with_term(standard("oclc", NGRAM), TermProc::Oclc),
    with_term(standard("isbn", NGRAM), TermProc::Isbn),
    kw("issn", Norm::NoSpaceDash, NGRAM),
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
    with_term(kw("lccn", Icu, NGRAM), TermProc::NoSpace),
    with_term(kw("canceledLccn", Icu, NGRAM), TermProc::NoSpace),
    with_term(kw("normalizedClassificationNumber", Icu, NGRAM), TermProc::AlphaNumeric),
];

/// FOLIO's `searchAliases`, inverted: each alias and the fields it searches. An alias
/// wins over a field of the same name (`title` searches four fields).
pub(crate) const ALIASES: &[(&str, &[&str])] = &[
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

/// The tantivy fields of one registry field.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Handles {
    pub(crate) main: Field,
    pub(crate) plain: Option<Field>,
    pub(crate) reversed: Option<Field>,
    pub(crate) grams: Option<Field>,
}

/// The instance schema: the registry's fields plus Quire's own.
pub(crate) struct Fields {
    pub(crate) schema: Schema,
    pub(crate) handles: Vec<Handles>,
    by_name: HashMap<&'static str, usize>,
    /// The instance id as two `u64` fast values, for id streaming and linkage lookups.
    pub(crate) id_hi: Field,
    pub(crate) id_lo: Field,
    /// The names of the registry fields a document has a value in (`field = ""`).
    pub(crate) present: Field,
    pub(crate) sort_title: Field,
    pub(crate) sort_contributors: Field,
    /// Stored: the instance with its holdings and items (`expandAll=true`).
    pub(crate) full: Field,
    /// Stored: the basic fields (`expandAll=false`).
    pub(crate) basic: Field,
}

pub(crate) const ID_HI: &str = "_id_hi";
pub(crate) const ID_LO: &str = "_id_lo";
pub(crate) const SORT_TITLE: &str = "_sort_title";
pub(crate) const SORT_CONTRIBUTORS: &str = "_sort_contributors";

/// The tantivy name of a registry field.
pub(crate) fn tantivy_name(name: &str) -> String {
    name.replace('.', "_")
}

impl Fields {
    pub(crate) fn get() -> &'static Fields {
        static FIELDS_: OnceLock<Fields> = OnceLock::new();
        FIELDS_.get_or_init(Fields::build)
    }

    fn build() -> Fields {
        let mut builder = Schema::builder();
        let indexed = |tokenizer: &str| {
            TextOptions::default().set_indexing_options(
                TextFieldIndexing::default()
                    .set_tokenizer(tokenizer)
                    .set_index_option(IndexRecordOption::WithFreqsAndPositions),
            )
        };
        let raw = || {
            TextOptions::default().set_indexing_options(
                TextFieldIndexing::default()
                    .set_tokenizer("raw")
                    .set_index_option(IndexRecordOption::Basic)
                    .set_fieldnorms(false),
            )
        };
        let mut handles = Vec::with_capacity(FIELDS.len());
        let mut by_name = HashMap::with_capacity(FIELDS.len());
        for (idx, def) in FIELDS.iter().enumerate() {
            let name = tantivy_name(def.name);
            let main = match def.kind {
                Kind::Text { stem } => builder
                    .add_text_field(&name, indexed(if stem { text::STEMMED } else { text::TEXT })),
                Kind::Whitespace => builder.add_text_field(&name, indexed(text::WHITESPACE)),
                Kind::Keyword(_) | Kind::Bool => {
                    let options = if def.has(FACET) { raw() | FAST } else { raw() };
                    builder.add_text_field(&name, options)
                }
                // Dates are millisecond instants, nearly all distinct: as terms they would grow the
                // dictionary by one entry per value, so they are fast columns only (ranges
                // scan the column). Numbers (`normalizedDate1`) are few and indexed.
                Kind::Date => builder.add_i64_field(&name, FAST),
                Kind::Number => builder.add_i64_field(&name, INDEXED | FAST),
            };
            let plain = def.is_text().then(|| builder.add_text_field(&format!("{name}#p"), raw()));
            let reversed =
                def.has_reversed().then(|| builder.add_text_field(&format!("{name}#r"), raw()));
            let grams = def.has(NGRAM).then(|| {
                let options = TextOptions::default().set_indexing_options(
                    TextFieldIndexing::default()
                        .set_tokenizer(text::TRIGRAM)
                        .set_index_option(IndexRecordOption::WithFreqsAndPositions)
                        .set_fieldnorms(false),
                );
                builder.add_text_field(&format!("{name}#g"), options)
            });
            handles.push(Handles { main, plain, reversed, grams });
            by_name.insert(def.name, idx);
        }
        let id_hi = builder.add_u64_field(ID_HI, FAST);
        let id_lo = builder.add_u64_field(ID_LO, FAST);
        let present = builder.add_text_field("_present", raw());
        let sort_title = builder.add_text_field(SORT_TITLE, raw() | FAST);
        let sort_contributors = builder.add_text_field(SORT_CONTRIBUTORS, raw() | FAST);
        let full = builder.add_text_field("_full", STORED);
        let basic = builder.add_text_field("_basic", STORED);
        Fields {
            schema: builder.build(),
            handles,
            by_name,
            id_hi,
            id_lo,
            present,
            sort_title,
            sort_contributors,
            full,
            basic,
        }
    }

    /// The registry index of a field name.
    pub(crate) fn index_of(&self, name: &str) -> Option<usize> {
        self.by_name.get(name).copied()
    }

    pub(crate) fn def(&self, idx: usize) -> &'static FieldDef {
        &FIELDS[idx]
    }

    /// The instance's `id` field: one term per document, what updates and deletes
    /// replace.
    pub(crate) fn id(&self) -> Field {
        self.handles[0].main
    }
}

/// What a CQL index names: the registry fields it searches.
pub(crate) fn resolve(index: &str) -> Option<Vec<usize>> {
    let fields = Fields::get();
    let index = normalize_index(index);
    if let Some((_, names)) = ALIASES.iter().find(|(alias, _)| *alias == index) {
        return Some(
            names.iter().map(|n| fields.index_of(n).expect("alias names a field")).collect(),
        );
    }
    fields.index_of(&index).map(|idx| vec![idx])
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
        for (_, names) in ALIASES {
            for name in *names {
                assert!(fields.index_of(name).is_some(), "{name}");
            }
        }
        assert_eq!(resolve("title").unwrap().len(), 4);
        assert_eq!(resolve("item.status.name"), resolve("items.status.name"));
        assert!(resolve("unknownField").is_none());
    }
}
