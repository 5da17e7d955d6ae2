//! Instance storage.
//!
//! - `GET|POST /instance-storage/instances`
//! - `GET|PUT|DELETE /instance-storage/instances/{id}`
//! - `POST /instance-storage/batch/synchronous[?upsert=true]`

use super::records::Spec;

static SPEC: Spec = Spec {
    path: "/instance-storage/instances",
    item_path: "/instance-storage/instances/{id}",
    batch_path: "/instance-storage/batch/synchronous",
    collection_key: "instances",
    permissions: "inventory-storage.instances",
};

pub(super) fn router() -> axum::Router<crate::AppState> {
    super::records::router::<inventory::Instance>(&SPEC)
}
