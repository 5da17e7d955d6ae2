//! Authority search on the Library of Congress subject authorities in the shared data
//! set (`5000.mrc`; `2500.mrc` is its first half), mapped with
//! `generate::authorities::authority_from_marc` and stored through the inventory verbs:
//! one document per heading, aliases and relations, wildcards, sorting, paging,
//! `numberOfTitles`, facets, and the index's life (following, restart, reindex under
//! writes, a lost index).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

mod common;
use common::{POLL, followed};

use folio::Actor;
use inventory::model::HeadingKind;
use inventory::{Authority, Instance};
use search::{AuthorityIndex, AuthoritySearchRequest, FacetRequest, Follower, InstanceIndex};
use serde_json::{Value, json};
use uuid::Uuid;

const MARC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data/marc/5000.mrc");
const INSTANCE_TYPE: &str = "6312d172-f0cf-40f6-b27d-9fa8feaf332f";

/// The LC authorities, as FOLIO authority records.
fn lc_authorities() -> Vec<Authority> {
    let file = std::fs::File::open(MARC).unwrap_or_else(|e| panic!("{MARC}: {e}"));
    let reader = marc::Reader::new(std::io::BufReader::new(file));
    reader
        .map(|record| generate::authorities::authority_from_marc(&record.unwrap()).unwrap())
        .collect()
}

/// Headings (and tracings) of a record: the documents it becomes, counted from the
/// model rather than the index.
fn heading_count(a: &Authority) -> u64 {
    let n: usize = HeadingKind::ALL
        .iter()
        .map(|&kind| {
            let (authorized, sft, saft) = a.headings(kind);
            usize::from(authorized.is_some()) + sft.len() + saft.len()
        })
        .sum();
    n.max(1) as u64
}

struct Fixture {
    _dir: tempfile::TempDir,
    tenant: Arc<store::Tenant>,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let store = store::Store::open(dir.path(), store::testing::options(), &[inventory::MIGRATIONS])
        .unwrap();
    let (tenant, _) = store.create_tenant("diku").unwrap();
    tenant.write(inventory::load_reference_data).unwrap();
    Fixture { _dir: dir, tenant }
}

struct Corpus {
    _fixture: Fixture,
    records: Vec<Authority>,
    index: AuthorityIndex,
}

/// The LC corpus stored and indexed once for the read-only tests of this file.
fn corpus() -> &'static Corpus {
    static CORPUS: OnceLock<Corpus> = OnceLock::new();
    CORPUS.get_or_init(|| {
        let fixture = fixture();
        let records = lc_authorities();
        let started = Instant::now();
        fixture
            .tenant
            .write(|w| inventory::save_batch(w, records.clone(), false, Actor::default()))
            .unwrap();
        let stored = started.elapsed();
        let started = Instant::now();
        let index = AuthorityIndex::open(&fixture.tenant).unwrap();
        eprintln!(
            "{} authorities stored in {stored:?}, indexed in {:?}",
            records.len(),
            started.elapsed()
        );
        let records = fixture
            .tenant
            .read(|r| {
                inventory::list_json::<Authority>(
                    r,
                    None,
                    store::Page { offset: 0, limit: 100_000 },
                )
            })
            .unwrap()
            .0
            .iter()
            .map(|body| serde_json::from_str(body).unwrap())
            .collect();
        Corpus { _fixture: fixture, records, index }
    })
}

fn search(index: &AuthorityIndex, query: &str) -> (u64, Vec<Value>) {
    let mut request = AuthoritySearchRequest::new(query);
    request.limit = 500;
    request.include_number_of_titles = false;
    let page = index.search(&request, None).unwrap_or_else(|e| panic!("{query}: {e}"));
    let hits = page.authorities.iter().map(|a| serde_json::from_str(a).unwrap()).collect();
    (page.total_records, hits)
}

fn total(query: &str) -> u64 {
    search(&corpus().index, query).0
}

/// Headings of the corpus for which `pred` holds, counted from the records.
fn expected(pred: impl Fn(&Authority, HeadingKind, &str, &str) -> bool) -> u64 {
    let mut n = 0;
    for a in &corpus().records {
        for kind in HeadingKind::ALL {
            let (authorized, sft, saft) = a.headings(kind);
            for value in authorized.iter().copied() {
                n += u64::from(pred(a, kind, "Authorized", value));
            }
            for value in sft {
                n += u64::from(pred(a, kind, "Reference", value));
            }
            for value in saft {
                n += u64::from(pred(a, kind, "Auth/Ref", value));
            }
        }
    }
    n
}

#[test]
fn one_document_per_heading_and_tracing() {
    let c = corpus();
    assert_eq!(c.records.len(), 5000);
    let headings: u64 = c.records.iter().map(heading_count).sum();
    assert!(headings > 7000, "{headings}");
    assert_eq!(total("cql.allRecords=1"), headings);
    assert_eq!(total("keyword = *"), headings);
    assert_eq!(total("authRefType == Authorized"), 5000);
    assert_eq!(total("authRefType == Reference"), expected(|_, _, t, _| t == "Reference"));
    assert_eq!(total("authRefType == \"Auth/Ref\""), expected(|_, _, t, _| t == "Auth/Ref"));
    let topical = expected(|_, k, _, _| k == HeadingKind::TopicalTerm);
    assert_eq!(total("headingType == Topical"), topical);
    assert_eq!(
        total("headingType == \"Geographic Name\""),
        expected(|_, k, _, _| k == HeadingKind::GeographicName)
    );
    // Every heading document of one record carries its id.
    let a = &c.records[7];
    let (n, hits) = search(&c.index, &format!("id == {}", a.id.unwrap()));
    assert_eq!(n, heading_count(a));
    assert!(hits.iter().all(|h| h["id"] == json!(a.id.unwrap())));
}

#[test]
fn heading_fields_and_the_keyword_alias() {
    let c = corpus();
    // A topical heading with see-from tracings: each field finds its own documents.
    let a = c
        .records
        .iter()
        .find(|a| a.topical_term.is_some() && !a.sft_topical_term.is_empty())
        .unwrap();
    let heading = a.topical_term.clone().unwrap();
    let (_, hits) = search(&c.index, &format!("topicalTerm == \"{heading}\""));
    assert!(
        hits.iter().any(|h| h["id"] == json!(a.id.unwrap()) && h["authRefType"] == "Authorized")
    );
    assert!(hits.iter().all(|h| h["authRefType"] == "Authorized" && h["headingType"] == "Topical"));
    let tracing = &a.sft_topical_term[0];
    let (_, hits) = search(&c.index, &format!("sftTopicalTerm == \"{tracing}\""));
    let hit = hits.iter().find(|h| h["id"] == json!(a.id.unwrap())).unwrap();
    assert_eq!(
        (hit["authRefType"].as_str(), hit["headingRef"].as_str()),
        (Some("Reference"), Some(tracing.as_str()))
    );
    // keyword searches every heading and tracing.
    let (_, hits) = search(&c.index, &format!("keyword == \"{tracing}\""));
    assert!(hits.iter().any(|h| h["headingRef"] == json!(tracing)));
    // A word query counts every heading document holding the words.
    let word_count = |word: &str| {
        expected(|_, _, _, v| {
            v.split(|c: char| !c.is_alphanumeric()).any(|w| w.eq_ignore_ascii_case(word))
        })
    };
    assert_eq!(total("keyword all Computers"), word_count("computers"));
    assert_eq!(total("Computers"), word_count("computers"));
    assert_eq!(
        total("topicalTerm all Computers"),
        expected(|_, k, t, v| k == HeadingKind::TopicalTerm
            && t == "Authorized"
            && v.split(|c: char| !c.is_alphanumeric())
                .any(|w| w.eq_ignore_ascii_case("computers")))
    );
    // Geographic and saft headings, present in the corpus.
    let g = c.records.iter().find(|a| a.geographic_name.is_some()).unwrap();
    let (n, _) = search(
        &c.index,
        &format!("geographicName == \"{}\"", g.geographic_name.as_deref().unwrap()),
    );
    assert!(n >= 1);
    let s = c.records.iter().find(|a| !a.saft_topical_term.is_empty()).unwrap();
    let (_, hits) =
        search(&c.index, &format!("saftTopicalTerm ==/string \"{}\"", s.saft_topical_term[0]));
    assert!(hits.iter().any(|h| h["id"] == json!(s.id.unwrap()) && h["authRefType"] == "Auth/Ref"));
}

#[test]
fn identifiers_and_term_fields() {
    let c = corpus();
    let a = &c.records[42];
    let id = a.id.unwrap();
    let n = heading_count(a);
    let lccn = a.identifiers[0].value.clone();
    for query in [
        format!("naturalId == {}", a.natural_id),
        format!("naturalId == {}", a.natural_id.to_uppercase()),
        format!("lccn == \"{lccn}\""),
        format!("lccn = {}", a.natural_id),
        format!("identifiers.value == \"{lccn}\""),
        format!("id == {id}"),
    ] {
        let (total, hits) = search(&c.index, &query);
        assert_eq!(total, n, "{query}");
        assert!(hits.iter().all(|h| h["id"] == json!(id)), "{query}");
    }
    let all: u64 = c.records.iter().map(heading_count).sum();
    assert_eq!(total("subjectHeadings == a"), all);
    assert_eq!(total("sourceFileId == NULL"), all);
    assert_eq!(total("isTitleHeadingRef == true"), expected(|_, k, _, _| k.is_title()));
    assert_eq!(total("metadata.createdDate > 2000-01-01"), all);
    assert_eq!(total("metadata.createdDate < 2000-01-01"), 0);
    assert_eq!(total(&format!("id == {id} and authRefType == Authorized")), 1);
}

#[test]
fn relations_wildcards_and_negation() {
    let c = corpus();
    let all: u64 = c.records.iter().map(heading_count).sum();
    let computers = total("keyword all computers");
    assert_eq!(total("keyword <> computers"), all - computers);
    assert_eq!(
        total("keyword all computers not authRefType == Authorized"),
        computers - total("keyword all computers and authRefType == Authorized")
    );
    let starts = |p: &str| expected(|_, _, _, v| v.to_lowercase().starts_with(p));
    let ends = |p: &str| expected(|_, _, _, v| v.to_lowercase().ends_with(p));
    let contains = |p: &str| expected(|_, _, _, v| v.to_lowercase().contains(p));
    assert_eq!(total("keyword = comput*"), starts("comput"));
    assert_eq!(total("headingRef == comput*"), starts("comput"));
    assert_eq!(total("keyword = *legislation"), ends("legislation"));
    assert_eq!(total("keyword = *law and*"), contains("law and"));
    assert!(starts("comput") > 0 && ends("legislation") > 0 && contains("law and") > 0);
    // `any` finds either word; `all` both.
    let either = total("keyword any \"glaciers volcanoes\"");
    assert_eq!(
        either,
        total("keyword all glaciers") + total("keyword all volcanoes")
            - total("keyword all \"glaciers volcanoes\"")
    );
    assert!(total("personalName = \"\"") <= 5000);
}

#[test]
fn sorting_and_paging() {
    let c = corpus();
    let page = |query: &str, offset: u32, limit: u32| {
        let mut r = AuthoritySearchRequest::new(query);
        r.offset = offset;
        r.limit = limit;
        r.include_number_of_titles = false;
        c.index.search(&r, None).unwrap()
    };
    // The default order is by heading, folded to lower case.
    let first = page("keyword all law", 0, 50);
    let refs: Vec<String> = first
        .authorities
        .iter()
        .map(|a| {
            serde_json::from_str::<Value>(a).unwrap()["headingRef"].as_str().unwrap().to_lowercase()
        })
        .collect();
    let mut sorted = refs.clone();
    sorted.sort();
    assert_eq!(refs, sorted);
    let second = page("keyword all law", 25, 25);
    assert_eq!(first.authorities[25..], second.authorities[..]);
    let descending = page("keyword all law sortBy headingRef/sort.descending", 0, 50);
    let refs: Vec<String> = descending
        .authorities
        .iter()
        .map(|a| {
            serde_json::from_str::<Value>(a).unwrap()["headingRef"].as_str().unwrap().to_lowercase()
        })
        .collect();
    let mut sorted = refs.clone();
    sorted.sort_by(|a, b| b.cmp(a));
    assert_eq!(refs, sorted);
    let by_type = page("cql.allRecords=1 sortBy headingType", 0, 500);
    let types: Vec<String> = by_type
        .authorities
        .iter()
        .map(|a| {
            serde_json::from_str::<Value>(a).unwrap()["headingType"].as_str().unwrap().to_string()
        })
        .collect();
    assert_eq!(types[0], "Corporate Name");
    assert!(types.windows(2).all(|w| w[0] <= w[1]));
    // FOLIO's paging bounds.
    let mut r = AuthoritySearchRequest::new("cql.allRecords=1");
    r.limit = 501;
    assert!(matches!(c.index.search(&r, None), Err(search::Error::InvalidPaging { .. })));
    r.limit = 100;
    r.offset = 9_950;
    assert!(matches!(c.index.search(&r, None), Err(search::Error::InvalidPaging { .. })));
    r.offset = 9_900;
    assert_eq!(
        c.index.search(&r, None).unwrap().authorities.len(),
        (c.records.iter().map(heading_count).sum::<u64>().saturating_sub(9_900)).min(100) as usize
    );
    // FOLIO's errors.
    for (query, check) in [
        ("title all x", "Invalid search field provided in the CQL query"),
        ("keyword within x", "Failed to parse CQL query. Comparator 'within' is not supported."),
        ("keyword all", "Failed to parse CQL query [cql: 'keyword all', resource: authority]"),
        ("keyword all x sortBy title", "Sort field not found or cannot be used: title"),
    ] {
        let e = c.index.search(&AuthoritySearchRequest::new(query), None).unwrap_err();
        assert_eq!(e.to_string(), check);
    }
}

#[test]
fn expand_all_and_facets() {
    let c = corpus();
    let a = c.records.iter().find(|a| !a.sft_topical_term.is_empty()).unwrap();
    let mut r = AuthoritySearchRequest::new(format!("id == {}", a.id.unwrap()));
    r.expand_all = true;
    r.include_number_of_titles = false;
    let page = c.index.search(&r, None).unwrap();
    let docs: Vec<Value> =
        page.authorities.iter().map(|d| serde_json::from_str(d).unwrap()).collect();
    let authorized = docs.iter().find(|d| d["authRefType"] == "Authorized").unwrap();
    assert_eq!(authorized["topicalTerm"], json!(a.topical_term));
    assert_eq!(authorized["naturalId"], json!(a.natural_id));
    assert_eq!(authorized["identifiers"], serde_json::to_value(&a.identifiers).unwrap());
    let tracing = &a.sft_topical_term[0];
    let reference = docs.iter().find(|d| d["headingRef"] == json!(tracing)).unwrap();
    assert_eq!(reference["sftTopicalTerm"], json!([tracing]));
    assert!(reference.get("topicalTerm").is_none());

    let facets = c
        .index
        .facets(
            "cql.allRecords=1",
            &[
                FacetRequest::parse_authority("headingType").unwrap(),
                FacetRequest::parse_authority("sourceFileId:1").unwrap(),
            ],
        )
        .unwrap();
    let mut by_type: HashMap<&str, u64> = HashMap::new();
    for a in &c.records {
        for kind in HeadingKind::ALL {
            let (authorized, sft, saft) = a.headings(kind);
            *by_type.entry(kind.heading_type()).or_default() +=
                (usize::from(authorized.is_some()) + sft.len() + saft.len()) as u64;
        }
    }
    by_type.retain(|_, n| *n > 0);
    let got: HashMap<&str, u64> =
        facets.facets[0].values.iter().map(|v| (v.id.as_str(), v.total_records)).collect();
    assert_eq!(got, by_type);
    assert_eq!(facets.facets[1].values[0].id, "NULL");
    assert!(FacetRequest::parse_authority("languages").is_err());
    let json: Value = serde_json::from_str(&facets.to_json()).unwrap();
    // Every generated heading has no source file; the outer count is the facets'.
    assert_eq!(
        json["facets"]["sourceFileId"]["values"][0]["totalRecords"],
        json!(by_type.values().sum::<u64>())
    );
    assert_eq!(json["totalRecords"], 2);
}

fn create_authority(tenant: &store::Tenant, body: Value) -> Uuid {
    tenant
        .write(|w| inventory::create::<Authority>(w, body.to_string().as_bytes(), Actor::default()))
        .unwrap()
        .id
        .unwrap()
}

fn create_linked_instance(tenant: &store::Tenant, title: &str, authority: Uuid) -> Uuid {
    let body = json!({"source": "FOLIO", "title": title, "instanceTypeId": INSTANCE_TYPE,
        "subjects": [{"value": "Twain, Mark", "authorityId": authority}]});
    tenant
        .write(|w| inventory::create::<Instance>(w, body.to_string().as_bytes(), Actor::default()))
        .unwrap()
        .id
        .unwrap()
}

#[test]
fn number_of_titles_follows_linked_instances() {
    let f = fixture();
    let twain = create_authority(
        &f.tenant,
        json!({"source": "MARC", "naturalId": "n79021164", "personalName": "Twain, Mark, 1835-1910",
            "sftPersonalName": ["Clemens, Samuel Langhorne, 1835-1910"]}),
    );
    let index = Arc::new(AuthorityIndex::open(&f.tenant).unwrap());
    let instances = Arc::new(InstanceIndex::open(&f.tenant).unwrap());
    let _followers = (
        Follower::spawn(f.tenant.clone(), index.clone()),
        Follower::spawn(f.tenant.clone(), instances.clone()),
    );
    create_linked_instance(&f.tenant, "Adventures of Huckleberry Finn", twain);
    create_linked_instance(&f.tenant, "The prince and the pauper", twain);
    followed(&f.tenant, index.as_ref());
    followed(&f.tenant, instances.as_ref());
    let page =
        index.search(&AuthoritySearchRequest::new("keyword all twain"), Some(&instances)).unwrap();
    let twain: Value = serde_json::from_str(&page.authorities[0]).unwrap();
    assert_eq!(twain["numberOfTitles"], 2, "{twain}");
    // Only Authorized headings carry the count.
    let page = index
        .search(&AuthoritySearchRequest::new("keyword all clemens"), Some(&instances))
        .unwrap();
    let reference: Value = serde_json::from_str(&page.authorities[0]).unwrap();
    assert_eq!(reference["authRefType"], "Reference");
    assert!(reference.get("numberOfTitles").is_none());
    let mut without = AuthoritySearchRequest::new("keyword all twain");
    without.include_number_of_titles = false;
    let page = index.search(&without, Some(&instances)).unwrap();
    assert!(!page.authorities[0].contains("numberOfTitles"));
}

#[test]
fn follows_writes_replays_after_restart_and_rebuilds_a_lost_index() {
    let f = fixture();
    let index = Arc::new(AuthorityIndex::open(&f.tenant).unwrap());
    let follower = Follower::spawn(f.tenant.clone(), index.clone());
    let id = create_authority(
        &f.tenant,
        json!({"source": "MARC", "naturalId": "sh1", "topicalTerm": "Glaciology"}),
    );
    followed(&f.tenant, index.as_ref());
    assert_eq!(
        index
            .search(&AuthoritySearchRequest::new("keyword all glaciology"), None)
            .unwrap()
            .total_records,
        1
    );
    // An update replaces every heading document of the record.
    let body = json!({"id": id, "source": "MARC", "naturalId": "sh1", "topicalTerm": "Glaciers",
        "sftTopicalTerm": ["Ice sheets", "Ice caps"]});
    f.tenant
        .write(|w| {
            inventory::replace::<Authority>(w, id, body.to_string().as_bytes(), Actor::default())
        })
        .unwrap();
    followed(&f.tenant, index.as_ref());
    assert_eq!(
        index
            .search(&AuthoritySearchRequest::new(format!("id == {id}")), None)
            .unwrap()
            .total_records,
        3
    );
    assert_eq!(
        index
            .search(&AuthoritySearchRequest::new("keyword all glaciology"), None)
            .unwrap()
            .total_records,
        0
    );
    follower.stop();
    drop(index);

    // Writes while nothing follows are replayed at the next open.
    f.tenant.write(|w| inventory::delete::<Authority>(w, id)).unwrap();
    create_authority(
        &f.tenant,
        json!({"source": "MARC", "naturalId": "sh2", "geographicName": "Antarctica"}),
    );
    let index = AuthorityIndex::open(&f.tenant).unwrap();
    index.catch_up(&f.tenant).unwrap();
    assert_eq!(
        index
            .search(&AuthoritySearchRequest::new(format!("id == {id}")), None)
            .unwrap()
            .total_records,
        0
    );
    assert_eq!(
        index
            .search(&AuthoritySearchRequest::new("geographicName all antarctica"), None)
            .unwrap()
            .total_records,
        1
    );
    assert_eq!(index.applied_seq(), f.tenant.last_seq().unwrap());
    drop(index);

    // A lost or corrupt index is rebuilt from the store on open.
    let root = f.tenant.dir().join("search").join("authorities");
    std::fs::write(root.join("CURRENT"), "garbage").unwrap();
    let index = AuthorityIndex::open(&f.tenant).unwrap();
    assert_eq!(
        index
            .search(&AuthoritySearchRequest::new("keyword all antarctica"), None)
            .unwrap()
            .total_records,
        1
    );
}

#[test]
fn reindex_while_writes_continue() {
    let f = fixture();
    let records: Vec<Authority> = lc_authorities().into_iter().take(2000).collect();
    let expected: u64 = records.iter().map(heading_count).sum();
    f.tenant.write(|w| inventory::save_batch(w, records, false, Actor::default())).unwrap();
    let index = Arc::new(AuthorityIndex::open(&f.tenant).unwrap());
    let _follower = Follower::spawn(f.tenant.clone(), index.clone());
    let stop = Arc::new(AtomicBool::new(false));
    let written = Arc::new(AtomicU64::new(0));
    let writer = {
        let (tenant, stop, written) = (f.tenant.clone(), stop.clone(), written.clone());
        std::thread::spawn(move || {
            while !stop.load(Ordering::SeqCst) {
                let n = written.load(Ordering::SeqCst);
                create_authority(
                    &tenant,
                    json!({"source": "MARC", "naturalId": format!("q{n}"), "topicalTerm": format!("Quireword {n}")}),
                );
                written.fetch_add(1, Ordering::SeqCst);
                std::thread::sleep(Duration::from_millis(5));
            }
        })
    };
    let searcher = {
        let (index, stop) = (index.clone(), stop.clone());
        std::thread::spawn(move || {
            let mut searches = 0;
            while !stop.load(Ordering::SeqCst) {
                let page =
                    index.search(&AuthoritySearchRequest::new("cql.allRecords=1"), None).unwrap();
                assert!(page.total_records >= expected, "a search saw a partial index");
                searches += 1;
            }
            searches
        })
    };
    // Writes before the reindex, during it and after its swap: the reindex starts once
    // some have landed, and the writer stops once some more have landed after it.
    let wrote = |at_least: u64| {
        while written.load(Ordering::SeqCst) < at_least {
            std::thread::sleep(POLL);
        }
    };
    wrote(10);
    let stats = index.reindex(&f.tenant, |_| {}).unwrap();
    // The snapshot holds the 2,000 records and the writes made before it was taken.
    assert!(stats.instances >= 2000, "{stats:?}");
    wrote(written.load(Ordering::SeqCst) + 10);
    stop.store(true, Ordering::SeqCst);
    writer.join().unwrap();
    assert!(searcher.join().unwrap() > 0);
    let n = written.load(Ordering::SeqCst);
    assert!(n > 0);
    followed(&f.tenant, index.as_ref());
    assert_eq!(
        index
            .search(&AuthoritySearchRequest::new("keyword all quireword"), None)
            .unwrap()
            .total_records,
        n
    );
    assert_eq!(
        index.search(&AuthoritySearchRequest::new("cql.allRecords=1"), None).unwrap().total_records,
        expected + n
    );
    assert_eq!(index.status().generation, stats.generation);
}
