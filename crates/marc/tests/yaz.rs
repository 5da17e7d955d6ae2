//! Differential test against Index Data's `yaz-marcdump`: every record of the
//! shared MARC data, written by this crate as MARCXML, ISO 2709 and in the
//! line format, must match what YAZ writes for the same input, after the
//! normalisations listed in the crate's README ("Differences from YAZ").
//!
//! Runs only when `QUIRE_YAZ_MARCDUMP` names the `yaz-marcdump` binary
//! (`scripts/marc-yaz-compare.sh` installs YAZ and sets it); otherwise it
//! prints SKIPPED.

use std::path::{Path, PathBuf};
use std::process::Command;

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/marc")
}

/// How a file is read, and which records YAZ and Quire must agree on.
struct Case {
    file: &'static str,
    marc8: bool,
    xml: bool,
}

const CASES: &[Case] = &[
    Case { file: "100.mrc", marc8: false, xml: false },
    Case { file: "2500.mrc", marc8: false, xml: false },
    Case { file: "5000.mrc", marc8: false, xml: false },
    Case { file: "CornellFOLIOExemplars.mrc", marc8: false, xml: false },
    Case { file: "61PRINT160129.mrc", marc8: true, xml: false },
    Case { file: "UChicago_SampleBibs.xml", marc8: false, xml: true },
    Case { file: "pymarc-test/alphatag.dat", marc8: true, xml: false },
    Case { file: "pymarc-test/diacritic.dat", marc8: false, xml: false },
    Case { file: "pymarc-test/marc.dat", marc8: true, xml: false },
    Case { file: "pymarc-test/marc8.dat", marc8: true, xml: false },
    Case { file: "pymarc-test/multi_isbn.dat", marc8: false, xml: false },
    Case { file: "pymarc-test/one.dat", marc8: true, xml: false },
    Case { file: "pymarc-test/regression45.dat", marc8: false, xml: false },
    Case { file: "pymarc-test/test.dat", marc8: true, xml: false },
    Case { file: "pymarc-test/testunimarc.dat", marc8: true, xml: false },
    Case { file: "pymarc-test/utf8_errors.dat", marc8: false, xml: false },
    Case { file: "pymarc-test/utf8_with_leader_flag.dat", marc8: false, xml: false },
    Case { file: "pymarc-test/batch.xml", marc8: false, xml: true },
    Case { file: "pymarc-test/utf8.xml", marc8: false, xml: true },
];

fn yaz(binary: &str, case: &Case, path: &Path, output: &str) -> Vec<u8> {
    let mut command = Command::new(binary);
    command.args(["-i", if case.xml { "marcxml" } else { "marc" }, "-o", output]);
    if case.marc8 {
        command.args(["-f", "MARC-8", "-t", "UTF-8", "-l", "9=97"]);
    }
    let out = command.arg(path).output().expect("yaz-marcdump runs");
    assert!(
        out.status.success(),
        "yaz-marcdump failed on {}: {}",
        case.file,
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// Records read leniently: YAZ reads everything, so the comparison uses the
/// lenient reader, and the strict/lenient split is tested in `shared_data.rs`.
fn read(case: &Case, bytes: &[u8]) -> Vec<marc::Record> {
    if case.xml {
        marc::marcxml::LenientReader::new(bytes).map(|r| r.expect("record").0).collect()
    } else {
        marc::LenientReader::new(bytes).map(|r| r.expect("record").0).collect()
    }
}

#[test]
fn agrees_with_yaz_marcdump() {
    let Ok(binary) = std::env::var("QUIRE_YAZ_MARCDUMP") else {
        println!(
            "SKIPPED: set QUIRE_YAZ_MARCDUMP to yaz-marcdump (scripts/marc-yaz-compare.sh does)"
        );
        return;
    };
    let mut failures = Vec::new();
    for case in CASES {
        let path = data_dir().join(case.file);
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let records = read(case, &bytes);

        // MARCXML: ours without the XML declaration, YAZ's with leader/09
        // forced to 'a' (it always writes 'a' in MARCXML).
        let mut writer = marc::marcxml::Writer::new(Vec::new());
        for record in &records {
            writer.write(record).unwrap();
        }
        let ours = String::from_utf8(writer.finish().unwrap()).unwrap();
        let ours = ours.split_once('\n').map_or("", |(_, rest)| rest).to_owned();
        let theirs =
            String::from_utf8(yaz(&binary, case, &path, "marcxml")).expect("YAZ writes UTF-8");
        let ours = normalise_leader_in_xml(&ours);
        let theirs = normalise_leader_in_xml(&theirs).replace("ind1=\"\u{FFFD}\"", "ind1=\" \"");
        let theirs = theirs.replace("ind2=\"\u{FFFD}\"", "ind2=\" \"");
        compare(case.file, "marcxml", &ours, &theirs, &mut failures);

        // Line format.
        let ours: String = records.iter().map(|r| r.to_string()).collect();
        let theirs =
            String::from_utf8(yaz(&binary, case, &path, "line")).expect("YAZ writes UTF-8");
        let theirs = blank_replacement_indicators(&theirs);
        compare(
            case.file,
            "line",
            &normalise_leader_in_line(&ours),
            &normalise_leader_in_line(&theirs),
            &mut failures,
        );

        // ISO 2709 (UTF-8 out; for MARC-8 input YAZ converts and sets leader/09 'a').
        if !case.xml {
            let mut ours = Vec::new();
            for record in &records {
                marc::encode_into(record, &mut ours).unwrap();
            }
            let theirs = yaz(&binary, case, &path, "marc");
            if ours != theirs {
                let ours = ours.escape_ascii().to_string();
                let theirs = theirs.escape_ascii().to_string();
                compare(case.file, "marc", &ours, &theirs, &mut failures);
            }
        }
        println!("{}: {} records compared", case.file, records.len());
    }
    assert!(failures.is_empty(), "{} differences:\n{}", failures.len(), failures.join("\n"));
}

fn compare(file: &str, format: &str, ours: &str, theirs: &str, failures: &mut Vec<String>) {
    if ours == theirs {
        return;
    }
    let ours_lines: Vec<&str> = ours.lines().collect();
    let theirs_lines: Vec<&str> = theirs.lines().collect();
    let first = (0..ours_lines.len().max(theirs_lines.len()))
        .find(|&i| ours_lines.get(i) != theirs_lines.get(i))
        .unwrap_or(0);
    failures.push(format!(
        "{file} ({format}), line {}:\n  quire: {:?}\n  yaz:   {:?}",
        first + 1,
        ours_lines.get(first).map(|l| truncate(l)),
        theirs_lines.get(first).map(|l| truncate(l)),
    ));
}

fn truncate(line: &str) -> String {
    line.chars().take(300).collect()
}

/// Leader/09 as `a` in MARCXML leaders.
fn normalise_leader_in_xml(xml: &str) -> String {
    xml.lines()
        .map(|line| match line.trim_start().strip_prefix("<leader>") {
            Some(rest)
                if rest.len() >= 24 && rest.is_char_boundary(9) && rest.is_char_boundary(10) =>
            {
                let indent = &line[..line.len() - line.trim_start().len()];
                format!("{indent}<leader>{}a{}\n", &rest[..9], &rest[10..])
            }
            _ => format!("{line}\n"),
        })
        .collect()
}

/// The line format's first line per record is the leader; leave it alone but
/// set position 09 to `a`.
fn normalise_leader_in_line(text: &str) -> String {
    let mut out = String::new();
    let mut at_record_start = true;
    for line in text.lines() {
        if at_record_start && line.len() == 24 && line.is_ascii() {
            out.push_str(&line[..9]);
            out.push('a');
            out.push_str(&line[10..]);
        } else {
            out.push_str(line);
        }
        out.push('\n');
        at_record_start = line.is_empty();
    }
    out
}

/// U+FFFD indicators (in `UChicago_SampleBibs.xml`) as the blanks the lenient
/// reader makes of them: `880 \u{FFFD}\u{FFFD} $a` becomes `880    $a`.
fn blank_replacement_indicators(text: &str) -> String {
    text.lines()
        .map(|line| {
            let mut chars = line.char_indices().skip(4);
            match (chars.next(), chars.next()) {
                (Some((i, a)), Some((j, b))) if a == '\u{FFFD}' || b == '\u{FFFD}' => {
                    let blank = |c: char| if c == '\u{FFFD}' { ' ' } else { c };
                    format!("{}{}{}{}\n", &line[..i], blank(a), blank(b), &line[j + b.len_utf8()..])
                }
                _ => format!("{line}\n"),
            }
        })
        .collect()
}
