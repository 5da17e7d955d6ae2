//! OAI-PMH through FOLIO's edge and module APIs: every verb, flow control that neither
//! skips nor repeats, deletions as deleted headers, holdings and items as 952s, and the
//! protocol's errors in FOLIO's words.

use axum::http::{Method, StatusCode};
use serde_json::json;

use crate::data_import::{shared, upload_and_process};
use crate::support::{Client, TestApp};

/// `<name>` elements' texts, in order.
fn texts(xml: &str, name: &str) -> Vec<String> {
    let open = format!("<{name}>");
    let close = format!("</{name}>");
    let mut out = Vec::new();
    let mut rest = xml;
    while let Some(start) = rest.find(&open) {
        let after = &rest[start + open.len()..];
        let end = after.find(&close).expect("a closed element");
        out.push(after[..end].to_string());
        rest = &after[end..];
    }
    out
}

/// The resumption token's text, if the response has the element.
pub(crate) fn token(xml: &str) -> Option<String> {
    load::resumption_token(xml)
}

/// The error code of a response, if it is one.
fn error_code(xml: &str) -> Option<String> {
    let start = xml.find("<error code=\"")? + "<error code=\"".len();
    Some(xml[start..start + xml[start..].find('"')?].to_string())
}

pub(crate) struct Harvester<'a> {
    pub(crate) app: &'a TestApp,
    pub(crate) key: String,
}

impl Harvester<'_> {
    pub(crate) async fn get(&self, query: &str) -> String {
        let r = self
            .app
            .send(Method::GET, &format!("/oai?{query}&apikey={}", self.key), None, None, None)
            .await;
        assert_eq!(r.status, StatusCode::OK, "{query}: {}", r.text);
        assert!(r.text.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>"), "{}", r.text);
        r.text
    }

    /// Every page of a list: the identifiers of its headers (deleted ones marked) and the
    /// pages' bodies.
    async fn list(&self, query: &str) -> (Vec<(String, bool)>, Vec<String>) {
        let mut headers = Vec::new();
        let mut pages = Vec::new();
        let verb = query.split('&').next().unwrap().to_string();
        let mut page = self.get(query).await;
        loop {
            for header in page.split("<header").skip(1) {
                let deleted = header.starts_with(" status=\"deleted\"");
                headers.push((texts(header, "identifier")[0].clone(), deleted));
            }
            let next = token(&page);
            pages.push(page);
            match next {
                Some(t) if !t.is_empty() => {
                    page = self.get(&format!("{verb}&resumptionToken={t}")).await
                }
                _ => break,
            }
        }
        (headers, pages)
    }
}

/// A tenant with the 100 records of `100.mrc` (SRS-sourced) and three FOLIO instances
/// (103 in all),
/// one with a holdings record and an item; an edge key for its administrator.
pub(crate) async fn library(app: &TestApp) -> (Client<'_>, Harvester<'_>, serde_json::Value) {
    let c = Client::admin(app, "diku").await;
    let job = upload_and_process(app, &c, "100.mrc", shared("100.mrc")).await;
    assert_eq!(app.wait_for_job("diku", &job).await["status"], "COMMITTED");
    let holdings = c.create_holdings().await;
    let item = c.item_json(&holdings["id"], "oai-0001").await;
    let r = c.post("/item-storage/items", &item).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    c.create_instance("Plain FOLIO instance").await;
    c.create_instance("Another <FOLIO> & instance").await;
    let tenant = app.store.tenant("diku").unwrap();
    let key = tenant.write(|w| oai::issue(w, "diku", "admin")).unwrap().encode();
    (c, Harvester { app, key }, holdings)
}

#[tokio::test]
async fn a_harvest_pages_through_every_instance_once_in_each_format() {
    let app = TestApp::new();
    let (_c, h, _) = library(&app).await;
    let identify = h.get("verb=Identify").await;
    assert_eq!(texts(&identify, "baseURL"), ["http://localhost/oai"]);
    assert_eq!(texts(&identify, "deletedRecord"), ["persistent"]);
    assert_eq!(texts(&identify, "granularity"), ["YYYY-MM-DDThh:mm:ssZ"]);
    assert!(identify.contains("<request verb=\"Identify\">http://localhost/oai</request>"));
    let formats = h.get("verb=ListMetadataFormats").await;
    assert_eq!(texts(&formats, "metadataPrefix"), ["oai_dc", "marc21", "marc21_withholdings"]);
    assert_eq!(texts(&h.get("verb=ListSets").await, "setSpec"), ["all"]);

    for prefix in ["marc21", "marc21_withholdings", "oai_dc"] {
        let (headers, pages) = h.list(&format!("verb=ListRecords&metadataPrefix={prefix}")).await;
        assert_eq!(headers.len(), 103, "{prefix}: every instance");
        let distinct: std::collections::HashSet<_> = headers.iter().map(|(id, _)| id).collect();
        assert_eq!(distinct.len(), 103, "{prefix}: none twice");
        assert!(
            headers.iter().all(|(id, deleted)| !deleted && id.starts_with("oai:localhost:diku/"))
        );
        assert_eq!(pages.len(), 2, "{prefix}: 100 a page");
        assert!(pages[0].contains("cursor=\"0\"") && pages[0].contains("completeListSize=\"103\""));
        assert!(
            pages[1].contains(
                "<resumptionToken completeListSize=\"103\" cursor=\"100\"></resumptionToken>"
            ),
            "{}",
            pages[1]
        );
        let records: usize = pages.iter().map(|p| p.matches("<metadata>").count()).sum();
        assert_eq!(records, 103);
    }
    let (identifiers, _) = h.list("verb=ListIdentifiers&metadataPrefix=marc21").await;
    assert_eq!(identifiers.len(), 103);
}

#[tokio::test]
async fn records_carry_their_marc_and_items_as_folio_writes_them() {
    let app = TestApp::new();
    let (c, h, holdings) = library(&app).await;
    // An imported record: its SRS MARC, with the suppression mark.
    let r = c.get("/source-storage/source-records?limit=1").await;
    let instance =
        r.body["sourceRecords"][0]["externalIdsHolder"]["instanceId"].as_str().unwrap().to_string();
    let get = |prefix: &str| {
        format!("verb=GetRecord&metadataPrefix={prefix}&identifier=oai:localhost:diku/{instance}")
    };
    let marc = h.get(&get("marc21")).await;
    assert!(marc.contains("<record xmlns=\"http://www.loc.gov/MARC21/slim\">"), "{marc}");
    assert!(marc.contains(&format!("<subfield code=\"i\">{instance}</subfield>")));
    assert!(marc.contains("<subfield code=\"t\">0</subfield>"));
    let dc = h.get(&get("oai_dc")).await;
    assert!(dc.contains("<oai_dc:dc") && dc.contains("<dc:title>"), "{dc}");

    // A FOLIO instance: MARC made from it; its item as a 952.
    let instance = holdings["instanceId"].as_str().unwrap();
    let xml = h
        .get(&format!("verb=GetRecord&metadataPrefix=marc21_withholdings&identifier=oai:localhost:diku/{instance}"))
        .await;
    let field952 = &xml[xml.find("<datafield tag=\"952\" ind1=\"f\" ind2=\"f\">").expect(&xml)..];
    let field952 = &field952[..field952.find("</datafield>").unwrap()];
    let subfield = |code: char| {
        let open = format!("<subfield code=\"{code}\">");
        field952.find(&open).map(|s| {
            let rest = &field952[s + open.len()..];
            rest[..rest.find('<').unwrap()].to_string()
        })
    };
    let location = c
        .get(&format!("/locations/{}", holdings["permanentLocationId"].as_str().unwrap()))
        .await
        .body;
    let institution = c
        .get(&format!(
            "/location-units/institutions/{}",
            location["institutionId"].as_str().unwrap()
        ))
        .await
        .body;
    assert_eq!(subfield('m').as_deref(), Some("oai-0001"));
    assert_eq!(subfield('i').as_deref(), Some("book"));
    assert_eq!(subfield('p').as_deref(), Some("Can circulate"));
    assert_eq!(subfield('s'), location["name"].as_str().map(str::to_string));
    assert_eq!(subfield('a'), institution["name"].as_str().map(str::to_string));
    assert_eq!(subfield('e').as_deref(), Some("QA76 .B3"));
    assert_eq!(subfield('t').as_deref(), Some("0"));
    assert!(xml.contains("<subfield code=\"a\">Holdings test</subfield>"), "title in a 245: {xml}");
    // Text from the instance is escaped.
    let (_, pages) = h.list("verb=ListRecords&metadataPrefix=marc21").await;
    assert!(pages.concat().contains("Another &lt;FOLIO&gt; &amp; instance"));
}

#[tokio::test]
async fn deletions_are_headers_for_ever_and_changes_wait_for_the_next_harvest() {
    let app = TestApp::new();
    let (c, h, _) = library(&app).await;
    let first = h.get("verb=ListIdentifiers&metadataPrefix=marc21").await;
    let seen: Vec<String> = texts(&first, "identifier");
    assert_eq!(seen.len(), 100);
    let until = texts(&first, "responseDate")[0].clone();
    // While the harvest is half done, two instances the first page sent are changed:
    // one deleted, one retitled.
    let gone = seen[3].rsplit('/').next().unwrap().to_string();
    let r = c.delete(&format!("/instance-storage/instances/{gone}")).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
    let changed = seen[5].rsplit('/').next().unwrap().to_string();
    let path = format!("/instance-storage/instances/{changed}");
    let mut instance = c.get(&path).await.body;
    instance["title"] = json!("Retitled while harvested");
    let r = c.put(&path, &instance).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
    let (rest, _) = {
        let mut headers = Vec::new();
        let mut page = h
            .get(&format!("verb=ListIdentifiers&resumptionToken={}", token(&first).unwrap()))
            .await;
        loop {
            headers.extend(texts(&page, "identifier"));
            match token(&page) {
                Some(t) if !t.is_empty() => {
                    page = h.get(&format!("verb=ListIdentifiers&resumptionToken={t}")).await
                }
                _ => break,
            }
        }
        (headers, ())
    };
    // Every record left unchanged is sent once; the two changed may come again (a
    // change is stamped no earlier than the harvest's end, which a page to come may
    // still reach: the deleted one then as a deleted header).
    let changed_id = format!("oai:localhost:diku/{changed}");
    let gone_id = format!("oai:localhost:diku/{gone}");
    let mut sent: std::collections::HashMap<&String, usize> = std::collections::HashMap::new();
    for id in seen.iter().chain(&rest) {
        *sent.entry(id).or_default() += 1;
    }
    assert_eq!(sent.len(), 103);
    assert!(
        sent.iter().all(|(id, n)| *n == 1 || **id == changed_id || **id == gone_id),
        "{sent:?}"
    );

    // The next harvest, from the first one's end, has the deletion as a deleted header.
    let (next, _) =
        h.list(&format!("verb=ListIdentifiers&metadataPrefix=marc21&from={until}")).await;
    let deleted: Vec<_> = next.iter().filter(|(_, d)| *d).map(|(id, _)| id.clone()).collect();
    assert_eq!(deleted, std::slice::from_ref(&gone_id));
    assert!(next.contains(&(changed_id, false)), "{next:?}");
    let record = h
        .get(&format!("verb=GetRecord&metadataPrefix=marc21&identifier=oai:localhost:diku/{gone}"))
        .await;
    assert!(
        record.contains("<header status=\"deleted\">") && !record.contains("<metadata>"),
        "{record}"
    );
    // And for ever after: a full harvest lists it deleted.
    let (full, _) = h.list("verb=ListIdentifiers&metadataPrefix=oai_dc").await;
    assert_eq!(full.iter().filter(|(_, d)| *d).count(), 1);
    assert_eq!(full.len(), 103);
}

#[tokio::test]
async fn the_protocols_errors_in_folios_words() {
    let app = TestApp::new();
    let (_c, h, _) = library(&app).await;
    let cases = [
        ("verb=junk", "badVerb"),
        ("junk=1", "badVerb"),
        ("verb=Identify&set=all", "badArgument"),
        ("verb=ListRecords", "badArgument"),
        ("verb=GetRecord&metadataPrefix=marc21", "badArgument"),
        (
            "verb=GetRecord&identifier=oai:localhost:diku/00000000-0000-4000-8000-000000000000",
            "badArgument",
        ),
        ("verb=ListRecords&metadataPrefix=marc21&until=junk", "badArgument"),
        ("verb=ListRecords&metadataPrefix=marc21&from=junk", "badArgument"),
        ("verb=ListRecords&resumptionToken=junk&until=2000-01-01", "badArgument"),
        ("verb=ListRecords&resumptionToken=junk", "badResumptionToken"),
        ("verb=ListSets&resumptionToken=junk", "badResumptionToken"),
        (
            "verb=ListRecords&metadataPrefix=marc21&from=2002-02-05&until=2002-02-06T05:35:00Z",
            "badArgument",
        ),
        ("verb=ListRecords&metadataPrefix=marc21&from=2002-02-07&until=2002-02-06", "badArgument"),
        ("verb=ListRecords&metadataPrefix=mods", "cannotDisseminateFormat"),
        (
            "verb=GetRecord&metadataPrefix=mods&identifier=oai:localhost:diku/00000000-0000-4000-8000-000000000000",
            "cannotDisseminateFormat",
        ),
        (
            "verb=GetRecord&metadataPrefix=marc21&identifier=oai:localhost:diku/00000000-0000-4000-8000-000000000000",
            "idDoesNotExist",
        ),
        (
            "verb=ListMetadataFormats&identifier=oai:localhost:diku/00000000-0000-4000-8000-000000000000",
            "idDoesNotExist",
        ),
        ("verb=ListRecords&metadataPrefix=marc21&until=1969-12-31", "noRecordsMatch"),
        ("verb=ListRecords&metadataPrefix=marc21&set=nosuchset", "noRecordsMatch"),
    ];
    for (query, code) in cases {
        let xml = h.get(query).await;
        assert_eq!(error_code(&xml).as_deref(), Some(code), "{query}: {xml}");
    }
    // A hostile argument: a bad argument is not echoed; a good request's arguments are,
    // escaped.
    let xml = h.get("verb=GetRecord&metadataPrefix=marc21&identifier=invalid%22id").await;
    assert!(xml.contains("<request>http://localhost/oai</request>"), "{xml}");
    assert_eq!(texts(&xml, "error").len(), 0, "the message is an attribute-bearing element");
    assert!(xml.contains("Identifier has invalid structure."));
    let xml = h.get("verb=ListRecords&metadataPrefix=marc21&from=2099-01-01&set=a%3Cb").await;
    assert_eq!(error_code(&xml).as_deref(), Some("badArgument"));
    let message = "Verb 'ListRecords', argument 'resumptionToken' is exclusive";
    assert!(
        h.get("verb=ListRecords&resumptionToken=x&metadataPrefix=marc21").await.contains(message)
    );
}

#[tokio::test]
async fn keys_tokens_and_accept_headers_as_the_edge_checks_them() {
    let app = TestApp::new();
    let (c, h, _) = library(&app).await;
    let send = |path: String, headers: Vec<(&'static str, String)>| {
        let app = &app;
        async move {
            let mut request = axum::http::Request::builder().uri(path);
            for (k, v) in headers {
                request = request.header(k, v);
            }
            let request = request.body(axum::body::Body::empty()).unwrap();
            use tower::ServiceExt;
            let response = app.router.clone().oneshot(request).await.unwrap();
            response.status()
        }
    };
    assert_eq!(send("/oai?verb=Identify".into(), vec![]).await, StatusCode::UNAUTHORIZED);
    assert_eq!(
        send("/oai?verb=Identify&apikey=junk".into(), vec![]).await,
        StatusCode::UNAUTHORIZED
    );
    let forged =
        oai::ApiKey { salt: "guessed".into(), tenant: "diku".into(), user: "admin".into() };
    assert_eq!(
        send(format!("/oai?verb=Identify&apikey={}", forged.encode()), vec![]).await,
        StatusCode::UNAUTHORIZED
    );
    // The key in the path, or in the Authorization header.
    assert_eq!(send(format!("/oai/{}?verb=Identify", h.key), vec![]).await, StatusCode::OK);
    assert_eq!(
        send("/oai?verb=Identify".into(), vec![("authorization", format!("apikey {}", h.key))])
            .await,
        StatusCode::OK
    );
    assert_eq!(
        send("/oai/records?verb=Identify".into(), vec![("authorization", h.key.clone())]).await,
        StatusCode::OK
    );
    let json = vec![("accept", "application/json".to_string())];
    assert_eq!(
        send(format!("/oai?verb=Identify&apikey={}", h.key), json).await,
        StatusCode::NOT_ACCEPTABLE
    );
    // The module API: a token.
    let r = app
        .send(Method::GET, "/oai/records?verb=ListSets", Some("diku"), Some(&c.token), None)
        .await;
    assert_eq!(r.status, StatusCode::OK);
    assert!(r.text.contains("<setSpec>all</setSpec>"));
    // POST with a form, as the protocol allows.
    let request = axum::http::Request::builder()
        .method(Method::POST)
        .uri(format!("/oai?apikey={}", h.key))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(axum::body::Body::from("verb=ListIdentifiers&metadataPrefix=marc21"))
        .unwrap();
    use tower::ServiceExt;
    let response = app.router.clone().oneshot(request).await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    // A token from one tenant means nothing to another.
    let page = h.get("verb=ListIdentifiers&metadataPrefix=marc21").await;
    let other = app.store.tenant("other").unwrap();
    let key = other.write(|w| oai::issue(w, "other", "admin")).unwrap().encode();
    let elsewhere = Harvester { app: &app, key };
    let xml = elsewhere
        .get(&format!("verb=ListIdentifiers&resumptionToken={}", token(&page).unwrap()))
        .await;
    assert_eq!(error_code(&xml).as_deref(), Some("badResumptionToken"));
}

#[tokio::test]
async fn folios_settings_shape_the_repository() {
    let app = TestApp::new();
    let (c, h, _) = library(&app).await;
    let r = c.get("/oai-pmh/configuration-settings").await;
    assert_eq!(r.body["totalRecords"], 3, "{}", r.text);
    let setting = |name: &str| {
        r.body["configurationSettings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["configName"] == name)
            .unwrap()
            .clone()
    };
    // A page of 10; a suppressed instance left out; errors with FOLIO's statuses.
    let mut technical = setting("technical");
    technical["configValue"]["maxRecordsPerResponse"] = json!("10");
    let path = format!("/oai-pmh/configuration-settings/{}", technical["id"].as_str().unwrap());
    assert_eq!(c.put(&path, &technical).await.status, StatusCode::NO_CONTENT);
    assert_eq!(c.get(&path).await.body["configValue"]["maxRecordsPerResponse"], "10");
    technical["configValue"]["maxRecordsPerResponse"] = json!("501");
    let refused = c.put(&path, &technical).await;
    assert_eq!(refused.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", refused.text);
    let mut behavior = setting("behavior");
    behavior["configValue"]["suppressedRecordsProcessing"] = json!("false");
    behavior["configValue"]["errorsProcessing"] = json!("500");
    let behavior_path =
        format!("/oai-pmh/configuration-settings/{}", behavior["id"].as_str().unwrap());
    assert_eq!(c.put(&behavior_path, &behavior).await.status, StatusCode::NO_CONTENT);
    let mut hidden = c.instance_json("Suppressed from discovery").await;
    hidden["discoverySuppress"] = json!(true);
    assert_eq!(c.post("/instance-storage/instances", &hidden).await.status, StatusCode::CREATED);

    let (headers, pages) = h.list("verb=ListIdentifiers&metadataPrefix=marc21").await;
    assert_eq!(headers.len(), 103, "the suppressed instance is left out");
    assert_eq!(pages.len(), 11);
    let r =
        app.send(Method::GET, &format!("/oai?verb=junk&apikey={}", h.key), None, None, None).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert_eq!(error_code(&r.text).as_deref(), Some("badVerb"));

    // Back to the defaults: a suppressed record is harvested, marked.
    assert_eq!(c.delete(&behavior_path).await.status, StatusCode::NO_CONTENT);
    let (headers, _) = h.list("verb=ListIdentifiers&metadataPrefix=marc21").await;
    assert_eq!(headers.len(), 104);

    // Switched off: 503.
    let mut general = setting("general");
    general["configValue"]["enableOaiService"] = json!("false");
    let general_path =
        format!("/oai-pmh/configuration-settings/{}", general["id"].as_str().unwrap());
    assert_eq!(c.put(&general_path, &general).await.status, StatusCode::NO_CONTENT);
    let r = app
        .send(Method::GET, &format!("/oai?verb=Identify&apikey={}", h.key), None, None, None)
        .await;
    assert_eq!(r.status, StatusCode::SERVICE_UNAVAILABLE);
}

#[tokio::test]
async fn a_set_is_what_its_query_finds() {
    let app = TestApp::new();
    let (c, h, _) = library(&app).await;
    c.catch_up().await;
    let set = json!({"name": "FOLIO's own", "setSpec": "folio", "query": "title all \"FOLIO\""});
    let r = c.post("/oai-pmh/sets", &set).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let id = r.body["id"].as_str().unwrap().to_string();
    for (bad, field) in [
        (json!({"name": "All", "setSpec": "all", "query": "title all x"}), "setSpec"),
        (json!({"name": "Again", "setSpec": "folio", "query": "title all x"}), "setSpec"),
        (json!({"name": "Broken", "setSpec": "broken", "query": "title all ("}), "query"),
    ] {
        let r = c.post("/oai-pmh/sets", &bad).await;
        assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{bad}: {}", r.text);
        assert_eq!(r.error().1[0].0, field, "{}", r.text);
    }
    let sets = h.get("verb=ListSets").await;
    assert_eq!(texts(&sets, "setSpec"), ["all", "folio"]);
    assert_eq!(texts(&sets, "setName"), ["All records", "FOLIO's own"]);
    let (headers, pages) = h.list("verb=ListRecords&metadataPrefix=oai_dc&set=folio").await;
    assert_eq!(headers.len(), 2, "{pages:?}");
    assert!(pages[0].contains("<setSpec>folio</setSpec>"));
    assert!(
        pages[0].contains("Plain FOLIO instance") && pages[0].contains("Another &lt;FOLIO&gt;")
    );
    // A changed query changes the set.
    let narrower =
        json!({"name": "FOLIO's own", "setSpec": "folio", "query": "title all \"Plain FOLIO\""});
    assert_eq!(
        c.put(&format!("/oai-pmh/sets/{id}"), &narrower).await.status,
        StatusCode::NO_CONTENT
    );
    let (headers, _) = h.list("verb=ListIdentifiers&metadataPrefix=marc21&set=folio").await;
    assert_eq!(headers.len(), 1);
    assert_eq!(c.delete(&format!("/oai-pmh/sets/{id}")).await.status, StatusCode::NO_CONTENT);
    let xml = h.get("verb=ListIdentifiers&metadataPrefix=marc21&set=folio").await;
    assert_eq!(error_code(&xml).as_deref(), Some("noRecordsMatch"));
}
