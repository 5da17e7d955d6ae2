//! Domain events on a real Kafka broker, read back with Kafka's own console consumer:
//! every write path yields FOLIO's event on FOLIO's topic with the record's id as key,
//! and each record's events arrive in commit order.

use std::collections::{BTreeMap, HashMap};
use std::{sync::Arc, time::Duration};

use axum::http::{Method, StatusCode};
use serde_json::{Value, json};

use crate::{
    bulk_operations,
    circulation::DESK_1,
    circulation::Desk,
    data_import, srs,
    support::{Client, TestApp},
};

/// The events a tenant's change log says were published after `after`: per key, the
/// event ids in commit order, with each change's topic.
fn expected_events(
    tenant: &store::Tenant,
    after: i64,
) -> (BTreeMap<String, Vec<String>>, HashMap<String, String>) {
    let changes = tenant.read(|r| r.changes_since(after, 1_000_000)).unwrap();
    let mut by_key: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut topic_of = HashMap::new();
    for change in changes {
        let Some((_, topic, _)) = events::TOPICS.iter().find(|(t, _, _)| *t == change.record_type)
        else {
            continue;
        };
        let id = events::event_id(tenant.name(), change.seq).to_string();
        topic_of.insert(id.clone(), format!("qtest.{}.{topic}", tenant.name()));
        by_key.entry(change.record_id).or_default().push(id);
    }
    (by_key, topic_of)
}

/// Waits until the publisher has published every change committed so far.
async fn wait_until_published(publisher: &Arc<events::Publisher>) {
    let waiter = publisher.clone();
    let published =
        tokio::task::spawn_blocking(move || waiter.wait_until_published(Duration::from_secs(120)))
            .await
            .unwrap();
    assert!(published, "{:?}", publisher.status());
}

/// A message as received: its topic, its value and its headers.
type Received = (String, Value, Vec<(String, String)>);

/// A message's event id, wherever its envelope keeps it.
fn event_id(value: &Value) -> String {
    value.get("eventId").or_else(|| value.get("id")).and_then(Value::as_str).unwrap().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_write_path_publishes_folios_event_in_commit_order() {
    let broker = tokio::task::spawn_blocking(kafka_test::Broker::start).await.unwrap();
    let app = TestApp::new();
    let diku = app.store.tenant("diku").unwrap();
    let mut kafka = events::KafkaOptions::new(vec![broker.bootstrap()]);
    kafka.environment = "qtest".into();
    let publisher =
        Arc::new(events::Publisher::start(app.store.clone(), events::Options::new(kafka)).unwrap());
    let app = app.publishing(publisher.clone());
    let start = diku.read(|r| r.publishers()).unwrap()[0].published;
    let c = Client::admin(&app, "diku").await;

    // Storage CRUD: instance, holdings, item created, changed and deleted.
    let desk = Desk::new(&app).await;
    let item = desk.item("ev-1").await;
    let mut changed =
        c.get(&format!("/item-storage/items/{}", item["id"].as_str().unwrap())).await.body;
    changed["copyNumber"] = json!("c.1");
    let r = c.put(&format!("/item-storage/items/{}", item["id"].as_str().unwrap()), &changed).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
    let doomed = desk.item("ev-doomed").await;
    let r = c.delete(&format!("/item-storage/items/{}", doomed["id"].as_str().unwrap())).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
    // A batch.
    let instances = vec![c.instance_json("Batch one").await, c.instance_json("Batch two").await];
    let r = c.post("/instance-storage/batch/synchronous", &json!({ "instances": instances })).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    // An authority.
    let authority = json!({"source": "MARC", "naturalId": "n79021164", "personalName": "Twain, Mark, 1835-1910"});
    let r = c.post("/authority-storage/authorities", &authority).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    // The desk: a patron, a check-out, a hold by another patron, a check-in.
    let patron = desk.patron("ev-p1", json!({})).await;
    let other = desk.patron("ev-p2", json!({})).await;
    let r = desk.check_out("ev-1", "ev-p1", json!({})).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let loan = r.body["id"].as_str().unwrap().to_string();
    let r = desk.request("Hold", &item, &other).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let request = r.body["id"].as_str().unwrap().to_string();
    let r = desk.check_in("ev-1", DESK_1).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    // A source record through SRS.
    let snapshot = srs::new_snapshot(&c).await;
    let bib = &srs::load_bibs(1)[0];
    let record = srs::record_json(0, &snapshot, bib);
    let r = c.post("/source-storage/records", &record).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    // A MARC import of 100 records.
    let job =
        data_import::upload_and_process(&app, &c, "100.mrc", data_import::shared("100.mrc")).await;
    assert_eq!(app.wait_for_job("diku", &job).await["status"], "COMMITTED");
    // A bulk edit of the item.
    let r = bulk_operations::upload(&c, "ITEM", "BARCODE", "ev-1\n").await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let op = r.body["id"].as_str().unwrap().to_string();
    assert_eq!(bulk_operations::run_step(&c, &op, "UPLOAD").await["status"], "DATA_MODIFICATION");
    let rules = bulk_operations::rules(
        &op,
        json!([{"option": "ADMINISTRATIVE_NOTE", "actions": [{"type": "ADD_TO_EXISTING", "updated": "Checked by events"}]}]),
    );
    assert_eq!(bulk_operations::edit_and_commit(&c, &op, &rules).await["status"], "COMPLETED");

    // Everything committed is published; the log says what to expect.
    wait_until_published(&publisher).await;
    let (by_key, topic_of) = expected_events(&diku, start);
    let expected: usize = by_key.values().map(Vec::len).sum();
    let messages = tokio::task::spawn_blocking({
        move || {
            let messages =
                kafka_test::consume(&broker, r"qtest\.diku\..*", expected, Duration::from_secs(90));
            (messages, broker)
        }
    })
    .await
    .unwrap();
    let (messages, broker) = messages;
    assert_eq!(messages.len(), expected);

    // Per key, in partition order, the events the log has, in its order; each on its
    // change's topic, with FOLIO's headers.
    let mut seen: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut values: HashMap<String, Received> = HashMap::new();
    let mut partition_of: HashMap<String, i32> = HashMap::new();
    for message in &messages {
        let key = message.key.clone().expect("every event has a key");
        let value: Value = serde_json::from_str(&message.value).unwrap();
        let id = event_id(&value);
        assert_eq!(topic_of.get(&id), Some(&message.topic), "event {id} of {key}");
        let partition = *partition_of.entry(key.clone()).or_insert(message.partition);
        assert_eq!(partition, message.partition, "a record's events share a partition");
        assert!(message.headers.contains(&("folio.tenantId".to_string(), "diku".to_string())));
        seen.entry(key).or_default().push(id.clone());
        values.insert(id, (message.topic.clone(), value, message.headers.clone()));
    }
    assert_eq!(seen, by_key);

    // The shapes FOLIO's consumers read.
    let of_key =
        |key: &str| -> Vec<&Received> { by_key[key].iter().map(|id| &values[id]).collect() };
    let item_id = item["id"].as_str().unwrap();
    let item_events = of_key(item_id);
    let (topic, created, _) = item_events[0];
    assert_eq!(topic, "qtest.diku.inventory.item");
    assert_eq!(created["type"], "CREATE");
    assert_eq!(created["tenant"], "diku");
    assert_eq!(created["new"]["barcode"], "ev-1");
    assert_eq!(created["new"]["instanceId"], desk.holdings["instanceId"]);
    let (_, updated, headers) = item_events[1];
    assert_eq!(
        (&updated["type"], &updated["old"]["copyNumber"], &updated["new"]["copyNumber"]),
        (&json!("UPDATE"), &Value::Null, &json!("c.1"))
    );
    // The user who made the change, as FOLIO's modules send it.
    let by = updated["new"]["metadata"]["updatedByUserId"].as_str().expect("a stamped write");
    assert!(headers.contains(&("x-okapi-user-id".to_string(), by.to_string())), "{headers:?}");
    let statuses: Vec<&Value> =
        item_events.iter().map(|(_, v, _)| &v["new"]["status"]["name"]).collect();
    assert!(statuses.contains(&&json!("Checked out")), "{statuses:?}");
    let (_, deleted, _) = of_key(doomed["id"].as_str().unwrap())[1];
    assert_eq!((&deleted["type"], deleted.get("new")), (&json!("DELETE"), None));
    assert_eq!(deleted["old"]["barcode"], "ev-doomed");

    let (topic, loan_created, _) = of_key(&loan)[0];
    assert_eq!(topic, "qtest.diku.circulation.loan");
    assert_eq!(loan_created["type"], "CREATED");
    assert_eq!(loan_created["data"]["new"]["userId"], patron["id"]);
    assert!(loan_created["timestamp"].is_i64());
    let (_, loan_closed, _) = of_key(&loan).last().copied().unwrap();
    assert_eq!(loan_closed["type"], "UPDATED");
    assert_eq!(loan_closed["data"]["old"]["status"]["name"], "Open");
    assert_eq!(loan_closed["data"]["new"]["status"]["name"], "Closed");
    assert_eq!(of_key(&request)[0].0, "qtest.diku.circulation.request");
    let check_ins: Vec<&Received> =
        values.values().filter(|(t, _, _)| t == "qtest.diku.circulation.check-in").collect();
    assert_eq!(check_ins.len(), 1);
    assert_eq!(check_ins[0].1["data"]["new"]["itemId"], item["id"]);
    let (topic, user, _) = of_key(patron["id"].as_str().unwrap())[0];
    assert_eq!(
        (topic.as_str(), &user["data"]["new"]["barcode"]),
        ("qtest.diku.users.users", &json!("ev-p1"))
    );

    let source_records: Vec<&Received> = values
        .values()
        .filter(|(t, v, _)| {
            t == "qtest.diku.srs.source_records" && v["eventType"] == "SOURCE_RECORD_CREATED"
        })
        .collect();
    assert_eq!(source_records.len(), 101, "one posted, a hundred imported");
    let posted = of_key(record["id"].as_str().unwrap())[0];
    assert_eq!(posted.1["eventType"], "SOURCE_RECORD_CREATED");
    assert!(posted.2.contains(&("folio.srs.recordType".to_string(), "MARC_BIB".to_string())));
    let payload: Value = serde_json::from_str(posted.1["eventPayload"].as_str().unwrap()).unwrap();
    assert_eq!(payload["new"]["id"], record["id"]);
    assert_eq!(payload["new"]["parsedRecord"]["content"]["leader"], json!(bib.leader().as_str()));
    assert!(payload["new"].get("rawRecord").is_none());
    let imported = values
        .values()
        .filter(|(t, v, _)| {
            t == "qtest.diku.inventory.instance"
                && v["type"] == "CREATE"
                && v["new"]["source"] == "MARC"
        })
        .count();
    assert_eq!(imported, 100);
    let authorities: Vec<_> =
        values.values().filter(|(t, _, _)| t == "qtest.diku.authorities.authority").collect();
    assert_eq!(authorities.len(), 1);
    assert!(authorities[0].2.contains(&("domain-event-type".to_string(), "CREATE".to_string())));

    let status = &publisher.status()["diku"];
    assert_eq!((status.lag_changes, status.skipped, status.last_error.as_deref()), (0, 0, None));
    assert_eq!(status.events, expected as u64);

    // A consumer that lost its state asks for it all again: the replay sends every event
    // once more, with the same ids. A sequence number past the log is refused.
    let head = diku.last_seq().unwrap();
    let path = format!("/admin/events/replay?tenant=diku&from={}", head + 5);
    let r = app.send(Method::POST, &path, None, None, None).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.text);
    assert!(r.error().0.contains("outside the change log"), "{}", r.text);
    let path = format!("/admin/events/replay?tenant=diku&from={}", start + 1);
    let r = app.send(Method::POST, &path, None, None, None).await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.text);
    assert_eq!(r.body["through"], head);
    wait_until_published(&publisher).await;
    let again = tokio::task::spawn_blocking(move || {
        let held: i64 =
            kafka_test::end_offsets(&broker, r"qtest\.diku\..*").iter().map(|(_, _, n)| n).sum();
        assert_eq!(held as usize, 2 * expected);
        kafka_test::consume(&broker, r"qtest\.diku\..*", 2 * expected, Duration::from_secs(90))
    })
    .await
    .unwrap();
    let mut times: HashMap<String, usize> = HashMap::new();
    for message in &again {
        let value: Value = serde_json::from_str(&message.value).unwrap();
        *times.entry(event_id(&value)).or_default() += 1;
    }
    assert!(times.len() == expected && times.values().all(|n| *n == 2));
}
