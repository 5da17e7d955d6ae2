//! The `metadata` block of every FOLIO record (raml-util `metadata.schema`): who created
//! and last changed the record, and when. The server writes it on every create and
//! update; whatever a client sends in its place is replaced, so reading it is lenient.

use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::Timestamp;

/// FOLIO's `metadata`.
///
/// FOLIO's schema lists `createdDate` and `createdByUserId` as required, but its storage
/// modules omit the user when a request carries none, and clients send such records
/// back; a record Quire stored always has both dates.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Metadata {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_date: Option<Timestamp>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_by_user_id: Option<Uuid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_by_username: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_date: Option<Timestamp>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_by_user_id: Option<Uuid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_by_username: Option<String>,
}

/// Who is making a change, for `metadata.*ByUserId`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Actor {
    pub user_id: Option<Uuid>,
}

/// The `metadata` for a write now by `actor`: creation kept from the stored record's
/// `previous` metadata, if any; updated now.
pub fn stamp(previous: Option<&Metadata>, actor: Actor) -> Metadata {
    let now = Timestamp::now();
    let created = previous.filter(|p| p.created_date.is_some());
    Metadata {
        created_date: Some(created.and_then(|p| p.created_date).unwrap_or(now)),
        created_by_user_id: created.map_or(actor.user_id, |p| p.created_by_user_id),
        created_by_username: created.and_then(|p| p.created_by_username.clone()),
        updated_date: Some(now),
        updated_by_user_id: actor.user_id,
        updated_by_username: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn creation_is_kept_and_the_update_is_now() {
        let alice = Actor { user_id: Some(Uuid::from_u128(1)) };
        let bob = Actor { user_id: Some(Uuid::from_u128(2)) };
        let created = stamp(None, alice);
        assert_eq!(created.created_date, created.updated_date);
        assert_eq!(
            (created.created_by_user_id, created.updated_by_user_id),
            (alice.user_id, alice.user_id)
        );
        let updated = stamp(Some(&created), bob);
        assert_eq!(updated.created_date, created.created_date);
        assert_eq!(
            (updated.created_by_user_id, updated.updated_by_user_id),
            (alice.user_id, bob.user_id)
        );
        assert!(updated.updated_date >= created.updated_date);
        // Whatever a client sent is read, and replaced on the next write.
        let sent: Metadata =
            serde_json::from_str(r#"{"createdByUsername": "x", "someday": 1}"#).unwrap();
        assert_eq!(stamp(Some(&sent), alice).created_by_user_id, alice.user_id);
    }
}
