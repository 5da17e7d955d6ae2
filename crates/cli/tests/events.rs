//! Events survive faults: a Kafka broker stopped in the middle of 10,000 writes, and a
//! server killed outright while publishing. Afterwards Kafka's own consumer finds every
//! committed change's event at least once, each record's in commit order, and no write
//! was refused meanwhile.

use std::{collections::BTreeMap, path::Path, sync::mpsc, time::Duration};

use serde_json::{Value, json};

mod support;

use support::{Server, quire};

const TENANT: &str = "ev";
const PASSWORD: &str = "pw";
const BATCH: u128 = 500;
const TOPIC: &str = r"qfault\.ev\.inventory\.instance";

/// A tenant on a fresh data directory.
fn tenant(dir: &Path) {
    let out = quire(&["tenant", "create", TENANT, "--admin-password", PASSWORD], dir);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

/// The store, opened by the test.
fn open(dir: &Path) -> store::Store {
    let options = store::Options { prewarm: false, ..store::Options::default() };
    store::Store::open(dir, options, &runtime::components()).unwrap()
}

fn serve(dir: &Path, broker: &kafka_test::Broker) -> Server {
    Server::start_with(dir, &["--kafka", &broker.bootstrap(), "--kafka-env", "qfault"])
}

/// A batch the server did not acknowledge: its round and status (`None`: no answer).
type Refused = (u128, Option<u16>);

/// A client of the tenant, for instance batches.
#[derive(Clone)]
struct Client {
    url: String,
    token: String,
    /// The id of instance type `text`.
    kind: Value,
}

impl Client {
    fn new(server: &Server) -> Client {
        let token = server.login(TENANT, PASSWORD);
        let types: Value = ureq::get(&format!("{}/instance-types?limit=100", server.url))
            .set("x-okapi-tenant", TENANT)
            .set("x-okapi-token", &token)
            .call()
            .unwrap()
            .into_json()
            .unwrap();
        let text = types["instanceTypes"].as_array().unwrap().iter().find(|t| t["name"] == "text");
        Client { url: server.url.clone(), token, kind: text.unwrap()["id"].clone() }
    }

    /// Writes batch `round`: 500 instances, created on their first round and replaced on
    /// later ones (ids repeat every `cycle` rounds). The status code, or `None` when the
    /// server could not be reached.
    fn batch(&self, round: u128, cycle: u128) -> Option<u16> {
        let first = (round % cycle) * BATCH;
        let instances: Vec<Value> = (0..BATCH)
            .map(|n| {
                json!({"id": uuid::Uuid::from_u128(first + n + 1), "source": "FOLIO",
                    "title": format!("Event {round}/{n}"), "instanceTypeId": self.kind})
            })
            .collect();
        let url = format!("{}/instance-storage/batch/synchronous?upsert=true", self.url);
        match ureq::post(&url)
            .set("x-okapi-tenant", TENANT)
            .set("x-okapi-token", &self.token)
            .timeout(Duration::from_secs(60))
            .send_json(json!({ "instances": instances }))
        {
            Ok(r) => Some(r.status()),
            Err(ureq::Error::Status(code, _)) => Some(code),
            Err(_) => None,
        }
    }

    /// Sends `rounds` from a thread, telling each one acknowledged; the thread returns
    /// the first round not acknowledged, if any, with its status.
    fn send(
        self,
        rounds: std::ops::Range<u128>,
        cycle: u128,
    ) -> (std::thread::JoinHandle<Option<Refused>>, mpsc::Receiver<u128>) {
        let (acked, acks) = mpsc::channel();
        let sender = std::thread::spawn(move || {
            for round in rounds {
                let status = self.batch(round, cycle);
                if status != Some(201) {
                    return Some((round, status));
                }
                let _ = acked.send(round);
            }
            None
        });
        (sender, acks)
    }
}

/// A broker, and a tenant on a fresh data directory served with publishing to it.
struct Rig {
    broker: kafka_test::Broker,
    dir: tempfile::TempDir,
    /// The change log's last sequence number before the server started publishing.
    start: i64,
    server: Server,
}

fn rig() -> Rig {
    let broker = kafka_test::Broker::start();
    let dir = tempfile::tempdir().unwrap();
    tenant(dir.path());
    let server = serve(dir.path(), &broker);
    let start = published(&server)["published"].as_i64().unwrap();
    Rig { broker, dir, start, server }
}

/// The publisher's status of the tenant, once it follows it.
fn published(server: &Server) -> Value {
    loop {
        let health: Value =
            ureq::get(&format!("{}/admin/health", server.url)).call().unwrap().into_json().unwrap();
        let status = &health["events"]["tenants"][TENANT];
        if !status.is_null() {
            return status.clone();
        }
        // A pause, not a deadline: the loop ends when the publisher follows the tenant.
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Waits until the server has published its tenant's log up to its head: the
/// publisher's own sequence numbers, seen through `/admin/health`.
fn wait_until_published(server: &Server) -> Value {
    loop {
        let status = published(server);
        if status["lagChanges"] == 0
            && status["published"].as_i64() >= Some(1)
            && status["published"] == status["head"]
        {
            return status;
        }
        // A pause, not a deadline: the loop ends on the sequence numbers.
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Every change after `after` has its event on Kafka at least once, and each record's
/// events, first arrivals taken, come in commit order. Returns how many duplicates
/// there were.
fn assert_all_published(dir: &Path, broker: &kafka_test::Broker, after: i64) -> usize {
    let store = open(dir);
    let tenant = store.tenant(TENANT).unwrap();
    let changes = tenant.read(|r| r.changes_since(after, 1_000_000)).unwrap();
    let mut expected: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for change in changes.iter().filter(|c| c.record_type == "instance") {
        let id = events::event_id(TENANT, change.seq).to_string();
        expected.entry(change.record_id.clone()).or_default().push(id);
    }
    let total: usize = expected.values().map(Vec::len).sum();
    assert!(total >= 10_000, "{total} changes");
    // Everything the topic holds, counted by Kafka, is read back.
    let held: i64 = kafka_test::end_offsets(broker, TOPIC).iter().map(|(_, _, n)| n).sum();
    let messages = kafka_test::consume(broker, TOPIC, held as usize, Duration::from_secs(60));
    assert_eq!(messages.len() as i64, held);
    let mut firsts: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut seen = std::collections::HashSet::new();
    for message in &messages {
        let value: Value = serde_json::from_str(&message.value).unwrap();
        let id = value["eventId"].as_str().unwrap().to_string();
        if seen.insert(id.clone()) {
            firsts.entry(message.key.clone().unwrap()).or_default().push(id);
        }
    }
    // Told briefly: ten thousand ids are no help in a failure message.
    let missing = total - expected.values().flatten().filter(|id| seen.contains(*id)).count();
    let unordered: Vec<&String> =
        expected.keys().filter(|key| firsts.get(*key) != expected.get(*key)).collect();
    assert_eq!(
        (missing, unordered.len(), seen.len()),
        (0, 0, total),
        "{} messages; records out of order or incomplete, e.g. {:?}",
        messages.len(),
        unordered.first().map(|key| (key, firsts.get(*key), &expected[*key]))
    );
    messages.len() - total
}

#[test]
fn a_broker_stopped_during_10000_writes_delays_their_events_and_loses_none() {
    let Rig { mut broker, dir, start, server } = rig();

    // 20 batches: 5,000 instances created, then each replaced once.
    let (sender, acks) = Client::new(&server).send(0..20, 10);
    let mut landed = acks.iter();
    landed.by_ref().take(3).for_each(drop);
    broker.stop();
    landed.by_ref().take(10).for_each(drop);
    broker.restart();
    assert_eq!(sender.join().unwrap(), None, "a batch was refused while the broker was away");

    let status = wait_until_published(&server);
    assert_eq!(status["lastError"], Value::Null, "{status}");
    server.kill();
    let duplicates = assert_all_published(dir.path(), &broker, start);
    eprintln!("broker outage: {duplicates} events sent twice; {status}");
}

#[test]
fn a_server_killed_while_publishing_publishes_the_rest_once_restarted() {
    let Rig { broker, dir, start, server } = rig();

    // Batches go on until the server dies under them; ids repeat every 4 rounds, so
    // records have several events to keep in order.
    let (sender, acks) = Client::new(&server).send(0..u128::MAX, 4);
    acks.iter().take(12).for_each(drop);
    server.kill();
    let (stopped_at, _) = sender.join().unwrap().expect("the server died under the sender");

    let server = serve(dir.path(), &broker);
    let (sender, _) = Client::new(&server).send(stopped_at..stopped_at + 8, 4);
    let log = || std::fs::read_to_string(dir.path().join("server.log")).unwrap_or_default();
    assert_eq!(sender.join().unwrap(), None, "{}", log());
    let status = wait_until_published(&server);
    assert_eq!(status["lastError"], Value::Null, "{status}");
    server.kill();
    let duplicates = assert_all_published(dir.path(), &broker, start);
    eprintln!("server killed: {duplicates} events sent twice; {status}");
}

#[test]
fn replays_are_refused_where_bodies_were_never_kept_and_stop_forgets_the_publisher() {
    let dir = tempfile::tempdir().unwrap();
    tenant(dir.path());
    let head = open(dir.path()).tenant(TENANT).unwrap().last_seq().unwrap();
    let replay = |from: i64| {
        let out = quire(
            &["events", "replay", "--tenant", TENANT, "--from", &from.to_string()],
            dir.path(),
        );
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        (out.status.success(), text)
    };
    let (ok, text) = replay(1);
    assert!(!ok && text.contains("has never published events"), "{text}");

    // A publisher as `quire serve --kafka` registers it: from the end of the log.
    open(dir.path())
        .tenant(TENANT)
        .unwrap()
        .start_publisher(events::PUBLISHER, &events::record_types())
        .unwrap();
    // The tenant's administrator was written before: no body of it was kept.
    let (ok, text) = replay(1);
    assert!(!ok && text.contains("no longer all kept"), "{text}");
    let (ok, text) = replay(head + 1);
    assert!(ok && text.contains(&format!("published up to {head} only")), "{text}");

    let out = quire(&["events", "stop", "--tenant", TENANT], dir.path());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let (ok, text) = replay(1);
    assert!(!ok && text.contains("has never published events"), "{text}");
}
