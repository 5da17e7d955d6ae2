//! Authority storage (FOLIO mod-entities-links) and authority search (mod-search).
//!
//! - `GET|POST /authority-storage/authorities`
//! - `GET|PUT|DELETE /authority-storage/authorities/{id}`
//! - `GET /search/authorities` (`query`, `limit`, `offset`, `expandAll`,
//!   `includeNumberOfTitles`)
//! - `GET /search/authorities/facets` (`query`, `facet`, repeatable or comma-separated)

use axum::{Router, extract::State, http::StatusCode, response::Response, routing::get};

use super::records::Spec;
use crate::{
    ApiError, AppState,
    extract::{Caller, ListParams, searching},
};

static SPEC: Spec = Spec {
    path: "/authority-storage/authorities",
    item_path: "/authority-storage/authorities/{id}",
    batch_path: "",
    collection_key: "authorities",
    permissions: "inventory-storage.authorities",
};

pub(super) fn router() -> Router<AppState> {
    super::records::single_records::<super::records::Inventory<inventory::Authority>>(&SPEC)
        .route("/search/authorities", get(search_authorities))
        .route("/search/authorities/facets", get(authority_facets))
}

async fn search_authorities(
    State(state): State<AppState>,
    caller: Caller,
    params: ListParams,
) -> Result<Response, ApiError> {
    caller.require("search.authorities.collection.get")?;
    let query = super::search::required_query(&params)?;
    let mut request = search::AuthoritySearchRequest::new(query);
    if params.explicit_limit {
        request.limit = u32::try_from(params.page.limit).unwrap_or(u32::MAX);
    }
    request.offset = u32::try_from(params.page.offset).unwrap_or(u32::MAX);
    request.expand_all = params.flag("expandAll");
    // FOLIO counts titles unless told not to.
    request.include_number_of_titles =
        !params.all("includeNumberOfTitles").any(|v| v.eq_ignore_ascii_case("false"));
    let tenant = caller.tenant.clone();
    let body = searching(move || {
        let authorities = state.runtime.authorities(&tenant)?;
        let instances = state.runtime.instances(&tenant)?;
        Ok(authorities.search(&request, Some(&instances))?.to_json())
    })
    .await?;
    Ok(super::json::raw(StatusCode::OK, body))
}

async fn authority_facets(
    State(state): State<AppState>,
    caller: Caller,
    params: ListParams,
) -> Result<Response, ApiError> {
    caller.require("search.facets.collection.get")?;
    let query = super::search::required_query(&params)?;
    let mut facets = Vec::new();
    for value in params.all("facet") {
        for spec in value.split(',').filter(|s| !s.trim().is_empty()) {
            facets.push(search::FacetRequest::parse_authority(spec.trim())?);
        }
    }
    if facets.is_empty() {
        return Err(ApiError::bad_parameter("facet", "", "Parameter 'facet' is required"));
    }
    let tenant = caller.tenant.clone();
    let body = searching(move || {
        let index = state.runtime.authorities(&tenant)?;
        Ok(index.facets(&query, &facets)?.to_json())
    })
    .await?;
    Ok(super::json::raw(StatusCode::OK, body))
}
