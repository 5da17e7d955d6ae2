//! Quire's HTTP edge: FOLIO's paths and shapes over the domain crates.
//!
//! What it owns: routing, tenancy (`X-Okapi-Tenant`), authentication and permission checks,
//! mapping every domain error to a FOLIO-style response (in `error.rs`, once), metrics and
//! request logging. What it does not own: any rule about records, or derived state (the
//! indexes, caches and provisioning are the `runtime` crate's); a handler extracts,
//! authorizes, calls one domain function on a blocking thread, and serialises.
//!
//! Invariants:
//! - Every route but login, health, metrics, the tenant API and the password change
//!   (authorised by the current password) requires a valid token of the request's
//!   tenant and a named permission.
//! - A panic in a handler becomes a 500 for that request only.

mod error;
mod extract;
mod metrics;
mod routes;
mod state;

pub use crate::{
    error::ApiError,
    state::{AppState, Config},
};

/// The application: all routes with their middleware.
pub fn router(state: AppState) -> axum::Router {
    routes::router(state)
}

/// Serves until ctrl-c or SIGTERM, then finishes requests in flight.
pub async fn serve(state: AppState, listener: tokio::net::TcpListener) -> std::io::Result<()> {
    let app = router(state);
    axum::serve(listener, app.into_make_service_with_connect_info::<std::net::SocketAddr>())
        .with_graceful_shutdown(shutdown_signal())
        .await
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        () = ctrl_c => {},
        () = terminate => {},
    }
    tracing::info!("shutting down");
}
