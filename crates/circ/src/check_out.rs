//! `POST /circulation/check-out-by-barcode`: lend an item to a patron.
//!
//! FOLIO's validation steps run in FOLIO's order and every failure is collected, so
//! one 422 lists all the reasons, as mod-circulation's error handler does. Then, in
//! the same transaction: the item becomes Checked out, the loan is created, the
//! borrower's own request is filled, and a recalled item's loan is shortened.

use chrono::{DateTime, Utc};
use circ_rules::PolicyKind;
use folio::{Actor, Stored, Timestamp};
use inventory::ItemStatusName;
use serde::Deserialize;
use store::{Read, Reader, Writer};
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
use crate::views::{Embedded, LoanView};
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
    pub fn view(self, reader: &Reader<'_>) -> Result<LoanView> {
        let CheckedOut { loan, item, mut known } = self;
        known.loan_view(reader, loan, Some(&item))
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
    // On PostgreSQL each lookup is a round trip made under the tenant's write lock: the
    // patron and the item are read together with what follows from the two, their
    // barcodes leading to the patron's blocks and the item's instance, loan and queue.
    let item_key = |column| inventory::item_by_barcode_key(&item_barcode, column);
    writer.prefetch(&[
        auth::user_by_barcode_read(&user_barcode),
        inventory::item_by_barcode_read(&item_barcode),
        Read::Via(auth::user_by_barcode_key(&user_barcode), blocks::manual_blocks_read),
        Read::Via(item_key("holdings_record_id"), inventory::instance_of_holdings_read),
        Read::Via(item_key("id"), open_loan_read),
        Read::Via(item_key("id"), queue::open_requests_read),
    ])?;

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
    let found_item = inventory::item_by_barcode(writer, &item_barcode)?;
    if !overrides.overridden(OverridableBlock::Patron, loan_date, &mut refusals)
        && let Some(user) = &user
    {
        let overridable = overrides.overridable(OverridableBlock::Patron);
        let user_id = user.id;
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
            && !auth::proxies_for(writer, user.id, proxy.id)?.is_some_and(|p| p.is_active_at(now))
        {
            refusals.push(Refusal::new(
                "Cannot check out item via proxy when relationship is invalid",
                "proxyUserBarcode",
                request.proxy_user_barcode.clone().unwrap_or_default(),
            ));
        }
    }

    // 7-10. The item, its status, and any open loan.
    let item = match found_item {
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
        let item_id = item.item.id;
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
            && head.requester_id != user.id
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
    let user_id = user.id;
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
    let policy: Stored<LoanPolicy> = rules::policy(writer, &rules, PolicyKind::Loan, &inputs)?;
    let policy_id = policy.id;
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
    let overdue: Stored<OverdueFinePolicy> =
        rules::policy(writer, &rules, PolicyKind::OverdueFine, &inputs)?;
    let lost: Stored<LostItemFeePolicy> =
        rules::policy(writer, &rules, PolicyKind::LostItem, &inputs)?;
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
    let item_id = item.item.id;
    let location_at_check_out = item.item.effective_location_id;
    item.item = inventory::update_item(writer, item.item, actor, |item| {
        item.status.name = ItemStatusName::CheckedOut;
        item.status.date = Some(Timestamp::from(now));
    })?;

    let mut loan = Loan {
        id: Some(store::new_record_id()),
        user_id: Some(user_id),
        proxy_user_id: proxy.map(|p| p.id),
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
        overdue_fine_policy_id: Some(overdue.id),
        lost_item_policy_id: Some(lost.id),
        declared_lost_date: None,
        claimed_returned_date: None,
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
        &[(policy.id, &policy.name), (overdue.id, &overdue.name), (lost.id, &lost.name)],
        service_point.as_ref(),
        loan.id,
    );
    Ok(CheckedOut { loan, item, known })
}

/// The open loan of an item, if any (one index lookup, whatever the item's history).
pub(crate) fn open_loan(reader: &Reader<'_>, item_id: Uuid) -> Result<Option<Loan>> {
    let loans: Vec<Loan> = records::read(reader, &open_loan_read(&item_id.to_string()))?;
    Ok(loans.into_iter().next())
}

/// What [`open_loan`] reads, to read it ahead: `item_id` is the item's.
pub(crate) fn open_loan_read(item_id: &str) -> Read<'_> {
    const OPEN: &[(&str, &str)] = &[("status_name", LoanStatus::Open.as_str())];
    Read::Where(&crate::storage::LOANS, vec![("item_id", item_id)], OPEN)
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
        Some(id) => Ok(records::get(reader, id)?.map(|s| s.record)),
        None => Ok(None),
    }
}

/// "Last, First", as FOLIO names a patron in messages.
pub(crate) fn personal_name(user: &auth::User) -> String {
    user.display_name().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};
    use serde_json::{Value, json};

    use crate::OverridableBlock;
    use crate::blocks::condition;
    use crate::fixtures::{
        self, BOOK, CAN_CIRCULATE, DESK_1, DVD, Library, MAIN_LIBRARY, STAFF, TITLE, UNDERGRAD, at,
        rules_text, uuid,
    };
    use crate::model::{Account, FixedDueDateSchedule, LoanPolicy, ManualBlock};

    /// A Monday.
    const NOW: &str = "2026-03-02T10:15:00Z";

    /// Checks `item` out to `user` at Circ Desk 1 at `now`, `extra` set on the request:
    /// the loan, or every refusal.
    fn check_at(lib: &Library, item: &str, user: &str, extra: Value, now: &str, expect: Expect) {
        let got = match lib.check_out(item, user, extra, at(now)) {
            Ok(loan) => fixtures::loan_summary(&loan),
            Err(e) => fixtures::refusals(&e),
        };
        expect.assert_eq(&got);
    }

    fn check(lib: &Library, item: &str, user: &str, extra: Value, expect: Expect) {
        check_at(lib, item, user, extra, NOW, expect);
    }

    /// As [`check`], with the caller holding the permissions to override `may_override`.
    fn check_overriding(
        lib: &Library,
        (item, user): (&str, &str),
        overrides: Value,
        may_override: &[OverridableBlock],
        expect: Expect,
    ) {
        let body = json!({"itemBarcode": item, "userBarcode": user, "servicePointId": DESK_1,
            "overrideBlocks": overrides});
        let got = match lib.check_out_as(body, may_override, at(NOW)) {
            Ok(loan) => fixtures::loan_summary(&loan),
            Err(e) => fixtures::refusals(&e),
        };
        expect.assert_eq(&got);
    }

    /// A loan policy with this id and name, rolling over `loans_policy`'s settings.
    fn loan_policy(lib: &Library, id: &str, name: &str, loanable: bool, loans_policy: Value) {
        lib.record::<LoanPolicy>(json!({"id": id, "name": name, "loanable": loanable,
            "renewable": true, "loansPolicy": loans_policy}));
    }

    #[test]
    fn lends_under_the_default_policy() {
        let lib = Library::new();
        let item = lib.item("B-1", json!({}));
        let patron = lib.patron("P-1", json!({}));
        // 60 days from Monday 2 March 2026 is Friday 1 May (29 days to the end of March,
        // 30 in April, 1 in May); the default policy keeps the due date and ends the day
        // (UTC, as the tenant has no locale settings).
        let loan = lib.check_out("B-1", "P-1", json!({}), at(NOW)).unwrap();
        expect![[r#"
            status Open
            loanDate 2026-03-02T10:15:00.000+00:00
            dueDate 2026-05-01T23:59:59.000+00:00
            action checkedout
            itemStatus Checked out
        "#]]
        .assert_eq(&fixtures::loan_summary(&loan));
        assert_eq!(loan.user_id, Some(patron));
        assert_eq!(loan.item_id, item);
        assert_eq!(loan.proxy_user_id, None);
        assert_eq!(loan.loan_policy_id, Some(uuid(crate::DEFAULT_LOAN_POLICY_ID)));
        assert_eq!(loan.overdue_fine_policy_id, Some(uuid(crate::DEFAULT_OVERDUE_FINE_POLICY_ID)));
        assert_eq!(loan.lost_item_policy_id, Some(uuid(crate::DEFAULT_LOST_ITEM_FEE_POLICY_ID)));
        assert_eq!(loan.patron_group_id_at_checkout, Some(uuid(STAFF)));
        assert_eq!(loan.checkout_service_point_id, Some(uuid(DESK_1)));
        assert_eq!(loan.item_effective_location_id_at_check_out, Some(uuid(MAIN_LIBRARY)));
        assert_eq!(lib.item_status("B-1"), "Checked out");
        assert_eq!(lib.loans().len(), 1);
    }

    #[test]
    fn due_dates_count_from_the_loan_date_in_the_tenants_zone() {
        let lib = Library::new();
        lib.item("B-1", json!({}));
        lib.item("B-2", json!({}));
        lib.patron("P-1", json!({}));
        // A loan date given by the desk: 60 days from 1 February is 2 April (27 days to
        // the end of February, 31 in March, 2 in April).
        check(
            &lib,
            "B-1",
            "P-1",
            json!({"loanDate": "2026-02-01T09:00:00Z"}),
            expect![[r#"
                status Open
                loanDate 2026-02-01T09:00:00.000+00:00
                dueDate 2026-04-02T23:59:59.000+00:00
                action checkedout
                itemStatus Checked out
            "#]],
        );
        // In New York, 10:15Z on 2 March is 05:15 EST; 60 days on is 06:15 EDT on 1 May,
        // whose end, 23:59:59 EDT (UTC-4), is 03:59:59Z on 2 May.
        lib.time_zone("America/New_York");
        check(
            &lib,
            "B-2",
            "P-1",
            json!({}),
            expect![[r#"
                status Open
                loanDate 2026-03-02T10:15:00.000+00:00
                dueDate 2026-05-02T03:59:59.000+00:00
                action checkedout
                itemStatus Checked out
            "#]],
        );
    }

    #[test]
    fn one_error_lists_every_refusal_and_nothing_is_written() {
        let lib = Library::new();
        lib.item("B-1", json!({"status": {"name": "Declared lost"}}));
        let patron = lib.patron("P-1", json!({"active": false}));
        lib.record::<ManualBlock>(json!({"userId": patron, "desc": "Lost library card",
            "borrowing": true, "renewals": false, "requests": false}));
        check(
            &lib,
            "B-1",
            "P-1",
            json!({"servicePointId": null}),
            expect![[r#"
                Check out must be performed at a service point servicePointId=
                Patron blocked from borrowing [USER_IS_BLOCKED_MANUALLY] reason=Lost library card (override: patronBlock, permission missing)
                Cannot check out to inactive user userBarcode=P-1
                The Left Hand of Darkness (book) (Barcode: B-1) has the item status Declared lost and cannot be checked out itemBarcode=B-1
            "#]],
        );
        assert_eq!(lib.item_status("B-1"), "Declared lost");
        assert!(lib.loans().is_empty());
    }

    #[test]
    fn the_service_point_patron_and_item_must_exist() {
        let lib = Library::new();
        lib.item("B-1", json!({}));
        lib.patron("P-1", json!({}));
        check(
            &lib,
            "B-1",
            "P-1",
            json!({"servicePointId": "00000000-0000-4000-8000-000000000099"}),
            expect![[r#"
                No service point with id 00000000-0000-4000-8000-000000000099 exists servicePointId=00000000-0000-4000-8000-000000000099
            "#]],
        );
        check(
            &lib,
            "B-1",
            "P-404",
            json!({}),
            expect![[r#"
                Could not find user with matching barcode [USER_BARCODE_NOT_FOUND] userBarcode=P-404
            "#]],
        );
        check(
            &lib,
            "B-404",
            "P-1",
            json!({}),
            expect![[r#"
                No item with barcode B-404 could be found itemBarcode=B-404
            "#]],
        );
        check(
            &lib,
            "B-404",
            "P-404",
            json!({"servicePointId": null}),
            expect![[r#"
                Check out must be performed at a service point servicePointId=
                Could not find user with matching barcode [USER_BARCODE_NOT_FOUND] userBarcode=P-404
                No item with barcode B-404 could be found itemBarcode=B-404
            "#]],
        );
        assert_eq!(lib.item_status("B-1"), "Available");
    }

    #[test]
    fn the_patron_must_be_active_and_in_a_group() {
        let lib = Library::new();
        for barcode in ["B-1", "B-2", "B-3"] {
            lib.item(barcode, json!({}));
        }
        lib.patron("P-OFF", json!({"active": false}));
        lib.patron("P-NOGROUP", json!({"patronGroup": null}));
        // Registered until New Year's Day 2099.
        lib.patron("P-EXP", json!({"expirationDate": "2099-01-01T00:00:00Z"}));
        check(
            &lib,
            "B-1",
            "P-OFF",
            json!({}),
            expect![[r#"
                Cannot check out to inactive user userBarcode=P-OFF
            "#]],
        );
        check(
            &lib,
            "B-1",
            "P-NOGROUP",
            json!({}),
            expect![[r#"
                Cannot determine the patron group of the user userBarcode=P-NOGROUP
            "#]],
        );
        // After the registration ends the patron is inactive, whatever `active` says.
        check_at(
            &lib,
            "B-1",
            "P-EXP",
            json!({}),
            "2099-06-01T12:00:00Z",
            expect![[r#"
                Cannot check out to inactive user userBarcode=P-EXP
            "#]],
        );
        // Before, the loan is cut back to the registration's end: 60 days from 1 December
        // 2098 would be 30 January 2099.
        check_at(
            &lib,
            "B-2",
            "P-EXP",
            json!({}),
            "2098-12-01T12:00:00Z",
            expect![[r#"
                status Open
                loanDate 2098-12-01T12:00:00.000+00:00
                dueDate 2099-01-01T00:00:00.000+00:00
                action checkedout
                itemStatus Checked out
            "#]],
        );
        // 60 days from 1 October 2098 is 30 November, before the registration ends.
        check_at(
            &lib,
            "B-3",
            "P-EXP",
            json!({}),
            "2098-10-01T12:00:00Z",
            expect![[r#"
                status Open
                loanDate 2098-10-01T12:00:00.000+00:00
                dueDate 2098-11-30T23:59:59.000+00:00
                action checkedout
                itemStatus Checked out
            "#]],
        );
    }

    #[test]
    fn item_statuses_that_cannot_be_lent() {
        let lib = Library::new();
        lib.patron("P-1", json!({}));
        let refused = [
            ("B-LOST", "Declared lost"),
            ("B-CLAIMED", "Claimed returned"),
            ("B-IDEA", "Intellectual item"),
            ("B-AGED", "Aged to lost"),
            ("B-OUT", "Checked out"),
        ];
        for (barcode, status) in refused {
            lib.item(barcode, json!({"status": {"name": status}}));
        }
        let refusal = |barcode: &str| {
            fixtures::refusals(&lib.check_out(barcode, "P-1", json!({}), at(NOW)).unwrap_err())
        };
        expect![[r#"
            The Left Hand of Darkness (book) (Barcode: B-LOST) has the item status Declared lost and cannot be checked out itemBarcode=B-LOST
            The Left Hand of Darkness (book) (Barcode: B-CLAIMED) has the item status Claimed returned and cannot be checked out itemBarcode=B-CLAIMED
            The Left Hand of Darkness (book) (Barcode: B-IDEA) has the item status Intellectual item and cannot be checked out itemBarcode=B-IDEA
            The Left Hand of Darkness (book) (Barcode: B-AGED) has the item status Aged to lost and cannot be checked out itemBarcode=B-AGED
            Item is already checked out itemBarcode=B-OUT
        "#]]
        .assert_eq(&refused.iter().map(|(b, _)| refusal(b)).collect::<String>());
        // The material type in the message is the item's.
        lib.item("D-LOST", json!({"status": {"name": "Declared lost"}, "materialTypeId": DVD}));
        assert_eq!(
            refusal("D-LOST"),
            format!(
                "{TITLE} (dvd) (Barcode: D-LOST) has the item status Declared lost and cannot be checked out itemBarcode=D-LOST\n"
            )
        );
        // Other statuses lend, and the item becomes Checked out.
        for (barcode, status) in [("B-MISSING", "Missing"), ("B-PROCESS", "In process")] {
            lib.item(barcode, json!({"status": {"name": status}}));
            lib.check_out(barcode, "P-1", json!({}), at(NOW)).unwrap();
            assert_eq!(lib.item_status(barcode), "Checked out");
        }
    }

    #[test]
    fn an_item_has_one_open_loan() {
        let lib = Library::new();
        lib.item("B-1", json!({}));
        lib.patron("P-1", json!({}));
        lib.patron("P-2", json!({}));
        lib.check_out("B-1", "P-1", json!({}), at(NOW)).unwrap();
        let twice = "Item is already checked out itemBarcode=B-1\n\
            Cannot check out item that already has an open loan [ITEM_HAS_OPEN_LOAN] itemBarcode=B-1\n";
        // To another patron, and to the borrower again.
        for patron in ["P-2", "P-1"] {
            let refused = lib.check_out("B-1", patron, json!({}), at(NOW)).unwrap_err();
            assert_eq!(fixtures::refusals(&refused), twice);
        }
        assert_eq!(lib.loans().len(), 1);
    }

    #[test]
    fn manual_blocks_that_bar_borrowing() {
        let lib = Library::new();
        lib.item("B-1", json!({}));
        let blocked = lib.patron("P-1", json!({}));
        let other = lib.patron("P-2", json!({}));
        // Ids in ascending order, so the blocks are read in the order they were placed.
        let blocks = [
            (blocked, "Owes replacement costs", json!({"borrowing": true})),
            (blocked, "No renewals this term", json!({"renewals": true, "requests": true})),
            (blocked, "Damaged two books", json!({"borrowing": true})),
            // Expired the day before the check-out.
            (
                blocked,
                "Ended yesterday",
                json!({"borrowing": true, "expirationDate": "2026-03-01T10:15:00Z"}),
            ),
            (other, "Someone else's block", json!({"borrowing": false, "requests": true})),
        ];
        for (n, (user, desc, flags)) in blocks.into_iter().enumerate() {
            let id = format!("00000000-0000-4000-8000-00000000000{n}");
            lib.record::<ManualBlock>(fixtures::merged(
                json!({"id": id, "userId": user, "desc": desc}),
                flags,
            ));
        }
        check(
            &lib,
            "B-1",
            "P-1",
            json!({}),
            expect![[r#"
                Patron blocked from borrowing [USER_IS_BLOCKED_MANUALLY] reason=Owes replacement costs;Damaged two books (override: patronBlock, permission missing)
            "#]],
        );
        // A block on requests only does not stop borrowing.
        lib.check_out("B-1", "P-2", json!({}), at(NOW)).unwrap();
    }

    #[test]
    fn automated_blocks_that_bar_borrowing() {
        let lib = Library::new();
        for barcode in ["B-1", "B-2", "B-3", "B-4"] {
            lib.item(barcode, json!({}));
        }
        lib.patron("P-1", json!({}));
        lib.patron("P-2", json!({"patronGroup": UNDERGRAD}));
        lib.automated_block(
            condition::MAX_ITEMS_CHARGED_OUT,
            STAFF,
            1.0,
            &["borrowing"],
            "Patron has reached maximum allowed number of items charged out",
        );
        // Blocks renewals only: never a reason to refuse a check-out.
        lib.automated_block(
            condition::MAX_LOST_ITEMS,
            STAFF,
            0.0,
            &["renewals"],
            "Too many lost items",
        );
        // No items out: below the limit of 1.
        lib.check_out("B-1", "P-1", json!({}), at(NOW)).unwrap();
        // One item out: the limit of 1 is reached.
        check(
            &lib,
            "B-2",
            "P-1",
            json!({}),
            expect![[r#"
                Patron has reached maximum allowed number of items charged out [USER_IS_BLOCKED_AUTOMATICALLY] userBarcode=P-1 (override: patronBlock, permission missing)
            "#]],
        );
        // The limit is the staff group's: an undergraduate has none.
        lib.check_out("B-2", "P-2", json!({}), at(NOW)).unwrap();

        // The fee balance blocks above the limit, not at it: 7.50 + 2.50 = 10.00 owed
        // against a limit of 10 lends; 0.01 more does not. Closed accounts do not count.
        let lib = Library::new();
        lib.item("B-1", json!({}));
        let p1 = lib.patron("P-1", json!({}));
        lib.automated_block(
            condition::MAX_OUTSTANDING_FEE_FINE_BALANCE,
            STAFF,
            10.0,
            &["borrowing"],
            "Patron has outstanding fees",
        );
        let account = |amount: f64, status: &str| {
            lib.record::<Account>(json!({"amount": amount, "remaining": amount,
                "status": {"name": status}, "userId": p1}));
        };
        account(7.5, "Open");
        account(2.5, "Open");
        account(99.0, "Closed");
        let owes_ten = lib.write(|w| crate::automated_blocks(w, p1, Some(uuid(STAFF)), at(NOW)));
        assert_eq!(owes_ten.unwrap(), vec![]);
        account(0.01, "Open");
        check(
            &lib,
            "B-1",
            "P-1",
            json!({}),
            expect![[r#"
                Patron has outstanding fees [USER_IS_BLOCKED_AUTOMATICALLY] userBarcode=P-1 (override: patronBlock, permission missing)
            "#]],
        );

        // Overdue items: a loan from 1 December 2025 fell due on 30 January 2026, so on
        // 2 March the patron has one overdue item, the limit.
        let lib = Library::new();
        lib.item("B-1", json!({}));
        lib.item("B-2", json!({}));
        lib.patron("P-1", json!({}));
        lib.automated_block(
            condition::MAX_OVERDUE_ITEMS,
            STAFF,
            1.0,
            &["borrowing", "renewals"],
            "Patron has overdue items",
        );
        lib.check_out("B-1", "P-1", json!({}), at("2025-12-01T10:00:00Z")).unwrap();
        // Before the due date passes, nothing is overdue.
        lib.check_out("B-2", "P-1", json!({}), at("2026-01-30T12:00:00Z")).unwrap();
        lib.item("B-3", json!({}));
        check(
            &lib,
            "B-3",
            "P-1",
            json!({}),
            expect![[r#"
                Patron has overdue items [USER_IS_BLOCKED_AUTOMATICALLY] userBarcode=P-1 (override: patronBlock, permission missing)
            "#]],
        );
    }

    #[test]
    fn proxies_must_be_active_and_hold_a_valid_relationship() {
        let lib = Library::new();
        for barcode in ["B-1", "B-2", "B-3"] {
            lib.item(barcode, json!({}));
        }
        let sponsor = lib.patron("P-1", json!({}));
        let unrelated = lib.patron("X-1", json!({}));
        let inactive = lib.patron("X-2", json!({"active": false}));
        let expired = lib.patron("X-3", json!({}));
        let suspended = lib.patron("X-4", json!({}));
        let proxy = lib.patron("X-5", json!({}));
        // X-1 acts for X-5, not for P-1: the relationship is read in its direction.
        lib.proxy(unrelated, sponsor, json!({}));
        lib.proxy(sponsor, inactive, json!({"status": "Active"}));
        lib.proxy(sponsor, expired, json!({"expirationDate": "2026-03-01T00:00:00Z"}));
        lib.proxy(sponsor, suspended, json!({"status": "Inactive"}));
        lib.proxy(
            sponsor,
            proxy,
            json!({"status": "Active", "expirationDate": "2027-01-01T00:00:00Z"}),
        );
        let via = |proxy: &str, expect: Expect| {
            check(&lib, "B-1", "P-1", json!({"proxyUserBarcode": proxy}), expect);
        };
        via(
            "X-404",
            expect![[r#"
                Could not find user with matching barcode proxyUserBarcode=X-404
            "#]],
        );
        via(
            "X-1",
            expect![[r#"
                Cannot check out item via proxy when relationship is invalid proxyUserBarcode=X-1
            "#]],
        );
        via(
            "X-2",
            expect![[r#"
                Cannot check out via inactive proxying user proxyUserBarcode=X-2
            "#]],
        );
        via(
            "X-3",
            expect![[r#"
                Cannot check out item via proxy when relationship is invalid proxyUserBarcode=X-3
            "#]],
        );
        via(
            "X-4",
            expect![[r#"
                Cannot check out item via proxy when relationship is invalid proxyUserBarcode=X-4
            "#]],
        );
        assert!(lib.loans().is_empty());
        // A valid proxy borrows for the sponsor; an empty proxy barcode is no proxy.
        let loan =
            lib.check_out("B-2", "P-1", json!({"proxyUserBarcode": "X-5"}), at(NOW)).unwrap();
        assert_eq!((loan.user_id, loan.proxy_user_id), (Some(sponsor), Some(proxy)));
        let loan = lib.check_out("B-3", "P-1", json!({"proxyUserBarcode": ""}), at(NOW)).unwrap();
        assert_eq!((loan.user_id, loan.proxy_user_id), (Some(sponsor), None));
    }

    #[test]
    fn the_first_request_decides_who_may_borrow() {
        let lib = Library::new();
        let item = lib.item("B-1", json!({}));
        lib.patron("P-1", json!({}));
        let p2 = lib.patron("P-2", json!({}));
        let p3 = lib.patron("P-3", json!({}));
        lib.request("Page", item, p2, json!({}), at("2026-03-01T09:00:00Z")).unwrap();
        lib.request("Hold", item, p3, json!({}), at("2026-03-01T10:00:00Z")).unwrap();
        check(
            &lib,
            "B-1",
            "P-1",
            json!({}),
            expect![[r#"
                The Left Hand of Darkness (Barcode: B-1) cannot be checked out to user Reader, P-1 because it has been requested by another patron userBarcode=P-1
            "#]],
        );
        // Second in line is not first.
        check(
            &lib,
            "B-1",
            "P-3",
            json!({}),
            expect![[r#"
                The Left Hand of Darkness (Barcode: B-1) cannot be checked out to user Reader, P-3 because it has been requested by another patron userBarcode=P-3
            "#]],
        );
        assert_eq!(lib.item_status("B-1"), "Paged");
        // The first requester borrows: their page is filled and the hold moves up.
        lib.check_out("B-1", "P-2", json!({}), at(NOW)).unwrap();
        expect![[r#"
            1 Hold P-3 Open - Not yet filled
            - Page P-2 Closed - Filled
        "#]]
        .assert_eq(&lib.queue(item));
    }

    #[test]
    fn holds_waiting_behind_the_borrower_give_the_alternate_period() {
        let lib = Library::new();
        let item = lib.item("B-1", json!({}));
        lib.item("B-2", json!({}));
        let p1 = lib.patron("P-1", json!({}));
        let p2 = lib.patron("P-2", json!({}));
        let policy = "00000000-0000-4000-8000-00000000a001";
        lib.record::<LoanPolicy>(json!({"id": policy, "name": "Three weeks", "loanable": true,
            "renewable": true,
            "loansPolicy": {"profileId": "Rolling", "period": {"duration": 3, "intervalId": "Weeks"},
                "closedLibraryDueDateManagementId": "CURRENT_DUE_DATE"},
            "requestManagement": {"holds": {"alternateCheckoutLoanPeriod": {"duration": 1, "intervalId": "Weeks"}}}}));
        lib.rules(&rules_text(&[(&format!("m {BOOK}"), policy)]));
        lib.request("Page", item, p1, json!({}), at("2026-03-01T09:00:00Z")).unwrap();
        lib.request("Hold", item, p2, json!({}), at("2026-03-01T10:00:00Z")).unwrap();
        // A hold waits: one week from Monday 2 March, to the end of Monday 9 March.
        check(
            &lib,
            "B-1",
            "P-1",
            json!({}),
            expect![[r#"
                status Open
                loanDate 2026-03-02T10:15:00.000+00:00
                dueDate 2026-03-09T23:59:59.000+00:00
                action checkedout
                itemStatus Checked out
            "#]],
        );
        // No request: three weeks, to the end of Monday 23 March.
        check(
            &lib,
            "B-2",
            "P-1",
            json!({}),
            expect![[r#"
                status Open
                loanDate 2026-03-02T10:15:00.000+00:00
                dueDate 2026-03-23T23:59:59.000+00:00
                action checkedout
                itemStatus Checked out
            "#]],
        );
    }

    #[test]
    fn a_waiting_recall_shortens_the_new_loan() {
        let lib = Library::new();
        let item = lib.item("B-1", json!({}));
        let p1 = lib.patron("P-1", json!({}));
        let p2 = lib.patron("P-2", json!({}));
        lib.request("Page", item, p1, json!({}), at("2026-03-01T09:00:00Z")).unwrap();
        lib.request("Recall", item, p2, json!({}), at("2026-03-01T10:00:00Z")).unwrap();
        // The default policy: the recall wants the item back 5 days from now (7 March
        // 10:15), but the loan is guaranteed 30 days from its date (1 April 10:15), which
        // is still earlier than the normal due date (1 May, end of day).
        check(
            &lib,
            "B-1",
            "P-1",
            json!({}),
            expect![[r#"
                status Open
                loanDate 2026-03-02T10:15:00.000+00:00
                dueDate 2026-04-01T10:15:00.000+00:00
                action checkedout
                itemStatus Checked out
                dueDateChangedByRecall true
            "#]],
        );
        expect![[r#"
            1 Recall P-2 Open - Not yet filled
            - Page P-1 Closed - Filled
        "#]]
        .assert_eq(&lib.queue(item));
    }

    #[test]
    fn item_limits_count_the_loans_the_winning_rule_covers() {
        let limited = "00000000-0000-4000-8000-00000000a002";
        let cases = [
            (
                format!("m {BOOK}"),
                expect![[r#"
                    Patron has reached maximum limit of 2 items for material type [ITEM_LIMIT_MATERIAL_TYPE] itemBarcode=B-3 (override: itemLimitBlock, permission missing)
                "#]],
            ),
            (
                format!("t {CAN_CIRCULATE}"),
                expect![[r#"
                    Patron has reached maximum limit of 2 items for loan type [ITEM_LIMIT_LOAN_TYPE] itemBarcode=B-3 (override: itemLimitBlock, permission missing)
                "#]],
            ),
            (
                format!("g {STAFF} + m {BOOK}"),
                expect![[r#"
                    Patron has reached maximum limit of 2 items for combination of patron group and material type [ITEM_LIMIT_PATRON_GROUP_MATERIAL_TYPE] itemBarcode=B-3 (override: itemLimitBlock, permission missing)
                "#]],
            ),
            (
                format!("g {STAFF} + t {CAN_CIRCULATE}"),
                expect![[r#"
                    Patron has reached maximum limit of 2 items for combination of patron group and loan type [ITEM_LIMIT_PATRON_GROUP_LOAN_TYPE] itemBarcode=B-3 (override: itemLimitBlock, permission missing)
                "#]],
            ),
            (
                format!("m {BOOK} + t {CAN_CIRCULATE}"),
                expect![[r#"
                    Patron has reached maximum limit of 2 items for combination of material type and loan type [ITEM_LIMIT_MATERIAL_TYPE_LOAN_TYPE] itemBarcode=B-3 (override: itemLimitBlock, permission missing)
                "#]],
            ),
            (
                format!("g {STAFF} + m {BOOK} + t {CAN_CIRCULATE}"),
                expect![[r#"
                    Patron has reached maximum limit of 2 items for combination of patron group, material type and loan type [ITEM_LIMIT_PATRON_GROUP_MATERIAL_TYPE_LOAN_TYPE] itemBarcode=B-3 (override: itemLimitBlock, permission missing)
                "#]],
            ),
            // FOLIO applies a limit only under a rule that tests the material or loan type.
            (
                format!("g {STAFF}"),
                expect![[r#"
                    status Open
                    loanDate 2026-03-02T10:15:00.000+00:00
                    dueDate 2026-03-16T10:15:00.000+00:00
                    action checkedout
                    itemStatus Checked out
                "#]],
            ),
        ];
        for (criteria, expect) in cases {
            let lib = Library::new();
            loan_policy(
                &lib,
                limited,
                "Two at a time",
                true,
                json!({"profileId": "Rolling", "period": {"duration": 2, "intervalId": "Weeks"},
                    "closedLibraryDueDateManagementId": "CURRENT_DUE_DATE_TIME", "itemLimit": 2}),
            );
            lib.rules(&rules_text(&[(&criteria, limited)]));
            lib.patron("P-1", json!({}));
            // A DVD of another loan type, lent under the fallback policy: no rule above
            // counts it (the patron group rule lends it under the limited policy, but
            // that rule sets no limit FOLIO applies).
            lib.item(
                "D-1",
                json!({"materialTypeId": DVD, "permanentLoanTypeId": fixtures::READING_ROOM}),
            );
            for barcode in ["B-1", "B-2", "B-3"] {
                lib.item(barcode, json!({}));
            }
            lib.check_out("D-1", "P-1", json!({}), at(NOW)).unwrap();
            lib.check_out("B-1", "P-1", json!({}), at(NOW)).unwrap();
            lib.check_out("B-2", "P-1", json!({}), at(NOW)).unwrap();
            check(&lib, "B-3", "P-1", json!({}), expect);
        }
    }

    #[test]
    fn a_policy_that_does_not_lend() {
        let lib = Library::new();
        let reference = "00000000-0000-4000-8000-00000000a003";
        loan_policy(&lib, reference, "Reference only", false, json!({"profileId": "Rolling"}));
        lib.rules(&rules_text(&[(&format!("m {BOOK}"), reference)]));
        lib.item("B-1", json!({}));
        lib.item("D-1", json!({"materialTypeId": DVD}));
        lib.patron("P-1", json!({}));
        check(
            &lib,
            "B-1",
            "P-1",
            json!({}),
            expect![[r#"
                Item is not loanable [ITEM_NOT_LOANABLE] itemBarcode=B-1 loanPolicyId=00000000-0000-4000-8000-00000000a003 loanPolicyName=Reference only (override: itemNotLoanableBlock, permission missing)
            "#]],
        );
        // The fallback rule lends the DVD under the default policy.
        lib.check_out("D-1", "P-1", json!({}), at(NOW)).unwrap();
    }

    #[test]
    fn overrides_need_the_permission_a_comment_and_for_a_policy_that_does_not_lend_a_due_date() {
        use OverridableBlock::{ItemLimit, ItemNotLoanable, Patron};
        let lib = Library::new();
        let reference = "00000000-0000-4000-8000-00000000a003";
        loan_policy(&lib, reference, "Reference only", false, json!({"profileId": "Rolling"}));
        lib.rules(&rules_text(&[(&format!("m {BOOK}"), reference)]));
        for barcode in ["B-1", "B-2"] {
            lib.item(barcode, json!({}));
        }
        lib.item("D-1", json!({"materialTypeId": DVD}));
        let blocked = lib.patron("P-1", json!({}));
        lib.patron("P-2", json!({}));
        lib.record::<ManualBlock>(json!({"userId": blocked, "desc": "Lost library card",
            "borrowing": true}));
        let not_loanable = |due: Value| json!({"itemNotLoanableBlock": {"dueDate": due}, "comment": "Course reserve"});
        check_overriding(
            &lib,
            ("B-1", "P-2"),
            not_loanable(json!("2026-03-09T17:00:00Z")),
            &[Patron, ItemLimit],
            expect![[r#"
                Insufficient override permissions [INSUFFICIENT_OVERRIDE_PERMISSIONS] (override: itemNotLoanableBlock, permission missing)
            "#]],
        );
        check_overriding(
            &lib,
            ("B-1", "P-2"),
            json!({"itemNotLoanableBlock": {"dueDate": "2026-03-09T17:00:00Z"}}),
            &[ItemNotLoanable],
            expect![[r#"
                Override should be performed with the comment specified comment=
            "#]],
        );
        check_overriding(
            &lib,
            ("B-1", "P-2"),
            not_loanable(Value::Null),
            &[ItemNotLoanable],
            expect![[r#"
                Override should be performed with due date specified dueDate=
            "#]],
        );
        // The due date must come after the loan date (10:15 on 2 March); at it is not.
        check_overriding(
            &lib,
            ("B-1", "P-2"),
            not_loanable(json!("2026-03-02T10:15:00Z")),
            &[ItemNotLoanable],
            expect![[r#"
                Due date should be later than loan date dueDate=2026-03-02T10:15:00.000+00:00
            "#]],
        );
        assert!(lib.loans().is_empty());
        // Everything in order: due when staff say, and the loan says it was overridden.
        check_overriding(
            &lib,
            ("B-1", "P-2"),
            not_loanable(json!("2026-03-09T17:00:00Z")),
            &[ItemNotLoanable],
            expect![[r#"
                status Open
                loanDate 2026-03-02T10:15:00.000+00:00
                dueDate 2026-03-09T17:00:00.000+00:00
                action checkedOutThroughOverride
                actionComment Course reserve
                itemStatus Checked out
            "#]],
        );
        // A patron block override stands for both patron block checks; without the
        // permission, its refusal replaces the block's.
        let patron_block = json!({"patronBlock": {}, "comment": "Card found"});
        check_overriding(
            &lib,
            ("D-1", "P-1"),
            patron_block.clone(),
            &[ItemNotLoanable],
            expect![[r#"
                Insufficient override permissions [INSUFFICIENT_OVERRIDE_PERMISSIONS] (override: patronBlock, permission missing)
            "#]],
        );
        check_overriding(
            &lib,
            ("D-1", "P-1"),
            patron_block,
            &[Patron],
            expect![[r#"
                status Open
                loanDate 2026-03-02T10:15:00.000+00:00
                dueDate 2026-05-01T23:59:59.000+00:00
                action checkedOutThroughOverride
                actionComment Card found
                itemStatus Checked out
            "#]],
        );
        // Two blocks at once: the patron's and the policy's, each refused with what
        // overriding it takes; the caller may override the patron block.
        check_overriding(
            &lib,
            ("B-2", "P-1"),
            json!({}),
            &[Patron],
            expect![[r#"
                Patron blocked from borrowing [USER_IS_BLOCKED_MANUALLY] reason=Lost library card (override: patronBlock)
                Item is not loanable [ITEM_NOT_LOANABLE] itemBarcode=B-2 loanPolicyId=00000000-0000-4000-8000-00000000a003 loanPolicyName=Reference only (override: itemNotLoanableBlock, permission missing)
            "#]],
        );
    }

    #[test]
    fn an_item_limit_override() {
        use OverridableBlock::ItemLimit;
        let lib = Library::new();
        let limited = "00000000-0000-4000-8000-00000000a002";
        loan_policy(
            &lib,
            limited,
            "One at a time",
            true,
            json!({"profileId": "Rolling", "period": {"duration": 1, "intervalId": "Days"},
                "closedLibraryDueDateManagementId": "CURRENT_DUE_DATE", "itemLimit": 1}),
        );
        lib.rules(&rules_text(&[(&format!("m {BOOK}"), limited)]));
        lib.item("B-1", json!({}));
        lib.item("B-2", json!({}));
        lib.patron("P-1", json!({}));
        lib.check_out("B-1", "P-1", json!({}), at(NOW)).unwrap();
        let item_limit = json!({"itemLimitBlock": {}, "comment": "Thesis deadline"});
        check_overriding(
            &lib,
            ("B-2", "P-1"),
            item_limit.clone(),
            &[],
            expect![[r#"
                Insufficient override permissions [INSUFFICIENT_OVERRIDE_PERMISSIONS] (override: itemLimitBlock, permission missing)
            "#]],
        );
        // One day, to the end of Tuesday 3 March.
        check_overriding(
            &lib,
            ("B-2", "P-1"),
            item_limit,
            &[ItemLimit],
            expect![[r#"
                status Open
                loanDate 2026-03-02T10:15:00.000+00:00
                dueDate 2026-03-03T23:59:59.000+00:00
                action checkedOutThroughOverride
                actionComment Thesis deadline
                itemStatus Checked out
            "#]],
        );
    }

    #[test]
    fn due_dates_from_a_stored_schedule_and_the_refusal_when_there_is_none() {
        let lib = Library::new();
        let schedule = "00000000-0000-4000-8000-00000000b001";
        lib.record::<FixedDueDateSchedule>(json!({"id": schedule, "name": "Spring term",
            "schedules": [{"from": "2026-01-01T00:00:00Z", "to": "2026-05-31T23:59:59Z",
                "due": "2026-06-15T23:59:59Z"}]}));
        let term = "00000000-0000-4000-8000-00000000a004";
        loan_policy(
            &lib,
            term,
            "Term loan",
            true,
            json!({"profileId": "Fixed", "fixedDueDateScheduleId": schedule,
                "closedLibraryDueDateManagementId": "CURRENT_DUE_DATE_TIME"}),
        );
        let unscheduled = "00000000-0000-4000-8000-00000000a005";
        loan_policy(&lib, unscheduled, "Unscheduled", true, json!({"profileId": "Fixed"}));
        lib.rules(&rules_text(&[(&format!("m {BOOK}"), term), (&format!("m {DVD}"), unscheduled)]));
        lib.item("B-1", json!({}));
        lib.item("B-2", json!({}));
        lib.item("D-1", json!({"materialTypeId": DVD}));
        lib.patron("P-1", json!({}));
        // Lent in the spring range: due when the range says.
        check(
            &lib,
            "B-1",
            "P-1",
            json!({}),
            expect![[r#"
                status Open
                loanDate 2026-03-02T10:15:00.000+00:00
                dueDate 2026-06-15T23:59:59.000+00:00
                action checkedout
                itemStatus Checked out
            "#]],
        );
        // Lent in June, in no range.
        check_at(
            &lib,
            "B-2",
            "P-1",
            json!({}),
            "2026-06-01T09:00:00Z",
            expect![[r#"
                loan date falls outside of the date ranges in the loan policy loanPolicyName=Term loan loanPolicyId=00000000-0000-4000-8000-00000000a004
            "#]],
        );
        check(
            &lib,
            "D-1",
            "P-1",
            json!({}),
            expect![[r#"
                loan date falls outside of the date ranges in the loan policy loanPolicyName=Unscheduled loanPolicyId=00000000-0000-4000-8000-00000000a005
            "#]],
        );
        assert_eq!(lib.item_status("B-2"), "Available");
        assert_eq!(lib.loans().len(), 1);
    }

    #[test]
    fn closed_library_rules_read_the_desks_calendar() {
        let lib = Library::new();
        lib.time_zone("America/New_York");
        // Circ Desk 1 opens 09:00-17:59 on weekdays in March 2026, and is closed on
        // Friday 13 March.
        let weekdays: Vec<Value> = ["MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY"]
            .iter()
            .map(|d| json!({"startDay": d, "startTime": "09:00", "endDay": d, "endTime": "17:59"}))
            .collect();
        lib.calendar(json!({"name": "March", "startDate": "2026-03-01", "endDate": "2026-03-31",
            "assignments": [DESK_1], "normalHours": weekdays,
            "exceptions": [{"name": "Staff day", "startDate": "2026-03-13", "endDate": "2026-03-13",
                "openings": []}]}));
        let next_open_day = "00000000-0000-4000-8000-00000000a006";
        loan_policy(
            &lib,
            next_open_day,
            "Eleven days",
            true,
            json!({"profileId": "Rolling", "period": {"duration": 11, "intervalId": "Days"},
                "closedLibraryDueDateManagementId": "END_OF_THE_NEXT_OPEN_DAY"}),
        );
        lib.rules(&rules_text(&[(&format!("m {BOOK}"), next_open_day)]));
        lib.item("B-1", json!({}));
        lib.item("D-1", json!({"materialTypeId": DVD}));
        lib.patron("P-1", json!({}));
        // 11 days from Monday 2 March is Friday 13 March, closed; Saturday and Sunday
        // are too, so the loan falls due at the end of Monday 16 March, 23:59:59 EDT.
        check(
            &lib,
            "B-1",
            "P-1",
            json!({}),
            expect![[r#"
                status Open
                loanDate 2026-03-02T10:15:00.000+00:00
                dueDate 2026-03-17T03:59:59.000+00:00
                action checkedout
                itemStatus Checked out
            "#]],
        );
        // The default policy keeps its due date, 1 May, past the calendar's end: its
        // rule reads no calendar. 1 May ends at 23:59:59 EDT.
        check(
            &lib,
            "D-1",
            "P-1",
            json!({}),
            expect![[r#"
                status Open
                loanDate 2026-03-02T10:15:00.000+00:00
                dueDate 2026-05-02T03:59:59.000+00:00
                action checkedout
                itemStatus Checked out
            "#]],
        );
    }
}
