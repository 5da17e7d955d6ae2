//! The search indexes of each tenant (instances and authorities), opened once and kept
//! current by a follower thread each.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
};

use crate::Result;

/// A tenant's open indexes and the threads that feed them from the change log.
struct TenantIndexes {
    instances: Arc<search::InstanceIndex>,
    authorities: Arc<search::AuthorityIndex>,
    // Kept for their Drop: the followers stop when the runtime lets go of the indexes.
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
    ) -> Result<Arc<search::InstanceIndex>> {
        Ok(self.tenant(tenant)?.instances.clone())
    }

    /// The authority index of a tenant, as [`Indexes::instances`].
    pub(crate) fn authorities(
        &self,
        tenant: &Arc<store::Tenant>,
    ) -> Result<Arc<search::AuthorityIndex>> {
        Ok(self.tenant(tenant)?.authorities.clone())
    }

    /// Where the tenant's open indexes stand; `None` while they are not open here.
    pub(crate) fn health(&self, tenant: &str) -> Option<crate::SearchHealth> {
        let open = self.open.lock().unwrap().get(tenant)?.clone();
        let statuses = [open.instances.status(), open.authorities.status()];
        Some(crate::SearchHealth {
            instances_applied: statuses[0].applied_seq,
            authorities_applied: statuses[1].applied_seq,
            reindexing: statuses.iter().any(|s| s.reindex.is_some() || s.compacting),
            worn: statuses.iter().any(search::IndexStatus::worn),
        })
    }

    fn tenant(&self, tenant: &Arc<store::Tenant>) -> Result<Arc<TenantIndexes>> {
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
        spawn_resumed_merges(tenant, &instances, &authorities);
        let entry = Arc::new(TenantIndexes { instances, authorities, _followers: followers });
        self.open.lock().unwrap().insert(tenant.name().to_string(), entry.clone());
        tracing::info!(tenant = tenant.name(), "search indexes open");
        Ok(entry)
    }
}

/// Finishes, in the background, the merge of a reindexed generation that the last stop
/// interrupted: its segments serve meanwhile, each search slower for their number.
fn spawn_resumed_merges(
    tenant: &Arc<store::Tenant>,
    instances: &Arc<search::InstanceIndex>,
    authorities: &Arc<search::AuthorityIndex>,
) {
    let (tenant, instances, authorities) = (tenant.clone(), instances.clone(), authorities.clone());
    let spawned =
        std::thread::Builder::new().name(format!("merge-{}", tenant.name())).spawn(move || {
            for (index, took) in [
                ("instances", instances.resume_merge(&tenant)),
                ("authorities", authorities.resume_merge(&tenant)),
            ] {
                if let Some(took) = took {
                    tracing::info!(
                        tenant = tenant.name(),
                        index,
                        secs = took.as_secs_f64(),
                        "interrupted merge finished"
                    );
                }
            }
        });
    if let Err(e) = spawned {
        tracing::warn!(error = %e, "cannot start a thread to resume interrupted index merges");
    }
}
