//! Requests placed through circulation (`POST /circulation/requests`): FOLIO's item-level
//! Hold, Recall and Page, their validation, queue position, and their effect on the item
//! (a page makes it Paged) and on its loan (a recall shortens it).

use chrono::{DateTime, Utc};
use circ_rules::PolicyKind;
use folio::{Actor, Timestamp};
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
            let policy: RequestPolicy = rules::policy(writer, &rules, PolicyKind::Request, inputs)?;
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
            let mut item = item;
            item.status.name = ItemStatusName::Paged;
            item.status.date = Some(Timestamp::from(now));
            inventory::update_item(writer, item, actor)?;
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
