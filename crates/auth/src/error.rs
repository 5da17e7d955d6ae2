//! Errors of authentication and user management.

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Wrong username or password; deliberately does not say which.
    #[error("Password does not match")]
    BadCredentials,
    #[error("User must be flagged as active")]
    InactiveUser,
    #[error("No user found by username {0}")]
    UnknownUsername(String),
    #[error("Invalid token: {0}")]
    InvalidToken(&'static str),
    #[error("Token expired")]
    ExpiredToken,
    #[error("User with username {0} already exists")]
    UsernameTaken(String),
    #[error("User with id {0} already exists")]
    DuplicateUserId(String),
    #[error("{field}: {message}")]
    InvalidUser { field: String, message: String },
    #[error("password hashing failed: {0}")]
    Hashing(String),
    #[error(transparent)]
    Store(#[from] store::Error),
    #[error("corrupt auth data: {0}")]
    Corrupt(String),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
