//! Fields that repeat others' values (`itemIdentifiers`, `holdingsIdentifiers`, the
//! items' holdings ids and call numbers, the public notes) are indexed as a bit where a
//! document's terms equal their sources'. Every relation on them must find exactly the
//! documents whose own values match, whether a document took the bit or kept its
//! terms: the families here mix both, and some match a query through a source field
//! only (a holdings record without items, a former id whose case folds differently),
//! which must not count.

mod common;

use common::{count, create_instance, fixture};
use folio::Actor;
use inventory::{HoldingsRecord, Instance, Item};
use search::{InstanceIndex, SearchRequest};
use serde_json::{Value, json};
use uuid::Uuid;

const FOLIO_SOURCE: &str = "f32d531e-df79-46b3-8932-cdd35f7a2264";
const MAIN_LIBRARY: &str = "fcd64ce1-6995-48f0-840e-89ffa2288371";
const BOOK: &str = "1a54b431-2e4f-452d-9cae-9cee66c9a892";
const CAN_CIRCULATE: &str = "2b94c631-fca9-4892-a730-03ee529ffe27";

fn create<R: inventory::Record + Send>(tenant: &store::Tenant, body: Value) -> R {
    tenant
        .write(|w| inventory::create::<R>(w, body.to_string().as_bytes(), Actor::default()))
        .unwrap()
}

fn holdings(tenant: &store::Tenant, instance: Uuid, fields: Value) -> Uuid {
    let mut body = json!({"instanceId": instance, "sourceId": FOLIO_SOURCE, "permanentLocationId": MAIN_LIBRARY});
    body.as_object_mut().unwrap().extend(fields.as_object().unwrap().clone());
    create::<HoldingsRecord>(tenant, body).id.unwrap()
}

fn item(tenant: &store::Tenant, holdings: Uuid, fields: Value) -> Item {
    let mut body = json!({"holdingsRecordId": holdings, "status": {"name": "Available"},
        "materialTypeId": BOOK, "permanentLoanTypeId": CAN_CIRCULATE});
    body.as_object_mut().unwrap().extend(fields.as_object().unwrap().clone());
    create::<Item>(tenant, body)
}

/// The hrids of the instances a query finds, sorted.
fn found(index: &InstanceIndex, tenant: &store::Tenant, query: &str) -> Vec<String> {
    let mut request = SearchRequest::new(query);
    request.limit = 100;
    let response = index.search(tenant, &request).unwrap();
    let mut hrids: Vec<String> = response
        .instances
        .iter()
        .map(|i| serde_json::from_str::<Value>(i).unwrap()["hrid"].as_str().unwrap().to_string())
        .collect();
    hrids.sort();
    hrids
}

#[test]
fn echo_fields_match_their_own_values_only() {
    let f = fixture();
    let t = &f.tenant;
    // e1: one holdings record, one item inheriting its call number: every echo applies.
    let e1 = create_instance(t, "e1", "e1");
    let h1 = holdings(t, e1, json!({"hrid": "ho1", "callNumber": "QA76.73 .R87"}));
    let i1 = item(t, h1, json!({"hrid": "it1"})).id.unwrap();
    // e2: an item with a call number of its own and an identifier whose case folds.
    let e2 = create_instance(t, "e2", "e2");
    let h2 = holdings(t, e2, json!({"hrid": "ho2", "callNumber": "PS3545"}));
    let i2 = item(
        t,
        h2,
        json!({"hrid": "it2", "itemLevelCallNumber": "X 100",
        "itemIdentifier": "ABC-9"}),
    );
    // e3: a holdings record without items beside one with an item.
    let e3 = create_instance(t, "e3", "e3");
    let h3 = holdings(t, e3, json!({"hrid": "ho3", "callNumber": "QA76.73 .R87"}));
    let h4 = holdings(t, e3, json!({"hrid": "ho4", "callNumber": "Z1"}));
    item(t, h4, json!({"hrid": "it4"}));
    // e4: a holdings former id that folds (kept exactly in `holdings.formerIds`).
    let e4 = create_instance(t, "e4", "e4");
    let h5 = holdings(t, e4, json!({"hrid": "ho5", "formerIds": ["Ölz-7"]}));
    item(t, h5, json!({"hrid": "it5", "formerIds": ["Old-1"]}));
    // e5: nothing but the instance.
    create_instance(t, "e5", "e5");

    let index = InstanceIndex::open(t).unwrap();
    index.catch_up(t).unwrap();
    let cases: Vec<(String, &[&str])> = vec![
        // The identifier unions.
        ("itemIdentifiers == it1".into(), &["e1"]),
        (format!("itemIdentifiers == {i1}"), &["e1"]),
        ("itemIdentifiers == ABC-9".into(), &["e2"]),
        ("itemIdentifiers == abc-9".into(), &["e2"]),
        ("items.itemIdentifier == abc-9".into(), &[]),
        ("itemIdentifiers == old-1".into(), &["e4"]),
        ("itemIdentifiers all it*".into(), &["e1", "e2", "e3", "e4"]),
        // Patterns a random UUID cannot match ('t' is not a hex digit).
        ("itemIdentifiers all *t1".into(), &["e1"]),
        ("itemIdentifiers all *d-1".into(), &["e4"]),
        ("itemIdentifiers = \"\"".into(), &["e1", "e2", "e3", "e4"]),
        ("itemIdentifiers > it4".into(), &["e4"]),
        ("holdingsIdentifiers == ho3".into(), &["e3"]),
        ("holdingsIdentifiers == olz-7".into(), &["e4"]),
        ("holdingsIdentifiers == ÖLZ-7".into(), &["e4"]),
        ("holdings.formerIds == olz-7".into(), &[]),
        (format!("holdingsIdentifiers == {h2}"), &["e2"]),
        ("holdingsIdentifiers all ho*".into(), &["e1", "e2", "e3", "e4"]),
        // The items' holdings ids: h3 has no items.
        (format!("items.holdingsRecordId == {h1}"), &["e1"]),
        (format!("items.holdingsRecordId == {h3}"), &[]),
        (format!("items.holdingsRecordId == {h4}"), &["e3"]),
        (format!("holdings.id == {h3}"), &["e3"]),
        (format!("items.holdingsRecordId <> {h1}"), &["e2", "e3", "e4", "e5"]),
        // Call numbers: e3's "QA76.73 .R87" is on its holdings only.
        ("items.effectiveCallNumberComponents.callNumber == \"QA76.73 .R87\"".into(), &["e1"]),
        ("holdings.callNumber == \"QA76.73 .R87\"".into(), &["e1", "e3"]),
        ("items.effectiveCallNumberComponents.callNumber == \"X 100\"".into(), &["e2"]),
        ("items.effectiveCallNumberComponents.callNumber == PS3545".into(), &[]),
        ("items.effectiveCallNumberComponents.callNumber == Z1".into(), &["e3"]),
        ("items.effectiveCallNumberComponents.callNumber < R".into(), &["e1"]),
        ("items.effectiveCallNumberComponents.callNumber >= X".into(), &["e2", "e3"]),
        ("itemFullCallNumbers == \"qa76.73 .r87\"".into(), &["e1"]),
        ("items.fullCallNumber == \"QA76.73 .R87\"".into(), &["e1"]),
        ("itemFullCallNumbers all *r87".into(), &["e1"]),
        ("holdingsFullCallNumbers all *r87".into(), &["e1", "e3"]),
        ("itemNormalizedCallNumbers == qa7673r87".into(), &["e1"]),
        ("itemNormalizedCallNumbers all qa76*".into(), &["e1"]),
        ("holdingsNormalizedCallNumbers all qa76*".into(), &["e1", "e3"]),
        ("items.normalizedCallNumbers == \"X 100\"".into(), &["e2"]),
        ("itemNormalizedCallNumbers = \"\"".into(), &["e1", "e2", "e3"]),
    ];
    let check = |index: &InstanceIndex, when: &str| {
        for (query, expected) in &cases {
            assert_eq!(found(index, t, query), *expected, "{when}: {query}");
        }
    };
    check(&index, "followed");
    assert_eq!(count(&index, "items.holdingsRecordId = \"\""), 4);

    // A full build gives the same answers as the follower.
    index.reindex(t, |_| {}).unwrap();
    check(&index, "rebuilt");

    // A change moves a document from kept terms to the bit: e2's item gives up its own
    // call number and identifier.
    let mut changed = i2.clone();
    changed.item_level_call_number = None;
    changed.item_identifier = None;
    let body = serde_json::to_vec(&changed).unwrap();
    t.write(|w| inventory::replace::<Item>(w, i2.id.unwrap(), &body, Actor::default())).unwrap();
    index.catch_up(t).unwrap();
    let none: &[&str] = &[];
    assert_eq!(
        found(&index, t, "items.effectiveCallNumberComponents.callNumber == PS3545"),
        ["e2"]
    );
    assert_eq!(found(&index, t, "itemNormalizedCallNumbers == x100"), none);
    assert_eq!(found(&index, t, "itemIdentifiers == abc-9"), none);
    assert_eq!(found(&index, t, "itemIdentifiers == it2"), ["e2"]);
}

/// The public notes are the notes less the staff-only ones: a text field, so every
/// relation (words, phrases, whole values, patterns, presence, `<>`) must see exactly
/// a document's public notes, whether they are the notes again (the bit) or not.
#[test]
fn public_notes_are_the_public_notes_only() {
    let f = fixture();
    let t = &f.tenant;
    let instance = |hrid: &str, notes: Value| -> Instance {
        create(
            t,
            json!({"hrid": hrid, "source": "FOLIO", "title": hrid,
                "instanceTypeId": common::INSTANCE_TYPE, "notes": notes}),
        )
    };
    // n1: public notes only, so they echo the notes.
    let n1 = instance(
        "n1",
        json!([{"note": "Printed on acid-free paper."}, {"note": "Includes index."}]),
    );
    holdings(t, n1.id.unwrap(), json!({"notes": [{"note": "Bound with volume two"}]}));
    // n2: a staff-only note first, then a public one; a staff-only holdings note.
    let n2 = instance(
        "n2",
        json!([{"note": "Gift of the Smith family", "staffOnly": true},
            {"note": "Includes bibliographical references"}]),
    );
    holdings(
        t,
        n2.id.unwrap(),
        json!({"notes": [{"note": "Shelved in the cage", "staffOnly": true}]}),
    );
    // n3: no notes.
    instance("n3", json!([]));

    let index = InstanceIndex::open(t).unwrap();
    index.catch_up(t).unwrap();
    let cases: &[(&str, &[&str])] = &[
        ("publicNotes all \"acid free\"", &["n1"]),
        ("publicNotes all papers", &["n1"]),
        ("publicNotes all gift", &[]),
        ("notes.note all gift", &["n2"]),
        ("publicNotes all bibliographical", &["n2"]),
        ("publicNotes all includes", &["n1", "n2"]),
        ("publicNotes == \"includes index\"", &["n1"]),
        ("publicNotes == \"family includes\"", &[]),
        ("publicNotes any \"smith index\"", &["n1"]),
        ("publicNotes ==/string \"Includes index.\"", &["n1"]),
        ("publicNotes ==/string \"Gift of the Smith family\"", &[]),
        ("publicNotes all includes*", &["n1", "n2"]),
        ("publicNotes all *family", &[]),
        ("publicNotes = \"\"", &["n1", "n2"]),
        ("publicNotes <> paper", &["n2", "n3"]),
        ("publicNotes <> gift", &["n1", "n2", "n3"]),
        ("holdingsPublicNotes all bound", &["n1"]),
        ("holdingsPublicNotes all cage", &[]),
        ("holdings.notes.note all cage", &["n2"]),
        ("holdingsPublicNotes = \"\"", &["n1"]),
    ];
    let check = |index: &InstanceIndex, when: &str| {
        for (query, expected) in cases {
            assert_eq!(found(index, t, query), *expected, "{when}: {query}");
        }
    };
    check(&index, "followed");
    index.reindex(t, |_| {}).unwrap();
    check(&index, "rebuilt");

    // n2's staff-only note becomes public: its public notes are now its notes.
    let mut changed = n2.clone();
    changed.notes[0].staff_only = false;
    let body = serde_json::to_vec(&changed).unwrap();
    t.write(|w| inventory::replace::<Instance>(w, n2.id.unwrap(), &body, Actor::default()))
        .unwrap();
    index.catch_up(t).unwrap();
    assert_eq!(found(&index, t, "publicNotes all gift"), ["n2"]);
    // A phrase across two notes finds what it finds in the notes themselves.
    assert_eq!(
        found(&index, t, "publicNotes == \"family includes\""),
        found(&index, t, "notes.note == \"family includes\"")
    );
    assert_eq!(found(&index, t, "publicNotes all \"gift bibliographical\""), ["n2"]);
    assert_eq!(found(&index, t, "publicNotes <> gift"), ["n1", "n3"]);
}
