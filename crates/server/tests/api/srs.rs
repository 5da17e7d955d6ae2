use axum::http::StatusCode;
use serde_json::{Value, json};
use uuid::Uuid;

use crate::support::{Client, TestApp};

/// Real bibliographic records from FOLIO's data-import test files.
pub(crate) fn load_bibs(n: usize) -> Vec<marc::Record> {
    let file = std::fs::File::open(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/data/marc/100.mrc"
    ))
    .expect("shared MARC data");
    marc::Reader::new(std::io::BufReader::new(file)).filter_map(Result::ok).take(n).collect()
}

pub(crate) fn record_json(idx: usize, snapshot: &str, marc: &marc::Record) -> Value {
    let id = Uuid::from_u128(0x1000 + idx as u128).to_string();
    let instance = Uuid::from_u128(0x9000 + idx as u128).to_string();
    let iso = String::from_utf8(marc::encode(marc).unwrap()).unwrap();
    json!({
        "id": id, "snapshotId": snapshot, "matchedId": id, "recordType": "MARC_BIB",
        "rawRecord": {"content": iso},
        "parsedRecord": {"content": marc::json::to_value(marc)},
        "externalIdsHolder": {"instanceId": instance, "instanceHrid": format!("in{idx:05}")},
        "additionalInfo": {"suppressDiscovery": idx.is_multiple_of(7)}
    })
}

pub(crate) async fn new_snapshot(c: &Client<'_>) -> String {
    let id = Uuid::new_v4().to_string();
    let r =
        c.post("/source-storage/snapshots", &json!({"jobExecutionId": id, "status": "NEW"})).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    id
}

/// What the test knows about each stored record, read back through the API.
struct Model {
    instance: String,
    marc: marc::Record,
    deleted_state: bool,
    suppressed: bool,
}

async fn model(c: &Client<'_>, n: usize) -> Vec<Model> {
    let mut out = Vec::new();
    for idx in 0..n {
        let r = c
            .get(&format!("/source-storage/records/{}", Uuid::from_u128(0x1000 + idx as u128)))
            .await;
        assert_eq!(r.status, StatusCode::OK, "{}", r.text);
        out.push(Model {
            instance: r.body["externalIdsHolder"]["instanceId"].as_str().unwrap().to_string(),
            marc: marc::json::from_value(&r.body["parsedRecord"]["content"]).unwrap(),
            deleted_state: r.body["state"] == "DELETED",
            suppressed: r.body["additionalInfo"]["suppressDiscovery"] == true,
        });
    }
    out
}

fn subfields<'m>(m: &'m marc::Record, tag: &'m str, code: char) -> Vec<&'m str> {
    m.fields_with_tag(tag).flat_map(move |f| f.subfield_values(code)).collect()
}

fn values<'m>(m: &'m marc::Record, tag: &'m str) -> Vec<&'m str> {
    m.fields_with_tag(tag)
        .flat_map(|f| match f.value() {
            Some(v) => vec![v],
            None => f.subfields().map(|s| s.value).collect(),
        })
        .collect()
}

fn ind(m: &marc::Record, tag: &str, which: u8) -> Vec<char> {
    m.fields_with_tag(tag)
        .map(|f| if which == 1 { f.ind1() } else { f.ind2() })
        .map(|c| if c == ' ' { '#' } else { c })
        .collect()
}

fn date(v: &str) -> Option<u32> {
    let n: u32 = v.get(..8)?.parse().ok()?;
    chrono::NaiveDate::from_ymd_opt((n / 10000) as i32, n / 100 % 100, n % 100).map(|_| n)
}

async fn search(c: &Client<'_>, body: Value) -> (Vec<String>, u64) {
    let r = c.post("/source-storage/stream/marc-record-identifiers", &body).await;
    assert_eq!(r.status, StatusCode::OK, "{body}: {}", r.text);
    assert_eq!(r.headers["content-type"], "application/stream+json");
    let ids = r.body["records"].as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_string());
    (ids.collect(), r.body["totalCount"].as_u64().unwrap())
}

type Pred = Box<dyn Fn(&marc::Record) -> bool>;
type Keep = Box<dyn Fn(&Model) -> bool>;

#[tokio::test]
async fn marc_search_matches_a_scan_of_the_records() {
    let app = TestApp::new();
    let c = Client::admin(&app, "diku").await;
    let bibs = load_bibs(100);
    assert!(bibs.len() >= 90, "{} records", bibs.len());
    let n = bibs.len();
    let snapshot = new_snapshot(&c).await;
    let records: Vec<Value> =
        bibs.iter().enumerate().map(|(idx, m)| record_json(idx, &snapshot, m)).collect();
    let r = c
        .post("/source-storage/batch/records", &json!({"records": records, "totalRecords": n}))
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    assert_eq!(r.body["totalRecords"], n);
    assert_eq!(r.body["errorMessages"], json!([]));

    // Search once before the deletes so the index exists and must follow them.
    let (_, before) = search(&c, json!({"leaderSearchExpression": "p_05 = 'd'"})).await;
    assert_eq!(before, 0);
    for idx in (0..n).step_by(11) {
        let instance = Uuid::from_u128(0x9000 + idx as u128);
        let r = c.delete(&format!("/source-storage/records/{instance}?idType=INSTANCE")).await;
        assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
    }
    let model = model(&c, n).await;
    let any_035 = subfields(&model[1].marc, "035", 'a')[0].to_string();
    let a_001 = values(&model[2].marc, "001")[0].to_string();

    let cases: Vec<(Value, Pred)> = vec![
        (json!({"leaderSearchExpression": "p_05 = 'd'"}), Box::new(|m| m.leader().get(5) == 'd')),
        (
            json!({"leaderSearchExpression": "p_06 = 'a' and p_07 not= 'm'"}),
            Box::new(|m| m.leader().get(6) == 'a' && m.leader().get(7) != 'm'),
        ),
        (
            json!({"leaderSearchExpression": "p_17 = '#' or p_18 = 'i'"}),
            Box::new(|m| m.leader().get(17) == ' ' || m.leader().get(18) == 'i'),
        ),
        (
            json!({"fieldsSearchExpression": "035.a ^= '(OCoLC)'"}),
            Box::new(|m| subfields(m, "035", 'a').iter().any(|v| v.starts_with("(OCoLC)"))),
        ),
        (
            json!({"fieldsSearchExpression": format!("035.a = '{any_035}'")}),
            Box::new(move |m| subfields(m, "035", 'a').contains(&any_035.as_str())),
        ),
        (
            json!({"fieldsSearchExpression": "035.a not= '(OCoLC)792885998'"}),
            Box::new(|m| subfields(m, "035", 'a').iter().any(|v| *v != "(OCoLC)792885998")),
        ),
        (
            json!({"fieldsSearchExpression": "020.a is 'present'"}),
            Box::new(|m| !subfields(m, "020", 'a').is_empty()),
        ),
        (
            json!({"fieldsSearchExpression": "020.a is 'absent'"}),
            Box::new(|m| subfields(m, "020", 'a').is_empty()),
        ),
        (
            json!({"fieldsSearchExpression": "650.ind2 = '0'"}),
            Box::new(|m| ind(m, "650", 2).contains(&'0')),
        ),
        (
            json!({"fieldsSearchExpression": "650.ind2 not= '0'"}),
            Box::new(|m| ind(m, "650", 2).iter().any(|c| *c != '0')),
        ),
        (
            json!({"fieldsSearchExpression": "035.ind1 = '#'"}),
            Box::new(|m| ind(m, "035", 1).contains(&'#')),
        ),
        (
            json!({"fieldsSearchExpression": "050.ind1 is 'present'"}),
            Box::new(|m| ind(m, "050", 1).iter().any(|c| *c != '#')),
        ),
        (
            json!({"fieldsSearchExpression": "050.ind2 is 'absent'"}),
            Box::new(|m| ind(m, "050", 2).contains(&'#')),
        ),
        (
            json!({"fieldsSearchExpression": format!("001.value = '{a_001}'")}),
            Box::new(move |m| values(m, "001").contains(&a_001.as_str())),
        ),
        (
            json!({"fieldsSearchExpression": "245.value ^= 'The'"}),
            Box::new(|m| values(m, "245").iter().any(|v| v.starts_with("The"))),
        ),
        (
            json!({"fieldsSearchExpression": "504.value is 'absent'"}),
            Box::new(|m| values(m, "504").is_empty()),
        ),
        (
            json!({"fieldsSearchExpression": "008.07_04 = '2012'"}),
            Box::new(|m| {
                values(m, "008")
                    .iter()
                    .any(|v| v.chars().skip(7).take(4).collect::<String>() == "2012")
            }),
        ),
        (
            json!({"fieldsSearchExpression": "008.35_03 not= 'eng'"}),
            Box::new(|m| {
                values(m, "008")
                    .iter()
                    .any(|v| v.chars().skip(35).take(3).collect::<String>() != "eng")
            }),
        ),
        (
            json!({"fieldsSearchExpression": "005.date in '20140101-20151231'"}),
            Box::new(|m| {
                values(m, "005")
                    .iter()
                    .filter_map(|v| date(v))
                    .any(|d| (20140101..=20151231).contains(&d))
            }),
        ),
        (
            json!({"fieldsSearchExpression": "005.date from '20150601'"}),
            Box::new(|m| values(m, "005").iter().filter_map(|v| date(v)).any(|d| d >= 20150601)),
        ),
        (
            json!({"fieldsSearchExpression": "005.date to '20150601'"}),
            Box::new(|m| values(m, "005").iter().filter_map(|v| date(v)).any(|d| d <= 20150601)),
        ),
        (
            json!({"fieldsSearchExpression": "005.date not= '20151204'"}),
            Box::new(|m| values(m, "005").iter().filter_map(|v| date(v)).any(|d| d != 20151204)),
        ),
        (
            json!({"leaderSearchExpression": "p_06 = 'a'",
                   "fieldsSearchExpression": "(020.a is 'present' and 650.ind2 = '0') or 504.a ^= 'Includes'"}),
            Box::new(|m| {
                m.leader().get(6) == 'a'
                    && ((!subfields(m, "020", 'a').is_empty() && ind(m, "650", 2).contains(&'0'))
                        || subfields(m, "504", 'a').iter().any(|v| v.starts_with("Includes")))
            }),
        ),
    ];
    // Deleted and suppressed: absent `deleted` is false (ACTUAL only); null and true
    // take DELETED too; suppressFromDiscovery filters only when given.
    let filters: Vec<(Value, Keep)> = vec![
        (json!({}), Box::new(|r| !r.deleted_state)),
        (json!({"deleted": null}), Box::new(|_| true)),
        (json!({"deleted": true}), Box::new(|_| true)),
        (
            json!({"deleted": false, "suppressFromDiscovery": true}),
            Box::new(|r| !r.deleted_state && r.suppressed),
        ),
        (json!({"deleted": true, "suppressFromDiscovery": false}), Box::new(|r| !r.suppressed)),
    ];
    let mut non_trivial = 0;
    for (body, pred) in &cases {
        for (filter, keep) in &filters {
            let mut request = body.clone();
            for (k, v) in filter.as_object().unwrap() {
                request[k] = v.clone();
            }
            let expected: Vec<String> = model
                .iter()
                .filter(|r| keep(r) && pred(&r.marc))
                .map(|r| r.instance.clone())
                .collect();
            let (ids, total) = search(&c, request.clone()).await;
            assert_eq!(ids, expected, "{request}");
            assert_eq!(total, expected.len() as u64, "{request}");
            if !expected.is_empty() && expected.len() < n {
                non_trivial += 1;
            }
        }
    }
    assert!(non_trivial > cases.len(), "the cases should select something: {non_trivial}");

    // Paging: stable ordinal order, totalCount independent of the page.
    let broad = json!({"fieldsSearchExpression": "245.a is 'present'", "deleted": true});
    let (all, total) = search(&c, broad.clone()).await;
    assert_eq!(total as usize, all.len());
    for (offset, limit) in [(0, 10), (10, 10), (95, 10), (0, 0)] {
        let mut request = broad.clone();
        request["offset"] = json!(offset);
        request["limit"] = json!(limit);
        let (page, page_total) = search(&c, request).await;
        let end = (offset + limit).min(all.len());
        assert_eq!(page, all[offset.min(all.len())..end], "offset {offset} limit {limit}");
        assert_eq!(page_total, total);
    }

    // The PTF shapes: deleted records found by leader/05 and by the 005 DELETE stamped.
    let (deleted, _) = search(&c, json!({"leaderSearchExpression": "p_05 = 'd'", "deleted": true, "suppressFromDiscovery": true})).await;
    assert_eq!(deleted.len(), n.div_ceil(11));
    let today = chrono::Utc::now().format("%Y%m%d").to_string();
    let (stamped, _) = search(
        &c,
        json!({"leaderSearchExpression": "p_05 = 'd'", "deleted": true,
        "fieldsSearchExpression": format!("005.date = '{today}'")}),
    )
    .await;
    assert_eq!(stamped, deleted);
}

#[tokio::test]
async fn marc_search_errors_are_folios() {
    let app = TestApp::new();
    let c = Client::admin(&app, "diku").await;
    let cases = [
        (json!({}), "The 'leaderSearchExpression' and the 'fieldsSearchExpression' are missing"),
        (
            json!({"leaderSearchExpression": " "}),
            "The input expression should not be black or empty [expression: leaderSearchExpression]",
        ),
        (
            json!({"fieldsSearchExpression": "(035.a = '0' or (035.a = '1')"}),
            "The number of opened brackets should be equal to number of closed brackets [expression: marcFieldSearchExpression]",
        ),
        (
            json!({"fieldsSearchExpression": "035.a = 'x"}),
            "Each value in the expression should be surrounded by single quotes [expression: marcFieldSearchExpression]",
        ),
        (
            json!({"fieldsSearchExpression": "035.a = ''"}),
            "Empty values are not allowed [expression: marcFieldSearchExpression]",
        ),
        (
            json!({"fieldsSearchExpression": "035.a none '1'"}),
            "The given binary operator is not supported [key: 035.a, operator: none, value: 1]. Supported operators: [=, ^=, not=, from, to, in, is]",
        ),
        (
            json!({"fieldsSearchExpression": "xxx.a = '1'"}),
            "The given expression [xxx.a = '1'] is not parsable",
        ),
        (
            json!({"fieldsSearchExpression": "035.ab = '1'"}),
            "The given key is not supported [key: 035.ab, operator: =, value: 1]",
        ),
        (
            json!({"fieldsSearchExpression": "050.ind2 is 'empty'"}),
            "Value [empty] is not supported for the given Presence operand",
        ),
        (
            json!({"fieldsSearchExpression": "001.08_01 = 'abc'"}),
            "The length of the value [abc] should be equal to the end position [expected length = 1]",
        ),
        (
            json!({"fieldsSearchExpression": "001.08_01 ^= 'a'"}),
            "Operator [^=] is not supported for the given Position operand",
        ),
        (
            json!({"fieldsSearchExpression": "005.date in '201701025'"}),
            "The given expression [005.date in '201701025'] is not supported",
        ),
        (
            json!({"fieldsSearchExpression": "005.date ^= '20170102'"}),
            "The given expression [005.date ^= '20170102'] is not supported",
        ),
        (
            json!({"fieldsSearchExpression": "005.date in 'wrong date'"}),
            "The given date [wrong date] is in a wrong format. Expected date pattern: [yyyymmdd]",
        ),
        (
            json!({"fieldsSearchExpression": "035.a from '1'"}),
            "Operator [from] is not supported for the given SubField operand",
        ),
        (
            json!({"fieldsSearchExpression": "035.ind1 to '1'"}),
            "Operator [to] is not supported for the given Indicator operand",
        ),
        (
            json!({"fieldsSearchExpression": "005.value in '1'"}),
            "Operator [in] is not supported for the given Value operand",
        ),
        (
            json!({"leaderSearchExpression": "p_05 ^= 'a'"}),
            "Operator [^=] is not supported for the given Leader operand. Supported operators: [=]",
        ),
        (
            json!({"leaderSearchExpression": "p_23 = 'a'"}),
            "The given key is not supported [key: p_23, operator: =, value: a]",
        ),
        (
            json!({"leaderSearchExpression": "p_05 = 'a' p_06 = 'b'"}),
            "The given expression [p_06 = 'b'] is not parsable",
        ),
        (
            json!({"leaderSearchExpression": "p_05 = 'a' AND p_06 = 'b'"}),
            "The given expression [AND p_06 = 'b'] is not parsable",
        ),
    ];
    for (body, message) in cases {
        let r = c.post("/source-storage/stream/marc-record-identifiers", &body).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{body}: {}", r.text);
        assert_eq!(r.error().0, message, "{body}");
    }
    let r = c.post("/source-storage/stream/marc-record-identifiers", &json!({"x": 1})).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.text);
}

#[tokio::test]
async fn records_crud_delete_undelete_and_source_records() {
    let app = TestApp::new();
    let c = Client::admin(&app, "diku").await;
    let bibs = load_bibs(3);
    let snapshot = new_snapshot(&c).await;
    let r = c.get(&format!("/source-storage/snapshots/{snapshot}")).await;
    assert_eq!(r.body["status"], "NEW");
    let r = c
        .put(
            &format!("/source-storage/snapshots/{snapshot}"),
            &json!({"jobExecutionId": snapshot, "status": "COMMITTED"}),
        )
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(c.get("/source-storage/snapshots?status=COMMITTED").await.body["totalRecords"], 1);

    let body = record_json(0, &snapshot, &bibs[0]);
    let r = c.post("/source-storage/records", &body).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let id = body["id"].as_str().unwrap().to_string();
    let instance = body["externalIdsHolder"]["instanceId"].as_str().unwrap().to_string();
    // Stored once as ISO 2709, returned as sent.
    let r = c.get(&format!("/source-storage/records/{id}")).await;
    assert_eq!(r.body["rawRecord"]["content"], body["rawRecord"]["content"]);
    assert_eq!(r.body["parsedRecord"]["content"], body["parsedRecord"]["content"]);
    assert_eq!(r.body["state"], "ACTUAL");
    assert_eq!(r.body["deleted"], false);
    assert_eq!(r.body["leaderRecordStatus"], "c");
    assert_eq!(
        c.post("/source-storage/records", &body).await.status,
        StatusCode::UNPROCESSABLE_ENTITY
    );
    let mut other = record_json(1, &snapshot, &bibs[1]);
    other["snapshotId"] = json!(Uuid::new_v4());
    assert_eq!(
        c.post("/source-storage/records", &other).await.status,
        StatusCode::UNPROCESSABLE_ENTITY
    );

    // PUT replaces in place; a parsed record with a different leader keeps that leader.
    let mut changed = body.clone();
    changed["parsedRecord"]["content"]["leader"] = json!("00000nam a2200000 a 4500");
    let r = c.put(&format!("/source-storage/records/{id}"), &changed).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let r = c.get(&format!("/source-storage/records/{id}")).await;
    assert_eq!(r.body["parsedRecord"]["content"]["leader"], "00000nam a2200000 a 4500");
    assert_eq!(r.body["rawRecord"]["content"], body["rawRecord"]["content"]);
    assert_eq!(r.body["leaderRecordStatus"], "n");

    let r = c.get(&format!("/source-storage/records/{id}/formatted")).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let formatted = r.body["parsedRecord"]["formattedContent"].as_str().unwrap();
    assert!(formatted.starts_with("LEADER 00000nam a2200000 a 4500\n001 "), "{formatted}");
    let formatted_instance =
        c.get(&format!("/source-storage/records/{instance}/formatted?idType=INSTANCE")).await;
    assert_eq!(formatted_instance.body["id"], id.as_str());

    // Lists and filters.
    let r = c.post("/source-storage/records", &record_json(1, &snapshot, &bibs[1])).await;
    assert_eq!(r.status, StatusCode::CREATED);
    let r = c
        .get(&format!(
            "/source-storage/records?snapshotId={snapshot}&recordType=MARC_BIB&state=ACTUAL&limit=1"
        ))
        .await;
    assert_eq!(r.body["totalRecords"], 2);
    assert_eq!(r.body["records"].as_array().unwrap().len(), 1);
    let r = c.get(&format!("/source-storage/source-records?instanceId={instance}")).await;
    assert_eq!(r.body["totalRecords"], 1, "{}", r.text);
    assert_eq!(r.body["sourceRecords"][0]["recordId"], id.as_str());
    assert!(r.body["sourceRecords"][0].get("rawRecord").is_none());
    let r = c.get("/source-storage/source-records?externalHrid=in00001&leaderRecordStatus=c").await;
    assert_eq!(r.body["totalRecords"], 1, "{}", r.text);
    let r = c.get("/source-storage/source-records?updatedAfter=2000-01-01&updatedBefore=2999-01-01T00:00:00Z").await;
    assert_eq!(r.body["totalRecords"], 2, "{}", r.text);
    assert_eq!(
        c.get("/source-storage/source-records?updatedAfter=2999-01-01").await.body["totalRecords"],
        0
    );
    assert_eq!(
        c.get("/source-storage/source-records?leaderRecordStatus=q").await.status,
        StatusCode::BAD_REQUEST
    );

    // DELETE: soft, by instance id; twice is fine; then un-delete.
    let r = c.delete(&format!("/source-storage/records/{instance}?idType=INSTANCE")).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
    let r = c.get(&format!("/source-storage/records/{id}")).await;
    assert_eq!(r.body["state"], "DELETED");
    assert_eq!(r.body["deleted"], true);
    assert_eq!(r.body["additionalInfo"]["suppressDiscovery"], true);
    assert_eq!(r.body["leaderRecordStatus"], "d");
    let marc = marc::json::from_value(&r.body["parsedRecord"]["content"]).unwrap();
    assert_eq!(marc.leader().get(5), 'd');
    let today = chrono::Utc::now().format("%Y%m%d").to_string();
    assert!(marc.control_value("005").unwrap().starts_with(&today));
    assert_eq!(
        r.body["rawRecord"]["content"], body["rawRecord"]["content"],
        "raw stays as imported"
    );
    assert_eq!(
        c.delete(&format!("/source-storage/records/{id}")).await.status,
        StatusCode::NO_CONTENT
    );
    assert_eq!(
        c.delete(&format!("/source-storage/records/{}", Uuid::new_v4())).await.status,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        c.delete(&format!("/source-storage/records/{id}?idType=NOPE")).await.status,
        StatusCode::BAD_REQUEST
    );
    assert_eq!(c.get("/source-storage/source-records?deleted=true").await.body["totalRecords"], 1);
    let ids = json!([instance, Uuid::new_v4()]);
    let r = c.post("/source-storage/source-records?idType=INSTANCE", &ids).await;
    assert_eq!(r.body["totalRecords"], 0, "deleted records are left out: {}", r.text);
    let r = c.post("/source-storage/source-records?idType=INSTANCE&deleted=true", &ids).await;
    assert_eq!(r.body["sourceRecords"][0]["recordId"], id.as_str(), "{}", r.text);
    let r = c.post("/source-storage/source-records?idType=RECORD&deleted=true", &json!([id])).await;
    assert_eq!(r.body["totalRecords"], 1, "{}", r.text);

    let r = c
        .post_raw(
            &format!("/source-storage/records/{instance}/un-delete?idType=INSTANCE"),
            Vec::new(),
        )
        .await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
    let r = c.get(&format!("/source-storage/source-records/{instance}?idType=INSTANCE")).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.body["deleted"], false);
    let marc = marc::json::from_value(&r.body["parsedRecord"]["content"]).unwrap();
    assert_eq!(marc.leader().get(5), 'c');
    assert_eq!(
        c.get(&format!("/source-storage/records/{}", Uuid::new_v4())).await.status,
        StatusCode::NOT_FOUND
    );

    // Deleting the snapshot removes its records.
    assert_eq!(
        c.delete(&format!("/source-storage/snapshots/{snapshot}")).await.status,
        StatusCode::NO_CONTENT
    );
    assert_eq!(c.get("/source-storage/records").await.body["totalRecords"], 0);
    assert_eq!(
        c.get(&format!("/source-storage/snapshots/{snapshot}")).await.status,
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn batch_reports_bad_records_and_keeps_the_rest() {
    let app = TestApp::new();
    let c = Client::admin(&app, "diku").await;
    let bibs = load_bibs(2);
    let snapshot = new_snapshot(&c).await;
    let good = record_json(0, &snapshot, &bibs[0]);
    let mut bad = record_json(1, &snapshot, &bibs[1]);
    bad["snapshotId"] = json!(Uuid::new_v4());
    let r = c
        .post("/source-storage/batch/records", &json!({"records": [good, bad], "totalRecords": 2}))
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    assert_eq!(r.body["totalRecords"], 1);
    assert_eq!(r.body["errorMessages"].as_array().unwrap().len(), 1);
    let r = c.post_raw("/source-storage/batch/records", b"{".to_vec()).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    // Without the permission: 403.
    let r = app
        .send(axum::http::Method::GET, "/source-storage/records", Some("diku"), None, None)
        .await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
}

/// A MARC_HOLDING or MARC_AUTHORITY record whose external id is `external`.
fn typed_record_json(
    idx: usize,
    snapshot: &str,
    marc: &marc::Record,
    record_type: &str,
    external: Uuid,
) -> Value {
    let mut body = record_json(idx, snapshot, marc);
    body["recordType"] = json!(record_type);
    body["externalIdsHolder"] = match record_type {
        "MARC_HOLDING" => json!({"holdingsId": external, "holdingsHrid": format!("ho{idx}")}),
        _ => json!({"authorityId": external, "authorityHrid": format!("au{idx}")}),
    };
    body
}

#[tokio::test]
async fn id_types_holdings_authority_and_external() {
    let app = TestApp::new();
    let c = Client::admin(&app, "diku").await;
    let bibs = load_bibs(3);
    let snapshot = new_snapshot(&c).await;
    let cases = [
        (0, "MARC_HOLDING", "HOLDINGS"),
        (1, "MARC_AUTHORITY", "AUTHORITY"),
        (2, "MARC_AUTHORITY", "EXTERNAL"),
    ];
    for (idx, record_type, id_type) in cases {
        let external = Uuid::from_u128(0x5000 + idx as u128);
        let body = typed_record_json(idx, &snapshot, &bibs[idx], record_type, external);
        let r = c.post("/source-storage/records", &body).await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
        let id = body["id"].as_str().unwrap();

        // GET by the external id.
        let r = c.get(&format!("/source-storage/source-records/{external}?idType={id_type}")).await;
        assert_eq!(r.status, StatusCode::OK, "{id_type}: {}", r.text);
        assert_eq!(r.body["recordId"], id, "{id_type}");
        assert_eq!(r.body["recordType"], record_type);
        let r =
            c.get(&format!("/source-storage/records/{external}/formatted?idType={id_type}")).await;
        assert_eq!(r.status, StatusCode::OK, "{id_type}: {}", r.text);
        assert_eq!(r.body["id"], id);
        // The external id is not a record id, nor another record's external id.
        let r = c.get(&format!("/source-storage/source-records/{external}")).await;
        assert_eq!(r.status, StatusCode::NOT_FOUND, "{id_type}: {}", r.text);
        let other = Uuid::new_v4();
        let r = c.get(&format!("/source-storage/records/{other}/formatted?idType={id_type}")).await;
        assert_eq!(r.status, StatusCode::NOT_FOUND, "{id_type}: {}", r.text);

        // DELETE by the external id: soft, and again is fine.
        let path = format!("/source-storage/records/{external}?idType={id_type}");
        let r = c.delete(&path).await;
        assert_eq!(r.status, StatusCode::NO_CONTENT, "{id_type}: {}", r.text);
        let r = c.get(&format!("/source-storage/records/{id}")).await;
        assert_eq!(r.body["state"], "DELETED", "{id_type}");
        assert_eq!(r.body["deleted"], true);
        assert_eq!(r.body["leaderRecordStatus"], "d");
        assert_eq!(c.delete(&path).await.status, StatusCode::NO_CONTENT, "{id_type}");
        let r = c.delete(&format!("/source-storage/records/{other}?idType={id_type}")).await;
        assert_eq!(r.status, StatusCode::NOT_FOUND, "{id_type}: {}", r.text);
    }
    // None of them is a bib with an instance id: the MARC search never returns them.
    let (ids, total) =
        search(&c, json!({"leaderSearchExpression": "p_05 = 'd'", "deleted": true})).await;
    assert_eq!((ids.len(), total), (0, 0));
}

#[tokio::test]
async fn marc_search_streams_twenty_thousand_ids() {
    let app = TestApp::new();
    let c = Client::admin(&app, "diku").await;
    let base = load_bibs(1).remove(0);
    let n = 20_000;
    let tenant = app.store.tenant("diku").unwrap();
    tenant
        .write(|w| {
            let snapshot_id = srs::ensure_generated_snapshot(w)?;
            let bibs = (0..n).map(|i| srs::NewBib {
                id: None,
                marc: base.clone(),
                instance_id: Uuid::from_u128(0x7000_0000 + i as u128),
                instance_hrid: format!("in{i:06}"),
                snapshot_id,
                suppress_discovery: false,
                state: srs::State::Actual,
            });
            srs::put_marc_bibs(w, bibs)
        })
        .unwrap();
    let body = json!({"leaderSearchExpression": format!("p_05 = '{}'", base.leader().get(5))});
    // The first search builds the index; the second answers from it. How long a
    // search of 20,000 ids takes is a figure of `cargo bench -p quire-srs --bench
    // marc_search`, not a check here.
    let first = c.post("/source-storage/stream/marc-record-identifiers", &body).await;
    assert_eq!(first.status, StatusCode::OK, "{}", first.text);
    let r = c.post("/source-storage/stream/marc-record-identifiers", &body).await;
    assert_eq!(r.headers["content-type"], "application/stream+json");
    // Exactly FOLIO's body: ids in creation order, then the count.
    let ids: Vec<String> =
        (0..n).map(|i| format!("\"{}\"", Uuid::from_u128(0x7000_0000 + i as u128))).collect();
    let expected = format!("{{\"records\":[{}],\"totalCount\":{n}}}", ids.join(","));
    assert_eq!(r.text.len(), expected.len());
    assert!(r.text == expected, "the body differs from FOLIO's shape");
    assert_eq!(first.text, r.text);
    // A page and an empty result keep the shape.
    let r = c
        .post(
            "/source-storage/stream/marc-record-identifiers",
            &json!({"leaderSearchExpression": "p_05 = 'c'", "offset": 1, "limit": 2}),
        )
        .await;
    if base.leader().get(5) == 'c' {
        assert_eq!(r.text, format!("{{\"records\":[{},{}],\"totalCount\":{n}}}", ids[1], ids[2]));
    }
    let r = c
        .post(
            "/source-storage/stream/marc-record-identifiers",
            &json!({"leaderSearchExpression": "p_05 = 'x'"}),
        )
        .await;
    assert_eq!(r.text, "{\"records\":[],\"totalCount\":0}");
}
