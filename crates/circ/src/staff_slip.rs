//! FOLIO's `staffSlipContext` in the check-in response: what a transit or hold slip
//! prints, and what the desk tells the person at the counter: where the item goes
//! next (`item.toServicePoint`) and, when it fills a request, for whom (`requester`).
//!
//! Owns the shape of the context (the tokens of mod-circulation's
//! `TemplateContextUtil`, the ones Quire can fill). Does not own the check-in that
//! decides the routing, or slip templates.

use folio::Timestamp;
use serde::Serialize;
use store::Reader;
use uuid::Uuid;

use crate::Result;
use crate::item_context::ItemContext;
use crate::model::Request;

/// The context of one check-in.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StaffSlipContext {
    pub item: SlipItem,
    /// The request the item now serves (the head of its queue), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request: Option<SlipRequest>,
    /// Who made that request.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub requester: Option<SlipRequester>,
    pub current_date_time: Timestamp,
}

/// The item's slip tokens.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SlipItem {
    pub title: String,
    pub all_contributors: String,
    pub barcode: Option<String>,
    pub status: &'static str,
    pub call_number: Option<String>,
    pub material_type: String,
    pub effective_location_specific: String,
    pub last_checked_in_date_time: Timestamp,
    /// Where it was checked in.
    pub from_service_point: String,
    /// Where it travels to, when it is In transit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to_service_point: Option<String>,
}

/// The request's slip tokens.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SlipRequest {
    #[serde(rename = "requestID")]
    pub request_id: Option<Uuid>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub service_point_pickup: Option<String>,
    pub request_date: Timestamp,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_expiration_date: Option<Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hold_shelf_expiration_date: Option<Timestamp>,
}

/// The requester's slip tokens; FOLIO gives the first name as the preferred one when
/// there is none, and the patron group by name.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SlipRequester {
    pub first_name: Option<String>,
    pub preferred_first_name: Option<String>,
    pub middle_name: Option<String>,
    pub last_name: Option<String>,
    pub barcode: Option<String>,
    pub patron_group: String,
}

/// The context of a check-in at `checked_in_at` that left `item` as it is, serving
/// `request` if the item fills one.
pub(crate) fn for_check_in(
    reader: &Reader<'_>,
    item: &ItemContext,
    request: Option<&Request>,
    checked_in_at: &inventory::model::ServicePoint,
    now: Timestamp,
) -> Result<StaffSlipContext> {
    let to_service_point = match item.item.in_transit_destination_service_point_id {
        Some(id) => service_point_name(reader, id)?,
        None => None,
    };
    let slip_item = SlipItem {
        title: item.title.clone(),
        all_contributors: item.contributors.join("; "),
        barcode: item.item.barcode.clone(),
        status: item.status_name(),
        call_number: item.call_number(),
        material_type: item.material_type.clone(),
        effective_location_specific: item.location_name.clone(),
        last_checked_in_date_time: now,
        from_service_point: checked_in_at.name.clone(),
        to_service_point,
    };
    let (request, requester) = match request {
        Some(request) => (Some(slip_request(reader, request)?), requester(reader, request)?),
        None => (None, None),
    };
    Ok(StaffSlipContext { item: slip_item, request, requester, current_date_time: now })
}

fn slip_request(reader: &Reader<'_>, request: &Request) -> Result<SlipRequest> {
    let service_point_pickup = match request.pickup_service_point_id {
        Some(id) => service_point_name(reader, id)?,
        None => None,
    };
    Ok(SlipRequest {
        request_id: request.id,
        service_point_pickup,
        request_date: request.request_date,
        request_expiration_date: request.request_expiration_date,
        hold_shelf_expiration_date: request.hold_shelf_expiration_date,
    })
}

/// The requester, unless their record is gone.
fn requester(reader: &Reader<'_>, request: &Request) -> Result<Option<SlipRequester>> {
    let Some(user) = auth::get_user(reader, request.requester_id)? else {
        return Ok(None);
    };
    let patron_group = match user.patron_group {
        Some(id) => auth::get_group(reader, id)?.and_then(|g| g.record.group),
        None => None,
    };
    let personal = user.personal.clone().unwrap_or_default();
    Ok(Some(SlipRequester {
        preferred_first_name: personal.preferred_first_name.or(personal.first_name.clone()),
        first_name: personal.first_name,
        middle_name: personal.middle_name,
        last_name: personal.last_name,
        barcode: user.barcode.clone(),
        patron_group: patron_group.unwrap_or_default(),
    }))
}

fn service_point_name(reader: &Reader<'_>, id: Uuid) -> Result<Option<String>> {
    Ok(inventory::get_service_point(reader, id)?.map(|point| point.name))
}
