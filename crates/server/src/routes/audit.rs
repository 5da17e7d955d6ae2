//! mod-audit's inventory history, read from the change log (`events::audit`).
//!
//! - `GET /audit-data/inventory/instance/{entityId}` (`eventTs`: changes before it)
//! - `GET /audit-data/inventory/holdings/{entityId}` (`eventTs`)
//!
//! Items have no history here: the change log indexes only the record types a desk does
//! not write, so check-outs do not pay for it.

use axum::{Router, extract::Path, http::StatusCode, response::Response, routing::get};
use events::audit::Audited;

use crate::{
    ApiError, AppState,
    extract::{Caller, ListParams, blocking},
};

pub(super) fn router() -> Router<AppState> {
    Router::new()
        .route("/audit-data/inventory/instance/{id}", get(instance_history))
        .route("/audit-data/inventory/holdings/{id}", get(holdings_history))
}

async fn instance_history(
    caller: Caller,
    Path(id): Path<String>,
    params: ListParams,
) -> Result<Response, ApiError> {
    caller.require("audit.inventory.instance.collection.get")?;
    history(caller, Audited::Instance, &id, &params).await
}

async fn holdings_history(
    caller: Caller,
    Path(id): Path<String>,
    params: ListParams,
) -> Result<Response, ApiError> {
    caller.require("audit.inventory.holdings.collection.get")?;
    history(caller, Audited::Holdings, &id, &params).await
}

/// One page of the record's changes before `eventTs`, newest first. A record that was
/// never written has an empty history, as in mod-audit, not a 404.
async fn history(
    caller: Caller,
    audited: Audited,
    id: &str,
    params: &ListParams,
) -> Result<Response, ApiError> {
    let id = super::authn::parse_uuid(id)?;
    let before = params.get::<i64>("eventTs")?;
    let tenant = caller.tenant.clone();
    let history = blocking(move || {
        let name = tenant.name().to_string();
        Ok(tenant.read(|r| {
            events::audit::history(r, &name, audited, id, before, events::audit::PAGE_SIZE)
        })?)
    })
    .await?;
    Ok(super::json::value(StatusCode::OK, &history))
}
