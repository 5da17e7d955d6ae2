//! Errors of authentication, users, patron groups and proxies.
//!
//! Messages of the user, group and proxy errors are mod-users' own text, so a FOLIO client
//! that matches on them keeps working.

use uuid::Uuid;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Wrong username or password; deliberately does not say which.
    #[error("Password does not match")]
    BadCredentials,
    #[error("User must be flagged as active")]
    InactiveUser,
    #[error("No user found by username {0}")]
    UnknownUsername(String),
    /// mod-login's answer to a password change with the wrong current password.
    #[error("Invalid credentials")]
    WrongPassword,
    #[error("There already exists credentials for user id '{0}'")]
    CredentialsExist(Uuid),
    #[error("No credentials for userId {0} found")]
    NoCredentials(Uuid),
    #[error("Invalid token: {0}")]
    InvalidToken(&'static str),
    #[error("Token expired")]
    ExpiredToken,
    /// A user's id, username or barcode is already another user's. mod-users answers a
    /// create with 422 and an update with 400, hence `write`.
    #[error("{}", .field.message())]
    UserTaken { field: UniqueUserField, value: String, write: Write },
    /// The user names a patron group that does not exist.
    #[error("Cannot add {0}. Patron group not found")]
    UnknownPatronGroup(Uuid),
    /// A PUT whose body names another record than its path.
    #[error("You cannot change the value of the id field")]
    IdMismatch,
    #[error("{record} not found: {id}")]
    NotFound { record: &'static str, id: String },
    /// mod-users reports the name lower-cased, in the words of its unique index.
    #[error("lower(f_unaccent(jsonb ->> 'group'::text)) value already exists in table groups: {0}")]
    GroupNameTaken(String),
    #[error("Cannot delete groups.id = {0} because id is still referenced from table users.")]
    GroupInUse(Uuid),
    #[error("Proxy relationship already exists")]
    ProxyExists { id: Option<Uuid> },
    /// A request body that is not JSON (400), or not of the model's shape (422).
    #[error(transparent)]
    Decode(#[from] folio::DecodeError),
    /// A record that is JSON but breaks its schema (a missing required field, a wrong type).
    #[error("{message}")]
    Invalid { field: String, message: String },
    /// A user's `customFields` break their definitions: one entry per problem.
    #[error("{}", .0.first().map_or("", |p| p.message.as_str()))]
    CustomFieldValues(Vec<crate::custom_fields::FieldProblem>),
    #[error("password hashing failed: {0}")]
    Hashing(String),
    #[error(transparent)]
    Store(#[from] store::Error),
    #[error("corrupt auth data: {0}")]
    Corrupt(String),
}

impl Error {
    /// A record verb's failure in mod-users' words; `unique` words a storage error, a
    /// taken value among them, for the record type.
    pub(crate) fn from_record(
        e: folio::record::Error,
        unique: impl FnOnce(store::Error) -> Error,
    ) -> Error {
        match e {
            folio::record::Error::NotFound { record, id } => {
                Error::NotFound { record, id: id.to_string() }
            }
            folio::record::Error::IdMismatch { .. } => Error::IdMismatch,
            folio::record::Error::Store(e) => unique(e),
            // Users, groups and proxies carry no `_version`: a conflict means a fault.
            e @ (folio::record::Error::Corrupt { .. }
            | folio::record::Error::VersionConflict { .. }) => Error::Corrupt(e.to_string()),
        }
    }
}

/// The user fields no two users may share.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UniqueUserField {
    Id,
    Username,
    Barcode,
}

impl UniqueUserField {
    /// The JSON property.
    pub fn name(self) -> &'static str {
        match self {
            UniqueUserField::Id => "id",
            UniqueUserField::Username => "username",
            UniqueUserField::Barcode => "barcode",
        }
    }

    fn message(self) -> &'static str {
        match self {
            UniqueUserField::Id => "User with this id already exists",
            UniqueUserField::Username => "User with this username already exists",
            UniqueUserField::Barcode => "This barcode has already been taken",
        }
    }
}

/// Which kind of write failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Write {
    Create,
    Update,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
