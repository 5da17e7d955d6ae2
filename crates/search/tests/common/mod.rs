//! What the index tests share: a tenant with FOLIO's reference data, instances, and a
//! wait for a follower. Each test binary uses a part of it.
#![allow(dead_code)]

use std::sync::Arc;

use folio::Actor;
use inventory::Instance;
use search::InstanceIndex;
use serde_json::json;
use uuid::Uuid;

pub(crate) const INSTANCE_TYPE: &str = "6312d172-f0cf-40f6-b27d-9fa8feaf332f";

pub(crate) struct Fixture {
    /// Kept so the directory lives as long as the fixture; not every binary reads it.
    pub(crate) dir: tempfile::TempDir,
    pub(crate) tenant: Arc<store::Tenant>,
    /// What the store was opened with, to open it again as another process would.
    pub(crate) options: store::Options,
}

pub(crate) fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let options = store::testing::options();
    let store = store::Store::open(dir.path(), options.clone(), &[inventory::MIGRATIONS]).unwrap();
    let (tenant, _) = store.create_tenant("diku").unwrap();
    tenant.write(inventory::load_reference_data).unwrap();
    Fixture { dir, tenant, options }
}

pub(crate) fn create_instance(tenant: &store::Tenant, hrid: &str, title: &str) -> Uuid {
    let body =
        json!({"hrid": hrid, "source": "FOLIO", "title": title, "instanceTypeId": INSTANCE_TYPE});
    tenant
        .write(|w| inventory::create::<Instance>(w, body.to_string().as_bytes(), Actor::default()))
        .unwrap()
        .id
        .unwrap()
}

/// Creates `n` instances in one write, hrids `{hrid}{i}` and titles `{title} {i}`;
/// returns their ids.
pub(crate) fn create_instances(
    tenant: &store::Tenant,
    hrid: &str,
    title: &str,
    n: usize,
) -> Vec<Uuid> {
    tenant
        .write(|w| {
            (0..n)
                .map(|i| {
                    let body = json!({"hrid": format!("{hrid}{i}"), "source": "FOLIO",
                        "title": format!("{title} {i}"), "instanceTypeId": INSTANCE_TYPE});
                    let created = inventory::create::<Instance>(
                        w,
                        body.to_string().as_bytes(),
                        Actor::default(),
                    )?;
                    Ok(created.id.unwrap())
                })
                .collect::<Result<Vec<_>, inventory::Error>>()
        })
        .unwrap()
}

pub(crate) fn count(index: &InstanceIndex, query: &str) -> u64 {
    index.count(query).unwrap()
}

/// The pause between two looks at an index's sequence number or a writer's progress.
/// It paces a loop and bounds nothing: the loop ends on what it watches, and CI's time
/// limit reports a test that hangs.
pub(crate) const POLL: std::time::Duration = std::time::Duration::from_millis(5);

/// Waits until the follower of `index` has applied every change committed so far, then
/// makes sure its searcher shows them: `catch_up` takes the index's apply lock, so it
/// returns only once the follower's last batch is committed and its searcher reloaded,
/// and that it applies nothing itself shows the follower did the work. How long
/// following takes is measured by `cargo bench -p quire-search --bench follower`.
pub(crate) fn followed(tenant: &store::Tenant, index: &dyn search::FollowedIndex) {
    let seq = tenant.last_seq().unwrap();
    while index.applied_seq() < seq {
        std::thread::sleep(POLL);
    }
    assert_eq!(index.catch_up(tenant).unwrap(), 0, "the follower applied every change");
}
