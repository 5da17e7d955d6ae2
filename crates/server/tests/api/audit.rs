//! mod-audit's inventory history: every write of an instance or holdings record, newest
//! first, paged back by `eventTs`; with the user and the diff where the change log kept
//! the record's bodies, and the user from the record's metadata where it did not.

use axum::http::StatusCode;
use serde_json::{Value, json};

use crate::support::{Client, TestApp, blocking};

fn actions(history: &Value) -> Vec<&str> {
    let items = history["inventoryAuditItems"].as_array().unwrap();
    items.iter().map(|item| item["action"].as_str().unwrap()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_instance_history_lists_its_changes_newest_first() {
    let app = TestApp::new();
    let c = Client::admin(&app, "diku").await;
    let admin_id = c.get("/bl-users/_self").await.body["user"]["id"].clone();
    let created = c.create_instance("A primer").await;
    let id = created["id"].as_str().unwrap().to_string();
    let path = format!("/instance-storage/instances/{id}");
    let history_path = format!("/audit-data/inventory/instance/{id}");

    let mut update = c.get(&path).await.body;
    update["title"] = json!("A primer, second state");
    assert_eq!(c.put(&path, &update).await.status, StatusCode::NO_CONTENT);
    // From here the log keeps bodies, as it does while events are published.
    let tenant = app.store.tenant("diku").unwrap();
    blocking(|| tenant.start_publisher("audit-test", &["instance"]).unwrap());
    let mut update = c.get(&path).await.body;
    update["title"] = json!("A primer, revised");
    update["languages"] = json!(["eng"]);
    assert_eq!(c.put(&path, &update).await.status, StatusCode::NO_CONTENT);

    let r = c.get(&history_path).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.body["totalRecords"], 3);
    assert_eq!(actions(&r.body), ["UPDATE", "UPDATE", "CREATE"]);
    let items = r.body["inventoryAuditItems"].as_array().unwrap();
    assert!(items.iter().all(|item| item["entityId"] == id.as_str()));
    let (newest, middle, creation) = (&items[0], &items[1], &items[2]);
    assert_eq!(newest["userId"], admin_id, "from the kept body");
    assert_eq!(
        newest["diff"],
        json!({
            "fieldChanges": [{"changeType": "MODIFIED", "fieldName": "title", "fullPath": "title",
                "oldValue": "A primer, second state", "newValue": "A primer, revised"}],
            "collectionChanges": [{"collectionName": "languages",
                "itemChanges": [{"changeType": "ADDED", "newValue": "eng"}]}],
        })
    );
    assert!(middle.get("userId").is_none() && middle.get("diff").is_none(), "nothing kept");
    assert_eq!(creation["userId"], admin_id, "from the record's createdByUserId");
    assert_eq!(creation["eventDate"].as_str().unwrap().len(), 29, "{creation}");
    let event_ids: std::collections::HashSet<_> = items.iter().map(|i| &i["eventId"]).collect();
    assert_eq!(event_ids.len(), 3);

    // Paged back in time: strictly before `eventTs`, the total unchanged.
    let newest_ts = newest["eventTs"].as_i64().unwrap();
    let r = c.get(&format!("{history_path}?eventTs={newest_ts}")).await;
    assert_eq!(r.body["totalRecords"], 3);
    let earlier = r.body["inventoryAuditItems"].as_array().unwrap();
    assert!(earlier.iter().all(|item| item["eventTs"].as_i64().unwrap() < newest_ts));
    let r = c.get(&format!("{history_path}?eventTs=0")).await;
    assert_eq!((actions(&r.body).len(), &r.body["totalRecords"]), (0, &json!(3)));

    // A deleted record keeps its history.
    assert_eq!(c.delete(&path).await.status, StatusCode::NO_CONTENT);
    let r = c.get(&history_path).await;
    assert_eq!(actions(&r.body), ["DELETE", "UPDATE", "UPDATE", "CREATE"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn holdings_have_a_history_and_the_requests_are_checked() {
    let app = TestApp::new();
    let c = Client::admin(&app, "diku").await;
    let holdings = c.create_holdings().await;
    let r = c
        .get(&format!("/audit-data/inventory/holdings/{}", holdings["id"].as_str().unwrap()))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(actions(&r.body), ["CREATE"]);
    // An instance's history does not hold its holdings' changes.
    let instance = holdings["instanceId"].as_str().unwrap();
    let r = c.get(&format!("/audit-data/inventory/instance/{instance}")).await;
    assert_eq!(actions(&r.body), ["CREATE"]);

    let unknown = "/audit-data/inventory/instance/7fbd5d84-62d1-44c6-9c45-6cb173998bbd";
    let r = c.get(unknown).await;
    assert_eq!(
        (r.status, r.body.clone()),
        (
            StatusCode::OK,
            json!({
                "inventoryAuditItems": [], "totalRecords": 0,
            })
        )
    );
    let r = c.get("/audit-data/inventory/instance/not-a-uuid").await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.text);
    let r = c.get(&format!("{unknown}?eventTs=yesterday")).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.text);
    assert_eq!(r.error().1, [("eventTs".to_string(), "yesterday".to_string())]);

    let (_, clerk) =
        crate::hostile::user_with(&c, "clerk", &["audit.inventory.holdings.collection.get"]).await;
    assert_eq!(clerk.get(unknown).await.status, StatusCode::FORBIDDEN);
    let holdings_path =
        format!("/audit-data/inventory/holdings/{}", holdings["id"].as_str().unwrap());
    assert_eq!(clerk.get(&holdings_path).await.status, StatusCode::OK);
}
