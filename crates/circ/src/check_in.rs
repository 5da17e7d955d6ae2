//! `POST /circulation/check-in-by-barcode`: an item comes back to a service point.
//!
//! In one transaction: the check-in is logged, the open loan (if any) is closed, the
//! first request in the queue moves to Awaiting pickup (here) or In transit (to its
//! pickup service point), the item's status follows (Awaiting pickup, In transit, or
//! Available when this service point serves its location), and a late return is
//! fined under the loan's overdue fine policy.

use chrono::{DateTime, Utc};
use folio::{Actor, Timestamp};
use inventory::ItemStatusName;
use serde::Deserialize;
use store::Writer;
use uuid::Uuid;

use crate::check_out::open_loan;
use crate::item_context::ItemContext;
use crate::model::{
    Account, CheckIn, Loan, LoanPolicy, LoanStatus, OverdueFinePolicy, RequestStatus,
};
use crate::views::Embedded;
use crate::{Error, Refusal, Result, fines, queue, records};

/// The check-in request body (mod-circulation `check-in-by-barcode-request.json`).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckInRequest {
    #[serde(default)]
    pub item_barcode: Option<String>,
    #[serde(default)]
    pub service_point_id: Option<Uuid>,
    #[serde(default)]
    pub check_in_date: Option<Timestamp>,
    #[serde(default)]
    pub claimed_returned_resolution: Option<String>,
    #[serde(flatten)]
    pub other: serde_json::Map<String, serde_json::Value>,
}

/// What a check-in did.
pub struct CheckInOutcome {
    pub loan: Option<Loan>,
    pub in_house_use: bool,
    pub fine: Option<Account>,
    item: ItemContext,
}

impl CheckInOutcome {
    /// The item as the check-in response shows it.
    pub fn item(&self) -> serde_json::Value {
        self.item.summary()
    }

    /// The closed loan, if there was one, with its embedded objects; read in the
    /// check-in's own transaction, the item is not loaded again.
    pub fn loan_view(&self, reader: &store::Reader<'_>) -> Result<Option<serde_json::Value>> {
        let view = |loan| Embedded::default().loan_view(reader, loan, Some(&self.item));
        self.loan.as_ref().map(view).transpose()
    }
}

pub fn check_in(
    writer: &mut Writer<'_>,
    request: CheckInRequest,
    actor: Actor,
    now: DateTime<Utc>,
) -> Result<CheckInOutcome> {
    let mut refusals = Vec::new();
    if request.item_barcode.as_deref().is_none_or(str::is_empty) {
        refusals.push(Refusal::new("Checkin request must have an item barcode", "itemBarcode", ""));
    }
    if request.service_point_id.is_none() {
        refusals.push(Refusal::new(
            "Checkin request must have a service point id",
            "servicePointId",
            "",
        ));
    }
    if request.check_in_date.is_none() {
        refusals.push(Refusal::new(
            "Checkin request must have an check in date",
            "checkInDate",
            "",
        ));
    }
    if !refusals.is_empty() {
        return Err(Error::Refused(refusals));
    }
    let barcode = request.item_barcode.unwrap_or_default();
    let sp = request.service_point_id.expect("checked above");
    let returned = request.check_in_date.expect("checked above").as_datetime();
    let Some(service_point) = inventory::get_service_point(writer, sp)? else {
        return Err(Error::refused(Refusal::new(
            format!("No service point with id {sp} exists"),
            "servicePointId",
            sp.to_string(),
        )));
    };
    let Some(item) = inventory::item_by_barcode(writer, &barcode)? else {
        return Err(Error::refused(Refusal::new(
            format!("No item with barcode {barcode} exists"),
            "itemBarcode",
            &barcode,
        )));
    };
    let mut item = ItemContext::load(writer, item)?;
    let status_before = item.item.status.name;
    match status_before {
        ItemStatusName::IntellectualItem => {
            return Err(Error::refused(Refusal::new(
                format!(
                    "{} ({}) (Barcode: {}) has the item status Intellectual item and cannot be checked in",
                    item.title, item.material_type, barcode
                ),
                "itemBarcode",
                &barcode,
            )));
        }
        ItemStatusName::ClaimedReturned if request.claimed_returned_resolution.is_none() => {
            return Err(Error::refused(Refusal::new(
                "Item is claimed returned, a resolution is required to check in",
                "claimedReturnedResolution",
                "",
            )));
        }
        _ => {}
    }
    let item_id = item.item.id.expect("a stored item has an id");
    let mut queue = queue::open_requests(writer, item_id)?;
    let location = match item.item.effective_location_id {
        Some(id) => inventory::get_location(writer, id)?,
        None => None,
    };
    let serves_location = location.as_ref().is_some_and(|l| {
        l.service_point_ids.contains(&sp) || l.is_floating_collection == Some(true)
    });
    let in_house_use =
        status_before == ItemStatusName::Available && queue.is_empty() && serves_location;

    records::create(
        writer,
        CheckIn {
            id: Some(Uuid::new_v4()),
            occurred_date_time: Timestamp::from(returned),
            item_id,
            item_status_prior_to_check_in: Some(item.status_name().to_string()),
            request_queue_size: Some(u32::try_from(queue.len()).unwrap_or(u32::MAX)),
            item_location_id: item.item.effective_location_id,
            service_point_id: sp,
            performed_by_user_id: actor.user_id,
            metadata: None,
            other: Default::default(),
        },
        actor,
    )?;

    // The request the item can now fill, and where the item goes next.
    let mut next_status = ItemStatusName::Available;
    let mut destination = None;
    if let Some(head) = queue.first_mut() {
        let delivery = head.fulfillment_preference == "Delivery";
        let pickup = head.pickup_service_point_id;
        let (request_status, item_status) = if delivery {
            (RequestStatus::OpenAwaitingDelivery, ItemStatusName::AwaitingDelivery)
        } else if pickup == Some(sp) {
            (RequestStatus::OpenAwaitingPickup, ItemStatusName::AwaitingPickup)
        } else {
            destination = pickup;
            (RequestStatus::OpenInTransit, ItemStatusName::InTransit)
        };
        if head.status() != request_status {
            head.status = Some(request_status);
            if request_status == RequestStatus::OpenAwaitingPickup {
                head.hold_shelf_expiration_date = hold_shelf_expiry(&service_point, now);
            }
            records::update(writer, head, actor)?;
        }
        next_status = item_status;
    } else if !serves_location {
        next_status = ItemStatusName::InTransit;
        destination = location.as_ref().map(|l| l.primary_service_point);
    }

    // Close the loan; fine a late return.
    let mut loan = open_loan(writer, item_id)?;
    let mut fine = None;
    if let Some(loan) = loan.as_mut() {
        loan.set_status(LoanStatus::Closed);
        loan.action = Some("checkedin".to_string());
        loan.return_date = Some(Timestamp::from(returned));
        loan.system_return_date = Some(Timestamp::from(now));
        loan.checkin_service_point_id = Some(sp);
        loan.item_status = Some(next_status.as_str().to_string());
        records::update(writer, loan, actor)?;
        if let Some(policy_id) = loan.overdue_fine_policy_id
            && let Some(policy) = records::get::<OverdueFinePolicy>(writer, policy_id)?
        {
            let loan_policy = match loan.loan_policy_id {
                Some(id) => records::get::<LoanPolicy>(writer, id)?,
                None => None,
            };
            let amount = fines::overdue_fine(loan, loan_policy.as_ref(), &policy, returned);
            if amount > 0.0 && policy.forgive_overdue_fine != Some(true) {
                fine = Some(fines::charge(writer, loan, &item, amount, returned, actor)?);
            }
        }
    }

    let stored = &mut item.item;
    if stored.status.name != next_status {
        stored.status.name = next_status;
        stored.status.date = Some(Timestamp::from(now));
    }
    stored.in_transit_destination_service_point_id = destination;
    stored.last_check_in = Some(inventory::model::LastCheckIn {
        date_time: Some(Timestamp::from(returned)),
        service_point_id: Some(sp),
        staff_member_id: actor.user_id,
    });
    item.item = inventory::update_item(writer, item.item.clone(), actor)?;
    Ok(CheckInOutcome { loan, in_house_use, fine, item })
}

/// When a request waiting at this service point stops waiting, from the service
/// point's hold shelf expiry period.
fn hold_shelf_expiry(
    point: &inventory::model::ServicePoint,
    now: DateTime<Utc>,
) -> Option<Timestamp> {
    use inventory::model::TimeInterval as T;
    let period = point.hold_shelf_expiry_period.as_ref()?;
    let interval_id = match period.interval_id {
        T::Minutes => crate::model::Interval::Minutes,
        T::Hours => crate::model::Interval::Hours,
        T::Days => crate::model::Interval::Days,
        T::Weeks => crate::model::Interval::Weeks,
        T::Months => crate::model::Interval::Months,
    };
    let duration = u32::try_from(period.duration).unwrap_or(0);
    Some(Timestamp::from(crate::model::Period { duration, interval_id }.after(now)))
}
