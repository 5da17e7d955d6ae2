//! Building the search document of an instance: the instance with its holdings and
//! items folded in, as FOLIO's `instance` search document has them.
//!
//! Owns which value of which record goes into which registry field, the computed
//! fields (ISBN, ISSN, OCLC, LCCN, call numbers, public notes, sort keys), and the two
//! renderings: the basic fields, stored in the index, and the full instance, spliced
//! from the store's JSON when asked for. Does not own analysis
//! (`text`) or the schema (`fields`).

use std::cell::RefCell;
use std::collections::HashSet;

use inventory::{HoldingsRecord, Instance, Item};
use serde::Serialize;
use tantivy::TantivyDocument;
use uuid::Uuid;

use crate::instance::fields::{FIELDS, FieldDef, Fields, Kind};
use crate::instance::identifiers;
use crate::registry::{Echoes, Presence, normalize};
use crate::text;

/// Identifier-type and alternative-title-type ids that computed fields depend on,
/// resolved by name from the tenant's reference data as FOLIO does.
#[derive(Debug, Clone, Default)]
pub(crate) struct RefIds {
    pub(crate) isbn: HashSet<Uuid>,
    pub(crate) issn: HashSet<Uuid>,
    pub(crate) oclc: HashSet<Uuid>,
    pub(crate) lccn: HashSet<Uuid>,
    pub(crate) canceled_lccn: HashSet<Uuid>,
    pub(crate) uniform_title: HashSet<Uuid>,
}

/// FOLIO's "Uniform Title" alternative title type. Quire has no alternative-title-type
/// store yet, so the standard id is the one recognised.
pub(crate) const UNIFORM_TITLE_TYPE: Uuid = Uuid::from_u128(0x30512027_cdc9_4c79_af75_1565b3bd888d);

/// An instance and what belongs to it, parsed, with the stored JSON of each.
pub(crate) struct Family {
    pub(crate) instance: Instance,
    pub(crate) instance_json: String,
    pub(crate) holdings: Vec<(HoldingsRecord, String)>,
    pub(crate) items: Vec<(Item, String)>,
}

/// Values collected per registry field, deduplicated.
struct Values {
    fields: &'static Fields,
    values: Vec<Vec<String>>,
    dates: Vec<Vec<i64>>,
}

impl Values {
    fn new(fields: &'static Fields) -> Values {
        Values {
            fields,
            values: vec![Vec::new(); FIELDS.len()],
            dates: vec![Vec::new(); FIELDS.len()],
        }
    }

    /// Empties every field's values, keeping their memory for the next record.
    fn clear(&mut self) {
        self.values.iter_mut().for_each(Vec::clear);
        self.dates.iter_mut().for_each(Vec::clear);
    }

    fn idx(&self, name: &str) -> usize {
        self.fields.index_of(name).unwrap_or_else(|| panic!("unknown search field {name}"))
    }

    fn add(&mut self, name: &str, value: &str) {
        if value.is_empty() {
            return;
        }
        let idx = self.idx(name);
        let values = &mut self.values[idx];
        if !values.iter().any(|v| v == value) {
            values.push(value.to_string());
        }
    }

    /// Whether `values`, the values of echo field `def`, are its sources' again: for a
    /// keyword field the same terms as the sources' together; for a text field the
    /// same values in the same order as its one source's, so the same words at the
    /// same positions.
    fn echoes(&self, def: &FieldDef, echoes: &Echoes, values: &[String]) -> bool {
        let sources = &echoes.sources;
        if echoes.whole_clause {
            return values == self.values[sources[0]].as_slice();
        }
        let terms = |def: &FieldDef, values: &[String]| -> Vec<String> {
            let Kind::Keyword(norm) = def.kind else { unreachable!("echoes are keywords") };
            values.iter().map(|value| normalize(norm, value)).collect()
        };
        let mut own = terms(def, values);
        let mut theirs: Vec<String> =
            sources.iter().flat_map(|&idx| terms(&FIELDS[idx], &self.values[idx])).collect();
        for list in [&mut own, &mut theirs] {
            list.sort_unstable();
            list.dedup();
        }
        own == theirs
    }

    fn opt(&mut self, name: &str, value: Option<&str>) {
        if let Some(value) = value {
            self.add(name, value);
        }
    }

    fn id(&mut self, name: &str, value: Option<Uuid>) {
        if let Some(value) = value {
            let mut buf = Uuid::encode_buffer();
            self.add(name, value.hyphenated().encode_lower(&mut buf));
        }
    }

    fn ids<'a>(&mut self, name: &str, values: impl IntoIterator<Item = &'a Uuid>) {
        for value in values {
            self.id(name, Some(*value));
        }
    }

    fn flag(&mut self, name: &str, value: bool) {
        self.add(name, if value { "true" } else { "false" });
    }

    fn number(&mut self, name: &str, value: i64) {
        let idx = self.idx(name);
        self.dates[idx].push(value);
    }

    fn timestamp(&mut self, name: &str, value: Option<folio::Timestamp>) {
        if let Some(value) = value {
            self.number(name, value.as_datetime().timestamp_millis());
        }
    }
}

impl Family {
    /// Its search document.
    pub(crate) fn document(&self, refs: &RefIds, tenant: &str) -> TantivyDocument {
        build(
            &self.instance,
            self.holdings.iter().map(|(h, _)| h),
            self.items.iter().map(|(i, _)| i),
            refs,
            tenant,
        )
    }
}

/// The search document of an instance with its holdings and items. It stores the
/// basic fields only: `expandAll` reads the records from the store.
pub(crate) fn build<'a>(
    instance: &Instance,
    holdings: impl IntoIterator<Item = &'a HoldingsRecord>,
    items: impl IntoIterator<Item = &'a Item>,
    refs: &RefIds,
    tenant: &str,
) -> TantivyDocument {
    thread_local! {
        // One set of per-field lists per thread, emptied between records: a reindex
        // builds a million documents, and fresh lists for every field of each cost
        // more than filling them.
        static VALUES: RefCell<Option<Values>> = const { RefCell::new(None) };
    }
    VALUES.with_borrow_mut(|scratch| {
        let v = scratch.get_or_insert_with(|| Values::new(Fields::get()));
        v.clear();
        instance_values(v, instance, refs, tenant);
        for holdings in holdings {
            holdings_values(v, holdings, tenant);
        }
        for item in items {
            item_values(v, item, tenant);
        }
        assemble(v, instance, tenant)
    })
}

/// The document of the values collected for `instance` and its holdings and items.
fn assemble(v: &Values, instance: &Instance, tenant: &str) -> TantivyDocument {
    let fields = v.fields;
    let id = instance.id.expect("stored instances have ids");
    let mut doc = TantivyDocument::default();
    let (hi, lo) = id.as_u64_pair();
    doc.add_u64(fields.id_hi, hi);
    doc.add_u64(fields.id_lo, lo);
    let mut presence = Presence::default();
    // mod-search stems (its English sub-fields) only records whose languages include
    // English; the stemmed fields of any other record hold its words unstemmed.
    let english = instance.languages.iter().any(|language| language.eq_ignore_ascii_case("eng"));
    for (idx, def) in FIELDS.iter().enumerate() {
        let handles = fields.handles[idx];
        let values = &v.values[idx];
        let numbers = &v.dates[idx];
        if values.is_empty() && numbers.is_empty() {
            continue;
        }
        presence.mark(idx);
        if let Some(echoes) = fields.echoes(idx)
            && v.echoes(def, echoes, values)
        {
            presence.mark(echoes.bit);
            continue;
        }
        for &n in numbers {
            doc.add_i64(handles.main, n);
        }
        for value in values {
            let whole = match def.kind {
                Kind::Text { .. } | Kind::Whitespace => {
                    if def.stemmed() && !english {
                        doc.add_pre_tokenized_text(handles.main, text::unstemmed(value));
                    } else {
                        doc.add_text(handles.main, value);
                    }
                    let plain = text::plain(value);
                    if let Some(field) = handles.plain {
                        doc.add_text(field, &plain);
                    }
                    plain
                }
                Kind::Keyword(norm) => {
                    let normalized = normalize(norm, value);
                    doc.add_text(handles.main, &normalized);
                    normalized
                }
                Kind::Bool => {
                    doc.add_text(handles.main, value);
                    continue;
                }
                Kind::Date | Kind::Number => continue,
            };
            if let Some(field) = handles.reversed {
                doc.add_text(field, text::reversed(&whole));
            }
        }
    }
    fields.add_presence(&mut doc, &presence);
    doc.add_text(fields.sort_title, sort_title(instance));
    if let Some(name) = sort_contributor(instance) {
        doc.add_text(fields.sort_contributors, text::plain(name));
    }
    doc.add_text(fields.basic, basic_json(instance, tenant));
    doc
}

fn instance_values(v: &mut Values, i: &Instance, refs: &RefIds, tenant: &str) {
    v.id("id", i.id);
    v.add("tenantId", tenant);
    v.opt("hrid", i.hrid.as_deref());
    v.add("source", &i.source);
    v.add("title", &i.title);
    for t in &i.alternative_titles {
        v.id("alternativeTitles.alternativeTitleTypeId", t.alternative_title_type_id);
        v.opt("alternativeTitles.alternativeTitle", t.alternative_title.as_deref());
        v.id("alternativeTitles.authorityId", t.authority_id);
        let uniform = t.alternative_title_type_id.is_some_and(|type_id| {
            type_id == UNIFORM_TITLE_TYPE || refs.uniform_title.contains(&type_id)
        });
        if uniform {
            v.opt("uniformTitle", t.alternative_title.as_deref());
        }
    }
    v.opt("indexTitle", i.index_title.as_deref());
    for s in &i.series {
        v.add("series.value", &s.value);
        v.id("series.authorityId", s.authority_id);
    }
    for ident in &i.identifiers {
        v.add("identifiers.value", &ident.value);
        v.id("identifiers.identifierTypeId", Some(ident.identifier_type_id));
        let type_id = ident.identifier_type_id;
        if refs.isbn.contains(&type_id) {
            for isbn in identifiers::normalize_isbn(&ident.value) {
                v.add("isbn", &isbn);
            }
        }
        if refs.issn.contains(&type_id) {
            v.add("issn", &ident.value);
        }
        if refs.oclc.contains(&type_id)
            && let Some(oclc) = identifiers::normalize_oclc(&ident.value)
        {
            v.add("oclc", &oclc);
        }
        if refs.lccn.contains(&type_id)
            && let Some(lccn) = identifiers::normalize_no_space(&ident.value)
        {
            v.add("lccn", &lccn);
        }
        if refs.canceled_lccn.contains(&type_id)
            && let Some(lccn) = identifiers::normalize_no_space(&ident.value)
        {
            v.add("canceledLccn", &lccn);
        }
    }
    for c in &i.contributors {
        v.add("contributors.name", &c.name);
        if let Some(primary) = c.primary {
            v.flag("contributors.primary", primary);
        }
        v.id("contributors.contributorNameTypeId", Some(c.contributor_name_type_id));
        v.id("contributors.contributorTypeId", c.contributor_type_id);
        v.id("contributors.authorityId", c.authority_id);
    }
    for s in &i.subjects {
        v.add("subjects.value", &s.value);
        v.id("subjects.authorityId", s.authority_id);
        v.id("subjects.sourceId", s.source_id);
        v.id("subjects.typeId", s.type_id);
    }
    let mut date1 = 0;
    if let Some(dates) = &i.dates {
        v.id("dates.dateTypeId", dates.date_type_id);
        v.opt("dates.date1", dates.date1.as_deref());
        v.opt("dates.date2", dates.date2.as_deref());
        if let Some(d) = dates.date1.as_deref().filter(|d| !d.is_empty()) {
            let digits: String =
                d.chars().map(|c| if c.is_ascii_digit() { c } else { '0' }).collect();
            date1 = if digits.len() <= 4 { digits.parse().unwrap_or(0) } else { 0 };
        }
    }
    v.number("normalizedDate1", date1);
    v.id("instanceTypeId", Some(i.instance_type_id));
    v.ids("statisticalCodeIds", &i.statistical_code_ids);
    v.ids("statisticalCodes", &i.statistical_code_ids);
    v.id("statusId", i.status_id);
    v.ids("instanceFormatIds", &i.instance_format_ids);
    for language in &i.languages {
        v.add("languages", language);
    }
    if let Some(m) = &i.metadata {
        v.timestamp("metadata.createdDate", m.created_date);
        v.timestamp("metadata.updatedDate", m.updated_date);
        v.id("metadata.createdByUserId", m.created_by_user_id);
        v.id("metadata.updatedByUserId", m.updated_by_user_id);
    }
    v.id("modeOfIssuanceId", i.mode_of_issuance_id);
    v.ids("natureOfContentTermIds", &i.nature_of_content_term_ids);
    for p in &i.publication {
        v.opt("publication.publisher", p.publisher.as_deref());
        v.opt("publication.dateOfPublication", p.date_of_publication.as_deref());
        v.opt("publication.place", p.place.as_deref());
    }
    if let Some(tags) = &i.tags {
        for tag in &tags.tag_list {
            v.add("tags.tagList", tag);
            v.add("instanceTags", tag);
        }
    }
    for c in &i.classifications {
        v.add("classifications.classificationNumber", &c.classification_number);
        v.id("classifications.classificationTypeId", Some(c.classification_type_id));
        if let Some(n) = identifiers::alphanumeric(&c.classification_number) {
            v.add("normalizedClassificationNumber", &n);
        }
    }
    for note in &i.administrative_notes {
        v.add("administrativeNotes", note);
    }
    for note in &i.notes {
        v.opt("notes.note", note.note.as_deref());
        v.flag("notes.staffOnly", note.staff_only);
        if !note.staff_only {
            v.opt("publicNotes", note.note.as_deref());
        }
    }
    for e in &i.electronic_access {
        electronic_access(v, "", e);
    }
    v.flag("staffSuppress", i.staff_suppress.unwrap_or(false));
    v.flag("discoverySuppress", i.discovery_suppress);
    v.flag("isBoundWith", false);
    v.flag("shared", false);
}

fn electronic_access(v: &mut Values, prefix: &str, e: &inventory::model::ElectronicAccess) {
    v.add(&format!("{prefix}electronicAccess.uri"), &e.uri);
    v.opt(&format!("{prefix}electronicAccess.linkText"), e.link_text.as_deref());
    v.opt(&format!("{prefix}electronicAccess.publicNote"), e.public_note.as_deref());
    v.id(&format!("{prefix}electronicAccess.relationshipId"), e.relationship_id);
}

fn holdings_values(v: &mut Values, h: &HoldingsRecord, tenant: &str) {
    v.id("holdings.id", h.id);
    v.add("holdings.tenantId", tenant);
    v.id("holdings.sourceId", Some(h.source_id));
    v.id("holdings.holdingsTypeId", h.holdings_type_id);
    v.id("holdingsTypeId", h.holdings_type_id);
    v.id("holdings.permanentLocationId", Some(h.permanent_location_id));
    v.ids("holdings.statisticalCodeIds", &h.statistical_code_ids);
    v.ids("statisticalCodes", &h.statistical_code_ids);
    v.flag("holdings.discoverySuppress", h.discovery_suppress.unwrap_or(false));
    v.opt("holdings.hrid", h.hrid.as_deref());
    for former in &h.former_ids {
        v.add("holdings.formerIds", former);
        v.add("holdingsIdentifiers", former);
    }
    v.opt("holdingsIdentifiers", h.hrid.as_deref());
    v.id("holdingsIdentifiers", h.id);
    v.opt("holdings.callNumber", h.call_number.as_deref());
    v.opt("holdings.callNumberPrefix", h.call_number_prefix.as_deref());
    v.opt("holdings.callNumberSuffix", h.call_number_suffix.as_deref());
    v.opt("holdings.copyNumber", h.copy_number.as_deref());
    let parts = [&h.call_number_prefix, &h.call_number, &h.call_number_suffix];
    call_numbers(v, "holdings", parts, h.call_number.as_deref());
    if let Some(tags) = &h.tags {
        for tag in &tags.tag_list {
            v.add("holdings.tags.tagList", tag);
            v.add("holdingsTags", tag);
        }
    }
    for e in &h.electronic_access {
        electronic_access(v, "holdings.", e);
    }
    for note in &h.administrative_notes {
        v.add("holdings.administrativeNotes", note);
    }
    for note in &h.notes {
        v.opt("holdings.notes.note", note.note.as_deref());
        v.flag("holdings.notes.staffOnly", note.staff_only);
        if !note.staff_only {
            v.opt("holdingsPublicNotes", note.note.as_deref());
        }
    }
    if let Some(m) = &h.metadata {
        v.timestamp("holdings.metadata.createdDate", m.created_date);
        v.timestamp("holdings.metadata.updatedDate", m.updated_date);
        v.id("holdings.metadata.createdByUserId", m.created_by_user_id);
        v.id("holdings.metadata.updatedByUserId", m.updated_by_user_id);
    }
}

fn item_values(v: &mut Values, i: &Item, tenant: &str) {
    v.id("items.id", i.id);
    v.add("items.tenantId", tenant);
    v.id("items.holdingsRecordId", Some(i.holdings_record_id));
    v.opt("items.hrid", i.hrid.as_deref());
    v.opt("items.accessionNumber", i.accession_number.as_deref());
    for former in &i.former_ids {
        v.add("items.formerIds", former);
        v.add("itemIdentifiers", former);
    }
    v.opt("itemIdentifiers", i.hrid.as_deref());
    v.opt("itemIdentifiers", i.accession_number.as_deref());
    v.id("itemIdentifiers", i.id);
    v.opt("itemIdentifiers", i.item_identifier.as_deref());
    v.opt("items.itemIdentifier", i.item_identifier.as_deref());
    v.opt("items.barcode", i.barcode.as_deref());
    v.id("items.effectiveLocationId", i.effective_location_id);
    v.ids("items.statisticalCodeIds", &i.statistical_code_ids);
    v.ids("statisticalCodes", &i.statistical_code_ids);
    v.add("items.status.name", i.status.name.as_str());
    v.id("items.materialTypeId", Some(i.material_type_id));
    v.flag("items.discoverySuppress", i.discovery_suppress.unwrap_or(false));
    v.id("items.itemLevelCallNumberTypeId", i.item_level_call_number_type_id);
    if let Some(c) = &i.effective_call_number_components {
        v.opt("items.effectiveCallNumberComponents.callNumber", c.call_number.as_deref());
        v.opt("items.effectiveCallNumberComponents.prefix", c.prefix.as_deref());
        v.opt("items.effectiveCallNumberComponents.suffix", c.suffix.as_deref());
        v.id("items.effectiveCallNumberComponents.typeId", c.type_id);
        call_numbers(v, "item", [&c.prefix, &c.call_number, &c.suffix], c.call_number.as_deref());
    }
    if let Some(tags) = &i.tags {
        for tag in &tags.tag_list {
            v.add("items.tags.tagList", tag);
            v.add("itemTags", tag);
        }
    }
    for e in &i.electronic_access {
        electronic_access(v, "items.", e);
    }
    for note in &i.administrative_notes {
        v.add("items.administrativeNotes", note);
    }
    for note in &i.notes {
        v.opt("items.notes.note", note.note.as_deref());
        v.flag("items.notes.staffOnly", note.staff_only);
        if !note.staff_only {
            v.opt("itemPublicNotes", note.note.as_deref());
        }
    }
    for note in &i.circulation_notes {
        v.opt("items.circulationNotes.note", note.note.as_deref());
        v.flag("items.circulationNotes.staffOnly", note.staff_only);
        if !note.staff_only {
            v.opt("itemPublicNotes", note.note.as_deref());
        }
    }
    if let Some(m) = &i.metadata {
        v.timestamp("items.metadata.createdDate", m.created_date);
        v.timestamp("items.metadata.updatedDate", m.updated_date);
        v.id("items.metadata.createdByUserId", m.created_by_user_id);
        v.id("items.metadata.updatedByUserId", m.updated_by_user_id);
    }
}

/// Full call numbers (prefix, number, suffix joined by spaces) and their
/// letters-and-digits forms.
fn call_numbers(v: &mut Values, kind: &str, parts: [&Option<String>; 3], number: Option<&str>) {
    let full: Vec<&str> = parts
        .iter()
        .filter_map(|p| p.as_deref())
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect();
    if full.is_empty() {
        return;
    }
    let full = full.join(" ");
    v.add(&format!("{kind}FullCallNumbers"), &full);
    let normalized = format!("{kind}NormalizedCallNumbers");
    if let Some(n) = identifiers::alphanumeric(&full) {
        v.add(&normalized, &n.to_lowercase());
    }
    if let Some(n) = number.and_then(identifiers::alphanumeric) {
        v.add(&normalized, &n.to_lowercase());
    }
}

/// FOLIO's `sort_title`: the index title when there is one, else the title, folded.
fn sort_title(instance: &Instance) -> String {
    let title =
        instance.index_title.as_deref().filter(|t| !t.trim().is_empty()).unwrap_or(&instance.title);
    text::plain(title)
}

/// FOLIO's `sort_contributors`: the primary contributor's name, else the first one's.
fn sort_contributor(instance: &Instance) -> Option<&str> {
    let contributors = &instance.contributors;
    contributors
        .iter()
        .find(|c| c.primary == Some(true))
        .or(contributors.first())
        .map(|c| c.name.as_str())
}

/// The instance fields FOLIO returns without `expandAll`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Basic<'a> {
    id: Option<Uuid>,
    tenant_id: &'a str,
    shared: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    hrid: Option<&'a str>,
    title: &'a str,
    contributors: Vec<BasicContributor<'a>>,
    identifiers: Vec<BasicIdentifier<'a>>,
    publication: Vec<BasicPublication<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    dates: Option<&'a inventory::model::InstanceDates>,
    staff_suppress: bool,
    discovery_suppress: bool,
    is_bound_with: bool,
    electronic_access: [(); 0],
    notes: [(); 0],
    items: [(); 0],
    holdings: [(); 0],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct BasicContributor<'a> {
    name: &'a str,
    contributor_name_type_id: Uuid,
    #[serde(skip_serializing_if = "Option::is_none")]
    contributor_type_id: Option<Uuid>,
    #[serde(skip_serializing_if = "Option::is_none")]
    authority_id: Option<Uuid>,
    primary: bool,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct BasicIdentifier<'a> {
    value: &'a str,
    identifier_type_id: Uuid,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct BasicPublication<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    publisher: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    date_of_publication: Option<&'a str>,
}

fn basic_json(i: &Instance, tenant: &str) -> String {
    let basic = Basic {
        id: i.id,
        tenant_id: tenant,
        shared: false,
        hrid: i.hrid.as_deref(),
        title: &i.title,
        contributors: i
            .contributors
            .iter()
            .map(|c| BasicContributor {
                name: &c.name,
                contributor_name_type_id: c.contributor_name_type_id,
                contributor_type_id: c.contributor_type_id,
                authority_id: c.authority_id,
                primary: c.primary.unwrap_or(false),
            })
            .collect(),
        identifiers: i
            .identifiers
            .iter()
            .map(|x| BasicIdentifier { value: &x.value, identifier_type_id: x.identifier_type_id })
            .collect(),
        publication: i
            .publication
            .iter()
            .map(|p| BasicPublication {
                publisher: p.publisher.as_deref(),
                date_of_publication: p.date_of_publication.as_deref(),
            })
            .collect(),
        dates: i.dates.as_ref(),
        staff_suppress: i.staff_suppress.unwrap_or(false),
        discovery_suppress: i.discovery_suppress,
        is_bound_with: false,
        electronic_access: [],
        notes: [],
        items: [],
        holdings: [],
    };
    serde_json::to_string(&basic).expect("serialising plain data cannot fail")
}

/// The stored instance with `holdings` and `items` arrays of the stored records, spliced
/// as text: the bodies are the JSON the store returns, so nothing is re-serialised.
/// This is the `expandAll=true` rendering.
pub(crate) fn full_json(family: &Family) -> String {
    let body = family.instance_json.trim_end();
    let body = body.strip_suffix('}').unwrap_or(body);
    let mut out = String::with_capacity(
        body.len()
            + family.holdings.iter().map(|h| h.1.len() + 1).sum::<usize>()
            + family.items.iter().map(|i| i.1.len() + 1).sum::<usize>()
            + 32,
    );
    out.push_str(body);
    let empty = body.trim_end().ends_with('{');
    out.push_str(if empty { "\"holdings\":[" } else { ",\"holdings\":[" });
    for (idx, (_, json)) in family.holdings.iter().enumerate() {
        if idx > 0 {
            out.push(',');
        }
        out.push_str(json);
    }
    out.push_str("],\"items\":[");
    for (idx, (_, json)) in family.items.iter().enumerate() {
        if idx > 0 {
            out.push(',');
        }
        out.push_str(json);
    }
    out.push_str("]}");
    out
}
