//! Requests placed through circulation (`POST /circulation/requests`): FOLIO's item-level
//! Hold, Recall and Page, their validation, queue position, and their effect on the item
//! (a page makes it Paged) and on its loan (a recall shortens it).

use chrono::{DateTime, Utc};
use circ_rules::PolicyKind;
use folio::{Actor, Stored, Timestamp};
use inventory::ItemStatusName;
use store::Writer;
use uuid::Uuid;

use crate::check_out::open_loan;
use crate::model::{LoanPolicy, Request, RequestPolicy, RequestStatus, RequestType};
use crate::rules::{self, RuleInputs, RulesCache};
use crate::{Error, Refusal, Result, blocks, queue, records};

/// The request types an item in this status can take (mod-circulation `RequestTypeItemStatusWhiteList`).
fn allowed_for_status(status: ItemStatusName) -> &'static [RequestType] {
    use ItemStatusName as S;
    use RequestType::{Hold, Page, Recall};
    match status {
        S::Available => &[Page],
        S::CheckedOut
        | S::AwaitingPickup
        | S::AwaitingDelivery
        | S::InTransit
        | S::Paged
        | S::OnOrder
        | S::InProcess => &[Hold, Recall],
        S::Missing => &[Hold],
        _ => &[],
    }
}

/// Places a request. Returns it as stored.
pub fn create_request(
    writer: &mut Writer<'_>,
    cache: &RulesCache,
    mut request: Request,
    actor: Actor,
    now: DateTime<Utc>,
) -> Result<Request> {
    let type_name = request.request_type.as_str();
    let mut refusals = Vec::new();
    let Some(item_id) = request.item_id else {
        return Err(Error::refused(Refusal::new(
            "Cannot create an item level request with no item ID",
            "itemId",
            "",
        )));
    };
    let Some(item) = inventory::get_item(writer, item_id)? else {
        return Err(Error::refused(Refusal::new(
            "Item does not exist",
            "itemId",
            item_id.to_string(),
        )));
    };
    let Some(requester) = auth::get_user(writer, request.requester_id)? else {
        return Err(Error::refused(Refusal::new(
            "A valid user and patron group are required. User is null",
            "requesterId",
            request.requester_id.to_string(),
        )));
    };
    if !requester.is_active_at(now) {
        refusals.push(Refusal::new(
            "Inactive users cannot make requests",
            "requesterId",
            request.requester_id.to_string(),
        ));
    }
    let manual: Vec<_> = blocks::manual_blocks(writer, request.requester_id, now)?
        .into_iter()
        .filter(|b| b.requests)
        .collect();
    if !manual.is_empty() {
        let reasons = manual.iter().map(|b| b.desc.as_str()).collect::<Vec<_>>().join(";");
        refusals.push(
            Refusal::new("Patron blocked from requesting", "reason", reasons)
                .code("USER_IS_BLOCKED_MANUALLY"),
        );
    }
    for block in
        blocks::automated_blocks(writer, request.requester_id, requester.patron_group, now)?
    {
        if block.block_requests {
            refusals.push(
                Refusal::new(block.message, "requesterId", request.requester_id.to_string())
                    .code("USER_IS_BLOCKED_AUTOMATICALLY"),
            );
        }
    }
    let not_allowed = || {
        Refusal::new(
            format!("{type_name} requests are not allowed for this patron and item combination"),
            "requestType",
            type_name,
        )
        .code("REQUEST_NOT_ALLOWED_FOR_PATRON_ITEM_COMBINATION")
    };
    let rules = cache.get(writer)?;
    let inputs = match requester.patron_group {
        Some(group) => Some(RuleInputs::for_item(writer, &item, group)?),
        None => None,
    };
    let policy_allows = match &inputs {
        Some(inputs) => {
            let policy: Stored<RequestPolicy> =
                rules::policy(writer, &rules, PolicyKind::Request, inputs)?;
            policy.request_types.contains(&request.request_type)
        }
        None => false,
    };
    if !policy_allows || !allowed_for_status(item.status.name).contains(&request.request_type) {
        refusals.push(not_allowed());
    }
    let loan = open_loan(writer, item_id)?;
    if loan.as_ref().is_some_and(|l| l.user_id == Some(request.requester_id)) {
        refusals.push(
            Refusal::new(
                "This requester currently has this item on loan.",
                "itemId",
                item_id.to_string(),
            )
            .with("userId", request.requester_id.to_string())
            .code("REQUESTER_ALREADY_HAS_THIS_ITEM_ON_LOAN"),
        );
    }
    let mut queue = queue::open_requests(writer, item_id)?;
    if queue.iter().any(|r| r.requester_id == request.requester_id) {
        refusals.push(
            Refusal::new(
                "This requester already has an open request for this item",
                "itemId",
                item_id.to_string(),
            )
            .code("ITEM_ALREADY_REQUESTED"),
        );
    }
    if request.fulfillment_preference == "Hold Shelf" {
        match request.pickup_service_point_id {
            None => refusals.push(
                Refusal::new(
                    "Hold Shelf Fulfillment Requests require a Pickup Service Point",
                    "id",
                    request.id.map(|i| i.to_string()).unwrap_or_default(),
                )
                .code("HOLD_SHELF_REQUESTS_REQUIRE_PICKUP_SERVICE_POINT"),
            ),
            Some(sp) => {
                let pickup = inventory::get_service_point(writer, sp)?;
                if pickup.is_none_or(|p| p.pickup_location != Some(true)) {
                    refusals.push(
                        Refusal::new(
                            "Service point is not a pickup location",
                            "pickupServicePointId",
                            sp.to_string(),
                        )
                        .code("SERVICE_POINT_IS_NOT_PICKUP_LOCATION"),
                    );
                }
            }
        }
    }
    if !refusals.is_empty() {
        return Err(Error::Refused(refusals));
    }

    let holdings = inventory::get_holdings(writer, item.holdings_record_id)?;
    request.holdings_record_id = Some(item.holdings_record_id);
    request.instance_id = holdings.map(|h| h.instance_id).or(request.instance_id);
    request.request_level.get_or_insert_with(|| "Item".to_string());
    request.status = Some(RequestStatus::OpenNotYetFilled);
    request.position = Some(u32::try_from(queue.len() + 1).unwrap_or(u32::MAX));
    let request = records::create(writer, request, actor)?;
    queue.push(request.clone());

    match request.request_type {
        RequestType::Page => {
            inventory::update_item(writer, item, actor, |item| {
                item.status.name = ItemStatusName::Paged;
                item.status.date = Some(Timestamp::from(now));
            })?;
        }
        RequestType::Recall => {
            if let Some(mut loan) = loan
                && let Some(policy_id) = loan.loan_policy_id
                && let Some(policy) = records::get::<LoanPolicy>(writer, policy_id)?
                && apply_recall(&policy, &mut loan, now)
            {
                records::update(writer, &mut loan, actor)?;
            }
        }
        RequestType::Hold => {}
    }
    Ok(request)
}

/// Replaces a request (FOLIO's PUT), closing the queue gap when it is cancelled or closed.
pub fn replace_request(
    writer: &mut Writer<'_>,
    id: Uuid,
    request: Request,
    actor: Actor,
    now: DateTime<Utc>,
) -> Result<Request> {
    let closing = !request.status().is_open();
    let mut request = request;
    if closing {
        request.position = None;
        if request.status() == RequestStatus::ClosedCancelled && request.cancelled_date.is_none() {
            request.cancelled_date = Some(Timestamp::from(now));
        }
    }
    let stored = records::replace(writer, id, request, actor)?;
    if closing && let Some(item_id) = stored.item_id {
        let mut queue = queue::open_requests(writer, item_id)?;
        queue::renumber(writer, &mut queue, actor)?;
    }
    Ok(stored)
}

/// Shortens a loan for a recall, as the loan policy's recall settings say: due no
/// later than the recall return interval from now, but never before the minimum
/// guaranteed loan period has passed. Returns whether the due date changed.
pub(crate) fn apply_recall(
    policy: &LoanPolicy,
    loan: &mut crate::model::Loan,
    now: DateTime<Utc>,
) -> bool {
    let recalls = policy.recalls();
    let mut recall_due =
        recalls.and_then(|r| r.recall_return_interval).map_or(now, |p| p.after(now));
    if let Some(minimum) = recalls.and_then(|r| r.minimum_guaranteed_loan_period) {
        recall_due = recall_due.max(minimum.after(loan.loan_date.as_datetime()));
    }
    let current = loan.due_date.map(|d| d.as_datetime());
    let extend_overdue =
        recalls.and_then(|r| r.allow_recalls_to_extend_overdue_loans) == Some(true);
    let shorter = current.is_none_or(|due| recall_due < due || (extend_overdue && due < now));
    if shorter && loan.due_date_changed_by_recall != Some(true) {
        loan.due_date = Some(Timestamp::from(recall_due));
        loan.due_date_changed_by_recall = Some(true);
        return true;
    }
    false
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};
    use serde_json::{Value, json};
    use uuid::Uuid;

    use crate::blocks::condition;
    use crate::fixtures::{self, BOOK, DESK_1, Library, ONLINE_DESK, STAFF, at, uuid};
    use crate::model::{Loan, ManualBlock, Request, RequestPolicy};

    const ITEM: &str = "00000000-0000-4000-8000-0000000000c1";
    const PATRON: &str = "00000000-0000-4000-8000-0000000000d1";
    const NOW: &str = "2026-03-10T12:00:00Z";

    /// Places a request of `kind` on `item` for `requester` at NOW, `extra` set on it:
    /// where it stands in the queue, or every refusal.
    fn check(
        lib: &Library,
        kind: &str,
        (item, requester): (Uuid, Uuid),
        extra: Value,
        expect: Expect,
    ) {
        let got = match lib.request(kind, item, requester, extra, at(NOW)) {
            Ok(request) => format!(
                "{} {} position {}\n",
                request.request_type.as_str(),
                request.status().as_str(),
                request.position.unwrap()
            ),
            Err(e) => fixtures::refusals(&e),
        };
        expect.assert_eq(&got);
    }

    #[test]
    fn the_item_and_the_requester_must_exist() {
        let lib = Library::new();
        let item = lib.item("B-1", json!({"id": ITEM}));
        let patron = lib.patron("P-1", json!({"id": PATRON}));
        let missing = uuid("00000000-0000-4000-8000-000000000404");
        check(
            &lib,
            "Hold",
            (item, patron),
            json!({"itemId": null}),
            expect![[r#"
                Cannot create an item level request with no item ID itemId=
            "#]],
        );
        check(
            &lib,
            "Hold",
            (missing, patron),
            json!({}),
            expect![[r#"
                Item does not exist itemId=00000000-0000-4000-8000-000000000404
            "#]],
        );
        check(
            &lib,
            "Page",
            (item, missing),
            json!({}),
            expect![[r#"
                A valid user and patron group are required. User is null requesterId=00000000-0000-4000-8000-000000000404
            "#]],
        );
    }

    #[test]
    fn what_an_item_in_each_status_can_take() {
        let lib = Library::new();
        let patron = lib.patron("P-1", json!({"id": PATRON}));
        let statuses = [
            "Available",
            "Checked out",
            "Awaiting pickup",
            "In transit",
            "Paged",
            "On order",
            "In process",
            "Missing",
            "Declared lost",
            "Withdrawn",
        ];
        let mut got = String::new();
        for (n, status) in statuses.iter().enumerate() {
            let item = lib.item(&format!("B-{n}"), json!({"status": {"name": status}}));
            let allowed: Vec<&str> = ["Hold", "Recall", "Page"]
                .into_iter()
                .filter(|kind| {
                    // Each on its own transaction; a placed request is cancelled so the
                    // next type can be tried by the same patron.
                    let placed = lib.request(kind, item, patron, json!({}), at(NOW));
                    if let Ok(request) = &placed {
                        let mut cancelled = request.clone();
                        cancelled.status = Some(crate::model::RequestStatus::ClosedCancelled);
                        let id = request.id.unwrap();
                        lib.write(|w| {
                            super::replace_request(
                                w,
                                id,
                                cancelled,
                                folio::Actor::default(),
                                at(NOW),
                            )
                        })
                        .unwrap();
                    }
                    placed.is_ok()
                })
                .collect();
            got.push_str(&format!("{status}: {}\n", allowed.join(", ")));
        }
        // mod-circulation's RequestTypeItemStatusWhiteList.
        expect![[r#"
            Available: Page
            Checked out: Hold, Recall
            Awaiting pickup: Hold, Recall
            In transit: Hold, Recall
            Paged: Hold, Recall
            On order: Hold, Recall
            In process: Hold, Recall
            Missing: Hold
            Declared lost: 
            Withdrawn: 
        "#]]
        .assert_eq(&got);
        // A refused type is refused with FOLIO's message.
        let available = lib.item("B-A", json!({}));
        check(
            &lib,
            "Hold",
            (available, patron),
            json!({}),
            expect![[r#"
                Hold requests are not allowed for this patron and item combination [REQUEST_NOT_ALLOWED_FOR_PATRON_ITEM_COMBINATION] requestType=Hold
            "#]],
        );
    }

    #[test]
    fn the_request_policy_decides_the_types() {
        let lib = Library::new();
        let holds_only = "00000000-0000-4000-8000-00000000e001";
        lib.record::<RequestPolicy>(json!({"id": holds_only, "name": "Holds only",
            "requestTypes": ["Hold"]}));
        let rules = format!(
            "{}m {BOOK}: l {} r {holds_only} n {} o {} i {}\n",
            fixtures::rules_text(&[]),
            crate::DEFAULT_LOAN_POLICY_ID,
            crate::DEFAULT_NOTICE_POLICY_ID,
            crate::DEFAULT_OVERDUE_FINE_POLICY_ID,
            crate::DEFAULT_LOST_ITEM_FEE_POLICY_ID
        );
        lib.rules(&rules);
        let item = lib.item("B-1", json!({"status": {"name": "Checked out"}}));
        let patron = lib.patron("P-1", json!({}));
        let no_group = lib.patron("P-2", json!({"patronGroup": null}));
        check(
            &lib,
            "Recall",
            (item, patron),
            json!({}),
            expect![[r#"
                Recall requests are not allowed for this patron and item combination [REQUEST_NOT_ALLOWED_FOR_PATRON_ITEM_COMBINATION] requestType=Recall
            "#]],
        );
        // Without a patron group no policy applies.
        check(
            &lib,
            "Hold",
            (item, no_group),
            json!({}),
            expect![[r#"
                Hold requests are not allowed for this patron and item combination [REQUEST_NOT_ALLOWED_FOR_PATRON_ITEM_COMBINATION] requestType=Hold
            "#]],
        );
        check(
            &lib,
            "Hold",
            (item, patron),
            json!({}),
            expect![[r#"
                Hold Open - Not yet filled position 1
            "#]],
        );
    }

    #[test]
    fn every_refusal_of_a_requester_in_one_error() {
        let lib = Library::new();
        let item = lib.item("B-1", json!({"id": ITEM}));
        let inactive = lib.patron("P-1", json!({"id": PATRON, "active": false}));
        lib.record::<ManualBlock>(json!({"id": "00000000-0000-4000-8000-000000000001",
            "userId": inactive, "desc": "Abusive to staff", "requests": true}));
        lib.record::<ManualBlock>(json!({"id": "00000000-0000-4000-8000-000000000002",
            "userId": inactive, "desc": "Borrowing only", "borrowing": true}));
        lib.automated_block(
            condition::MAX_OUTSTANDING_FEE_FINE_BALANCE,
            STAFF,
            0.0,
            &["requests"],
            "Patron has outstanding fees",
        );
        lib.record::<crate::model::Account>(json!({"amount": 3.0, "remaining": 3.0,
            "status": {"name": "Open"}, "userId": inactive}));
        check(
            &lib,
            "Hold",
            (item, inactive),
            json!({"id": "00000000-0000-4000-8000-0000000000f1", "pickupServicePointId": null}),
            expect![[r#"
                Inactive users cannot make requests requesterId=00000000-0000-4000-8000-0000000000d1
                Patron blocked from requesting [USER_IS_BLOCKED_MANUALLY] reason=Abusive to staff
                Patron has outstanding fees [USER_IS_BLOCKED_AUTOMATICALLY] requesterId=00000000-0000-4000-8000-0000000000d1
                Hold requests are not allowed for this patron and item combination [REQUEST_NOT_ALLOWED_FOR_PATRON_ITEM_COMBINATION] requestType=Hold
                Hold Shelf Fulfillment Requests require a Pickup Service Point [HOLD_SHELF_REQUESTS_REQUIRE_PICKUP_SERVICE_POINT] id=00000000-0000-4000-8000-0000000000f1
            "#]],
        );
        assert_eq!(lib.queue(item), "");
        assert_eq!(lib.item_status("B-1"), "Available");
    }

    #[test]
    fn the_borrower_and_an_open_request_of_the_same_patron() {
        let lib = Library::new();
        let item = lib.item("B-1", json!({"id": ITEM}));
        let borrower = lib.patron("P-1", json!({"id": PATRON}));
        let other = lib.patron("P-2", json!({}));
        lib.check_out("B-1", "P-1", json!({}), at("2026-03-02T10:15:00Z")).unwrap();
        check(
            &lib,
            "Hold",
            (item, borrower),
            json!({}),
            expect![[r#"
                This requester currently has this item on loan. [REQUESTER_ALREADY_HAS_THIS_ITEM_ON_LOAN] itemId=00000000-0000-4000-8000-0000000000c1 userId=00000000-0000-4000-8000-0000000000d1
            "#]],
        );
        lib.request("Hold", item, other, json!({}), at(NOW)).unwrap();
        let again = lib.request("Recall", item, other, json!({}), at(NOW)).unwrap_err();
        assert_eq!(
            fixtures::refusals(&again),
            format!(
                "This requester already has an open request for this item [ITEM_ALREADY_REQUESTED] itemId={ITEM}\n"
            )
        );
    }

    #[test]
    fn pickup_service_points() {
        let lib = Library::new();
        let item = lib.item("B-1", json!({"status": {"name": "Checked out"}}));
        let patrons: Vec<Uuid> =
            ["P-1", "P-2", "P-3"].iter().map(|b| lib.patron(b, json!({}))).collect();
        check(
            &lib,
            "Hold",
            (item, patrons[0]),
            json!({"pickupServicePointId": ONLINE_DESK}),
            expect![[r#"
                Service point is not a pickup location [SERVICE_POINT_IS_NOT_PICKUP_LOCATION] pickupServicePointId=7c5abc9f-f3d7-4856-b8d7-6712462ca007
            "#]],
        );
        check(
            &lib,
            "Hold",
            (item, patrons[0]),
            json!({"pickupServicePointId": "00000000-0000-4000-8000-000000000404"}),
            expect![[r#"
                Service point is not a pickup location [SERVICE_POINT_IS_NOT_PICKUP_LOCATION] pickupServicePointId=00000000-0000-4000-8000-000000000404
            "#]],
        );
        // Delivery needs no pickup service point.
        check(
            &lib,
            "Hold",
            (item, patrons[1]),
            json!({"fulfillmentPreference": "Delivery", "pickupServicePointId": null}),
            expect![[r#"
                Hold Open - Not yet filled position 1
            "#]],
        );
        check(
            &lib,
            "Hold",
            (item, patrons[2]),
            json!({"pickupServicePointId": DESK_1}),
            expect![[r#"
                Hold Open - Not yet filled position 2
            "#]],
        );
    }

    #[test]
    fn requests_join_the_end_of_the_queue_and_a_page_pages_the_item() {
        let lib = Library::new();
        let item = lib.item("B-1", json!({}));
        let patrons: Vec<Uuid> =
            ["P-1", "P-2", "P-3"].iter().map(|b| lib.patron(b, json!({}))).collect();
        let page = lib.request("Page", item, patrons[0], json!({}), at(NOW)).unwrap();
        assert_eq!(lib.item_status("B-1"), "Paged");
        // The request is completed from the item: item level, its holdings and instance.
        let stored = lib.stored_item("B-1");
        assert_eq!(page.request_level.as_deref(), Some("Item"));
        assert_eq!(page.holdings_record_id, Some(stored.holdings_record_id));
        assert!(page.instance_id.is_some());
        lib.request("Hold", item, patrons[1], json!({}), at(NOW)).unwrap();
        lib.request("Recall", item, patrons[2], json!({}), at(NOW)).unwrap();
        expect![[r#"
            1 Page P-1 Open - Not yet filled
            2 Hold P-2 Open - Not yet filled
            3 Recall P-3 Open - Not yet filled
        "#]]
        .assert_eq(&lib.queue(item));
        assert_eq!(lib.item_status("B-1"), "Paged");
    }

    #[test]
    fn cancelling_closes_the_gap() {
        let lib = Library::new();
        let item = lib.item("B-1", json!({"status": {"name": "Checked out"}}));
        let mut requests: Vec<Request> = Vec::new();
        for barcode in ["P-1", "P-2", "P-3", "P-4"] {
            let patron = lib.patron(barcode, json!({}));
            requests.push(lib.request("Hold", item, patron, json!({}), at(NOW)).unwrap());
        }
        let cancel = |request: &Request, status: crate::model::RequestStatus| {
            let mut closed = request.clone();
            closed.status = Some(status);
            let id = request.id.unwrap();
            lib.write(|w| {
                super::replace_request(
                    w,
                    id,
                    closed,
                    folio::Actor::default(),
                    at("2026-03-11T08:00:00Z"),
                )
            })
            .unwrap()
        };
        let cancelled = cancel(&requests[1], crate::model::RequestStatus::ClosedCancelled);
        assert_eq!(cancelled.position, None);
        assert_eq!(cancelled.cancelled_date.unwrap().to_string(), "2026-03-11T08:00:00.000+00:00");
        expect![[r#"
            1 Hold P-1 Open - Not yet filled
            2 Hold P-3 Open - Not yet filled
            3 Hold P-4 Open - Not yet filled
            - Hold P-2 Closed - Cancelled
        "#]]
        .assert_eq(&lib.queue(item));
        // The head leaving unfilled moves everyone up.
        cancel(&requests[0], crate::model::RequestStatus::ClosedUnfilled);
        expect![[r#"
            1 Hold P-3 Open - Not yet filled
            2 Hold P-4 Open - Not yet filled
            - Hold P-1 Closed - Unfilled
            - Hold P-2 Closed - Cancelled
        "#]]
        .assert_eq(&lib.queue(item));
        // A new request joins behind the open ones.
        let p5 = lib.patron("P-5", json!({}));
        let joined = lib.request("Hold", item, p5, json!({}), at(NOW)).unwrap();
        assert_eq!(joined.position, Some(3));
    }

    /// A loan of B-1 to P-1 made on Monday 2 March 2026 at 10:15 under `policy` (the
    /// default policy when `None`), recalled by P-2 at `recalled`: its due date, and
    /// whether a recall changed it.
    fn recall(policy: Option<Value>, recalled: &str) -> String {
        let lib = Library::new();
        if let Some(policy) = policy {
            let id = policy["id"].as_str().unwrap().to_string();
            lib.record::<crate::model::LoanPolicy>(policy);
            lib.rules(&fixtures::rules_text(&[(&format!("m {BOOK}"), &id)]));
        }
        let item = lib.item("B-1", json!({}));
        lib.patron("P-1", json!({}));
        let p2 = lib.patron("P-2", json!({}));
        let loan = lib.check_out("B-1", "P-1", json!({}), at("2026-03-02T10:15:00Z")).unwrap();
        lib.request("Recall", item, p2, json!({}), at(recalled)).unwrap();
        let loan: Loan = lib.get(loan.id.unwrap());
        format!("{} {:?}", loan.due_date.unwrap(), loan.due_date_changed_by_recall)
    }

    #[test]
    fn a_recall_shortens_the_loan() {
        // The default policy: due 1 May 23:59:59; a recall asks for the item 5 days on,
        // but the loan is guaranteed 30 days, to 1 April 10:15.
        assert_eq!(
            recall(None, "2026-03-05T12:00:00Z"),
            "2026-04-01T10:15:00.000+00:00 Some(true)"
        );
        // Recalled on 10 April: 5 days on is 15 April 12:00, past the guarantee.
        assert_eq!(
            recall(None, "2026-04-10T12:00:00Z"),
            "2026-04-15T12:00:00.000+00:00 Some(true)"
        );
        // Recalled on 28 April: 3 May is after the due date, which stands.
        assert_eq!(recall(None, "2026-04-28T12:00:00Z"), "2026-05-01T23:59:59.000+00:00 None");
        // An overdue loan is recalled to 3 days from the recall only if the policy lets a
        // recall extend it: a two-week loan fell due on 16 March 10:15; recalled on 20
        // March 09:00, it is due on 23 March 09:00.
        let two_weeks = |extend: bool| {
            json!({"id": "00000000-0000-4000-8000-00000000a007", "name": "Two weeks",
                "loanable": true, "renewable": true,
                "loansPolicy": {"profileId": "Rolling", "period": {"duration": 2, "intervalId": "Weeks"},
                    "closedLibraryDueDateManagementId": "CURRENT_DUE_DATE_TIME"},
                "requestManagement": {"recalls": {
                    "recallReturnInterval": {"duration": 3, "intervalId": "Days"},
                    "allowRecallsToExtendOverdueLoans": extend}}})
        };
        assert_eq!(
            recall(Some(two_weeks(true)), "2026-03-20T09:00:00Z"),
            "2026-03-23T09:00:00.000+00:00 Some(true)"
        );
        assert_eq!(
            recall(Some(two_weeks(false)), "2026-03-20T09:00:00Z"),
            "2026-03-16T10:15:00.000+00:00 None"
        );
        // Without a return interval the item is due back at once.
        let at_once = json!({"id": "00000000-0000-4000-8000-00000000a008", "name": "At once",
            "loanable": true, "renewable": true,
            "loansPolicy": {"profileId": "Rolling", "period": {"duration": 2, "intervalId": "Weeks"},
                "closedLibraryDueDateManagementId": "CURRENT_DUE_DATE_TIME"}});
        assert_eq!(
            recall(Some(at_once), "2026-03-05T09:00:00Z"),
            "2026-03-05T09:00:00.000+00:00 Some(true)"
        );
    }

    #[test]
    fn only_the_first_recall_changes_the_due_date_and_a_hold_none() {
        let lib = Library::new();
        let item = lib.item("B-1", json!({}));
        lib.patron("P-1", json!({}));
        let recallers: Vec<Uuid> =
            ["P-2", "P-3", "P-4"].iter().map(|b| lib.patron(b, json!({}))).collect();
        let loan = lib.check_out("B-1", "P-1", json!({}), at("2026-03-02T10:15:00Z")).unwrap();
        let due = || lib.get::<Loan>(loan.id.unwrap()).due_date.unwrap().to_string();
        lib.request("Hold", item, recallers[0], json!({}), at("2026-04-10T12:00:00Z")).unwrap();
        assert_eq!(due(), "2026-05-01T23:59:59.000+00:00");
        lib.request("Recall", item, recallers[1], json!({}), at("2026-04-10T12:00:00Z")).unwrap();
        assert_eq!(due(), "2026-04-15T12:00:00.000+00:00");
        // A second recall two days later would ask for 17 April; the date stands.
        lib.request("Recall", item, recallers[2], json!({}), at("2026-04-12T12:00:00Z")).unwrap();
        assert_eq!(due(), "2026-04-15T12:00:00.000+00:00");
        expect![[r#"
            1 Hold P-2 Open - Not yet filled
            2 Recall P-3 Open - Not yet filled
            3 Recall P-4 Open - Not yet filled
        "#]]
        .assert_eq(&lib.queue(item));
    }
}
