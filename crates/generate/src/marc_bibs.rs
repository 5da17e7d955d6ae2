//! MARC bibliographic records for generated data, derived from real ones.
//!
//! The seed corpus is the 250,000 Library of Congress records that PyPI's `pymarc==5.4.0`
//! source distribution carries (`BooksAll.2016.part01.utf8`, US federal work). Each
//! derived record is one real record (leader, 008, physical description, notes,
//! classification and the rest) whose title, main and added entries and subjects are
//! drawn from other real records, so that the term statistics of a large derived set stay
//! those of a real catalogue, with fresh control numbers, 005 dates, LCCNs, OCLC numbers
//! and valid ISBNs, so no two derived records collide. The instance is then mapped from
//! the derived record the way FOLIO's default MARC-to-Instance rules map the fields
//! Quire indexes.
//!
//! Getting the corpus: [`LcCorpus::locate`] looks in `QUIRE_LC_RECORDS` and the cache
//! directory, and [`fetch`] downloads the source distribution from PyPI, extracts the
//! file and checks its SHA-256 (the same steps as `scripts/fetch-lc-records.sh`).

use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::Context;
use marc::{Field, Record, Tag};
use rand::Rng;
use serde_json::{Value, json};
use sha2::Digest;
use uuid::Uuid;

/// The corpus file's name inside the source distribution and in the cache.
pub const LC_FILE_NAME: &str = "BooksAll.2016.part01.utf8";
/// SHA-256 of the corpus file (`shared/data/README.md`).
pub const LC_SHA256: &str = "dfdcdad30e0e0a82b0aec831c1a08b61c6199eb8ee0d71ff7953213f20eb0e47";

/// The real records and the pools of fields drawn from them.
pub struct LcCorpus {
    raw: Vec<u8>,
    /// Start and length of each record that decodes cleanly.
    records: Vec<(usize, usize)>,
    titles: Vec<Field>,
    main_entries: Vec<Field>,
    added_entries: Vec<Field>,
    subjects: Vec<Field>,
}

impl std::fmt::Debug for LcCorpus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LcCorpus")
            .field("records", &self.records.len())
            .field("titles", &self.titles.len())
            .field("subjects", &self.subjects.len())
            .finish_non_exhaustive()
    }
}

/// Where the corpus is cached: `QUIRE_CACHE`, else `~/.cache/quire`.
pub fn cache_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("QUIRE_CACHE") {
        return PathBuf::from(dir);
    }
    let home = std::env::var_os("HOME").map_or_else(|| PathBuf::from("."), PathBuf::from);
    home.join(".cache").join("quire")
}

/// Downloads pymarc 5.4.0's source distribution from PyPI (with `pip download`, so pip's
/// index configuration and proxies apply), extracts the corpus into [`cache_dir`] and
/// checks its SHA-256. Returns the file's path.
pub fn fetch() -> anyhow::Result<PathBuf> {
    let target = cache_dir().join(LC_FILE_NAME);
    let download = tempdir_in(&cache_dir())?;
    let status = std::process::Command::new("python3")
        .args(["-m", "pip", "download", "--quiet", "pymarc==5.4.0", "--no-deps"])
        .args(["--no-binary", ":all:", "-d"])
        .arg(&download)
        .stdout(std::process::Stdio::null())
        .status()
        .context("running `python3 -m pip download pymarc==5.4.0`")?;
    anyhow::ensure!(status.success(), "`pip download pymarc==5.4.0` failed ({status})");
    let archive = download.join("pymarc-5.4.0.tar.gz");
    let file = std::fs::File::open(&archive)
        .with_context(|| format!("pip left no {}", archive.display()))?;
    let mut tar = tar::Archive::new(flate2::read::GzDecoder::new(file));
    let mut found = None;
    for entry in tar.entries()? {
        let mut entry = entry?;
        let is_corpus = entry.path()?.file_name().is_some_and(|name| name == LC_FILE_NAME);
        if is_corpus {
            let mut bytes = Vec::new();
            entry.read_to_end(&mut bytes)?;
            found = Some(bytes);
            break;
        }
    }
    let _ignored = std::fs::remove_dir_all(&download);
    let bytes = found.with_context(|| format!("{} holds no {LC_FILE_NAME}", archive.display()))?;
    let actual = hex(&sha2::Sha256::digest(&bytes));
    anyhow::ensure!(
        actual == LC_SHA256,
        "{LC_FILE_NAME} has SHA-256 {actual}, expected {LC_SHA256}"
    );
    // Tests fetch it at once on a new machine: each writes a file of its own and
    // renames it into place, so no reader sees another's half-written one.
    let partial = target.with_extension(format!("partial-{}", std::process::id()));
    std::fs::write(&partial, &bytes)?;
    std::fs::rename(&partial, &target)?;
    Ok(target)
}

/// A fresh directory under `parent` for the download.
fn tempdir_in(parent: &Path) -> anyhow::Result<PathBuf> {
    std::fs::create_dir_all(parent)?;
    let dir = parent.join(format!("download-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl LcCorpus {
    /// The corpus file if it is on this machine: `QUIRE_LC_RECORDS`, or the cache.
    pub fn locate() -> Option<PathBuf> {
        if let Some(path) = std::env::var_os("QUIRE_LC_RECORDS") {
            return Some(PathBuf::from(path));
        }
        let cached = cache_dir().join(LC_FILE_NAME);
        cached.is_file().then_some(cached)
    }

    /// Reads the corpus and builds the field pools. Records that do not decode are
    /// skipped (the LC file has none; a truncated copy would).
    pub fn load(path: &Path) -> anyhow::Result<LcCorpus> {
        let raw = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
        LcCorpus::from_bytes(raw)
    }

    /// Builds the corpus from ISO 2709 bytes.
    pub fn from_bytes(raw: Vec<u8>) -> anyhow::Result<LcCorpus> {
        let mut corpus = LcCorpus {
            raw: Vec::new(),
            records: Vec::new(),
            titles: Vec::new(),
            main_entries: Vec::new(),
            added_entries: Vec::new(),
            subjects: Vec::new(),
        };
        let mut at = 0;
        while at + 5 <= raw.len() {
            let Some(len) =
                std::str::from_utf8(&raw[at..at + 5]).ok().and_then(|s| s.parse::<usize>().ok())
            else {
                break;
            };
            if len < 24 || at + len > raw.len() {
                break;
            }
            if let Ok(record) = marc::decode(&raw[at..at + len]) {
                corpus.records.push((at, len));
                for field in record.fields() {
                    match field.tag().as_str() {
                        "245" => corpus.titles.push(field.clone()),
                        "100" | "110" | "111" => corpus.main_entries.push(field.clone()),
                        "700" | "710" | "711" => corpus.added_entries.push(field.clone()),
                        "600" | "610" | "611" | "630" | "650" | "651" => {
                            corpus.subjects.push(field.clone())
                        }
                        _ => {}
                    }
                }
            }
            at += len;
        }
        anyhow::ensure!(
            !corpus.records.is_empty() && !corpus.titles.is_empty(),
            "no MARC records with titles found"
        );
        corpus.raw = raw;
        Ok(corpus)
    }

    /// How many real records the corpus holds.
    pub fn len(&self) -> usize {
        self.records.len()
    }

    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    fn pick<'a>(rng: &mut impl Rng, pool: &'a [Field]) -> Option<&'a Field> {
        (!pool.is_empty()).then(|| &pool[rng.gen_range(0..pool.len())])
    }

    /// A derived record: number `n` of the generated set (its control number).
    pub fn derive(&self, rng: &mut impl Rng, n: u64, deleted: bool) -> Record {
        let (start, len) = self.records[rng.gen_range(0..self.records.len())];
        let base = marc::decode(&self.raw[start..start + len])
            .expect("corpus records were checked when loaded");
        let (mut leader, fields) = base.into_parts();
        let status = if deleted {
            'd'
        } else if rng.gen_bool(0.3) {
            'c'
        } else {
            'n'
        };
        leader.set(5, status).expect("record status is a printable character");
        let mut out: Vec<Field> = Vec::with_capacity(fields.len() + 4);
        let tag = |t: &str| Tag::new(t).expect("valid tag");
        out.push(Field::control(tag("001"), format!("qr{n:010}")).expect("plain value"));
        out.push(Field::control(tag("005"), random_005(rng)).expect("plain value"));
        if rng.gen_bool(0.4) {
            let lccn = format!("{:>4}{:06}", rng.gen_range(50..100), rng.gen_range(0..1_000_000));
            out.push(Field::data(tag("010"), ' ', ' ', [('a', lccn.as_str())]).expect("valid"));
        }
        if rng.gen_bool(0.75) {
            let isbn = random_isbn(rng);
            out.push(Field::data(tag("020"), ' ', ' ', [('a', isbn.as_str())]).expect("valid"));
        }
        if rng.gen_bool(0.6) {
            let oclc = format!("(OCoLC){}", rng.gen_range(1_000_000..2_000_000_000u64));
            out.push(Field::data(tag("035"), ' ', ' ', [('a', oclc.as_str())]).expect("valid"));
        }
        let mut had_subjects = 0;
        for field in fields {
            match field.tag().as_str() {
                "001" | "003" | "005" | "010" | "020" | "035" | "999" => {}
                "100" | "110" | "111" => {
                    out.extend(Self::pick(rng, &self.main_entries).cloned());
                }
                "245" => out.extend(Self::pick(rng, &self.titles).cloned()),
                "700" | "710" | "711" => {
                    out.extend(Self::pick(rng, &self.added_entries).cloned());
                }
                "600" | "610" | "611" | "630" | "650" | "651" => had_subjects += 1,
                _ => out.push(field),
            }
        }
        // As many subjects as the base record had, drawn from the whole corpus.
        for _ in 0..had_subjects {
            out.extend(Self::pick(rng, &self.subjects).cloned());
        }
        // Tag order, keeping the order of repeated tags.
        out.sort_by(|a, b| a.tag().as_str().cmp(b.tag().as_str()));
        Record::with_fields(leader, out)
    }
}

/// A 005 (date and time of latest transaction) between 2000 and 2025.
fn random_005(rng: &mut impl Rng) -> String {
    let base = chrono::NaiveDate::from_ymd_opt(2000, 1, 1).expect("valid date");
    let day = base + chrono::Days::new(rng.gen_range(0..26 * 365));
    format!(
        "{}{:02}{:02}{:02}.0",
        day.format("%Y%m%d"),
        rng.gen_range(0..24),
        rng.gen_range(0..60),
        rng.gen_range(0..60)
    )
}

/// A valid ISBN: ISBN-13 three times in five, else ISBN-10.
pub(crate) fn random_isbn(rng: &mut impl Rng) -> String {
    if rng.gen_bool(0.6) { isbn13(rng) } else { isbn10(rng) }
}

/// A valid ISBN-13 with the 978 prefix.
fn isbn13(rng: &mut impl Rng) -> String {
    let mut digits: Vec<u32> = vec![9, 7, 8];
    digits.extend((0..9).map(|_| rng.gen_range(0..10)));
    let sum: u32 =
        digits.iter().enumerate().map(|(i, d)| if i % 2 == 0 { *d } else { d * 3 }).sum();
    digits.push((10 - sum % 10) % 10);
    digits.iter().map(|d| char::from_digit(*d, 10).expect("a digit")).collect()
}

/// A valid ISBN-10.
fn isbn10(rng: &mut impl Rng) -> String {
    let digits: Vec<u32> = (0..9).map(|_| rng.gen_range(0..10)).collect();
    let sum: u32 = digits.iter().enumerate().map(|(i, d)| (10 - i as u32) * d).sum();
    let check = (11 - sum % 11) % 11;
    let mut out: String =
        digits.iter().map(|d| char::from_digit(*d, 10).expect("a digit")).collect();
    out.push(if check == 10 { 'X' } else { char::from_digit(check, 10).expect("a digit") });
    out
}

/// Reference ids the MARC mapping needs, by FOLIO's names.
#[derive(Debug, Clone)]
pub(crate) struct MarcRefs {
    pub(crate) personal_name: Uuid,
    pub(crate) corporate_name: Uuid,
    pub(crate) meeting_name: Uuid,
    pub(crate) isbn: Uuid,
    pub(crate) invalid_isbn: Uuid,
    pub(crate) issn: Uuid,
    pub(crate) lccn: Uuid,
    pub(crate) oclc: Uuid,
    pub(crate) system_control_number: Uuid,
    /// Instance types by their RDA content code (`txt`, `ntm`, ...).
    pub(crate) instance_types: std::collections::HashMap<String, Uuid>,
}

/// The instance a MARC bibliographic record maps to, after FOLIO's default
/// MARC-to-Instance rules for the fields Quire indexes: title (245 `abfgknps`), index
/// title (245 `a` without its non-filing characters), contributors (1XX primary and
/// 7XX), identifiers (010, 020 `a`/`z`, 022, 035), subjects (6XX joined with `--`),
/// publication (260/264), edition (250), physical description (300), series (490),
/// general notes (500), languages (008/35-37 and 041), instance type (leader/06).
pub(crate) fn instance_from_marc(record: &Record, id: Uuid, refs: &MarcRefs) -> Value {
    let joined = |field: &Field, codes: &str, sep: &str| -> String {
        field
            .subfields()
            .filter(|s| codes.contains(s.code))
            .map(|s| s.value.trim())
            .filter(|v| !v.is_empty())
            .collect::<Vec<_>>()
            .join(sep)
    };
    let title = record.field("245").map(|f| joined(f, "abfgknps", " ")).unwrap_or_default();
    let index_title = record.field("245").and_then(|f| {
        let skip = f.ind2().to_digit(10).unwrap_or(0) as usize;
        f.subfield('a').map(|a| a.chars().skip(skip).collect::<String>())
    });
    let mut contributors = Vec::new();
    for field in record.fields() {
        let (kind, primary) = match field.tag().as_str() {
            "100" => (refs.personal_name, true),
            "110" => (refs.corporate_name, true),
            "111" => (refs.meeting_name, true),
            "700" => (refs.personal_name, false),
            "710" => (refs.corporate_name, false),
            "711" => (refs.meeting_name, false),
            _ => continue,
        };
        let name = joined(field, "abcdfgjklnpqtu", " ");
        if !name.is_empty() {
            contributors
                .push(json!({ "name": name, "contributorNameTypeId": kind, "primary": primary }));
        }
    }
    let mut identifiers = Vec::new();
    let mut ident = |value: &str, type_id: Uuid| {
        let value = value.trim();
        if !value.is_empty() {
            identifiers.push(json!({ "value": value, "identifierTypeId": type_id }));
        }
    };
    for field in record.fields() {
        match field.tag().as_str() {
            "010" => field.subfield_values('a').for_each(|v| ident(v, refs.lccn)),
            "020" => {
                field.subfield_values('a').for_each(|v| ident(v, refs.isbn));
                field.subfield_values('z').for_each(|v| ident(v, refs.invalid_isbn));
            }
            "022" => field.subfield_values('a').for_each(|v| ident(v, refs.issn)),
            "035" => field.subfield_values('a').for_each(|v| {
                let kind =
                    if v.starts_with("(OCoLC)") { refs.oclc } else { refs.system_control_number };
                ident(v, kind)
            }),
            _ => {}
        }
    }
    let subjects: Vec<Value> = record
        .fields()
        .iter()
        .filter(|f| matches!(f.tag().as_str(), "600" | "610" | "611" | "630" | "650" | "651"))
        .map(|f| joined(f, "abcdfghjklmnopqrstvxyz", "--"))
        .filter(|v| !v.is_empty())
        .map(|value| json!({ "value": value }))
        .collect();
    let publication: Vec<Value> = record
        .fields()
        .iter()
        .filter(|f| f.tag().as_str() == "260" || f.tag().as_str() == "264")
        .map(|f| {
            let clean = |v: Option<&str>| {
                v.map(|v| v.trim_end_matches([' ', ':', ',', ';', '.']).to_string())
                    .unwrap_or_default()
            };
            json!({
                "place": clean(f.subfield('a')),
                "publisher": clean(f.subfield('b')),
                "dateOfPublication": clean(f.subfield('c')),
            })
        })
        .collect();
    let mut languages: Vec<String> = Vec::new();
    if let Some(code) = record.control_value("008").and_then(|v| v.get(35..38)) {
        let code = code.trim();
        if code.len() == 3 && code.chars().all(|c| c.is_ascii_lowercase()) {
            languages.push(code.to_string());
        }
    }
    for field in record.fields_with_tag("041") {
        for code in field.subfield_values('a') {
            if !languages.iter().any(|l| l == code) && code.len() == 3 {
                languages.push(code.to_string());
            }
        }
    }
    let content_code = match record.leader().get(6) {
        'a' | 't' => "txt",
        'c' | 'd' => "ntm",
        'e' | 'f' => "cri",
        'g' => "tdi",
        'i' => "spw",
        'j' => "prm",
        'k' => "sti",
        'm' => "cop",
        'r' => "tdf",
        _ => "zzz",
    };
    let instance_type =
        refs.instance_types.get(content_code).or_else(|| refs.instance_types.get("zzz")).copied();
    let mut instance = json!({
        "id": id,
        "source": "MARC",
        "title": title,
        "instanceTypeId": instance_type,
        "contributors": contributors,
        "identifiers": identifiers,
        "subjects": subjects,
        "publication": publication,
        "languages": languages,
    });
    if let Some(index_title) = index_title {
        instance["indexTitle"] = json!(index_title.trim());
    }
    let values = |tag: &str, codes: &str| -> Vec<String> {
        record
            .fields_with_tag(tag)
            .map(|f| joined(f, codes, " "))
            .filter(|v| !v.is_empty())
            .collect()
    };
    let editions = values("250", "ab");
    if !editions.is_empty() {
        instance["editions"] = json!(editions);
    }
    let physical = values("300", "abcefg");
    if !physical.is_empty() {
        instance["physicalDescriptions"] = json!(physical);
    }
    let series: Vec<Value> =
        values("490", "av").into_iter().map(|value| json!({ "value": value })).collect();
    if !series.is_empty() {
        instance["series"] = json!(series);
    }
    let notes: Vec<Value> = values("500", "a")
        .into_iter()
        .map(|note| json!({ "note": note, "staffOnly": false }))
        .collect();
    if !notes.is_empty() {
        instance["notes"] = json!(notes);
    }
    instance
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;

    use super::*;

    fn corpus() -> LcCorpus {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data/marc/100.mrc");
        LcCorpus::load(Path::new(path)).unwrap()
    }

    #[test]
    fn derived_records_are_valid_fresh_and_drawn_from_the_corpus() {
        let corpus = corpus();
        assert_eq!(corpus.len(), 100);
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let mut titles = std::collections::HashSet::new();
        for n in 0..200 {
            let record = corpus.derive(&mut rng, n, n % 50 == 0);
            assert_eq!(record.control_value("001"), Some(format!("qr{n:010}").as_str()));
            assert_eq!(record.leader().get(5) == 'd', n % 50 == 0);
            let date = record.control_value("005").unwrap();
            assert!(date.len() == 16 && date.starts_with("20"), "{date}");
            // Written and read back unchanged: the derived record is well formed.
            let iso = marc::encode(&record).unwrap();
            let back = marc::decode(&iso).unwrap();
            assert_eq!(back.fields(), record.fields());
            assert_eq!(back.leader().as_str()[5..12], record.leader().as_str()[5..12]);
            let tags: Vec<String> = record.fields().iter().map(|f| f.tag().to_string()).collect();
            assert!(tags.windows(2).all(|w| w[0] <= w[1]), "fields in tag order: {tags:?}");
            let title = record.field("245").unwrap().clone();
            assert!(corpus.titles.contains(&title));
            titles.insert(format!("{title:?}"));
            for isbn in record.fields_with_tag("020").filter_map(|f| f.subfield('a')) {
                assert!(valid_isbn(isbn), "{isbn}");
            }
        }
        assert!(titles.len() > 50, "titles are resampled: {} distinct", titles.len());
    }

    fn valid_isbn(isbn: &str) -> bool {
        let digits: Vec<u32> =
            isbn.chars().map(|c| if c == 'X' { 10 } else { c.to_digit(10).unwrap() }).collect();
        match digits.len() {
            10 => {
                digits.iter().enumerate().map(|(i, d)| (10 - i as u32) * d).sum::<u32>() % 11 == 0
            }
            13 => {
                digits
                    .iter()
                    .enumerate()
                    .map(|(i, d)| if i % 2 == 0 { *d } else { d * 3 })
                    .sum::<u32>()
                    % 10
                    == 0
            }
            _ => false,
        }
    }

    #[test]
    fn instances_map_from_marc_fields() {
        let refs = MarcRefs {
            personal_name: Uuid::from_u128(1),
            corporate_name: Uuid::from_u128(2),
            meeting_name: Uuid::from_u128(3),
            isbn: Uuid::from_u128(4),
            invalid_isbn: Uuid::from_u128(5),
            issn: Uuid::from_u128(6),
            lccn: Uuid::from_u128(7),
            oclc: Uuid::from_u128(8),
            system_control_number: Uuid::from_u128(9),
            instance_types: [("txt".to_string(), Uuid::from_u128(10))].into_iter().collect(),
        };
        let tag = |t: &str| Tag::new(t).unwrap();
        let mut record = Record::new(marc::Leader::new("00000nam a2200000 a 4500").unwrap());
        record
            .push(Field::control(tag("008"), "850101s1985    nyu           000 0 eng  ").unwrap());
        record
            .push(Field::data(tag("020"), ' ', ' ', [('a', "0306406152"), ('z', "123")]).unwrap());
        record.push(Field::data(tag("035"), ' ', ' ', [('a', "(OCoLC)12345")]).unwrap());
        record.push(
            Field::data(tag("100"), '1', ' ', [('a', "Twain, Mark,"), ('d', "1835-1910.")])
                .unwrap(),
        );
        record.push(
            Field::data(tag("245"), '1', '4', [('a', "The adventures :"), ('b', "a tale.")])
                .unwrap(),
        );
        record.push(
            Field::data(
                tag("264"),
                ' ',
                '1',
                [('a', "New York :"), ('b', "Harper,"), ('c', "1885.")],
            )
            .unwrap(),
        );
        record.push(
            Field::data(tag("650"), ' ', '0', [('a', "Rivers"), ('z', "Mississippi.")]).unwrap(),
        );
        let id = Uuid::from_u128(99);
        let instance = instance_from_marc(&record, id, &refs);
        assert_eq!(instance["title"], "The adventures : a tale.");
        assert_eq!(instance["indexTitle"], "adventures :");
        assert_eq!(instance["source"], "MARC");
        assert_eq!(instance["instanceTypeId"], Uuid::from_u128(10).to_string());
        assert_eq!(instance["languages"], json!(["eng"]));
        assert_eq!(instance["contributors"][0]["name"], "Twain, Mark, 1835-1910.");
        assert_eq!(instance["contributors"][0]["primary"], true);
        assert_eq!(instance["identifiers"].as_array().unwrap().len(), 3);
        assert_eq!(instance["identifiers"][2]["identifierTypeId"], Uuid::from_u128(8).to_string());
        assert_eq!(instance["subjects"][0]["value"], "Rivers--Mississippi.");
        assert_eq!(instance["publication"][0]["publisher"], "Harper");
        assert_eq!(instance["publication"][0]["dateOfPublication"], "1885");
    }
}
