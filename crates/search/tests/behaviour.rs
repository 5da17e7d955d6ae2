//! Search semantics on a small catalogue stored through the inventory verbs: each
//! relation and alias, wildcard positions, facets, paging, sorting, errors.

use std::sync::Arc;

use expect_test::{Expect, expect};
use folio::Actor;
use inventory::{HoldingsRecord, Instance, Item};
use search::{FacetRequest, InstanceIndex, SearchRequest};
use serde_json::{Value, json};

pub const INSTANCE_TYPE: &str = "6312d172-f0cf-40f6-b27d-9fa8feaf332f";
pub const ISBN: &str = "8261054f-be78-422d-bd51-4ed9f33c3422";
pub const PERSONAL: &str = "2b94c631-fca9-4892-a730-03ee529ffe2a";
pub const FOLIO_SOURCE: &str = "f32d531e-df79-46b3-8932-cdd35f7a2264";
pub const MAIN_LIBRARY: &str = "fcd64ce1-6995-48f0-840e-89ffa2288371";
pub const ANNEX: &str = "53cf956f-c1df-410b-8bea-27f712cca7c0";
pub const BOOK: &str = "1a54b431-2e4f-452d-9cae-9cee66c9a892";
pub const CAN_CIRCULATE: &str = "2b94c631-fca9-4892-a730-03ee529ffe27";

fn contributor(name: &str, primary: bool) -> Value {
    json!({"name": name, "contributorNameTypeId": PERSONAL, "primary": primary})
}

/// Holdings of an instance: (location, [item status]).
type Holdings = Vec<(&'static str, Vec<&'static str>)>;

/// The catalogue: each instance with its holdings.
fn catalogue() -> Vec<(Value, Holdings)> {
    vec![
        (
            json!({"hrid": "t1", "source": "FOLIO", "title": "The Semantic Web Primer",
                "indexTitle": "Semantic web primer",
                "contributors": [contributor("Antoniou, Grigoris", true), contributor("Van Harmelen, Frank", false)],
                "subjects": [{"value": "Semantic Web"}, {"value": "Ontologies"}],
                "languages": ["eng"], "dates": {"date1": "2004"},
                "identifiers": [{"value": "978-0-262-01210-2 (pbk.)", "identifierTypeId": ISBN},
                                {"value": "0262012103", "identifierTypeId": ISBN}],
                "publication": [{"publisher": "MIT Press", "place": "Cambridge, Mass."}]}),
            vec![(MAIN_LIBRARY, vec!["Available", "Checked out"])],
        ),
        (
            json!({"hrid": "t2", "source": "FOLIO", "title": "Déjà vu: a novel",
                "contributors": [contributor("Müller, Jürgen", true)],
                "subjects": [{"value": "French fiction"}], "languages": ["fre"],
                "dates": {"date1": "199u"}, "discoverySuppress": true}),
            vec![(ANNEX, vec!["In transit"])],
        ),
        (
            json!({"hrid": "t3", "source": "FOLIO", "title": "War and Peace",
                "contributors": [contributor("Tolstoy, Leo", true)],
                "subjects": [{"value": "Russian fiction"}, {"value": "Napoleonic Wars"}],
                "series": [{"value": "Penguin classics"}],
                "languages": ["eng", "rus"], "dates": {"date1": "1869"}}),
            vec![(MAIN_LIBRARY, vec!["Available"])],
        ),
        (
            json!({"hrid": "t4", "source": "FOLIO", "title": "Peace & Conflict Studies",
                "alternativeTitles": [{"alternativeTitle": "Conflict studies"}],
                "contributors": [contributor("Barash, David P.", true)],
                "languages": ["eng"], "dates": {"date1": "2017"}, "staffSuppress": true}),
            vec![],
        ),
        (
            json!({"hrid": "t5", "source": "MARC", "title": "Primer of wolves",
                "contributors": [contributor("Wolf, Walter", true)], "languages": ["ger"]}),
            vec![(ANNEX, vec!["Missing"])],
        ),
    ]
}

pub fn add_family(
    w: &mut store::Writer<'_>,
    instance: &Value,
    holdings: &[(&str, Vec<&str>)],
) -> inventory::Result<uuid::Uuid> {
    let mut instance = instance.clone();
    instance["instanceTypeId"] = json!(INSTANCE_TYPE);
    let created: Instance =
        inventory::create(w, instance.to_string().as_bytes(), Actor::default())?;
    let id = created.id.unwrap();
    for (location, statuses) in holdings {
        let body =
            json!({"instanceId": id, "sourceId": FOLIO_SOURCE, "permanentLocationId": location});
        let h: HoldingsRecord =
            inventory::create(w, body.to_string().as_bytes(), Actor::default())?;
        for status in statuses {
            let body = json!({"holdingsRecordId": h.id.unwrap(), "status": {"name": status},
                "materialTypeId": BOOK, "permanentLoanTypeId": CAN_CIRCULATE});
            let _item: Item = inventory::create(w, body.to_string().as_bytes(), Actor::default())?;
        }
    }
    Ok(id)
}

struct Fixture {
    _dir: tempfile::TempDir,
    tenant: Arc<store::Tenant>,
    index: InstanceIndex,
}

fn fixture() -> Fixture {
    fixture_of(catalogue())
}

/// A tenant holding `families`, indexed.
fn fixture_of(families: Vec<(Value, Holdings)>) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let store = store::Store::open(dir.path(), store::testing::options(), &[inventory::MIGRATIONS])
        .unwrap();
    let (tenant, _) = store.create_tenant("diku").unwrap();
    tenant.write(inventory::load_reference_data).unwrap();
    tenant
        .write(|w| {
            for (instance, holdings) in families {
                add_family(w, &instance, &holdings)?;
            }
            Ok::<_, inventory::Error>(())
        })
        .unwrap();
    let index = InstanceIndex::open(&tenant).unwrap();
    index.catch_up(&tenant).unwrap();
    Fixture { _dir: dir, tenant, index }
}

fn hrids(f: &Fixture, request: &SearchRequest) -> String {
    match f.index.search(&f.tenant, request) {
        Ok(found) => {
            let mut hrids: Vec<String> = found
                .instances
                .iter()
                .map(|i| {
                    serde_json::from_str::<Value>(i).unwrap()["hrid"].as_str().unwrap().to_string()
                })
                .collect();
            if !request.query.contains("sortBy") {
                hrids.sort();
            }
            format!("{} {}", found.total_records, hrids.join(" "))
        }
        Err(e) => format!("error: {e}"),
    }
}

/// One query per line, each with the hrids it finds (sorted, unless the query sorts).
fn check(f: &Fixture, queries: &[&str], expect: Expect) {
    let out: Vec<String> =
        queries.iter().map(|q| format!("{q} => {}", hrids(f, &SearchRequest::new(*q)))).collect();
    expect.assert_eq(&(out.join("\n") + "\n"));
}

#[test]
fn relations_and_aliases() {
    let f = fixture();
    check(
        &f,
        &[
            "cql.allRecords=1",
            "keyword = *",
            "title all \"semantic primer\"",
            "title all \"primers semantic\"",
            "title adj \"primer semantic\"",
            "title = \"web primer\"",
            "title any \"wolves peace\"",
            "title == \"semantic web\"",
            "title == \"web semantic\"",
            "title == \"the primer\"",
            "title ==/string \"war and peace\"",
            "title ==/string \"war\"",
            "title <> peace",
            "keyword all \"grigoris semantic\"",
            "keyword all \"peace and conflict\"",
            "keyword all \"peace & conflict\"",
            "title all \"deja vu\"",
            "title all \"DÉJÀ\"",
            "contributors all muller",
            "contributors == \"Van Harmelen, Frank\"",
            "contributors = \"\"",
            "contributors == []",
            "series.value = *",
            "series.value == []",
            "id = *",
            "metadata.createdDate = *",
            "series all penguin",
            "subjects all fiction",
            "subjects ==/string \"semantic web\"",
            "publisher all mit",
            "publication.place all mass",
            "isbn = 9780262012102",
            "isbn = 0262012103",
            "isbn = \"978-0-262-01210-2\"",
            "isbn all pbk",
            "identifiers.value == 0262012103",
            "languages == eng",
            "languages == ENG",
            "languages == (fre or ger)",
            "source == MARC",
            "source == marc",
            "items.status.name == Available",
            "item.status.name == available",
            "items.status.name == \"In transit\"",
            "holdings.permanentLocationId == 53cf956f-c1df-410b-8bea-27f712cca7c0",
            "staffSuppress == true",
            "discoverySuppress == true",
            "discoverySuppress == false",
            "normalizedDate1 >= 2000",
            "normalizedDate1 < 1990",
            "metadata.createdDate > 2000-01-01",
            "metadata.createdDate < 2000-01-01",
            "languages == eng and items.status.name == Available",
            "languages == eng or languages == ger",
            "languages == eng not title all war",
            "hrid == T3",
            "dates.date1 == 199u",
        ],
        expect![[r#"
            cql.allRecords=1 => 5 t1 t2 t3 t4 t5
            keyword = * => 5 t1 t2 t3 t4 t5
            title all "semantic primer" => 1 t1
            title all "primers semantic" => 1 t1
            title adj "primer semantic" => 1 t1
            title = "web primer" => 1 t1
            title any "wolves peace" => 3 t3 t4 t5
            title == "semantic web" => 1 t1
            title == "web semantic" => 0 
            title == "the primer" => 2 t1 t5
            title ==/string "war and peace" => 1 t3
            title ==/string "war" => 0 
            title <> peace => 3 t1 t2 t5
            keyword all "grigoris semantic" => 1 t1
            keyword all "peace and conflict" => 1 t4
            keyword all "peace & conflict" => 1 t4
            title all "deja vu" => 1 t2
            title all "DÉJÀ" => 1 t2
            contributors all muller => 1 t2
            contributors == "Van Harmelen, Frank" => 1 t1
            contributors = "" => 5 t1 t2 t3 t4 t5
            contributors == [] => 0 
            series.value = * => 1 t3
            series.value == [] => 4 t1 t2 t4 t5
            id = * => 5 t1 t2 t3 t4 t5
            metadata.createdDate = * => 5 t1 t2 t3 t4 t5
            series all penguin => 1 t3
            subjects all fiction => 2 t2 t3
            subjects ==/string "semantic web" => 1 t1
            publisher all mit => 1 t1
            publication.place all mass => 1 t1
            isbn = 9780262012102 => 1 t1
            isbn = 0262012103 => 1 t1
            isbn = "978-0-262-01210-2" => 1 t1
            isbn all pbk => 1 t1
            identifiers.value == 0262012103 => 1 t1
            languages == eng => 3 t1 t3 t4
            languages == ENG => 3 t1 t3 t4
            languages == (fre or ger) => 2 t2 t5
            source == MARC => 1 t5
            source == marc => 0 
            items.status.name == Available => 2 t1 t3
            item.status.name == available => 0 
            items.status.name == "In transit" => 1 t2
            holdings.permanentLocationId == 53cf956f-c1df-410b-8bea-27f712cca7c0 => 2 t2 t5
            staffSuppress == true => 1 t4
            discoverySuppress == true => 1 t2
            discoverySuppress == false => 4 t1 t3 t4 t5
            normalizedDate1 >= 2000 => 2 t1 t4
            normalizedDate1 < 1990 => 2 t3 t5
            metadata.createdDate > 2000-01-01 => 5 t1 t2 t3 t4 t5
            metadata.createdDate < 2000-01-01 => 0 
            languages == eng and items.status.name == Available => 2 t1 t3
            languages == eng or languages == ger => 4 t1 t3 t4 t5
            languages == eng not title all war => 2 t1 t4
            hrid == T3 => 1 t3
            dates.date1 == 199u => 1 t2
        "#]],
    );
}

#[test]
fn wildcards() {
    let f = fixture();
    check(
        &f,
        &[
            "title all prim*",
            "title all *primer",
            "title all *wolves",
            "title all *peace",
            "title all \"*web*\"",
            "title all *eac*",
            "title all *a*",
            "title all \"the sem*web*\"",
            "title all déj*",
            "contributors = \"*harmelen, frank\"",
            "contributors = van*",
            "keyword = sem*",
            "subjects = *fiction",
            "hrid == t*",
            "hrid == *3",
            "id = *",
            "isbn = 978026*",
            "title <> *peace",
            "languages == *ng",
            "items.status.name == *transit",
            "items.status.name all *able",
            "source == *RC",
            "tenantId == *ku",
        ],
        expect![[r#"
            title all prim* => 1 t5
            title all *primer => 1 t1
            title all *wolves => 1 t5
            title all *peace => 1 t3
            title all "*web*" => 1 t1
            title all *eac* => 2 t3 t4
            title all *a* => 4 t1 t2 t3 t4
            title all "the sem*web*" => 1 t1
            title all déj* => 1 t2
            contributors = "*harmelen, frank" => 1 t1
            contributors = van* => 1 t1
            keyword = sem* => 1 t1
            subjects = *fiction => 2 t2 t3
            hrid == t* => 5 t1 t2 t3 t4 t5
            hrid == *3 => 1 t3
            id = * => 5 t1 t2 t3 t4 t5
            isbn = 978026* => 1 t1
            title <> *peace => 4 t1 t2 t4 t5
            languages == *ng => 3 t1 t3 t4
            items.status.name == *transit => 1 t2
            items.status.name all *able => 2 t1 t3
            source == *RC => 1 t5
            tenantId == *ku => 5 t1 t2 t3 t4 t5
        "#]],
    );
}

#[test]
fn errors_and_paging() {
    let f = fixture();
    let cases = [
        "title all",
        "unknownField = x",
        "title within x",
        "title all x prox title all y",
        "metadata.createdDate > yesterday",
        "title all x sortBy publisher",
    ];
    let mut out: Vec<String> =
        cases.iter().map(|q| format!("{q} => {}", hrids(&f, &SearchRequest::new(*q)))).collect();
    for (limit, offset) in [(501, 0), (500, 9_500), (100, 9_900), (0, 0), (2, 1), (2, 4)] {
        let request =
            SearchRequest { limit, offset, ..SearchRequest::new("cql.allRecords=1 sortBy title") };
        out.push(format!("limit {limit} offset {offset} => {}", hrids(&f, &request)));
    }
    expect![[r#"
        title all => error: Failed to parse CQL query [cql: 'title all', resource: instance]
        unknownField = x => error: Invalid search field provided in the CQL query
        title within x => error: Failed to parse CQL query. Comparator 'within' is not supported.
        title all x prox title all y => error: Operator 'PROX' is not supported.
        metadata.createdDate > yesterday => error: Invalid date value 'yesterday' for field 'metadata.createdDate'
        title all x sortBy publisher => error: Sort field not found or cannot be used: publisher
        limit 501 offset 0 => error: must be less than or equal to 500
        limit 500 offset 9500 => 5 
        limit 100 offset 9900 => 5 
        limit 0 offset 0 => 5 
        limit 2 offset 1 => 5 t4 t5
        limit 2 offset 4 => 5 t3
    "#]].assert_eq(&(out.join("\n") + "\n"));
    let error = f.index.search(&f.tenant, &SearchRequest::new("title all")).unwrap_err();
    assert!(error.is_client_error());
    assert!(matches!(error, search::Error::InvalidQuery { .. }));
}

#[test]
fn sorting() {
    let f = fixture();
    check(
        &f,
        &[
            "cql.allRecords=1 sortBy title",
            "cql.allRecords=1 sortBy title/sort.descending",
            "cql.allRecords=1 sortBy contributors",
            "cql.allRecords=1 sortBy items.status.name",
            "cql.allRecords=1 sortBy item.status.name/sort.descending",
            "cql.allRecords=1 sortBy normalizedDate1",
            "cql.allRecords=1 sortBy normalizedDate1/sort.descending",
        ],
        expect![[r#"
            cql.allRecords=1 sortBy title => 5 t2 t4 t5 t1 t3
            cql.allRecords=1 sortBy title/sort.descending => 5 t3 t1 t5 t4 t2
            cql.allRecords=1 sortBy contributors => 5 t1 t4 t2 t3 t5
            cql.allRecords=1 sortBy items.status.name => 5 t1 t3 t2 t5 t4
            cql.allRecords=1 sortBy item.status.name/sort.descending => 5 t5 t2 t1 t3 t4
            cql.allRecords=1 sortBy normalizedDate1 => 5 t5 t3 t2 t1 t4
            cql.allRecords=1 sortBy normalizedDate1/sort.descending => 5 t4 t1 t2 t3 t5
        "#]],
    );
    // The five were created in one transaction, possibly in one millisecond; an update
    // of t3 later makes it the most recently updated.
    std::thread::sleep(std::time::Duration::from_millis(5));
    let (instance, _) = catalogue().swap_remove(2);
    let id = f
        .index
        .search(&f.tenant, &SearchRequest { expand_all: true, ..SearchRequest::new("hrid == t3") })
        .unwrap();
    let id = serde_json::from_str::<Value>(&id.instances[0]).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let mut body = instance;
    body["id"] = json!(id);
    body["instanceTypeId"] = json!(INSTANCE_TYPE);
    f.tenant
        .write(|w| {
            inventory::replace::<Instance>(
                w,
                id.parse().unwrap(),
                body.to_string().as_bytes(),
                Actor::default(),
            )
        })
        .unwrap();
    f.index.catch_up(&f.tenant).unwrap();
    let first = |q: &str| hrids(&f, &SearchRequest { limit: 1, ..SearchRequest::new(q) });
    assert_eq!(first("cql.allRecords=1 sortBy metadata.updatedDate/sort.descending"), "5 t3");
    assert_ne!(first("cql.allRecords=1 sortBy metadata.updatedDate"), "5 t3");
    assert_ne!(first("cql.allRecords=1 sortBy metadata.createdDate/sort.descending"), "5 t3");
}

#[test]
fn facets_and_results() {
    let f = fixture();
    let facets: Vec<FacetRequest> = [
        "languages",
        "items.status.name",
        "discoverySuppress:1",
        "source",
        "holdings.permanentLocationId",
    ]
    .iter()
    .map(|s| FacetRequest::parse(s).unwrap())
    .collect();
    let all = f.index.facets("cql.allRecords=1", &facets).unwrap();
    let eng = f.index.facets("languages == eng", &facets[..2]).unwrap();
    expect![[r#"
        {"facets":{"discoverySuppress":{"totalRecords":1,"values":[{"id":"false","totalRecords":4}]},"holdings.permanentLocationId":{"totalRecords":2,"values":[{"id":"53cf956f-c1df-410b-8bea-27f712cca7c0","totalRecords":2},{"id":"fcd64ce1-6995-48f0-840e-89ffa2288371","totalRecords":2}]},"items.status.name":{"totalRecords":4,"values":[{"id":"Available","totalRecords":2},{"id":"Checked out","totalRecords":1},{"id":"In transit","totalRecords":1},{"id":"Missing","totalRecords":1}]},"languages":{"totalRecords":4,"values":[{"id":"eng","totalRecords":3},{"id":"fre","totalRecords":1},{"id":"ger","totalRecords":1},{"id":"rus","totalRecords":1}]},"source":{"totalRecords":2,"values":[{"id":"FOLIO","totalRecords":4},{"id":"MARC","totalRecords":1}]}},"totalRecords":5}
        {"facets":{"items.status.name":{"totalRecords":2,"values":[{"id":"Available","totalRecords":2},{"id":"Checked out","totalRecords":1}]},"languages":{"totalRecords":4,"values":[{"id":"eng","totalRecords":3},{"id":"fre","totalRecords":1},{"id":"ger","totalRecords":1},{"id":"rus","totalRecords":1}]}},"totalRecords":2}
    "#]].assert_eq(&format!("{}\n{}\n", all.to_json(), eng.to_json()));
    assert!(FacetRequest::parse("title").is_err());
    assert!(FacetRequest::parse("languages:x").is_err());

    // mod-search's filters: a facet is counted without the filters on its own field
    // (the values they select first), with the filters on other fields and the rest.
    let counts = |query: &str, facet: &str| -> String {
        let facets = f.index.facets(query, &[FacetRequest::parse(facet).unwrap()]).unwrap();
        let values = &facets.facets[0].values;
        values.iter().map(|v| format!("{}={}", v.id, v.total_records)).collect::<Vec<_>>().join(" ")
    };
    let total =
        |query: &str| f.index.search(&f.tenant, &SearchRequest::new(query)).unwrap().total_records;
    expect![[r#"
        languages == eng: languages eng=3 fre=1 ger=1 rus=1 (3 found)
        languages == eng: items.status.name Available=2 Checked out=1
        languages == (fre OR rus): languages fre=1 rus=1 eng=3 ger=1 (2 found)
        languages == (fre OR rus): languages:2 fre=1 rus=1
        languages == (fre OR rus): languages:3 fre=1 rus=1 eng=3
        languages == eng AND items.status.name == Available: languages eng=2 rus=1 (2 found)
        languages == eng AND items.status.name == Available: items.status.name Available=2 Checked out=1
        title all web AND languages == eng: languages eng=1 (1 found)
        languages == eng NOT hrid == t1: languages eng=2 fre=1 ger=1 rus=1 (2 found)
        languages == ger AND (languages == eng AND source == FOLIO): languages eng=3 rus=1 (0 found)
        languages <> eng: languages fre=1 ger=1 (2 found)
        languages == lat: languages eng=3 fre=1 ger=1 rus=1 (0 found)
    "#]]
    .assert_eq(
        &[
            ("languages == eng", "languages"),
            ("languages == eng", "items.status.name"),
            ("languages == (fre OR rus)", "languages"),
            ("languages == (fre OR rus)", "languages:2"),
            ("languages == (fre OR rus)", "languages:3"),
            ("languages == eng AND items.status.name == Available", "languages"),
            ("languages == eng AND items.status.name == Available", "items.status.name"),
            ("title all web AND languages == eng", "languages"),
            ("languages == eng NOT hrid == t1", "languages"),
            ("languages == ger AND (languages == eng AND source == FOLIO)", "languages"),
            ("languages <> eng", "languages"),
            ("languages == lat", "languages"),
        ]
        .iter()
        .map(|(q, facet)| {
            let found = if facet.contains(':') || facet.starts_with("items") {
                String::new()
            } else {
                format!(" ({} found)", total(q))
            };
            format!("{q}: {facet} {}{found}\n", counts(q, facet))
        })
        .collect::<String>(),
    );

    let basic = f.index.search(&f.tenant, &SearchRequest::new("hrid == t1")).unwrap();
    let basic: Value = serde_json::from_str(&basic.to_json()).unwrap();
    let instance = &basic["instances"][0];
    assert_eq!(basic["totalRecords"], 1);
    assert_eq!(instance["tenantId"], "diku");
    assert_eq!(instance["contributors"][0]["name"], "Antoniou, Grigoris");
    assert!(instance.get("subjects").is_none(), "basic fields only: {instance}");
    let full = f
        .index
        .search(&f.tenant, &SearchRequest { expand_all: true, ..SearchRequest::new("hrid == t1") })
        .unwrap();
    let full: Value = serde_json::from_str(&full.instances[0]).unwrap();
    assert_eq!(full["subjects"][1]["value"], "Ontologies");
    assert_eq!(full["holdings"].as_array().unwrap().len(), 1);
    assert_eq!(full["items"].as_array().unwrap().len(), 2);

    let mut ids = Vec::new();
    let n = f
        .index
        .stream_ids("languages == eng", |id| {
            ids.push(id);
            std::ops::ControlFlow::Continue(())
        })
        .unwrap();
    assert_eq!((n, ids.len()), (3, 3));
    let status = f.index.status();
    assert_eq!(status.documents, 5);
    assert_eq!(status.applied_seq, f.tenant.last_seq().unwrap());
}

/// mod-search stems only records whose languages include English: a word's other forms
/// find an English record, and a record in another language only by its own words.
#[test]
fn only_english_records_are_found_by_stemmed_forms() {
    let families = [("en", json!(["eng"])), ("de", json!(["ger"])), ("none", json!([]))]
        .into_iter()
        .map(|(hrid, languages)| {
            let instance = json!({"hrid": hrid, "source": "FOLIO", "title": "Library studies",
                "subjects": [{"value": "Archives and libraries"}], "languages": languages});
            (instance, Holdings::new())
        })
        .collect();
    let f = fixture_of(families);
    check(
        &f,
        &[
            "title all studies",
            "title all study",
            r#"title = "library study""#,
            "subjects all archive",
            "subjects any archive",
        ],
        expect![[r#"
            title all studies => 3 de en none
            title all study => 1 en
            title = "library study" => 1 en
            subjects all archive => 1 en
            subjects any archive => 1 en
        "#]],
    );
}
