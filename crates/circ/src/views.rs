//! The business views of `/circulation/loans` and `/circulation/requests`: the stored
//! record with FOLIO's read-only embedded objects (item, borrower, policy names,
//! service points, fee balance).

use std::collections::HashMap;

use serde_json::{Map, Value, json};
use store::{Page, Reader};
use uuid::Uuid;

use crate::item_context::ItemContext;
use crate::model::{Account, Loan, LoanPolicy, LostItemFeePolicy, OverdueFinePolicy, Request};
use crate::records::{self, Record};
use crate::{Error, Result};

/// A loan with its embedded objects.
pub fn loan_view(reader: &Reader<'_>, loan: &Loan) -> Result<Value> {
    let item = ItemContext::of_item(reader, loan.item_id)?;
    Embedded::default().loan_view(reader, loan, item.as_ref())
}

/// A page of loans with their embedded objects, and the total.
pub fn list_loan_views(
    reader: &Reader<'_>,
    cql: Option<&str>,
    page: Page,
) -> Result<(Vec<Value>, u64)> {
    let (bodies, total) = records::list_json::<Loan>(reader, cql, page)?;
    let mut embedded = Embedded::default();
    let mut views = Vec::with_capacity(bodies.len());
    for body in bodies {
        let loan: Loan = records::parse(&body, "loan")?;
        let item = ItemContext::of_item(reader, loan.item_id)?;
        views.push(embedded.loan_view(reader, &loan, item.as_ref())?);
    }
    Ok((views, total))
}

/// The embedded objects loans share, each read once per response: a patron's loans
/// (the desk's "loans after check-out" list) name one borrower, a few policies, one
/// patron group and one or two service points.
#[derive(Default)]
pub(crate) struct Embedded {
    borrowers: HashMap<Uuid, Option<Value>>,
    policy_names: HashMap<Uuid, Option<Value>>,
    groups: HashMap<Uuid, Option<Value>>,
    service_points: HashMap<Uuid, Option<Value>>,
}

impl Embedded {
    /// Adds what a transaction has already read, so the view does not read it again.
    pub(crate) fn knowing(
        mut self,
        user: &folio::Stored<auth::User>,
        policies: &[(Uuid, &str)],
        service_point: Option<&inventory::model::ServicePoint>,
    ) -> Embedded {
        self.borrowers.insert(user.id, Some(borrower_of(user)));
        for (id, name) in policies {
            self.policy_names.insert(*id, Some(json!({"name": name})));
        }
        if let Some(point) = service_point
            && let Some(id) = point.id
        {
            self.service_points.insert(id, Some(service_point_of(point)));
        }
        self
    }

    pub(crate) fn loan_view(
        &mut self,
        reader: &Reader<'_>,
        loan: &Loan,
        item: Option<&ItemContext>,
    ) -> Result<Value> {
        let mut view = to_map(loan)?;
        if let Some(item) = item {
            view.insert("item".into(), item.summary());
        }
        if let Some(user_id) = loan.user_id {
            let borrower = memo(&mut self.borrowers, user_id, || borrower(reader, user_id))?;
            if let Some(borrower) = borrower {
                view.insert("borrower".into(), borrower);
            }
        }
        let names = &mut self.policy_names;
        let policies = [
            ("loanPolicy", loan.loan_policy_id, name_of::<LoanPolicy> as NameOf),
            ("overdueFinePolicy", loan.overdue_fine_policy_id, name_of::<OverdueFinePolicy>),
            ("lostItemPolicy", loan.lost_item_policy_id, name_of::<LostItemFeePolicy>),
        ];
        for (key, id, name_of) in policies {
            if let Some(id) = id
                && let Some(name) = memo(names, id, || name_of(reader, id))?
            {
                view.insert(key.into(), name);
            }
        }
        if let Some(group_id) = loan.patron_group_id_at_checkout {
            let group = memo(&mut self.groups, group_id, || {
                Ok(auth::get_group(reader, group_id)?
                    .map(|g| json!({"id": group_id, "name": g.group})))
            })?;
            if let Some(group) = group {
                view.insert("patronGroupAtCheckout".into(), group);
            }
        }
        for (key, sp) in [
            ("checkoutServicePoint", loan.checkout_service_point_id),
            ("checkinServicePoint", loan.checkin_service_point_id),
        ] {
            if let Some(sp) = sp
                && let Some(point) =
                    memo(&mut self.service_points, sp, || service_point(reader, sp))?
            {
                view.insert(key.into(), point);
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
}

type NameOf = fn(&Reader<'_>, Uuid) -> Result<Option<Value>>;

/// The value for `id`, read once.
fn memo(
    values: &mut HashMap<Uuid, Option<Value>>,
    id: Uuid,
    read: impl FnOnce() -> Result<Option<Value>>,
) -> Result<Option<Value>> {
    if let Some(value) = values.get(&id) {
        return Ok(value.clone());
    }
    let value = read()?;
    values.insert(id, value.clone());
    Ok(value)
}

fn borrower(reader: &Reader<'_>, user_id: Uuid) -> Result<Option<Value>> {
    Ok(auth::get_user(reader, user_id)?.map(|user| borrower_of(&user)))
}

fn borrower_of(user: &auth::User) -> Value {
    let personal = user.personal.clone().unwrap_or_default();
    json!({"firstName": personal.first_name, "lastName": personal.last_name,
        "middleName": personal.middle_name, "barcode": user.barcode,
        "preferredFirstName": personal.preferred_first_name,
        "patronGroup": user.patron_group})
}

fn service_point(reader: &Reader<'_>, id: Uuid) -> Result<Option<Value>> {
    Ok(inventory::get_service_point(reader, id)?.map(|point| service_point_of(&point)))
}

fn service_point_of(point: &inventory::model::ServicePoint) -> Value {
    json!({"name": point.name, "code": point.code,
        "discoveryDisplayName": point.discovery_display_name,
        "pickupLocation": point.pickup_location})
}

/// A request with its embedded item, requester and pickup service point.
pub fn request_view(reader: &Reader<'_>, request: &Request) -> Result<Value> {
    let mut view = to_map(request)?;
    if let Some(item_id) = request.item_id
        && let Some(item) = ItemContext::of_item(reader, item_id)?
    {
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

/// `{"name": ...}` of a policy, as loans embed it.
fn name_of<R: Record + Named>(reader: &Reader<'_>, id: Uuid) -> Result<Option<Value>> {
    Ok(records::get::<R>(reader, id)?.map(|policy| json!({"name": policy.name()})))
}

trait Named {
    fn name(&self) -> &str;
}

macro_rules! named {
    ($($policy:ty),*) => {
        $(impl Named for $policy {
            fn name(&self) -> &str {
                &self.name
            }
        })*
    };
}

named!(LoanPolicy, OverdueFinePolicy, LostItemFeePolicy);
