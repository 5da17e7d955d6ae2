//! All routes, and the middleware around them.

use std::time::Instant;

use axum::{
    Router,
    extract::{MatchedPath, Request, State},
    http::{HeaderValue, StatusCode},
    middleware::{self, Next},
    response::{IntoResponse, Response},
};
use tower_http::catch_panic::CatchPanicLayer;
use tracing::Instrument;

use crate::{ApiError, AppState};

/// The `Spec` of a record type served by the generic storage endpoints, without a batch
/// API: `spec!(NAME, "/path", "collectionKey", "permission.prefix")`.
macro_rules! spec {
    ($name:ident, $path:literal, $key:literal, $perm:literal) => {
        static $name: Spec = Spec {
            path: $path,
            item_path: concat!($path, "/{id}"),
            batch_path: "",
            collection_key: $key,
            permissions: $perm,
        };
    };
}

mod admin;
mod audit;
mod authn;
mod authorities;
mod bl_users;
mod bulk_operations;
mod calendar;
mod circulation;
mod custom_fields;
mod data_import;
mod directory;
mod groups;
mod holdings;
mod hrid;
mod instances;
mod inventory_views;
mod items;
mod json;
mod mapping_rules;
mod oai;
mod profiles;
mod proxies;
mod records;
mod reference;
mod search;
mod settings;
mod source_files;
mod srs;
mod tenant;
mod users;

pub(crate) fn router(state: AppState) -> Router {
    let max_body = state.config.max_body_bytes;
    let limited = Router::new()
        .merge(admin::router())
        .merge(tenant::router())
        .merge(authn::router())
        .merge(bl_users::router())
        .merge(users::router())
        .merge(directory::router())
        .merge(custom_fields::router())
        .merge(groups::router())
        .merge(proxies::router())
        .merge(instances::router())
        .merge(holdings::router())
        .merge(hrid::router())
        .merge(items::router())
        .merge(inventory_views::router())
        .merge(reference::router())
        .merge(search::router())
        .merge(srs::router())
        .merge(audit::router())
        .merge(mapping_rules::router())
        .merge(profiles::router())
        .merge(authorities::router())
        .merge(source_files::router())
        .merge(circulation::router())
        .merge(settings::router())
        .merge(calendar::router())
        .merge(data_import::router())
        .merge(bulk_operations::router())
        .merge(oai::router())
        .layer(axum::extract::DefaultBodyLimit::max(max_body))
        .layer(middleware::from_fn_with_state(state.clone(), refuse_declared_oversize));
    Router::new()
        .merge(limited)
        // A file to import may be of any size: it is streamed to disk, not held.
        .merge(data_import::upload_router())
        // The staff web page, which logs in through the API like any other client.
        .merge(web::router())
        .fallback(|| async { ApiError::not_found("No such endpoint") })
        .method_not_allowed_fallback(|| async { ApiError::method_not_allowed() })
        .layer(middleware::from_fn_with_state(state.clone(), observe))
        .layer(CatchPanicLayer::custom(|_panic: Box<dyn std::any::Any + Send>| {
            ApiError::internal("handler panicked").into_response()
        }))
        .with_state(state)
}

/// Answers 413 at once to a request whose declared `Content-Length` is over the limit,
/// before any of the body is read: the body extractor alone would wait for the body to
/// arrive, holding a connection for as long as a client takes to send a gigabyte.
async fn refuse_declared_oversize(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    let limit = state.config.max_body_bytes;
    let declared = request
        .headers()
        .get(axum::http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    if declared.is_some_and(|length| length > limit as u64) {
        return ApiError::payload_too_large(limit).into_response();
    }
    next.run(request).await
}

const REQUEST_ID_HEADER: &str = "x-okapi-request-id";

/// One span per request (tenant, method, route, request id), latency metrics, and the
/// request id echoed back.
async fn observe(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let started = Instant::now();
    let method = request.method().to_string();
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map_or_else(|| "unmatched".to_string(), |p| p.as_str().to_string());
    let tenant = request
        .headers()
        .get(crate::extract::TENANT_HEADER)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    let request_id = request
        .headers()
        .get(REQUEST_ID_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
        .unwrap_or_else(|| format!("{:06x}", rand_id()));
    let span = tracing::info_span!("request", %method, %route, %tenant, request_id = %request_id);
    let mut response = next.run(request).instrument(span.clone()).await;
    let elapsed = started.elapsed();
    let status = response.status();
    state.metrics.record(&method, &route, status.as_u16(), elapsed);
    span.in_scope(|| {
        if status.is_server_error() {
            tracing::warn!(
                status = status.as_u16(),
                micros = elapsed.as_micros() as u64,
                "request failed"
            );
        } else {
            tracing::debug!(
                status = status.as_u16(),
                micros = elapsed.as_micros() as u64,
                "request done"
            );
        }
    });
    if let Ok(value) = HeaderValue::from_str(&request_id) {
        response.headers_mut().insert(REQUEST_ID_HEADER, value);
    }
    response
}

fn rand_id() -> u32 {
    use std::sync::atomic::{AtomicU32, Ordering};
    static NEXT: AtomicU32 = AtomicU32::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed) & 0xFF_FFFF
}

/// 204 No Content.
pub(crate) fn no_content() -> Response {
    StatusCode::NO_CONTENT.into_response()
}
