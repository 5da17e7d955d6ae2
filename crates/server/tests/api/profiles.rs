//! Data-import profiles (mod-di-converter-storage): FOLIO's defaults, a job built from
//! profiles and links and read back as a tree, FOLIO's messages, lists, round trips.

use axum::http::StatusCode;
use serde_json::{Value, json};

use crate::support::{Client, TestApp};

const BASE: &str = "/data-import-profiles";
const CREATE_INSTANCE_JOB: &str = "e34d7b92-9b83-11eb-a8b3-0242ac130003";
const CREATE_INSTANCE_ACTION: &str = "fa45f3ec-9b83-11eb-a8b3-0242ac130003";
const CREATE_INSTANCE_MAPPING: &str = "bf7b3b86-9b84-11eb-a8b3-0242ac130003";

/// POSTs a profile body; the created profile's id.
async fn create(c: &Client<'_>, kind: &str, body: Value) -> String {
    let r = c.post(&format!("{BASE}/{kind}"), &body).await;
    assert_eq!(r.status, StatusCode::CREATED, "{kind}: {}", r.text);
    assert_eq!(r.body["id"], r.body["profile"]["id"], "{}", r.text);
    r.body["profile"]["id"].as_str().unwrap().to_string()
}

/// Every error message of a FOLIO error body.
fn messages(r: &crate::support::Response) -> Vec<String> {
    r.body["errors"]
        .as_array()
        .map(|errors| {
            errors.iter().map(|e| e["message"].as_str().unwrap_or("").to_string()).collect()
        })
        .unwrap_or_default()
}

/// A node's type, name and children, one line per node.
fn outline(node: &Value, depth: usize, out: &mut String) {
    let react = node["reactTo"].as_str().map(|r| format!(" on {r}")).unwrap_or_default();
    out.push_str(&format!(
        "{}{} {}{react}\n",
        "  ".repeat(depth),
        node["contentType"].as_str().unwrap_or("?"),
        node["content"]["name"].as_str().unwrap_or("?")
    ));
    for child in node["childSnapshotWrappers"].as_array().into_iter().flatten() {
        outline(child, depth + 1, out);
    }
}

#[tokio::test]
async fn new_tenants_have_folios_default_profiles_under_their_ids() {
    let app = TestApp::new();
    let c = Client::admin(&app, "diku").await;
    let r = c.get(&format!("{BASE}/jobProfiles/{CREATE_INSTANCE_JOB}")).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.body["name"], "Default - Create instance and SRS MARC Bib");
    assert_eq!(r.body["dataType"], "MARC");
    assert_eq!(r.body["userInfo"]["userName"], "System");
    for (path, id, name) in [
        ("actionProfiles", CREATE_INSTANCE_ACTION, "Default - Create instance"),
        ("mappingProfiles", CREATE_INSTANCE_MAPPING, "Default - Create instance"),
        (
            "jobProfiles",
            "6eefa4c6-bbf7-4845-ad82-de7fc5abd0e3",
            "Default - Create SRS MARC Authority",
        ),
        (
            "jobProfiles",
            "80898dee-449f-44dd-9c8e-37d5eb469b1d",
            "Default - Create Holdings and SRS MARC Holdings",
        ),
        (
            "jobProfiles",
            "d0ebb7b0-2f0f-11eb-adc1-0242ac120002",
            "Inventory Single Record - Default Create Instance",
        ),
        (
            "matchProfiles",
            "d27d71ce-8a1e-44c6-acea-96961b5592c6",
            "Inventory Single Record - Default match for existing SRS record",
        ),
    ] {
        let r = c.get(&format!("{BASE}/{path}/{id}")).await;
        assert_eq!(
            (r.status, r.body["name"].as_str()),
            (StatusCode::OK, Some(name)),
            "{path}/{id}"
        );
    }
    // Hidden defaults (quickMARC's, the MARC authority app's) are listed on request only.
    let visible = c.get(&format!("{BASE}/jobProfiles?limit=100")).await;
    let all = c.get(&format!("{BASE}/jobProfiles?limit=100&showHidden=true")).await;
    assert_eq!(
        (visible.body["totalRecords"].as_u64(), all.body["totalRecords"].as_u64()),
        (Some(7), Some(13))
    );
    assert!(visible.body["jobProfiles"].as_array().unwrap().iter().all(|p| p["hidden"] == false));

    let r = c.get(&format!("{BASE}/profileSnapshots/{CREATE_INSTANCE_JOB}?profileType=JOB_PROFILE&jobProfileId={CREATE_INSTANCE_JOB}")).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let mut tree = String::new();
    outline(&r.body, 0, &mut tree);
    assert_eq!(
        tree,
        "JOB_PROFILE Default - Create instance and SRS MARC Bib\n  ACTION_PROFILE Default - Create instance\n    MAPPING_PROFILE Default - Create instance\n"
    );
    assert_eq!(r.body["childSnapshotWrappers"][0]["profileId"], CREATE_INSTANCE_ACTION);
    assert_eq!(
        r.body["childSnapshotWrappers"][0]["childSnapshotWrappers"][0]["profileId"],
        CREATE_INSTANCE_MAPPING
    );
}

/// Match 001 to instance HRIDs; update the instance found, or create one.
async fn overlay_job(c: &Client<'_>) -> (String, String, String, String) {
    let matched = create(
        c,
        "matchProfiles",
        json!({"profile": {
        "name": "001 to instance HRID", "description": "Overlay by HRID",
        "incomingRecordType": "MARC_BIBLIOGRAPHIC", "existingRecordType": "INSTANCE",
        "matchDetails": [{
            "incomingRecordType": "MARC_BIBLIOGRAPHIC", "existingRecordType": "INSTANCE",
            "incomingMatchExpression": {"dataValueType": "VALUE_FROM_RECORD", "fields": [
                {"label": "field", "value": "001"}, {"label": "indicator1", "value": ""},
                {"label": "indicator2", "value": ""}, {"label": "recordSubfield", "value": ""}]},
            "matchCriterion": "EXACTLY_MATCHES",
            "existingMatchExpression": {"dataValueType": "VALUE_FROM_RECORD",
                "fields": [{"label": "field", "value": "instance.hrid"}]}}]}}),
    )
    .await;
    let update = create(
        c,
        "actionProfiles",
        json!({"profile": {
        "name": "Overlay - update instance", "action": "UPDATE", "folioRecord": "INSTANCE"}}),
    )
    .await;
    let add = create(
        c,
        "actionProfiles",
        json!({"profile": {
        "name": "Overlay - create instance", "action": "CREATE", "folioRecord": "INSTANCE"}}),
    )
    .await;
    for (name, action) in
        [("Overlay - update instance", &update), ("Overlay - create instance", &add)]
    {
        let r = c.post(&format!("{BASE}/mappingProfiles"), &json!({
            "profile": {"name": name, "incomingRecordType": "MARC_BIBLIOGRAPHIC", "existingRecordType": "INSTANCE",
                "mappingDetails": {"name": "instance", "recordType": "INSTANCE", "mappingFields": [
                    {"name": "statusId", "enabled": "true", "path": "instance.statusId", "value": "\"Cataloged\"",
                     "acceptedValues": {"9634a5ab-9228-4703-baf2-4d12ebc77d56": "Cataloged"}},
                    {"name": "statisticalCodeIds", "enabled": "true", "path": "instance.statisticalCodeIds[]",
                     "repeatableFieldAction": "EXTEND_EXISTING", "subfields": [{"order": 0,
                       "path": "instance.statisticalCodeIds[]", "fields": [{"name": "statisticalCodeId",
                       "enabled": "true", "path": "instance.statisticalCodeIds[]", "value": "949$s"}]}]}]}},
            "addedRelations": [{"masterProfileId": action, "masterProfileType": "ACTION_PROFILE",
                "detailProfileType": "MAPPING_PROFILE", "order": 0}]})).await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
        let link = &r.body["addedRelations"][0];
        assert_eq!(link["detailProfileId"], r.body["id"], "the link's own end is the new profile");
        assert!(
            link["id"].is_string()
                && link["masterWrapperId"].is_string()
                && link["detailWrapperId"].is_string(),
            "{}",
            r.text
        );
    }
    let job = create(c, "jobProfiles", json!({
        "profile": {"name": "Overlay by 001", "dataType": "MARC", "tags": {"tagList": ["overlay"]}},
        "addedRelations": [
            {"masterProfileType": "JOB_PROFILE", "detailProfileId": matched, "detailProfileType": "MATCH_PROFILE", "order": 0},
            {"masterProfileId": matched, "masterProfileType": "MATCH_PROFILE", "detailProfileId": update,
             "detailProfileType": "ACTION_PROFILE", "order": 0, "reactTo": "MATCH"},
            {"masterProfileId": matched, "masterProfileType": "MATCH_PROFILE", "detailProfileId": add,
             "detailProfileType": "ACTION_PROFILE", "order": 0, "reactTo": "NON_MATCH"}],
        "deletedRelations": []})).await;
    (job, matched, update, add)
}

#[tokio::test]
async fn a_job_built_from_profiles_and_links_reads_back_as_its_tree() {
    let app = TestApp::new();
    let c = Client::admin(&app, "diku").await;
    let (job, matched, update, _) = overlay_job(&c).await;
    let r = c.get(&format!("{BASE}/profileSnapshots/{job}")).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let mut tree = String::new();
    outline(&r.body, 0, &mut tree);
    assert_eq!(
        tree,
        "JOB_PROFILE Overlay by 001
  MATCH_PROFILE 001 to instance HRID
    ACTION_PROFILE Overlay - update instance on MATCH
      MAPPING_PROFILE Overlay - update instance
    ACTION_PROFILE Overlay - create instance on NON_MATCH
      MAPPING_PROFILE Overlay - create instance
"
    );
    let matching = &r.body["childSnapshotWrappers"][0]["content"]["matchDetails"][0];
    assert_eq!(matching["existingMatchExpression"]["fields"][0]["value"], "instance.hrid");
    // The job's match links carry the job; a match's actions hang from its node.
    let r = c
        .get(&format!("{BASE}/profileAssociations?master=MATCH_PROFILE&detail=ACTION_PROFILE"))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let ours: Vec<&Value> = r.body["profileAssociations"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["masterProfileId"] == matched.as_str())
        .collect();
    assert_eq!(ours.len(), 2, "{}", r.text);
    assert!(ours.iter().all(|l| l["jobProfileId"] == job.as_str()));

    // withRelations: the match's parent is the job, its children the two actions.
    let r = c.get(&format!("{BASE}/matchProfiles/{matched}?withRelations=true")).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.body["parentProfiles"][0]["id"], job.as_str());
    assert_eq!(r.body["parentProfiles"][0]["contentType"], "JOB_PROFILE");
    assert_eq!(r.body["childProfiles"].as_array().unwrap().len(), 2);
    let r = c.get(&format!("{BASE}/matchProfiles/{matched}")).await;
    assert_eq!(
        (
            r.body["childProfiles"].as_array().map(Vec::len),
            r.body["parentProfiles"].as_array().map(Vec::len)
        ),
        (Some(0), Some(0))
    );
    let r = c
        .get(&format!(
            "{BASE}/actionProfiles?withRelations=true&query=name==%22Overlay%20-%20update%20instance%22"
        ))
        .await;
    assert_eq!(
        r.body["actionProfiles"][0]["childProfiles"][0]["contentType"], "MAPPING_PROFILE",
        "{}",
        r.text
    );

    // Unlinking the update action (by its nodes, as FOLIO's UI sends it) changes the tree.
    let link = ours.iter().find(|l| l["detailProfileId"] == update.as_str()).unwrap();
    let r = c.get(&format!("{BASE}/jobProfiles/{job}")).await;
    let body = json!({"profile": r.body, "addedRelations": [], "deletedRelations": [link]});
    let r = c.put(&format!("{BASE}/jobProfiles/{job}"), &body).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.body["name"], "Overlay by 001");
    let r = c.get(&format!("{BASE}/profileSnapshots/{job}?profileType=JOB_PROFILE")).await;
    let mut tree = String::new();
    outline(&r.body, 0, &mut tree);
    assert!(!tree.contains("update instance"), "{tree}");

    // A job's tree frozen for an import reads back as frozen.
    let r = c.post(&format!("{BASE}/jobProfileSnapshots/{job}"), &json!({})).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let frozen = r.body.clone();
    let r = c.get(&format!("{BASE}/jobProfileSnapshots/{}", frozen["id"].as_str().unwrap())).await;
    assert_eq!((r.status, &r.body), (StatusCode::OK, &frozen));
}

#[tokio::test]
async fn folios_validation_messages_and_statuses() {
    let app = TestApp::new();
    let c = Client::admin(&app, "diku").await;
    let (job, matched, ..) = overlay_job(&c).await;

    // Names are unique per type, trimmed and ignoring case; a job needs links.
    let r = c
        .post(
            &format!("{BASE}/jobProfiles"),
            &json!({"profile": {"name": "OVERLAY by 001 ", "dataType": "MARC"}}),
        )
        .await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.text);
    assert_eq!(
        messages(&r),
        [
            "Job profile 'OVERLAY by 001 ' already exists",
            "Job profile does not contain any associations",
            "Linked ActionProfile was not found after MatchProfile",
        ]
    );
    let r = c
        .post(
            &format!("{BASE}/matchProfiles"),
            &json!({"profile": {"name": "001 to instance hrid",
        "incomingRecordType": "MARC_BIBLIOGRAPHIC", "existingRecordType": "INSTANCE"}}),
        )
        .await;
    assert_eq!(messages(&r), ["Match profile '001 to instance hrid' already exists"]);
    // The same name is free in another type.
    create(&c, "actionProfiles", json!({"profile": {"name": "001 to instance HRID", "action": "CREATE", "folioRecord": "HOLDINGS"}})).await;

    // Required fields, unknown fields, bad values: 422 naming the field within the body.
    let r = c.post(&format!("{BASE}/jobProfiles"), &json!({"profile": {"name": "No type"}})).await;
    assert_eq!(
        (r.status, r.error().1[0].0.as_str()),
        (StatusCode::UNPROCESSABLE_ENTITY, "profile.dataType"),
        "{}",
        r.text
    );
    let r = c
        .post(
            &format!("{BASE}/actionProfiles"),
            &json!({"profile": {"action": "CREATE", "folioRecord": "ITEM"}}),
        )
        .await;
    assert_eq!(
        r.error(),
        ("must not be null".to_string(), vec![("profile.name".to_string(), "null".to_string())])
    );
    let r = c
        .post(
            &format!("{BASE}/actionProfiles"),
            &json!({"profile": {"name": "x", "action": "CREATE", "folioRecord": "SPACESHIP"}}),
        )
        .await;
    assert_eq!(
        (r.status, r.error().1[0].0.as_str()),
        (StatusCode::UNPROCESSABLE_ENTITY, "profile.folioRecord")
    );
    let r = c
        .post(&format!("{BASE}/jobProfiles"), &json!({"name": "not wrapped", "dataType": "MARC"}))
        .await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.text);
    let r = c.post_raw(&format!("{BASE}/jobProfiles"), b"{\"profile\":".to_vec()).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);

    // A profile another links to as a detail stays (409); the job linking it goes.
    let r = c.delete(&format!("{BASE}/matchProfiles/{matched}")).await;
    assert_eq!(r.status, StatusCode::CONFLICT, "{}", r.text);
    assert_eq!(
        messages(&r),
        [format!(
            "Can not delete profile by id '{matched}' cause profile associated with other profiles"
        )]
    );
    assert_eq!(c.delete(&format!("{BASE}/jobProfiles/{job}")).await.status, StatusCode::NO_CONTENT);
    assert_eq!(
        c.delete(&format!("{BASE}/matchProfiles/{matched}")).await.status,
        StatusCode::NO_CONTENT
    );
    let r = c.get(&format!("{BASE}/jobProfiles/{job}")).await;
    assert_eq!(
        (r.status, messages(&r)),
        (StatusCode::NOT_FOUND, vec![format!("Job Profile with id '{job}' was not found")])
    );

    // FOLIO's locked defaults take a change of tags only, and are never deleted.
    let holdings = "80898dee-449f-44dd-9c8e-37d5eb469b1d";
    let r = c.get(&format!("{BASE}/jobProfiles/{holdings}")).await;
    let mut profile = r.body.clone();
    profile["tags"] = json!({"tagList": ["ours"]});
    let r = c.put(&format!("{BASE}/jobProfiles/{holdings}"), &json!({"profile": profile})).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    profile["name"] = json!("Renamed");
    let r = c.put(&format!("{BASE}/jobProfiles/{holdings}"), &json!({"profile": profile})).await;
    assert_eq!(
        (r.status, messages(&r)),
        (
            StatusCode::BAD_REQUEST,
            vec![format!("Can`t update default JOB_PROFILE with id {holdings}")]
        )
    );
    let r = c.delete(&format!("{BASE}/jobProfiles/{holdings}")).await;
    assert_eq!(
        (r.status, messages(&r)),
        (
            StatusCode::BAD_REQUEST,
            vec![format!("Can`t delete default JOB_PROFILE with id {holdings}")]
        )
    );
    let r = c.delete(&format!("{BASE}/mappingProfiles/13cf7adf-c7a7-4c2e-838f-14d0ac36ec0a")).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.text);

    // An UPDATE action needs a match above it; links to nothing are 404s.
    let update = create(
        &c,
        "actionProfiles",
        json!({"profile": {"name": "Update items", "action": "UPDATE", "folioRecord": "ITEM"}}),
    )
    .await;
    let r = c.post(&format!("{BASE}/jobProfiles"), &json!({"profile": {"name": "Updates alone", "dataType": "MARC"},
        "addedRelations": [{"masterProfileType": "JOB_PROFILE", "detailProfileId": update, "detailProfileType": "ACTION_PROFILE"}]})).await;
    assert_eq!(
        messages(&r),
        [format!(
            "ActionProfile with id '{update}' and action UPDATE requires linked MatchProfile"
        )]
    );
    let ghost = "00000000-0000-4000-8000-00000000dead";
    let r = c.post(&format!("{BASE}/jobProfiles"), &json!({"profile": {"name": "Ghost", "dataType": "MARC"},
        "addedRelations": [{"masterProfileType": "JOB_PROFILE", "detailProfileId": ghost, "detailProfileType": "ACTION_PROFILE"}]})).await;
    assert_eq!(
        (r.status, messages(&r)),
        (
            StatusCode::NOT_FOUND,
            vec![format!("Linked ActionProfiles with ids '{ghost}' were not found")]
        )
    );
    // An action and its mapping are for one record type.
    let r = c.post(&format!("{BASE}/mappingProfiles"), &json!({
        "profile": {"name": "Holdings from 949", "incomingRecordType": "MARC_BIBLIOGRAPHIC", "existingRecordType": "HOLDINGS"},
        "addedRelations": [{"masterProfileId": update, "masterProfileType": "ACTION_PROFILE", "detailProfileType": "MAPPING_PROFILE"}]})).await;
    assert_eq!(
        messages(&r),
        [
            "Action profile 'Update items' can not be linked to this Mapping profile. FolioRecord and ExistingRecordType types are different"
        ]
    );
    let r = c.get(&format!("{BASE}/profileAssociations?master=JOB&detail=ACTION_PROFILE")).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.text);
}

#[tokio::test]
async fn lists_query_page_and_count() {
    let app = TestApp::new();
    let c = Client::admin(&app, "diku").await;
    for n in 1..=3 {
        create(
            &c,
            "actionProfiles",
            json!({"profile": {"name": format!("Local action {n}"),
            "action": "CREATE", "folioRecord": "ITEM", "tags": {"tagList": ["local"]}}}),
        )
        .await;
    }
    let list = |q: &str| {
        format!("{BASE}/actionProfiles?query={}&limit=2", q.replace(' ', "%20").replace('"', "%22"))
    };
    let r = c.get(&list("name=\"local action*\" sortBy name/sort.descending")).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.body["totalRecords"], 3);
    let names: Vec<&str> = r.body["actionProfiles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Local action 3", "Local action 2"]);
    let r = c.get(&format!("{}&offset=2", list("name=\"local action*\" sortBy name"))).await;
    assert_eq!(r.body["actionProfiles"][0]["name"], "Local action 3");
    let r = c.get(&list("tags.tagList=local and folioRecord==ITEM")).await;
    assert_eq!(r.body["totalRecords"], 3, "{}", r.text);
    let r = c.get(&list("name==\"Default - Create instance\"")).await;
    assert_eq!(r.body["actionProfiles"][0]["id"], CREATE_INSTANCE_ACTION, "{}", r.text);
    let r = c.get(&list("colour==red")).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.text);
    let r = c.get(&format!("{BASE}/actionProfiles?showHidden=maybe")).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.text);
    let r = c.get(&format!("{BASE}/entityTypes")).await;
    assert_eq!(r.body["totalRecords"], 9, "{}", r.text);
}

/// A GET, PUT back as FOLIO's UI does it (with `withRelations`, `userInfo` and
/// `metadata`), and GET again, of each profile type.
#[tokio::test]
async fn every_profile_type_survives_get_put_get() {
    let app = TestApp::new();
    let c = Client::admin(&app, "diku").await;
    let (job, matched, update, _) = overlay_job(&c).await;
    let r = c
        .get(&format!("{BASE}/mappingProfiles?query=name==%22Overlay%20-%20update%20instance%22"))
        .await;
    let mapping = r.body["mappingProfiles"][0]["id"].as_str().unwrap().to_string();
    for (path, id) in [
        ("jobProfiles", job.as_str()),
        ("matchProfiles", matched.as_str()),
        ("actionProfiles", update.as_str()),
        ("mappingProfiles", mapping.as_str()),
        ("jobProfiles", CREATE_INSTANCE_JOB),
        ("mappingProfiles", CREATE_INSTANCE_MAPPING),
    ] {
        let url = format!("{BASE}/{path}/{id}");
        let before = c.get(&format!("{url}?withRelations=true")).await;
        assert_eq!(before.status, StatusCode::OK, "{path}: {}", before.text);
        let r = c.put(&url, &json!({"id": id, "profile": before.body, "addedRelations": [], "deletedRelations": []})).await;
        assert_eq!(r.status, StatusCode::OK, "{path}: {}", r.text);
        let after = c.get(&format!("{url}?withRelations=true")).await;
        let comparable = |mut v: Value| {
            v["metadata"]["updatedDate"] = Value::Null;
            v["metadata"]["updatedByUserId"] = Value::Null;
            v["userInfo"] = Value::Null;
            v
        };
        assert_eq!(comparable(after.body), comparable(before.body), "{path}");
    }
}

#[tokio::test]
async fn profile_associations_crud() {
    let app = TestApp::new();
    let c = Client::admin(&app, "diku").await;
    let action = create(
        &c,
        "actionProfiles",
        json!({"profile": {"name": "Create items", "action": "CREATE", "folioRecord": "ITEM"}}),
    )
    .await;
    let mapping = create(&c, "mappingProfiles", json!({"profile": {"name": "Items", "incomingRecordType": "MARC_BIBLIOGRAPHIC", "existingRecordType": "ITEM"}})).await;
    let path = format!("{BASE}/profileAssociations?master=ACTION_PROFILE&detail=MAPPING_PROFILE");
    let r = c
        .post(&path, &json!({"masterProfileId": action, "detailProfileId": mapping, "order": 0}))
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let id = r.body["id"].as_str().unwrap().to_string();
    assert_eq!(
        (r.body["masterProfileType"].as_str(), r.body["detailProfileType"].as_str()),
        (Some("ACTION_PROFILE"), Some("MAPPING_PROFILE"))
    );
    let item = format!("{BASE}/profileAssociations/{id}");
    let r = c.get(&item).await;
    assert_eq!(
        (r.status, r.body["detailProfileId"].as_str()),
        (StatusCode::OK, Some(mapping.as_str()))
    );
    let mut changed = r.body.clone();
    changed["order"] = json!(1);
    let r = c.put(&format!("{item}?master=ACTION_PROFILE&detail=MAPPING_PROFILE"), &changed).await;
    assert_eq!((r.status, &r.body["order"]), (StatusCode::OK, &json!(1)), "{}", r.text);
    let r = c
        .get(&format!("{BASE}/profileAssociations/{action}/details?masterType=ACTION_PROFILE"))
        .await;
    assert_eq!(r.body["childSnapshotWrappers"][0]["id"], mapping.as_str(), "{}", r.text);
    let r = c
        .get(&format!("{BASE}/profileAssociations/{mapping}/masters?detailType=MAPPING_PROFILE"))
        .await;
    assert_eq!(r.body["childSnapshotWrappers"][0]["content"]["name"], "Create items", "{}", r.text);
    // A link to nothing, or of types FOLIO never links, is refused.
    let r = c.post(&path, &json!({"masterProfileId": action, "detailProfileId": "00000000-0000-4000-8000-000000000001"})).await;
    assert_eq!(r.status, StatusCode::NOT_FOUND, "{}", r.text);
    let r = c
        .post(
            &format!("{BASE}/profileAssociations?master=MAPPING_PROFILE&detail=ACTION_PROFILE"),
            &json!({"masterProfileId": mapping, "detailProfileId": action}),
        )
        .await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.text);
    assert_eq!(c.delete(&item).await.status, StatusCode::NO_CONTENT);
    let r = c.get(&item).await;
    assert_eq!(
        (r.status, messages(&r)),
        (StatusCode::NOT_FOUND, vec![format!("Profile association with id '{id}' was not found")])
    );
}
