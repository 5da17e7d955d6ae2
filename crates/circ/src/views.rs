//! The business views of `/circulation/loans` and `/circulation/requests`: the stored
//! record with FOLIO's read-only embedded objects (item, borrower, policy names,
//! service points, fee balance).

use serde_json::{Map, Value, json};
use store::{Page, Reader};
use uuid::Uuid;

use crate::item_context::ItemContext;
use crate::model::{Account, Loan, LoanPolicy, LostItemFeePolicy, OverdueFinePolicy, Request};
use crate::records::{self, Record};
use crate::{Error, Result};

/// A loan with its embedded objects.
pub fn loan_view(reader: &Reader<'_>, loan: &Loan) -> Result<Value> {
    let mut view = to_map(loan)?;
    if let Some(item) = inventory::get_item(reader, loan.item_id)? {
        view.insert("item".into(), ItemContext::load(reader, item)?.summary());
    }
    if let Some(user_id) = loan.user_id
        && let Some(user) = auth::get_user(reader, user_id)?
    {
        let personal = user.personal.clone().unwrap_or_default();
        view.insert(
            "borrower".into(),
            json!({"firstName": personal.first_name, "lastName": personal.last_name,
                "middleName": personal.middle_name, "barcode": user.barcode,
                "preferredFirstName": personal.preferred_first_name,
                "patronGroup": user.patron_group}),
        );
    }
    name_of::<LoanPolicy>(reader, &mut view, "loanPolicy", loan.loan_policy_id, |p| p.name)?;
    name_of::<OverdueFinePolicy>(
        reader,
        &mut view,
        "overdueFinePolicy",
        loan.overdue_fine_policy_id,
        |p| p.name,
    )?;
    name_of::<LostItemFeePolicy>(
        reader,
        &mut view,
        "lostItemPolicy",
        loan.lost_item_policy_id,
        |p| p.name,
    )?;
    if let Some(group_id) = loan.patron_group_id_at_checkout
        && let Some(group) = auth::get_group(reader, group_id)?
    {
        view.insert("patronGroupAtCheckout".into(), json!({"id": group_id, "name": group.group}));
    }
    for (key, sp) in [
        ("checkoutServicePoint", loan.checkout_service_point_id),
        ("checkinServicePoint", loan.checkin_service_point_id),
    ] {
        if let Some(sp) = sp
            && let Some(point) = inventory::get_service_point(reader, sp)?
        {
            view.insert(
                key.into(),
                json!({"name": point.name, "code": point.code,
                    "discoveryDisplayName": point.discovery_display_name,
                    "pickupLocation": point.pickup_location}),
            );
        }
    }
    if let Some(id) = loan.id {
        let accounts: Vec<Account> = records::find(reader, &[("loan_id", &id.to_string())])?;
        let remaining: f64 = accounts.iter().filter(|a| a.is_open()).map(|a| a.remaining).sum();
        view.insert(
            "feesAndFines".into(),
            json!({"amountRemainingToPay": (remaining * 100.0).round() / 100.0}),
        );
    }
    Ok(Value::Object(view))
}

/// A page of loans with their embedded objects, and the total.
pub fn list_loan_views(
    reader: &Reader<'_>,
    cql: Option<&str>,
    page: Page,
) -> Result<(Vec<Value>, u64)> {
    let (bodies, total) = records::list_json::<Loan>(reader, cql, page)?;
    let mut views = Vec::with_capacity(bodies.len());
    for body in bodies {
        let loan: Loan = records::parse(&body, "loan")?;
        views.push(loan_view(reader, &loan)?);
    }
    Ok((views, total))
}

/// A request with its embedded item, requester and pickup service point.
pub fn request_view(reader: &Reader<'_>, request: &Request) -> Result<Value> {
    let mut view = to_map(request)?;
    if let Some(item_id) = request.item_id
        && let Some(item) = inventory::get_item(reader, item_id)?
    {
        let item = ItemContext::load(reader, item)?;
        view.insert(
            "item".into(),
            json!({"barcode": item.item.barcode, "title": item.title,
                "status": item.status_name(), "callNumber": item.call_number(),
                "location": {"name": item.location_name}}),
        );
    }
    if let Some(user) = auth::get_user(reader, request.requester_id)? {
        let personal = user.personal.clone().unwrap_or_default();
        view.insert(
            "requester".into(),
            json!({"firstName": personal.first_name, "lastName": personal.last_name,
                "barcode": user.barcode, "patronGroupId": user.patron_group}),
        );
    }
    if let Some(sp) = request.pickup_service_point_id
        && let Some(point) = inventory::get_service_point(reader, sp)?
    {
        view.insert(
            "pickupServicePoint".into(),
            json!({"name": point.name, "code": point.code,
                "discoveryDisplayName": point.discovery_display_name,
                "pickupLocation": point.pickup_location}),
        );
    }
    Ok(Value::Object(view))
}

/// A page of requests with their embedded objects, and the total.
pub fn list_request_views(
    reader: &Reader<'_>,
    cql: Option<&str>,
    page: Page,
) -> Result<(Vec<Value>, u64)> {
    let (bodies, total) = records::list_json::<Request>(reader, cql, page)?;
    let mut views = Vec::with_capacity(bodies.len());
    for body in bodies {
        let request: Request = records::parse(&body, "request")?;
        views.push(request_view(reader, &request)?);
    }
    Ok((views, total))
}

fn to_map(record: &impl serde::Serialize) -> Result<Map<String, Value>> {
    match serde_json::to_value(record).map_err(|e| Error::Corrupt(e.to_string()))? {
        Value::Object(map) => Ok(map),
        _ => Err(Error::Corrupt("a record is not an object".to_string())),
    }
}

fn name_of<R: Record>(
    reader: &Reader<'_>,
    view: &mut Map<String, Value>,
    key: &str,
    id: Option<Uuid>,
    name: impl FnOnce(R) -> String,
) -> Result<()> {
    if let Some(id) = id
        && let Some(record) = records::get::<R>(reader, id)?
    {
        view.insert(key.into(), json!({"name": name(record)}));
    }
    Ok(())
}
