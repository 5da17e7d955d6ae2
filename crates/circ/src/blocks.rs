//! Patron blocks: manual blocks in force, and automated blocks computed from the
//! patron's current loans and fee balance against their group's limits.
//!
//! FOLIO's mod-patron-blocks keeps a per-user summary fed by events; Quire counts from
//! the indexed loan and account tables in the same transaction instead, so a block
//! can never lag behind the loans that cause it.

use chrono::{DateTime, Utc};
use serde::Serialize;
use store::Reader;
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
    let mut blocks: Vec<ManualBlock> = records::find(reader, &[("user_id", &user_id.to_string())])?;
    blocks.retain(|b| b.in_force_at(now));
    Ok(blocks)
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
