//! A library's own import profiles, built through FOLIO's profile API and run by a
//! scripted client's job: an overlay that matches records by their `999 ff $i` and
//! updates them, and a vendor load that makes holdings and items from 949 fields.

use axum::http::StatusCode;
use serde_json::{Value, json};

use crate::support::{Client, TestApp};

const BASE: &str = "/data-import-profiles";
const DEFAULT_PROFILE: &str = "e34d7b92-9b83-11eb-a8b3-0242ac130003";
const MAIN_LIBRARY: &str = "fcd64ce1-6995-48f0-840e-89ffa2288371";
const BOOK: &str = "1a54b431-2e4f-452d-9cae-9cee66c9a892";
/// The location whose code the test MFHDs' 852 $b holds ("KU/CC/DI/M").
const MAIN_LIBRARY_FROM_852: &str = "fcd64ce1-6995-48f0-840e-89ffa2288371";
const CATALOGED: &str = "9634a5ab-9228-4703-baf2-4d12ebc77d56";

fn shared(file: &str) -> Vec<u8> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data/marc/");
    std::fs::read(format!("{path}{file}")).unwrap()
}

async fn create(c: &Client<'_>, kind: &str, body: Value) -> String {
    let r = c.post(&format!("{BASE}/{kind}"), &body).await;
    assert_eq!(r.status, StatusCode::CREATED, "{kind}: {}", r.text);
    r.body["id"].as_str().unwrap().to_string()
}

/// An action profile with its mapping profile; the action's id.
async fn action(c: &Client<'_>, name: &str, action: &str, record: &str, fields: Value) -> String {
    let id = create(
        c,
        "actionProfiles",
        json!({"profile": {"name": name, "action": action, "folioRecord": record}}),
    )
    .await;
    create(c, "mappingProfiles", json!({
        "profile": {"name": name, "incomingRecordType": "MARC_BIBLIOGRAPHIC", "existingRecordType": record,
            "mappingDetails": {"name": record.to_lowercase(), "recordType": record, "mappingFields": fields}},
        "addedRelations": [{"masterProfileId": id, "masterProfileType": "ACTION_PROFILE",
            "detailProfileType": "MAPPING_PROFILE", "order": 0}]}))
    .await;
    id
}

/// A MARC field selector as a match expression's fields: tag, indicators, subfield.
fn marc_operand([tag, ind1, ind2, subfield]: [&str; 4]) -> Value {
    json!([{"label": "field", "value": tag}, {"label": "indicator1", "value": ind1},
        {"label": "indicator2", "value": ind2}, {"label": "recordSubfield", "value": subfield}])
}

/// No match qualifier on either side.
const UNQUALIFIED: [Value; 2] = [Value::Null, Value::Null];

/// A match of the incoming `field` (`tag`, indicators, subfield) against `existing`,
/// with a qualifier on each side (`null` for none).
async fn matcher(
    c: &Client<'_>,
    name: &str,
    incoming: [&str; 4],
    existing_type: &str,
    existing: Value,
    [incoming_qualifier, existing_qualifier]: [Value; 2],
) -> String {
    create(c, "matchProfiles", json!({"profile": {
        "name": name, "incomingRecordType": "MARC_BIBLIOGRAPHIC", "existingRecordType": existing_type,
        "matchDetails": [{
            "incomingRecordType": "MARC_BIBLIOGRAPHIC", "existingRecordType": existing_type,
            "incomingMatchExpression": {"dataValueType": "VALUE_FROM_RECORD",
                "fields": marc_operand(incoming), "qualifier": incoming_qualifier},
            "matchCriterion": "EXACTLY_MATCHES",
            "existingMatchExpression": {"dataValueType": "VALUE_FROM_RECORD", "fields": existing,
                "qualifier": existing_qualifier}}]}}))
    .await
}

/// A job profile of one match and the actions on each of its branches, in order.
async fn job(
    c: &Client<'_>,
    name: &str,
    matched: &str,
    on_match: &[&str],
    on_non_match: &[&str],
) -> String {
    let mut links = vec![json!({"masterProfileType": "JOB_PROFILE", "detailProfileId": matched,
        "detailProfileType": "MATCH_PROFILE", "order": 0})];
    for (react, actions) in [("MATCH", on_match), ("NON_MATCH", on_non_match)] {
        for (order, action) in actions.iter().enumerate() {
            links.push(json!({"masterProfileId": matched, "masterProfileType": "MATCH_PROFILE",
                "detailProfileId": action, "detailProfileType": "ACTION_PROFILE", "order": order,
                "reactTo": react}));
        }
    }
    let body = json!({"profile": {"name": name, "dataType": "MARC"}, "addedRelations": links});
    create(c, "jobProfiles", body).await
}

/// A job of `records` (MARC-in-JSON) posted in one chunk under `profile`; the job as it
/// ended.
async fn run(
    app: &TestApp,
    c: &Client<'_>,
    profile: &str,
    content: &str,
    records: Vec<String>,
) -> (String, Value) {
    let init = json!({"sourceType": "ONLINE", "userId": "00000000-0000-4000-8000-000000000000"});
    let r = c.post("/change-manager/jobExecutions", &init).await;
    let job = r.body["parentJobExecutionId"].as_str().unwrap().to_string();
    let info = json!({"id": profile, "name": "profile", "dataType": "MARC"});
    let r = c.put(&format!("/change-manager/jobExecutions/{job}/jobProfile"), &info).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let total = records.len();
    let records: Vec<Value> =
        records.into_iter().enumerate().map(|(i, r)| json!({"record": r, "order": i})).collect();
    let chunk = json!({"id": uuid::Uuid::new_v4(), "initialRecords": records,
        "recordsMetadata": {"last": true, "counter": total, "total": total, "contentType": content}});
    let r = c.post(&format!("/change-manager/jobExecutions/{job}/records"), &chunk).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
    let ended = app.wait_for_job("diku", &job).await;
    (job, ended)
}

/// 100.mrc by the default profile; its SRS records' MARC-in-JSON, in file order.
async fn catalogue(app: &TestApp, c: &Client<'_>) -> Vec<Value> {
    let bytes = shared("100.mrc");
    let raw: Vec<String> = bytes
        .split_inclusive(|b| *b == 0x1D)
        .map(|r| String::from_utf8_lossy(r).into_owned())
        .collect();
    let (job, ended) = run(app, c, DEFAULT_PROFILE, "MARC_RAW", raw).await;
    assert_eq!(ended["status"], "COMMITTED", "{ended}");
    let r = c.get(&format!("/source-storage/records?snapshotId={job}&limit=200")).await;
    let mut records = r.body["records"].as_array().unwrap().clone();
    records.sort_by_key(|r| r["order"].as_i64());
    records.into_iter().map(|r| r["parsedRecord"]["content"].clone()).collect()
}

fn subfield(marc: &Value, tag: &str, code: &str) -> Option<String> {
    marc["fields"].as_array()?.iter().filter_map(|f| f.get(tag)).find_map(|f| {
        f["subfields"].as_array()?.iter().find_map(|s| s.get(code)?.as_str().map(str::to_string))
    })
}

fn control(marc: &Value, tag: &str) -> Option<String> {
    marc["fields"].as_array()?.iter().find_map(|f| f.get(tag)?.as_str().map(str::to_string))
}

#[tokio::test]
async fn a_match_and_update_profile_overlays_records_without_duplicating_them() {
    let app = TestApp::new();
    let c = Client::admin(&app, "diku").await;
    let records = catalogue(&app, &c).await;

    let ids = marc_operand(["999", "f", "f", "i"]);
    let matched = matcher(
        &c,
        "999 ff $i",
        ["999", "f", "f", "i"],
        "MARC_BIBLIOGRAPHIC",
        ids.clone(),
        UNQUALIFIED,
    )
    .await;
    let update = action(&c, "Overlay", "UPDATE", "INSTANCE", json!([
        {"name": "statusId", "enabled": "true", "path": "instance.statusId", "value": "\"Cataloged\"",
         "acceptedValues": {CATALOGED: "Cataloged"}}])).await;
    let job_profile = job(&c, "Overlay by 999 ff $i", &matched, &[&update], &[]).await;

    // The catalogue's own records back, the first with a new title, and one naming an
    // instance that does not exist.
    let mut incoming = records.clone();
    let first = &mut incoming[0];
    for field in first["fields"].as_array_mut().unwrap() {
        if let Some(title) = field.get_mut("245") {
            title["subfields"] = json!([{"a": "An overlaid title"}]);
        }
    }
    let mut stranger = records[1].clone();
    for field in stranger["fields"].as_array_mut().unwrap() {
        if let Some(ids) = field.get_mut("999") {
            ids["subfields"] = json!([{"i": uuid::Uuid::new_v4().to_string()}]);
        }
    }
    incoming.push(stranger);
    let incoming: Vec<String> = incoming.iter().map(Value::to_string).collect();
    let (job, ended) = run(&app, &c, &job_profile, "MARC_JSON", incoming).await;
    let errors = c.get(&format!("/metadata-provider/jobLogEntries/{job}?errorsOnly=true")).await;
    assert_eq!(ended["status"], "COMMITTED", "{}", errors.text);

    let r = c.get("/instance-storage/instances?limit=0").await;
    assert_eq!(r.body["totalRecords"], 100, "no instance made twice");
    let summary = c.get(&format!("/metadata-provider/jobSummary/{job}")).await.body;
    assert_eq!(summary["instanceSummary"]["totalUpdatedEntities"], 100, "{summary}");
    assert_eq!(summary["instanceSummary"]["totalDiscardedEntities"], 1, "{summary}");
    assert_eq!(summary["totalErrors"], 0);

    let instance_id = subfield(&records[0], "999", "i").unwrap();
    let srs_id = subfield(&records[0], "999", "s").unwrap();
    let hrid = control(&records[0], "001").unwrap();
    let instance = c.get(&format!("/instance-storage/instances/{instance_id}")).await.body;
    assert_eq!(instance["title"], "An overlaid title");
    assert_eq!(instance["hrid"], hrid, "the overlay keeps the HRID");
    assert_eq!(instance["statusId"], CATALOGED, "the profile's mapping is applied");
    assert_eq!(instance["_version"], 2);
    // The SRS record's next generation: same matched id (999 ff $s), 001 the HRID.
    let r =
        c.get(&format!("/source-storage/records/{instance_id}/formatted?idType=INSTANCE")).await;
    assert_eq!(r.body["generation"], 1, "{}", r.text);
    assert_eq!(r.body["matchedId"], srs_id);
    let marc = &r.body["parsedRecord"]["content"];
    assert_eq!(subfield(marc, "999", "s").as_deref(), Some(srs_id.as_str()));
    assert_eq!(control(marc, "001").as_deref(), Some(hrid.as_str()));
    let old = c.get(&format!("/source-storage/records/{srs_id}")).await.body;
    assert_eq!(old["state"], "OLD");
    let r = c.get("/search/instances?query=title%3D%22overlaid%20title%22").await;
    assert_eq!(r.body["totalRecords"], 1, "{}", r.text);

    let r = c.get(&format!("/metadata-provider/jobLogEntries/{job}?limit=200")).await;
    let entries = r.body["entries"].as_array().unwrap();
    let last = entries.iter().find(|e| e["sourceRecordOrder"] == "100").unwrap();
    assert_eq!(last["relatedInstanceInfo"]["actionStatus"], "DISCARDED", "{last}");
    assert_eq!(entries[0]["relatedInstanceInfo"]["actionStatus"], "UPDATED");
}

#[tokio::test]
async fn a_vendor_load_makes_holdings_and_items_from_949_fields() {
    let app = TestApp::new();
    let c = Client::admin(&app, "diku").await;
    let records = catalogue(&app, &c).await;

    let hrid = [json!({"label": "field", "value": "instance.hrid"})];
    let matched =
        matcher(&c, "001 to HRID", ["001", "", "", ""], "INSTANCE", json!(hrid), UNQUALIFIED).await;
    let holdings_fields = json!([
        {"name": "permanentLocationId", "enabled": "true", "path": "holdings.permanentLocationId",
         "value": "949$l", "acceptedValues": {MAIN_LIBRARY: "Main Library (KU/CC/DI/M)",
            "53cf956f-c1df-410b-8bea-27f712cca7c0": "Annex (KU/CC/DI/A)"}},
        {"name": "callNumber", "enabled": "true", "path": "holdings.callNumber", "value": "949$a"}]);
    let item_fields = json!([
        {"name": "barcode", "enabled": "true", "path": "item.barcode", "value": "949$i"},
        {"name": "materialType", "enabled": "true", "path": "item.materialType.id", "value": "949$t"},
        {"name": "permanentLoanType", "enabled": "true", "path": "item.permanentLoanType.id",
         "value": "\"Can circulate\""},
        {"name": "status", "enabled": "true", "path": "item.status.name", "value": "\"Available\""}]);
    let holdings =
        action(&c, "Vendor holdings", "CREATE", "HOLDINGS", holdings_fields.clone()).await;
    let items = action(&c, "Vendor items", "CREATE", "ITEM", item_fields.clone()).await;
    let new_instance = action(&c, "Vendor instance", "CREATE", "INSTANCE", json!([])).await;
    let new_holdings =
        action(&c, "Vendor holdings (new)", "CREATE", "HOLDINGS", holdings_fields).await;
    let new_items = action(&c, "Vendor items (new)", "CREATE", "ITEM", item_fields).await;
    let on_match = [holdings.as_str(), &items];
    let on_non_match = [new_instance.as_str(), &new_holdings, &new_items];
    let job_profile = job(&c, "Vendor load", &matched, &on_match, &on_non_match).await;

    let with_949 = |record: &Value, copies: &[(&str, &str, &str)]| {
        let mut record = record.clone();
        let fields = record["fields"].as_array_mut().unwrap();
        for (location, barcode, material) in copies {
            fields.push(json!({"949": {"ind1": " ", "ind2": " ", "subfields": [
                {"l": location}, {"a": "QA76 .A1"}, {"i": barcode}, {"t": material}]}}));
        }
        record.to_string()
    };
    // A record of the catalogue with two copies at one place; a new record; one whose
    // location is nowhere.
    let bytes = shared("100.mrc");
    let fresh =
        marc::decode_lenient(bytes.split_inclusive(|b| *b == 0x1D).next_back().unwrap()).unwrap().0;
    let fresh: Value = serde_json::from_str(&marc::json::to_string(&fresh)).unwrap();
    let incoming = vec![
        with_949(
            &records[0],
            &[("KU/CC/DI/M", "vendor-1", "book"), ("KU/CC/DI/M", "vendor-2", "book")],
        ),
        with_949(&fresh, &[("Annex", "vendor-3", "book")]),
        with_949(&records[1], &[("The attic", "vendor-4", "book")]),
    ];
    let (job, ended) = run(&app, &c, &job_profile, "MARC_JSON", incoming).await;
    assert_eq!(ended["status"], "ERROR", "one record failed: {ended}");

    let instance_id = subfield(&records[0], "999", "i").unwrap();
    let r = c.get(&format!("/holdings-storage/holdings?query=instanceId%3D%3D{instance_id}")).await;
    assert_eq!(
        r.body["totalRecords"], 1,
        "two copies at one place share a holdings record: {}",
        r.text
    );
    let holdings = &r.body["holdingsRecords"][0];
    assert_eq!(holdings["permanentLocationId"], MAIN_LIBRARY);
    assert_eq!(holdings["callNumber"], "QA76 .A1");
    let holdings_id = holdings["id"].as_str().unwrap();
    let r = c.get(&format!("/item-storage/items?query=holdingsRecordId%3D%3D{holdings_id}")).await;
    let mut barcodes: Vec<&str> = r.body["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["barcode"].as_str().unwrap())
        .collect();
    barcodes.sort_unstable();
    assert_eq!(barcodes, ["vendor-1", "vendor-2"], "{}", r.text);
    assert_eq!(r.body["items"][0]["materialTypeId"], BOOK);
    assert_eq!(r.body["items"][0]["status"]["name"], "Available");

    // The new record became an instance with its holdings and item.
    let r = c.get("/instance-storage/instances?limit=0").await;
    assert_eq!(r.body["totalRecords"], 101);
    let r = c.get("/item-storage/items?query=barcode%3D%3Dvendor-3").await;
    assert_eq!(r.body["totalRecords"], 1, "{}", r.text);

    // The record whose location is nowhere fails alone, and the log says why.
    let r = c.get("/item-storage/items?query=barcode%3D%3Dvendor-4").await;
    assert_eq!(r.body["totalRecords"], 0);
    let r = c.get(&format!("/metadata-provider/jobLogEntries/{job}?errorsOnly=true")).await;
    assert_eq!(r.body["totalRecords"], 1, "{}", r.text);
    let error = r.body["entries"][0]["error"].as_str().unwrap();
    assert!(error.contains("The attic"), "{error}");
    let r = c.get(&format!("/metadata-provider/jobLogEntries/{job}?limit=10")).await;
    let first = &r.body["entries"][0];
    assert_eq!(first["relatedHoldingsInfo"].as_array().unwrap().len(), 1, "{first}");
    assert_eq!(first["relatedItemInfo"].as_array().unwrap().len(), 2, "{first}");
}

#[tokio::test]
async fn a_profile_quire_cannot_run_ends_the_job_naming_the_step() {
    let app = TestApp::new();
    let c = Client::admin(&app, "diku").await;
    let hrid = [json!({"label": "field", "value": "instance.hrid"})];
    let matched =
        matcher(&c, "HRID", ["001", "", "", ""], "INSTANCE", json!(hrid), UNQUALIFIED).await;
    let update = action(&c, "Update holdings", "UPDATE", "HOLDINGS", json!([])).await;
    let job_profile = job(&c, "Holdings by HRID", &matched, &[&update], &[]).await;
    let bytes = shared("100.mrc");
    let raw = vec![
        String::from_utf8_lossy(bytes.split_inclusive(|b| *b == 0x1D).next().unwrap()).into_owned(),
    ];
    let (job, ended) = run(&app, &c, &job_profile, "MARC_RAW", raw).await;
    assert_eq!(ended["status"], "ERROR", "{ended}");
    assert_eq!(ended["errorStatus"], "FILE_PROCESSING_ERROR");
    let r = c.get("/instance-storage/instances?limit=0").await;
    assert_eq!(r.body["totalRecords"], 0);
    let r = c.get(&format!("/metadata-provider/jobLogEntries/{job}?errorsOnly=true")).await;
    let error = r.body["entries"][0]["error"].as_str().unwrap_or_default();
    assert!(error.contains("action profile 'Update holdings'"), "{}", r.text);
}

/// Matches on a 035 $a, the way vendor and copy-cataloguing loads find their records:
/// against existing MARC records' 035 $a, and against instances' identifiers. The
/// catalogue's own records come back (their 001 moved to a 035 when they went in);
/// those with a 035 $a overlay their instance, the others are discarded.
#[tokio::test]
async fn a_035_match_finds_records_by_marc_field_and_by_identifier() {
    let app = TestApp::new();
    let c = Client::admin(&app, "diku").await;
    catalogue(&app, &c).await;
    let bytes = shared("100.mrc");
    // Twenty of them; every other one without its 035s, so it matches nothing.
    let raw: Vec<String> = bytes
        .split_inclusive(|b| *b == 0x1D)
        .take(20)
        .enumerate()
        .map(|(n, r)| {
            let mut record = marc::decode_lenient(r).unwrap().0;
            assert!(record.fields_with_tag("035").any(|f| f.subfield('a').is_some()));
            if n % 2 == 1 {
                record.fields_mut().retain(|f| f.tag().as_str() != "035");
            }
            marc::json::to_string(&record)
        })
        .collect();
    let with_035 = 10;
    let field = marc_operand(["035", "", "", "a"]);
    let identifiers = [json!({"label": "field", "value": "instance.identifiers[].value"})];
    for (name, existing_type, existing) in [
        ("035 to MARC 035", "MARC_BIBLIOGRAPHIC", field.clone()),
        ("035 to identifiers", "INSTANCE", json!(identifiers)),
    ] {
        let matched =
            matcher(&c, name, ["035", "", "", "a"], existing_type, existing, UNQUALIFIED).await;
        let update = action(&c, &format!("{name} update"), "UPDATE", "INSTANCE", json!([])).await;
        let job_profile = job(&c, name, &matched, &[&update], &[]).await;
        let (job, ended) = run(&app, &c, &job_profile, "MARC_JSON", raw.clone()).await;
        let errors =
            c.get(&format!("/metadata-provider/jobLogEntries/{job}?errorsOnly=true")).await;
        assert_eq!(ended["status"], "COMMITTED", "{name}: {}", errors.text);
        let summary = c.get(&format!("/metadata-provider/jobSummary/{job}")).await.body;
        assert_eq!(
            summary["instanceSummary"]["totalUpdatedEntities"], with_035,
            "{name}: {summary}"
        );
        assert_eq!(summary["instanceSummary"]["totalDiscardedEntities"], 20 - with_035, "{name}");
    }
    let r = c.get("/instance-storage/instances?limit=0").await;
    assert_eq!(r.body["totalRecords"], 100, "no instance made twice");
}

/// A job of `records` (MARC-in-JSON) under a new profile that matches their `incoming`
/// field against existing MARC records' `existing` with `qualifiers` and updates the
/// instance found; the job's id and summary.
async fn overlay_by(
    app: &TestApp,
    c: &Client<'_>,
    name: &str,
    incoming: [&str; 4],
    existing: Value,
    qualifiers: [Value; 2],
    records: Vec<String>,
) -> (String, Value) {
    let matched = matcher(c, name, incoming, "MARC_BIBLIOGRAPHIC", existing, qualifiers).await;
    let update = action(c, &format!("{name} update"), "UPDATE", "INSTANCE", json!([])).await;
    let job_profile = job(c, name, &matched, &[&update], &[]).await;
    let (job, _) = run(app, c, &job_profile, "MARC_JSON", records).await;
    let summary = c.get(&format!("/metadata-provider/jobSummary/{job}")).await.body;
    (job, summary)
}

/// Match qualifiers, as loads of records from other systems use them. Each incoming
/// record carries its own OCLC numbers and the next record's local number from the
/// catalogue's old system, "(amdb)": an exact 035 match finds two records and fails it;
/// a qualifier taking only "(OCoLC)" values, on either side, finds its own record.
/// And an ISBN written "978-0-…-N (pbk.)" finds the record whose 024 holds its digits
/// when the incoming side compares digits only.
#[tokio::test]
async fn match_qualifiers_choose_and_trim_the_values_compared() {
    let app = TestApp::new();
    let c = Client::admin(&app, "diku").await;
    let existing = catalogue(&app, &c).await;
    let local = |marc: &Value| {
        let fields = marc["fields"].as_array().unwrap();
        let values = fields.iter().filter_map(|f| f.get("035")?["subfields"][0]["a"].as_str());
        values.into_iter().find(|v| v.starts_with("(amdb)")).unwrap().to_string()
    };
    let bytes = shared("100.mrc");
    let records: Vec<marc::Record> = bytes
        .split_inclusive(|b| *b == 0x1D)
        .take(10)
        .map(|r| marc::decode_lenient(r).unwrap().0)
        .collect();
    let mixed: Vec<String> = records
        .iter()
        .enumerate()
        .map(|(n, record)| {
            let mut record = record.clone();
            let next = local(&existing[n + 1]);
            let tag = marc::Tag::new("035").unwrap();
            record.push(marc::Field::data(tag, ' ', ' ', [('a', next.as_str())]).unwrap());
            marc::json::to_string(&record)
        })
        .collect();
    let field = marc_operand(["035", "", "", "a"]);
    let oclc = json!({"qualifierType": "BEGINS_WITH", "qualifierValue": "(OCoLC)"});
    for (name, qualifiers, updated, failed) in [
        ("035 exactly", [Value::Null, Value::Null], 0, 10),
        ("OCLC numbers coming in", [oclc.clone(), Value::Null], 10, 0),
        ("OCLC numbers there", [Value::Null, oclc.clone()], 10, 0),
    ] {
        let incoming = ["035", "", "", "a"];
        let (job, summary) =
            overlay_by(&app, &c, name, incoming, field.clone(), qualifiers, mixed.clone()).await;
        let instances = &summary["instanceSummary"];
        assert_eq!(instances["totalUpdatedEntities"], updated, "{name}: {summary}");
        assert_eq!(instances["totalErrors"], failed, "{name}: {summary}");
        if failed > 0 {
            let r = c.get(&format!("/metadata-provider/jobLogEntries/{job}?errorsOnly=true")).await;
            let error = r.body["entries"][0]["error"].as_str().unwrap_or_default();
            assert!(error.contains("Found multiple records"), "{name}: {}", r.text);
        }
    }

    // The ISBNs: the catalogue's next ten records take a 024 $a of digits, and come
    // back with the number hyphenated and qualified.
    let isbn = |n: usize| format!("97800000{n:05}");
    let with_024 = |n: usize, value: &str| {
        let mut record =
            marc::decode_lenient(bytes.split_inclusive(|b| *b == 0x1D).nth(10 + n).unwrap())
                .unwrap()
                .0;
        record.fields_mut().retain(|f| f.tag().as_str() != "001");
        let tag = marc::Tag::new("024").unwrap();
        record.push(marc::Field::data(tag, '3', ' ', [('a', value)]).unwrap());
        marc::json::to_string(&record)
    };
    let digits: Vec<String> = (0..10).map(|n| with_024(n, &isbn(n))).collect();
    let (_, ended) = run(&app, &c, DEFAULT_PROFILE, "MARC_JSON", digits).await;
    assert_eq!(ended["status"], "COMMITTED", "{ended}");
    let written: Vec<String> = (0..10)
        .map(|n| {
            let i = isbn(n);
            with_024(n, &format!("{}-{}-{}-{} (pbk.)", &i[..3], &i[3..4], &i[4..10], &i[10..]))
        })
        .collect();
    let numerics = json!({"comparisonPart": "NUMERICS_ONLY"});
    let field = marc_operand(["024", "3", "", "a"]);
    for (name, incoming, updated) in
        [("ISBN as written", Value::Null, 0), ("ISBN digits", numerics, 10)]
    {
        let qualifiers = [incoming, Value::Null];
        let marc = ["024", "3", "", "a"];
        let (_, summary) =
            overlay_by(&app, &c, name, marc, field.clone(), qualifiers, written.clone()).await;
        let instances = &summary["instanceSummary"];
        assert_eq!(instances["totalUpdatedEntities"], updated, "{name}: {summary}");
        assert_eq!(instances["totalDiscardedEntities"], 10 - updated, "{name}: {summary}");
    }
    let r = c.get("/instance-storage/instances?limit=0").await;
    assert_eq!(r.body["totalRecords"], 110, "no instance made twice");
}

/// FOLIO's other default job profiles a library can pick, each on real records: the
/// single-record import's create and update, quickMARC's derive, and quickMARC's
/// holdings create on an MFHD naming one of the instances.
#[tokio::test]
async fn the_other_default_job_profiles_run() {
    const SINGLE_CREATE: &str = "d0ebb7b0-2f0f-11eb-adc1-0242ac120002";
    const SINGLE_UPDATE: &str = "91f9b8d6-d80e-4727-9783-73fb53e3c786";
    const DERIVE: &str = "6409dcff-71fa-433a-bc6a-e70ad38a9604";
    const QUICKMARC_HOLDINGS: &str = "fa0262c7-5816-48d0-b9b3-7b7a862a5bc7";
    let app = TestApp::new();
    let c = Client::admin(&app, "diku").await;
    let bytes = shared("100.mrc");
    let raw: Vec<String> = bytes
        .split_inclusive(|b| *b == 0x1D)
        .take(10)
        .map(|r| String::from_utf8_lossy(r).into_owned())
        .collect();
    let summary = |job: String| {
        let c = &c;
        async move { c.get(&format!("/metadata-provider/jobSummary/{job}")).await.body }
    };
    let mut jobs = Vec::new();
    for profile in [SINGLE_CREATE, DERIVE] {
        let (job, ended) = run(&app, &c, profile, "MARC_RAW", raw.clone()).await;
        assert_eq!(ended["status"], "COMMITTED", "{profile}: {ended}");
        let made = summary(job.clone()).await;
        assert_eq!(made["instanceSummary"]["totalCreatedEntities"], 10, "{profile}: {made}");
        assert_eq!(made["sourceRecordSummary"]["totalCreatedEntities"], 10, "{profile}: {made}");
        jobs.push(job);
    }
    let r = c.get("/instance-storage/instances?limit=0").await;
    assert_eq!(r.body["totalRecords"], 20);

    // The first job's records come back, each with the 999 ff $i it was given.
    let r = c.get(&format!("/source-storage/records?snapshotId={}&limit=20", jobs[0])).await;
    let mut records = r.body["records"].as_array().unwrap().clone();
    records.sort_by_key(|r| r["order"].as_i64());
    let back: Vec<String> =
        records.iter().map(|r| r["parsedRecord"]["content"].to_string()).collect();
    let (job, ended) = run(&app, &c, SINGLE_UPDATE, "MARC_JSON", back).await;
    assert_eq!(ended["status"], "COMMITTED", "{ended}");
    let made = summary(job).await;
    assert_eq!(made["sourceRecordSummary"]["totalUpdatedEntities"], 10, "{made}");
    assert_eq!(made["instanceSummary"]["totalUpdatedEntities"], 10, "{made}");
    let r = c.get("/instance-storage/instances?limit=0").await;
    assert_eq!(r.body["totalRecords"], 20, "no instance made twice");

    // An MFHD for the first instance.
    let first = &records[0];
    let hrid = first["externalIdsHolder"]["instanceHrid"].as_str().unwrap();
    let t = |t: &str| marc::Tag::new(t).unwrap();
    let mut mfhd = marc::Record::new(marc::Leader::new("00000nx  a2200000zn 4500").unwrap());
    mfhd.push(marc::Field::control(t("004"), hrid).unwrap());
    mfhd.push(marc::Field::control(t("008"), "1011280u    8   4001uueng0000000").unwrap());
    let location = [('b', "KU/CC/DI/M"), ('h', "PS1305"), ('i', ".A1 1985")];
    mfhd.push(marc::Field::data(t("852"), '0', ' ', location).unwrap());
    let (job, ended) =
        run(&app, &c, QUICKMARC_HOLDINGS, "MARC_JSON", vec![marc::json::to_string(&mfhd)]).await;
    assert_eq!(ended["status"], "COMMITTED", "{ended}");
    let made = summary(job).await;
    assert_eq!(made["holdingSummary"]["totalCreatedEntities"], 1, "{made}");
    let instance = first["externalIdsHolder"]["instanceId"].as_str().unwrap();
    let r = c.get(&format!("/holdings-storage/holdings?query=instanceId=={instance}")).await;
    assert_eq!(r.body["totalRecords"], 1, "{}", r.text);
    let holdings = &r.body["holdingsRecords"][0];
    assert_eq!(holdings["permanentLocationId"], MAIN_LIBRARY_FROM_852, "{holdings}");
    assert_eq!(holdings["callNumber"], "PS1305 .A1 1985", "{holdings}");
}

/// FOLIO's default create profile is the tenant's to edit: with a holdings action
/// added beside its instance action, a job under it makes the holdings too.
#[tokio::test]
async fn an_edited_default_create_profile_runs_as_edited() {
    let app = TestApp::new();
    let c = Client::admin(&app, "diku").await;
    let bytes = shared("100.mrc");
    let with_949: Vec<String> = bytes
        .split_inclusive(|b| *b == 0x1D)
        .take(3)
        .map(|r| {
            let mut record = marc::decode_lenient(r).unwrap().0;
            let location = [('l', "KU/CC/DI/M"), ('a', "QA76 .A1")];
            record.push(
                marc::Field::data(marc::Tag::new("949").unwrap(), ' ', ' ', location).unwrap(),
            );
            marc::json::to_string(&record)
        })
        .collect();
    let holdings = || async {
        c.get("/holdings-storage/holdings?limit=0").await.body["totalRecords"].as_u64().unwrap()
    };
    let (_, ended) = run(&app, &c, DEFAULT_PROFILE, "MARC_JSON", with_949.clone()).await;
    assert_eq!(ended["status"], "COMMITTED", "{ended}");
    assert_eq!(holdings().await, 0, "the default makes instances only");

    let fields = json!([
        {"name": "permanentLocationId", "enabled": "true", "path": "holdings.permanentLocationId",
         "value": "949$l", "acceptedValues": {MAIN_LIBRARY: "Main Library (KU/CC/DI/M)"}},
        {"name": "callNumber", "enabled": "true", "path": "holdings.callNumber", "value": "949$a"}]);
    let added = action(&c, "Holdings from 949", "CREATE", "HOLDINGS", fields).await;
    let r = c.get(&format!("{BASE}/jobProfiles/{DEFAULT_PROFILE}")).await;
    let edit = json!({"profile": r.body, "addedRelations": [{"masterProfileId": DEFAULT_PROFILE,
        "masterProfileType": "JOB_PROFILE", "detailProfileId": added,
        "detailProfileType": "ACTION_PROFILE", "order": 1}]});
    let r = c.put(&format!("{BASE}/jobProfiles/{DEFAULT_PROFILE}"), &edit).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let (job, ended) = run(&app, &c, DEFAULT_PROFILE, "MARC_JSON", with_949).await;
    assert_eq!(ended["status"], "COMMITTED", "{ended}");
    let summary = c.get(&format!("/metadata-provider/jobSummary/{job}")).await.body;
    assert_eq!(summary["instanceSummary"]["totalCreatedEntities"], 3, "{summary}");
    assert_eq!(summary["holdingSummary"]["totalCreatedEntities"], 3, "{summary}");
    assert_eq!(holdings().await, 3);
}

/// MARC field protection: a local 590 the library protects survives an overlay by a
/// record without it, unless the profile overrides the setting; the system settings
/// cannot be removed.
#[tokio::test]
async fn an_overlay_keeps_the_fields_the_library_protects() {
    let app = TestApp::new();
    let c = Client::admin(&app, "diku").await;
    let records = catalogue(&app, &c).await;
    let r = c.get("/field-protection-settings/marc?query=source%3D%3DSYSTEM").await;
    assert_eq!(r.body["totalRecords"], 2, "{}", r.text);
    let system = r.body["marcFieldProtectionSettings"][0]["id"].as_str().unwrap().to_string();
    let r = c.delete(&format!("/field-protection-settings/marc/{system}")).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.text);
    let local =
        json!({"field": "590", "indicator1": "*", "indicator2": "*", "subfield": "a", "data": "*"});
    let r = c.post("/field-protection-settings/marc", &local).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let protection = r.body["id"].as_str().unwrap().to_string();
    let bad = json!({"field": "59", "subfield": "a", "data": "*"});
    let r = c.post("/field-protection-settings/marc", &bad).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.text);

    let ids = marc_operand(["999", "f", "f", "i"]);
    let matched = matcher(
        &c,
        "By instance id",
        ["999", "f", "f", "i"],
        "MARC_BIBLIOGRAPHIC",
        ids.clone(),
        UNQUALIFIED,
    )
    .await;
    let update = action(&c, "Overlay keeping local fields", "UPDATE", "INSTANCE", json!([])).await;
    let job_profile = job(&c, "Overlay keeping local fields", &matched, &[&update], &[]).await;
    let with_note = |record: &Value, title: &str, note: bool| {
        let mut record = record.clone();
        let fields = record["fields"].as_array_mut().unwrap();
        for field in fields.iter_mut() {
            if let Some(t) = field.get_mut("245") {
                t["subfields"] = json!([{"a": title}]);
            }
        }
        if note {
            fields.push(json!({"590": {"ind1": " ", "ind2": " ", "subfields": [{"a": "Signed by the author."}]}}));
        }
        record.to_string()
    };
    let instance_id = subfield(&records[0], "999", "i").unwrap();
    let srs_path = format!("/source-storage/records/{instance_id}/formatted?idType=INSTANCE");
    // The local note goes in; then a record without it overlays: the note stays.
    let (_, ended) =
        run(&app, &c, &job_profile, "MARC_JSON", vec![with_note(&records[0], "First", true)]).await;
    assert_eq!(ended["status"], "COMMITTED", "{ended}");
    let (_, ended) =
        run(&app, &c, &job_profile, "MARC_JSON", vec![with_note(&records[0], "Second", false)])
            .await;
    assert_eq!(ended["status"], "COMMITTED", "{ended}");
    let source = c.get(&srs_path).await.body;
    assert_eq!(source["generation"], 2);
    let marc = &source["parsedRecord"]["content"];
    assert_eq!(subfield(marc, "590", "a").as_deref(), Some("Signed by the author."), "{marc}");
    assert_eq!(subfield(marc, "245", "a").as_deref(), Some("Second"));
    let instance = c.get(&format!("/instance-storage/instances/{instance_id}")).await.body;
    assert_eq!(instance["title"], "Second");
    let notes = instance["notes"].as_array().unwrap();
    assert!(notes.iter().any(|n| n["note"] == "Signed by the author"), "{notes:?}");

    // A profile that overrides the setting lets the overlay drop the note.
    let overriding = create(
        &c,
        "actionProfiles",
        json!({"profile": {
        "name": "Overlay dropping local fields", "action": "UPDATE", "folioRecord": "INSTANCE"}}),
    )
    .await;
    create(&c, "mappingProfiles", json!({
        "profile": {"name": "Overlay dropping local fields", "incomingRecordType": "MARC_BIBLIOGRAPHIC",
            "existingRecordType": "INSTANCE",
            "mappingDetails": {"name": "instance", "recordType": "INSTANCE", "mappingFields": []},
            "marcFieldProtectionSettings": [{"id": protection, "field": "590", "indicator1": "*",
                "indicator2": "*", "subfield": "a", "data": "*", "source": "USER", "override": true}]},
        "addedRelations": [{"masterProfileId": overriding, "masterProfileType": "ACTION_PROFILE",
            "detailProfileType": "MAPPING_PROFILE", "order": 0}]})).await;
    let matched2 = matcher(
        &c,
        "By instance id again",
        ["999", "f", "f", "i"],
        "MARC_BIBLIOGRAPHIC",
        ids.clone(),
        UNQUALIFIED,
    )
    .await;
    let job2 = job(&c, "Overlay dropping local fields", &matched2, &[&overriding], &[]).await;
    let (_, ended) =
        run(&app, &c, &job2, "MARC_JSON", vec![with_note(&records[0], "Third", false)]).await;
    assert_eq!(ended["status"], "COMMITTED", "{ended}");
    let marc = c.get(&srs_path).await.body["parsedRecord"]["content"].clone();
    assert_eq!(subfield(&marc, "590", "a"), None, "{marc}");
    assert_eq!(subfield(&marc, "245", "a").as_deref(), Some("Third"));
}
