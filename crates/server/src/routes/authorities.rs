//! Authority storage (FOLIO mod-entities-links).
//!
//! - `GET|POST /authority-storage/authorities`
//! - `GET|PUT|DELETE /authority-storage/authorities/{id}`

use super::records::Spec;

static SPEC: Spec = Spec {
    path: "/authority-storage/authorities",
    item_path: "/authority-storage/authorities/{id}",
    batch_path: "",
    collection_key: "authorities",
    permissions: "inventory-storage.authorities",
};

pub(super) fn router() -> axum::Router<crate::AppState> {
    super::records::single_records::<inventory::Authority>(&SPEC)
}
