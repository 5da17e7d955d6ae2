//! Operations: health and metrics.
//!
//! - `GET /admin/health`
//! - `GET /admin/metrics` (Prometheus text format)

use axum::{
    Router,
    extract::State,
    http::{HeaderValue, header},
    response::{IntoResponse, Response},
    routing::get,
};

use crate::AppState;

pub(super) fn router() -> Router<AppState> {
    Router::new().route("/admin/health", get(health)).route("/admin/metrics", get(metrics))
}

async fn health(State(state): State<AppState>) -> Response {
    super::json::value(
        axum::http::StatusCode::OK,
        &serde_json::json!({ "status": "UP", "tenants": state.store().tenant_names().len() }),
    )
}

async fn metrics(State(state): State<AppState>) -> Response {
    let mut response = state.metrics.render().into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"),
    );
    response
}
