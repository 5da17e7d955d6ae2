//! `POST /circulation/renew-by-barcode`: extend a patron's loan.

use chrono::{DateTime, Utc};
use circ_rules::PolicyKind;
use inventory::{Actor, Timestamp};
use serde::Deserialize;
use store::Writer;

use crate::check_out::{open_loan, schedule_of};
use crate::due_date;
use crate::model::{Loan, LoanPolicy, RequestType};
use crate::opening_hours::Desk;
use crate::rules::{self, RuleInputs, RulesCache};
use crate::{Error, Refusal, Result, blocks, queue, records};

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RenewRequest {
    #[serde(default)]
    pub item_barcode: Option<String>,
    #[serde(default)]
    pub user_barcode: Option<String>,
    #[serde(flatten)]
    pub other: serde_json::Map<String, serde_json::Value>,
}

pub fn renew(
    writer: &mut Writer<'_>,
    cache: &RulesCache,
    request: RenewRequest,
    actor: Actor,
    now: DateTime<Utc>,
) -> Result<Loan> {
    let item_barcode = request.item_barcode.unwrap_or_default();
    let user_barcode = request.user_barcode.unwrap_or_default();
    let mut refusals = Vec::new();
    if item_barcode.is_empty() {
        refusals.push(
            Refusal::new("Renewal request must have an item barcode", "itemBarcode", "")
                .code("RENEWAL_REQUEST_ITEM_BARCODE_REQUIRED"),
        );
    }
    if user_barcode.is_empty() {
        refusals.push(
            Refusal::new("Renewal request must have a user barcode", "userBarcode", "")
                .code("RENEWAL_REQUEST_USER_BARCODE_REQUIRED"),
        );
    }
    if !refusals.is_empty() {
        return Err(Error::Refused(refusals));
    }
    let Some(user) = auth::user_by_barcode(writer, &user_barcode)? else {
        return Err(Error::refused(
            Refusal::new("Could not find user with matching barcode", "userBarcode", &user_barcode)
                .code("USER_BARCODE_NOT_FOUND"),
        ));
    };
    let Some(item) = inventory::item_by_barcode(writer, &item_barcode)? else {
        return Err(Error::refused(
            Refusal::new(
                format!("No item with barcode {item_barcode} exists"),
                "itemBarcode",
                &item_barcode,
            )
            .code("ITEM_BARCODE_NOT_FOUND"),
        ));
    };
    let item_id = item.id.expect("a stored item has an id");
    let user_id = user.id.expect("a stored user has an id");
    let Some(mut loan) = open_loan(writer, item_id)? else {
        return Err(Error::refused(Refusal::new(
            format!("No open loan for item with barcode {item_barcode}"),
            "itemBarcode",
            &item_barcode,
        )));
    };
    if loan.user_id != Some(user_id) {
        return Err(Error::refused(
            Refusal::new(
                "Cannot renew item checked out to different user",
                "userBarcode",
                &user_barcode,
            )
            .code("ITEM_CHECKED_OUT_TO_DIFFERENT_USER"),
        ));
    }

    if blocks::manual_blocks(writer, user_id, now)?.iter().any(|b| b.renewals) {
        refusals.push(
            Refusal::new("Patron blocked from renewing", "userBarcode", &user_barcode)
                .code("USER_IS_BLOCKED_MANUALLY"),
        );
    }
    for block in blocks::automated_blocks(writer, user_id, user.patron_group, now)? {
        if block.block_renewals {
            refusals.push(
                Refusal::new(block.message, "userBarcode", &user_barcode)
                    .code("USER_IS_BLOCKED_AUTOMATICALLY"),
            );
        }
    }
    // FOLIO applies the policy the rules choose now, not the one the loan was made under.
    let rules = cache.get(writer)?;
    let group = loan.patron_group_id_at_checkout.or(user.patron_group).ok_or_else(|| {
        Error::refused(Refusal::new(
            "Cannot determine the patron group of the user",
            "userBarcode",
            &user_barcode,
        ))
    })?;
    let inputs = RuleInputs::for_item(writer, &item, group)?;
    let policy: LoanPolicy = rules::policy(writer, &rules, PolicyKind::Loan, &inputs)?;
    let policy_ref = |r: Refusal| {
        r.with("loanPolicyId", policy.id.map(|i| i.to_string()).unwrap_or_default())
            .with("loanPolicyName", &policy.name)
    };
    let queue = queue::open_requests(writer, item_id)?;
    if !policy.loanable {
        refusals.push(policy_ref(Refusal::new(
            "item is not loanable",
            "itemBarcode",
            &item_barcode,
        )));
    } else if !policy.renewable {
        refusals.push(policy_ref(
            Refusal::new("loan is not renewable", "itemBarcode", &item_barcode)
                .code("LOAN_NOT_RENEWABLE"),
        ));
    }
    let renewals = policy.renewals_policy.as_ref();
    let unlimited = renewals.and_then(|r| r.unlimited).unwrap_or(false);
    let allowed = renewals.and_then(|r| r.number_allowed).unwrap_or(0);
    let count = loan.renewal_count.unwrap_or(0);
    if policy.renewable && !unlimited && count >= allowed {
        refusals.push(policy_ref(
            Refusal::new("loan at maximum renewal number", "itemBarcode", &item_barcode)
                .code("LOAN_RENEWAL_LIMIT_REACHED"),
        ));
    }
    if queue::has_open(&queue, RequestType::Recall) {
        refusals.push(
            Refusal::new(
                "items cannot be renewed when there is an active recall request",
                "itemBarcode",
                &item_barcode,
            )
            .code("RENEWAL_BLOCKED_BY_RECALL"),
        );
    }
    let renew_with_hold = policy.holds().and_then(|h| h.renew_items_with_request).unwrap_or(false);
    if queue::has_open(&queue, RequestType::Hold) && !renew_with_hold {
        refusals.push(
            Refusal::new(
                "Items with this loan policy cannot be renewed when there is an active, pending hold request",
                "itemBarcode",
                &item_barcode,
            )
            .code("RENEWAL_BLOCKED_BY_HOLD_REQUEST"),
        );
    }
    let current_due = loan.due_date.map_or(now, |d| d.as_datetime());
    let schedule = schedule_of(writer, &policy)?;
    // The hours of the desk that lent it.
    let desk = Desk::for_policy(writer, &policy, loan.checkout_service_point_id)?;
    match due_date::for_renewal(&policy, schedule.as_ref(), current_due, now, &desk) {
        Err(e) => refusals.push(policy_ref(Refusal::new(e.0, "itemBarcode", &item_barcode))),
        Ok(due) if refusals.is_empty() => {
            if due <= current_due {
                refusals.push(policy_ref(
                    Refusal::new(
                        "renewal would not change the due date",
                        "itemBarcode",
                        &item_barcode,
                    )
                    .code("RENEWAL_WOULD_NOT_CHANGE_DUE_DATE"),
                ));
            } else {
                loan.due_date = Some(Timestamp::from(due));
            }
        }
        Ok(_) => {}
    }
    if !refusals.is_empty() {
        return Err(Error::Refused(refusals));
    }
    loan.renewal_count = Some(count + 1);
    loan.action = Some("renewed".to_string());
    loan.loan_policy_id = policy.id;
    records::update(writer, &mut loan, actor)?;
    Ok(loan)
}
