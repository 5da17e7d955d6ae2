//! Operations: health, metrics and event replays.
//!
//! - `GET /admin/health`
//! - `GET /admin/metrics` (Prometheus text format)
//! - `POST /admin/events/replay?tenant=T&from=SEQ` (guarded as the tenant API is)

use axum::{
    Router,
    extract::State,
    http::{HeaderValue, header},
    response::{IntoResponse, Response},
    routing::{get, post},
};

use serde_json::json;

use crate::{AppState, error::ApiError};

pub(super) fn router() -> Router<AppState> {
    Router::new()
        .route("/admin/health", get(health))
        .route("/admin/metrics", get(metrics))
        .route("/admin/events/replay", post(replay))
}

/// This node's health: `UP` with what it knows of each tenant (the head of the change
/// log; its search indexes' lag behind it, whether one is being rebuilt or worn enough
/// to be once writes pause; the harvest index's lag; the jobs it holds), or 503 `DOWN`
/// when the store cannot be reached. A load balancer routes to the nodes that answer `UP`.
async fn health(State(state): State<AppState>) -> Result<Response, ApiError> {
    let events = match events_status(&state).await? {
        None => json!({ "enabled": false }),
        Some(status) => json!({ "enabled": true, "tenants": status }),
    };
    let runtime = state.runtime.clone();
    let store = state.store();
    let backend = match store.is_shared() {
        true => "postgresql",
        false => "sqlite",
    };
    let node = store.node().to_string();
    let report =
        tokio::task::spawn_blocking(move || runtime.health()).await.map_err(ApiError::internal)?;
    let (status, body) = match report {
        Ok(tenants) => {
            let tenants: serde_json::Map<String, serde_json::Value> = tenants
                .into_iter()
                .map(|t| {
                    let indexes = t.search.map(|s| {
                        json!({
                            "instancesApplied": s.instances_applied,
                            "authoritiesApplied": s.authorities_applied,
                            "lag": (t.head - s.instances_applied.min(s.authorities_applied)).max(0),
                            "reindexing": s.reindexing,
                            "worn": s.worn,
                        })
                    });
                    let harvest = t.harvest_applied.map(
                        |applied| json!({"applied": applied, "lag": (t.head - applied).max(0)}),
                    );
                    let body = json!({
                        "head": t.head,
                        "indexes": indexes,
                        "harvest": harvest,
                        "jobs": t.jobs,
                    });
                    (t.name, body)
                })
                .collect();
            let body = json!({
                "status": "UP",
                "node": node,
                "store": {"backend": backend, "reachable": true},
                "tenants": tenants.len(),
                "replicas": tenants,
                "events": events,
            });
            (axum::http::StatusCode::OK, body)
        }
        Err(e) => {
            let body = json!({
                "status": "DOWN",
                "node": node,
                "store": {"backend": backend, "reachable": false, "error": e.to_string()},
                "events": events,
            });
            (axum::http::StatusCode::SERVICE_UNAVAILABLE, body)
        }
    };
    Ok(super::json::value(status, &body))
}

async fn metrics(State(state): State<AppState>) -> Result<Response, ApiError> {
    let mut text = state.metrics.render();
    if let Some(status) = events_status(&state).await? {
        crate::metrics::render_events(&mut text, &status);
    }
    let mut response = text.into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"),
    );
    Ok(response)
}

/// The publisher's status per tenant, when the server publishes: read from each
/// tenant's store, so on a blocking thread.
async fn events_status(
    state: &AppState,
) -> Result<Option<std::collections::BTreeMap<String, events::TenantStatus>>, ApiError> {
    let Some(publisher) = state.events.clone() else { return Ok(None) };
    Ok(Some(crate::extract::blocking(move || Ok(publisher.status())).await?))
}

#[derive(serde::Deserialize)]
struct ReplayParams {
    tenant: String,
    from: i64,
}

/// Sends a tenant's events again from a sequence number, for a consumer that lost its
/// state: the publisher rewinds and goes on from there.
async fn replay(
    State(state): State<AppState>,
    headers: axum::http::HeaderMap,
    axum::extract::Query(params): axum::extract::Query<ReplayParams>,
) -> Result<Response, ApiError> {
    super::tenant::authorize_tenant_api(&state, &headers)?;
    if state.events.is_none() {
        return Err(ApiError::bad_request(
            "Events are not published: start the server with --kafka",
        ));
    }
    let tenant = state
        .store()
        .tenant(&params.tenant)
        .map_err(|_| ApiError::bad_request(format!("No tenant {}", params.tenant)))?;
    let replay = crate::extract::blocking(move || {
        events::replay(&tenant, params.from).map_err(|e| match e {
            events::ReplayError::Store(e) => ApiError::from(e),
            other => {
                ApiError::validation("from", Some(&params.from.to_string()), other.to_string())
            }
        })
    })
    .await?;
    Ok(super::json::value(
        axum::http::StatusCode::ACCEPTED,
        &serde_json::to_value(replay).unwrap_or_default(),
    ))
}
