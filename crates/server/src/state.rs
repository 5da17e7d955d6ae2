//! State shared by all requests.

use std::{
    collections::HashMap,
    sync::{
        Arc, RwLock,
        atomic::{AtomicU64, Ordering},
    },
    time::{Duration, Instant},
};

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
    pub(crate) store: Arc<store::Store>,
    pub(crate) key: auth::TokenKey,
    pub(crate) config: Arc<Config>,
    pub(crate) metrics: Arc<Metrics>,
    pub(crate) permissions: Arc<PermissionCache>,
    pub(crate) indexes: Arc<crate::indexes::Indexes>,
    pub(crate) marc_indexes: Arc<crate::marc_indexes::MarcIndexes>,
    pub(crate) circulation_rules: Arc<RulesCaches>,
}

impl AppState {
    pub fn new(store: Arc<store::Store>, key: auth::TokenKey, config: Config) -> AppState {
        AppState {
            store,
            key,
            config: Arc::new(config),
            metrics: Arc::new(Metrics::default()),
            permissions: Arc::new(PermissionCache::default()),
            indexes: Arc::new(crate::indexes::Indexes::default()),
            marc_indexes: Arc::new(crate::marc_indexes::MarcIndexes::default()),
            circulation_rules: Arc::new(RulesCaches::default()),
        }
    }

    /// Opens every tenant's search index (rebuilding any that is missing or corrupt) and
    /// starts following its change log. Blocking; the CLI calls it before serving so the
    /// first search does not pay for it.
    pub fn open_search_indexes(&self) -> Result<(), crate::ApiError> {
        for name in self.store.tenant_names() {
            let tenant = self.store.tenant(&name)?;
            self.indexes.instances(&tenant)?;
        }
        Ok(())
    }

    pub fn store(&self) -> &Arc<store::Store> {
        &self.store
    }
}

/// Users' standings (their permissions, and which of their tokens hold), cached for a
/// short while so that authorising a request is a hash lookup, as FOLIO's auth filter
/// caches permissions (60 s there). Every write that changes a standing (a grant, a
/// user's update or deletion, credentials made or deleted) drops its entry at once.
#[derive(Default)]
pub(crate) struct PermissionCache {
    entries: RwLock<HashMap<CacheKey, (Instant, Arc<auth::Standing>)>>,
    /// Counts invalidations, so a standing read before one is not stored after it.
    epoch: AtomicU64,
}

/// (tenant, user id)
type CacheKey = (String, uuid::Uuid);

const PERMISSION_TTL: Duration = Duration::from_secs(60);

impl PermissionCache {
    pub(crate) fn get(&self, tenant: &str, user_id: uuid::Uuid) -> Option<Arc<auth::Standing>> {
        let entries = self.entries.read().unwrap();
        let (at, standing) = entries.get(&(tenant.to_string(), user_id))?;
        (at.elapsed() < PERMISSION_TTL).then(|| standing.clone())
    }

    /// To be read before reading a standing, and handed to [`PermissionCache::put`].
    pub(crate) fn epoch(&self) -> u64 {
        self.epoch.load(Ordering::SeqCst)
    }

    /// Keeps a standing read after [`PermissionCache::epoch`] gave `read_at`, unless an
    /// invalidation came since: the standing may predate the write it was for.
    pub(crate) fn put(
        &self,
        tenant: &str,
        user_id: uuid::Uuid,
        standing: Arc<auth::Standing>,
        read_at: u64,
    ) {
        let mut entries = self.entries.write().unwrap();
        if self.epoch() != read_at {
            return;
        }
        // Bounded: a flood of distinct users cannot grow the cache without limit.
        if entries.len() > 100_000 {
            entries.clear();
        }
        entries.insert((tenant.to_string(), user_id), (Instant::now(), standing));
    }

    pub(crate) fn invalidate(&self, tenant: &str, user_id: uuid::Uuid) {
        let mut entries = self.entries.write().unwrap();
        self.epoch.fetch_add(1, Ordering::SeqCst);
        entries.remove(&(tenant.to_string(), user_id));
    }
}

/// Each tenant's compiled circulation rules.
#[derive(Default)]
pub(crate) struct RulesCaches {
    by_tenant: RwLock<HashMap<String, Arc<circ::RulesCache>>>,
}

impl RulesCaches {
    pub(crate) fn get(&self, tenant: &str) -> Arc<circ::RulesCache> {
        if let Some(cache) = self.by_tenant.read().unwrap().get(tenant) {
            return cache.clone();
        }
        self.by_tenant.write().unwrap().entry(tenant.to_string()).or_default().clone()
    }
}
