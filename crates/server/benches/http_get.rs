//! GET an instance by id through HTTP: a real server on loopback, one keep-alive client,
//! 10,000 instances stored, random ids.
//!
//! `cargo bench -p quire-server --bench http_get`

use std::{sync::Arc, time::Duration};

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;

fn http_get(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(
        store::Store::open(dir.path(), store::Options::default(), &runtime::components()).unwrap(),
    );
    let admin = runtime::AdminUser { username: "admin".into(), password: "pw".into() };
    runtime::provision_tenant(&store, "bench", Some(&admin), runtime::ExistingUsers::MayAdd)
        .unwrap();
    let tenant = store.tenant("bench").unwrap();
    let instance_type = tenant
        .read(|r| inventory::reference_id_by_name(r, inventory::RefKind::InstanceType, "text"))
        .unwrap()
        .unwrap();
    const N: u128 = 10_000;
    let instances: Vec<inventory::Instance> = (1..=N)
        .map(|n| {
            serde_json::from_value(json!({
                "id": uuid::Uuid::from_u128(n), "source": "FOLIO", "title": format!("Instance {n}"),
                "instanceTypeId": instance_type, "languages": ["eng"],
                "contributors": [{"name": "Author, A.", "contributorNameTypeId": "2b94c631-fca9-4892-a730-03ee529ffe2a"}]
            }))
            .unwrap()
        })
        .collect();
    tenant.write(|w| inventory::save_batch(w, instances, false, folio::Actor::default())).unwrap();

    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let tenants = std::sync::Arc::new(runtime::Runtime::new(store));
    let state =
        server::AppState::new(tenants, auth::TokenKey::generate(), server::Config::default());
    runtime.spawn(server::serve(state, listener));

    let agent = ureq::AgentBuilder::new().timeout(Duration::from_secs(5)).build();
    let login = agent
        .post(&format!("{url}/authn/login"))
        .set("x-okapi-tenant", "bench")
        .send_json(json!({"username": "admin", "password": "pw"}))
        .unwrap();
    let token = login.header("x-okapi-token").unwrap().to_string();
    let mut n = 0u128;
    c.bench_function("http_get_instance_by_id", |b| {
        b.iter(|| {
            n = (n * 7919 + 13) % N + 1;
            let r = agent
                .get(&format!("{url}/instance-storage/instances/{}", uuid::Uuid::from_u128(n)))
                .set("x-okapi-tenant", "bench")
                .set("x-okapi-token", &token)
                .call()
                .unwrap();
            assert_eq!(r.status(), 200);
            r.into_string().unwrap()
        })
    });
}

criterion_group!(benches, http_get);
criterion_main!(benches);
