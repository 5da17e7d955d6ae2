//! `GET/PUT /hrid-settings-storage/hrid-settings`: the tenant's HRID prefixes and start
//! numbers (mod-inventory-storage), which every new instance, holdings record and item
//! is numbered by.

use axum::{Router, http::StatusCode, response::Response, routing::get};

use crate::{
    ApiError, AppState,
    extract::{Body, Caller, blocking},
};

pub(super) fn router() -> Router<AppState> {
    Router::new().route("/hrid-settings-storage/hrid-settings", get(get_settings).put(put_settings))
}

async fn get_settings(caller: Caller) -> Result<Response, ApiError> {
    caller.require("inventory-storage.hrid-settings.item.get")?;
    let tenant = caller.tenant.clone();
    let settings = blocking(move || Ok(tenant.read(inventory::hrid_settings)?)).await?;
    Ok(super::json::value(StatusCode::OK, &settings))
}

async fn put_settings(caller: Caller, Body(body): Body) -> Result<Response, ApiError> {
    caller.require("inventory-storage.hrid-settings.item.put")?;
    let settings: inventory::HridSettings = folio::decode(&body)?;
    let tenant = caller.tenant.clone();
    let actor = super::records::actor(&caller);
    blocking(move || Ok(tenant.write(|w| inventory::replace_hrid_settings(w, settings, actor))?))
        .await?;
    Ok(super::no_content())
}
