//! Holdings storage.
//!
//! - `GET|POST /holdings-storage/holdings`
//! - `GET|PUT|DELETE /holdings-storage/holdings/{id}`
//! - `POST /holdings-storage/batch/synchronous[?upsert=true]`

use super::records::Spec;

static SPEC: Spec = Spec {
    path: "/holdings-storage/holdings",
    item_path: "/holdings-storage/holdings/{id}",
    batch_path: "/holdings-storage/batch/synchronous",
    collection_key: "holdingsRecords",
    permissions: "inventory-storage.holdings",
};

pub(super) fn router() -> axum::Router<crate::AppState> {
    super::records::router::<inventory::HoldingsRecord>(&SPEC)
}
