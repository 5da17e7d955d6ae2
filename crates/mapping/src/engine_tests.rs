//! The engine with the default rules against records built field by field, each test
//! a behaviour of FOLIO's mapping a library relies on.

use expect_test::{Expect, expect};
use marc::{Field, Leader, Record, Tag};
use serde_json::{Map, Value};

use crate::{Lookup, RecordType, ReferenceData, Target, defaults, map_record};

/// A new FOLIO tenant's reference data, from inventory's seed files.
fn reference() -> ReferenceData {
    let mut data = ReferenceData::default();
    for lookup in Lookup::ALL {
        let Some(kind) = inventory::RefKind::from_path(lookup.path()) else { continue };
        let records: Vec<Value> = serde_json::from_str(inventory::seed_records(kind)).unwrap();
        data.insert_records(lookup, &records);
    }
    data
}

/// The id of a seeded record of `kind` named `name`.
fn id(kind: inventory::RefKind, name: &str) -> String {
    let records: Vec<Value> = serde_json::from_str(inventory::seed_records(kind)).unwrap();
    let record = records.iter().find(|r| r["name"] == name);
    record.unwrap_or_else(|| panic!("no {kind:?} {name}"))["id"].as_str().unwrap().to_string()
}

fn record(leader: &str, fields: &[(&str, &str)]) -> Record {
    let mut record = Record::new(Leader::new(leader).unwrap());
    for (tag, body) in fields {
        let tag = Tag::new(tag).unwrap();
        let field = if tag.is_control() {
            Field::control(tag, *body).unwrap()
        } else {
            // "IJ$aone$btwo": indicators, then `$`-separated subfields.
            let mut chars = body.chars();
            let (i1, i2) = (chars.next().unwrap(), chars.next().unwrap());
            let rest: String = chars.collect();
            let subfields: Vec<(char, String)> = rest
                .split('$')
                .filter(|s| !s.is_empty())
                .map(|s| (s.chars().next().unwrap(), s[1..].to_string()))
                .collect();
            Field::data(tag, i1, i2, subfields.iter().map(|(c, v)| (*c, v.as_str()))).unwrap()
        };
        record.push(field);
    }
    record
}

fn instance(fields: &[(&str, &str)]) -> Map<String, Value> {
    let record = record("00000nam a2200000 a 4500", fields);
    map_record(&record, &defaults(RecordType::MarcBib), Target::Instance, &reference())
}

/// `key` of the mapped instance, with ids of reference records shown by name.
fn check(fields: &[(&str, &str)], key: &str, expect: Expect) {
    let out = instance(fields);
    let mut text = serde_json::to_string(out.get(key).unwrap_or(&Value::Null)).unwrap();
    for kind in inventory::RefKind::all() {
        let records: Vec<Value> = serde_json::from_str(inventory::seed_records(*kind)).unwrap();
        for r in records {
            if let (Some(id), Some(name)) = (r["id"].as_str(), r["name"].as_str()) {
                text = text.replace(id, &format!("<{name}>"));
            }
        }
    }
    expect.assert_eq(&text);
}

#[test]
fn titles_and_control_fields() {
    let fields = [
        ("001", "in00000012"),
        ("008", "850520s1985    nyu           000 1 eng d"),
        ("245", "14$aThe adventures of Tom Sawyer /$cMark Twain."),
    ];
    let out = instance(&fields);
    assert_eq!(out["hrid"], "in00000012");
    assert_eq!(out["title"], "The adventures of Tom Sawyer / Mark Twain.");
    assert_eq!(out["indexTitle"], "Adventures of Tom Sawyer /", "four nonfiling characters go");
    assert_eq!(out["source"], "MARC");
    assert_eq!(out["languages"], serde_json::json!(["eng"]));
    assert_eq!(out["deleted"], false);
    check(&fields, "modeOfIssuanceId", expect![[r#""<single unit>""#]]);
    check(&fields, "instanceTypeId", expect![[r#""<unspecified>""#]]);
    check(
        &fields,
        "dates",
        expect![[
            r#"{"date1":"1985","date2":null,"dateTypeId":"<Single known date/probable date>"}"#
        ]],
    );
}

#[test]
fn contributors_with_relators() {
    check(
        &[
            ("100", "1 $aTwain, Mark,$d1835-1910,$eauthor."),
            ("700", "1 $aKent, Rockwell,$d1882-1971,$4ill"),
            ("710", "2 $aHarper & Brothers,$epublisher of nothing"),
        ],
        "contributors",
        expect![[
            r#"[{"contributorNameTypeId":"<Personal name>","contributorTypeId":"<Author>","name":"Twain, Mark, 1835-1910","primary":true},{"contributorNameTypeId":"<Personal name>","contributorTypeId":"<Illustrator>","name":"Kent, Rockwell, 1882-1971","primary":false},{"contributorNameTypeId":"<Corporate name>","contributorTypeText":"publisher of nothing","name":"Harper & Brothers","primary":false}]"#
        ]],
    );
}

#[test]
fn identifiers_by_type() {
    check(
        &[
            ("010", "  $a   85012345 "),
            ("020", "  $a0451526538$q(paperback)$cUSD 4.95$z0451520000"),
            ("035", "  $a(OCoLC)12345678"),
            ("035", "  $a(DLC)85012345"),
            ("022", "0 $a0028-0836$l0028-0836"),
        ],
        "identifiers",
        expect![[
            r#"[{"identifierTypeId":"<LCCN>","value":"85012345"},{"identifierTypeId":"<ISBN>","value":"0451526538 USD 4.95 (paperback)"},{"identifierTypeId":"<Invalid ISBN>","value":"0451520000"},{"identifierTypeId":"<OCLC>","value":"(OCoLC)12345678"},{"identifierTypeId":"<System control number>","value":"(DLC)85012345"},{"identifierTypeId":"<ISSN>","value":"0028-0836"},{"identifierTypeId":"<Linking ISSN>","value":"0028-0836"}]"#
        ]],
    );
}

#[test]
fn subjects_name_their_thesaurus() {
    check(
        &[
            ("650", " 0$aMississippi River$vFiction."),
            ("650", " 7$aGarçons$xConduite.$2rvm"),
            ("600", "10$aTwain, Mark,$d1835-1910$vBiography."),
            ("655", " 4$aAdventure stories."),
        ],
        "subjects",
        expect![[
            r#"[{"sourceId":"<Library of Congress Subject Headings>","typeId":"<Topical term>","value":"Mississippi River--Fiction"},{"sourceId":"<Répertoire de vedettes-matière>","typeId":"<Topical term>","value":"Garçons--Conduite"},{"sourceId":"<Library of Congress Subject Headings>","typeId":"<Personal name>","value":"Twain, Mark, 1835-1910--Biography"},{"sourceId":"<Source not specified>","typeId":"<Genre/form>","value":"Adventure stories"}]"#
        ]],
    );
}

#[test]
fn notes_publication_and_links() {
    let fields = [
        ("264", " 1$aNew York :$bHarper,$c1985."),
        ("300", "  $a274 p. :$bill. ;$c21 cm."),
        ("500", "  $aIncludes index."),
        ("590", "0 $aLocal copy signed."),
        ("856", "40$uhttp://example.org/tom$zFull text"),
        ("856", "42$zno link"),
        ("041", "1 $aengfre$hger"),
        ("336", "  $atext$btxt$2rdacontent"),
        ("338", "  $avolume$bnc$2rdacarrier"),
    ];
    check(
        &fields,
        "publication",
        expect![[
            r#"[{"dateOfPublication":"1985","place":"New York","publisher":"Harper","role":"Publication"}]"#
        ]],
    );
    check(&fields, "physicalDescriptions", expect![[r#"["274 p. : ill. ; 21 cm."]"#]]);
    check(
        &fields,
        "notes",
        expect![[
            r#"[{"instanceNoteTypeId":"<General note>","note":"Includes index","staffOnly":false},{"instanceNoteTypeId":"<Local notes>","note":"Local copy signed","staffOnly":true}]"#
        ]],
    );
    check(
        &fields,
        "electronicAccess",
        expect![[
            r#"[{"publicNote":"Full text","relationshipId":"<Resource>","uri":"http://example.org/tom"}]"#
        ]],
    );
    check(&fields, "languages", expect![[r#"["eng","fre"]"#]]);
    check(&fields, "instanceTypeId", expect![[r#""<text>""#]]);
    check(&fields, "instanceFormatIds", expect![[r#"["<unmediated -- volume>"]"#]]);
}

#[test]
fn a_field_in_another_script_maps_as_an_added_entry() {
    check(
        &[
            ("100", "1 $6880-01$aTolstoy, Leo,$d1828-1910."),
            ("880", "1 $6100-01/(N$aТолстой, Лев,$d1828-1910."),
        ],
        "contributors",
        expect![[
            r#"[{"contributorNameTypeId":"<Personal name>","name":"Tolstoy, Leo, 1828-1910","primary":true},{"contributorNameTypeId":"<Personal name>","name":"Толстой, Лев, 1828-1910","primary":false}]"#
        ]],
    );
}

#[test]
fn a_deleted_record_is_suppressed() {
    let record = record("00000dam a2200000 a 4500", &[("245", "00$aGone.")]);
    let out = map_record(&record, &defaults(RecordType::MarcBib), Target::Instance, &reference());
    assert_eq!(
        (&out["deleted"], &out["discoverySuppress"], &out["staffSuppress"]),
        (&Value::Bool(true), &Value::Bool(true), &Value::Bool(true))
    );
}

#[test]
fn holdings_from_an_mfhd() {
    let record = record(
        "00000nx  a2200000zn 4500",
        &[
            ("001", "ho00000001"),
            ("852", "0 $bE$hPS1305$i.A1 1985$tc.2"),
            ("866", " 0$av.1-10 (1990-2000)$zSome issues missing"),
        ],
    );
    let out =
        map_record(&record, &defaults(RecordType::MarcHoldings), Target::Holdings, &reference());
    assert_eq!(out["hrid"], "ho00000001");
    assert_eq!(out["callNumber"], "PS1305 .A1 1985");
    assert_eq!(out["copyNumber"], "c.2");
    assert_eq!(
        out["callNumberTypeId"],
        id(inventory::RefKind::CallNumberType, "Library of Congress classification")
    );
    assert_eq!(out["holdingsTypeId"], id(inventory::RefKind::HoldingsType, "Monograph"));
    assert_eq!(out["holdingsStatements"][0]["statement"], "v.1-10 (1990-2000)");
    assert_eq!(out["holdingsStatements"][0]["note"], "Some issues missing");
    assert_eq!(out["sourceId"], crate::MARC_HOLDINGS_SOURCE_ID);
}

/// Every record of the shared files maps, and what the default rules take from the
/// fields everyone checks agrees with the fields, read here independently.
#[test]
fn real_records_map_as_their_fields_say() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data/marc/");
    let mut records = Vec::new();
    for file in ["100.mrc", "61PRINT160129.mrc", "CornellFOLIOExemplars.mrc"] {
        let bytes = std::fs::read(format!("{dir}{file}")).unwrap();
        for record in marc::Reader::new(bytes.as_slice()).lenient() {
            records.push(record.unwrap().0);
        }
    }
    let xml = std::fs::read(format!("{dir}UChicago_SampleBibs.xml")).unwrap();
    for record in marc::marcxml::LenientReader::new(xml.as_slice()) {
        records.push(record.unwrap().0);
    }
    assert!(records.len() > 400, "{}", records.len());
    let rules = defaults(RecordType::MarcBib);
    let reference = reference();
    let isbn = id(inventory::RefKind::IdentifierType, "ISBN");
    for record in &records {
        let out = map_record(record, &rules, Target::Instance, &reference);
        let hrid = record.control_value("001").map(|v| v.replace('|', " "));
        assert_eq!(out.get("hrid").and_then(Value::as_str), hrid.as_deref());
        // A title is set by each 245 in turn: the last one stands, as in FOLIO.
        if let Some(field) = record.fields_with_tag("245").last() {
            let wanted = "anpbcfghks";
            let title: Vec<&str> =
                field.subfields().filter(|s| wanted.contains(s.code)).map(|s| s.value).collect();
            let title = title.join(" ").replace('|', " ");
            let title = title.strip_suffix('\\').unwrap_or(&title);
            if !title.is_empty() {
                assert_eq!(out["title"], title, "{hrid:?}");
            }
        }
        let isbns = record
            .fields_with_tag("020")
            .flat_map(|f| f.subfield_values('a').collect::<Vec<_>>())
            .count();
        let mapped = out["identifiers"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|i| i["identifierTypeId"] == isbn.as_str())
            .count();
        assert_eq!(mapped, isbns, "{hrid:?}");
        let names = record.fields().iter().filter(|f| {
            ["100", "110", "111", "700", "710", "711"].contains(&f.tag().as_str())
                && f.subfield('a').is_some()
        });
        let contributors = out["contributors"].as_array().unwrap();
        assert!(contributors.len() >= names.count(), "{hrid:?}");
        assert!(contributors.iter().all(|c| c["name"].as_str().is_some_and(|n| !n.is_empty())));
        assert_eq!(out["source"], "MARC");
    }
}

#[test]
fn an_empty_subfield_leaves_out_its_object_not_the_record() {
    check(
        &[("050", "00$a$aPQ6629.A7"), ("020", "  $a$z0451520000")],
        "classifications",
        expect![[r#"[{"classificationNumber":"PQ6629.A7","classificationTypeId":"<LC>"}]"#]],
    );
}

#[test]
fn authority_headings_join_their_subdivisions() {
    let record = record(
        "00000nz  a2200000n  4500",
        &[
            ("001", "sh 85029552"),
            ("010", "  $ash 85029552 "),
            ("150", "  $aComputers$xHistory$yTwentieth century"),
            ("450", "  $aCalculating machines$xHistory"),
            ("450", "  $aElectronic brains"),
            ("550", "  $wg$aMachine theory"),
        ],
    );
    let out =
        map_record(&record, &defaults(RecordType::MarcAuthority), Target::Authority, &reference());
    assert_eq!(out["topicalTerm"], "Computers--History--Twentieth century");
    assert_eq!(
        out["sftTopicalTerm"],
        serde_json::json!(["Calculating machines--History", "Electronic brains"])
    );
    assert_eq!(out["saftTopicalTerm"], serde_json::json!(["Machine theory"]));
    assert_eq!(out["identifiers"][0]["value"], "sh 85029552", "010 $a, as FOLIO keeps it");
}
