//! `Request`: a patron's hold, recall or page (mod-circulation-storage `request.json`).

use folio::{Metadata, Timestamp};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::Other;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum RequestType {
    Hold,
    Recall,
    Page,
}

impl RequestType {
    pub fn as_str(self) -> &'static str {
        match self {
            RequestType::Hold => "Hold",
            RequestType::Recall => "Recall",
            RequestType::Page => "Page",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RequestStatus {
    #[serde(rename = "Open - Not yet filled")]
    OpenNotYetFilled,
    #[serde(rename = "Open - Awaiting pickup")]
    OpenAwaitingPickup,
    #[serde(rename = "Open - In transit")]
    OpenInTransit,
    #[serde(rename = "Open - Awaiting delivery")]
    OpenAwaitingDelivery,
    #[serde(rename = "Closed - Filled")]
    ClosedFilled,
    #[serde(rename = "Closed - Cancelled")]
    ClosedCancelled,
    #[serde(rename = "Closed - Unfilled")]
    ClosedUnfilled,
    #[serde(rename = "Closed - Pickup expired")]
    ClosedPickupExpired,
}

impl RequestStatus {
    pub const OPEN: [RequestStatus; 4] = [
        RequestStatus::OpenNotYetFilled,
        RequestStatus::OpenAwaitingPickup,
        RequestStatus::OpenInTransit,
        RequestStatus::OpenAwaitingDelivery,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            RequestStatus::OpenNotYetFilled => "Open - Not yet filled",
            RequestStatus::OpenAwaitingPickup => "Open - Awaiting pickup",
            RequestStatus::OpenInTransit => "Open - In transit",
            RequestStatus::OpenAwaitingDelivery => "Open - Awaiting delivery",
            RequestStatus::ClosedFilled => "Closed - Filled",
            RequestStatus::ClosedCancelled => "Closed - Cancelled",
            RequestStatus::ClosedUnfilled => "Closed - Unfilled",
            RequestStatus::ClosedPickupExpired => "Closed - Pickup expired",
        }
    }

    pub fn is_open(self) -> bool {
        RequestStatus::OPEN.contains(&self)
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Request {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Uuid>,
    pub request_type: RequestType,
    /// `Item` or `Title`; Quire places item-level requests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_level: Option<String>,
    pub request_date: Timestamp,
    pub requester_id: Uuid,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proxy_user_id: Option<Uuid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instance_id: Option<Uuid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub holdings_record_id: Option<Uuid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub item_id: Option<Uuid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<RequestStatus>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<u32>,
    /// `Hold Shelf` or `Delivery`.
    pub fulfillment_preference: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pickup_service_point_id: Option<Uuid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_expiration_date: Option<Timestamp>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hold_shelf_expiration_date: Option<Timestamp>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancellation_reason_id: Option<Uuid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancelled_date: Option<Timestamp>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
    #[serde(flatten)]
    pub other: Other,
}

impl Request {
    pub fn status(&self) -> RequestStatus {
        self.status.unwrap_or(RequestStatus::OpenNotYetFilled)
    }
}
