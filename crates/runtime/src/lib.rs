//! Quire's tenant runtime: what a process keeps for each tenant besides its database,
//! and the work that keeps it current. Both the HTTP server and the command line use it.
//!
//! What it owns: each tenant's search indexes (instances, authorities) and MARC index,
//! opened on first use and fed by a follower thread each; reindexing on a thread of its
//! own; the compiled circulation rules of each tenant; the standing of each user's
//! tokens (their permissions and token epoch), cached; the import runner, one thread
//! that runs every tenant's import jobs, and the bulk edit runner, one for every
//! tenant's bulk operations, each job under a lease so that one node runs it and
//! another takes it up when that one dies (`leases.rs`); provisioning a tenant (database,
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
mod leases;
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
    leases::{Held, import_lease},
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

/// How often a node looks for jobs no node holds: with the lease's length, how soon a
/// dead node's job goes on elsewhere.
const JOB_LOOK: std::time::Duration = std::time::Duration::from_secs(2);

/// Which index a reindex rebuilds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Resource {
    Instances,
    Authorities,
}

impl Resource {
    /// The tenant's counter of reindex requests of this index, shared by every node.
    fn request_counter(self) -> &'static str {
        match self {
            Resource::Instances => "reindex-requests:instances",
            Resource::Authorities => "reindex-requests:authorities",
        }
    }
}

/// One tenant as a node sees it ([`Runtime::health`]).
#[derive(Debug, Clone)]
pub struct TenantHealth {
    pub name: String,
    /// The last change-log sequence number committed, by any node.
    pub head: i64,
    /// This node's instance and authority indexes, when they are open.
    pub search: Option<SearchHealth>,
    /// How far this node's harvest index follower has applied the log, when one runs.
    pub harvest_applied: Option<i64>,
    /// The leases on the tenant's jobs this node holds (`import:<id>`, ...).
    pub jobs: Vec<String>,
}

/// Where a tenant's search indexes stand on this node.
#[derive(Debug, Clone)]
pub struct SearchHealth {
    /// How far the instance and authority indexes have applied the change log.
    pub instances_applied: i64,
    pub authorities_applied: i64,
    /// A reindex (asked for, or the follower's quiet-time rebuild) or the merge after
    /// one is running.
    pub reindexing: bool,
    /// Writes have left an index worn enough to be rebuilt once they pause
    /// (`search::IndexStatus::worn`).
    pub worn: bool,
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
    // The last reindex request of each tenant's index this node acted on.
    reindexes_seen: std::sync::Mutex<HashMap<(String, Resource), i64>>,
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
            reindexes_seen: Default::default(),
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

    /// Starts a full reindex of one of the tenant's indexes on this node, on a thread of
    /// its own, and records the request in the store, where every other node on it
    /// finds it within seconds ([`Runtime::resume_jobs`]) and rebuilds its own copy: each
    /// node keeps its own indexes. Progress is in the index's status, the end in the log.
    pub fn start_reindex(&self, tenant: Arc<store::Tenant>, resource: Resource) -> Result<()> {
        let requested = tenant.write(|w| w.next_sequence(resource.request_counter(), 1))?;
        self.note_reindex(tenant.name(), resource, requested);
        self.rebuild(tenant, resource)
    }

    /// Records the last reindex request of a tenant's index this node has acted on (or
    /// found standing when it first looked); true when `requested` is newer than that.
    fn note_reindex(&self, tenant: &str, resource: Resource, requested: i64) -> bool {
        let mut seen = self.reindexes_seen.lock().unwrap_or_else(|e| e.into_inner());
        match seen.insert((tenant.to_string(), resource), requested) {
            Some(before) => requested > before,
            None => false,
        }
    }

    /// Rebuilds one of the tenant's indexes on this node, on a thread of its own.
    fn rebuild(&self, tenant: Arc<store::Tenant>, resource: Resource) -> Result<()> {
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

    /// Starts this node's rebuild of each index another node was asked to reindex since
    /// this node last looked; `requested` holds the request counters of the instance
    /// and authority indexes.
    fn follow_reindex_requests(
        &self,
        tenant: &Arc<store::Tenant>,
        requested: [Option<i64>; 2],
    ) -> Result<()> {
        for (resource, requested) in
            [Resource::Instances, Resource::Authorities].into_iter().zip(requested)
        {
            if self.note_reindex(tenant.name(), resource, requested.unwrap_or(0)) {
                tracing::info!(
                    tenant = tenant.name(),
                    ?resource,
                    "reindexing as another node was asked"
                );
                self.rebuild(tenant.clone(), resource)?;
            }
        }
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

    /// Has the bulk edit runner run (or go on with) an operation: after a step starts.
    pub fn run_bulk(&self, tenant: &str, operation: uuid::Uuid) {
        let key = (tenant.to_string(), operation);
        self.bulk.wake(&self.store, &self.indexes, &self.standings, key);
    }

    /// Wakes the runners for every tenant's unfinished import jobs and bulk operations
    /// that no node holds (`leases.rs`): at start-up, those that were running when the
    /// process stopped; later, those whose node died. They go on from their last
    /// committed chunk. Also starts this node's share of a reindex another node was
    /// asked for.
    pub fn resume_jobs(&self) {
        for name in self.store.tenant_names() {
            let Ok(tenant) = self.store.tenant(&name) else { continue };
            // One snapshot per tenant and look: this runs every few seconds on every node.
            let looked = tenant.read(|r| {
                let requested = [
                    r.sequence_value(Resource::Instances.request_counter())?,
                    r.sequence_value(Resource::Authorities.request_counter())?,
                ];
                Ok::<_, Error>((
                    r.leases()?,
                    import::unfinished_jobs(r)?,
                    bulk::unfinished_operations(r)?,
                    requested,
                ))
            });
            let (leases, imports, operations, requested) = match looked {
                Ok(looked) => looked,
                Err(e) => {
                    tracing::warn!(tenant = %name, error = %e, "cannot look for jobs to take up");
                    continue;
                }
            };
            for job in leases::unheld(&leases, imports, import_lease) {
                tracing::info!(tenant = %name, %job, "taking up an import job");
                let key = (name.clone(), job);
                self.imports.wake(&self.store, &self.indexes, &self.marc_indexes, key);
            }
            for operation in leases::unheld(&leases, operations, leases::bulk_lease) {
                tracing::info!(tenant = %name, %operation, "taking up a bulk operation");
                let key = (name.clone(), operation);
                self.bulk.wake(&self.store, &self.indexes, &self.standings, key);
            }
            if let Err(e) = self.follow_reindex_requests(&tenant, requested) {
                tracing::warn!(tenant = %name, error = %e, "cannot follow reindex requests");
            }
        }
    }

    /// Looks for jobs to take up ([`Runtime::resume_jobs`]) now and every few seconds
    /// after, on a thread of its own, for as long as the runtime lives. A server calls
    /// it as it starts.
    pub fn keep_jobs_running(self: &Arc<Self>) -> Result<()> {
        let runtime = Arc::downgrade(self);
        std::thread::Builder::new()
            .name("job-keeper".into())
            .spawn(move || {
                while let Some(runtime) = runtime.upgrade() {
                    runtime.resume_jobs();
                    drop(runtime);
                    std::thread::sleep(JOB_LOOK);
                }
            })
            .map_err(|e| Error::Thread(e.to_string()))?;
        Ok(())
    }

    /// This node's view of each tenant for `/admin/health`: the head of its change
    /// log, how far this node's search indexes have applied it, and the job leases this
    /// node holds. Reads the store: an error means it cannot be reached.
    pub fn health(&self) -> Result<Vec<TenantHealth>> {
        let mut report = Vec::new();
        for name in self.store.tenant_names() {
            let tenant = self.store.tenant(&name)?;
            let (head, leases) = tenant.read(|r| Ok::<_, Error>((r.last_seq()?, r.leases()?)))?;
            let search = self.indexes.health(&name);
            let harvest_applied = self
                .harvest_followers
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .get(&name)
                .map(oai::Follower::applied);
            let jobs = leases
                .into_iter()
                .filter(|lease| lease.node == self.store.node())
                .map(|lease| lease.job)
                .collect();
            report.push(TenantHealth { name, head, search, harvest_applied, jobs });
        }
        Ok(report)
    }

    /// What each user's tokens may do, cached.
    pub fn standings(&self) -> &Standings {
        &self.standings
    }
}
