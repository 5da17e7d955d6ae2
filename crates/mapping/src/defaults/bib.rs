//! MARC bibliographic → instance.

use serde_json::json;

use super::{Builder, entity, name, to};
use crate::rules::{Mapping, Replacement, Rules, Split};

/// The 5XX notes: tag, subfields, instance note type, and whether the first indicator
/// says the note is for staff only (`0`: private).
const NOTES: &[(&str, &str, &str, bool)] = &[
    ("500", "a35", "General note", false),
    ("501", "a5", "With note", false),
    ("502", "abcdgo", "Dissertation note", false),
    ("504", "ab", "Bibliography note", false),
    ("505", "agrtu", "Formatted Contents Note", false),
    ("506", "abcdefu235", "Restrictions on Access note", false),
    ("507", "ab", "Scale note for graphic material", false),
    ("508", "a", "Creation / Production Credits note", false),
    ("510", "abcux3", "Citation / References note", false),
    ("511", "a", "Participant or Performer note", false),
    ("513", "ab", "Type of report and period covered note", false),
    ("514", "abcdefghijkmuz", "Data quality note", false),
    ("515", "a", "Numbering peculiarities note", false),
    ("516", "a", "Type of computer file or data note", false),
    ("518", "adop23", "Date / time and place of an event note", false),
    ("520", "abcu23", "Summary", false),
    ("521", "ab3", "Target Audience note", false),
    ("522", "a", "Geographic Coverage note", false),
    ("524", "a23", "Preferred Citation of Described Materials note", false),
    ("525", "a", "Supplement note", false),
    ("526", "abcd5xz", "Study Program Information note", false),
    ("530", "abcdu3", "Additional Physical Form Available note", false),
    ("532", "a", "Accessibility note", false),
    ("533", "abcdefmn35", "Reproduction note", false),
    ("534", "abcefklmnoptxz3", "Original Version note", false),
    ("535", "abcdg3", "Location of Originals / Duplicates note", false),
    ("536", "abcdefgh", "Funding Information Note", false),
    ("538", "au35", "System Details note", false),
    ("540", "abcdu35", "Terms Governing Use and Reproduction note", false),
    ("541", "abcdefhno35", "Immediate Source of Acquisition note", true),
    ("542", "abcdefghijklmnopqrsu3", "Information related to Copyright Status", true),
    ("544", "abcden3", "Location of Other Archival Materials note", false),
    ("545", "abu", "Biographical or Historical Data", false),
    ("546", "ab3", "Language note", false),
    ("547", "a", "Former Title Complexity note", false),
    ("550", "a", "Issuing Body note", false),
    ("552", "abcdefghijklmnopuz", "Entity and Attribute Information note", false),
    ("555", "abcdu3", "Cumulative Index / Finding Aids notes", false),
    ("556", "az", "Information About Documentation note", false),
    ("561", "au35", "Ownership and Custodial History note", true),
    ("562", "abcde35", "Copy and Version Identification note", false),
    ("563", "au35", "Binding Information note", false),
    ("565", "abcde3", "Case File Characteristics note", false),
    ("567", "ab2", "Methodology note", false),
    ("580", "a", "Linking Entry Complexity note", false),
    ("581", "az3", "Publications About Described Materials note", false),
    ("583", "abcdefhijklnouxz235", "Action note", true),
    ("584", "ab35", "Accumulation and Frequency of Use note", false),
    ("585", "a35", "Exhibitions note", false),
    ("586", "a3", "Awards note", false),
    ("588", "a5", "Source of Description note", false),
    ("590", "a", "Local notes", true),
];

/// The 6XX subject fields: tag, subfields, subject type, and which subfields are joined
/// with a space (the heading's parts) rather than `--` (its subdivisions).
const SUBJECTS: &[(&str, &str, &str, &str)] = &[
    ("600", "abcdefghjklmnopqrstuvxyz", "Personal name", "abcdjqtfgklmnoprs"),
    ("610", "abcdefghklmnoprstuvxyz", "Corporate name", "abcdtfgklmnops"),
    ("611", "acdefghjklnpqstuvxyz", "Meeting name", "acdeqtfgklmnoprs"),
    ("630", "adefghklmnoprstvxyz", "Uniform title", "adfgklmnoprs"),
    ("647", "acdgxyzv", "Named event", ""),
    ("648", "axyzv", "Chronological term", ""),
    ("650", "abcdegvxyz", "Topical term", ""),
    ("651", "aegvxyz", "Geographic name", ""),
    ("653", "abcdefghjklmnopqrstuvxyz", "Uncontrolled", "abcdjqtfgklmnoprs"),
    ("654", "abcdefghjklmnopqrstuvxyz", "Faceted topical terms", "abcdjqtfgklmnoprs"),
    ("655", "abcvxyz", "Genre/Form", ""),
    ("656", "abcdefghjklmnopqrstuvxyz", "Occupation", "abcdjqtfgklmnoprs"),
    ("657", "abcdefghjklmnopqrstuvxyz", "Function", "abcdjqtfgklmnoprs"),
    ("658", "abcdefghjklmnopqrstuvxyz", "Curriculum objective", "abcdjqtfgklmnoprs"),
    ("662", "abcdefghjklmnopqrstuvxyz", "Hierarchical Place Name", "abcdjqtfgklmnoprs"),
    ("688", "abcdefghjklmnopqrstuvxyz", "Type of Entity Unspecified", "abcdjqtfgklmnoprs"),
];

/// The thesaurus a subject heading's second indicator names (`7`: the one `$2` names).
const THESAURI: &[(&str, &str)] = &[
    ("0", "Library of Congress Subject Headings"),
    ("1", "Library of Congress Children's and Young Adults' Subject Headings"),
    ("2", "Medical Subject Headings"),
    ("3", "National Agricultural Library subject authority file"),
    ("4", "Source not specified"),
    ("5", "Canadian Subject Headings"),
    ("6", "Répertoire de vedettes-matière"),
];

/// Names: tag, subfields of the name, name type, the subfield of a relator term, and
/// whether it is the main entry.
const NAMES: &[(&str, &str, &str, &str, bool)] = &[
    ("100", "abcdfgjklnpqtu", "Personal name", "e", true),
    ("110", "abcdfgklnptu", "Corporate name", "e", true),
    ("111", "abcdfgklnptu", "Meeting name", "j", true),
    ("700", "abcdfgjklnpqtu", "Personal name", "e", false),
    ("710", "abcdfgklnptu", "Corporate name", "e", false),
    ("711", "abcdfgklnptu", "Meeting name", "j", false),
];

/// Identifiers read one per subfield: tag, subfield, identifier type.
const IDENTIFIERS: &[(&str, &str, &str)] = &[
    ("019", "a", "Cancelled system control number"),
    ("022", "a", "ISSN"),
    ("022", "yzm", "Invalid ISSN"),
    ("022", "l", "Linking ISSN"),
];

/// Classifications: tag, subfields, classification type.
const CLASSIFICATIONS: &[(&str, &str, &str)] =
    &[("050", "a", "LC"), ("060", "a", "NLM"), ("090", "a", "LC")];

/// Series: tag and subfields.
const SERIES: &[(&str, &str)] = &[
    ("800", "abcdefghjklmnopqrstuvwx35"),
    ("810", "abcdefghklmnoprstuvwx35"),
    ("811", "acdefghjklnpqstuvwx35"),
    ("830", "adfghklmnoprstvwx35"),
];

/// Alternative titles: tag, subfields, alternative title type.
const ALTERNATIVE_TITLES: &[(&str, &str, &str)] = &[
    ("130", "anpdfghklmorst", "Uniform title"),
    ("240", "anpdfghklmors", "Uniform title"),
    ("246", "anpbfgh5", "Variant title"),
    ("247", "anpbfghx", "Former title"),
];

pub(crate) fn bib() -> Rules {
    let mut b = Builder::default();
    leader_and_control_fields(&mut b);
    identifiers(&mut b);
    classifications(&mut b);
    names(&mut b);
    titles(&mut b);
    description(&mut b);
    notes(&mut b);
    subjects(&mut b);
    links(&mut b);
    b.0
}

fn leader_and_control_fields(b: &mut Builder) {
    b.single("LDR", to("modeOfIssuanceId", "").with("set_issuance_mode_id"));
    for target in ["discoverySuppress", "staffSuppress", "deleted"] {
        b.single("LDR", to(target, "").with("set_deleted"));
    }
    b.single("001", Mapping { rules: Some(Vec::new()), ..to("hrid", "") });
    let unspecified = json!({"unspecifiedInstanceTypeCode": "zzz"});
    b.single("008", to("instanceTypeId", "").with_param("set_instance_type_id", unspecified))
        .single("008", to("source", "").constant("MARC21"))
        .single(
            "008",
            to("languages", "").with_param("char_select", json!({"from": 35, "to": 38})),
        );
    let dates = [
        ("dates.dateTypeId", None),
        ("dates.date1", Some(json!({"from": 7, "to": 11}))),
        ("dates.date2", Some(json!({"from": 11, "to": 15}))),
    ];
    for (target, chars) in dates {
        let mapping = match chars {
            None => to(target, "").with("set_date_type_id"),
            Some(chars) => to(target, "").with_param("char_select", chars),
        };
        b.single("008", Mapping { create_single_object: true, ..mapping });
    }
}

/// `identifiers[]`: a type looked up by name, and the value.
fn identifier(subfields: &str, kind: &str, value: Mapping) -> Vec<Mapping> {
    vec![
        to("identifiers.identifierTypeId", subfields)
            .with_param("set_identifier_type_id_by_name", name(kind)),
        value,
    ]
}

fn identifiers(b: &mut Builder) {
    // An LCCN and a cancelled one share one rule, an object per subfield.
    let mut lccn = identifier("a", "LCCN", to("identifiers.value", "a").with("trim"));
    lccn.extend(identifier("z", "Canceled LCCN", to("identifiers.value", "z").with("trim")));
    b.entity("010", entity(lccn).per_subfield());
    for (tag, subfields, kind) in IDENTIFIERS {
        let value = to("identifiers.value", subfields).with("trim");
        b.entity(tag, entity(identifier(subfields, kind, value)).per_subfield());
    }
    // An ISBN keeps its qualifier and terms of availability.
    for (subfields, kind, other, stop) in
        [("a", "ISBN", ["c", "q"], "z"), ("z", "Invalid ISBN", ["q", "c"], "a")]
    {
        let value = to("identifiers.value", subfields).with_param(
            "concat_subfields_by_name, remove_ending_punc,trim",
            json!({"subfieldsToConcat": other, "subfieldsToStopConcat": [stop]}),
        );
        b.entity("020", entity(identifier(subfields, kind, value)).per_subfield());
    }
    let value = to("identifiers.value", "acdqz2").joined().with("trim");
    let mut any = identifier("acdqz2", "Other standard identifier", value);
    any[0] = any[0].clone().joined();
    b.entity("024", entity(any));
    for (ind1, kind) in [("2", "ISMN"), ("1", "UPC")] {
        for (subfields, kind) in [("a", kind.to_string()), ("z", format!("Invalid {kind}"))] {
            let value = to("identifiers.value", subfields)
                .with_param("concat_subfields_by_name, trim", json!({"subfieldsToConcat": ["q"]}));
            let rule = entity(identifier(subfields, &kind, value)).when(ind1, "*");
            b.entity("024", if subfields == "z" { rule.per_subfield() } else { rule });
        }
    }
    let mut publisher = identifier(
        "abq",
        "Publisher or distributor number",
        to("identifiers.value", "abq").joined().with("trim"),
    );
    publisher[0] = publisher[0].clone().joined();
    b.entity("028", entity(publisher));
    // A 035 is an OCLC number when its value says so, else a system control number.
    let by_value = to("identifiers.identifierTypeId", "a").with_param(
        "set_identifier_type_id_by_value",
        json!({"names": ["System control number", "OCLC"], "oclc_regex": "(\\(OCoLC\\)|ocm|ocn|on).*"}),
    );
    b.entity("035", entity(vec![by_value, to("identifiers.value", "a")]).per_subfield());
    let cancelled = identifier(
        "z",
        "Cancelled system control number",
        to("identifiers.value", "z").with("trim"),
    );
    b.entity("035", entity(cancelled).per_subfield());
    for (subfields, kind) in [("a", "GPO item number"), ("z", "Cancelled GPO item number")] {
        let value = to("identifiers.value", subfields).with("remove_ending_punc, trim");
        b.entity("074", entity(identifier(subfields, kind, value)).per_subfield());
    }
    let languages = Mapping {
        sub_field_split: Some(Split { kind: "split_every".into(), value: "3".into() }),
        ..to("languages", "a")
    };
    b.entity("041", entity(vec![languages]).per_subfield());
}

fn classifications(b: &mut Builder) {
    let kind = |subfields: &str, kind: &str| {
        to("classifications.classificationTypeId", subfields)
            .with_param("set_classification_type_id", name(kind))
    };
    let number = |subfields: &str| to("classifications.classificationNumber", subfields);
    for (tag, subfields, scheme) in CLASSIFICATIONS {
        let n = number(subfields)
            .with_param("concat_subfields_by_name", json!({"subfieldsToConcat": ["b"]}));
        b.entity(tag, entity(vec![kind(subfields, scheme), n]).per_subfield());
    }
    b.entity("080", entity(vec![kind("ab", "UDC").joined(), number("ab").joined()]));
    let dewey = number("a").with_param(
        "concat_subfields_by_name, remove_substring",
        json!({"substring": "/", "subfieldsToConcat": ["b"]}),
    );
    b.entity("082", entity(vec![kind("a", "Dewey"), dewey]).per_subfield());
    b.entity("086", entity(vec![kind("az", "GDC"), number("az")]).per_subfield());
}

/// A contributor's type, by relator code (`$4`) or term, else the term as free text.
fn contributor_type(term: &str) -> Mapping {
    let subfields = format!("4{term}");
    let free_text = Mapping {
        ignore_subsequent_subfields: true,
        ..to("contributors.contributorTypeText", term)
    };
    Mapping {
        alternative_mapping: Some(Box::new(free_text)),
        ..to("contributors.contributorTypeId", &subfields).joined().with_param(
            "set_contributor_type_id_by_code_or_name",
            json!({"contributorCodeSubfield": "4", "contributorNameSubfield": term}),
        )
    }
}

fn names(b: &mut Builder) {
    for (tag, subfields, name_type, term, primary) in NAMES {
        let mut name_mapping = to("contributors.name", subfields).joined().with("trim_punctuation");
        let mut rest = vec![
            to("contributors.authorityId", "9").joined(),
            to("contributors.contributorNameTypeId", "")
                .joined()
                .with_param("set_contributor_name_type_id", name(name_type)),
            contributor_type(term),
            to("contributors.primary", "").joined().constant(if *primary {
                "true"
            } else {
                "false"
            }),
        ];
        // The main entry must have a name (`$a`); it is listed first, an added entry's last.
        let mappings = if *primary {
            name_mapping.required_subfield = vec!["a".into()];
            std::iter::once(name_mapping).chain(rest).collect()
        } else {
            rest.push(name_mapping);
            rest
        };
        b.entity(tag, entity(mappings));
    }
    // Uncontrolled names: the first indicator says personal or corporate.
    for (ind1, name_type) in
        [("1", "Personal name"), (" ", "Personal name"), ("2", "Corporate name")]
    {
        b.entity(
            "720",
            entity(vec![
                to("contributors.contributorNameTypeId", "")
                    .joined()
                    .with_param("set_contributor_name_type_id", name(name_type)),
                contributor_type("e"),
                to("contributors.primary", "").joined().constant("false"),
                to("contributors.name", "a").joined().with("trim_punctuation"),
            ])
            .when(ind1, "*"),
        );
    }
}

fn titles(b: &mut Builder) {
    b.single("245", to("title", "anpbcfghks").joined()).single(
        "245",
        to("indexTitle", "anpb").joined().with("remove_prefix_by_indicator, capitalize"),
    );
    for (tag, subfields, kind) in ALTERNATIVE_TITLES {
        b.entity(
            tag,
            entity(vec![
                to("alternativeTitles.alternativeTitleTypeId", subfields)
                    .joined()
                    .with_param("set_alternative_title_type_id", name(kind)),
                to("alternativeTitles.alternativeTitle", subfields)
                    .joined()
                    .with("remove_ending_punc, trim"),
                to("alternativeTitles.authorityId", "9"),
            ]),
        );
    }
    b.single("250", to("editions", "ab").joined().with("remove_ending_punc, trim"));
    for (tag, subfields) in SERIES {
        b.entity(
            tag,
            entity(vec![
                to("series.value", subfields).joined().with("remove_ending_punc, trim"),
                to("series.authorityId", "9"),
            ]),
        );
    }
}

fn description(b: &mut Builder) {
    for tag in ["260", "264"] {
        for (target, code, functions) in [
            ("publication.place", "a", "remove_ending_punc, trim"),
            ("publication.publisher", "b", "remove_ending_punc, trim"),
            ("publication.dateOfPublication", "c", "remove_ending_punc, trim, trim_period"),
        ] {
            b.single(tag, to(target, code).delimited(" ; ", code).with(functions));
        }
    }
    b.single("264", to("publication.role", "abc").joined().with("set_publisher_role"));
    b.single("300", to("physicalDescriptions", "abcefg3"));
    for tag in ["310", "321"] {
        b.single(tag, to("publicationFrequency", "ab").joined().with("trim_period"));
    }
    b.single("362", to("publicationRange", "az").joined().with("trim_period"));
    let unspecified = json!({"unspecifiedInstanceTypeCode": "zzz"});
    b.single(
        "336",
        Mapping {
            ignore_subsequent_fields: true,
            ignore_subsequent_subfields: true,
            ..to("instanceTypeId", "ab")
                .joined()
                .delimited("~", "ab")
                .with_param("set_instance_type_id", unspecified)
        },
    );
    b.single(
        "338",
        Mapping {
            ignore_subsequent_subfields: true,
            ..to("instanceFormatIds", "ab")
                .joined()
                .delimited("~", "ab")
                .with("set_instance_format_id")
        },
    );
    let relationship = to("electronicAccess.relationshipId", "3yuz")
        .joined()
        .with("set_electronic_access_relations_id");
    let part = |target: &str, code: &str| to(target, code).with("remove_ending_punc, trim");
    b.entity(
        "856",
        entity(vec![
            relationship,
            part("electronicAccess.uri", "u"),
            part("electronicAccess.linkText", "y"),
            part("electronicAccess.materialsSpecification", "3"),
            part("electronicAccess.publicNote", "z"),
        ]),
    );
}

fn note(tag: &str, subfields: &str, kind: &str, by_indicator: bool) -> Vec<Mapping> {
    let staff_only = if by_indicator {
        let mapping = to("notes.staffOnly", subfields).with("set_note_staff_only_via_indicator");
        // 590 reads its indicator from the field alone; the others join their subfields.
        if tag == "590" { mapping } else { mapping.joined() }
    } else {
        to("notes.staffOnly", subfields).constant("false")
    };
    vec![
        to("notes.instanceNoteTypeId", subfields)
            .joined()
            .with_param("set_note_type_id", name(kind)),
        to("notes.note", subfields).joined().with("trim_period"),
        staff_only,
    ]
}

fn notes(b: &mut Builder) {
    b.entity("255", entity(note("255", "abcdefg", "Cartographic Mathematical Data", false)));
    for (tag, subfields, kind, by_indicator) in NOTES {
        b.entity(tag, entity(note(tag, subfields, kind, *by_indicator)));
    }
}

fn subjects(b: &mut Builder) {
    for (tag, subfields, kind, spaced) in SUBJECTS {
        let mut value = to("subjects.value", subfields).joined();
        if spaced.is_empty() {
            // 655 joins its subdivisions by the 651 list, as FOLIO's rules do.
            let joined = if *tag == "655" { "aegvxyz" } else { subfields };
            value = value.delimited("--", joined);
            if *tag == "647" {
                value = value.delimited("--", "");
            }
        } else {
            value = value.delimited(" ", spaced).delimited("--", "xyzv").delimited("--", "");
        }
        let value = value.with("trim_period, trim");
        let base = vec![
            value,
            to("subjects.authorityId", "9"),
            to("subjects.typeId", subfields).joined().with_param("set_subject_type_id", name(kind)),
        ];
        b.entity(tag, entity(base.clone()));
        for (ind2, thesaurus) in THESAURI {
            let mut rule = base.clone();
            rule.push(
                to("subjects.sourceId", subfields)
                    .joined()
                    .with_param("set_subject_source_id", name(thesaurus)),
            );
            b.entity(tag, entity(rule).when("*", ind2));
        }
        let mut by_code = base;
        by_code.push(to("subjects.sourceId", "2").joined().with("set_subject_source_id_by_code"));
        b.entity(tag, entity(by_code).when("*", "7"));
    }
}

fn links(b: &mut Builder) {
    for (tag, prefix) in [("780", "precedingTitles"), ("785", "succeedingTitles")] {
        let at = |field: &str| format!("{prefix}.{field}");
        b.entity(
            tag,
            entity(vec![
                to(&at("title"), "t").joined().with("trim"),
                to(&at("isbnId"), "z")
                    .joined()
                    .with_param("set_identifier_type_id_by_name", name("ISBN")),
                to(&at("isbnValue"), "z").joined().with("trim"),
                to(&at("issnId"), "x")
                    .joined()
                    .with_param("set_identifier_type_id_by_name", name("ISSN")),
                to(&at("issnValue"), "x").joined().with("trim"),
            ]),
        );
    }
    // A field in another script (880) is mapped as the field its `$6` links to; a
    // second main entry or title becomes an added one.
    let replacements =
        [("100", "700"), ("110", "710"), ("111", "711"), ("245", "246")].map(|(source, target)| {
            Replacement { source_digits: source.into(), target_field: target.into() }
        });
    b.single(
        "880",
        Mapping {
            field_replacement_by_3_digits: true,
            field_replacement_rule: replacements.to_vec(),
            ..to("", "6")
        },
    );
}
