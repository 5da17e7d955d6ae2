//! What a new tenant gets so that check-out works out of the box: one policy of each
//! kind, circulation rules that fall back to them, and the six automated patron block
//! conditions (switched off until a library sets limits).
//!
//! The ids are FOLIO's reference-data ids, so clients and scripts written against a
//! FOLIO tenant find the same records.

use folio::Actor;
use serde_json::json;
use store::Writer;

use crate::blocks::condition;
use crate::model::{
    LoanPolicy, LostItemFeePolicy, NoticePolicy, OverdueFinePolicy, PatronBlockCondition,
    RequestPolicy, StaffSlip,
};
use crate::records::{self, Record};
use crate::{Result, rules};

pub const DEFAULT_LOAN_POLICY_ID: &str = "d9cd0bed-1b49-4b5e-a7bd-064b8d177231";
pub const DEFAULT_REQUEST_POLICY_ID: &str = "334e5a9e-94f9-4673-8d1d-ab552863886b";
pub const DEFAULT_NOTICE_POLICY_ID: &str = "122b3d2b-4788-4f1e-9117-56daa91cb75c";
pub const DEFAULT_OVERDUE_FINE_POLICY_ID: &str = "cd3f6cac-fa17-4079-9fae-2fb28e521412";
pub const DEFAULT_LOST_ITEM_FEE_POLICY_ID: &str = "ed892c0e-52e0-4cd9-8133-c0ef07b4a709";

/// Seeds the defaults that are missing; returns how many records it wrote.
pub fn seed(writer: &mut Writer<'_>) -> Result<usize> {
    let mut n = 0;
    n += seed_one::<LoanPolicy>(
        writer,
        json!({
            "id": DEFAULT_LOAN_POLICY_ID, "name": "Example Loan Policy",
            "description": "Default loan policy: 60 days, renewable for 30 more",
            "loanable": true, "renewable": true,
            "loansPolicy": {"profileId": "Rolling", "period": {"duration": 60, "intervalId": "Days"},
                "closedLibraryDueDateManagementId": "CURRENT_DUE_DATE",
                "gracePeriod": {"duration": 7, "intervalId": "Days"}},
            "renewalsPolicy": {"unlimited": true, "renewFromId": "CURRENT_DUE_DATE",
                "differentPeriod": true, "period": {"duration": 30, "intervalId": "Days"}},
            "requestManagement": {"recalls": {
                "minimumGuaranteedLoanPeriod": {"duration": 30, "intervalId": "Days"},
                "recallReturnInterval": {"duration": 5, "intervalId": "Days"}}}
        }),
    )?;
    n += seed_one::<RequestPolicy>(
        writer,
        json!({"id": DEFAULT_REQUEST_POLICY_ID, "name": "Allow All",
            "description": "Holds, pages and recalls", "requestTypes": ["Hold", "Page", "Recall"]}),
    )?;
    n += seed_one::<NoticePolicy>(
        writer,
        json!({"id": DEFAULT_NOTICE_POLICY_ID, "name": "Send No Notices",
            "description": "Sends no notices", "active": true,
            "loanNotices": [], "requestNotices": []}),
    )?;
    n += seed_one::<OverdueFinePolicy>(
        writer,
        json!({"id": DEFAULT_OVERDUE_FINE_POLICY_ID, "name": "Overdue fine policy",
            "description": "Charges no overdue fines", "countClosed": true,
            "maxOverdueFine": 0.0, "forgiveOverdueFine": true,
            "gracePeriodRecall": true, "maxOverdueRecallFine": 0.0}),
    )?;
    n += seed_one::<LostItemFeePolicy>(
        writer,
        json!({"id": DEFAULT_LOST_ITEM_FEE_POLICY_ID, "name": "Lost item fee policy",
            "description": "Charges the actual cost of a lost item",
            "chargeAmountItem": {"chargeType": "actualCost", "amount": 0.0},
            "lostItemProcessingFee": 0.0, "chargeAmountItemPatron": true,
            "chargeAmountItemSystem": true, "replacementAllowed": true,
            "lostItemReturned": "Charge"}),
    )?;
    let conditions = [
        (condition::MAX_ITEMS_CHARGED_OUT, "Maximum number of items charged out", "Integer"),
        (condition::MAX_LOST_ITEMS, "Maximum number of lost items", "Integer"),
        (condition::MAX_OVERDUE_ITEMS, "Maximum number of overdue items", "Integer"),
        (condition::MAX_OVERDUE_RECALLS, "Maximum number of overdue recalls", "Integer"),
        (
            condition::RECALL_OVERDUE_BY_MAX_DAYS,
            "Recall overdue by maximum number of days",
            "Integer",
        ),
        (
            condition::MAX_OUTSTANDING_FEE_FINE_BALANCE,
            "Maximum outstanding fee/fine balance",
            "Double",
        ),
    ];
    for (id, name, value_type) in conditions {
        n += seed_one::<PatronBlockCondition>(
            writer,
            json!({"id": id, "name": name, "valueType": value_type, "blockBorrowing": false,
                "blockRenewals": false, "blockRequests": false, "message": ""}),
        )?;
    }
    // FOLIO's reference slips (their ids), with Quire's own short templates.
    let slips = [
        (
            "6a6e72f0-69da-4b4c-8254-7154679e9d88",
            "Hold",
            "<p>Hold for {{requester.lastName}}, {{requester.firstName}}</p><p>{{item.title}}</p><p>{{item.barcode}}</p><p>Expires {{request.holdShelfExpirationDate}}</p>",
        ),
        (
            "f838cdaf-555a-473f-abf1-f35ef6ab8ae1",
            "Transit",
            "<p>In transit to {{item.toServicePoint}}</p><p>{{item.title}}</p><p>{{item.barcode}}</p>",
        ),
        (
            "1ed55c5c-64d9-40eb-8b80-7438a262288b",
            "Request delivery",
            "<p>Deliver to {{requester.lastName}}, {{requester.firstName}}</p><p>{{requester.addressLine1}}</p><p>{{item.title}}</p><p>{{item.barcode}}</p>",
        ),
        (
            "8812bae1-2738-442c-bc20-fe4bb38a11f8",
            "Pick slip",
            "<p>Pick {{item.title}}</p><p>{{item.effectiveLocationSpecific}} {{item.callNumber}}</p><p>{{item.barcode}}</p>",
        ),
    ];
    for (id, name, template) in slips {
        n += seed_one::<StaffSlip>(
            writer,
            json!({"id": id, "name": name, "active": true, "template": template}),
        )?;
    }
    if rules::get_rules(writer)?.rules_as_text.is_empty() {
        let text = format!(
            "priority: number-of-criteria, criterium (t, s, c, b, a, m, g), last-line\n\
             fallback-policy: l {DEFAULT_LOAN_POLICY_ID} r {DEFAULT_REQUEST_POLICY_ID} \
             n {DEFAULT_NOTICE_POLICY_ID} o {DEFAULT_OVERDUE_FINE_POLICY_ID} \
             i {DEFAULT_LOST_ITEM_FEE_POLICY_ID}\n"
        );
        rules::put_rules(writer, &text, Actor::default())?;
        n += 1;
    }
    Ok(n)
}

fn seed_one<R: Record>(writer: &mut Writer<'_>, json: serde_json::Value) -> Result<usize> {
    let record: R =
        serde_json::from_value(json).map_err(|e| crate::Error::Corrupt(e.to_string()))?;
    let id = record.id().expect("seed records carry their ids");
    if writer.exists(&R::TABLE, &id.to_string())? {
        return Ok(0);
    }
    records::create(writer, record, Actor::default())?;
    Ok(1)
}
