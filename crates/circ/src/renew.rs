//! `POST /circulation/renew-by-barcode`: extend a patron's loan, or, with FOLIO's
//! `overrideBlocks`, renew despite what forbids it (staff give a comment, and a due date
//! where none can be worked out).

use chrono::{DateTime, Utc};
use circ_rules::PolicyKind;
use folio::{Actor, Timestamp};
use serde::Deserialize;
use store::Writer;

use crate::check_out::{open_loan, schedule_of};
use crate::due_date;
use crate::model::{Loan, LoanPolicy, RequestType};
use crate::opening_hours::Desk;
use crate::overrides::{self, BlockOverrides, Overridable, OverridableBlock};
use crate::rules::{self, RuleInputs, RulesCache};
use crate::{Error, Refusal, Result, blocks, queue, records};

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RenewRequest {
    #[serde(default)]
    pub item_barcode: Option<String>,
    #[serde(default)]
    pub user_barcode: Option<String>,
    #[serde(default)]
    pub override_blocks: Option<BlockOverrides>,
    #[serde(flatten)]
    pub other: serde_json::Map<String, serde_json::Value>,
}

/// Renews the loan of `request`'s item to its user. `may_override` says whether the
/// caller holds the permission a block's override takes.
pub fn renew(
    writer: &mut Writer<'_>,
    cache: &RulesCache,
    request: RenewRequest,
    may_override: &dyn Fn(OverridableBlock) -> bool,
    actor: Actor,
    now: DateTime<Utc>,
) -> Result<Loan> {
    let overrides = request.override_blocks.clone().unwrap_or_default();
    // A refusal staff could override, and whether this caller may.
    let overridable = |refusal: Refusal, block: OverridableBlock| {
        refusal.overridable(Overridable::for_caller(block, may_override))
    };
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

    if overrides.requested(OverridableBlock::Patron) {
        // The override stands in for both patron-block checks.
        if !may_override(OverridableBlock::Patron) {
            refusals.push(overrides::insufficient_permissions(OverridableBlock::Patron));
        }
    } else {
        if blocks::manual_blocks(writer, user_id, now)?.iter().any(|b| b.renewals) {
            refusals.push(overridable(
                Refusal::new("Patron blocked from renewing", "userBarcode", &user_barcode)
                    .code("USER_IS_BLOCKED_MANUALLY"),
                OverridableBlock::Patron,
            ));
        }
        for block in blocks::automated_blocks(writer, user_id, user.patron_group, now)? {
            if block.block_renewals {
                refusals.push(overridable(
                    Refusal::new(block.message, "userBarcode", &user_barcode)
                        .code("USER_IS_BLOCKED_AUTOMATICALLY"),
                    OverridableBlock::Patron,
                ));
            }
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
    let renewals = policy.renewals_policy.as_ref();
    let unlimited = renewals.and_then(|r| r.unlimited).unwrap_or(false);
    let allowed = renewals.and_then(|r| r.number_allowed).unwrap_or(0);
    let count = loan.renewal_count.unwrap_or(0);
    let limit_reached = policy.renewable && !unlimited && count >= allowed;
    let recalled = queue::has_open(&queue, RequestType::Recall);
    let current_due = loan.due_date.map_or(now, |d| d.as_datetime());
    let schedule = schedule_of(writer, &policy)?;
    // The hours of the desk that lent it.
    let desk = Desk::for_policy(writer, &policy, loan.checkout_service_point_id)?;
    let calculated = due_date::for_renewal(&policy, schedule.as_ref(), current_due, now, &desk);
    let would_not_change = || {
        policy_ref(
            Refusal::new("renewal would not change the due date", "itemBarcode", &item_barcode)
                .code("RENEWAL_WOULD_NOT_CHANGE_DUE_DATE"),
        )
    };
    let new_due = if overrides.renewal_requested() {
        override_due_date(
            &overrides,
            may_override,
            &mut refusals,
            OverrideCase {
                policy_refuses: !policy.loanable || !policy.renewable || calculated.is_err(),
                blocked: limit_reached || recalled,
                calculated: calculated.ok(),
                current_due,
            },
        )
    } else {
        let due_required = OverridableBlock::RenewalDueDateRequired;
        if !policy.loanable {
            refusals.push(overridable(
                policy_ref(
                    Refusal::new("item is not loanable", "itemBarcode", &item_barcode)
                        .code("ITEM_NOT_LOANABLE"),
                ),
                due_required,
            ));
        } else if !policy.renewable {
            refusals.push(overridable(
                policy_ref(
                    Refusal::new("loan is not renewable", "itemBarcode", &item_barcode)
                        .code("LOAN_NOT_RENEWABLE"),
                ),
                due_required,
            ));
        }
        if limit_reached {
            refusals.push(overridable(
                policy_ref(
                    Refusal::new("loan at maximum renewal number", "itemBarcode", &item_barcode)
                        .code("LOAN_RENEWAL_LIMIT_REACHED"),
                ),
                OverridableBlock::Renewal,
            ));
        }
        if recalled {
            refusals.push(overridable(
                Refusal::new(
                    "items cannot be renewed when there is an active recall request",
                    "itemBarcode",
                    &item_barcode,
                )
                .code("RENEWAL_BLOCKED_BY_RECALL"),
                OverridableBlock::Renewal,
            ));
        }
        let renew_with_hold =
            policy.holds().and_then(|h| h.renew_items_with_request).unwrap_or(false);
        if queue::has_open(&queue, RequestType::Hold) && !renew_with_hold {
            refusals.push(overridable(
                Refusal::new(
                    "Items with this loan policy cannot be renewed when there is an active, pending hold request",
                    "itemBarcode",
                    &item_barcode,
                )
                .code("RENEWAL_BLOCKED_BY_HOLD_REQUEST"),
                due_required,
            ));
        }
        match calculated {
            Err(e) => {
                refusals.push(overridable(
                    policy_ref(Refusal::new(e.0, "itemBarcode", &item_barcode)),
                    due_required,
                ));
                None
            }
            Ok(due) if refusals.is_empty() && due <= current_due => {
                refusals.push(overridable(would_not_change(), due_required));
                None
            }
            Ok(due) => Some(due),
        }
    };
    if let Some(due) = new_due
        && overrides.renewal_requested()
        && due <= current_due
    {
        refusals.push(would_not_change());
    }
    if !refusals.is_empty() {
        return Err(Error::Refused(refusals));
    }
    let Some(due) = new_due else { unreachable!("a renewal without refusals has a new due date") };
    loan.due_date = Some(Timestamp::from(due));
    loan.renewal_count = Some(count + 1);
    // Any override marks the loan, with the staff's comment; a plain renewal clears an
    // earlier override's comment.
    let overridden = overrides.renewal_requested() || overrides.requested(OverridableBlock::Patron);
    loan.action = Some(if overridden { "renewedThroughOverride" } else { "renewed" }.to_string());
    loan.action_comment = overridden.then(|| overrides.comment().map(str::to_string)).flatten();
    loan.loan_policy_id = policy.id;
    records::update(writer, &mut loan, actor)?;
    Ok(loan)
}

/// What the override path needs to know of a renewal the normal path would judge.
struct OverrideCase {
    /// The policy does not lend or renew, or gives no due date: staff must give one.
    policy_refuses: bool,
    /// The renewal limit is reached or the item is recalled.
    blocked: bool,
    calculated: Option<DateTime<Utc>>,
    current_due: DateTime<Utc>,
}

/// The override path (`renewalBlock` or `renewalDueDateRequiredBlock`), after
/// mod-circulation: the normal renewal checks do not run; a comment and the permission
/// are required, and the renewal must be one of the cases an override is for. The new due
/// date is the one staff give where the policy cannot work one out, and otherwise the
/// calculated one if it moves the due date on, else again the one staff give.
fn override_due_date(
    overrides: &BlockOverrides,
    may_override: &dyn Fn(OverridableBlock) -> bool,
    refusals: &mut Vec<Refusal>,
    case: OverrideCase,
) -> Option<DateTime<Utc>> {
    if overrides.comment().is_none() {
        refusals.push(
            Refusal::new("Override renewal request must have a comment", "comment", "")
                .code("OVERRIDE_RENEWAL_COMMENT_REQUIRED"),
        );
    }
    if !may_override(OverridableBlock::Renewal) {
        // FOLIO names the renewal block here whichever of the two was sent.
        refusals.push(overrides::insufficient_permissions(OverridableBlock::Renewal));
    }
    let given = overrides.renewal_due_date();
    if case.policy_refuses {
        if given.is_none() {
            refusals.push(
                Refusal::new(
                    "New due date must be specified when due date calculation fails",
                    "dueDate",
                    "null",
                )
                .code("OVERRIDE_RENEWAL_DUE_DATE_REQUIRED"),
            );
        }
        return given;
    }
    let moves_on = case.calculated.filter(|due| *due > case.current_due);
    if !case.blocked && moves_on.is_some() {
        refusals.push(Refusal {
            message: "Override renewal does not match any of expected cases: item is not \
                      loanable, item is not renewable, reached number of renewals limit,renewal \
                      date falls outside of the date ranges in the loan policy, items cannot be \
                      renewed when there is an active recall request, item is Declared lost, \
                      item is Aged to lost, renewal would not change the due date, loan has \
                      reminder fees"
                .to_string(),
            parameters: Vec::new(),
            code: Some("OVERRIDE_RENEWAL_NOT_ALLOWED_FOR_CURRENT_LOAN"),
            overridable: None,
        });
        return None;
    }
    if moves_on.is_some() {
        return moves_on;
    }
    if given.is_none() {
        refusals.push(
            Refusal::new(
                "New due date is required when renewal would not change the due date",
                "dueDate",
                "null",
            )
            .code("OVERRIDE_RENEWAL_DUE_DATE_REQUIRED_WHEN_DUE_DATE_UNCHANGED"),
        );
    }
    given
}
