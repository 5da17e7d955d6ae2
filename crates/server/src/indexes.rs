//! The search index of each tenant, opened once and kept current by a follower thread.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
};

use crate::ApiError;

/// A tenant's open index and the thread that feeds it from the change log.
struct TenantIndex {
    index: Arc<search::InstanceIndex>,
    // Kept for its Drop: the follower stops when the server lets go of the index.
    _follower: search::FollowerHandle,
}

/// Every tenant's instance index, opened on first use (or at start).
#[derive(Default)]
pub(crate) struct Indexes {
    open: Mutex<HashMap<String, Arc<TenantIndex>>>,
    // Serialises opening, so two first requests do not open one index twice.
    opening: Mutex<()>,
}

impl Indexes {
    /// The index of a tenant, opening it (and rebuilding it if it is missing or corrupt)
    /// on first use. Blocking: call from a blocking thread.
    pub(crate) fn instances(
        &self,
        tenant: &Arc<store::Tenant>,
    ) -> Result<Arc<search::InstanceIndex>, ApiError> {
        if let Some(open) = self.open.lock().unwrap().get(tenant.name()) {
            return Ok(open.index.clone());
        }
        let _opening = self.opening.lock().unwrap();
        if let Some(open) = self.open.lock().unwrap().get(tenant.name()) {
            return Ok(open.index.clone());
        }
        let index = Arc::new(search::InstanceIndex::open(tenant)?);
        index.catch_up(tenant)?;
        let follower = search::Follower::spawn(tenant.clone(), index.clone());
        let entry = Arc::new(TenantIndex { index: index.clone(), _follower: follower });
        self.open.lock().unwrap().insert(tenant.name().to_string(), entry);
        tracing::info!(tenant = tenant.name(), "search index open");
        Ok(index)
    }
}
