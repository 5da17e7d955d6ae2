//! State shared by all requests.

use std::{sync::Arc, time::Duration};

use crate::metrics::Metrics;

/// Server settings the CLI fills in.
#[derive(Debug, Clone)]
pub struct Config {
    /// Largest request body accepted, in bytes (413 above).
    pub max_body_bytes: usize,
    /// Lifetime of access tokens from `/authn/login-with-expiry`.
    pub access_token_ttl: Duration,
    /// Lifetime of refresh tokens.
    pub refresh_token_ttl: Duration,
    /// Lifetime of tokens from the legacy `/authn/login`.
    pub legacy_token_ttl: Duration,
    /// When set, `POST /_/tenant` requires header `X-Quire-Admin-Key` with this value.
    pub admin_key: Option<String>,
    /// Whether `POST /_/tenant` may be called without an admin key.
    pub open_tenant_api: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            max_body_bytes: 64 * 1024 * 1024,
            access_token_ttl: Duration::from_secs(600),
            refresh_token_ttl: Duration::from_secs(7 * 24 * 3600),
            legacy_token_ttl: Duration::from_secs(24 * 3600),
            admin_key: None,
            open_tenant_api: true,
        }
    }
}

/// Cheap to clone: everything is behind `Arc`.
#[derive(Clone)]
pub struct AppState {
    pub(crate) runtime: Arc<runtime::Runtime>,
    pub(crate) key: auth::TokenKey,
    pub(crate) config: Arc<Config>,
    pub(crate) metrics: Arc<Metrics>,
    /// The event publisher, when the server publishes to Kafka.
    pub(crate) events: Option<Arc<events::Publisher>>,
}

impl AppState {
    pub fn new(runtime: Arc<runtime::Runtime>, key: auth::TokenKey, config: Config) -> AppState {
        AppState {
            runtime,
            key,
            config: Arc::new(config),
            metrics: Arc::new(Metrics::default()),
            events: None,
        }
    }

    /// The state of a server that publishes its tenants' events.
    pub fn with_events(mut self, publisher: Arc<events::Publisher>) -> AppState {
        self.events = Some(publisher);
        self
    }

    pub fn runtime(&self) -> &Arc<runtime::Runtime> {
        &self.runtime
    }

    pub(crate) fn store(&self) -> &Arc<store::Store> {
        self.runtime.store()
    }
}
