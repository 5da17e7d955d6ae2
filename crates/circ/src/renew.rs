//! `POST /circulation/renew-by-barcode`: extend a patron's loan, or, with FOLIO's
//! `overrideBlocks`, renew despite what forbids it (staff give a comment, and a due date
//! where none can be worked out).

use chrono::{DateTime, Utc};
use circ_rules::PolicyKind;
use folio::{Actor, Stored, Timestamp};
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
    let item_id = item.id;
    let user_id = user.id;
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
    let policy: Stored<LoanPolicy> = rules::policy(writer, &rules, PolicyKind::Loan, &inputs)?;
    let policy_ref = |r: Refusal| {
        r.with("loanPolicyId", policy.id.to_string()).with("loanPolicyName", &policy.name)
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
    loan.loan_policy_id = Some(policy.id);
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

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};
    use serde_json::{Value, json};

    use crate::OverridableBlock::{self, Patron, Renewal, RenewalDueDateRequired};
    use crate::blocks::condition;
    use crate::fixtures::{self, BOOK, Library, STAFF, at, merged, rules_text};
    use crate::model::{LoanPolicy, ManualBlock};

    /// When B-1 was lent to P-1 under the default policy, due 1 May 2026 at 23:59:59.
    const LOANED: &str = "2026-03-02T10:15:00Z";
    const NOW: &str = "2026-04-20T10:00:00Z";
    const POLICY: &str = "00000000-0000-4000-8000-00000000a010";

    /// A library where P-1 has B-1 on loan, B-2 is on the shelf, and P-2 is another
    /// patron; from now on the rules lend books under `policy` (with the id POLICY) if
    /// one is given.
    fn library(policy: Option<Value>) -> Library {
        let lib = Library::new();
        lib.item("B-1", json!({}));
        lib.item("B-2", json!({}));
        lib.patron("P-1", json!({}));
        lib.patron("P-2", json!({}));
        lib.check_out("B-1", "P-1", json!({}), at(LOANED)).unwrap();
        if let Some(policy) = policy {
            lib.record::<LoanPolicy>(merged(policy, json!({"id": POLICY})));
            lib.rules(&rules_text(&[(&format!("m {BOOK}"), POLICY)]));
        }
        lib
    }

    /// A rolling two-week policy named `name` keeping due times, `extra` set on it.
    fn two_weeks(name: &str, extra: Value) -> Value {
        merged(
            json!({"name": name, "loanable": true, "renewable": true,
                "loansPolicy": {"profileId": "Rolling", "period": {"duration": 2, "intervalId": "Weeks"},
                    "closedLibraryDueDateManagementId": "CURRENT_DUE_DATE_TIME"},
                "renewalsPolicy": {"numberAllowed": 1, "renewFromId": "CURRENT_DUE_DATE"}}),
            extra,
        )
    }

    /// Renews with `extra` set on a renewal of B-1 by P-1 at `now`, the caller holding
    /// the permissions to override `may_override`: the loan, or every refusal.
    fn check_as(
        lib: &Library,
        extra: Value,
        may_override: &[OverridableBlock],
        now: &str,
        expect: Expect,
    ) {
        let body = merged(json!({"itemBarcode": "B-1", "userBarcode": "P-1"}), extra);
        let got = match lib.renew_as(body, may_override, at(now)) {
            Ok(loan) => fixtures::loan_summary(&loan),
            Err(e) => fixtures::refusals(&e),
        };
        expect.assert_eq(&got);
    }

    fn check(lib: &Library, extra: Value, expect: Expect) {
        check_as(lib, extra, &[], NOW, expect);
    }

    #[test]
    fn what_a_renewal_needs() {
        let lib = library(None);
        check(
            &lib,
            json!({"itemBarcode": null, "userBarcode": ""}),
            expect![[r#"
                Renewal request must have an item barcode [RENEWAL_REQUEST_ITEM_BARCODE_REQUIRED] itemBarcode=
                Renewal request must have a user barcode [RENEWAL_REQUEST_USER_BARCODE_REQUIRED] userBarcode=
            "#]],
        );
        check(
            &lib,
            json!({"userBarcode": "P-404"}),
            expect![[r#"
                Could not find user with matching barcode [USER_BARCODE_NOT_FOUND] userBarcode=P-404
            "#]],
        );
        check(
            &lib,
            json!({"itemBarcode": "B-404"}),
            expect![[r#"
                No item with barcode B-404 exists [ITEM_BARCODE_NOT_FOUND] itemBarcode=B-404
            "#]],
        );
        check(
            &lib,
            json!({"itemBarcode": "B-2"}),
            expect![[r#"
                No open loan for item with barcode B-2 itemBarcode=B-2
            "#]],
        );
        check(
            &lib,
            json!({"userBarcode": "P-2"}),
            expect![[r#"
                Cannot renew item checked out to different user [ITEM_CHECKED_OUT_TO_DIFFERENT_USER] userBarcode=P-2
            "#]],
        );
    }

    #[test]
    fn renews_from_the_current_due_date() {
        let lib = library(None);
        // The default policy renews for 30 days from the due date: 1 May 23:59:59 to
        // 31 May 23:59:59, then to 30 June.
        check(
            &lib,
            json!({}),
            expect![[r#"
                status Open
                loanDate 2026-03-02T10:15:00.000+00:00
                dueDate 2026-05-31T23:59:59.000+00:00
                action renewed
                itemStatus Checked out
                renewalCount 1
            "#]],
        );
        check(
            &lib,
            json!({}),
            expect![[r#"
                status Open
                loanDate 2026-03-02T10:15:00.000+00:00
                dueDate 2026-06-30T23:59:59.000+00:00
                action renewed
                itemStatus Checked out
                renewalCount 2
            "#]],
        );
    }

    #[test]
    fn the_renewal_limit_under_the_policy_the_rules_choose_now() {
        let lib = library(Some(two_weeks("Once", json!({}))));
        // Two weeks from 1 May 23:59:59, and the loan is now under "Once".
        check(
            &lib,
            json!({}),
            expect![[r#"
                status Open
                loanDate 2026-03-02T10:15:00.000+00:00
                dueDate 2026-05-15T23:59:59.000+00:00
                action renewed
                itemStatus Checked out
                renewalCount 1
            "#]],
        );
        assert_eq!(lib.loans()[0].loan_policy_id, Some(fixtures::uuid(POLICY)));
        check(
            &lib,
            json!({}),
            expect![[r#"
                loan at maximum renewal number [LOAN_RENEWAL_LIMIT_REACHED] itemBarcode=B-1 loanPolicyId=00000000-0000-4000-8000-00000000a010 loanPolicyName=Once (override: renewalBlock, permission missing)
            "#]],
        );
        // Unlimited renewals have no limit.
        let lib = library(Some(two_weeks(
            "Unlimited",
            json!({"renewalsPolicy": {"unlimited": true, "numberAllowed": 0}}),
        )));
        for _ in 0..3 {
            lib.renew_as(json!({"itemBarcode": "B-1", "userBarcode": "P-1"}), &[], at(NOW))
                .unwrap();
        }
        assert_eq!(lib.loans()[0].renewal_count, Some(3));
    }

    #[test]
    fn policies_that_do_not_renew() {
        let lib = library(Some(two_weeks("No renewals", json!({"renewable": false}))));
        check(
            &lib,
            json!({}),
            expect![[r#"
                loan is not renewable [LOAN_NOT_RENEWABLE] itemBarcode=B-1 loanPolicyId=00000000-0000-4000-8000-00000000a010 loanPolicyName=No renewals (override: renewalDueDateRequiredBlock, permission missing)
            "#]],
        );
        let lib = library(Some(two_weeks("Not for loan", json!({"loanable": false}))));
        check(
            &lib,
            json!({}),
            expect![[r#"
                item is not loanable [ITEM_NOT_LOANABLE] itemBarcode=B-1 loanPolicyId=00000000-0000-4000-8000-00000000a010 loanPolicyName=Not for loan (override: renewalDueDateRequiredBlock, permission missing)
            "#]],
        );
        // Renewing from today, 10 April 12:00, for two weeks gives 24 April, earlier than
        // the due date of 1 May.
        let lib = library(Some(two_weeks(
            "From today",
            json!({"renewalsPolicy": {"numberAllowed": 5, "renewFromId": "SYSTEM_DATE"}}),
        )));
        check_as(
            &lib,
            json!({}),
            &[],
            "2026-04-10T12:00:00Z",
            expect![[r#"
                renewal would not change the due date [RENEWAL_WOULD_NOT_CHANGE_DUE_DATE] itemBarcode=B-1 loanPolicyId=00000000-0000-4000-8000-00000000a010 loanPolicyName=From today (override: renewalDueDateRequiredBlock, permission missing)
            "#]],
        );
        // A fixed policy without a schedule gives no due date.
        let lib = library(Some(json!({"name": "Unscheduled", "loanable": true, "renewable": true,
            "loansPolicy": {"profileId": "Fixed"}, "renewalsPolicy": {"unlimited": true}})));
        check(
            &lib,
            json!({}),
            expect![[r#"
                renewal date falls outside of date ranges in fixed loan policy itemBarcode=B-1 loanPolicyId=00000000-0000-4000-8000-00000000a010 loanPolicyName=Unscheduled (override: renewalDueDateRequiredBlock, permission missing)
            "#]],
        );
    }

    #[test]
    fn requests_that_stop_a_renewal() {
        let lib = library(None);
        let item = lib.stored_item("B-1").id.unwrap();
        let holder = lib.patron("P-3", json!({}));
        lib.request("Hold", item, holder, json!({}), at("2026-04-01T09:00:00Z")).unwrap();
        check(
            &lib,
            json!({}),
            expect![[r#"
                Items with this loan policy cannot be renewed when there is an active, pending hold request [RENEWAL_BLOCKED_BY_HOLD_REQUEST] itemBarcode=B-1 (override: renewalDueDateRequiredBlock, permission missing)
            "#]],
        );
        let recaller = lib.patron("P-4", json!({}));
        lib.request("Recall", item, recaller, json!({}), at("2026-04-01T09:00:00Z")).unwrap();
        check(
            &lib,
            json!({}),
            expect![[r#"
                items cannot be renewed when there is an active recall request [RENEWAL_BLOCKED_BY_RECALL] itemBarcode=B-1 (override: renewalBlock, permission missing)
                Items with this loan policy cannot be renewed when there is an active, pending hold request [RENEWAL_BLOCKED_BY_HOLD_REQUEST] itemBarcode=B-1 (override: renewalDueDateRequiredBlock, permission missing)
            "#]],
        );

        // A policy may renew despite holds: 1 May 23:59:59 plus two weeks.
        let lib = library(Some(two_weeks(
            "Holds allowed",
            json!({"requestManagement": {"holds": {"renewItemsWithRequest": true}}}),
        )));
        let item = lib.stored_item("B-1").id.unwrap();
        let holder = lib.patron("P-3", json!({}));
        lib.request("Hold", item, holder, json!({}), at("2026-04-01T09:00:00Z")).unwrap();
        check(
            &lib,
            json!({}),
            expect![[r#"
                status Open
                loanDate 2026-03-02T10:15:00.000+00:00
                dueDate 2026-05-15T23:59:59.000+00:00
                action renewed
                itemStatus Checked out
                renewalCount 1
            "#]],
        );
    }

    #[test]
    fn patron_blocks_on_renewals() {
        let lib = library(None);
        let patron = lib.loans()[0].user_id.unwrap();
        lib.record::<ManualBlock>(json!({"userId": patron, "desc": "Borrowing only",
            "borrowing": true}));
        // A block on borrowing does not stop a renewal.
        lib.renew_as(json!({"itemBarcode": "B-1", "userBarcode": "P-1"}), &[], at(NOW)).unwrap();
        lib.record::<ManualBlock>(json!({"userId": patron, "desc": "Renewals", "renewals": true}));
        lib.automated_block(
            condition::MAX_ITEMS_CHARGED_OUT,
            STAFF,
            1.0,
            &["renewals"],
            "Patron has reached maximum allowed number of items charged out",
        );
        check(
            &lib,
            json!({}),
            expect![[r#"
                Patron blocked from renewing [USER_IS_BLOCKED_MANUALLY] userBarcode=P-1 (override: patronBlock, permission missing)
                Patron has reached maximum allowed number of items charged out [USER_IS_BLOCKED_AUTOMATICALLY] userBarcode=P-1 (override: patronBlock, permission missing)
            "#]],
        );
        let override_blocks =
            json!({"overrideBlocks": {"patronBlock": {}, "comment": "Manager agreed"}});
        check_as(
            &lib,
            override_blocks.clone(),
            &[Renewal],
            NOW,
            expect![[r#"
                Insufficient override permissions [INSUFFICIENT_OVERRIDE_PERMISSIONS] (override: patronBlock, permission missing)
            "#]],
        );
        // Overridden: 31 May plus 30 days, marked and commented.
        check_as(
            &lib,
            override_blocks,
            &[Patron],
            NOW,
            expect![[r#"
                status Open
                loanDate 2026-03-02T10:15:00.000+00:00
                dueDate 2026-06-30T23:59:59.000+00:00
                action renewedThroughOverride
                actionComment Manager agreed
                itemStatus Checked out
                renewalCount 2
            "#]],
        );
    }

    #[test]
    fn renewal_overrides() {
        let lib = library(Some(two_weeks("Once", json!({}))));
        lib.renew_as(json!({"itemBarcode": "B-1", "userBarcode": "P-1"}), &[], at(NOW)).unwrap();
        let renewal_block =
            |comment: Value| json!({"overrideBlocks": {"renewalBlock": {}, "comment": comment}});
        check_as(
            &lib,
            renewal_block(json!("  ")),
            &[Patron],
            NOW,
            expect![[r#"
                Override renewal request must have a comment [OVERRIDE_RENEWAL_COMMENT_REQUIRED] comment=
                Insufficient override permissions [INSUFFICIENT_OVERRIDE_PERMISSIONS] (override: renewalBlock, permission missing)
            "#]],
        );
        // At the limit, staff may renew: two more weeks from 15 May 23:59:59.
        check_as(
            &lib,
            renewal_block(json!("Needed for thesis")),
            &[Renewal],
            NOW,
            expect![[r#"
                status Open
                loanDate 2026-03-02T10:15:00.000+00:00
                dueDate 2026-05-29T23:59:59.000+00:00
                action renewedThroughOverride
                actionComment Needed for thesis
                itemStatus Checked out
                renewalCount 2
            "#]],
        );
        // Under the default policy nothing stops the renewal: an override with nothing to
        // override is a refusal of its own.
        let lib = library(None);
        check_as(
            &lib,
            renewal_block(json!("Just because")),
            &[Renewal],
            NOW,
            expect![[r#"
                Override renewal does not match any of expected cases: item is not loanable, item is not renewable, reached number of renewals limit,renewal date falls outside of the date ranges in the loan policy, items cannot be renewed when there is an active recall request, item is Declared lost, item is Aged to lost, renewal would not change the due date, loan has reminder fees [OVERRIDE_RENEWAL_NOT_ALLOWED_FOR_CURRENT_LOAN]
            "#]],
        );
    }

    #[test]
    fn staff_give_the_due_date_the_policy_cannot() {
        let lib = library(Some(two_weeks("No renewals", json!({"renewable": false}))));
        let due_required = |due: Value| {
            json!({"overrideBlocks": {"renewalDueDateRequiredBlock": {"dueDate": due},
                "comment": "Reading room copy lost"}})
        };
        check_as(
            &lib,
            due_required(Value::Null),
            &[Renewal],
            NOW,
            expect![[r#"
                New due date must be specified when due date calculation fails [OVERRIDE_RENEWAL_DUE_DATE_REQUIRED] dueDate=null
            "#]],
        );
        // The date given must move the due date on from 1 May 23:59:59.
        check_as(
            &lib,
            due_required(json!("2026-05-01T12:00:00Z")),
            &[Renewal],
            NOW,
            expect![[r#"
                renewal would not change the due date [RENEWAL_WOULD_NOT_CHANGE_DUE_DATE] itemBarcode=B-1 loanPolicyId=00000000-0000-4000-8000-00000000a010 loanPolicyName=No renewals
            "#]],
        );
        // Both renewal blocks take one permission, which the caller holds.
        check_as(
            &lib,
            due_required(json!("2026-05-20T17:00:00Z")),
            &[Renewal, RenewalDueDateRequired],
            NOW,
            expect![[r#"
                status Open
                loanDate 2026-03-02T10:15:00.000+00:00
                dueDate 2026-05-20T17:00:00.000+00:00
                action renewedThroughOverride
                actionComment Reading room copy lost
                itemStatus Checked out
                renewalCount 1
            "#]],
        );
        // Where the renewal would not change the due date, staff give one as well.
        let lib = library(Some(two_weeks(
            "From today",
            json!({"renewalsPolicy": {"numberAllowed": 5, "renewFromId": "SYSTEM_DATE"}}),
        )));
        check_as(
            &lib,
            json!({"overrideBlocks": {"renewalBlock": {}, "comment": "Extend"}}),
            &[Renewal],
            "2026-04-10T12:00:00Z",
            expect![[r#"
                New due date is required when renewal would not change the due date [OVERRIDE_RENEWAL_DUE_DATE_REQUIRED_WHEN_DUE_DATE_UNCHANGED] dueDate=null
            "#]],
        );
        check_as(
            &lib,
            due_required(json!("2026-05-08T17:00:00Z")),
            &[Renewal],
            "2026-04-10T12:00:00Z",
            expect![[r#"
                status Open
                loanDate 2026-03-02T10:15:00.000+00:00
                dueDate 2026-05-08T17:00:00.000+00:00
                action renewedThroughOverride
                actionComment Reading room copy lost
                itemStatus Checked out
                renewalCount 1
            "#]],
        );
        // A plain renewal later clears the override's comment: two weeks from 1 May
        // 09:00 is 15 May 09:00, after 8 May 17:00.
        check_as(
            &lib,
            json!({}),
            &[],
            "2026-05-01T09:00:00Z",
            expect![[r#"
                status Open
                loanDate 2026-03-02T10:15:00.000+00:00
                dueDate 2026-05-15T09:00:00.000+00:00
                action renewed
                itemStatus Checked out
                renewalCount 2
            "#]],
        );
    }
}
