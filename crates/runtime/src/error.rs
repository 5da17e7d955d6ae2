//! The runtime's errors: those of the crates it calls, kept apart so the server maps
//! each with its own table entry, and its own few.

/// A runtime error.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Store(#[from] store::Error),
    #[error(transparent)]
    Search(#[from] search::Error),
    #[error(transparent)]
    Srs(#[from] srs::Error),
    #[error(transparent)]
    Auth(#[from] auth::Error),
    #[error(transparent)]
    Inventory(#[from] inventory::Error),
    #[error(transparent)]
    Circ(#[from] circ::Error),
    #[error(transparent)]
    Import(#[from] import::Error),
    #[error(transparent)]
    Profiles(#[from] profiles::Error),
    #[error(transparent)]
    Bulk(#[from] bulk::Error),
    /// Provisioning without the admin key would have added an administrator to a tenant
    /// that exists: anyone who can reach the tenant API could make themselves one.
    #[error("Tenant {tenant} exists: adding an administrator to it requires X-Quire-Admin-Key")]
    AdministratorNotAdded { tenant: String },
    /// The system would not start a thread.
    #[error("cannot start a thread: {0}")]
    Thread(String),
}

/// The crate's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
