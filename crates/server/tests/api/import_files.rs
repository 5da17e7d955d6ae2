//! Every shared MARC file through the web client's import, by FOLIO's default create
//! profile: each record imports or fails alone with its reason in the log, and each
//! instance made says what its MARC record says, read here field by field from the
//! SRS record (FOLIO's default rules, as a cataloguer would check them).

use axum::http::{Method, StatusCode};
use serde_json::{Value, json};

use crate::support::{Client, TestApp};

const DEFAULT_PROFILE: &str = "e34d7b92-9b83-11eb-a8b3-0242ac130003";
const ISBN: &str = "8261054f-be78-422d-bd51-4ed9f33c3422";
const ISSN: &str = "913300b2-03ed-469a-8179-c1092c991227";
const LCCN: &str = "c858e4f2-2b6b-4385-842b-60732ee14abb";

fn shared(file: &str) -> Vec<u8> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data/marc/");
    std::fs::read(format!("{path}{file}")).unwrap()
}

async fn import(app: &TestApp, c: &Client<'_>, file: &str) -> (String, Value) {
    let name = file.rsplit('/').next().unwrap();
    let r = c
        .post("/data-import/uploadDefinitions", &json!({"fileDefinitions": [{"name": name}]}))
        .await;
    let definition = r.body;
    let id = definition["id"].as_str().unwrap();
    let file_id = definition["fileDefinitions"][0]["id"].as_str().unwrap();
    let job = definition["fileDefinitions"][0]["jobExecutionId"].as_str().unwrap().to_string();
    let path = format!("/data-import/uploadDefinitions/{id}/files/{file_id}");
    let r = app.send(Method::POST, &path, Some("diku"), Some(&c.token), Some(shared(file))).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let profile = json!({"id": DEFAULT_PROFILE, "name": "Default - Create instance and SRS MARC Bib", "dataType": "MARC"});
    let process = json!({"uploadDefinition": r.body, "jobProfileInfo": profile});
    let r = c.post(&format!("/data-import/uploadDefinitions/{id}/processFiles"), &process).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
    let ended = app.wait_for_job("diku", &job).await;
    (job, ended)
}

/// A MARC-in-JSON record's fields with a tag: (indicators, subfields as (code, value)).
fn fields<'a>(marc: &'a Value, tag: &str) -> Vec<Vec<(&'a str, &'a str)>> {
    marc["fields"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f.get(tag))
        .filter_map(|f| f["subfields"].as_array())
        .map(|subfields| {
            subfields
                .iter()
                .filter_map(|s| s.as_object()?.iter().next())
                .filter_map(|(code, value)| Some((code.as_str(), value.as_str()?)))
                .collect()
        })
        .collect()
}

fn values<'a>(marc: &'a Value, tag: &str, code: &str) -> Vec<&'a str> {
    fields(marc, tag).into_iter().flatten().filter(|(c, _)| *c == code).map(|(_, v)| v).collect()
}

fn control<'a>(marc: &'a Value, tag: &str) -> Option<&'a str> {
    marc["fields"].as_array()?.iter().find_map(|f| f.get(tag)?.as_str())
}

fn count_of(instance: &Value, list: &str, type_id: &str) -> usize {
    instance[list]
        .as_array()
        .map_or(0, |l| l.iter().filter(|i| i["identifierTypeId"] == type_id).count())
}

/// The checks of one instance against its SRS record.
fn check(instance: &Value, marc: &Value, file: &str) {
    let hrid = instance["hrid"].as_str().unwrap();
    let at = format!("{file} {hrid}");
    assert_eq!(control(marc, "001"), Some(hrid), "{at}: 001 is the HRID");
    assert_eq!(instance["source"], "MARC", "{at}");
    // Title: the last 245's $a $n $p $b $c $f $g $h $k $s, joined by spaces.
    if let Some(title) = fields(marc, "245").last() {
        let parts: Vec<&str> =
            title.iter().filter(|(c, _)| "anpbcfghks".contains(c)).map(|(_, v)| *v).collect();
        let expected = parts.join(" ");
        if !expected.trim().is_empty() {
            assert_eq!(
                instance["title"].as_str().map(str::trim),
                Some(expected.trim().trim_end_matches('\\')),
                "{at}"
            );
        }
    }
    // One identifier per 020 $a, 022 $a and 010 $a, of its type.
    assert_eq!(
        count_of(instance, "identifiers", ISBN),
        values(marc, "020", "a").len(),
        "{at}: ISBNs"
    );
    assert_eq!(
        count_of(instance, "identifiers", ISSN),
        values(marc, "022", "a").len(),
        "{at}: ISSNs"
    );
    assert_eq!(
        count_of(instance, "identifiers", LCCN),
        values(marc, "010", "a").len(),
        "{at}: LCCNs"
    );
    // A contributor per name field, the 1XX's primary.
    let names: usize = ["100", "110", "111", "700", "710", "711"]
        .iter()
        .map(|t| fields(marc, t).iter().filter(|f| f.iter().any(|(c, _)| *c == "a")).count())
        .sum();
    let contributors = instance["contributors"].as_array().unwrap();
    assert!(
        contributors.len() >= names,
        "{at}: {} contributors for {names} names",
        contributors.len()
    );
    let main = ["100", "110", "111"].iter().any(|t| !values(marc, t, "a").is_empty());
    let primary = contributors.iter().filter(|c| c["primary"] == true).count();
    assert_eq!(primary, usize::from(main), "{at}: primary contributor");
    // Fields whose presence the instance must show.
    let has = |tag: &str, code: &str| !values(marc, tag, code).is_empty();
    let nonempty = |key: &str| instance[key].as_array().is_some_and(|l| !l.is_empty());
    if has("250", "a") {
        assert!(nonempty("editions"), "{at}: 250 $a gives an edition");
    }
    if has("300", "a") {
        assert!(nonempty("physicalDescriptions"), "{at}: 300 $a gives a physical description");
    }
    if has("260", "b") || has("264", "b") {
        let publishers = instance["publication"].as_array().unwrap();
        assert!(
            publishers.iter().any(|p| p["publisher"].as_str().is_some_and(|s| !s.is_empty())),
            "{at}: publisher"
        );
    }
    let subjects: usize = ["600", "610", "611", "630", "650", "651"]
        .iter()
        .map(|t| fields(marc, t).iter().filter(|f| f.iter().any(|(c, _)| *c == "a")).count())
        .sum();
    assert!(instance["subjects"].as_array().unwrap().len() >= subjects.min(1), "{at}: subjects");
    // The language of 008/35-37, when it is a code.
    if let Some(lang) = control(marc, "008").and_then(|f| f.get(35..38))
        && lang.chars().all(|c| c.is_ascii_lowercase())
    {
        let languages = instance["languages"].as_array().unwrap();
        assert!(languages.iter().any(|l| l == lang), "{at}: 008 language {lang} in {languages:?}");
    }
    // A deleted record (leader/05 d) makes a suppressed instance.
    if marc["leader"].as_str().and_then(|l| l.chars().nth(5)) == Some('d') {
        assert_eq!(instance["discoverySuppress"], true, "{at}");
    }
}

#[tokio::test]
async fn every_shared_file_imports_record_by_record() {
    let app = TestApp::new();
    let c = Client::admin(&app, "diku").await;
    let files = [
        "100.mrc",
        "61PRINT160129.mrc",
        "CornellFOLIOExemplars.mrc",
        "UChicago_SampleBibs.xml",
        "invalidMarcFile.mrc",
        "invalidUChicago_SampleBibs.xml",
        "pymarc-test/marc8.dat",
        "pymarc-test/utf8_with_leader_flag.dat",
        "pymarc-test/bad_records.mrc",
        "pymarc-test/utf8_invalid.mrc",
        "pymarc-test/bad_indicator.dat",
        "pymarc-test/bad_subfield_code.dat",
        "pymarc-test/batch.xml",
        "pymarc-test/batch.json",
    ];
    let mut made = 0;
    let mut failed = 0;
    let mut marc8_letters = 0;
    for file in files {
        let (job, ended) = import(&app, &c, file).await;
        let status = ended["status"].as_str().unwrap();
        assert!(matches!(status, "COMMITTED" | "ERROR"), "{file}: {ended}");
        let r = c.get(&format!("/metadata-provider/jobLogEntries/{job}?limit=1000")).await;
        let entries = r.body["entries"].as_array().unwrap().clone();
        let summary = c.get(&format!("/metadata-provider/jobSummary/{job}")).await.body;
        let created = summary["instanceSummary"]["totalCreatedEntities"].as_u64().unwrap();
        let errors: Vec<&Value> = entries.iter().filter(|e| e["error"].is_string()).collect();
        // Every record is either made or failed with a reason; none is both.
        assert_eq!(created as usize + errors.len(), entries.len(), "{file}: {summary}");
        assert_eq!(status == "COMMITTED", errors.is_empty(), "{file}");
        for error in &errors {
            assert!(!error["error"].as_str().unwrap().is_empty(), "{file}");
            assert!(error["relatedInstanceInfo"]["idList"][0].is_null(), "{file}: {error}");
        }
        for entry in entries.iter().filter(|e| e["error"].is_null()) {
            let id = entry["relatedInstanceInfo"]["idList"][0].as_str().unwrap();
            let instance = c.get(&format!("/instance-storage/instances/{id}")).await.body;
            let srs_id = entry["sourceRecordId"].as_str().unwrap();
            let source = c.get(&format!("/source-storage/records/{srs_id}")).await.body;
            let marc = &source["parsedRecord"]["content"];
            // MARC-8 is read as such: stored as UTF-8 (leader/09 a), no escapes left.
            // (MARCXML and MARC-in-JSON are Unicode whatever their leader says.)
            if !file.ends_with(".xml") && !file.ends_with(".json") {
                assert_eq!(marc["leader"].as_str().unwrap().chars().nth(9), Some('a'), "{file}");
            }
            assert!(!marc.to_string().contains('\u{1b}'), "{file}: a MARC-8 escape is left");
            check(&instance, marc, file);
            if file == "61PRINT160129.mrc" && !instance.to_string().is_ascii() {
                marc8_letters += 1;
            }
        }
        made += created;
        failed += errors.len();
    }
    let r = c.get("/instance-storage/instances?limit=0").await;
    assert_eq!(r.body["totalRecords"], made, "no instance without its log entry");
    assert!(failed > 0, "the broken files fail record by record");
    assert!(made > 450, "{made}");
    assert!(marc8_letters > 0, "the MARC-8 file's diacritics come out as Unicode");
}
