//! MARC authority → authority record.

use serde_json::json;

use super::{Builder, entity, name, to};
use crate::rules::{Mapping, Rules};

/// Headings (1XX), see-from (4XX, `sft`) and see-also-from (5XX, `saft`) tracings: tag
/// digits after the first, the heading kind, and its subfields in each block.
const HEADINGS: &[(&str, &str, &str, &str, &str)] = &[
    ("30", "UniformTitle", "adfghklmnoprstvxyz", "adfghklmnoprstvxyz", "adfghiklmnoprstvxyz4"),
    ("47", "NamedEvent", "acdgvxyz", "acdgvxyz", "acdgvxyz"),
    ("48", "ChronTerm", "avxyz", "avxyz", "avxyz"),
    ("50", "TopicalTerm", "abvxyz", "abgivxyz45", "abgivxyz45"),
    ("51", "GeographicName", "agvxyz", "agivxyz45", "agivxyz45"),
    ("55", "GenreTerm", "avxyz", "aivxyz45", "aivxyz45"),
    ("62", "MediumPerfTerm", "a", "a", "a"),
    ("80", "GeneralSubdivision", "vxyz", "vxyz", "vxyz"),
    ("81", "GeographicSubdivision", "vxyz", "vxyz", "vxyz"),
    ("82", "ChronSubdivision", "vxyz", "vxyz", "vxyz"),
    ("85", "FormSubdivision", "vxyz", "vxyz", "vxyz"),
];

/// Names, which also head name/title entries (with `$t`): tag digits, kind, subfields
/// of the name, and of the name/title in the heading and in the tracings.
const NAMES: &[(&str, &str, &str, &str, &str)] = &[
    ("00", "PersonalName", "abcdgqvxyz", "abcdfklmnopqrst", "abcdfiklmnopqrst"),
    ("10", "CorporateName", "abcdgnvxyz", "abcdfklmnopqrst", "abcdfiklmnopqrst"),
    ("11", "MeetingName", "acdnqgvxyz", "abcdfklmnopqrst", "abcdfiklmnopqrst"),
];

pub(crate) fn authority() -> Rules {
    let mut b = Builder::default();
    let kept = |m: Mapping| Mapping { rules: Some(Vec::new()), ..m };
    let type_by_code = |subfields: &str, code: &str| {
        to("identifiers.identifierTypeId", subfields)
            .with_param("set_authority_identifier_type_id_by_code", json!({ "code": code }))
    };
    b.single("001", kept(to("identifiers.value", "")))
        .single("001", type_by_code("", "control-number"))
        .single(
            "008",
            to("subjectHeadings", "").with_param("char_select", json!({"from": 11, "to": 12})),
        );
    let mut lccn = entity(vec![
        type_by_code("a", "lccn"),
        to("identifiers.value", "a").with("trim"),
        type_by_code("z", "canceled-lccn"),
        to("identifiers.value", "z").with("trim"),
    ])
    .per_subfield();
    lccn.keep_trailing_backslash = true;
    b.entity("010", lccn);
    let other = "acdqz012";
    b.entity(
        "024",
        entity(vec![
            type_by_code(other, "other-standard-identifier").joined(),
            kept(to("identifiers.value", other).joined()),
        ]),
    );
    b.entity(
        "035",
        entity(vec![type_by_code("az", "system-control-number"), to("identifiers.value", "az")])
            .per_subfield(),
    );
    for (block, prefix) in [('1', ""), ('4', "sft"), ('5', "saft")] {
        let field = |kind: &str| {
            if prefix.is_empty() {
                let mut chars = kind.chars();
                let first = chars.next().map(|c| c.to_ascii_lowercase()).unwrap_or_default();
                format!("{first}{}", chars.as_str())
            } else {
                format!("{prefix}{kind}")
            }
        };
        for (digits, kind, name_subfields, heading_title, tracing_title) in NAMES {
            let tag = format!("{block}{digits}");
            let mut heading = to(&field(kind), name_subfields);
            heading.exclusive_subfield = vec!["t".into()];
            let title = if block == '1' { heading_title } else { tracing_title };
            let mut name_title = to(&field(&format!("{kind}Title")), title);
            name_title.required_subfield = vec!["t".into()];
            // Only the personal name heading joins its subfields before its rules.
            if block == '1' && *digits == "00" {
                heading = heading.joined();
                name_title = name_title.joined();
            }
            b.single(&tag, kept(heading)).single(&tag, kept(name_title));
        }
        for (digits, kind, heading, see_from, see_also) in HEADINGS {
            let subfields = match block {
                '1' => heading,
                '4' => see_from,
                _ => see_also,
            };
            b.single(&format!("{block}{digits}"), kept(to(&field(kind), subfields)));
        }
    }
    b.entity(
        "667",
        entity(vec![
            to("notes.noteTypeId", "a")
                .with_param("set_authority_note_type_id", name("Nonpublic general note")),
            to("notes.note", "a").with("trim"),
        ]),
    );
    b.single("999", kept(to("id", "i")));
    b.0
}
