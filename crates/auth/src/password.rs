//! Password hashing with argon2id and a random salt per password.

use argon2::{
    Argon2, PasswordHash, PasswordHasher, PasswordVerifier,
    password_hash::{SaltString, rand_core::OsRng},
};

use crate::{Error, Result};

/// Hashes a password into a PHC string (algorithm, parameters, salt and hash).
pub fn hash_password(password: &str) -> Result<String> {
    let salt = SaltString::generate(&mut OsRng);
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map(|hash| hash.to_string())
        .map_err(|e| Error::Hashing(e.to_string()))
}

/// Whether `password` matches a PHC string made by [`hash_password`].
pub fn verify_password(phc: &str, password: &str) -> Result<bool> {
    let hash = PasswordHash::new(phc).map_err(|e| Error::Corrupt(format!("password hash: {e}")))?;
    Ok(Argon2::default().verify_password(password.as_bytes(), &hash).is_ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_are_salted_and_verify() {
        let a = hash_password("s3cret").unwrap();
        let b = hash_password("s3cret").unwrap();
        assert_ne!(a, b, "two hashes of one password differ by salt");
        assert!(a.starts_with("$argon2id$"));
        assert!(verify_password(&a, "s3cret").unwrap());
        assert!(!verify_password(&a, "S3cret").unwrap());
        assert!(verify_password("not a hash", "x").is_err());
    }
}
