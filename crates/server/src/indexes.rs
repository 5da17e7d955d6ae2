//! The search indexes of each tenant (instances and authorities), opened once and kept
//! current by a follower thread each.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
};

use crate::ApiError;

/// A tenant's open indexes and the threads that feed them from the change log.
struct TenantIndexes {
    instances: Arc<search::InstanceIndex>,
    authorities: Arc<search::AuthorityIndex>,
    // Kept for their Drop: the followers stop when the server lets go of the indexes.
    _followers: [search::FollowerHandle; 2],
}

/// Every tenant's indexes, opened on first use (or at start).
#[derive(Default)]
pub(crate) struct Indexes {
    open: Mutex<HashMap<String, Arc<TenantIndexes>>>,
    // Serialises opening, so two first requests do not open one index twice.
    opening: Mutex<()>,
}

impl Indexes {
    /// The instance index of a tenant, opening the tenant's indexes (and rebuilding
    /// any that is missing or corrupt) on first use. Blocking: call from a blocking
    /// thread.
    pub(crate) fn instances(
        &self,
        tenant: &Arc<store::Tenant>,
    ) -> Result<Arc<search::InstanceIndex>, ApiError> {
        Ok(self.tenant(tenant)?.instances.clone())
    }

    /// The authority index of a tenant, as [`Indexes::instances`].
    pub(crate) fn authorities(
        &self,
        tenant: &Arc<store::Tenant>,
    ) -> Result<Arc<search::AuthorityIndex>, ApiError> {
        Ok(self.tenant(tenant)?.authorities.clone())
    }

    fn tenant(&self, tenant: &Arc<store::Tenant>) -> Result<Arc<TenantIndexes>, ApiError> {
        if let Some(open) = self.open.lock().unwrap().get(tenant.name()) {
            return Ok(open.clone());
        }
        let _opening = self.opening.lock().unwrap();
        if let Some(open) = self.open.lock().unwrap().get(tenant.name()) {
            return Ok(open.clone());
        }
        let instances = Arc::new(search::InstanceIndex::open(tenant)?);
        instances.catch_up(tenant)?;
        let authorities = Arc::new(search::AuthorityIndex::open(tenant)?);
        authorities.catch_up(tenant)?;
        let followers = [
            search::Follower::spawn(tenant.clone(), instances.clone()),
            search::Follower::spawn(tenant.clone(), authorities.clone()),
        ];
        let entry = Arc::new(TenantIndexes { instances, authorities, _followers: followers });
        self.open.lock().unwrap().insert(tenant.name().to_string(), entry.clone());
        tracing::info!(tenant = tenant.name(), "search indexes open");
        Ok(entry)
    }
}
