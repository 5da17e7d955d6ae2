//! The functions a rule's conditions name (`"trim_period, trim"`,
//! `set_identifier_type_id_by_name`), with FOLIO's meaning: each takes the value so far
//! and gives the next. A lookup that finds nothing gives what FOLIO's gives, often its
//! placeholder id, so a record maps the same as in FOLIO and the write reports it.
//!
//! `custom` (a JavaScript snippet in FOLIO) is not run: Quire has no script engine, and
//! a condition that needs one does not hold.

use serde_json::Value;

use crate::reference::{Lookup, ReferenceData};

/// FOLIO's placeholder for a type its lookup could not find.
pub const STUB_ID: &str = "fe19bae4-da28-472b-be90-d442e2428ead";

/// A data field as the functions see it.
pub(crate) struct Field<'a> {
    pub ind1: char,
    pub ind2: char,
    pub subfields: &'a [(char, String)],
}

/// What a function may read besides the value.
pub(crate) struct Context<'a> {
    pub field: Option<&'a Field<'a>>,
    pub parameter: Option<&'a Value>,
    pub reference: &'a ReferenceData,
}

impl Context<'_> {
    fn param(&self, name: &str) -> Option<&str> {
        self.parameter?.get(name)?.as_str()
    }

    fn param_int(&self, name: &str) -> Option<usize> {
        let value = self.parameter?.get(name)?;
        value.as_u64().map(|n| n as usize).or_else(|| value.as_str()?.parse().ok())
    }
}

/// Runs one function. An unknown function, or one that cannot run here (it needs a
/// data field and has none), gives the value unchanged, as FOLIO's runner does when a
/// function fails.
pub(crate) fn run(name: &str, value: &str, cx: &Context<'_>) -> String {
    apply(&name.trim().to_ascii_lowercase(), value, cx).unwrap_or_else(|| value.to_string())
}

fn apply(name: &str, value: &str, cx: &Context<'_>) -> Option<String> {
    let refs = cx.reference;
    let by_name = |lookup: Lookup, stub: &str| -> String {
        match cx.param("name") {
            Some(name) if refs.has(lookup) => {
                refs.by_name(lookup, name).map_or_else(|| stub.to_string(), str::to_string)
            }
            _ => stub.to_string(),
        }
    };
    Some(match name {
        "char_select" => {
            let (from, to) = (cx.param_int("from"), cx.param_int("to"));
            let chars: Vec<char> = value.chars().collect();
            match (from, to) {
                (Some(from), Some(to)) if chars.len() > to && from <= to => {
                    chars[from..to].iter().collect()
                }
                (_, Some(_)) => String::new(),
                _ => value.to_string(),
            }
        }
        "remove_ending_punc" => match value.chars().last() {
            Some(last) if ";:,/+= ".contains(last) => value[..value.len() - last.len_utf8()].into(),
            _ => value.to_string(),
        },
        "trim" => value.trim().to_string(),
        "trim_period" => value.strip_suffix('.').unwrap_or(value).to_string(),
        "trim_punctuation" => trim_punctuation(value),
        "remove_substring" => match cx.param("substring") {
            Some(sub) if !sub.is_empty() => value.replace(sub, ""),
            _ => value.to_string(),
        },
        "remove_prefix_by_indicator" => {
            let field = cx.field?;
            let skip = field.ind2.to_digit(10).unwrap_or(0) as usize;
            let chars: Vec<char> = value.chars().collect();
            if 0 < skip && skip < chars.len() {
                let prefix: String = chars[..skip].iter().collect();
                value.replace(&prefix, "")
            } else {
                value.to_string()
            }
        }
        "capitalize" => {
            let mut chars = value.chars();
            match chars.next() {
                Some(first) => first.to_uppercase().chain(chars).collect(),
                None => String::new(),
            }
        }
        "concat_subfields_by_name" => concat_subfields(value, cx)?,
        "set_date_type_id" => {
            let code = value.chars().nth(6);
            if value.chars().count() < 7 || !refs.has(Lookup::InstanceDateTypes) {
                return Some(String::new());
            }
            let fallback =
                refs.by_name(Lookup::InstanceDateTypes, "No attempt to code").unwrap_or("");
            code.and_then(|c| refs.by_code(Lookup::InstanceDateTypes, &c.to_string()))
                .unwrap_or(fallback)
                .to_string()
        }
        "set_publisher_role" => {
            let field = cx.field?;
            match field.ind2 {
                '0' => "Production",
                '1' => "Publication",
                '2' => "Distribution",
                '3' => "Manufacture",
                _ => "",
            }
            .to_string()
        }
        "set_instance_format_id" => {
            let code = last_part(value);
            refs.by_code(Lookup::InstanceFormats, code).unwrap_or("").to_string()
        }
        "set_classification_type_id" => by_name(Lookup::ClassificationTypes, STUB_ID),
        "set_contributor_name_type_id" => by_name(Lookup::ContributorNameTypes, STUB_ID),
        "set_alternative_title_type_id" => by_name(Lookup::AlternativeTitleTypes, STUB_ID),
        "set_identifier_type_id_by_name" => by_name(Lookup::IdentifierTypes, STUB_ID),
        "set_subject_type_id" => by_name(Lookup::SubjectTypes, ""),
        "set_subject_source_id" => by_name(Lookup::SubjectSources, ""),
        "set_authority_note_type_id" => by_name(Lookup::AuthorityNoteTypes, STUB_ID),
        "set_holdings_note_type_id" => by_name(Lookup::HoldingsNoteTypes, STUB_ID),
        "set_subject_source_id_by_code" => {
            refs.by_code(Lookup::SubjectSources, value).unwrap_or("").to_string()
        }
        "set_contributor_type_id" => {
            refs.by_code(Lookup::ContributorTypes, value).unwrap_or("").to_string()
        }
        "set_contributor_type_text" => {
            let id = refs.by_code(Lookup::ContributorTypes, value);
            let entry =
                refs.list(Lookup::ContributorTypes).iter().find(|e| Some(e.id.as_str()) == id);
            entry.map_or_else(|| value.to_string(), |e| e.name.clone())
        }
        "set_contributor_type_id_by_code_or_name" => contributor_type(cx)?,
        "set_instance_type_id" => {
            let unspecified = cx.param("unspecifiedInstanceTypeCode").unwrap_or("");
            if !refs.has(Lookup::InstanceTypes) {
                return Some(STUB_ID.to_string());
            }
            let wanted = if cx.field.is_some() { last_part(value) } else { unspecified };
            let find = |key: &str| {
                refs.by_name(Lookup::InstanceTypes, key)
                    .or_else(|| refs.by_code(Lookup::InstanceTypes, key))
            };
            find(wanted).or_else(|| find(unspecified)).unwrap_or(STUB_ID).to_string()
        }
        "set_electronic_access_relations_id" => {
            let field = cx.field?;
            if !refs.has(Lookup::ElectronicAccessRelationships) {
                return Some(STUB_ID.to_string());
            }
            let name = match field.ind2 {
                '0' => "resource",
                '1' => "version of resource",
                '2' => "related resource",
                _ => "no information provided",
            };
            refs.by_name(Lookup::ElectronicAccessRelationships, name).unwrap_or(STUB_ID).to_string()
        }
        "set_identifier_type_id_by_value" => {
            let names: Vec<&str> = cx
                .parameter
                .and_then(|p| p.get("names"))
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            if names.is_empty() || !refs.has(Lookup::IdentifierTypes) {
                return Some(STUB_ID.to_string());
            }
            let oclc = cx.param("oclc_regex").is_some_and(|regex| full_match(regex, value));
            let name = if oclc { names.get(1).copied().unwrap_or(names[0]) } else { names[0] };
            refs.by_name(Lookup::IdentifierTypes, name).unwrap_or(STUB_ID).to_string()
        }
        "set_note_type_id" => {
            let Some(name) = cx.param("name") else { return Some(STUB_ID.to_string()) };
            if !refs.has(Lookup::InstanceNoteTypes) {
                return Some(STUB_ID.to_string());
            }
            refs.by_name(Lookup::InstanceNoteTypes, name)
                .or_else(|| refs.by_name(Lookup::InstanceNoteTypes, "General note"))
                .unwrap_or(STUB_ID)
                .to_string()
        }
        "set_heading_type_by_name" => cx.param("name").unwrap_or_default().to_string(),
        "set_deleted" => (value.chars().nth(5)? == 'd').to_string(),
        "set_issuance_mode_id" => {
            let symbol = value.chars().nth(7)?;
            if !refs.has(Lookup::IssuanceModes) {
                return Some(String::new());
            }
            let mode = match symbol {
                'a' | 'c' | 'd' | 'm' => "single unit",
                'b' | 's' => "serial",
                'i' => "integrating resource",
                _ => "unspecified",
            };
            refs.by_name(Lookup::IssuanceModes, mode)
                .or_else(|| refs.by_name(Lookup::IssuanceModes, "unspecified"))
                .unwrap_or("")
                .to_string()
        }
        "set_note_staff_only_via_indicator" => (cx.field?.ind1 == '0').to_string(),
        "set_holdings_type_id" => {
            let symbol = value.chars().nth(6)?;
            let name = match symbol {
                'v' => "multi-part monograph",
                'x' => "monograph",
                'y' => "serial",
                _ => "unknown",
            };
            refs.by_name(Lookup::HoldingsTypes, name).unwrap_or("").to_string()
        }
        "set_call_number_type_id" => {
            let field = cx.field?;
            let name = match field.ind1 {
                '0' => "library of congress classification",
                '1' => "dewey decimal classification",
                '2' => "national library of medicine classification",
                '3' => "superintendent of documents classification",
                '4' => "shelving control number",
                '5' => "title",
                '6' => "shelved separately",
                '7' => "source specified in subfield $2",
                '8' => "other scheme",
                _ => return Some(String::new()),
            };
            refs.by_name(Lookup::CallNumberTypes, name).unwrap_or("").to_string()
        }
        "set_permanent_location_id" => {
            cx.field?;
            if !refs.has(Lookup::Locations) {
                return Some(STUB_ID.to_string());
            }
            // FOLIO compares location codes exactly.
            refs.list(Lookup::Locations)
                .iter()
                .find(|l| l.code.as_deref() == Some(value))
                .map_or(STUB_ID, |l| l.id.as_str())
                .to_string()
        }
        "set_authority_identifier_type_id_by_code" => {
            let Some(code) = cx.param("code") else { return Some(STUB_ID.to_string()) };
            if !refs.has(Lookup::AuthorityIdentifierTypes) {
                return Some(STUB_ID.to_string());
            }
            refs.by_code(Lookup::AuthorityIdentifierTypes, code).unwrap_or("").to_string()
        }
        _ => return None,
    })
}

/// The part after the last `~`: a 336 or 338 reads `$a~$b` and looks up the code.
fn last_part(value: &str) -> &str {
    value.rsplit('~').next().unwrap_or(value)
}

/// A name's ending punctuation goes, except after an initial ("Smith, John A.") or a
/// hyphen (an open date, "1950-"); ",." after an initial becomes ".".
fn trim_punctuation(value: &str) -> String {
    let text = value.trim();
    let chars: Vec<char> = text.chars().collect();
    let n = chars.len();
    let line_char =
        |c: char| c != '\n' && c != '\r' && c != '\u{85}' && c != '\u{2028}' && c != '\u{2029}';
    let initial_then_period =
        n >= 3 && chars[n - 1] == '.' && line_char(chars[n - 2]) && java_space(chars[n - 3]);
    if initial_then_period || text.ends_with('-') {
        return text.to_string();
    }
    let initial_comma_period = n >= 4
        && chars[n - 1] == '.'
        && chars[n - 2] == ','
        && line_char(chars[n - 3])
        && java_space(chars[n - 4]);
    if initial_comma_period {
        let kept: String = chars[..n - 2].iter().collect();
        return format!("{kept}.");
    }
    if text.ends_with('.') || text.ends_with(',') {
        return text[..text.len() - 1].to_string();
    }
    text.to_string()
}

/// Java's `\s`: ASCII whitespace only.
fn java_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\u{0B}' | '\u{0C}' | '\r')
}

/// The value with the listed subfields that follow it in the field appended, each after
/// a space, up to the next subfield of its own code or of a stop code.
fn concat_subfields(value: &str, cx: &Context<'_>) -> Option<String> {
    let field = cx.field?;
    let subfields = field.subfields;
    let codes = |key: &str| -> Vec<char> {
        cx.parameter
            .and_then(|p| p.get(key))
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).filter_map(|s| s.chars().next()).collect())
            .unwrap_or_default()
    };
    let start = subfields.iter().position(|(_, data)| data == value).unwrap_or(0);
    let mut stop = codes("subfieldsToStopConcat");
    stop.extend(subfields.get(start).map(|(code, _)| *code));
    let end = (start + 1..subfields.len())
        .find(|&i| stop.contains(&subfields[i].0))
        .unwrap_or(subfields.len());
    let window = subfields.get(start..end).unwrap_or(&[]);
    let mut out = value.to_string();
    for code in codes("subfieldsToConcat") {
        for (_, data) in window.iter().filter(|(c, _)| *c == code) {
            out.push(' ');
            out.push_str(data);
        }
    }
    Some(out)
}

/// A contributor's type: by relator code (`$4`) first, then by relator term (`$e`,
/// `$j`), ignoring a term's ending punctuation.
fn contributor_type(cx: &Context<'_>) -> Option<String> {
    let field = cx.field?;
    let refs = cx.reference;
    let code_sf = cx.param("contributorCodeSubfield").and_then(|s| s.chars().next());
    let name_sf = cx.param("contributorNameSubfield").and_then(|s| s.chars().next());
    let (Some(code_sf), Some(name_sf)) = (code_sf, name_sf) else { return Some(String::new()) };
    if !refs.has(Lookup::ContributorTypes) {
        return Some(String::new());
    }
    for (_, code) in field.subfields.iter().filter(|(c, _)| *c == code_sf) {
        if let Some(id) = refs.by_code(Lookup::ContributorTypes, code) {
            return Some(id.to_string());
        }
    }
    for (_, term) in field.subfields.iter().filter(|(c, _)| *c == name_sf) {
        let term = term.trim();
        let bare = term.strip_suffix(['.', ',', ';']).unwrap_or(term);
        let found = refs
            .by_name(Lookup::ContributorTypes, bare)
            .or_else(|| refs.by_name(Lookup::ContributorTypes, &format!("{bare}.")));
        if let Some(id) = found {
            return Some(id.to_string());
        }
    }
    Some(String::new())
}

/// Whether `regex` matches all of `value` (Java's `String.matches`). A pattern the
/// regex crate cannot read matches nothing.
fn full_match(regex: &str, value: &str) -> bool {
    use std::cell::RefCell;
    use std::collections::HashMap;
    // A rule set names a handful of patterns; each is compiled once per thread.
    thread_local! {
        static COMPILED: RefCell<HashMap<String, Option<regex::Regex>>> = RefCell::default();
    }
    COMPILED.with(|compiled| {
        let mut compiled = compiled.borrow_mut();
        let pattern = compiled
            .entry(regex.to_string())
            .or_insert_with(|| regex::Regex::new(&format!("^(?:{regex})$")).ok());
        pattern.as_ref().is_some_and(|r| r.is_match(value))
    })
}

/// Splits a value into pieces of `size` characters (`041 $a` "engfre").
pub(crate) fn split_every(value: &str, size: usize) -> Vec<String> {
    if size == 0 {
        return vec![value.to_string()];
    }
    let chars: Vec<char> = value.chars().collect();
    chars.chunks(size).map(|c| c.iter().collect()).collect()
}

/// FOLIO's last step on every mapped value: `|` (MARC's fill character) becomes a
/// space and one trailing backslash goes, unless the rule keeps it.
pub(crate) fn escape(value: &str, keep_trailing_backslash: bool) -> String {
    let value = match value.strip_suffix('\\') {
        Some(rest) if !keep_trailing_backslash => rest,
        _ => value,
    };
    value.replace('|', " ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_keep_initials_and_open_dates() {
        assert_eq!(trim_punctuation("Twain, Mark,"), "Twain, Mark");
        assert_eq!(trim_punctuation("Smith, John A."), "Smith, John A.");
        assert_eq!(trim_punctuation("Smith, John A,."), "Smith, John A.");
        assert_eq!(trim_punctuation("Jones, Ann, 1950-"), "Jones, Ann, 1950-");
        assert_eq!(trim_punctuation("Library of Congress."), "Library of Congress");
    }

    #[test]
    fn values_split_and_escape_as_folio() {
        assert_eq!(split_every("engfreger", 3), ["eng", "fre", "ger"]);
        assert_eq!(escape("a|b\\", false), "a b");
        assert_eq!(escape("89012345\\", true), "89012345\\");
        assert!(full_match("(\\(OCoLC\\)|ocm|ocn|on).*", "(OCoLC)12345"));
        assert!(!full_match("(\\(OCoLC\\)|ocm|ocn|on).*", "(DLC)12345"));
    }
}
