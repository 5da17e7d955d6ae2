//! The MARC index of each tenant (SRS search), opened on first use and kept current
//! by a follower thread; a search also catches up synchronously first.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
};

use crate::Result;

struct TenantMarc {
    index: Arc<srs::MarcIndex>,
    // Kept for its Drop: the follower stops when the runtime lets go of the index.
    _follower: srs::MarcFollower,
}

/// Every tenant's MARC index.
#[derive(Default)]
pub(crate) struct MarcIndexes {
    open: Mutex<HashMap<String, Arc<TenantMarc>>>,
    // Serialises opening, so two first requests do not build one index twice.
    opening: Mutex<()>,
}

impl MarcIndexes {
    /// The tenant's index, built from the store on first use, and caught up with every
    /// committed write. Blocking: call from a blocking thread.
    pub(crate) fn get(&self, tenant: &Arc<store::Tenant>) -> Result<Arc<srs::MarcIndex>> {
        let open = self.open.lock().unwrap().get(tenant.name()).cloned();
        let index = match open {
            Some(open) => open.index.clone(),
            None => {
                let _opening = self.opening.lock().unwrap();
                let again = self.open.lock().unwrap().get(tenant.name()).cloned();
                match again {
                    Some(open) => open.index.clone(),
                    None => {
                        let index = Arc::new(srs::MarcIndex::open(tenant)?);
                        let follower = srs::MarcFollower::spawn(tenant.clone(), index.clone());
                        let entry =
                            Arc::new(TenantMarc { index: index.clone(), _follower: follower });
                        self.open.lock().unwrap().insert(tenant.name().to_string(), entry);
                        index
                    }
                }
            }
        };
        index.catch_up(tenant)?;
        Ok(index)
    }
}
