//! MARC data import through FOLIO's APIs: the web client's upload and `processFiles`, a
//! scripted client's chunks, and the job reporting both read. Each job runs on the
//! server's import runner; a test waits for its end on the change log.

use axum::http::{Method, StatusCode};
use serde_json::{Value, json};

use crate::support::{Client, TestApp};

const DEFAULT_PROFILE: &str = "e34d7b92-9b83-11eb-a8b3-0242ac130003";

pub(crate) fn shared(file: &str) -> Vec<u8> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data/marc/");
    std::fs::read(format!("{path}{file}")).unwrap()
}

fn profile() -> Value {
    json!({"id": DEFAULT_PROFILE, "name": "Default - Create instance and SRS MARC Bib", "dataType": "MARC"})
}

/// The web client's steps: a definition, the file, `processFiles`; the job's id.
pub(crate) async fn upload_and_process(
    app: &TestApp,
    c: &Client<'_>,
    name: &str,
    bytes: Vec<u8>,
) -> String {
    let r = c
        .post("/data-import/uploadDefinitions", &json!({"fileDefinitions": [{"name": name}]}))
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let definition = r.body;
    let id = definition["id"].as_str().unwrap();
    let file = definition["fileDefinitions"][0]["id"].as_str().unwrap();
    let job = definition["fileDefinitions"][0]["jobExecutionId"].as_str().unwrap().to_string();
    assert_eq!(definition["metaJobExecutionId"], job);
    let path = format!("/data-import/uploadDefinitions/{id}/files/{file}");
    let r = app.send(Method::POST, &path, Some("diku"), Some(&c.token), Some(bytes)).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.body["status"], "LOADED");
    assert_eq!(r.body["fileDefinitions"][0]["status"], "UPLOADED");
    let process = json!({"uploadDefinition": r.body, "jobProfileInfo": profile()});
    let r = c.post(&format!("/data-import/uploadDefinitions/{id}/processFiles"), &process).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
    job
}

/// The values of subfield `code` of every `tag` field of a MARC-in-JSON record.
fn subfields<'a>(marc: &'a Value, tag: &str, code: &str) -> Vec<&'a str> {
    marc["fields"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f.get(tag))
        .flat_map(|f| f["subfields"].as_array().into_iter().flatten())
        .filter_map(|s| s.get(code).and_then(Value::as_str))
        .collect()
}

#[tokio::test]
async fn a_file_uploaded_by_the_web_client_becomes_instances_and_source_records() {
    let app = TestApp::new();
    let c = Client::admin(&app, "diku").await;
    let job = upload_and_process(&app, &c, "100.mrc", shared("100.mrc")).await;
    let ended = app.wait_for_job("diku", &job).await;
    assert_eq!(ended["status"], "COMMITTED", "{ended}");
    assert_eq!(ended["uiStatus"], "RUNNING_COMPLETE");
    assert_eq!(
        (&ended["progress"]["current"], &ended["progress"]["total"]),
        (&json!(100), &json!(100))
    );
    assert_eq!(ended["fileName"], "100.mrc");
    assert_eq!(ended["jobProfileInfo"]["id"], DEFAULT_PROFILE);

    // The logs list the job, as the web client asks for it.
    let logs = "/metadata-provider/jobExecutions?statusAny=COMMITTED&statusAny=ERROR&statusAny=CANCELLED\
        &profileIdNotAny=d0ebb7b0-2f0f-11eb-adc1-0242ac120002&fileNameNotAny=No%20file%20name\
        &excludeJobProfileName=Bulk%20operations%20data%20import%20job%20profile-*&limit=25&sortBy=completed_date,desc";
    let r = c.get(logs).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.body["totalRecords"], 1, "{}", r.text);
    assert_eq!(r.body["jobExecutions"][0]["id"], job);
    let running =
        c.get("/metadata-provider/jobExecutions?statusNot=DISCARDED&uiStatusAny=RUNNING").await;
    assert_eq!(running.body["totalRecords"], 0, "{}", running.text);

    let summary = c.get(&format!("/metadata-provider/jobSummary/{job}")).await;
    assert_eq!(summary.body["instanceSummary"]["totalCreatedEntities"], 100, "{}", summary.text);
    assert_eq!(summary.body["sourceRecordSummary"]["totalCreatedEntities"], 100);
    assert_eq!(summary.body["totalErrors"], 0);

    // Every record's log entry, its SRS record and instance agree with its MARC.
    let r = c.get(&format!("/metadata-provider/jobLogEntries/{job}?limit=100")).await;
    assert_eq!(r.body["totalRecords"], 100, "{}", r.text);
    let entries = r.body["entries"].as_array().unwrap().clone();
    for (n, entry) in entries.iter().enumerate() {
        assert_eq!(entry["sourceRecordOrder"], n.to_string());
        assert_eq!(entry["sourceRecordActionStatus"], "CREATED");
        let instance_id = entry["relatedInstanceInfo"]["idList"][0].as_str().unwrap();
        let hrid = entry["relatedInstanceInfo"]["hridList"][0].as_str().unwrap();
        let srs_id = entry["sourceRecordId"].as_str().unwrap();
        let source = c.get(&format!("/source-storage/records/{srs_id}")).await;
        let marc = &source.body["parsedRecord"]["content"];
        let control = marc["fields"].as_array().unwrap().iter().find_map(|f| f.get("001")).unwrap();
        assert_eq!(control, hrid, "001 is the instance HRID");
        assert_eq!(subfields(marc, "999", "i"), [instance_id]);
        assert_eq!(subfields(marc, "999", "s"), [srs_id]);
        assert_eq!(source.body["externalIdsHolder"]["instanceId"], instance_id);

        let instance = c.get(&format!("/instance-storage/instances/{instance_id}")).await.body;
        assert_eq!(instance["hrid"], hrid);
        assert_eq!(instance["source"], "MARC");
        assert_eq!(entry["sourceRecordTitle"], instance["title"]);
        // The title is 245 $a $n $p $b $c $f $g $h $k $s, as the default rules say.
        let title_field =
            marc["fields"].as_array().unwrap().iter().rev().find_map(|f| f.get("245"));
        if let Some(field) = title_field {
            let parts: Vec<&str> = field["subfields"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|s| s.as_object())
                .filter(|s| s.keys().all(|k| "anpbcfghks".contains(k.as_str())))
                .filter_map(|s| s.values().next().and_then(Value::as_str))
                .collect();
            assert_eq!(instance["title"], parts.join(" "), "{hrid}");
        }
        // One ISBN identifier per 020 $a.
        let isbns = subfields(marc, "020", "a").len();
        let isbn_type = "8261054f-be78-422d-bd51-4ed9f33c3422";
        let mapped = instance["identifiers"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|i| i["identifierTypeId"] == isbn_type)
            .count();
        assert_eq!(mapped, isbns, "{hrid}");
        // The old control number is kept in a 035.
        assert!(!subfields(marc, "035", "a").is_empty(), "{hrid}");
    }

    // Every instance is searchable once the job says COMMITTED.
    let hrid = entries[0]["relatedInstanceInfo"]["hridList"][0].as_str().unwrap();
    let r = c.get(&format!("/search/instances?query=hrid%3D%3D{hrid}")).await;
    assert_eq!(r.body["totalRecords"], 1, "{}", r.text);
    let r = c.get("/search/instances?query=source%3D%3DMARC&limit=0").await;
    assert_eq!(r.body["totalRecords"], 100, "{}", r.text);
}

#[tokio::test]
async fn a_scripted_client_posts_chunks_in_each_format() {
    let app = TestApp::new();
    let c = Client::admin(&app, "diku").await;
    let init = json!({"sourceType": "ONLINE", "userId": "00000000-0000-4000-8000-000000000000"});
    let r = c.post("/change-manager/jobExecutions", &init).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let job = r.body["parentJobExecutionId"].as_str().unwrap().to_string();
    assert_eq!(r.body["jobExecutions"][0]["status"], "NEW");
    assert_eq!(r.body["jobExecutions"][0]["fileName"], "No file name");

    // Records before a profile are refused.
    let chunk = |records: Vec<Value>, content: &str, last: bool, counter: usize| {
        json!({"id": uuid::Uuid::new_v4(), "initialRecords": records,
            "recordsMetadata": {"last": last, "counter": counter, "total": 6, "contentType": content}})
    };
    let bytes = shared("CornellFOLIOExemplars.mrc");
    let raw: Vec<&[u8]> = bytes.split_inclusive(|b| *b == 0x1D).take(3).collect();
    let raw_records: Vec<Value> = raw
        .iter()
        .enumerate()
        .map(|(i, r)| json!({"record": String::from_utf8_lossy(r), "order": i}))
        .collect();
    let path = format!("/change-manager/jobExecutions/{job}/records");
    let r = c.post(&path, &chunk(raw_records.clone(), "MARC_RAW", false, 3)).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.text);

    let r = c.put(&format!("/change-manager/jobExecutions/{job}/jobProfile"), &profile()).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.body["jobProfileInfo"]["id"], DEFAULT_PROFILE);
    let r = c.post(&path, &chunk(raw_records, "MARC_RAW", false, 3)).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);

    // The same records as MARC-in-JSON and MARCXML, then a broken one, last.
    let record = marc::decode_lenient(raw[0]).unwrap().0;
    let as_json = marc::json::to_string(&record);
    let as_xml = marc::marcxml::to_string(&record);
    let more = vec![json!({"record": as_json, "order": 3})];
    assert_eq!(
        c.post(&path, &chunk(more, "MARC_JSON", false, 4)).await.status,
        StatusCode::NO_CONTENT
    );
    let last = vec![
        json!({"record": as_xml, "order": 4}),
        json!({"record": "<record><leader>broken</leader>", "order": 5}),
    ];
    assert_eq!(
        c.post(&path, &chunk(last, "MARC_XML", true, 6)).await.status,
        StatusCode::NO_CONTENT
    );

    let ended = app.wait_for_job("diku", &job).await;
    assert_eq!(ended["status"], "ERROR", "one record failed: {ended}");
    assert_eq!(ended["progress"]["current"], 6);
    let r = c.get(&format!("/metadata-provider/jobLogEntries/{job}?errorsOnly=true")).await;
    assert_eq!(r.body["totalRecords"], 1, "{}", r.text);
    assert_eq!(r.body["entries"][0]["sourceRecordOrder"], "5");
    assert!(r.body["entries"][0]["error"].as_str().unwrap().contains("MARCXML"), "{}", r.text);
    let summary = c.get(&format!("/metadata-provider/jobSummary/{job}")).await.body;
    assert_eq!(summary["instanceSummary"]["totalCreatedEntities"], 5);
    assert_eq!(summary["totalErrors"], 1);

    // An ended job takes no more records and cannot be cancelled.
    let r = c.post(&path, &chunk(vec![], "MARC_RAW", true, 7)).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.text);
    let r = c.delete(&path).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.text);
    let unknown = format!("/change-manager/jobExecutions/{}/records", uuid::Uuid::new_v4());
    assert_eq!(c.delete(&unknown).await.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn a_job_can_be_cancelled_and_a_profile_quire_cannot_run_ends_it_with_a_reason() {
    let app = TestApp::new();
    let c = Client::admin(&app, "diku").await;
    let r = c
        .post(
            "/change-manager/jobExecutions",
            &json!({"sourceType": "ONLINE", "userId": "00000000-0000-4000-8000-000000000000"}),
        )
        .await;
    let job = r.body["parentJobExecutionId"].as_str().unwrap().to_string();
    let r = c.delete(&format!("/change-manager/jobExecutions/{job}/records")).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
    let r = c.get(&format!("/change-manager/jobExecutions/{job}")).await;
    assert_eq!(r.body["status"], "CANCELLED", "{}", r.text);

    let unknown_profile = "/data-import/uploadDefinitions";
    let r = c.post(unknown_profile, &json!({"fileDefinitions": [{"name": "x.mrc"}]})).await;
    let definition = r.body;
    let id = definition["id"].as_str().unwrap();
    let file = definition["fileDefinitions"][0]["id"].as_str().unwrap();
    let job = definition["fileDefinitions"][0]["jobExecutionId"].as_str().unwrap().to_string();
    let path = format!("/data-import/uploadDefinitions/{id}/files/{file}");
    app.send(Method::POST, &path, Some("diku"), Some(&c.token), Some(shared("100.mrc"))).await;
    let process = json!({"uploadDefinition": {}, "jobProfileInfo": {"id": uuid::Uuid::new_v4(), "name": "Mine", "dataType": "MARC"}});
    let r = c.post(&format!("/data-import/uploadDefinitions/{id}/processFiles"), &process).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
    let ended = app.wait_for_job("diku", &job).await;
    assert_eq!(ended["status"], "ERROR");
    assert_eq!(ended["errorStatus"], "FILE_PROCESSING_ERROR");
    let r = c.get(&format!("/data-import/uploadDefinitions/{}", uuid::Uuid::new_v4())).await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    assert_eq!(
        c.delete(&format!("/data-import/uploadDefinitions/{id}")).await.status,
        StatusCode::NO_CONTENT
    );
}

/// What FOLIO's web client reads around an upload: the file extensions (FOLIO's
/// defaults, editable, restorable), data types, the split setting; and its log
/// housekeeping: a job's children, a status set by a client, deleting logs.
#[tokio::test]
async fn the_web_clients_settings_and_log_housekeeping() {
    let app = TestApp::new();
    let c = Client::admin(&app, "diku").await;
    let r = c.get("/data-import/fileExtensions?query=extension%3D%3D%22.mrc%22").await;
    assert_eq!(r.body["totalRecords"], 1, "{}", r.text);
    assert_eq!(r.body["fileExtensions"][0]["dataTypes"], json!(["MARC"]));
    assert_eq!(r.body["fileExtensions"][0]["importBlocked"], false);
    let r = c.get("/data-import/fileExtensions?query=importBlocked%3D%3Dtrue&limit=100").await;
    assert_eq!(r.body["totalRecords"], 6, "{}", r.text);
    let r = c.get("/data-import/fileExtensions?limit=100").await;
    assert_eq!(r.body["totalRecords"], 13);

    let mine = json!({"extension": ".mrc8", "dataTypes": ["MARC"], "importBlocked": false});
    let r = c.post("/data-import/fileExtensions", &mine).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let r = c.post("/data-import/fileExtensions", &mine).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "a taken extension: {}", r.text);
    let blocked_with_type =
        json!({"extension": ".bin", "dataTypes": ["MARC"], "importBlocked": true});
    let r = c.post("/data-import/fileExtensions", &blocked_with_type).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.text);
    let r = c.post("/data-import/fileExtensions/restore/default", &json!({})).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.body["totalRecords"], 13, "{}", r.text);

    let r = c.get("/data-import/dataTypes").await;
    assert_eq!(r.body, json!({"dataTypes": ["MARC", "EDIFACT"], "totalRecords": 2}));
    let r = c.get("/data-import/splitStatus").await;
    assert_eq!(r.body, json!({"splitStatus": false}));

    // Two jobs: one ends, one is stopped by a client's status.
    let job = upload_and_process(&app, &c, "100.mrc", shared("100.mrc")).await;
    assert_eq!(app.wait_for_job("diku", &job).await["status"], "COMMITTED");
    let init = json!({"sourceType": "ONLINE", "userId": "00000000-0000-4000-8000-000000000000"});
    let online = c.post("/change-manager/jobExecutions", &init).await.body["parentJobExecutionId"]
        .as_str()
        .unwrap()
        .to_string();
    let r = c.get(&format!("/change-manager/jobExecutions/{job}/children")).await;
    assert_eq!(r.body, json!({"jobExecutions": [], "totalRecords": 0}));
    let status = json!({"status": "ERROR", "errorStatus": "FILE_PROCESSING_ERROR"});
    let r = c.put(&format!("/change-manager/jobExecutions/{online}/status"), &status).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!((&r.body["status"], &r.body["uiStatus"]), (&json!("ERROR"), &json!("ERROR")));
    let r = c.put(&format!("/change-manager/jobExecutions/{online}/status"), &status).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "an ended job keeps its status");

    let running = c.post("/change-manager/jobExecutions", &init).await.body["parentJobExecutionId"]
        .as_str()
        .unwrap()
        .to_string();
    let ids = json!({"ids": [job, running]});
    let body = Some(ids.to_string().into_bytes());
    let r = app
        .send(Method::DELETE, "/change-manager/jobExecutions", Some("diku"), Some(&c.token), body)
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(
        r.body["jobExecutionDetails"],
        json!([{"jobExecutionId": job, "isDeleted": true}, {"jobExecutionId": running, "isDeleted": false}])
    );
    assert_eq!(
        c.get(&format!("/change-manager/jobExecutions/{job}")).await.status,
        StatusCode::NOT_FOUND
    );
    let r = c.get(&format!("/metadata-provider/jobLogEntries/{job}")).await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    let r = c.get("/instance-storage/instances?limit=0").await;
    assert_eq!(r.body["totalRecords"], 100, "the records a deleted log names stay");
}
