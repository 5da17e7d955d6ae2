//! What the index tests share: a tenant with FOLIO's reference data, and instances.

use std::sync::Arc;

use folio::Actor;
use inventory::Instance;
use search::InstanceIndex;
use serde_json::json;
use uuid::Uuid;

pub(crate) const INSTANCE_TYPE: &str = "6312d172-f0cf-40f6-b27d-9fa8feaf332f";

pub(crate) struct Fixture {
    /// Kept so the directory lives as long as the fixture; not every binary reads it.
    #[allow(dead_code)]
    pub(crate) dir: tempfile::TempDir,
    pub(crate) tenant: Arc<store::Tenant>,
}

pub(crate) fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let store = store::Store::open(dir.path(), store::Options::default(), &[inventory::MIGRATIONS])
        .unwrap();
    let (tenant, _) = store.create_tenant("diku").unwrap();
    tenant.write(inventory::load_reference_data).unwrap();
    Fixture { dir, tenant }
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

pub(crate) fn count(index: &InstanceIndex, query: &str) -> u64 {
    index.count(query).unwrap()
}
