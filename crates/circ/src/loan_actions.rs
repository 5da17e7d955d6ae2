//! What a desk (or a migration) does to an open loan besides check-in and renewal, as
//! mod-circulation's loan actions do, with its messages:
//! - `change-due-date`: a new due date, refused while the item is lost or claimed
//!   returned;
//! - `declare-item-lost`: item and loan "Declared lost", and the lost item fee policy's
//!   set fee and processing fee charged to the borrower;
//! - `claim-item-returned`: item and loan "Claimed returned" (FOLIO's count of a
//!   patron's claims is the number of open loans with action `claimedReturned`);
//! - `declare-claimed-returned-item-as-missing`: the loan closed, the item "Missing".
//!
//! FOLIO also writes notes and sends notices on some of these; Quire keeps neither yet.

use chrono::{DateTime, Utc};
use folio::{Actor, Stored, Timestamp};
use inventory::{Item, ItemStatusName};
use serde::Deserialize;
use store::Writer;
use uuid::Uuid;

use crate::item_context::ItemContext;
use crate::model::{Loan, LoanStatus, LostItemFeePolicy, RequestType};
use crate::{Error, Refusal, Result, fines, queue, records};

/// `POST /circulation/loans/{id}/change-due-date`.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChangeDueDateRequest {
    #[serde(default)]
    pub due_date: Option<Timestamp>,
}

/// `POST /circulation/loans/{id}/declare-item-lost`.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeclareLostRequest {
    #[serde(default)]
    pub declared_lost_date_time: Option<Timestamp>,
    #[serde(default)]
    pub comment: Option<String>,
    #[serde(default)]
    pub service_point_id: Option<Uuid>,
}

/// `POST /circulation/loans/{id}/claim-item-returned`.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClaimReturnedRequest {
    #[serde(default)]
    pub item_claimed_returned_date_time: Option<Timestamp>,
    #[serde(default)]
    pub comment: Option<String>,
}

/// `POST /circulation/loans/{id}/declare-claimed-returned-item-as-missing`.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MissingRequest {
    #[serde(default)]
    pub comment: Option<String>,
}

/// The item statuses whose loans keep their due date.
const DUE_DATE_FIXED: [ItemStatusName; 3] =
    [ItemStatusName::DeclaredLost, ItemStatusName::ClaimedReturned, ItemStatusName::AgedToLost];

pub fn change_due_date(
    writer: &mut Writer<'_>,
    loan_id: Uuid,
    request: ChangeDueDateRequest,
    actor: Actor,
) -> Result<Loan> {
    let Some(due) = request.due_date else {
        return Err(refused(
            "A new due date is required in order to change the due date",
            "dueDate",
            "",
        ));
    };
    let (mut loan, item) = open_loan_and_item(writer, loan_id)?;
    if DUE_DATE_FIXED.contains(&item.status.name) {
        return Err(refused(
            format!("item is {}", item.status.name.as_str()),
            "itemId",
            item.id.to_string(),
        ));
    }
    loan.due_date = Some(due);
    // A due date set by hand is no longer the recall's, unless a recall still waits.
    if loan.due_date_changed_by_recall == Some(true) {
        let queue = queue::open_requests(writer, item.id)?;
        if !queue.iter().any(|r| r.request_type == RequestType::Recall) {
            loan.due_date_changed_by_recall = Some(false);
        }
    }
    records::update(writer, &mut loan, actor)?;
    Ok(loan)
}

pub fn declare_item_lost(
    writer: &mut Writer<'_>,
    loan_id: Uuid,
    request: DeclareLostRequest,
    actor: Actor,
    now: DateTime<Utc>,
) -> Result<Loan> {
    if request.service_point_id.is_none() {
        return Err(refused(
            "A service point is required for item to be declared lost",
            "servicePointId",
            "",
        ));
    }
    let (mut loan, item) = open_loan_and_item(writer, loan_id)?;
    if item.status.name == ItemStatusName::DeclaredLost {
        return Err(refused("The item is already declared lost", "itemId", item.id.to_string()));
    }
    let declared = request.declared_lost_date_time.unwrap_or_else(|| Timestamp::from(now));
    loan.action = Some("declaredLost".to_string());
    loan.action_comment = Some(request.comment.unwrap_or_default());
    loan.item_status = Some(ItemStatusName::DeclaredLost.as_str().to_string());
    loan.declared_lost_date = Some(declared);
    records::update(writer, &mut loan, actor)?;
    let item = set_item_status(writer, item, ItemStatusName::DeclaredLost, actor, now)?;
    charge_lost_item_fees(writer, &loan, item, actor)?;
    Ok(loan)
}

pub fn claim_item_returned(
    writer: &mut Writer<'_>,
    loan_id: Uuid,
    request: ClaimReturnedRequest,
    actor: Actor,
    now: DateTime<Utc>,
) -> Result<Loan> {
    let Some(claimed) = request.item_claimed_returned_date_time else {
        return Err(refused(
            "Item claimed returned date is a required field",
            "itemClaimedReturnedDateTime",
            "",
        ));
    };
    let (mut loan, item) = open_loan_and_item(writer, loan_id)?;
    loan.action = Some("claimedReturned".to_string());
    if let Some(comment) = request.comment.filter(|c| !c.trim().is_empty()) {
        loan.action_comment = Some(comment);
    }
    loan.item_status = Some(ItemStatusName::ClaimedReturned.as_str().to_string());
    loan.claimed_returned_date = Some(claimed);
    records::update(writer, &mut loan, actor)?;
    set_item_status(writer, item, ItemStatusName::ClaimedReturned, actor, now)?;
    Ok(loan)
}

pub fn declare_claimed_returned_item_as_missing(
    writer: &mut Writer<'_>,
    loan_id: Uuid,
    request: MissingRequest,
    actor: Actor,
    now: DateTime<Utc>,
) -> Result<Loan> {
    let Some(comment) = request.comment else {
        return Err(refused("Comment is a required field", "comment", ""));
    };
    let (mut loan, item) = open_loan_and_item(writer, loan_id)?;
    if item.status.name != ItemStatusName::ClaimedReturned {
        return Err(refused(
            format!("Item is not {}", ItemStatusName::ClaimedReturned.as_str()),
            "itemId",
            item.id.to_string(),
        ));
    }
    loan.set_status(LoanStatus::Closed);
    loan.action = Some("markedMissing".to_string());
    loan.action_comment = Some(comment);
    loan.item_status = Some(ItemStatusName::Missing.as_str().to_string());
    records::update(writer, &mut loan, actor)?;
    set_item_status(writer, item, ItemStatusName::Missing, actor, now)?;
    Ok(loan)
}

/// The loan, which must be open, and its item.
fn open_loan_and_item(writer: &Writer<'_>, loan_id: Uuid) -> Result<(Loan, Stored<Item>)> {
    let loan = records::get::<Loan>(writer, loan_id)?
        .ok_or(Error::NotFound { record_type: "loan", id: loan_id.to_string() })?
        .record;
    if !loan.is_open() {
        return Err(refused("Loan is closed", "loanId", loan_id.to_string()));
    }
    let item = inventory::get_item(writer, loan.item_id)?.ok_or_else(|| {
        Error::Corrupt(format!("loan {loan_id} names a missing item {}", loan.item_id))
    })?;
    Ok((loan, item))
}

fn set_item_status(
    writer: &mut Writer<'_>,
    item: Stored<Item>,
    status: ItemStatusName,
    actor: Actor,
    now: DateTime<Utc>,
) -> Result<Stored<Item>> {
    Ok(inventory::update_item(writer, item, actor, |item| {
        item.status.name = status;
        item.status.date = Some(Timestamp::from(now));
    })?)
}

/// Charges what the loan's lost item fee policy sets for a lost item: its set cost
/// (`anotherCost`; an actual cost is worked out by staff later, so nothing is charged
/// now) and, when the policy charges patrons one, the processing fee.
fn charge_lost_item_fees(
    writer: &mut Writer<'_>,
    loan: &Loan,
    item: Stored<Item>,
    actor: Actor,
) -> Result<()> {
    let Some(policy_id) = loan.lost_item_policy_id else { return Ok(()) };
    let Some(policy) = records::get::<LostItemFeePolicy>(writer, policy_id)? else {
        return Ok(());
    };
    let item_fee = policy
        .charge_amount_item
        .as_ref()
        .filter(|c| c.charge_type == "anotherCost")
        .map_or(0.0, |c| c.amount);
    let processing_fee = match policy.charge_amount_item_patron {
        Some(true) => policy.lost_item_processing_fee.unwrap_or(0.0),
        _ => 0.0,
    };
    let fees =
        [(fines::LOST_ITEM_FEE, item_fee), (fines::LOST_ITEM_PROCESSING_FEE, processing_fee)];
    if fees.iter().all(|(_, amount)| *amount <= 0.0) {
        return Ok(());
    }
    let context = ItemContext::load(writer, item)?;
    for (fee_type, amount) in fees {
        if amount > 0.0 {
            fines::charge(writer, loan, &context, fee_type, amount, None, actor)?;
        }
    }
    Ok(())
}

fn refused(message: impl Into<String>, key: &str, value: impl Into<String>) -> Error {
    Error::refused(Refusal::new(message, key, value))
}
