//! Which node runs each long job. A runner holds a job's lease in the store while it
//! runs it (`store::Tenant::hold_lease`), renewing it as it goes, and gives it up when
//! the job ends. Every node looks for jobs that are unfinished with no live lease, every
//! few seconds ([`crate::Runtime::keep_jobs_running`]): those whose node died, or that
//! no node took up, and wakes its runners for them. On SQLite the same holds between a
//! server and a `quire import` on its data directory.

use std::collections::{HashMap, HashSet};
use std::time::Instant;

use uuid::Uuid;

/// The lease name of an import job.
pub fn import_lease(job: Uuid) -> String {
    format!("import:{job}")
}

/// The lease name of a bulk edit operation.
pub(crate) fn bulk_lease(operation: Uuid) -> String {
    format!("bulk-edit:{operation}")
}

/// The leases one runner holds, each renewed when a third of its time has passed.
#[derive(Default)]
pub struct Held {
    renewed: HashMap<(String, String), Instant>,
}

impl Held {
    /// Takes the job's lease, or renews it when due: false when another node holds it
    /// (or the store cannot be asked), and the runner should leave the job alone.
    pub fn keep(&mut self, tenant: &store::Tenant, job: &str) -> bool {
        let key = (tenant.name().to_string(), job.to_string());
        if self.renewed.get(&key).is_some_and(|at| at.elapsed() < store::LEASE_TTL / 3) {
            return true;
        }
        match tenant.hold_lease(job, store::LEASE_TTL) {
            Ok(true) => {
                self.renewed.insert(key, Instant::now());
                true
            }
            Ok(false) => {
                if self.renewed.remove(&key).is_some() {
                    tracing::warn!(tenant = tenant.name(), job, "another node took the job over");
                }
                false
            }
            Err(e) => {
                tracing::warn!(tenant = tenant.name(), job, error = %e, "cannot renew a job's lease");
                self.renewed.remove(&key);
                false
            }
        }
    }

    /// Gives the job's lease up: it ended, or this runner stops running it.
    pub fn release(&mut self, tenant: &store::Tenant, job: &str) {
        self.renewed.remove(&(tenant.name().to_string(), job.to_string()));
        if let Err(e) = tenant.release_lease(job) {
            // It runs out by itself.
            tracing::warn!(tenant = tenant.name(), job, error = %e, "cannot give up a job's lease");
        }
    }
}

/// Of the jobs `unfinished` names (with their lease's name), those no node holds: no
/// lease on them, or one run out. Their node stopped or died.
pub(crate) fn unheld(
    leases: &[store::Lease],
    unfinished: Vec<Uuid>,
    lease: fn(Uuid) -> String,
) -> Vec<Uuid> {
    let now = store::now_ms();
    let held: HashSet<&str> =
        leases.iter().filter(|l| l.expires_ms > now).map(|l| l.job.as_str()).collect();
    unfinished.into_iter().filter(|id| !held.contains(lease(*id).as_str())).collect()
}
