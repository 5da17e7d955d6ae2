//! Who is asking, and may they: users' credentials (argon2 hashes), signed tokens,
//! and FOLIO-style permission names.
//!
//! What it owns: the `auth_*` tables, login, token minting and verification, permission
//! sets. What it does not own: HTTP (the server maps [`Error`] to 401/403/422) and the
//! full user record of circulation (it keeps only what login needs).
//!
//! Invariants:
//! - A token is verified with one HMAC over a few hundred bytes: no database or network
//!   hop, so checking every request costs microseconds.
//! - A token names its tenant; the server refuses it for any other tenant.
//! - Passwords are never stored or logged in clear; only argon2id PHC strings are.
//!
//! ```
//! let key = auth::TokenKey::from_bytes([7; 32]);
//! let claims = auth::Claims::new("admin", uuid::Uuid::nil(), "diku", auth::TokenType::Access, 600);
//! let token = key.sign(&claims);
//! assert_eq!(key.verify(&token).unwrap().tenant, "diku");
//! ```

mod error;
mod password;
mod permissions;
mod token;
mod users;

pub use crate::{
    error::{Error, Result},
    password::{hash_password, verify_password},
    permissions::{PermissionSet, grant_permissions, permissions_of},
    token::{Claims, TokenKey, TokenType},
    users::{
        LoginOutcome, MIGRATIONS, User, create_user, get_user, list_users, login, set_password,
        username_taken,
    },
};
