//! Patron blocks: manual blocks in force, and automated blocks computed from the
//! patron's current loans and fee balance against their group's limits.
//!
//! FOLIO's mod-patron-blocks keeps a per-user summary fed by events; Quire counts from
//! the indexed loan and account tables in the same transaction instead, so a block
//! can never lag behind the loans that cause it.

use chrono::{DateTime, Utc};
use serde::Serialize;
use store::{Read, Reader};
use uuid::Uuid;

use crate::model::{Account, ManualBlock, PatronBlockCondition, PatronBlockLimit};
use crate::{Result, records};

/// FOLIO's fixed ids of the six automated block conditions (mod-patron-blocks).
pub mod condition {
    pub const MAX_ITEMS_CHARGED_OUT: &str = "3d7c52dc-c732-4223-8bf8-e5917801386f";
    pub const MAX_LOST_ITEMS: &str = "72b67965-5b73-4840-bc0b-be8f3f6e047e";
    pub const MAX_OVERDUE_ITEMS: &str = "584fbd4f-6a34-4730-a6ca-73a6a6a9d845";
    pub const MAX_OVERDUE_RECALLS: &str = "e5b45031-a202-4abb-917b-e1df9346fe2c";
    pub const RECALL_OVERDUE_BY_MAX_DAYS: &str = "08530ac4-07f2-48e6-9dda-a97bc2bf7053";
    pub const MAX_OUTSTANDING_FEE_FINE_BALANCE: &str = "cf7a0d5f-a327-4ca1-aa9e-dc55ec006b8a";
}

/// One automated block (`/automated-patron-blocks/{userId}` item).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AutomatedBlock {
    pub patron_block_condition_id: Uuid,
    pub block_borrowing: bool,
    pub block_renewals: bool,
    pub block_requests: bool,
    pub message: String,
}

/// The user's manual blocks in force now.
pub(crate) fn manual_blocks(
    reader: &Reader<'_>,
    user_id: Uuid,
    now: DateTime<Utc>,
) -> Result<Vec<ManualBlock>> {
    let mut blocks: Vec<ManualBlock> =
        records::read(reader, &manual_blocks_read(&user_id.to_string()))?;
    blocks.retain(|b| b.in_force_at(now));
    Ok(blocks)
}

/// What [`manual_blocks`] reads, to read it ahead: `user_id` is the patron's.
pub(crate) fn manual_blocks_read(user_id: &str) -> Read<'_> {
    Read::Where(&crate::storage::MANUAL_BLOCKS, vec![("user_id", user_id)], &[])
}

/// What the automated limits count for one patron.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
struct Summary {
    open_loans: usize,
    overdue_loans: usize,
    overdue_recalls: usize,
    max_recall_overdue_days: i64,
    lost_items: usize,
    fee_balance: f64,
}

fn summary(reader: &Reader<'_>, user_id: Uuid, now: DateTime<Utc>) -> Result<Summary> {
    let mut s = Summary::default();
    for loan in crate::check_out::open_loans_of_user(reader, user_id)? {
        s.open_loans += 1;
        let lost = matches!(loan.item_status.as_deref(), Some("Declared lost" | "Aged to lost"));
        if lost {
            s.lost_items += 1;
        }
        if let Some(due) = loan.due_date.map(|d| d.as_datetime())
            && due < now
            && !lost
        {
            s.overdue_loans += 1;
            if loan.due_date_changed_by_recall == Some(true) {
                s.overdue_recalls += 1;
                s.max_recall_overdue_days = s.max_recall_overdue_days.max((now - due).num_days());
            }
        }
    }
    let accounts: Vec<Account> = records::find_const(
        reader,
        &[("user_id", &user_id.to_string())],
        &[("status_name", "Open")],
    )?;
    s.fee_balance = accounts.iter().map(|a| a.remaining).sum();
    Ok(s)
}

/// The automated blocks on a patron now: every limit of their group that they have
/// reached. "Maximum" limits block at the limit (a patron with the maximum number of
/// items out cannot borrow another); the fee balance and recall days block above it.
pub fn automated_blocks(
    reader: &Reader<'_>,
    user_id: Uuid,
    patron_group_id: Option<Uuid>,
    now: DateTime<Utc>,
) -> Result<Vec<AutomatedBlock>> {
    let Some(group) = patron_group_id else { return Ok(Vec::new()) };
    let limits: Vec<PatronBlockLimit> =
        records::find(reader, &[("patron_group_id", &group.to_string())])?;
    if limits.is_empty() {
        return Ok(Vec::new());
    }
    let s = summary(reader, user_id, now)?;
    let mut blocks = Vec::new();
    for limit in limits {
        let Some(value) = limit.value else { continue };
        let id = limit.condition_id.to_string();
        let reached = match id.as_str() {
            condition::MAX_ITEMS_CHARGED_OUT => s.open_loans as f64 >= value,
            condition::MAX_LOST_ITEMS => s.lost_items as f64 >= value,
            condition::MAX_OVERDUE_ITEMS => s.overdue_loans as f64 >= value,
            condition::MAX_OVERDUE_RECALLS => s.overdue_recalls as f64 >= value,
            condition::RECALL_OVERDUE_BY_MAX_DAYS => s.max_recall_overdue_days as f64 > value,
            condition::MAX_OUTSTANDING_FEE_FINE_BALANCE => s.fee_balance > value,
            _ => false,
        };
        if !reached {
            continue;
        }
        let Some(condition) = records::get::<PatronBlockCondition>(reader, limit.condition_id)?
        else {
            continue;
        };
        if condition.block_borrowing || condition.block_renewals || condition.block_requests {
            blocks.push(AutomatedBlock {
                patron_block_condition_id: limit.condition_id,
                block_borrowing: condition.block_borrowing,
                block_renewals: condition.block_renewals,
                block_requests: condition.block_requests,
                message: condition.message.clone().unwrap_or_default(),
            });
        }
    }
    Ok(blocks)
}

#[cfg(test)]
mod tests {
    use expect_test::expect;
    use folio::Actor;
    use serde_json::json;
    use uuid::Uuid;

    use super::{Summary, condition};
    use crate::fixtures::{Library, STAFF, UNDERGRAD, at, uuid};
    use crate::model::{Account, Loan};
    use crate::records;

    const NOW: &str = "2026-03-10T12:00:00Z";

    /// A loan of a new item to `user`, due at `due`, with `extra` set.
    fn loan(lib: &Library, user: Uuid, due: &str, extra: serde_json::Value) {
        let body = crate::fixtures::merged(
            json!({"userId": user, "itemId": Uuid::new_v4(), "loanDate": "2026-01-05T10:00:00Z",
                "dueDate": due, "status": {"name": "Open"}, "itemStatus": "Checked out"}),
            extra,
        );
        lib.record::<Loan>(body);
    }

    #[test]
    fn what_the_limits_count() {
        let lib = Library::new();
        let patron = lib.patron("P-1", json!({}));
        // Lost, and long overdue: counted lost, not overdue.
        loan(&lib, patron, "2026-02-01T23:59:59Z", json!({"itemStatus": "Declared lost"}));
        loan(&lib, patron, "2026-02-01T23:59:59Z", json!({"itemStatus": "Aged to lost"}));
        // Recalled to 5 March 12:00: overdue by 5 days on 10 March at 12:00.
        loan(&lib, patron, "2026-03-05T12:00:00Z", json!({"dueDateChangedByRecall": true}));
        // Recalled to 8 March 12:01: overdue by 1 day and 23:59, counted as 1 day.
        loan(&lib, patron, "2026-03-08T12:01:00Z", json!({"dueDateChangedByRecall": true}));
        // Overdue, not recalled; due later today; returned long ago.
        loan(&lib, patron, "2026-03-09T23:59:59Z", json!({}));
        loan(&lib, patron, "2026-03-10T23:59:59Z", json!({}));
        loan(&lib, patron, "2026-02-01T23:59:59Z", json!({"status": {"name": "Closed"}}));
        // 12.50 owed in two open accounts, 40.00 in a closed one.
        for (amount, status) in [(10.0, "Open"), (2.5, "Open"), (40.0, "Closed")] {
            lib.record::<Account>(json!({"amount": amount, "remaining": amount,
                "status": {"name": status}, "userId": patron}));
        }
        let summary = lib.tenant.read(|r| super::summary(r, patron, at(NOW))).unwrap();
        assert_eq!(
            summary,
            Summary {
                open_loans: 6,
                overdue_loans: 3,
                overdue_recalls: 2,
                max_recall_overdue_days: 5,
                lost_items: 2,
                fee_balance: 12.5,
            }
        );
    }

    #[test]
    fn blocks_at_each_limit() {
        let lib = Library::new();
        let patron = lib.patron("P-1", json!({}));
        loan(&lib, patron, "2026-02-01T23:59:59Z", json!({"itemStatus": "Declared lost"}));
        loan(&lib, patron, "2026-03-07T12:00:00Z", json!({"dueDateChangedByRecall": true}));
        lib.record::<Account>(json!({"amount": 5.0, "remaining": 5.0,
            "status": {"name": "Open"}, "userId": patron}));
        // The patron has 2 items out, 1 lost, 1 overdue, 1 overdue recall, a recall 3
        // days overdue, and owes 5.00. The "maximum" limits block at the limit, the
        // days and the balance only above it.
        let limits = [
            (condition::MAX_ITEMS_CHARGED_OUT, 2.0, "borrowing", "Too many items out"),
            (condition::MAX_LOST_ITEMS, 1.0, "borrowing", "Too many lost items"),
            (condition::MAX_OVERDUE_ITEMS, 1.0, "renewals", "Too many overdue items"),
            (condition::MAX_OVERDUE_RECALLS, 1.0, "requests", "Too many overdue recalls"),
            (condition::RECALL_OVERDUE_BY_MAX_DAYS, 3.0, "borrowing", "Recall overdue too long"),
            (condition::MAX_OUTSTANDING_FEE_FINE_BALANCE, 5.0, "borrowing", "Owes too much"),
        ];
        for (id, value, blocks, message) in limits {
            lib.automated_block(id, STAFF, value, &[blocks], message);
        }
        let blocks = |group: &str| {
            let blocks = lib
                .tenant
                .read(|r| crate::automated_blocks(r, patron, Some(uuid(group)), at(NOW)))
                .unwrap();
            let mut lines: Vec<String> = blocks
                .iter()
                .map(|b| {
                    format!(
                        "{} borrowing={} renewals={} requests={}",
                        b.message, b.block_borrowing, b.block_renewals, b.block_requests
                    )
                })
                .collect();
            lines.sort();
            lines
        };
        expect![[r#"
            [
                "Too many items out borrowing=true renewals=false requests=false",
                "Too many lost items borrowing=true renewals=false requests=false",
                "Too many overdue items borrowing=false renewals=true requests=false",
                "Too many overdue recalls borrowing=false renewals=false requests=true",
            ]
        "#]]
        .assert_debug_eq(&blocks(STAFF));
        // The limits are the staff group's; another group's patron has none.
        assert!(blocks(UNDERGRAD).is_empty());
        assert!(
            lib.tenant
                .read(|r| crate::automated_blocks(r, patron, None, at(NOW)))
                .unwrap()
                .is_empty()
        );
        // A day later the recall is 4 days overdue, above the limit of 3; a cent more
        // owed is above 5.00.
        lib.record::<Account>(json!({"amount": 0.01, "remaining": 0.01,
            "status": {"name": "Open"}, "userId": patron}));
        let later = lib
            .tenant
            .read(|r| {
                crate::automated_blocks(r, patron, Some(uuid(STAFF)), at("2026-03-11T12:00:00Z"))
            })
            .unwrap();
        let mut messages: Vec<&str> = later.iter().map(|b| b.message.as_str()).collect();
        messages.sort();
        assert_eq!(
            messages,
            [
                "Owes too much",
                "Recall overdue too long",
                "Too many items out",
                "Too many lost items",
                "Too many overdue items",
                "Too many overdue recalls",
            ]
        );
        // A condition that blocks nothing is no block, whatever its limit: switch the
        // items-out condition off.
        let id = uuid(condition::MAX_ITEMS_CHARGED_OUT);
        let mut off: crate::model::PatronBlockCondition = lib.get(id);
        off.block_borrowing = false;
        lib.write(|w| records::replace(w, id, off, Actor::default())).unwrap();
        assert!(blocks(STAFF).iter().all(|b| !b.starts_with("Too many items out")));
    }
}
