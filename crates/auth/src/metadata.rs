//! The `metadata` block every mod-users record carries: who created and last changed it,
//! and when. The server sets it; whatever a client sends in its place is replaced.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// FOLIO's `metadata.schema`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Metadata {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub created_date: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub created_by_user_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub updated_date: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub updated_by_user_id: Option<String>,
    /// Fields kept as stored (`createdByUsername`, ...).
    #[serde(flatten)]
    pub other: serde_json::Map<String, serde_json::Value>,
}

impl Metadata {
    /// The metadata of a record created now by `actor`.
    pub(crate) fn created(now: DateTime<Utc>, actor: Option<Uuid>) -> Metadata {
        let now = crate::datetime::format(&now);
        let actor = actor.map(|a| a.to_string());
        Metadata {
            created_date: Some(now.clone()),
            created_by_user_id: actor.clone(),
            updated_date: Some(now),
            updated_by_user_id: actor,
            other: serde_json::Map::new(),
        }
    }

    /// The metadata of a stored record updated now by `actor`: creation stays as stored.
    pub(crate) fn updated(
        stored: Option<Metadata>,
        now: DateTime<Utc>,
        actor: Option<Uuid>,
    ) -> Metadata {
        let mut metadata = Metadata::created(now, actor);
        if let Some(stored) = stored {
            metadata.created_date = stored.created_date;
            metadata.created_by_user_id = stored.created_by_user_id;
            metadata.other = stored.other;
        }
        metadata
    }
}
