//! `POST /circulation/check-in-by-barcode`: an item comes back to a service point.
//!
//! In one transaction: the check-in is logged, the open loan (if any) is closed, the
//! first request in the queue moves to Awaiting pickup (here) or In transit (to its
//! pickup service point), the item's status follows (Awaiting pickup, In transit, or
//! Available when this service point serves its location), and a late return is
//! fined under the loan's overdue fine policy. The response names where the item goes
//! and for whom (`staffSlipContext`).

use chrono::{DateTime, Utc};
use folio::{Actor, Timestamp};
use inventory::ItemStatusName;
use serde::Deserialize;
use store::{Read, Writer};
use uuid::Uuid;

use crate::check_out::open_loan;
use crate::item_context::{ItemContext, ItemSummary};
use crate::model::{
    Account, CheckIn, Loan, LoanPolicy, LoanStatus, OverdueFinePolicy, Request, RequestStatus,
};
use crate::staff_slip::{self, StaffSlipContext};
use crate::views::{Embedded, LoanView};
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
    /// The request the item now serves (the head of its queue), if any.
    pub request: Option<Request>,
    item: ItemContext,
    service_point: inventory::model::ServicePoint,
    now: DateTime<Utc>,
}

impl CheckInOutcome {
    /// The item as the check-in response shows it.
    pub fn item(&self) -> ItemSummary {
        self.item.summary()
    }

    /// FOLIO's check-in response: the closed loan, if there was one, with its embedded
    /// objects, and the staff slip context, read in the check-in's own transaction
    /// without loading the item again.
    pub fn view(self, reader: &store::Reader<'_>) -> Result<CheckInView> {
        let staff_slip_context = staff_slip::for_check_in(
            reader,
            &self.item,
            self.request.as_ref(),
            &self.service_point,
            Timestamp::from(self.now),
        )?;
        let loan = match self.loan {
            Some(loan) => Some(Embedded::default().loan_view(reader, loan, Some(&self.item))?),
            None => None,
        };
        Ok(CheckInView {
            loan,
            item: self.item.summary(),
            in_house_use: self.in_house_use,
            staff_slip_context,
        })
    }
}

/// What `POST /circulation/check-in-by-barcode` answers.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckInView {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub loan: Option<LoanView>,
    pub item: ItemSummary,
    pub in_house_use: bool,
    pub staff_slip_context: StaffSlipContext,
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
    // On PostgreSQL each lookup is a round trip under the tenant's write lock: the item
    // is read with what follows from its barcode, its instance, requests and loan.
    let item_key = |column| inventory::item_by_barcode_key(&barcode, column);
    writer.prefetch(&[
        inventory::item_by_barcode_read(&barcode),
        Read::Via(item_key("holdings_record_id"), inventory::instance_of_holdings_read),
        Read::Via(item_key("id"), queue::open_requests_read),
        Read::Via(item_key("id"), crate::check_out::open_loan_read),
    ])?;
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
    let item_id = item.item.id;
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
            id: Some(store::new_record_id()),
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
        records::update_read(writer, loan, actor, |loan| {
            loan.set_status(LoanStatus::Closed);
            loan.action = Some("checkedin".to_string());
            loan.return_date = Some(Timestamp::from(returned));
            loan.system_return_date = Some(Timestamp::from(now));
            loan.checkin_service_point_id = Some(sp);
            loan.item_status = Some(next_status.as_str().to_string());
        })?;
        if let Some(policy_id) = loan.overdue_fine_policy_id
            && let Some(policy) = records::get::<OverdueFinePolicy>(writer, policy_id)?
        {
            let loan_policy = match loan.loan_policy_id {
                Some(id) => records::get::<LoanPolicy>(writer, id)?,
                None => None,
            };
            let amount = fines::overdue_fine(loan, loan_policy.as_deref(), &policy, returned);
            if amount > 0.0 && policy.forgive_overdue_fine != Some(true) {
                fine = Some(fines::charge(
                    writer,
                    loan,
                    &item,
                    fines::OVERDUE_FINE,
                    amount,
                    Some(returned),
                    actor,
                )?);
            }
        }
    }

    item.item = inventory::update_item(writer, item.item, actor, |stored| {
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
    })?;
    let request = queue.into_iter().next();
    Ok(CheckInOutcome { loan, in_house_use, fine, request, item, service_point, now })
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

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};
    use serde_json::{Value, json};
    use uuid::Uuid;

    use super::CheckInRequest;
    use crate::fixtures::{self, DESK_1, DESK_2, Library, at, other_policies, uuid};
    use crate::model::{Account, CheckIn, OverdueFinePolicy, Request};
    use crate::records;

    const RETURNED: &str = "2026-03-10T12:00:00Z";

    /// Checks in with `body`: what became of the loan, the item and the fine, or every
    /// refusal.
    fn check(lib: &Library, body: Value, expect: Expect) {
        let request: CheckInRequest = serde_json::from_value(body).unwrap();
        let outcome = lib.write(|w| {
            super::check_in(w, request, folio::Actor::default(), at("2026-03-10T12:05:00Z"))
        });
        let got = match outcome {
            Err(e) => fixtures::refusals(&e),
            Ok(outcome) => {
                let item = outcome.item();
                let mut got = format!(
                    "item {} destination {} in-house use {}\n",
                    item.status.name.as_str(),
                    item.in_transit_destination_service_point_id
                        .map_or("none".to_string(), |id| id.to_string()),
                    outcome.in_house_use
                );
                if let Some(loan) = &outcome.loan {
                    got.push_str(&fixtures::loan_summary(loan));
                }
                if let Some(fine) = &outcome.fine {
                    got.push_str(&format!("fine {} remaining {}\n", fine.amount, fine.remaining));
                }
                got
            }
        };
        expect.assert_eq(&got);
    }

    fn returned(item: &str, service_point: &str) -> Value {
        json!({"itemBarcode": item, "servicePointId": service_point, "checkInDate": RETURNED})
    }

    #[test]
    fn what_a_check_in_needs() {
        let lib = Library::new();
        lib.item("B-1", json!({}));
        lib.item("B-IDEA", json!({"status": {"name": "Intellectual item"}}));
        lib.item("B-CLAIMED", json!({"status": {"name": "Claimed returned"}}));
        check(
            &lib,
            json!({"itemBarcode": ""}),
            expect![[r#"
                Checkin request must have an item barcode itemBarcode=
                Checkin request must have a service point id servicePointId=
                Checkin request must have an check in date checkInDate=
            "#]],
        );
        check(
            &lib,
            returned("B-1", "00000000-0000-4000-8000-000000000404"),
            expect![[r#"
                No service point with id 00000000-0000-4000-8000-000000000404 exists servicePointId=00000000-0000-4000-8000-000000000404
            "#]],
        );
        check(
            &lib,
            returned("B-404", DESK_1),
            expect![[r#"
                No item with barcode B-404 exists itemBarcode=B-404
            "#]],
        );
        check(
            &lib,
            returned("B-IDEA", DESK_1),
            expect![[r#"
                The Left Hand of Darkness (book) (Barcode: B-IDEA) has the item status Intellectual item and cannot be checked in itemBarcode=B-IDEA
            "#]],
        );
        check(
            &lib,
            returned("B-CLAIMED", DESK_1),
            expect![[r#"
                Item is claimed returned, a resolution is required to check in claimedReturnedResolution=
            "#]],
        );
        // Refused check-ins log nothing.
        let logged: Vec<CheckIn> = lib
            .tenant
            .read(|r| records::list_json::<CheckIn>(r, None, store::Page { offset: 0, limit: 10 }))
            .map(|(bodies, _)| bodies.iter().map(|b| serde_json::from_str(b).unwrap()).collect())
            .unwrap();
        assert!(logged.is_empty());
        // With a resolution, a claimed returned item comes back.
        let mut body = returned("B-CLAIMED", DESK_1);
        body["claimedReturnedResolution"] = "Returned by patron".into();
        check(
            &lib,
            body,
            expect![[r#"
                item Available destination none in-house use false
            "#]],
        );
    }

    #[test]
    fn a_loan_ends_where_the_item_belongs_or_the_item_goes_home() {
        let lib = Library::new();
        let item = lib.item("B-1", json!({}));
        lib.item("B-2", json!({}));
        lib.patron("P-1", json!({}));
        lib.check_out("B-1", "P-1", json!({}), at("2026-03-02T10:15:00Z")).unwrap();
        lib.check_out("B-2", "P-1", json!({}), at("2026-03-02T10:15:00Z")).unwrap();
        // Circ Desk 1 serves the Main Library: the item is Available there.
        check(
            &lib,
            returned("B-1", DESK_1),
            expect![[r#"
                item Available destination none in-house use false
                status Closed
                loanDate 2026-03-02T10:15:00.000+00:00
                dueDate 2026-05-01T23:59:59.000+00:00
                returnDate 2026-03-10T12:00:00.000+00:00
                action checkedin
                itemStatus Available
            "#]],
        );
        let loan = lib.loans().into_iter().find(|l| l.item_id == item).unwrap();
        assert_eq!(loan.checkin_service_point_id, Some(uuid(DESK_1)));
        assert_eq!(loan.system_return_date.unwrap().to_string(), "2026-03-10T12:05:00.000+00:00");
        // Circ Desk 2 does not: in transit to the location's primary service point.
        check(
            &lib,
            returned("B-2", DESK_2),
            expect![[r#"
                item In transit destination 3a40852d-49fd-4df2-a1f9-6e2641a6e91f in-house use false
                status Closed
                loanDate 2026-03-02T10:15:00.000+00:00
                dueDate 2026-05-01T23:59:59.000+00:00
                returnDate 2026-03-10T12:00:00.000+00:00
                action checkedin
                itemStatus In transit
            "#]],
        );
        // Arriving home, the item is Available again and no longer in transit.
        check(
            &lib,
            returned("B-2", DESK_1),
            expect![[r#"
                item Available destination none in-house use false
            "#]],
        );
        // An Available item checked in where it belongs, with no request, was used in
        // the building.
        check(
            &lib,
            returned("B-1", DESK_1),
            expect![[r#"
                item Available destination none in-house use true
            "#]],
        );
        let stored = lib.stored_item("B-1");
        let last = stored.last_check_in.unwrap();
        assert_eq!(last.date_time.unwrap().to_string(), "2026-03-10T12:00:00.000+00:00");
        assert_eq!(last.service_point_id, Some(uuid(DESK_1)));
        // Each check-in is logged with the status before it and the queue it found.
        let logged: Vec<CheckIn> =
            lib.tenant.read(|r| records::find(r, &[("item_id", &item.to_string())])).unwrap();
        let mut prior: Vec<&str> =
            logged.iter().map(|c| c.item_status_prior_to_check_in.as_deref().unwrap()).collect();
        prior.sort();
        assert_eq!(prior, ["Available", "Checked out"]);
        assert!(logged.iter().all(|c| c.request_queue_size == Some(0)));
    }

    /// A request on `item` by a new patron `barcode`, with `extra` set.
    fn request(lib: &Library, item: Uuid, barcode: &str, extra: Value) -> Request {
        let patron = lib.patron(barcode, json!({}));
        lib.request("Hold", item, patron, extra, at("2026-03-05T09:00:00Z")).unwrap()
    }

    #[test]
    fn the_first_request_waits_here_or_the_item_travels_to_it() {
        let lib = Library::new();
        let item = lib.item("B-1", json!({}));
        lib.patron("P-1", json!({}));
        lib.check_out("B-1", "P-1", json!({}), at("2026-03-02T10:15:00Z")).unwrap();
        let first = request(&lib, item, "P-2", json!({"pickupServicePointId": DESK_2}));
        request(&lib, item, "P-3", json!({}));
        // Returned at Circ Desk 1, for pickup at Circ Desk 2: in transit there.
        check(
            &lib,
            returned("B-1", DESK_1),
            expect![[r#"
                item In transit destination c4c90014-c8c9-4ade-8f24-b5e313319f4b in-house use false
                status Closed
                loanDate 2026-03-02T10:15:00.000+00:00
                dueDate 2026-05-01T23:59:59.000+00:00
                returnDate 2026-03-10T12:00:00.000+00:00
                action checkedin
                itemStatus In transit
            "#]],
        );
        expect![[r#"
            1 Hold P-2 Open - In transit
            2 Hold P-3 Open - Not yet filled
        "#]]
        .assert_eq(&lib.queue(item));
        // At Circ Desk 2 it waits on the hold shelf, for Circ Desk 2's 5 days from the
        // check-in at 12:05 on 10 March.
        check(
            &lib,
            returned("B-1", DESK_2),
            expect![[r#"
                item Awaiting pickup destination none in-house use false
            "#]],
        );
        expect![[r#"
            1 Hold P-2 Open - Awaiting pickup
            2 Hold P-3 Open - Not yet filled
        "#]]
        .assert_eq(&lib.queue(item));
        let waiting: Request = lib.get(first.id.unwrap());
        assert_eq!(
            waiting.hold_shelf_expiration_date.unwrap().to_string(),
            "2026-03-15T12:05:00.000+00:00"
        );
        // The next patron in line cannot take it; the one it waits for can, and the
        // request is filled.
        assert!(lib.check_out("B-1", "P-3", json!({}), at(RETURNED)).is_err());
        lib.check_out("B-1", "P-2", json!({}), at(RETURNED)).unwrap();
        expect![[r#"
            1 Hold P-3 Open - Not yet filled
            - Hold P-2 Closed - Filled
        "#]]
        .assert_eq(&lib.queue(item));
    }

    #[test]
    fn waiting_at_the_desk_of_the_check_in_and_delivery() {
        let lib = Library::new();
        let item = lib.item("B-1", json!({}));
        let delivered = lib.item("B-2", json!({"status": {"name": "Checked out"}}));
        request(
            &lib,
            delivered,
            "P-9",
            json!({"fulfillmentPreference": "Delivery",
            "pickupServicePointId": null}),
        );
        let patron = lib.patron("P-1", json!({}));
        let page =
            lib.request("Page", item, patron, json!({}), at("2026-03-05T09:00:00Z")).unwrap();
        // A paged item checked in at the pickup desk, Circ Desk 1, waits there for 3
        // weeks from 12:05 on 10 March.
        check(
            &lib,
            returned("B-1", DESK_1),
            expect![[r#"
                item Awaiting pickup destination none in-house use false
            "#]],
        );
        let waiting: Request = lib.get(page.id.unwrap());
        assert_eq!(
            waiting.hold_shelf_expiration_date.unwrap().to_string(),
            "2026-03-31T12:05:00.000+00:00"
        );
        // A delivery request waits for delivery, wherever the item comes back.
        check(
            &lib,
            returned("B-2", DESK_2),
            expect![[r#"
                item Awaiting delivery destination none in-house use false
            "#]],
        );
        expect![[r#"
            1 Hold P-9 Open - Awaiting delivery
        "#]]
        .assert_eq(&lib.queue(delivered));
    }

    #[test]
    fn a_late_return_is_fined() {
        let lib = Library::new();
        let per_day = "00000000-0000-4000-8000-00000000f001";
        lib.record::<OverdueFinePolicy>(json!({"id": per_day, "name": "A dollar a day",
            "countClosed": true, "overdueFine": {"quantity": 1.0, "intervalId": "day"},
            "maxOverdueFine": 10.0}));
        lib.rules(&format!(
            "priority: t, s, c, b, a, m, g\nfallback-policy: l {} {}\n",
            crate::DEFAULT_LOAN_POLICY_ID,
            other_policies(per_day)
        ));
        for barcode in ["B-1", "B-2", "B-3"] {
            lib.item(barcode, json!({}));
        }
        let patron = lib.patron("P-1", json!({}));
        for barcode in ["B-1", "B-2", "B-3"] {
            lib.check_out(barcode, "P-1", json!({}), at("2026-03-02T10:15:00Z")).unwrap();
        }
        // Due on 1 May at 23:59:59, with the default loan policy's 7 days' grace.
        let back =
            |barcode: &str, when: &str| lib.check_in(barcode, DESK_1, at(when), at(when)).unwrap();
        // Back on 5 May at 12:00: 3 days 12 hours late (5,040 minutes), within the grace.
        assert!(back("B-1", "2026-05-05T12:00:00Z").fine.is_none());
        // Back on 10 May at 12:00: 8 days 12 hours late (12,240 minutes), 9 started days.
        let fined = back("B-2", "2026-05-10T12:00:00Z");
        let fine = fined.fine.unwrap();
        assert_eq!((fine.amount, fine.remaining), (9.0, 9.0));
        assert!(fine.is_open());
        assert_eq!(fine.payment_status.as_ref().unwrap().name, "Outstanding");
        assert_eq!(fine.fee_fine_type.as_deref(), Some("Overdue fine"));
        assert_eq!(fine.fee_fine_id, Some(uuid(crate::OVERDUE_FINE_TYPE_ID)));
        assert_eq!(fine.user_id, patron);
        assert_eq!(fine.loan_id, fined.loan.as_ref().unwrap().id);
        assert_eq!(fine.title.as_deref(), Some(fixtures::TITLE));
        assert_eq!(fine.barcode.as_deref(), Some("B-2"));
        assert_eq!(fine.material_type.as_deref(), Some("book"));
        assert_eq!(fine.location.as_deref(), Some("Main Library"));
        assert_eq!(fine.due_date.unwrap().to_string(), "2026-05-01T23:59:59.000+00:00");
        assert_eq!(fine.returned_date.unwrap().to_string(), "2026-05-10T12:00:00.000+00:00");
        // Back in June: 30 days and more, capped at 10.00.
        assert_eq!(back("B-3", "2026-06-01T12:00:00Z").fine.unwrap().amount, 10.0);
        // The fines are the patron's open accounts.
        let accounts: Vec<Account> =
            lib.tenant.read(|r| records::find(r, &[("user_id", &patron.to_string())])).unwrap();
        let mut owed: Vec<f64> = accounts.iter().map(|a| a.remaining).collect();
        owed.sort_by(f64::total_cmp);
        assert_eq!(owed, [9.0, 10.0]);
    }

    #[test]
    fn the_default_policy_fines_nothing() {
        let lib = Library::new();
        lib.item("B-1", json!({}));
        lib.patron("P-1", json!({}));
        lib.check_out("B-1", "P-1", json!({}), at("2026-03-02T10:15:00Z")).unwrap();
        // A year late.
        let outcome =
            lib.check_in("B-1", DESK_1, at("2027-05-01T12:00:00Z"), at("2027-05-01T12:00:00Z"));
        assert!(outcome.unwrap().fine.is_none());
    }
}
