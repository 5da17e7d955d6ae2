//! Where things are: the location-unit hierarchy (institution → campus → library),
//! shelf locations, and the service points that serve them. FOLIO schemas
//! `location-units/loc{inst,camp,lib}.json`, `locations/location.json`,
//! `service-points/servicepoint.json`.

use serde::{Deserialize, Serialize};
use uuid::Uuid;

use folio::Metadata;

use crate::model::Virtual;
use crate::model::nullable;

/// `/location-units/institutions` (collection key `locinsts`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Institution {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Uuid>,
    /// Unique per tenant. (The code is not: FOLIO has no unique index on it.)
    pub name: String,
    pub code: String,
    /// A consortium member's unit mirrored into the central tenant.
    #[serde(default, deserialize_with = "nullable::or_default")]
    pub is_shadow: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

/// `/location-units/campuses` (collection key `loccamps`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Campus {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Uuid>,
    /// Unique per tenant.
    pub name: String,
    pub code: String,
    pub institution_id: Uuid,
    #[serde(default, deserialize_with = "nullable::or_default")]
    pub is_shadow: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

/// `/location-units/libraries` (collection key `loclibs`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Library {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Uuid>,
    /// Unique per tenant.
    pub name: String,
    pub code: String,
    pub campus_id: Uuid,
    #[serde(default, deserialize_with = "nullable::or_default")]
    pub is_shadow: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

/// `/locations`: a shelf location, the leaf of the location-unit hierarchy.
///
/// Invariant (checked by the store, not here): `campusId` belongs to `institutionId`
/// and `libraryId` to `campusId`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Location {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Uuid>,
    /// Unique per tenant.
    pub name: String,
    /// Unique per tenant; by convention the path of codes (`KU/CC/DI/M`).
    pub code: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub discovery_display_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_active: Option<bool>,
    pub institution_id: Uuid,
    #[serde(default, skip_serializing)]
    pub institution: Virtual,
    pub campus_id: Uuid,
    #[serde(default, skip_serializing)]
    pub campus: Virtual,
    pub library_id: Uuid,
    #[serde(default, skip_serializing)]
    pub library: Virtual,
    /// Free-form key/value details; FOLIO's schema gives them no shape.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<serde_json::Map<String, serde_json::Value>>,
    pub primary_service_point: Uuid,
    #[serde(default, skip_serializing)]
    pub primary_service_point_object: Virtual,
    #[serde(default, deserialize_with = "nullable::vec")]
    pub service_point_ids: Vec<Uuid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_floating_collection: Option<bool>,
    #[serde(default, skip_serializing)]
    pub service_points: Virtual,
    #[serde(default, deserialize_with = "nullable::or_default")]
    pub is_shadow: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

/// `/service-points` (collection key `servicepoints`): a desk where items are checked
/// out, checked in and picked up.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ServicePoint {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Uuid>,
    /// Unique per tenant.
    pub name: String,
    /// Unique per tenant.
    pub code: String,
    pub discovery_display_name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Minutes an item spends on the reshelving cart.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shelving_lag_time: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pickup_location: Option<bool>,
    /// How long a hold waits on the shelf. FOLIO requires it when `pickupLocation` is
    /// true; that cross-field rule belongs to the service-point verbs, not the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hold_shelf_expiry_period: Option<TimePeriod>,
    #[serde(default, deserialize_with = "nullable::or_default")]
    pub hold_shelf_closed_library_date_management: ClosedLibraryDateManagement,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_check_in_action_for_use_at_location: Option<CheckInActionForUseAtLocation>,
    #[serde(default, deserialize_with = "nullable::vec")]
    pub staff_slips: Vec<StaffSlip>,
    #[serde(default, deserialize_with = "nullable::or_default")]
    pub ecs_request_routing: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

/// A duration in whole units (`service-points/time-period.json`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TimePeriod {
    pub duration: i32,
    pub interval_id: TimeInterval,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum TimeInterval {
    Minutes,
    Hours,
    Days,
    Weeks,
    Months,
}

/// What happens to a hold-shelf expiry date that falls on a closed day.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum ClosedLibraryDateManagement {
    #[default]
    #[serde(rename = "Keep_the_current_due_date")]
    KeepTheCurrentDueDate,
    #[serde(rename = "Move_to_the_end_of_the_previous_open_day")]
    MoveToTheEndOfThePreviousOpenDay,
    #[serde(rename = "Move_to_the_end_of_the_next_open_day")]
    MoveToTheEndOfTheNextOpenDay,
    #[serde(rename = "Keep_the_current_due_date_time")]
    KeepTheCurrentDueDateTime,
    #[serde(rename = "Move_to_end_of_current_service_point_hours")]
    MoveToEndOfCurrentServicePointHours,
    #[serde(rename = "Move_to_beginning_of_next_open_service_point_hours")]
    MoveToBeginningOfNextOpenServicePointHours,
}

/// What check-in does with an item that was being used in the library.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum CheckInActionForUseAtLocation {
    #[serde(rename = "Keep_on_hold_shelf")]
    KeepOnHoldShelf,
    #[serde(rename = "Close_loan_and_return_item")]
    CloseLoanAndReturnItem,
    #[serde(rename = "Ask_for_action")]
    AskForAction,
}

/// Whether a staff slip template prints by default at this service point.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StaffSlip {
    pub id: Uuid,
    pub print_by_default: bool,
}
