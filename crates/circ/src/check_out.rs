//! `POST /circulation/check-out-by-barcode`: lend an item to a patron.
//!
//! FOLIO's validation steps run in FOLIO's order and every failure is collected, so
//! one 422 lists all the reasons, as mod-circulation's error handler does. Then, in
//! the same transaction: the item becomes Checked out, the loan is created, the
//! borrower's own request is filled, and a recalled item's loan is shortened.

use chrono::{DateTime, Utc};
use circ_rules::PolicyKind;
use folio::{Actor, Timestamp};
use inventory::ItemStatusName;
use serde::Deserialize;
use store::{Reader, Writer};
use uuid::Uuid;

use crate::blocks;
use crate::due_date;
use crate::item_context::ItemContext;
use crate::model::{
    FixedDueDateSchedule, Loan, LoanPolicy, LoanStatus, LostItemFeePolicy, OverdueFinePolicy,
    RequestStatus, RequestType,
};
use crate::opening_hours::Desk;
use crate::overrides::{BlockOverrides, OverridableBlock, Overrides};
use crate::queue;
use crate::records;
use crate::rules::{self, RuleInputs, RulesCache};
use crate::views::Embedded;
use crate::{Error, Refusal, Result};

/// The check-out request body (mod-circulation `check-out-by-barcode-request.json`).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckOutRequest {
    #[serde(default)]
    pub item_barcode: Option<String>,
    #[serde(default)]
    pub user_barcode: Option<String>,
    #[serde(default)]
    pub proxy_user_barcode: Option<String>,
    #[serde(default)]
    pub service_point_id: Option<Uuid>,
    #[serde(default)]
    pub loan_date: Option<Timestamp>,
    #[serde(default)]
    pub override_blocks: Option<BlockOverrides>,
    /// Other fields (FOLIO's `id`, which the server ignores, `forceLoanPolicyId`, ...).
    #[serde(flatten)]
    pub other: serde_json::Map<String, serde_json::Value>,
}

const STATUSES_REFUSED: [ItemStatusName; 4] = [
    ItemStatusName::DeclaredLost,
    ItemStatusName::ClaimedReturned,
    ItemStatusName::IntellectualItem,
    ItemStatusName::AgedToLost,
];

/// A loan just made at the desk, with the item as the check-out left it.
pub struct CheckedOut {
    pub loan: Loan,
    item: ItemContext,
    // What the check-out read that the loan's view embeds.
    known: Embedded,
}

impl CheckedOut {
    /// The loan with its embedded objects, FOLIO's check-out response; read in the
    /// check-out's own transaction, without reading again the item, patron, policies
    /// and service point the check-out read.
    pub fn view(self, reader: &Reader<'_>) -> Result<serde_json::Value> {
        let CheckedOut { loan, item, mut known } = self;
        known.loan_view(reader, &loan, Some(&item))
    }
}

/// Checks an item out. Returns the new loan; nothing is written when it is refused.
/// `may_override` says which blocks the caller holds the permission to override.
pub fn check_out(
    writer: &mut Writer<'_>,
    cache: &RulesCache,
    request: CheckOutRequest,
    may_override: &dyn Fn(OverridableBlock) -> bool,
    actor: Actor,
    now: DateTime<Utc>,
) -> Result<CheckedOut> {
    let item_barcode = request.item_barcode.clone().unwrap_or_default();
    let user_barcode = request.user_barcode.clone().unwrap_or_default();
    let loan_date = request.loan_date.map_or(now, |d| d.as_datetime());
    let requested_overrides = request.override_blocks.unwrap_or_default();
    let mut overrides = Overrides::new(&requested_overrides, may_override);
    let mut refusals = Vec::new();

    // 1. Service point.
    let service_point = match request.service_point_id {
        None => {
            refusals.push(Refusal::new(
                "Check out must be performed at a service point",
                "servicePointId",
                "",
            ));
            None
        }
        Some(sp) => {
            let point = inventory::get_service_point(writer, sp)?;
            if point.is_none() {
                refusals.push(Refusal::new(
                    format!("No service point with id {sp} exists"),
                    "servicePointId",
                    sp.to_string(),
                ));
            }
            point
        }
    };

    // 2-4. The patron, their manual and automated blocks.
    let user = auth::user_by_barcode(writer, &user_barcode)?;
    if user.is_none() {
        refusals.push(
            Refusal::new("Could not find user with matching barcode", "userBarcode", &user_barcode)
                .code("USER_BARCODE_NOT_FOUND"),
        );
    }
    if !overrides.overridden(OverridableBlock::Patron, loan_date, &mut refusals)
        && let Some(user) = &user
    {
        let overridable = overrides.overridable(OverridableBlock::Patron);
        let user_id = user.id.expect("a stored user has an id");
        let manual: Vec<_> = blocks::manual_blocks(writer, user_id, now)?
            .into_iter()
            .filter(|b| b.borrowing)
            .collect();
        if !manual.is_empty() {
            let reasons = manual.iter().map(|b| b.desc.as_str()).collect::<Vec<_>>().join(";");
            refusals.push(
                Refusal::new("Patron blocked from borrowing", "reason", reasons)
                    .code("USER_IS_BLOCKED_MANUALLY")
                    .overridable(overridable),
            );
        }
        for block in blocks::automated_blocks(writer, user_id, user.patron_group, now)? {
            if block.block_borrowing {
                refusals.push(
                    Refusal::new(block.message, "userBarcode", &user_barcode)
                        .code("USER_IS_BLOCKED_AUTOMATICALLY")
                        .overridable(overridable),
                );
            }
        }
    }

    // 5-6. The proxy, whether each is active, and the proxy relationship.
    let proxy = match request.proxy_user_barcode.as_deref().filter(|b| !b.is_empty()) {
        None => None,
        Some(barcode) => {
            let proxy = auth::user_by_barcode(writer, barcode)?;
            if proxy.is_none() {
                refusals.push(Refusal::new(
                    "Could not find user with matching barcode",
                    "proxyUserBarcode",
                    barcode,
                ));
            }
            proxy
        }
    };
    if let Some(user) = &user
        && !user.is_active_at(now)
    {
        refusals.push(Refusal::new(
            "Cannot check out to inactive user",
            "userBarcode",
            &user_barcode,
        ));
    }
    if let Some(proxy) = &proxy {
        if !proxy.is_active_at(now) {
            refusals.push(Refusal::new(
                "Cannot check out via inactive proxying user",
                "proxyUserBarcode",
                request.proxy_user_barcode.clone().unwrap_or_default(),
            ));
        }
        if let Some(user) = &user
            && let (Some(user_id), Some(proxy_id)) = (user.id, proxy.id)
            && !auth::proxies_for(writer, user_id, proxy_id)?.is_some_and(|p| p.is_active_at(now))
        {
            refusals.push(Refusal::new(
                "Cannot check out item via proxy when relationship is invalid",
                "proxyUserBarcode",
                request.proxy_user_barcode.clone().unwrap_or_default(),
            ));
        }
    }

    // 7-10. The item, its status, and any open loan.
    let item = match inventory::item_by_barcode(writer, &item_barcode)? {
        Some(item) => Some(ItemContext::load(writer, item)?),
        None => {
            refusals.push(Refusal::new(
                format!("No item with barcode {item_barcode} could be found"),
                "itemBarcode",
                &item_barcode,
            ));
            None
        }
    };
    let mut queue = Vec::new();
    if let Some(item) = &item {
        let status = item.item.status.name;
        if status == ItemStatusName::CheckedOut {
            refusals.push(Refusal::new(
                "Item is already checked out",
                "itemBarcode",
                item.barcode(),
            ));
        } else if STATUSES_REFUSED.contains(&status) {
            refusals.push(Refusal::new(
                format!(
                    "{} ({}) (Barcode: {}) has the item status {} and cannot be checked out",
                    item.title,
                    item.material_type,
                    item.barcode(),
                    item.status_name()
                ),
                "itemBarcode",
                item.barcode(),
            ));
        }
        let item_id = item.item.id.expect("a stored item has an id");
        if open_loan(writer, item_id)?.is_some() {
            refusals.push(
                Refusal::new(
                    "Cannot check out item that already has an open loan",
                    "itemBarcode",
                    item.barcode(),
                )
                .code("ITEM_HAS_OPEN_LOAN"),
            );
        }
        // 11. The head of the queue must be this patron's (or no one's).
        queue = queue::open_requests(writer, item_id)?;
        if let (Some(head), Some(user)) = (queue.first(), &user)
            && Some(head.requester_id) != user.id
        {
            refusals.push(Refusal::new(
                format!(
                    "{} (Barcode: {}) cannot be checked out to user {} because it has been requested by another patron",
                    item.title,
                    item.barcode(),
                    personal_name(user)
                ),
                "userBarcode",
                &user_barcode,
            ));
        }
    }

    // 12-14. The loan policy: item limit, loanable.
    let (Some(user), Some(mut item)) = (user, item) else {
        return Err(Error::Refused(refusals));
    };
    let user_id = user.id.expect("a stored user has an id");
    let Some(patron_group) = user.patron_group else {
        refusals.push(Refusal::new(
            "Cannot determine the patron group of the user",
            "userBarcode",
            &user_barcode,
        ));
        return Err(Error::Refused(refusals));
    };
    let rules = cache.get(writer)?;
    let inputs = RuleInputs::for_item(writer, &item.item, patron_group)?;
    let policy: LoanPolicy = rules::policy(writer, &rules, PolicyKind::Loan, &inputs)?;
    let policy_id = policy.id.expect("a stored policy has an id");
    if !overrides.overridden(OverridableBlock::ItemLimit, loan_date, &mut refusals)
        && let Some(limit) = policy.loans_policy.as_ref().and_then(|l| l.item_limit)
        && let Some(refusal) =
            crate::item_limit::check(writer, &rules, &inputs, user_id, limit, &item_barcode)?
    {
        refusals.push(refusal.overridable(overrides.overridable(OverridableBlock::ItemLimit)));
    }
    if !overrides.overridden(OverridableBlock::ItemNotLoanable, loan_date, &mut refusals)
        && !policy.loanable
    {
        refusals.push(
            Refusal::new("Item is not loanable", "itemBarcode", &item_barcode)
                .with("loanPolicyId", policy_id.to_string())
                .with("loanPolicyName", &policy.name)
                .code("ITEM_NOT_LOANABLE")
                .overridable(overrides.overridable(OverridableBlock::ItemNotLoanable)),
        );
    }
    if !refusals.is_empty() {
        return Err(Error::Refused(refusals));
    }

    // 15. The other policies, and the due date.
    let overdue: OverdueFinePolicy =
        rules::policy(writer, &rules, PolicyKind::OverdueFine, &inputs)?;
    let lost: LostItemFeePolicy = rules::policy(writer, &rules, PolicyKind::LostItem, &inputs)?;
    let due = match overrides.due_date() {
        // The date staff gave with an item-not-loanable override stands as given.
        Some(due) => due,
        None => {
            let schedule = schedule_of(writer, &policy)?;
            let has_hold = queue::has_open(&queue, RequestType::Hold);
            let desk = Desk::for_policy(writer, &policy, request.service_point_id)?;
            let due = due_date::for_check_out(
                &policy,
                schedule.as_ref(),
                loan_date,
                has_hold,
                &desk,
                now,
            )
            .map_err(|e| {
                Error::refused(
                    Refusal::new(e.0, "loanPolicyName", &policy.name)
                        .with("loanPolicyId", policy_id.to_string()),
                )
            })?;
            // A loan never outlasts the patron's registration.
            match user.expiration_date {
                Some(expires) if expires.as_datetime() < due => expires.as_datetime(),
                _ => due,
            }
        }
    };

    // 16. Writes.
    let (action, action_comment) = overrides.loan_action();
    let item_id = item.item.id.expect("a stored item has an id");
    let location_at_check_out = item.item.effective_location_id;
    let mut stored_item = item.item;
    stored_item.status.name = ItemStatusName::CheckedOut;
    stored_item.status.date = Some(Timestamp::from(now));
    item.item = inventory::update_item(writer, stored_item, actor)?;

    let mut loan = Loan {
        id: Some(Uuid::new_v4()),
        user_id: Some(user_id),
        proxy_user_id: proxy.and_then(|p| p.id),
        item_id,
        item_effective_location_id_at_check_out: location_at_check_out,
        status: None,
        loan_date: Timestamp::from(loan_date),
        due_date: Some(Timestamp::from(due)),
        return_date: None,
        system_return_date: None,
        action: Some(action.to_string()),
        action_comment,
        item_status: Some("Checked out".to_string()),
        renewal_count: None,
        loan_policy_id: Some(policy_id),
        checkout_service_point_id: request.service_point_id,
        checkin_service_point_id: None,
        patron_group_id_at_checkout: Some(patron_group),
        due_date_changed_by_recall: None,
        overdue_fine_policy_id: overdue.id,
        lost_item_policy_id: lost.id,
        metadata: None,
        other: Default::default(),
    };
    loan.set_status(LoanStatus::Open);

    // The borrower's own request is filled by this loan.
    if let Some(own) = queue.first().filter(|r| r.requester_id == user_id).and_then(|r| r.id) {
        queue::close(writer, &mut queue, own, RequestStatus::ClosedFilled, actor)?;
    }
    // A recall still waiting shortens the new loan at once.
    if queue.iter().any(|r| r.request_type == RequestType::Recall) {
        crate::requests::apply_recall(&policy, &mut loan, now);
    }
    let loan = records::create(writer, loan, actor)?;
    let known = Embedded::default().knowing(
        &user,
        &[(Some(policy_id), &policy.name), (overdue.id, &overdue.name), (lost.id, &lost.name)],
        service_point.as_ref(),
    );
    Ok(CheckedOut { loan, item, known })
}

/// The open loan of an item, if any (one index lookup, whatever the item's history).
pub(crate) fn open_loan(reader: &Reader<'_>, item_id: Uuid) -> Result<Option<Loan>> {
    let open = LoanStatus::Open.as_str();
    let loans: Vec<Loan> = records::find_const(
        reader,
        &[("item_id", &item_id.to_string())],
        &[("status_name", open)],
    )?;
    Ok(loans.into_iter().next())
}

/// A patron's open loans.
pub(crate) fn open_loans_of_user(reader: &Reader<'_>, user_id: Uuid) -> Result<Vec<Loan>> {
    let open = LoanStatus::Open.as_str();
    records::find_const(reader, &[("user_id", &user_id.to_string())], &[("status_name", open)])
}

/// The fixed due date schedule a loan policy names, if any.
pub(crate) fn schedule_of(
    reader: &Reader<'_>,
    policy: &LoanPolicy,
) -> Result<Option<FixedDueDateSchedule>> {
    match policy.loans_policy.as_ref().and_then(|l| l.fixed_due_date_schedule_id) {
        Some(id) => records::get(reader, id),
        None => Ok(None),
    }
}

/// "Last, First", as FOLIO names a patron in messages.
pub(crate) fn personal_name(user: &auth::User) -> String {
    user.display_name().unwrap_or_default()
}
