//! Bulk edit (mod-bulk-operations): identifiers uploaded or a query, matched, edited by
//! rules, committed with optimistic locking, and rolled back.

use axum::http::{Method, StatusCode};
use serde_json::{Value, json};

use crate::support::{Client, Response, TestApp};

fn urlencode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// FOLIO's reference patron groups, seeded into every tenant.
const STAFF: &str = "3684a786-6671-4268-8ed0-9db82ebca60b";
const UNDERGRAD: &str = "bdc2b6d4-5ceb-4a12-ab46-249b9a68473e";

/// Uploads an identifiers file as FOLIO's web client does (multipart, part `file`).
pub(crate) async fn upload(client: &Client<'_>, entity: &str, kind: &str, lines: &str) -> Response {
    let boundary = "quire-test-boundary";
    let body = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"ids.csv\"\r\n\
         Content-Type: text/csv\r\n\r\n{lines}\r\n--{boundary}--\r\n"
    );
    let path =
        format!("/bulk-operations/upload?entityType={entity}&identifierType={kind}&manual=false");
    client
        .app
        .send_typed(
            Method::POST,
            &path,
            Some(&client.tenant),
            Some(&client.token),
            &format!("multipart/form-data; boundary={boundary}"),
            Some(body.into_bytes()),
        )
        .await
}

/// Starts a step and waits for it to end.
pub(crate) async fn run_step(client: &Client<'_>, id: &str, step: &str) -> Value {
    let r = client
        .post(&format!("/bulk-operations/{id}/start"), &json!({"step": step, "approach": "IN_APP"}))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{step}: {}", r.text);
    client.app.wait_for_bulk(&client.tenant, id).await
}

/// Sends the rules, previews them (EDIT) and commits them; the operation as it ended.
pub(crate) async fn edit_and_commit(client: &Client<'_>, id: &str, rules: &Value) -> Value {
    let r = client.post(&format!("/bulk-operations/{id}/content-update"), rules).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(run_step(client, id, "EDIT").await["status"], "REVIEW_CHANGES");
    run_step(client, id, "COMMIT").await
}

pub(crate) fn rules(id: &str, rules: Value) -> Value {
    let list: Vec<Value> = rules
        .as_array()
        .unwrap()
        .iter()
        .map(|r| json!({"bulkOperationId": id, "rule_details": r}))
        .collect();
    json!({"bulkOperationRules": list, "totalRecords": 0})
}

async fn create_item(client: &Client<'_>, holdings: &Value, barcode: &str) -> Value {
    let body = client.item_json(&holdings["id"], barcode).await;
    let r = client.post("/item-storage/items", &body).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    r.body
}

async fn item(client: &Client<'_>, id: &Value) -> Value {
    let r = client.get(&format!("/item-storage/items/{}", id.as_str().unwrap())).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    r.body
}

/// Changes a record behind the operation's back, as a librarian at another desk would.
async fn edit_item(client: &Client<'_>, id: &Value, change: impl FnOnce(&mut Value)) {
    let mut body = item(client, id).await;
    change(&mut body);
    let r = client.put(&format!("/item-storage/items/{}", id.as_str().unwrap()), &body).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
}

async fn errors(client: &Client<'_>, id: &str) -> Vec<(String, String, String)> {
    let r = client.get(&format!("/bulk-operations/{id}/errors?limit=100")).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    r.body["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["type"].as_str().unwrap().to_string(),
                e["parameters"][0]["value"].as_str().unwrap().to_string(),
                e["message"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

async fn download(client: &Client<'_>, id: &str, kind: &str) -> String {
    let r = client.get(&format!("/bulk-operations/{id}/download?fileContentType={kind}")).await;
    assert_eq!(r.status, StatusCode::OK, "{kind}: {}", r.text);
    assert!(r.headers["content-type"].to_str().unwrap().starts_with("text/csv"));
    r.text
}

#[tokio::test]
async fn items_by_barcode_are_matched_edited_committed_and_rolled_back() {
    let app = TestApp::new();
    let client = Client::admin(&app, "diku").await;
    let holdings = client.create_holdings().await;
    let first = create_item(&client, &holdings, "bulk-1").await;
    let second = create_item(&client, &holdings, "bulk-2").await;
    let annex = client.ref_id("/locations", "locations", "Annex").await;

    // An unknown barcode and a repeated one are per-identifier errors; the rest match.
    let r =
        upload(&client, "ITEM", "BARCODE", "\u{feff}bulk-1\n\"bulk-2\"\nbulk-2\nnot-a-barcode\n")
            .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    assert_eq!(r.body["status"], "NEW");
    assert_eq!(r.body["totalNumOfRecords"], 4);
    let id = r.body["id"].as_str().unwrap().to_string();
    let op = run_step(&client, &id, "UPLOAD").await;
    assert_eq!(op["status"], "DATA_MODIFICATION", "{op}");
    assert_eq!(op["matchedNumOfRecords"], 2);
    assert_eq!(op["matchedNumOfErrors"], 1);
    assert_eq!(op["matchedNumOfWarnings"], 1);
    assert_eq!(
        errors(&client, &id).await,
        vec![
            ("WARNING".into(), "bulk-2".into(), "Duplicate entry".into()),
            ("ERROR".into(), "not-a-barcode".into(), "No match found".into()),
        ]
    );
    let errors_file = download(&client, &id, "RECORD_MATCHING_ERROR_FILE").await;
    assert_eq!(errors_file, "WARNING,bulk-2,Duplicate entry\nERROR,not-a-barcode,No match found\n");
    assert_eq!(
        download(&client, &id, "TRIGGERING_FILE").await,
        "bulk-1\nbulk-2\nbulk-2\nnot-a-barcode\n"
    );

    // The preview and the matched file show names, not ids, under FOLIO's columns.
    let r =
        client.get(&format!("/bulk-operations/{id}/preview?step=UPLOAD&limit=10&offset=0")).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let header: Vec<&str> =
        r.body["header"].as_array().unwrap().iter().map(|c| c["value"].as_str().unwrap()).collect();
    assert_eq!(header[0], "Item UUID");
    let barcode = header.iter().position(|h| *h == "Barcode").unwrap();
    let material = header.iter().position(|h| *h == "Material type").unwrap();
    let rows = r.body["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["row"][barcode], "bulk-1");
    assert_eq!(rows[0]["row"][material], "book");
    let matched = download(&client, &id, "MATCHED_RECORDS_FILE").await;
    assert_eq!(matched.lines().count(), 3, "{matched}");
    assert!(matched.starts_with("Item UUID,"), "{matched}");

    // A rule naming a location that does not exist is refused before anything runs,
    // in FOLIO's plain text.
    let missing = "7c7a5a9e-0000-4000-8000-000000000000";
    let bad = rules(
        &id,
        json!([{"option": "PERMANENT_LOCATION", "actions": [{"type": "REPLACE_WITH", "updated": missing}]}]),
    );
    let r = client.post(&format!("/bulk-operations/{id}/content-update"), &bad).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert_eq!(r.text, format!("Location was not found by id={missing}"));
    assert!(r.headers["content-type"].to_str().unwrap().starts_with("text/plain"));

    let good = rules(
        &id,
        json!([
            {"option": "STATUS", "actions": [{"type": "REPLACE_WITH", "updated": "Missing"}]},
            {"option": "PERMANENT_LOCATION", "actions": [{"type": "REPLACE_WITH", "updated": annex}]},
            {"option": "ADMINISTRATIVE_NOTE", "actions": [{"type": "ADD_TO_EXISTING", "updated": "Moved to the annex"}]},
        ]),
    );
    let r = client.post(&format!("/bulk-operations/{id}/content-update"), &good).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    // COMMIT before EDIT is not a step of this status.
    let r = client.post(&format!("/bulk-operations/{id}/start"), &json!({"step": "COMMIT"})).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert_eq!(r.text, "Step COMMIT is not applicable for bulk operation status DATA_MODIFICATION");
    let op = run_step(&client, &id, "EDIT").await;
    assert_eq!(op["status"], "REVIEW_CHANGES", "{op}");
    let r = client.get(&format!("/bulk-operations/{id}/preview?step=EDIT&limit=10")).await;
    let status =
        r.body["header"].as_array().unwrap().iter().position(|c| c["value"] == "Status").unwrap();
    let location = r.body["header"]
        .as_array()
        .unwrap()
        .iter()
        .position(|c| c["value"] == "Item permanent location")
        .unwrap();
    assert_eq!(r.body["rows"][0]["row"][status], "Missing");
    assert_eq!(r.body["rows"][0]["row"][location], "Annex");
    // Nothing is written before the commit.
    assert_eq!(item(&client, &first["id"]).await["status"]["name"], "Available");

    // The second item changes at another desk after the preview: the commit refuses it.
    edit_item(&client, &second["id"], |item| item["copyNumber"] = json!("c.2")).await;
    let op = run_step(&client, &id, "COMMIT").await;
    assert_eq!(op["status"], "COMPLETED_WITH_ERRORS", "{op}");
    assert_eq!(op["committedNumOfRecords"], 1);
    assert_eq!(op["committedNumOfErrors"], 1);
    assert_eq!(
        errors(&client, &id).await,
        vec![(
            "ERROR".into(),
            "bulk-2".into(),
            "The record cannot be saved because it is not the most recent version. Stored version is 2, bulk edit version is 1.".into()
        )]
    );
    let changed = item(&client, &first["id"]).await;
    assert_eq!(changed["status"]["name"], "Missing");
    assert_eq!(changed["permanentLocationId"], annex);
    assert_eq!(changed["effectiveLocationId"], annex);
    assert_eq!(changed["administrativeNotes"], json!(["Moved to the annex"]));
    let untouched = item(&client, &second["id"]).await;
    assert_eq!(untouched["status"]["name"], "Available");
    assert_eq!(untouched["copyNumber"], "c.2");
    let committed = download(&client, &id, "COMMITTED_RECORDS_FILE").await;
    assert_eq!(committed.lines().count(), 2, "{committed}");
    assert!(committed.contains("bulk-1") && !committed.contains("bulk-2"), "{committed}");
    assert!(
        download(&client, &id, "COMMITTING_CHANGES_ERROR_FILE").await.starts_with("ERROR,bulk-2,")
    );
    // Every change went through the change log: storage queries see it.
    let r = client.get("/item-storage/items?query=status.name%3D%3D%22Missing%22&limit=0").await;
    assert_eq!(r.body["totalRecords"], 1, "{}", r.text);

    // Undo: the committed item goes back to what it was; the other is not touched.
    let r = client.post(&format!("/bulk-operations/{id}/rollback"), &json!({})).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    assert_eq!(r.body["rollbackOf"], id.as_str());
    let undo = r.body["id"].as_str().unwrap().to_string();
    let op = app.wait_for_bulk("diku", &undo).await;
    assert_eq!(op["status"], "COMPLETED", "{op}");
    assert_eq!(op["committedNumOfRecords"], 1);
    let restored = item(&client, &first["id"]).await;
    assert_eq!(restored["status"]["name"], "Available");
    assert_eq!(restored["permanentLocationId"], Value::Null);
    assert_eq!(restored["administrativeNotes"], first["administrativeNotes"]);
    assert_eq!(restored["effectiveLocationId"], holdings["permanentLocationId"]);
    // An operation is rolled back once.
    let r = client.post(&format!("/bulk-operations/{id}/rollback"), &json!({})).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert_eq!(r.text, format!("Bulk operation was already rolled back by {undo}"));

    // The log lists both, with the filters and sorting FOLIO's web client sends.
    let query = r#"(entityType==("ITEM" or "USER")) and (status==("COMPLETED" or "COMPLETED_WITH_ERRORS")) sortby endTime/sort.descending"#;
    let r = client.get(&format!("/bulk-operations?query={}&limit=10", urlencode(query))).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.body["totalRecords"], 2);
    // Newest first: the undo ended last.
    assert_eq!(r.body["bulkOperations"][0]["id"], undo.as_str());
    assert_eq!(r.body["bulkOperations"][1]["id"], id.as_str());
}

#[tokio::test]
async fn a_query_selects_records_a_forbidden_status_is_refused_and_a_later_edit_blocks_the_undo() {
    let app = TestApp::new();
    let client = Client::admin(&app, "diku").await;
    let holdings = client.create_holdings().await;
    let shelf = create_item(&client, &holdings, "q-1").await;
    let loaned = create_item(&client, &holdings, "q-2").await;
    // Circulation put the second one out on loan; a bulk edit does not change that.
    edit_item(&client, &loaned["id"], |item| item["status"] = json!({"name": "Checked out"})).await;

    let query = format!("holdingsRecordId==\"{}\"", holdings["id"].as_str().unwrap());
    let r =
        client.post("/bulk-operations/query", &json!({"entityType": "ITEM", "query": query})).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    assert_eq!(r.body["approach"], "QUERY");
    let id = r.body["id"].as_str().unwrap().to_string();
    let op = app.wait_for_bulk("diku", &id).await;
    assert_eq!(op["status"], "DATA_MODIFICATION", "{op}");
    assert_eq!(op["matchedNumOfRecords"], 2);

    let change = rules(
        &id,
        json!([{"option": "STATUS", "actions": [{"type": "REPLACE_WITH", "updated": "Withdrawn"}]}]),
    );
    let r = client.post(&format!("/bulk-operations/{id}/content-update"), &change).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let op = run_step(&client, &id, "EDIT").await;
    assert_eq!(op["status"], "REVIEW_CHANGES");
    assert_eq!(
        errors(&client, &id).await,
        vec![(
            "ERROR".into(),
            "q-2".into(),
            "New status value \"Withdrawn\" is not allowed".into()
        )]
        .into_iter()
        .map(|(t, _, m): (String, String, String)| (
            t,
            loaned["id"].as_str().unwrap().to_string(),
            m
        ))
        .collect::<Vec<_>>()
    );
    let op = run_step(&client, &id, "COMMIT").await;
    assert_eq!(op["status"], "COMPLETED_WITH_ERRORS", "{op}");
    assert_eq!(op["committedNumOfRecords"], 1);
    assert_eq!(item(&client, &shelf["id"]).await["status"]["name"], "Withdrawn");
    assert_eq!(item(&client, &loaned["id"]).await["status"]["name"], "Checked out");

    // The withdrawn item is edited again before the undo: the undo leaves it alone.
    edit_item(&client, &shelf["id"], |item| item["copyNumber"] = json!("c.9")).await;
    let r = client.post(&format!("/bulk-operations/{id}/rollback"), &json!({})).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let undo = r.body["id"].as_str().unwrap().to_string();
    let op = app.wait_for_bulk("diku", &undo).await;
    assert_eq!(op["status"], "COMPLETED_WITH_ERRORS", "{op}");
    assert_eq!(op["committedNumOfRecords"], 0);
    let (kind, _, message) = errors(&client, &undo).await.remove(0);
    assert_eq!(kind, "ERROR");
    assert!(message.contains("not the most recent version"), "{message}");
    let kept = item(&client, &shelf["id"]).await;
    assert_eq!(kept["status"]["name"], "Withdrawn");
    assert_eq!(kept["copyNumber"], "c.9");

    // A query the store cannot answer is refused at once.
    let r = client
        .post("/bulk-operations/query", &json!({"entityType": "ITEM", "query": "nosuchfield==1"}))
        .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.text);
}

#[tokio::test]
async fn users_holdings_and_instances_take_their_own_rules() {
    let app = TestApp::new();
    let client = Client::admin(&app, "diku").await;

    // Users by user name: patron group, e-mail domain, expiration date.
    for name in ["ann", "bob"] {
        let body = json!({
            "username": name, "active": true, "type": "patron", "patronGroup": UNDERGRAD,
            "personal": {"lastName": name, "email": format!("{name}@old.example.org")},
        });
        let r = client.post("/users", &body).await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    }
    let r = upload(&client, "USER", "USER_NAME", "ann\nbob\n").await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let id = r.body["id"].as_str().unwrap().to_string();
    assert_eq!(run_step(&client, &id, "UPLOAD").await["matchedNumOfRecords"], 2);
    let change = rules(
        &id,
        json!([
            {"option": "PATRON_GROUP", "actions": [{"type": "REPLACE_WITH", "updated": STAFF}]},
            {"option": "EMAIL_ADDRESS", "actions": [{"type": "FIND_AND_REPLACE", "initial": "@old.", "updated": "@new."}]},
            {"option": "EXPIRATION_DATE", "actions": [{"type": "REPLACE_WITH", "updated": "2031-06-30"}]},
        ]),
    );
    // Items' options are not users'.
    let wrong = rules(
        &id,
        json!([{"option": "STATUS", "actions": [{"type": "REPLACE_WITH", "updated": "Missing"}]}]),
    );
    let r = client.post(&format!("/bulk-operations/{id}/content-update"), &wrong).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert_eq!(r.text, "Option STATUS is not supported for entity type USER");
    let op = edit_and_commit(&client, &id, &change).await;
    assert_eq!(op["status"], "COMPLETED", "{op}");
    assert_eq!(op["committedNumOfRecords"], 2);
    let r = client.get("/users?query=username%3D%3Dann").await;
    let ann = &r.body["users"][0];
    assert_eq!(ann["patronGroup"], STAFF);
    assert_eq!(ann["personal"]["email"], "ann@new.example.org");
    assert!(ann["expirationDate"].as_str().unwrap().starts_with("2031-06-30"), "{ann}");

    // Holdings by their instance's HRID: a temporary location, which their items' effective
    // location follows.
    let holdings = client.create_holdings().await;
    let on_shelf = create_item(&client, &holdings, "h-1").await;
    let instance = client
        .get(&format!("/instance-storage/instances/{}", holdings["instanceId"].as_str().unwrap()))
        .await
        .body;
    let annex = client.ref_id("/locations", "locations", "Annex").await;
    let r = upload(&client, "HOLDINGS_RECORD", "INSTANCE_HRID", instance["hrid"].as_str().unwrap())
        .await;
    let id = r.body["id"].as_str().unwrap().to_string();
    assert_eq!(run_step(&client, &id, "UPLOAD").await["matchedNumOfRecords"], 1);
    let change = rules(
        &id,
        json!([{"option": "TEMPORARY_LOCATION", "actions": [{"type": "REPLACE_WITH", "updated": annex}]}]),
    );
    assert_eq!(edit_and_commit(&client, &id, &change).await["status"], "COMPLETED");
    assert_eq!(item(&client, &on_shelf["id"]).await["effectiveLocationId"], annex);

    // Instances by HRID: staff suppression.
    let r = upload(&client, "INSTANCE", "HRID", instance["hrid"].as_str().unwrap()).await;
    let id = r.body["id"].as_str().unwrap().to_string();
    run_step(&client, &id, "UPLOAD").await;
    let change =
        rules(&id, json!([{"option": "STAFF_SUPPRESS", "actions": [{"type": "SET_TO_TRUE"}]}]));
    assert_eq!(edit_and_commit(&client, &id, &change).await["status"], "COMPLETED");
    let r = client
        .get(&format!("/instance-storage/instances/{}", holdings["instanceId"].as_str().unwrap()))
        .await;
    assert_eq!(r.body["staffSuppress"], true);
}

#[tokio::test]
async fn mistakes_get_folio_plain_text_answers_and_a_cancel_ends_an_operation() {
    let app = TestApp::new();
    let client = Client::admin(&app, "diku").await;
    let r = upload(&client, "ITEM", "USER_NAME", "x\n").await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert_eq!(r.text, "Identifier type USER_NAME is not supported for entity type ITEM");
    let r = upload(&client, "BOOK", "ID", "x\n").await;
    assert_eq!(r.text, "Invalid entityType: BOOK");
    let unknown = "0a2f8fd4-5c2b-4c8e-9b4e-000000000001";
    let r = client.get(&format!("/bulk-operations/{unknown}")).await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    assert_eq!(r.text, format!("Bulk operation was not found by id={unknown}"));

    let r = upload(&client, "ITEM", "BARCODE", "a\nb\n").await;
    let id = r.body["id"].as_str().unwrap().to_string();
    let r = client.post(&format!("/bulk-operations/{id}/cancel"), &json!({})).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.body["status"], "CANCELLED");
    let r = client.post(&format!("/bulk-operations/{id}/start"), &json!({"step": "UPLOAD"})).await;
    assert_eq!(r.text, "Step UPLOAD is not applicable for bulk operation status CANCELLED");
    let r = client.post(&format!("/bulk-operations/{id}/cancel"), &json!({})).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert_eq!(r.text, "Bulk operation with status CANCELLED can't be cancelled");
    // Nothing matched at all: the operation ends with errors and nothing to edit.
    let r = upload(&client, "ITEM", "BARCODE", "nothing-here\n").await;
    let id = r.body["id"].as_str().unwrap().to_string();
    let op = run_step(&client, &id, "UPLOAD").await;
    assert_eq!(op["status"], "COMPLETED_WITH_ERRORS");
    assert_eq!(op["matchedNumOfErrors"], 1);
}

/// The first records a step's preview shows: the ids in the column that holds them.
async fn previewed_ids(client: &Client<'_>, id: &str, entity: &str) -> Vec<String> {
    let r = client.get(&format!("/bulk-operations/{id}/preview?step=UPLOAD&limit=100")).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let column = if entity == "USER" { 1 } else { 0 };
    let mut ids: Vec<String> = r.body["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| row["row"][column].as_str().unwrap().to_string())
        .collect();
    ids.sort();
    ids
}

#[tokio::test]
async fn every_identifier_type_finds_its_records() {
    let app = TestApp::new();
    let client = Client::admin(&app, "diku").await;
    let holdings = client.create_holdings().await;
    let mut body = client.item_json(&holdings["id"], "idt-1").await;
    body["accessionNumber"] = json!("ACC-77");
    body["formerIds"] = json!(["old-5", "old-6"]);
    let r = client.post("/item-storage/items", &body).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let first = r.body;
    let second = create_item(&client, &holdings, "idt-2").await;
    let instance_id = holdings["instanceId"].as_str().unwrap();
    let mut instance = client.get(&format!("/instance-storage/instances/{instance_id}")).await.body;
    let isbn = client.ref_id("/identifier-types", "identifierTypes", "ISBN").await;
    instance["identifiers"] = json!([{"identifierTypeId": isbn, "value": "978-0-262-53305-9"}]);
    let r = client.put(&format!("/instance-storage/instances/{instance_id}"), &instance).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
    let instance = client.get(&format!("/instance-storage/instances/{instance_id}")).await.body;
    let r = client
        .post(
            "/users",
            &json!({"username": "idt-user", "barcode": "ub-1", "externalSystemId": "ext-9", "active": true,
                    "patronGroup": UNDERGRAD, "personal": {"lastName": "Doe", "firstName": "Ann"}}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let user = r.body;

    let id = |v: &Value| v["id"].as_str().unwrap().to_string();
    let hrid = |v: &Value| v["hrid"].as_str().unwrap().to_string();
    let cases = [
        ("ITEM", "ID", id(&first), vec![id(&first)]),
        ("ITEM", "BARCODE", "idt-1".into(), vec![id(&first)]),
        ("ITEM", "HRID", hrid(&first), vec![id(&first)]),
        ("ITEM", "ACCESSION_NUMBER", "acc-77".into(), vec![id(&first)]),
        ("ITEM", "FORMER_IDS", "old-6".into(), vec![id(&first)]),
        ("ITEM", "HOLDINGS_RECORD_ID", id(&holdings), {
            let mut both = vec![id(&first), id(&second)];
            both.sort();
            both
        }),
        ("HOLDINGS_RECORD", "ID", id(&holdings), vec![id(&holdings)]),
        ("HOLDINGS_RECORD", "HRID", hrid(&holdings), vec![id(&holdings)]),
        ("HOLDINGS_RECORD", "INSTANCE_HRID", hrid(&instance), vec![id(&holdings)]),
        ("HOLDINGS_RECORD", "ITEM_BARCODE", "idt-2".into(), vec![id(&holdings)]),
        ("INSTANCE", "ID", id(&instance), vec![id(&instance)]),
        ("INSTANCE", "HRID", hrid(&instance), vec![id(&instance)]),
        ("INSTANCE", "ISBN", "9780262533059".into(), vec![id(&instance)]),
        ("USER", "ID", id(&user), vec![id(&user)]),
        ("USER", "BARCODE", "ub-1".into(), vec![id(&user)]),
        ("USER", "USER_NAME", "idt-user".into(), vec![id(&user)]),
        ("USER", "EXTERNAL_SYSTEM_ID", "ext-9".into(), vec![id(&user)]),
    ];
    for (entity, kind, value, expected) in cases {
        let r = upload(&client, entity, kind, &value).await;
        assert_eq!(r.status, StatusCode::CREATED, "{entity} {kind}: {}", r.text);
        let op_id = r.body["id"].as_str().unwrap().to_string();
        let op = run_step(&client, &op_id, "UPLOAD").await;
        assert_eq!(op["matchedNumOfRecords"], expected.len(), "{entity} {kind}: {op}");
        assert_eq!(previewed_ids(&client, &op_id, entity).await, expected, "{entity} {kind}");
    }

    // The matched users file, row for row: FOLIO's header, names for ids.
    let r = upload(&client, "USER", "USER_NAME", "idt-user").await;
    let op_id = r.body["id"].as_str().unwrap().to_string();
    run_step(&client, &op_id, "UPLOAD").await;
    let file = download(&client, &op_id, "MATCHED_RECORDS_FILE").await;
    let mut lines = file.lines();
    assert_eq!(
        lines.next().unwrap(),
        "User name,User id,External system id,Barcode,Active,Type,Patron group,Departments,Proxy for,\
         Last name,First name,Middle name,Preferred first name,Email,Phone,Mobile phone,Date of birth,\
         Addresses,Preferred contact type id,Link to the profile picture,Enrollment date,Expiration date,\
         Tags,Custom fields,Preferred email communications"
    );
    let row: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(row.len(), 25, "{file}");
    assert_eq!(
        row[..7],
        ["idt-user", user["id"].as_str().unwrap(), "ext-9", "ub-1", "true", "", "undergrad"]
    );
    assert_eq!(row[9..11], ["Doe", "Ann"]);
    assert_eq!(lines.next(), None);
}

#[tokio::test]
async fn suppressing_holdings_including_items_suppresses_their_items() {
    let app = TestApp::new();
    let client = Client::admin(&app, "diku").await;
    let holdings = client.create_holdings().await;
    let on_shelf = create_item(&client, &holdings, "sup-1").await;
    let r = upload(&client, "HOLDINGS_RECORD", "ID", holdings["id"].as_str().unwrap()).await;
    let id = r.body["id"].as_str().unwrap().to_string();
    run_step(&client, &id, "UPLOAD").await;
    let change = rules(
        &id,
        json!([{"option": "SUPPRESS_FROM_DISCOVERY", "actions": [{"type": "SET_TO_TRUE_INCLUDING_ITEMS"}]}]),
    );
    assert_eq!(edit_and_commit(&client, &id, &change).await["status"], "COMPLETED");
    let r = client
        .get(&format!("/holdings-storage/holdings/{}", holdings["id"].as_str().unwrap()))
        .await;
    assert_eq!(r.body["discoverySuppress"], true);
    assert_eq!(item(&client, &on_shelf["id"]).await["discoverySuppress"], true);
}
