//! Applies a rule set to one MARC record, giving the record it maps to as JSON.
//!
//! The semantics are FOLIO's engine's (data-import-processing-core's `Processor`), so
//! that a library's own rules, written for FOLIO, map the same here:
//! - the leader and each control field run their rules on the whole value; each data
//!   field runs the rules of its tag in order, those with `indicators` only on fields
//!   they match (a rule without indicators is skipped when one with them matches);
//! - a rule reads the listed subfields (all of them when it lists none), runs its
//!   conditions on each value or, with `applyRulesOnConcatenatedData`, once on the
//!   values joined (by the `subFieldDelimiter` groups, else a space);
//! - an `entity` fills one object of a list from several rules; rules of one field
//!   that are not an entity share the object the first of them began; with
//!   `entityPerRepeatedSubfield`, each occurrence of the subfield makes its own object.
//!
//! One pass over the record's fields, no I/O: mapping a record takes microseconds.

use std::collections::HashSet;

use serde_json::{Map, Value};

use crate::functions::{self, Context, Field};
use crate::reference::ReferenceData;
use crate::rules::{Condition, FieldRule, Indicators, Mapping, Rule, Rules};
use crate::shape::{self, Path, Shape};

/// What a record maps to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    Instance,
    Holdings,
    Authority,
}

impl Target {
    /// The properties of the record that mapping may fill (the top-level ones).
    pub fn properties(self) -> impl Iterator<Item = &'static str> {
        self.shape().iter().map(|(name, _)| *name)
    }

    fn shape(self) -> &'static [(&'static str, Shape)] {
        match self {
            Target::Instance => shape::INSTANCE,
            Target::Holdings => shape::HOLDINGS,
            Target::Authority => shape::AUTHORITY,
        }
    }
}

/// FOLIO's id of the holdings source "MARC".
pub const MARC_HOLDINGS_SOURCE_ID: &str = "036ee84a-6afd-4c3c-9ad3-4a12ab875f59";

/// Maps `record` by `rules` to a record of `target`'s shape, with FOLIO's finishing
/// touches (an instance's `source` is `MARC`; links without a URI are dropped, ...).
/// Properties no rule filled are absent; lists are present, possibly empty.
pub fn map_record(
    record: &marc::Record,
    rules: &Rules,
    target: Target,
    reference: &ReferenceData,
) -> Map<String, Value> {
    let mut mapper = Mapper {
        target,
        shape: target.shape(),
        rules,
        reference,
        leader: record.leader().as_str().to_string(),
        out: Map::new(),
        new_object: true,
        current: None,
        separator: None,
        mapped_tags: HashSet::new(),
        read_subfields: HashSet::new(),
        keep_trailing_backslash: false,
    };
    for (name, shape) in mapper.shape {
        if matches!(shape, Shape::Texts | Shape::Objects(_)) {
            mapper.out.insert((*name).to_string(), Value::Array(Vec::new()));
        }
    }
    let leader = mapper.leader.clone();
    mapper.control_field("LDR", &leader);
    for field in record.fields().iter().filter(|f| f.is_control()) {
        mapper.control_field(field.tag().as_str(), field.value().unwrap_or_default());
    }
    for field in record.fields().iter().filter(|f| !f.is_control()) {
        let subfields: Vec<(char, String)> =
            field.subfields().map(|s| (s.code, s.value.to_string())).collect();
        let data = Field { ind1: field.ind1(), ind2: field.ind2(), subfields: &subfields };
        let tag = mapper.replaced_tag(field.tag().as_str(), &data);
        mapper.data_field(&tag, &data);
    }
    let mut out = mapper.out;
    finish(target, &mut out);
    out
}

/// Where the object a rule fills is: a list property and the index in it.
type Slot = Option<(&'static str, usize)>;

struct Mapper<'a> {
    target: Target,
    shape: &'static [(&'static str, Shape)],
    rules: &'a Rules,
    reference: &'a ReferenceData,
    leader: String,
    out: Map<String, Value>,
    /// The next object-list value begins a new object (FOLIO's `createNewComplexObj`).
    new_object: bool,
    /// The object the current field's rules fill.
    current: Slot,
    /// How groups of subfields are joined, from a delimiter group listing no subfields;
    /// it carries over to later rules, as FOLIO's does.
    separator: Option<String>,
    /// Tags whose first field was mapped by an `ignoreSubsequentFields` rule.
    mapped_tags: HashSet<String>,
    /// Subfield codes read by an `ignoreSubsequentSubfields` rule of this entry.
    read_subfields: HashSet<char>,
    keep_trailing_backslash: bool,
}

impl Mapper<'_> {
    /// The leader or a control field: each rule runs on the whole value.
    fn control_field(&mut self, tag: &str, value: &str) {
        let Some(rules) = self.rules.get(tag) else { return };
        self.new_object = true;
        self.current = None;
        for rule in rules {
            let FieldRule::Single(mapping) = rule else { continue };
            let cx = self.context(None, None);
            let data = run_rules(value, mapping.rules.as_deref(), &cx, &self.leader, false);
            if data.is_empty() {
                continue;
            }
            let Some(path) = shape::resolve(self.shape, &mapping.target) else { continue };
            if mapping.create_single_object {
                self.set_single(path, data);
            } else {
                let mut current = self.current;
                self.build(path, &data, &mut current);
                self.current = current;
            }
            self.new_object = false;
        }
    }

    /// An `880`'s tag is the one its `$6` links to, or a replacement the rules name
    /// (`100` → `700`): a field in another script maps as an added entry.
    fn replaced_tag(&self, tag: &str, field: &Field<'_>) -> String {
        let Some(rules) = self.rules.get(tag) else { return tag.to_string() };
        let mut tag = tag.to_string();
        for rule in rules {
            let FieldRule::Single(mapping) = rule else { continue };
            if !mapping.field_replacement_by_3_digits {
                continue;
            }
            for code in mapping.subfield.iter().filter_map(|s| s.chars().next()) {
                let Some((_, data)) = field.subfields.iter().find(|(c, _)| *c == code) else {
                    continue;
                };
                let Some(digits) = data.get(..3) else { continue };
                tag = mapping
                    .field_replacement_rule
                    .iter()
                    .find(|r| r.source_digits == digits)
                    .map_or_else(|| digits.to_string(), |r| r.target_field.clone());
            }
        }
        tag
    }

    fn data_field(&mut self, tag: &str, field: &Field<'_>) {
        let Some(rules) = self.rules.get(tag) else { return };
        self.new_object = true;
        self.current = None;
        let with_indicators: Vec<&Indicators> = rules.iter().filter_map(indicators).collect();
        for rule in rules {
            if !with_indicators.is_empty() {
                match indicators(rule) {
                    Some(own) if !own.matches(field.ind1, field.ind2) => continue,
                    None if with_indicators.iter().any(|i| i.claims(field.ind1, field.ind2)) => {
                        continue;
                    }
                    _ => {}
                }
            }
            let first_only = match rule {
                FieldRule::Entity(e) => e.ignore_subsequent_fields,
                FieldRule::Single(m) => m.ignore_subsequent_fields,
            };
            if first_only && !self.mapped_tags.insert(tag.to_string()) {
                continue;
            }
            self.entry(tag, rule, field);
        }
    }

    /// One rule of a field: a single mapping, or an entity of several.
    fn entry(&mut self, tag: &str, rule: &FieldRule, field: &Field<'_>) {
        let (mappings, entity, per_subfield) = match rule {
            FieldRule::Entity(e) => {
                self.keep_trailing_backslash = e.keep_trailing_backslash;
                (e.entity.as_slice(), true, e.entity_per_repeated_subfield)
            }
            FieldRule::Single(m) => {
                self.keep_trailing_backslash = false;
                (std::slice::from_ref(m), false, false)
            }
        };
        let mut slots: Vec<Slot> = Vec::new();
        for mapping in mappings {
            let present = |code: &String| {
                code.chars()
                    .next()
                    .is_some_and(|code| field.subfields.iter().any(|(c, _)| *c == code))
            };
            let missing_required = !mapping.required_subfield.iter().all(present);
            let has_exclusive = mapping.exclusive_subfield.iter().any(present);
            if missing_required || has_exclusive {
                self.read_subfields.clear();
                return;
            }
            let heading;
            let mapping = match authority_heading(self.target, tag, mapping) {
                Some(with_delimiters) => {
                    heading = with_delimiters;
                    &heading
                }
                None => mapping,
            };
            self.mapping(mapping, field, entity && per_subfield, &mut slots);
        }
        if entity {
            self.new_object = true;
        }
        self.read_subfields.clear();
    }

    /// One target from a data field's subfields.
    fn mapping(
        &mut self,
        mapping: &Mapping,
        field: &Field<'_>,
        per_subfield: bool,
        slots: &mut Vec<Slot>,
    ) {
        let Some(path) = shape::resolve(self.shape, &mapping.target) else { return };
        let wanted: Vec<char> = mapping.subfield.iter().filter_map(|s| s.chars().next()).collect();
        let mut groups = Groups::new(mapping, &mut self.separator);
        let split;
        let subfields: &[(char, String)] = match &mapping.sub_field_split {
            Some(s) if s.kind.eq_ignore_ascii_case("split_every") => {
                let size = s.value.parse().unwrap_or(0);
                split = field
                    .subfields
                    .iter()
                    .flat_map(|(c, v)| functions::split_every(v, size).into_iter().map(|p| (*c, p)))
                    .collect::<Vec<_>>();
                &split
            }
            _ => field.subfields,
        };
        let handled = |code: char| wanted.is_empty() || wanted.contains(&code);
        if !subfields.iter().any(|(c, _)| handled(*c)) {
            return;
        }
        let post = mapping.apply_rules_on_concatenated_data;
        let expanded = Field { ind1: field.ind1, ind2: field.ind2, subfields };
        for (i, (code, value)) in subfields.iter().enumerate() {
            if !handled(*code) {
                continue;
            }
            if mapping.ignore_subsequent_subfields && !self.read_subfields.insert(*code) {
                continue;
            }
            // A rule that lists no subfields reads none: only its conditions give it a
            // value, over an empty one.
            if !wanted.contains(code) {
                continue;
            }
            if slots.len() <= i {
                slots.resize(i + 1, None);
            }
            let data = if post {
                value.clone()
            } else {
                let cx = self.context(Some(&expanded), None);
                run_rules(
                    value,
                    mapping.rules.as_deref(),
                    &cx,
                    &self.leader,
                    self.keep_trailing_backslash,
                )
            };
            groups.push(*code, &data, per_subfield);
            if per_subfield {
                self.new_object = slots[i].is_none();
                let joined = groups.joined(self.separator.as_deref());
                let mut slot = slots[i];
                self.fill(path, &joined, &mut slot);
                slots[i] = slot;
            }
        }
        if per_subfield {
            return;
        }
        let mut data = groups.joined(self.separator.as_deref());
        if post {
            let cx = self.context(Some(&expanded), None);
            data = run_rules(
                &data,
                mapping.rules.as_deref(),
                &cx,
                &self.leader,
                self.keep_trailing_backslash,
            );
        }
        let mut current = self.current;
        if self.fill(path, &data, &mut current) {
            self.new_object = false;
        }
        self.current = current;
        if data.is_empty()
            && let Some(alternative) = &mapping.alternative_mapping
        {
            self.read_subfields.clear();
            self.mapping(alternative, field, false, slots);
        }
    }

    fn context<'c>(
        &'c self,
        field: Option<&'c Field<'c>>,
        parameter: Option<&'c Value>,
    ) -> Context<'c> {
        Context { field, parameter, reference: self.reference }
    }

    /// Stores a non-empty value at `path`; says whether it did.
    fn fill(&mut self, path: Path, data: &str, slot: &mut Slot) -> bool {
        !data.is_empty() && self.build(path, data, slot)
    }

    /// Puts `data` at `path`: sets a property, adds to a list, or fills the object of a
    /// list that `slot` names (beginning a new one when `new_object`).
    fn build(&mut self, path: Path, data: &str, slot: &mut Slot) -> bool {
        match (path.shape, path.inner) {
            (Shape::Text | Shape::Bool, None) => {
                self.out.insert(path.field.to_string(), value(path.shape, data));
                true
            }
            (Shape::Texts, None) => {
                push(&mut self.out, path.field, Value::String(data.to_string()))
            }
            (Shape::Objects(_), Some((inner, inner_shape))) => {
                let Some(Value::Array(list)) = self.out.get_mut(path.field) else { return false };
                let index = if self.new_object {
                    list.push(Value::Object(Map::new()));
                    *slot = Some((path.field, list.len() - 1));
                    list.len() - 1
                } else {
                    match *slot {
                        Some((field, index)) if field == path.field => index,
                        _ => return false,
                    }
                };
                let Some(Value::Object(object)) = list.get_mut(index) else { return false };
                match inner_shape {
                    Shape::Texts => push(object, inner, Value::String(data.to_string())),
                    shape => {
                        object.insert(inner.to_string(), value(shape, data));
                        true
                    }
                }
            }
            // A single object is filled only by `createSingleObject` rules.
            _ => false,
        }
    }

    /// `createSingleObject`: the one object at `path.field` gets the property (a blank
    /// value as null).
    fn set_single(&mut self, path: Path, data: String) {
        let Some((inner, _)) = path.inner else {
            self.out.insert(path.field.to_string(), Value::String(data));
            return;
        };
        let object =
            self.out.entry(path.field.to_string()).or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(object) = object {
            let value = if data.trim().is_empty() { Value::Null } else { Value::String(data) };
            object.insert(inner.to_string(), value);
        }
    }
}

/// An authority heading or tracing (1XX, 4XX, 5XX) joins its subdivisions (`$v $x $y
/// $z`) with `--` and its other subfields with spaces, as FOLIO's engine makes it do
/// whatever the rules say: "Twain, Mark, 1835-1910--Biography".
fn authority_heading(target: Target, tag: &str, mapping: &Mapping) -> Option<Mapping> {
    const SUBDIVISIONS: [&str; 4] = ["x", "y", "z", "v"];
    if target != Target::Authority
        || !matches!(tag.as_bytes().first(), Some(b'1' | b'4' | b'5'))
        || !mapping.subfield.iter().any(|s| SUBDIVISIONS.contains(&s.as_str()))
    {
        return None;
    }
    let others = mapping.subfield.iter().filter(|s| !SUBDIVISIONS.contains(&s.as_str()));
    let delimiter = |value: &str, subfields: Vec<String>| crate::rules::Delimiter {
        value: value.to_string(),
        subfields,
    };
    Some(Mapping {
        sub_field_delimiter: vec![
            delimiter(" ", others.cloned().collect()),
            delimiter("--", SUBDIVISIONS.iter().map(|s| (*s).to_string()).collect()),
            delimiter("--", Vec::new()),
        ],
        ..mapping.clone()
    })
}

/// The joined subfields of one mapping: each delimiter group's values joined by its
/// delimiter, the groups by the separator; subfields in no group join the first group
/// with a space.
struct Groups {
    buffers: Vec<String>,
    /// (code, group, delimiter)
    members: Vec<(char, usize, String)>,
}

impl Groups {
    fn new(mapping: &Mapping, separator: &mut Option<String>) -> Groups {
        let mut buffers = Vec::new();
        let mut members = Vec::new();
        for (group, delimiter) in mapping.sub_field_delimiter.iter().enumerate() {
            buffers.push(String::new());
            if delimiter.subfields.is_empty() {
                *separator = Some(delimiter.value.clone());
            }
            for code in delimiter.subfields.iter().filter_map(|s| s.chars().next()) {
                members.retain(|(c, _, _)| *c != code);
                members.push((code, group, delimiter.value.clone()));
            }
        }
        if buffers.is_empty() {
            buffers.push(String::new());
        }
        Groups { buffers, members }
    }

    fn push(&mut self, code: char, data: &str, per_subfield: bool) {
        match self.members.iter().find(|(c, _, _)| *c == code) {
            Some((_, group, delimiter)) => {
                let buffer = &mut self.buffers[*group];
                if !buffer.is_empty() {
                    buffer.push_str(delimiter);
                }
                buffer.push_str(data);
            }
            None => {
                let buffer = &mut self.buffers[0];
                if per_subfield {
                    buffer.clear();
                }
                if !buffer.is_empty() {
                    buffer.push(' ');
                }
                buffer.push_str(data);
            }
        }
    }

    fn joined(&self, separator: Option<&str>) -> String {
        let mut out = String::new();
        for buffer in self.buffers.iter().filter(|b| !b.is_empty()) {
            if !out.is_empty() {
                out.push_str(separator.unwrap_or(" "));
            }
            out.push_str(buffer);
        }
        out
    }
}

fn indicators(rule: &FieldRule) -> Option<&Indicators> {
    match rule {
        FieldRule::Entity(e) => e.indicators.as_ref(),
        FieldRule::Single(m) => m.indicators.as_ref(),
    }
}

impl Indicators {
    /// Both indicators match (`*`: any).
    fn matches(&self, ind1: char, ind2: char) -> bool {
        let eq = |rule: &str, data: char| rule == "*" || rule.chars().eq(std::iter::once(data));
        eq(&self.ind1, ind1) && eq(&self.ind2, ind2)
    }

    /// Whether this rule's indicators take the field from the rules without any. FOLIO
    /// reads its test as "the first indicator equals, or the first is `*` and the second
    /// matches", and so does Quire, so that rule sets map the same.
    fn claims(&self, ind1: char, ind2: char) -> bool {
        let first = self.ind1.chars().eq(std::iter::once(ind1));
        let second = self.ind2 == "*" || self.ind2.chars().eq(std::iter::once(ind2));
        first || (self.ind1 == "*" && second)
    }
}

/// Runs a mapping's rules over a value, then FOLIO's escaping. Rules run in order; a
/// rule with a constant whose conditions hold gives the constant and ends the run.
fn run_rules(
    value: &str,
    rules: Option<&[Rule]>,
    cx: &Context<'_>,
    leader: &str,
    keep_trailing_backslash: bool,
) -> String {
    let Some(rules) = rules else { return functions::escape(value, keep_trailing_backslash) };
    let original = value;
    let mut current = value.to_string();
    for rule in rules {
        let (data, done) = run_rule(rule, &current, original, cx, leader);
        current = data;
        if done {
            break;
        }
    }
    functions::escape(&current, keep_trailing_backslash)
}

fn run_rule(
    rule: &Rule,
    value: &str,
    original: &str,
    cx: &Context<'_>,
    leader: &str,
) -> (String, bool) {
    let mut current = value.to_string();
    let mut met = true;
    let mut custom = false;
    for condition in &rule.conditions {
        custom |= condition.function_names().any(|f| f.eq_ignore_ascii_case("custom"));
        let (data, holds) =
            run_condition(condition, &current, original, cx, leader, rule.value.is_some(), custom);
        current = data;
        met = holds;
    }
    match &rule.value {
        Some(constant) if met && !custom => (constant.clone(), true),
        _ => (current, false),
    }
}

/// Runs a condition's functions in turn; when it does not hold, the value goes back to
/// what the rules began with.
fn run_condition(
    condition: &Condition,
    value: &str,
    original: &str,
    cx: &Context<'_>,
    leader: &str,
    has_constant: bool,
    custom: bool,
) -> (String, bool) {
    let mut current = value.to_string();
    let cx = Context {
        field: cx.field,
        parameter: condition.parameter.as_ref(),
        reference: cx.reference,
    };
    for function in condition.function_names() {
        if condition.leader {
            current = leader.to_string();
        }
        if function.eq_ignore_ascii_case("custom") {
            // A script Quire cannot run: the condition does not hold.
            return (original.to_string(), false);
        }
        let result = functions::run(function, &current, &cx);
        if let Some(expected) = &condition.value
            && result != *expected
            && !custom
        {
            return (original.to_string(), false);
        }
        if !has_constant {
            current = result;
        }
    }
    (current, true)
}

fn value(shape: Shape, data: &str) -> Value {
    match shape {
        Shape::Bool => Value::Bool(data.eq_ignore_ascii_case("true")),
        _ => Value::String(data.to_string()),
    }
}

fn push(object: &mut Map<String, Value>, field: &str, value: Value) -> bool {
    match object.entry(field.to_string()).or_insert_with(|| Value::Array(Vec::new())) {
        Value::Array(list) => {
            list.push(value);
            true
        }
        _ => false,
    }
}

/// What FOLIO's mappers do after the rules.
fn finish(target: Target, out: &mut Map<String, Value>) {
    retain(out, "electronicAccess", |e| has_text(e, "uri"));
    match target {
        Target::Instance => {
            out.insert("source".into(), Value::String("MARC".into()));
            // An object a rule began but whose value was empty (`050 $a` with nothing in
            // it) lacks what the instance schema requires of it. FOLIO fails the whole
            // record for that; Quire leaves the empty object out and keeps the record.
            for (list, required) in [
                ("identifiers", "value"),
                ("classifications", "classificationNumber"),
                ("contributors", "name"),
                ("notes", "note"),
                ("subjects", "value"),
                ("series", "value"),
                ("alternativeTitles", "alternativeTitle"),
            ] {
                retain(out, list, |o| has_text(o, required));
            }
            split_joined_ids(out, "identifiers", "identifierTypeId", "value");
            split_joined_ids(
                out,
                "classifications",
                "classificationTypeId",
                "classificationNumber",
            );
            if let Some(Value::Array(languages)) = out.get_mut("languages") {
                let mut seen = HashSet::new();
                languages.retain(|l| seen.insert(l.to_string()));
            }
            for list in ["precedingTitles", "succeedingTitles"] {
                retain(out, list, |t| has_text(t, "title"));
                if let Some(Value::Array(titles)) = out.get_mut(list) {
                    titles.iter_mut().for_each(linked_title_identifiers);
                }
            }
        }
        Target::Holdings => {
            out.insert("sourceId".into(), Value::String(MARC_HOLDINGS_SOURCE_ID.into()));
        }
        Target::Authority => {}
    }
}

fn has_text(object: &Value, key: &str) -> bool {
    object.get(key).and_then(Value::as_str).is_some_and(|s| !s.is_empty())
}

fn retain(out: &mut Map<String, Value>, list: &str, keep: impl Fn(&Value) -> bool) {
    if let Some(Value::Array(items)) = out.get_mut(list) {
        items.retain(keep);
    }
}

/// Rules that read a repeated subfield without `entityPerRepeatedSubfield` join the
/// type ids and values of its occurrences with spaces; FOLIO splits them into one
/// object each, the last keeping the rest of the value.
fn split_joined_ids(out: &mut Map<String, Value>, list: &str, type_key: &str, value_key: &str) {
    let Some(Value::Array(items)) = out.get_mut(list) else { return };
    let mut added = Vec::new();
    for item in items.iter_mut() {
        let Some(types) = item.get(type_key).and_then(Value::as_str) else { continue };
        let ids: Vec<&str> = types.split(' ').collect();
        if ids.len() < 2 || !ids.iter().all(|id| uuid_like(id)) {
            continue;
        }
        let ids: Vec<String> = ids.into_iter().map(str::to_string).collect();
        let values: Vec<String> = item
            .get(value_key)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .split(' ')
            .map(str::to_string)
            .collect();
        if values.len() > 1 {
            item[type_key] = Value::String(ids[0].clone());
            item[value_key] = Value::String(values[0].clone());
        }
        for (i, id) in ids.iter().enumerate().skip(1) {
            if values.len() > i {
                let value =
                    if i == ids.len() - 1 { values[i..].join(" ") } else { values[i].clone() };
                let mut object = Map::new();
                object.insert(type_key.to_string(), Value::String(id.clone()));
                object.insert(value_key.to_string(), Value::String(value));
                added.push(Value::Object(object));
            }
        }
    }
    items.extend(added);
}

fn uuid_like(s: &str) -> bool {
    let parts: Vec<&str> = s.split('-').collect();
    parts.len() == 5
        && parts.iter().zip([8, 4, 4, 4, 12]).all(|(p, n)| {
            p.len() == n && p.chars().all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c))
        })
}

/// A preceding or succeeding title's ISBN and ISSN become its `identifiers`.
fn linked_title_identifiers(title: &mut Value) {
    let Value::Object(title) = title else { return };
    let mut identifiers = Vec::new();
    for (id_key, value_key) in [("isbnId", "isbnValue"), ("issnId", "issnValue")] {
        let Some(Value::String(type_id)) = title.remove(id_key) else {
            title.remove(value_key);
            continue;
        };
        if let Some(Value::String(value)) = title.remove(value_key)
            && !type_id.is_empty()
        {
            let mut identifier = Map::new();
            identifier.insert("identifierTypeId".into(), Value::String(type_id));
            identifier.insert("value".into(), Value::String(value));
            identifiers.push(Value::Object(identifier));
        }
    }
    title.insert("identifiers".into(), Value::Array(identifiers));
}
