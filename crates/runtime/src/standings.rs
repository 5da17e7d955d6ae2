//! What each user's tokens may do (`auth::Standing`: their permissions and the token
//! epoch of their credentials), cached for a short while so that authorising a request is
//! a hash lookup, as FOLIO's auth filter caches permissions (60 s there). Every write that
//! changes a standing (a grant, a user's update or deletion, credentials made or deleted)
//! drops its entry at once.

use std::{
    collections::HashMap,
    sync::{
        Arc, RwLock,
        atomic::{AtomicU64, Ordering},
    },
    time::{Duration, Instant},
};

/// (tenant, user id)
type Key = (String, uuid::Uuid);

const TTL: Duration = Duration::from_secs(60);

/// Most entries kept: a flood of distinct users cannot grow the cache without limit.
const MAX_ENTRIES: usize = 100_000;

/// The cache.
#[derive(Default)]
pub struct Standings {
    entries: RwLock<HashMap<Key, (Instant, Arc<auth::Standing>)>>,
    /// Counts invalidations, so a standing read before one is not stored after it.
    epoch: AtomicU64,
}

impl Standings {
    /// The cached standing of a user, if it is fresh.
    pub fn get(&self, tenant: &str, user_id: uuid::Uuid) -> Option<Arc<auth::Standing>> {
        let entries = self.entries.read().unwrap();
        let (at, standing) = entries.get(&(tenant.to_string(), user_id))?;
        (at.elapsed() < TTL).then(|| standing.clone())
    }

    /// Reads a user's standing from the tenant's database and caches it. Blocking.
    pub fn load(
        &self,
        tenant: &store::Tenant,
        user_id: uuid::Uuid,
    ) -> crate::Result<Arc<auth::Standing>> {
        let read_at = self.epoch.load(Ordering::SeqCst);
        let standing = Arc::new(tenant.read(|r| auth::standing(r, user_id))?);
        let mut entries = self.entries.write().unwrap();
        // A standing read before an invalidation may predate the write it was for.
        if self.epoch.load(Ordering::SeqCst) == read_at {
            if entries.len() >= MAX_ENTRIES {
                entries.clear();
            }
            entries
                .insert((tenant.name().to_string(), user_id), (Instant::now(), standing.clone()));
        }
        Ok(standing)
    }

    /// Drops a user's standing: to be called after every committed write that changes it.
    pub fn invalidate(&self, tenant: &str, user_id: uuid::Uuid) {
        let mut entries = self.entries.write().unwrap();
        self.epoch.fetch_add(1, Ordering::SeqCst);
        entries.remove(&(tenant.to_string(), user_id));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_standing_is_cached_until_invalidated() {
        let dir = tempfile::tempdir().unwrap();
        let store = store::Store::open(dir.path(), store::testing::options(), &crate::components())
            .unwrap();
        let admin = crate::AdminUser { username: "a".into(), password: "pw".into() };
        crate::provision_tenant(&store, "t", Some(&admin), crate::ExistingUsers::MayAdd).unwrap();
        let tenant = store.tenant("t").unwrap();
        let user_id = tenant.read(|r| auth::login(r, "a", "pw")).unwrap().user_id;
        let standings = Standings::default();
        assert!(standings.get("t", user_id).is_none());
        let loaded = standings.load(&tenant, user_id).unwrap();
        assert!(Arc::ptr_eq(&standings.get("t", user_id).unwrap(), &loaded));
        assert!(standings.get("other", user_id).is_none());
        standings.invalidate("t", user_id);
        assert!(standings.get("t", user_id).is_none());
    }
}
