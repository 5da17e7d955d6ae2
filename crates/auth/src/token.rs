//! Signed tokens in JWT form (HS256), the shape FOLIO clients expect in `X-Okapi-Token`.
//!
//! Written here rather than with a JWT crate because Quire needs exactly one algorithm,
//! mints and verifies its own tokens only, and verification sits on every request: a
//! fixed header, one HMAC-SHA256 and a small serde parse, with no algorithm negotiation
//! to get wrong.

use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;

use crate::{Error, Result};

type HmacSha256 = Hmac<Sha256>;

/// `{"alg":"HS256","typ":"JWT"}`, base64url-encoded.
const HEADER: &str = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9";

/// What a token is for, FOLIO's `type` claim.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TokenType {
    /// A short-lived token from `/authn/login-with-expiry`.
    Access,
    /// The token that buys a new access token at `/authn/refresh`.
    Refresh,
    /// A token from the legacy `/authn/login`.
    Legacy,
}

/// The claims of a token (FOLIO's names: `sub`, `user_id`, `tenant`, `type`, `iat`, `exp`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Claims {
    /// The username.
    pub sub: String,
    pub user_id: uuid::Uuid,
    pub tenant: String,
    #[serde(rename = "type")]
    pub token_type: TokenType,
    /// Issued at, seconds since the epoch.
    pub iat: i64,
    /// Expires at, seconds since the epoch.
    pub exp: i64,
    /// The token epoch of its user's credentials when it was issued (Quire's claim): a
    /// token holds while the credentials keep that epoch, and they take a new one when
    /// the user is deactivated or deleted or their credentials are. Absent reads 0.
    #[serde(default)]
    pub epoch: u64,
}

impl Claims {
    /// Claims issued now, valid for `ttl_seconds`.
    pub fn new(
        username: &str,
        user_id: uuid::Uuid,
        tenant: &str,
        token_type: TokenType,
        ttl_seconds: i64,
    ) -> Claims {
        let now = chrono::Utc::now().timestamp();
        Claims {
            sub: username.to_string(),
            user_id,
            tenant: tenant.to_string(),
            token_type,
            iat: now,
            exp: now + ttl_seconds,
            epoch: 0,
        }
    }

    /// The claims for a token of the credentials' epoch `epoch`.
    pub fn in_epoch(self, epoch: u64) -> Claims {
        Claims { epoch, ..self }
    }
}

/// The secret that signs and verifies tokens.
#[derive(Clone)]
pub struct TokenKey {
    secret: [u8; 32],
}

impl std::fmt::Debug for TokenKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TokenKey(..)")
    }
}

impl TokenKey {
    pub fn from_bytes(secret: [u8; 32]) -> TokenKey {
        TokenKey { secret }
    }

    /// A fresh random key.
    pub fn generate() -> TokenKey {
        TokenKey { secret: rand::random() }
    }

    pub fn to_hex(&self) -> String {
        self.secret.iter().map(|b| format!("{b:02x}")).collect()
    }

    pub fn from_hex(hex: &str) -> Option<TokenKey> {
        let hex = hex.trim();
        if hex.len() != 64 {
            return None;
        }
        let mut secret = [0u8; 32];
        for (idx, byte) in secret.iter_mut().enumerate() {
            *byte = u8::from_str_radix(hex.get(idx * 2..idx * 2 + 2)?, 16).ok()?;
        }
        Some(TokenKey { secret })
    }

    /// Signs claims into a token.
    pub fn sign(&self, claims: &Claims) -> String {
        let payload = URL_SAFE_NO_PAD.encode(serde_json::to_vec(claims).expect("claims serialize"));
        let signing_input = format!("{HEADER}.{payload}");
        let signature =
            URL_SAFE_NO_PAD.encode(self.mac(signing_input.as_bytes()).finalize().into_bytes());
        format!("{signing_input}.{signature}")
    }

    /// Verifies a token's signature and expiry and returns its claims.
    pub fn verify(&self, token: &str) -> Result<Claims> {
        let (signing_input, signature) =
            token.rsplit_once('.').ok_or(Error::InvalidToken("not a JWT"))?;
        let (header, payload) =
            signing_input.split_once('.').ok_or(Error::InvalidToken("not a JWT"))?;
        if header != HEADER {
            return Err(Error::InvalidToken("unsupported header"));
        }
        let signature = URL_SAFE_NO_PAD
            .decode(signature)
            .map_err(|_| Error::InvalidToken("bad signature encoding"))?;
        // verify_slice compares in constant time.
        self.mac(signing_input.as_bytes())
            .verify_slice(&signature)
            .map_err(|_| Error::InvalidToken("signature does not match"))?;
        let payload = URL_SAFE_NO_PAD
            .decode(payload)
            .map_err(|_| Error::InvalidToken("bad payload encoding"))?;
        let claims: Claims =
            serde_json::from_slice(&payload).map_err(|_| Error::InvalidToken("bad claims"))?;
        if claims.exp <= chrono::Utc::now().timestamp() {
            return Err(Error::ExpiredToken);
        }
        Ok(claims)
    }

    fn mac(&self, data: &[u8]) -> HmacSha256 {
        let mut mac = HmacSha256::new_from_slice(&self.secret).expect("HMAC takes any key length");
        mac.update(data);
        mac
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claims(ttl: i64) -> Claims {
        Claims::new("jane", uuid::Uuid::from_u128(42), "diku", TokenType::Access, ttl)
    }

    #[test]
    fn round_trip_and_tampering() {
        let key = TokenKey::from_bytes([1; 32]);
        let token = key.sign(&claims(60));
        assert_eq!(key.verify(&token).unwrap(), Claims { ..key.verify(&token).unwrap() });
        assert_eq!(key.verify(&token).unwrap().sub, "jane");

        let other = TokenKey::from_bytes([2; 32]);
        assert!(matches!(other.verify(&token), Err(Error::InvalidToken(_))));

        // Swap in a payload naming another tenant, keeping the old signature.
        let forged_claims = Claims { tenant: "other".into(), ..claims(60) };
        let forged_payload = URL_SAFE_NO_PAD.encode(serde_json::to_vec(&forged_claims).unwrap());
        let parts: Vec<&str> = token.split('.').collect();
        let forged = format!("{}.{}.{}", parts[0], forged_payload, parts[2]);
        assert!(matches!(key.verify(&forged), Err(Error::InvalidToken(_))));

        assert!(matches!(key.verify(&key.sign(&claims(-1))), Err(Error::ExpiredToken)));
        assert!(matches!(key.verify("garbage"), Err(Error::InvalidToken(_))));
        assert!(matches!(key.verify("a.b.c"), Err(Error::InvalidToken(_))));
    }

    #[test]
    fn hex_round_trip() {
        let key = TokenKey::generate();
        assert_eq!(TokenKey::from_hex(&key.to_hex()).unwrap().secret, key.secret);
        assert!(TokenKey::from_hex("zz").is_none());
    }
}
