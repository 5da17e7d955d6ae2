//! What a script does to every record a FOLIO client edits: GET it, PUT the same body
//! back, GET it again. FOLIO's storage modules drop the read-only and derived properties
//! a GET returns from the body a PUT sends; the record comes back equal but for
//! `_version` and the `metadata` of the update. Every record type Quire stores, through
//! every path that serves it, storage and business views alike.

use axum::http::StatusCode;
use serde_json::{Value, json};

use crate::support::{Client, TestApp};

const DESK_1: &str = "3a40852d-49fd-4df2-a1f9-6e2641a6e91f";

/// The record as a client compares it: without what an update itself changes.
fn comparable(mut record: Value) -> Value {
    if let Some(object) = record.as_object_mut() {
        object.remove("_version");
        if let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut) {
            metadata.remove("updatedDate");
            metadata.remove("updatedByUserId");
        }
    }
    record
}

/// GET `path`, PUT the body back unchanged, GET again: equal but for the update's own
/// marks. `put_status` is the path's success status (204, or 200 where FOLIO answers
/// with the record).
async fn round_trip(c: &Client<'_>, path: &str) {
    let before = c.get(path).await;
    assert_eq!(before.status, StatusCode::OK, "GET {path}: {}", before.text);
    let put = c.put(path, &before.body).await;
    assert!(
        matches!(put.status, StatusCode::NO_CONTENT | StatusCode::OK),
        "PUT {path} of what GET gave: {} {}",
        put.status,
        put.text
    );
    let after = c.get(path).await;
    assert_eq!(after.status, StatusCode::OK, "GET {path} again: {}", after.text);
    assert_eq!(comparable(after.body), comparable(before.body), "{path} changed in a round trip");
}

/// The path of the first record a storage list returns; the list must have one.
async fn first(c: &Client<'_>, list: &str, key: &str) -> String {
    let id = c.first_id(list, key).await;
    format!("{}/{id}", list.split('?').next().unwrap())
}

fn created_id(r: &crate::support::Response) -> String {
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    r.body["id"].as_str().unwrap_or_else(|| panic!("no id in {}", r.text)).to_string()
}

#[tokio::test]
async fn every_record_type_survives_get_put_get() {
    let app = TestApp::new();
    let c = Client::admin(&app, "diku").await;

    // Inventory: an instance, its holdings and an item, and an authority.
    let holdings = c.create_holdings().await;
    let instance_id = holdings["instanceId"].as_str().unwrap().to_string();
    let holdings_id = holdings["id"].as_str().unwrap().to_string();
    let item = c.item_json(&holdings["id"], "RT-1").await;
    let item_id = created_id(&c.post("/item-storage/items", &item).await);
    let authority = json!({"source": "MARC", "naturalId": "n79021164",
        "personalName": "Twain, Mark, 1835-1910", "sftPersonalName": ["Clemens, Samuel"]});
    let authority_id = created_id(&c.post("/authority-storage/authorities", &authority).await);

    // Circulation: a patron borrows the item and another requests it.
    let group = c.first_id("/groups", "usergroups").await;
    let locker = json!({"name": "Locker", "type": "TEXTBOX_SHORT", "entityType": "user"});
    created_id(&c.post("/custom-fields", &locker).await);
    let patron = |barcode: &str| {
        json!({"username": format!("rt-{barcode}"), "barcode": barcode, "active": true,
            "patronGroup": group, "personal": {"lastName": "Reader", "firstName": barcode},
            "customFields": {"locker": format!("L-{barcode}")}})
    };
    let borrower = created_id(&c.post("/users", &patron("P-1")).await);
    let requester = created_id(&c.post("/users", &patron("P-2")).await);
    let out = c
        .post(
            "/circulation/check-out-by-barcode",
            &json!({"itemBarcode": "RT-1", "userBarcode": "P-1", "servicePointId": DESK_1}),
        )
        .await;
    let loan_id = created_id(&out);
    let hold = json!({"requestType": "Hold", "requestDate": "2026-03-02T10:00:00Z",
        "requesterId": requester, "itemId": item_id, "fulfillmentPreference": "Hold Shelf",
        "pickupServicePointId": DESK_1});
    let request_id = created_id(&c.post("/circulation/requests", &hold).await);
    let proxy = json!({"userId": borrower, "proxyUserId": requester});
    created_id(&c.post("/proxiesfor", &proxy).await);
    let block = json!({"userId": borrower, "desc": "Lost card", "borrowing": false});
    created_id(&c.post("/manualblocks", &block).await);
    let account = json!({"amount": 2.5, "remaining": 2.5, "status": {"name": "Open"},
        "userId": borrower, "loanId": loan_id, "itemId": item_id, "feeFineType": "Overdue fine"});
    created_id(&c.post("/accounts", &account).await);
    let schedule = json!({"name": "Spring term", "schedules": [{"from": "2026-01-01T00:00:00Z",
        "to": "2026-06-01T00:00:00Z", "due": "2026-06-15T23:59:59Z"}]});
    created_id(
        &c.post("/fixed-due-date-schedule-storage/fixed-due-date-schedules", &schedule).await,
    );
    let condition = c.first_id("/patron-block-conditions", "patronBlockConditions").await;
    let limit = json!({"patronGroupId": group, "conditionId": condition, "value": 10});
    created_id(&c.post("/patron-block-limits", &limit).await);

    // Settings, a calendar and a MARC record.
    let entry = json!({"module": "CHECKOUT", "configName": "other_settings",
        "value": "{\"audioAlertsEnabled\":false}"});
    created_id(&c.post("/configurations/entries", &entry).await);
    let calendar = json!({"name": "Term", "startDate": "2026-01-01", "endDate": "2026-06-30",
        "assignments": [DESK_1], "normalHours": [{"startDay": "MONDAY", "startTime": "09:00",
        "endDay": "MONDAY", "endTime": "17:00"}], "exceptions": []});
    created_id(&c.post("/calendar/calendars", &calendar).await);
    created_id(&c.post("/addresstypes", &json!({"addressType": "Home"})).await);
    created_id(&c.post("/departments", &json!({"name": "History", "code": "HIST"})).await);
    let spu =
        json!({"userId": borrower, "servicePointsIds": [DESK_1], "defaultServicePointId": DESK_1});
    created_id(&c.post("/service-points-users", &spu).await);
    let preference = json!({"userId": borrower, "holdShelf": true, "delivery": false,
        "fulfillment": "Hold Shelf"});
    created_id(&c.post("/request-preference-storage/request-preference", &preference).await);
    let snapshot = crate::srs::new_snapshot(&c).await;
    let bib = &crate::srs::load_bibs(1)[0];
    let srs_id = created_id(
        &c.post("/source-storage/records", &crate::srs::record_json(0, &snapshot, bib)).await,
    );

    let mut paths = vec![
        format!("/instance-storage/instances/{instance_id}"),
        format!("/holdings-storage/holdings/{holdings_id}"),
        format!("/item-storage/items/{item_id}"),
        format!("/authority-storage/authorities/{authority_id}"),
        format!("/inventory/instances/{instance_id}"),
        format!("/inventory/items/{item_id}"),
        format!("/users/{borrower}"),
        format!("/loan-storage/loans/{loan_id}"),
        format!("/circulation/loans/{loan_id}"),
        format!("/request-storage/requests/{request_id}"),
        format!("/circulation/requests/{request_id}"),
        format!("/source-storage/records/{srs_id}"),
        format!("/source-storage/snapshots/{snapshot}"),
    ];
    for kind in inventory::RefKind::all() {
        paths.push(first(&c, kind.path(), kind.collection_key()).await);
    }
    for (list, key) in [
        ("/groups", "usergroups"),
        ("/proxiesfor", "proxiesFor"),
        ("/loan-policy-storage/loan-policies", "loanPolicies"),
        ("/request-policy-storage/request-policies", "requestPolicies"),
        ("/patron-notice-policy-storage/patron-notice-policies", "patronNoticePolicies"),
        ("/overdue-fines-policies", "overdueFinePolicies"),
        ("/lost-item-fees-policies", "lostItemFeePolicies"),
        ("/fixed-due-date-schedule-storage/fixed-due-date-schedules", "fixedDueDateSchedules"),
        ("/accounts", "accounts"),
        ("/manualblocks", "manualblocks"),
        ("/patron-block-conditions", "patronBlockConditions"),
        ("/patron-block-limits", "patronBlockLimits"),
        ("/staff-slips-storage/staff-slips", "staffSlips"),
        ("/configurations/entries", "configs"),
        ("/calendar/calendars", "calendars"),
        ("/addresstypes", "addressTypes"),
        ("/departments", "departments"),
        ("/service-points-users", "servicePointsUsers"),
        ("/request-preference-storage/request-preference", "requestPreferences"),
        ("/custom-fields", "customFields"),
    ] {
        paths.push(first(&c, list, key).await);
    }
    for path in &paths {
        round_trip(&c, path).await;
    }

    // What the business views added was dropped, not stored.
    for (path, added) in [
        (format!("/loan-storage/loans/{loan_id}"), "borrower"),
        (format!("/loan-storage/loans/{loan_id}"), "item"),
        (format!("/request-storage/requests/{request_id}"), "requester"),
        (format!("/item-storage/items/{item_id}"), "title"),
        (format!("/item-storage/items/{item_id}"), "materialType"),
        (format!("/instance-storage/instances/{instance_id}"), "childInstances"),
    ] {
        let stored = c.get(&path).await.body;
        assert!(stored.get(added).is_none(), "{path} stored the view's {added}: {stored}");
    }
}

#[tokio::test]
async fn read_only_properties_from_folio_are_dropped_not_refused() {
    let app = TestApp::new();
    let c = Client::admin(&app, "diku").await;
    let holdings = c.create_holdings().await;
    let holdings_path = format!("/holdings-storage/holdings/{}", holdings["id"].as_str().unwrap());
    let instance_path =
        format!("/instance-storage/instances/{}", holdings["instanceId"].as_str().unwrap());

    // FOLIO's storage GETs carry these; a client PUTs them back.
    let mut instance = c.get(&instance_path).await.body;
    instance["isBoundWith"] = json!(false);
    let r = c.put(&instance_path, &instance).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
    let mut record = c.get(&holdings_path).await.body;
    record["holdingsItems"] = json!([]);
    record["bareHoldingsItems"] = json!([]);
    let r = c.put(&holdings_path, &record).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
    assert!(c.get(&holdings_path).await.body.get("holdingsItems").is_none());

    // mod-inventory's item shape names linked records as objects; storage ids follow.
    let mut item = c.item_json(&holdings["id"], "RO-1").await;
    let material = item.as_object_mut().unwrap().remove("materialTypeId").unwrap();
    let loan_type = item.as_object_mut().unwrap().remove("permanentLoanTypeId").unwrap();
    item["materialType"] = json!({"id": material, "name": "book"});
    item["permanentLoanType"] = json!({"id": loan_type});
    item["isBoundWith"] = json!(false);
    item["boundWithTitles"] = json!([]);
    let r = c.post("/inventory/items", &item).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let stored = c.get(&format!("/item-storage/items/{}", r.body["id"].as_str().unwrap())).await;
    assert_eq!(stored.body["materialTypeId"], material);
    assert_eq!(stored.body["permanentLoanTypeId"], loan_type);

    // A relationship Quire cannot store is refused by name, not dropped.
    let mut view = c
        .get(&format!("/inventory/instances/{}", holdings["instanceId"].as_str().unwrap()))
        .await
        .body;
    view["parentInstances"] = json!([{"superInstanceId": "00000000-0000-4000-8000-000000000001",
        "instanceRelationshipTypeId": "30773a27-b485-4dab-aeb6-b8c04fa3cb17"}]);
    let r = c
        .put(&format!("/inventory/instances/{}", holdings["instanceId"].as_str().unwrap()), &view)
        .await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.text);
    assert_eq!(r.error().1[0].0, "parentInstances", "{}", r.text);
}
