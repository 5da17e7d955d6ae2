//! Field registries: the CQL indexes of one record family, their kinds and aliases, and
//! the tantivy fields that hold them.
//!
//! Owns what every family's registry shares: the field kinds after FOLIO's index types
//! and normalisers, the flags (facet, trigram copy, UUID values), how one registry
//! field becomes up to four tantivy fields, and resolving a CQL index through the
//! aliases. Does not own a family's field list (`instance::fields`,
//! `authority::fields`), what goes into the fields, or how relations become queries
//! (`query`).
//!
//! Each field becomes up to three tantivy fields, named after the FOLIO path with `.`
//! replaced by `_`:
//! - the field itself: analysed tokens with positions (text kinds), or the whole
//!   normalised value as one term (keyword kinds), or an `i64` (dates, numbers);
//! - `#p`, text kinds only: the whole value folded (`plain_<field>` in FOLIO), for
//!   `==/string` and wildcards;
//! - `#r`: the whole value reversed, so a suffix pattern is a term-dictionary prefix.
//!
//! A field flagged [`NGRAM`] also has its whole-value terms (`#p`, or the keyword
//! field itself) in the segments' gram maps (`grams`), for infix patterns.

use rustc_hash::FxHashMap;

use tantivy::schema::{
    FAST, Field, INDEXED, IndexRecordOption, SchemaBuilder, TextFieldIndexing, TextOptions,
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
/// A gram map over the whole values, for infix wildcards.
pub(crate) const NGRAM: u8 = 2;
/// Values are UUIDs: no reversed copy or gram map (a leading wildcard on an id field
/// scans its term dictionary instead).
pub(crate) const UUID: u8 = 4;
/// No reversed copy: per-record values (identifiers, hrids, former ids, call-number
/// parts, notes, URIs) and titles other than the main one, whose suffix patterns are
/// rare, where a reversed copy would only grow the term dictionary (its build
/// dominates indexing time). Suffix patterns on these are answered from the gram map
/// when the field has one ([`NGRAM`]), else by scanning the field's own dictionary.
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

pub(crate) const fn def(name: &'static str, kind: Kind, flags: u8) -> FieldDef {
    FieldDef { name, kind, flags, term: TermProc::None }
}
pub(crate) const fn stemmed(name: &'static str, flags: u8) -> FieldDef {
    def(name, Kind::Text { stem: true }, flags)
}
pub(crate) const fn standard(name: &'static str, flags: u8) -> FieldDef {
    def(name, Kind::Text { stem: false }, flags)
}
pub(crate) const fn kw(name: &'static str, norm: Norm, flags: u8) -> FieldDef {
    def(name, Kind::Keyword(norm), flags)
}
pub(crate) const fn id(name: &'static str, flags: u8) -> FieldDef {
    def(name, Kind::Keyword(Norm::Lower), flags | UUID)
}
pub(crate) const fn boolean(name: &'static str, flags: u8) -> FieldDef {
    def(name, Kind::Bool, flags)
}
pub(crate) const fn date(name: &'static str) -> FieldDef {
    def(name, Kind::Date, 0)
}
pub(crate) const fn with_term(mut field: FieldDef, term: TermProc) -> FieldDef {
    field.term = term;
    field
}

/// An alias (FOLIO's `searchAliases`, inverted) and the fields it searches.
pub(crate) type Alias = (&'static str, &'static [&'static str]);

/// A field whose values are, in most documents, exactly the values of some others
/// (its sources), and the sources: `itemIdentifiers` holds the items' ids, hrids,
/// former ids, accession numbers and identifiers again. Where a document's terms in
/// the field equal the union of its terms in the sources, the document gets a bit
/// instead of the terms, and a query on the field also asks the sources, limited to
/// the documents with the bit ([`Echoes`]). The answer is the same for every relation
/// and pattern, since those documents' terms are the same.
///
/// Why: these copies were nine of the some 31 nearly unique terms an instance gives a
/// million-instance index, and unique terms are what a build's term table and segment
/// flushes spend their time on.
///
/// A text field can echo one source of the same kind, flags and term processor
/// (`publicNotes` is the instance's notes when none is staff-only): where the two hold
/// the same values in the same order, their words and positions are the same too, so
/// the whole clause, whatever its relation, is asked of the source instead
/// ([`Echoes::whole_clause`]).
///
/// Invariant (checked by [`Registry::new`]): a keyword echo and its sources are
/// keyword fields without facets, reversed copies or gram maps; a text echo has one
/// source like itself and no alias searches it beside other fields; no source is
/// itself an echo, so one bit settles a document.
pub(crate) type Echo = (&'static str, &'static [&'static str]);

/// An echo field's sources and its bit, resolved.
#[derive(Debug, Clone)]
pub(crate) struct Echoes {
    pub(crate) sources: Vec<usize>,
    /// The presence bit ([`Registry::bit`]) that says the document's terms are the
    /// sources'.
    pub(crate) bit: usize,
    /// A text echo: its values equal its one source's in order, and a query clause on
    /// it is asked of the source as a whole (the words of a cross-field `all` and a
    /// phrase's positions must all come from one field). A keyword echo's terms are
    /// each asked of the sources (`query::on_field`).
    pub(crate) whole_clause: bool,
}

/// The tantivy fields of one registry field.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Handles {
    pub(crate) main: Field,
    pub(crate) plain: Option<Field>,
    pub(crate) reversed: Option<Field>,
    /// Whether the whole-value field (`plain`, else `main`) has a gram map.
    pub(crate) grams: bool,
}

impl Handles {
    /// The field holding the whole normalised value as one term: a text field's plain
    /// copy, any other field itself.
    pub(crate) fn whole(&self) -> Field {
        self.plain.unwrap_or(self.main)
    }
}

/// One family's registry: its fields, aliases and their tantivy handles.
///
/// Invariant: `handles[idx]` belongs to `defs[idx]`.
pub(crate) struct Registry {
    pub(crate) defs: &'static [FieldDef],
    aliases: &'static [Alias],
    pub(crate) handles: Vec<Handles>,
    /// Looked up for every value of every indexed record, hence the cheap hash.
    by_name: FxHashMap<&'static str, usize>,
    /// Which registry fields a document has a value in (`field = ""`): bit `idx % 64`
    /// of column `idx / 64`; after the fields' bits, the echo bits.
    present: Vec<Field>,
    /// Per field, the fields it echoes.
    echoes: Vec<Option<Echoes>>,
    /// How FOLIO names the resource in a CQL parse error (`instance`, `authority`).
    pub(crate) resource: &'static str,
    /// Rewrites a CQL index before it is resolved (`item.` → `items.` for instances).
    rewrite: fn(&str) -> String,
}

/// The tantivy name of a registry field.
pub(crate) fn tantivy_name(name: &str) -> String {
    name.replace('.', "_")
}

/// Adds the tantivy fields of `defs` to a schema under construction, in order.
pub(crate) fn add_fields(builder: &mut SchemaBuilder, defs: &[FieldDef]) -> Vec<Handles> {
    let indexed = |tokenizer: &str| {
        TextOptions::default().set_indexing_options(
            TextFieldIndexing::default()
                .set_tokenizer(tokenizer)
                .set_index_option(IndexRecordOption::WithFreqsAndPositions),
        )
    };
    let mut handles = Vec::with_capacity(defs.len());
    for def in defs {
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
        let grams = def.has(NGRAM);
        handles.push(Handles { main, plain, reversed, grams });
    }
    handles
}

/// Adds the presence columns for `defs`: `u64` fast fields `_present0`, `_present1`...,
/// one bit per registry field.
///
/// Why bits in columns: a term per present field (`_present:title`) cost the indexer a
/// posting for each of some 55 fields an instance has, 8% of a reindex; a column costs
/// one value per 64 fields. `field = ""` reads the column, one value per document
/// ([`PresentQuery`](crate::presence::PresentQuery)).
pub(crate) fn add_presence_fields(
    builder: &mut SchemaBuilder,
    defs: &[FieldDef],
    echoes: &[Echo],
) -> Vec<Field> {
    (0..(defs.len() + echoes.len()).div_ceil(64))
        .map(|i| builder.add_u64_field(&format!("_present{i}"), FAST))
        .collect()
}

/// The registry fields one document has a value in, collected while it is built.
#[derive(Debug, Clone, Default)]
pub(crate) struct Presence {
    words: Vec<u64>,
}

impl Presence {
    pub(crate) fn mark(&mut self, idx: usize) {
        let word = idx / 64;
        if self.words.len() <= word {
            self.words.resize(word + 1, 0);
        }
        self.words[word] |= 1 << (idx % 64);
    }
}

impl Registry {
    /// Writes a document's presence bits. Every column gets a value, so the columns
    /// stay dense.
    pub(crate) fn add_presence(&self, doc: &mut tantivy::TantivyDocument, presence: &Presence) {
        for (i, &field) in self.present.iter().enumerate() {
            doc.add_u64(field, presence.words.get(i).copied().unwrap_or(0));
        }
    }

    /// The whole-value fields the gram plugin indexes.
    pub(crate) fn gram_fields(&self) -> Vec<Field> {
        self.handles.iter().filter(|h| h.grams).map(Handles::whole).collect()
    }

    /// The column and bit that say whether a document has a value in field `idx`.
    pub(crate) fn presence_bit(&self, idx: usize) -> (Field, u64) {
        self.bit(idx)
    }

    /// The column and mask of presence bit `n`: a field's (`n` its index) or an echo's.
    pub(crate) fn bit(&self, n: usize) -> (Field, u64) {
        (self.present[n / 64], 1 << (n % 64))
    }

    /// The fields field `idx` echoes, if it is an echo field.
    pub(crate) fn echoes(&self, idx: usize) -> Option<&Echoes> {
        self.echoes[idx].as_ref()
    }

    /// A registry over fields already added to a schema by [`add_fields`], with the
    /// presence columns [`add_presence_fields`] added too.
    pub(crate) fn new(
        defs: &'static [FieldDef],
        aliases: &'static [Alias],
        echo_defs: &'static [Echo],
        handles: Vec<Handles>,
        present: Vec<Field>,
        resource: &'static str,
        rewrite: fn(&str) -> String,
    ) -> Registry {
        assert_eq!(defs.len(), handles.len());
        assert_eq!(present.len(), (defs.len() + echo_defs.len()).div_ceil(64));
        let by_name: FxHashMap<&'static str, usize> =
            defs.iter().enumerate().map(|(idx, def)| (def.name, idx)).collect();
        let plain_keyword = |idx: usize| {
            let def = &defs[idx];
            matches!(def.kind, Kind::Keyword(_))
                && !def.has(FACET)
                && !def.has(NGRAM)
                && !def.has_reversed()
        };
        let mut echoes = vec![None; defs.len()];
        for (k, (name, sources)) in echo_defs.iter().enumerate() {
            let idx = by_name[name];
            let sources: Vec<usize> = sources.iter().map(|s| by_name[s]).collect();
            let whole_clause = defs[idx].is_text();
            if whole_clause {
                let (def, source) = (&defs[idx], &defs[sources[0]]);
                assert!(sources.len() == 1 && !def.has(FACET), "{name} cannot echo");
                assert!(
                    (source.kind, source.flags, source.term) == (def.kind, def.flags, def.term),
                    "{name} cannot echo {}: not alike",
                    source.name
                );
                assert!(
                    !aliases.iter().any(|(_, fields)| fields.len() > 1 && fields.contains(name)),
                    "{name} cannot echo: an alias searches it beside other fields"
                );
            } else {
                assert!(plain_keyword(idx), "{name} cannot echo: not a plain keyword field");
                for &source in &sources {
                    assert!(plain_keyword(source), "{} cannot be echoed", defs[source].name);
                }
            }
            for &source in &sources {
                assert!(!echo_defs.iter().any(|(e, _)| *e == defs[source].name));
            }
            echoes[idx] = Some(Echoes { sources, bit: defs.len() + k, whole_clause });
        }
        Registry { defs, aliases, handles, by_name, present, echoes, resource, rewrite }
    }

    /// The registry index of a field name.
    pub(crate) fn index_of(&self, name: &str) -> Option<usize> {
        self.by_name.get(name).copied()
    }

    pub(crate) fn def(&self, idx: usize) -> &'static FieldDef {
        &self.defs[idx]
    }

    /// The first field's handle: `id`, one term per document, what updates and
    /// deletes replace.
    pub(crate) fn id(&self) -> Field {
        self.handles[0].main
    }

    /// What a CQL index names: the registry fields it searches. An alias wins over a
    /// field of the same name.
    pub(crate) fn resolve(&self, index: &str) -> Option<Vec<usize>> {
        let index = (self.rewrite)(index);
        if let Some((_, names)) = self.aliases.iter().find(|(alias, _)| *alias == index) {
            return Some(
                names.iter().map(|n| self.index_of(n).expect("alias names a field")).collect(),
            );
        }
        self.index_of(&index).map(|idx| vec![idx])
    }

    /// Checks that every alias names a field (for the registries' tests).
    #[cfg(test)]
    pub(crate) fn check_aliases(&self) {
        for (_, names) in self.aliases {
            for name in *names {
                assert!(self.index_of(name).is_some(), "{name}");
            }
        }
    }
}

/// A whole-value, untokenised text field without norms.
pub(crate) fn raw() -> TextOptions {
    TextOptions::default().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer("raw")
            .set_index_option(IndexRecordOption::Basic)
            .set_fieldnorms(false),
    )
}

/// A keyword value under its normaliser.
pub(crate) fn normalize(norm: Norm, value: &str) -> String {
    match norm {
        Norm::Exact => {
            let mut out = value.to_string();
            text::truncate(&mut out, text::MAX_PLAIN_BYTES);
            out
        }
        Norm::Lower => text::lowercase(value),
        Norm::Icu => text::plain(value),
        Norm::NoSpaceDash => {
            text::plain(value).chars().filter(|c| *c != ' ' && *c != '-').collect()
        }
    }
}
