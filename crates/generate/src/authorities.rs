//! MARC 21 authority records to FOLIO authority records, for loading real authority
//! files (the Library of Congress subject authorities in the shared data set) and for
//! tests.
//!
//! Quire's own mapping, close to FOLIO's default MARC-to-authority rules: the 1XX is
//! the authorised heading, each 4XX a see-from tracing (`sft*`), each 5XX a see-also-
//! from tracing (`saft*`); a name heading with a title (`$t`) is a `*NameTitle`; the
//! LCCN in 010 `$a`, without spaces, is the natural id and an `LCCN` identifier, and
//! 010 `$z` a `Canceled LCCN`; 008/11 is the subject heading system. Does not map notes
//! (Quire has no authority note types yet) or related-heading links (`$w`).

use inventory::Authority;
use inventory::model::{AuthorityIdentifier, HeadingKind};
use uuid::Uuid;

/// FOLIO's standard `LCCN` identifier type (the one in a new tenant's reference data).
pub const LCCN_TYPE: Uuid = Uuid::from_u128(0xc858e4f2_2b6b_4385_842b_60732ee14abb);
/// FOLIO's standard `Canceled LCCN` identifier type.
pub const CANCELED_LCCN_TYPE: Uuid = Uuid::from_u128(0xc858e4f2_2b6b_4385_842b_60532ee34abb);

/// The heading kind of a 1XX/4XX/5XX field's last two digits, with whether the field
/// carries a title.
fn kind(tag_tail: &str, has_title: bool) -> Option<HeadingKind> {
    Some(match (tag_tail, has_title) {
        ("00", false) => HeadingKind::PersonalName,
        ("00", true) => HeadingKind::PersonalNameTitle,
        ("10", false) => HeadingKind::CorporateName,
        ("10", true) => HeadingKind::CorporateNameTitle,
        ("11", false) => HeadingKind::MeetingName,
        ("11", true) => HeadingKind::MeetingNameTitle,
        ("30", _) => HeadingKind::UniformTitle,
        ("47", _) => HeadingKind::NamedEvent,
        ("48", _) => HeadingKind::ChronTerm,
        ("50", _) => HeadingKind::TopicalTerm,
        ("51", _) => HeadingKind::GeographicName,
        ("55", _) => HeadingKind::GenreTerm,
        ("62", _) => HeadingKind::MediumPerfTerm,
        ("80", _) => HeadingKind::GeneralSubdivision,
        ("81", _) => HeadingKind::GeographicSubdivision,
        ("82", _) => HeadingKind::ChronSubdivision,
        ("85", _) => HeadingKind::FormSubdivision,
        _ => return None,
    })
}

/// A heading's text: the subfields that name the entity joined by spaces, subject
/// subdivisions (`$v $x $y $z`) joined by `--`; control subfields (`$w`, `$0`–`$9`)
/// left out.
fn heading_text(field: &marc::Field) -> String {
    let mut out = String::new();
    for subfield in field.subfields() {
        let value = subfield.value.trim();
        if value.is_empty() || subfield.code == 'w' || subfield.code.is_ascii_digit() {
            continue;
        }
        if matches!(subfield.code, 'v' | 'x' | 'y' | 'z') {
            out.push_str("--");
        } else if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(value);
    }
    out
}

/// The FOLIO authority of a MARC authority record (`source` `MARC`, no id), or `None`
/// when the record has neither an 010 `$a` nor an 001 to be its natural id.
pub fn authority_from_marc(record: &marc::Record) -> Option<Authority> {
    let lccn = record.field("010").and_then(|f| f.subfield('a')).map(str::trim);
    let natural_id: String = match lccn.filter(|l| !l.is_empty()) {
        Some(lccn) => lccn.split_whitespace().collect(),
        None => record.control_value("001")?.trim().to_string(),
    };
    let mut authority = Authority {
        source: "MARC".to_string(),
        natural_id,
        subject_headings: record
            .control_value("008")
            .and_then(|f| f.chars().nth(11))
            .filter(|c| c.is_ascii_alphanumeric())
            .map(String::from),
        ..Authority::default()
    };
    if let Some(field) = record.field("010") {
        for (code, type_id) in [('a', LCCN_TYPE), ('z', CANCELED_LCCN_TYPE)] {
            for value in field.subfield_values(code).map(str::trim).filter(|v| !v.is_empty()) {
                authority.identifiers.push(AuthorityIdentifier {
                    value: value.to_string(),
                    identifier_type_id: type_id,
                });
            }
        }
    }
    for field in record.iter() {
        let tag = field.tag();
        let tag = tag.as_str();
        let (group, tail) = tag.split_at(1);
        if !matches!(group, "1" | "4" | "5") {
            continue;
        }
        let Some(kind) = kind(tail, field.subfield('t').is_some()) else { continue };
        let text = heading_text(field);
        if text.is_empty() {
            continue;
        }
        let (authorized, sft, saft) = authority.headings_mut(kind);
        match group {
            "1" if authorized.is_none() => *authorized = Some(text),
            "1" => {}
            "4" => sft.push(text),
            _ => saft.push(text),
        }
    }
    Some(authority)
}

#[cfg(test)]
mod tests {
    use marc::{Field, Leader, Record, Tag};

    use super::{LCCN_TYPE, authority_from_marc};

    #[test]
    fn maps_headings_tracings_and_lccn() {
        let mut record = Record::new(Leader::new("00000nz  a2200000n  4500").unwrap());
        let data = |tag: &str, subfields: &[(char, &str)]| {
            Field::data(Tag::new(tag).unwrap(), ' ', '0', subfields.iter().copied()).unwrap()
        };
        record.push(
            Field::control(Tag::new("008").unwrap(), "860211i| anannbabn          |a ana      ")
                .unwrap(),
        );
        record.push(data("010", &[('a', "sh 85000001 ")]));
        record.push(data("150", &[('a', "Computers"), ('x', "Law and legislation")]));
        record.push(data("450", &[('a', "Computer law")]));
        record.push(data("550", &[('w', "g"), ('a', "Law")]));
        record
            .push(data("400", &[('a', "Babbage, Charles,"), ('d', "1791-1871."), ('t', "Works")]));
        let authority = authority_from_marc(&record).unwrap();
        assert_eq!(authority.natural_id, "sh85000001");
        assert_eq!(authority.subject_headings.as_deref(), Some("a"));
        assert_eq!(authority.identifiers[0].identifier_type_id, LCCN_TYPE);
        assert_eq!(authority.identifiers[0].value, "sh 85000001");
        assert_eq!(authority.topical_term.as_deref(), Some("Computers--Law and legislation"));
        assert_eq!(authority.sft_topical_term, ["Computer law"]);
        assert_eq!(authority.saft_topical_term, ["Law"]);
        assert_eq!(authority.sft_personal_name_title, ["Babbage, Charles, 1791-1871. Works"]);
    }
}
