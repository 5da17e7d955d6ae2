//! The codecs over the shared MARC data (`shared/data/marc`, read in place):
//! valid records round-trip, malformed files get clear errors, and the
//! strict/lenient split is what the crate's README says it is.

use std::path::{Path, PathBuf};

use expect_test::{Expect, expect};

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/marc")
}

fn read(file: &str) -> Vec<u8> {
    let path = data_dir().join(file);
    std::fs::read(&path).unwrap_or_else(|e| {
        panic!("{}: {e} (the shared data must sit beside the repository)", path.display())
    })
}

/// Every record survives MARCXML and MARC-in-JSON unchanged, and ISO 2709
/// up to the leader positions the writer computes.
fn check_round_trips(file: &str, record: &marc::Record) {
    let xml = marc::marcxml::to_string(record);
    assert_eq!(&marc::marcxml::from_str(&xml).unwrap(), record, "{file}: MARCXML round trip");
    let json = marc::json::to_string(record);
    assert_eq!(&marc::json::from_str(&json).unwrap(), record, "{file}: JSON round trip");
    let value = marc::json::to_value(record);
    assert_eq!(&marc::json::from_value(&value).unwrap(), record, "{file}: JSON value round trip");
    let bytes = match marc::encode(record) {
        Ok(bytes) => bytes,
        // MARCXML records may be longer than ISO 2709 allows (99,999 bytes).
        Err(marc::Error::Unencodable { .. })
            if record
                .fields()
                .iter()
                .map(|f| f.subfields().map(|s| s.value.len() + 2).sum::<usize>())
                .sum::<usize>()
                > 90_000 =>
        {
            return;
        }
        Err(e) => panic!("{file}: {e}"),
    };
    let again = marc::decode(&bytes).unwrap();
    assert_eq!(again.fields(), record.fields(), "{file}: ISO 2709 round trip");
    assert_eq!(marc::encode(&again).unwrap(), bytes, "{file}: ISO 2709 encoding is stable");
}

#[test]
fn utf8_files_round_trip_byte_for_byte() {
    let cases = [
        ("100.mrc", 100),
        ("2500.mrc", 2500),
        ("5000.mrc", 5000),
        ("CornellFOLIOExemplars.mrc", 62),
        ("pymarc-test/diacritic.dat", 1),
        ("pymarc-test/multi_isbn.dat", 1),
        ("pymarc-test/utf8_errors.dat", 1),
        ("pymarc-test/utf8_with_leader_flag.dat", 1),
    ];
    for (file, n_records) in cases {
        let input = read(file);
        let records: Vec<marc::Record> =
            marc::Reader::new(input.as_slice()).map(|r| r.unwrap()).collect();
        assert_eq!(records.len(), n_records, "{file}");
        let mut writer = marc::Writer::new(Vec::new());
        for record in &records {
            writer.write(record).unwrap();
            check_round_trips(file, record);
        }
        assert!(
            writer.into_inner().unwrap() == input,
            "{file}: ISO 2709 output differs from the input"
        );

        // The whole file as one MARCXML collection and back.
        let mut xml = marc::marcxml::Writer::new(Vec::new());
        for record in &records {
            xml.write(record).unwrap();
        }
        let xml = xml.finish().unwrap();
        let reread: Vec<marc::Record> =
            marc::marcxml::Reader::new(xml.as_slice()).map(|r| r.unwrap()).collect();
        assert!(reread == records, "{file}: MARCXML collection round trip");
    }
}

/// The MARC-8 rule: records are converted to Unicode on read and written as
/// UTF-8 with leader/09 `a`; that output is a fixed point (it decodes to the
/// same record and encodes to the same bytes). `yaz.rs` checks the bytes
/// against `yaz-marcdump -f MARC-8 -t UTF-8 -l 9=97 -o marc`.
#[test]
fn marc8_files_convert_to_utf8() {
    let cases = [
        ("61PRINT160129.mrc", 246, 245),
        ("pymarc-test/alphatag.dat", 1, 1),
        ("pymarc-test/marc.dat", 20, 20),
        ("pymarc-test/marc8.dat", 1, 1),
        ("pymarc-test/one.dat", 1, 1),
        ("pymarc-test/test.dat", 10, 10),
        ("pymarc-test/testunimarc.dat", 1, 1),
    ];
    for (file, n_records, n_strict) in cases {
        let input = read(file);
        let results: Vec<_> = marc::Reader::new(input.as_slice()).collect();
        assert_eq!(results.len(), n_records, "{file}");
        let records: Vec<marc::Record> = results.into_iter().filter_map(Result::ok).collect();
        assert_eq!(records.len(), n_strict, "{file}");
        for record in &records {
            assert_eq!(record.leader().coding_scheme(), 'a');
            let utf8 = marc::encode(record).unwrap();
            assert_eq!(utf8[9], b'a');
            let again = marc::decode(&utf8).unwrap();
            assert_eq!(
                again.fields(),
                record.fields(),
                "{file}: the UTF-8 output decodes to the same record"
            );
            // The same leader but for the positions the writer computes (length, base address).
            let (a, b) = (again.leader().as_str(), record.leader().as_str());
            assert_eq!((&a[5..12], &a[17..]), (&b[5..12], &b[17..]), "{file}");
            check_round_trips(file, record);
        }
    }
    // Characters from the G1 (ANSEL) set and combining marks, in Unicode order.
    let records: Vec<marc::Record> =
        marc::Reader::new(read("61PRINT160129.mrc").as_slice()).filter_map(Result::ok).collect();
    let names: Vec<&str> = records
        .iter()
        .filter_map(|r| r.field("100")?.subfield('a'))
        .filter(|a| !a.is_ascii())
        .take(3)
        .collect();
    expect![[r#"["Ge\u{301}bler, Carlo,", "Ni\u{301} Gha\u{301}irbhi\u{301}, Ro\u{301}isi\u{301}n,", "Ija\u{308}s, Miia,"]"#]].assert_eq(&format!("{names:?}"));
}

#[test]
fn marcxml_and_json_files() {
    let xml = read("UChicago_SampleBibs.xml");
    let strict: Vec<_> = marc::marcxml::Reader::new(xml.as_slice()).collect();
    assert_eq!(strict.len(), 62);
    let errors: Vec<String> =
        strict.iter().filter_map(|r| r.as_ref().err()).map(|e| e.to_string()).collect();
    assert_eq!(errors.len(), 10, "{errors:#?}");
    assert!(errors.iter().all(|e| e.contains("field 880: indicator \"\u{FFFD}\"")), "{errors:#?}");
    for record in strict.iter().filter_map(|r| r.as_ref().ok()) {
        check_round_trips("UChicago_SampleBibs.xml", record);
    }
    let lenient: Vec<_> =
        marc::marcxml::LenientReader::new(xml.as_slice()).map(|r| r.unwrap()).collect();
    assert_eq!(lenient.len(), 62);
    for (record, _) in &lenient {
        check_round_trips("UChicago_SampleBibs.xml", record);
    }

    let batch_xml: Vec<marc::Record> =
        marc::marcxml::Reader::new(read("pymarc-test/batch.xml").as_slice())
            .map(|r| r.unwrap())
            .collect();
    let batch_json =
        marc::json::from_str_array(&String::from_utf8(read("pymarc-test/batch.json")).unwrap())
            .unwrap();
    assert_eq!(batch_xml.len(), 2);
    assert_eq!(batch_json, batch_xml, "batch.json and batch.xml hold the same records");

    let utf8_xml =
        marc::marcxml::from_str(&String::from_utf8(read("pymarc-test/utf8.xml")).unwrap()).unwrap();
    check_round_trips("utf8.xml", &utf8_xml);

    // one.json is one.dat (a MARC-8 record with only ASCII), leader/09 aside.
    let one_json = marc::json::from_slice(&read("pymarc-test/one.json")).unwrap();
    let one_dat = marc::decode(&read("pymarc-test/one.dat")).unwrap();
    assert_eq!(one_json.fields(), one_dat.fields());
}

/// Reads a file strictly and leniently and summarises: records read, errors
/// (all of them, strict), warnings (first three, lenient).
fn survey(file: &str, expect: Expect) {
    let input = read(file);
    let mut out = String::new();
    let xml = file.ends_with(".xml");
    let strict: Vec<Result<marc::Record, marc::Error>> = if xml {
        marc::marcxml::Reader::new(input.as_slice()).collect()
    } else {
        marc::Reader::new(input.as_slice()).collect()
    };
    let n_ok = strict.iter().filter(|r| r.is_ok()).count();
    out += &format!("strict: {n_ok} ok, {} errors\n", strict.len() - n_ok);
    for e in strict.iter().filter_map(|r| r.as_ref().err()) {
        out += &format!("  {e}\n");
    }
    let lenient: Vec<Result<(marc::Record, Vec<marc::Warning>), marc::Error>> = if xml {
        marc::marcxml::LenientReader::new(input.as_slice()).collect()
    } else {
        marc::LenientReader::new(input.as_slice()).collect()
    };
    let n_ok = lenient.iter().filter(|r| r.is_ok()).count();
    let warnings: Vec<&marc::Warning> =
        lenient.iter().filter_map(|r| r.as_ref().ok()).flat_map(|(_, w)| w).collect();
    out += &format!(
        "lenient: {n_ok} ok, {} errors, {} warnings\n",
        lenient.len() - n_ok,
        warnings.len()
    );
    for e in lenient.iter().filter_map(|r| r.as_ref().err()) {
        out += &format!("  {e}\n");
    }
    for w in warnings.iter().take(3) {
        out += &format!("  {w}\n");
    }
    for (record, _) in lenient.iter().filter_map(|r| r.as_ref().ok()) {
        check_round_trips(file, record);
    }
    expect.assert_eq(&out);
}

#[test]
fn malformed_files_get_clear_errors() {
    survey(
        "invalidMarcFile.mrc",
        expect![[r#"
        strict: 0 ok, 1 errors
          ISO 2709 record 1, byte 0: record length "inval" (leader/00-04) is not a number
        lenient: 0 ok, 1 errors, 0 warnings
          ISO 2709 record 1, byte 0: record length "inval" (leader/00-04) is not a number
    "#]],
    );
    survey(
        "invalidUChicago_SampleBibs.xml",
        expect![[r#"
        strict: 0 ok, 1 errors
          MARCXML record 1, byte 1801: input ends inside <marc:datafield>
        lenient: 0 ok, 1 errors, 0 warnings
          MARCXML record 1, byte 1801: input ends inside <marc:datafield>
    "#]],
    );
    survey(
        "pymarc-test/bad_eacc_encoding.dat",
        expect![[r#"
        strict: 0 ok, 1 errors
          ISO 2709 record 1, byte 1496: field 880: MARC-8: unassigned code 0x7B 0x36 0x39
        lenient: 1 ok, 0 errors, 3 warnings
          ISO 2709 record 1, byte 1496: field 880: MARC-8: unassigned code 0x7B 0x36 0x39; skipped
          ISO 2709 record 1, byte 1499: field 880: MARC-8: unassigned code 0x32 0x34 0x66; skipped
          ISO 2709 record 1, byte 1502: field 880: MARC-8: unassigned code 0x36 0x7D; skipped
    "#]],
    );
    survey(
        "pymarc-test/bad_indicator.dat",
        expect![[r#"
        strict: 0 ok, 1 errors
          ISO 2709 record 1, byte 24: tag "0 2" is not three ASCII letters or digits
        lenient: 1 ok, 0 errors, 1 warnings
          ISO 2709 record 1, byte 24: tag "0 2" is not three ASCII letters or digits; field dropped
    "#]],
    );
    survey(
        "pymarc-test/bad_marc8_escape.dat",
        expect![[r#"
        strict: 0 ok, 1 errors
          ISO 2709 record 1, byte 647: field 222: MARC-8: unknown escape sequence 0x1B 0x74 0xE2 0x65
        lenient: 1 ok, 0 errors, 16 warnings
          ISO 2709 record 1, byte 647: field 222: MARC-8: unknown escape sequence 0x1B 0x74 0xE2 0x65; skipped
          ISO 2709 record 1, byte 656: field 222: MARC-8: unknown escape sequence 0x1B 0x65 0x6E 0x6E; skipped
          ISO 2709 record 1, byte 707: field 245: MARC-8: unknown escape sequence 0x1B 0x65 0x6E 0x6E; skipped
    "#]],
    );
    survey(
        "pymarc-test/bad_records.mrc",
        expect![[r#"
        strict: 3 ok, 5 errors
          ISO 2709 record 2, byte 139: base address of data 99937 does not follow a directory ending in a field terminator (0x1E)
          ISO 2709 record 3, byte 266: base address of data 0 does not follow a directory ending in a field terminator (0x1E)
          ISO 2709 record 4, byte 405: directory is 13 bytes long, not a multiple of 12
          ISO 2709 record 5, byte 533: directory is 13 bytes long, not a multiple of 12
          ISO 2709 record 6, byte 649: base address of data "f0037" (leader/12-16) is not a number
        lenient: 8 ok, 0 errors, 6 warnings
          ISO 2709 record 2, byte 139: base address of data 99937 does not follow a directory ending in a field terminator (0x1E); directory taken to end at the first field terminator
          ISO 2709 record 3, byte 266: base address of data 0 does not follow a directory ending in a field terminator (0x1E); directory taken to end at the first field terminator
          ISO 2709 record 4, byte 405: directory is 13 bytes long, not a multiple of 12; incomplete last entry ignored
    "#]],
    );
    survey(
        "pymarc-test/bad_subfield_code.dat",
        expect![[r#"
        strict: 0 ok, 1 errors
          ISO 2709 record 1, byte 0: record length is 755 but the record terminator (0x1D) ends the record after 756 bytes
        lenient: 1 ok, 0 errors, 10 warnings
          ISO 2709 record 1, byte 0: record length is 755 but the record terminator (0x1D) ends the record after 756 bytes; record taken to end at the record terminator
          ISO 2709 record 1, byte 9: leader/09 says MARC-8 but the data is UTF-8; read as UTF-8
          ISO 2709 record 1, byte 156: field 245 (directory entry 12): length 54 at 237 does not end at a field terminator (0x1E); field taken from the end of the previous field to the next field terminator
    "#]],
    );
    survey(
        "pymarc-test/bad_tag.xml",
        expect![[r#"
        strict: 0 ok, 1 errors
          MARCXML record 1, byte 80: leader "      Z   22 4500" is not 24 characters long
        lenient: 1 ok, 0 errors, 2 warnings
          MARCXML record 1, byte 80: leader "      Z   22 4500" is not 24 characters long; padded with spaces or cut to 24 characters
          MARCXML record 1, byte 447: tag "42" is not three ASCII letters or digits; field dropped
    "#]],
    );
    survey(
        "pymarc-test/utf8_invalid.mrc",
        expect![[r#"
        strict: 0 ok, 1 errors
          ISO 2709 record 1, byte 497: field 260: subfield code "�" is not one printable ASCII character
        lenient: 1 ok, 0 errors, 1 warnings
          ISO 2709 record 1, byte 497: field 260: subfield code "�" is not one printable ASCII character; code replaced with '?'
    "#]],
    );
    survey(
        "pymarc-test/utf8_without_leader_flag.dat",
        expect![[r#"
        strict: 0 ok, 1 errors
          ISO 2709 record 1, byte 662: field 240: MARC-8: unassigned code 0xCC
        lenient: 1 ok, 0 errors, 1 warnings
          ISO 2709 record 1, byte 9: leader/09 says MARC-8 but the data is UTF-8; read as UTF-8
    "#]],
    );
    survey(
        "pymarc-test/1251.dat",
        expect![[r#"
        strict: 0 ok, 6 errors
          ISO 2709 record 1, byte 471: field 084: MARC-8: unassigned code 0xFF
          ISO 2709 record 2, byte 1378: field 100: MARC-8: unassigned code 0xCB
          ISO 2709 record 3, byte 2203: field 084: MARC-8: unassigned code 0xFF
          ISO 2709 record 4, byte 3151: field 084: MARC-8: unassigned code 0xFF
          ISO 2709 record 5, byte 3976: field 084: MARC-8: unassigned code 0xD8
          ISO 2709 record 6, byte 4863: field 100: MARC-8: unassigned code 0xCA
        lenient: 6 ok, 0 errors, 110 warnings
          ISO 2709 record 1, byte 471: field 084: MARC-8: unassigned code 0xFF; skipped
          ISO 2709 record 1, byte 489: field 100: MARC-8: unassigned code 0xFC; skipped
          ISO 2709 record 1, byte 495: field 100: MARC-8: unassigned code 0xD2; skipped
    "#]],
    );
}

#[test]
fn real_records_with_flaws() {
    // One record with an empty subfield ("$b cri\x1f\x1f2rdacontent"): strict
    // rejects it, lenient drops the empty subfield as YAZ does.
    survey(
        "61PRINT160129.mrc",
        expect![[r#"
        strict: 245 ok, 1 errors
          ISO 2709 record 84, byte 158785: field 336: subfield code "" is not one printable ASCII character
        lenient: 246 ok, 0 errors, 1 warnings
          ISO 2709 record 84, byte 158785: field 336: subfield code "" is not one printable ASCII character; empty subfield dropped
    "#]],
    );
    // Eleven records with a stray backslash before 752's first subfield.
    survey(
        "pymarc-test/regression45.dat",
        expect![[r#"
        strict: 1 ok, 11 errors
          ISO 2709 record 1, byte 3316: field 752: data "\\" before the first subfield delimiter (0x1F)
          ISO 2709 record 2, byte 7407: field 752: data "\\" before the first subfield delimiter (0x1F)
          ISO 2709 record 3, byte 11710: field 752: data "\\" before the first subfield delimiter (0x1F)
          ISO 2709 record 4, byte 15698: field 752: data "\\" before the first subfield delimiter (0x1F)
          ISO 2709 record 5, byte 19816: field 752: data "\\" before the first subfield delimiter (0x1F)
          ISO 2709 record 6, byte 24140: field 752: data "\\" before the first subfield delimiter (0x1F)
          ISO 2709 record 7, byte 28428: field 752: data "\\" before the first subfield delimiter (0x1F)
          ISO 2709 record 8, byte 32760: field 752: data "\\" before the first subfield delimiter (0x1F)
          ISO 2709 record 9, byte 36882: field 752: data "\\" before the first subfield delimiter (0x1F)
          ISO 2709 record 10, byte 40945: field 752: data "\\" before the first subfield delimiter (0x1F)
          ISO 2709 record 11, byte 44896: field 752: data "\\" before the first subfield delimiter (0x1F)
        lenient: 12 ok, 0 errors, 11 warnings
          ISO 2709 record 1, byte 3316: field 752: data "\\" before the first subfield delimiter (0x1F); data dropped
          ISO 2709 record 2, byte 7407: field 752: data "\\" before the first subfield delimiter (0x1F); data dropped
          ISO 2709 record 3, byte 11710: field 752: data "\\" before the first subfield delimiter (0x1F); data dropped
    "#]],
    );
}

#[test]
fn json_file_with_raw_control_characters_is_rejected() {
    let text = String::from_utf8(read("pymarc-test/test.json")).unwrap();
    expect![[r#"MARC-in-JSON record 1, byte 3719: control character (\u0000-\u001F) found while parsing a string at line 171 column 0"#]].assert_eq(&marc::json::from_str_array(&text).unwrap_err().to_string());
}
