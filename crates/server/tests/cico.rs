//! `quire load cico` against a real server on a generated data set: every request of
//! FOLIO's check-in/check-out workflow answers, and the loans the server holds at the
//! end are exactly the ones the run's check-outs and check-ins leave.

use std::{sync::Arc, time::Duration};

fn count(tenant: &store::Tenant, query: &str) -> u64 {
    tenant
        .read(|r| {
            circ::list_json::<circ::model::Loan>(
                r,
                Some(query),
                store::Page { offset: 0, limit: 0 },
            )
        })
        .unwrap()
        .1
}

fn checked_out_items(tenant: &store::Tenant) -> u64 {
    tenant
        .read(|r| {
            inventory::list_json::<inventory::Item>(
                r,
                Some(r#"status.name=="Checked out""#),
                store::Page { offset: 0, limit: 0 },
            )
        })
        .unwrap()
        .1
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cico_scenario_runs_folio_workflow_and_keeps_loans_consistent() {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(
        store::Store::open(dir.path(), store::testing::options(), &runtime::components()).unwrap(),
    );
    let admin = runtime::AdminUser { username: "admin".into(), password: "pw".into() };
    runtime::provision_tenant(&store, "cico", Some(&admin), runtime::ExistingUsers::MayAdd)
        .unwrap();
    let tenant = store.tenant("cico").unwrap();
    let options = generate::GenerateOptions { instances: 800, seed: 3, ..Default::default() };
    let generated = generate::generate(&tenant, &options, &mut |_| {}).unwrap();
    let loans_before = count(&tenant, r#"status.name=="Open""#);
    assert_eq!(loans_before as usize, generated.circulation.open_loans);
    assert_eq!(checked_out_items(&tenant), loans_before, "a loan for every item Checked out");

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let state = server::AppState::new(
        std::sync::Arc::new(runtime::Runtime::new(store.clone())),
        auth::TokenKey::generate(),
        server::Config::default(),
    );
    tokio::spawn(server::serve(state, listener));

    let run = load::LoadOptions {
        url,
        tenant: "cico".into(),
        username: "admin".into(),
        password: "pw".into(),
        users: 3,
        duration: Duration::from_secs(3),
        ramp_up: Duration::ZERO,
        rate: None,
        think_time: Duration::ZERO,
    };
    let (m, setup) = load::run_cico(&run, &load::CicoOptions::default()).await.unwrap();
    assert!(setup.missing_endpoints.is_empty(), "{:?}", setup.missing_endpoints);
    assert_eq!(setup.open_loans as u64, loans_before);
    assert!(setup.patrons > 0 && setup.available_items > 0);

    let stats = |name: &str| {
        let s = m.by_request.get(name).unwrap_or_else(|| panic!("no row {name}"));
        (s.histogram.len(), s.errors, s.first_error.clone())
    };
    let (outs, out_errors, first) = stats(load::CHECK_OUT_POST);
    assert_eq!(out_errors, 0, "{first:?}");
    let (ins, in_errors, first) = stats(load::CHECK_IN_POST);
    assert_eq!(in_errors, 0, "{first:?}");
    assert!(outs > 0 && ins > 0, "both transactions ran: {outs} out, {ins} in");
    for (name, stats) in &m.by_request {
        assert_eq!(stats.errors, 0, "{name}: {:?}", stats.first_error);
    }
    // One transaction row per POST, and each controller sent its page's GETs.
    assert_eq!(stats(load::CHECK_OUT_TRANSACTION).0, outs);
    assert_eq!(stats(load::CHECK_IN_TRANSACTION).0, ins);
    assert_eq!(stats("Check-out: GET users (patron scan)").0, outs);
    assert_eq!(stats("Check-out: GET proxiesfor").0, 3 * outs);
    assert_eq!(stats("Check-in: GET staff-slips").0, ins);
    assert_eq!(stats("Check-in: GET configurations/entries").0, ins);
    // Each check-in took an item from the loaned pool and closed its loan.
    assert_eq!(count(&tenant, r#"status.name=="Open""#), loans_before + outs - ins);
    assert_eq!(count(&tenant, r#"status.name=="Closed""#), ins);
    assert_eq!(checked_out_items(&tenant), loans_before + outs - ins);
    assert!(!m.memory.is_empty(), "the server publishes its resident memory");
    let report = load::Report::new("cico", &run, &m);
    assert!(report.text().contains("FOLIO p95 425 ms"), "{}", report.text());
}
