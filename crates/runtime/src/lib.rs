//! Quire's tenant runtime: what a process keeps for each tenant besides its database,
//! and the work that keeps it current. Both the HTTP server and the command line use it.
//!
//! What it owns: each tenant's search indexes (instances, authorities) and MARC index,
//! opened on first use and fed by a follower thread each; reindexing on a thread of its
//! own; the compiled circulation rules of each tenant; the standing of each user's
//! tokens (their permissions and token epoch), cached; the import runner, one thread
//! that runs every tenant's import jobs, and the bulk edit runner, one for every
//! tenant's bulk operations; provisioning a tenant (database,
//! reference data, administrator); the list of every component's migrations. What it
//! does not own: HTTP (the server), or any rule about records (the domain crates).
//!
//! Invariants:
//! - Everything here is derived from the tenant's database and can be dropped: a new
//!   runtime rebuilds it from the store.
//! - No tokio and no HTTP: followers and reindexing are plain threads, so a process
//!   without a server (an import, a node of a cluster, `quire reindex`) has the same.

mod bulk_ops;
mod candidates;
mod error;
mod imports;
mod indexes;
mod marc_indexes;
mod provision;
mod standings;

use std::{
    collections::HashMap,
    sync::{Arc, RwLock},
};

pub use crate::{
    error::{Error, Result},
    imports::import_dir,
    provision::{AdminUser, ExistingUsers, Provisioned, provision_tenant},
    standings::Standings,
};
use crate::{indexes::Indexes, marc_indexes::MarcIndexes};

/// Every component's migrations, in dependency order, for [`store::Store::open`].
pub fn components() -> Vec<store::Component> {
    vec![
        auth::MIGRATIONS,
        inventory::MIGRATIONS,
        srs::MIGRATIONS,
        circ::MIGRATIONS,
        settings::MIGRATIONS,
        calendar::MIGRATIONS,
        mapping::MIGRATIONS,
        import::MIGRATIONS,
        profiles::MIGRATIONS,
        oai::MIGRATIONS,
        bulk::MIGRATIONS,
    ]
}

/// Which index a reindex rebuilds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resource {
    Instances,
    Authorities,
}

/// The runtime of every tenant of one store.
pub struct Runtime {
    store: Arc<store::Store>,
    indexes: Arc<Indexes>,
    marc_indexes: Arc<MarcIndexes>,
    rules: RwLock<HashMap<String, Arc<circ::RulesCache>>>,
    standings: Arc<Standings>,
    imports: imports::Imports,
    bulk: bulk_ops::BulkOperations,
    harvest_followers: std::sync::Mutex<HashMap<String, oai::Follower>>,
}

impl Runtime {
    pub fn new(store: Arc<store::Store>) -> Runtime {
        Runtime {
            store,
            indexes: Arc::new(Indexes::default()),
            marc_indexes: Arc::new(MarcIndexes::default()),
            rules: RwLock::default(),
            standings: Arc::new(Standings::default()),
            bulk: bulk_ops::BulkOperations::default(),
            imports: imports::Imports::default(),
            harvest_followers: Default::default(),
        }
    }

    pub fn store(&self) -> &Arc<store::Store> {
        &self.store
    }

    /// Opens every tenant's search indexes (rebuilding any that is missing or corrupt)
    /// and starts following their change logs. Blocking; a server calls it before
    /// serving, so the first search does not pay for it.
    pub fn open_search_indexes(&self) -> Result<()> {
        for name in self.store.tenant_names() {
            let tenant = self.store.tenant(&name)?;
            self.indexes.instances(&tenant)?;
        }
        Ok(())
    }

    /// Starts keeping every tenant's OAI-PMH harvest index up with its change log, on a
    /// thread per tenant. A server calls it as it starts; harvests catch up themselves
    /// before answering, so this keeps datestamps timely and first requests short.
    pub fn follow_harvest_indexes(&self) -> Result<()> {
        let mut followers = self.harvest_followers.lock().unwrap_or_else(|e| e.into_inner());
        for name in self.store.tenant_names() {
            if followers.contains_key(&name) {
                continue;
            }
            let tenant = self.store.tenant(&name)?;
            let follower =
                oai::Follower::spawn(tenant).map_err(|e| Error::Thread(e.to_string()))?;
            followers.insert(name, follower);
        }
        Ok(())
    }

    /// The tenant's instance index, opened on first use. Blocking.
    pub fn instances(&self, tenant: &Arc<store::Tenant>) -> Result<Arc<search::InstanceIndex>> {
        self.indexes.instances(tenant)
    }

    /// The tenant's authority index, opened on first use. Blocking.
    pub fn authorities(&self, tenant: &Arc<store::Tenant>) -> Result<Arc<search::AuthorityIndex>> {
        self.indexes.authorities(tenant)
    }

    /// The tenant's MARC index, built on first use and caught up with every committed
    /// write. Blocking.
    pub fn marc(&self, tenant: &Arc<store::Tenant>) -> Result<Arc<srs::MarcIndex>> {
        self.marc_indexes.get(tenant)
    }

    /// Starts a full reindex of one of the tenant's indexes on a thread of its own; its
    /// progress is in the index's status, its end in the log.
    pub fn start_reindex(&self, tenant: Arc<store::Tenant>, resource: Resource) -> Result<()> {
        let indexes = self.indexes.clone();
        std::thread::Builder::new()
            .name(format!("reindex-{}", tenant.name()))
            .spawn(move || {
                let result = match resource {
                    Resource::Instances => indexes
                        .instances(&tenant)
                        .and_then(|index| Ok(index.reindex(&tenant, |_| {})?)),
                    Resource::Authorities => indexes
                        .authorities(&tenant)
                        .and_then(|index| Ok(index.reindex(&tenant, |_| {})?)),
                };
                match result {
                    Ok(stats) => tracing::info!(tenant = tenant.name(), ?stats, "reindex done"),
                    Err(e) => tracing::error!(tenant = tenant.name(), error = %e, "reindex failed"),
                }
            })
            .map_err(|e| Error::Thread(e.to_string()))?;
        Ok(())
    }

    /// The tenant's compiled circulation rules, recompiled when the stored rules change.
    pub fn circulation_rules(&self, tenant: &str) -> Arc<circ::RulesCache> {
        if let Some(cache) = self.rules.read().unwrap().get(tenant) {
            return cache.clone();
        }
        self.rules.write().unwrap().entry(tenant.to_string()).or_default().clone()
    }

    /// Runs an import job, or goes on with it, on the import runner's thread: after it
    /// is started or sent a chunk.
    pub fn run_import(&self, tenant: &str, job: uuid::Uuid) {
        self.imports.wake(
            &self.store,
            &self.indexes,
            &self.marc_indexes,
            (tenant.to_string(), job),
        );
    }

    /// What an import's index-backed matches read, for a job run outside the runner
    /// (`quire import` into a data directory).
    pub fn import_candidates(
        &self,
        tenant: &Arc<store::Tenant>,
    ) -> Result<Arc<dyn import::Candidates>> {
        Ok(Arc::new(candidates::IndexCandidates::open(tenant, &self.indexes, &self.marc_indexes)?))
    }

    /// Takes back the import jobs that were running when the process last stopped; they
    /// go on from their last committed chunk. A server calls it as it starts.
    pub fn resume_imports(&self) {
        for key in imports::unfinished(&self.store) {
            tracing::info!(tenant = %key.0, job = %key.1, "resuming import job");
            self.imports.wake(&self.store, &self.indexes, &self.marc_indexes, key);
        }
    }

    /// Has the bulk edit runner run (or go on with) an operation: after a step starts.
    pub fn run_bulk(&self, tenant: &str, operation: uuid::Uuid) {
        let key = (tenant.to_string(), operation);
        self.bulk.wake(&self.store, &self.indexes, &self.standings, key);
    }

    /// Takes back the bulk operations that were running when the process last stopped;
    /// they go on from their last committed chunk. A server calls it as it starts.
    pub fn resume_bulk_operations(&self) {
        for key in bulk_ops::unfinished(&self.store) {
            tracing::info!(tenant = %key.0, operation = %key.1, "resuming bulk operation");
            self.bulk.wake(&self.store, &self.indexes, &self.standings, key);
        }
    }

    /// What each user's tokens may do, cached.
    pub fn standings(&self) -> &Standings {
        &self.standings
    }
}
