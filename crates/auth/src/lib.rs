//! Who is asking, and may they; and who the library's users are: users, patron groups
//! and proxy relationships (FOLIO's mod-users), credentials (argon2 hashes), signed
//! tokens and FOLIO-style permission names.
//!
//! What it owns: the `users`, `patron_groups`, `proxies_for` and `auth_*` tables, their
//! write rules (with mod-users' messages), login, token minting and verification,
//! permission sets. What it does not own: HTTP (the server maps [`Error`] to
//! 400/401/403/404/422) and circulation's decisions, which read users through
//! [`user_by_barcode`], [`get_group`], [`proxies_for`] and [`User::is_active_at`].
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

mod custom_fields;
mod directory;
mod error;
mod groups;
mod import;
mod json;
mod login;
mod password;
mod permissions;
mod proxies;
mod schema;
mod sessions;
mod token;
mod users;

pub use crate::{
    custom_fields::{
        CheckboxField, CustomField, CustomFieldSet, FieldProblem, FieldType, SelectField,
        SelectOption, SelectOptions, SortingOrder, TextField, TextFormat, count_values,
        create_custom_field, custom_fields, delete_custom_field, get_custom_field,
        list_custom_fields, replace_custom_fields, update_custom_field,
    },
    directory::{AddressType, Department, Fulfillment, RequestPreference, ServicePointsUser},
    error::{Error, Result, UniqueUserField, Write},
    groups::{
        PatronGroup, create_group, decode_group, delete_group, get_group, list_groups, seed_groups,
        update_group,
    },
    import::{FailedUser, ImportRequest, ImportResponse, import_users},
    login::{
        LoginOutcome, Standing, create_credentials, delete_credentials, has_credentials, login,
        standing, update_password,
    },
    password::{hash_password, verify_password},
    permissions::{PermissionSet, grant_permissions, permissions_of},
    proxies::{
        ProxyFor, create_proxy, decode_proxy, delete_proxy, get_proxy, list_proxies, proxies_for,
        update_proxy,
    },
    schema::MIGRATIONS,
    sessions::{end_all_sessions, is_revoked, revoke_refresh_token},
    token::{Claims, TokenKey, TokenType},
    users::{
        Personal, User, create_user, decode_user, delete_user, get_user, list_users, update_user,
        user_by_barcode, user_by_barcode_key, user_by_barcode_read, user_by_username, user_read,
        username_taken,
    },
};
