//! The crate's errors, in mod-di-converter-storage's words. The caller's faults (a bad
//! body, a rule broken, a default profile touched, a profile in use) are kept apart from
//! the system's (the store failed, a stored record does not read back).

use uuid::Uuid;

use crate::ProfileType;

/// A profiles error.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// No profile of the type with the id (FOLIO's 404).
    #[error("{} with id '{id}' was not found", kind.title())]
    ProfileNotFound { kind: ProfileType, id: Uuid },
    #[error("Profile association with id '{0}' was not found")]
    AssociationNotFound(Uuid),
    #[error("Profile snapshot with id '{0}' was not found")]
    SnapshotNotFound(Uuid),
    /// A link to add names a profile that does not exist. FOLIO answers 404 with its
    /// words for the job's actions and matches ("Linked ActionProfiles with ids ..."),
    /// and names the master or the detail otherwise.
    #[error("{}", missing_link(*kind, *master, ids))]
    LinkedNotFound { kind: ProfileType, master: bool, ids: Vec<Uuid> },
    /// The rules a write breaks, each in FOLIO's message (FOLIO's 422 with one error per
    /// message).
    #[error("{}", .0.join("; "))]
    Invalid(Vec<String>),
    /// A change to one of FOLIO's default profiles that FOLIO refuses (400).
    #[error("Can`t {} default {kind} with id {id}", if *delete { "delete" } else { "update" })]
    DefaultProfile { kind: ProfileType, id: Uuid, delete: bool },
    /// A profile some other profile links to as a detail cannot be deleted (409).
    #[error("Can not delete profile by id '{0}' cause profile associated with other profiles")]
    InUse(Uuid),
    /// A profile type parameter that names none (400).
    #[error(
        "The specified type: {0} is wrong. It should be [ACTION_PROFILE, MAPPING_PROFILE, MATCH_PROFILE, JOB_PROFILE]"
    )]
    UnknownType(String),
    #[error(transparent)]
    Decode(#[from] folio::DecodeError),
    #[error(transparent)]
    Store(#[from] store::Error),
    /// A stored record that does not read back as its type.
    #[error("corrupt {record} {id}: {message}")]
    Corrupt { record: &'static str, id: String, message: String },
}

/// The crate's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

fn missing_link(kind: ProfileType, master: bool, ids: &[Uuid]) -> String {
    let quoted = ids.iter().map(|id| format!("'{id}'")).collect::<Vec<_>>().join(", ");
    match kind {
        ProfileType::ActionProfile if !master => {
            format!("Linked ActionProfiles with ids {quoted} were not found")
        }
        ProfileType::MatchProfile if !master => {
            format!("Linked MatchProfiles with ids {quoted} were not found")
        }
        _ if master => format!("Master profile with id {quoted} was not found"),
        _ => format!("Detail profile with id {quoted} was not found"),
    }
}

/// A shared record verb's failure, in this crate's words.
impl From<folio::record::Error> for Error {
    fn from(e: folio::record::Error) -> Error {
        match e {
            folio::record::Error::Store(e) => Error::Store(e),
            folio::record::Error::Corrupt { record, id, message } => {
                Error::Corrupt { record, id, message }
            }
            // The verbs below look records up before they write them, and profiles carry
            // no `_version`: these would be faults.
            e @ (folio::record::Error::NotFound { .. }
            | folio::record::Error::IdMismatch { .. }
            | folio::record::Error::VersionConflict { .. }) => {
                Error::Corrupt { record: "profile", id: String::new(), message: e.to_string() }
            }
        }
    }
}
