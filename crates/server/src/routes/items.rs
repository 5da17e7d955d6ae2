//! Item storage.
//!
//! - `GET|POST /item-storage/items`
//! - `GET|PUT|DELETE /item-storage/items/{id}`
//! - `POST /item-storage/batch/synchronous[?upsert=true]`

use super::records::Spec;

static SPEC: Spec = Spec {
    path: "/item-storage/items",
    item_path: "/item-storage/items/{id}",
    batch_path: "/item-storage/batch/synchronous",
    collection_key: "items",
    permissions: "inventory-storage.items",
};

pub(super) fn router() -> axum::Router<crate::AppState> {
    super::records::router::<inventory::Item>(&SPEC)
}
