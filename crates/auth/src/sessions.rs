//! Ending sessions, as mod-login's `/authn/logout` and `/authn/logout-all` do.
//!
//! Tokens are verified without a database hop, so ending one means remembering it: a
//! refresh token ended by a logout is kept (by its SHA-256, never in clear) until it
//! would have expired, and `/authn/refresh` refuses it. Ending every session of a user
//! draws their credentials a new token epoch, which every token issued before fails;
//! that ends their access tokens at once too, where FOLIO lets them run out.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use store::{ColumnValue, FieldKind, Page, QueryField, Reader, RecordTable, Writer};
use uuid::Uuid;

use crate::Result;

const REVOKED: RecordTable = RecordTable {
    table: "auth_revoked_tokens",
    record_type: "revoked_token",
    cached: false,
    columns: &["expires"],
};

const FIELDS: &[QueryField] =
    &[QueryField { index: "expires", column: "expires", kind: FieldKind::Int }];

#[derive(Serialize, Deserialize)]
struct Revoked {
    /// When the token would have expired, seconds since the epoch.
    expires: i64,
}

/// Refuses a refresh token from now on. `expires` is the token's own expiry: after it,
/// verification refuses the token anyway, and the entry is purged.
pub fn revoke_refresh_token(writer: &mut Writer<'_>, token: &str, expires: i64) -> Result<()> {
    purge_expired(writer)?;
    let body = crate::json::encode(&Revoked { expires })?;
    writer.upsert(&REVOKED, &fingerprint(token), 1, &body, &[ColumnValue::Int(expires)])?;
    Ok(())
}

/// Whether a logout ended this token.
pub fn is_revoked(reader: &Reader<'_>, token: &str) -> Result<bool> {
    Ok(reader.exists(&REVOKED, &fingerprint(token))?)
}

/// Ends every session of a user: each token issued to them so far is refused.
pub fn end_all_sessions(writer: &mut Writer<'_>, user_id: Uuid) -> Result<()> {
    crate::login::revoke_tokens(writer, user_id)
}

/// Forgets a few entries whose tokens have expired, so the table stays as small as the
/// number of live sessions ended early.
fn purge_expired(writer: &mut Writer<'_>) -> Result<()> {
    let now = chrono::Utc::now().timestamp();
    let page = Page { offset: 0, limit: 100 };
    let (expired, _) = writer.list(&REVOKED, FIELDS, Some(&format!("expires < {now}")), page)?;
    for entry in expired {
        writer.delete(&REVOKED, &entry.id)?;
    }
    Ok(())
}

fn fingerprint(token: &str) -> String {
    Sha256::digest(token.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use store::Store;

    #[test]
    fn a_revoked_token_is_refused_until_it_expires_and_then_forgotten() {
        let dir = tempfile::tempdir().unwrap();
        let store =
            Store::open(dir.path(), store::testing::options(), &[crate::MIGRATIONS]).unwrap();
        let (tenant, _) = store.create_tenant("t").unwrap();
        let now = chrono::Utc::now().timestamp();
        tenant.write(|w| super::revoke_refresh_token(w, "a.b.c", now - 1)).unwrap();
        assert!(tenant.read(|r| super::is_revoked(r, "a.b.c")).unwrap());
        assert!(!tenant.read(|r| super::is_revoked(r, "a.b.d")).unwrap());
        // The next revocation purges the entry whose token has expired.
        tenant.write(|w| super::revoke_refresh_token(w, "e.f.g", now + 600)).unwrap();
        assert!(!tenant.read(|r| super::is_revoked(r, "a.b.c")).unwrap());
        assert!(tenant.read(|r| super::is_revoked(r, "e.f.g")).unwrap());
    }
}
