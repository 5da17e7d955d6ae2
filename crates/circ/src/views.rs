//! The business views of `/circulation/loans` and `/circulation/requests`: the stored
//! record with FOLIO's read-only embedded objects (item, borrower, policy names,
//! service points, fee balance).

use std::collections::HashMap;

use serde::Serialize;
use store::{Page, Reader};
use uuid::Uuid;

use crate::Result;
use crate::item_context::{ItemContext, ItemSummary};
use crate::model::{Account, Loan, LoanPolicy, LostItemFeePolicy, OverdueFinePolicy, Request};
use crate::records::{self, Record};

/// A loan as `/circulation/loans` and the desk's responses show it: the stored loan and
/// FOLIO's read-only embedded objects. An embedded object that cannot be read (a deleted
/// user, a policy gone) is left out, as FOLIO does.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LoanView {
    #[serde(flatten)]
    pub loan: Loan,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub item: Option<ItemSummary>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub borrower: Option<Borrower>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub loan_policy: Option<PolicyName>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub overdue_fine_policy: Option<PolicyName>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lost_item_policy: Option<PolicyName>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub patron_group_at_checkout: Option<PatronGroupRef>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checkout_service_point: Option<ServicePointSummary>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checkin_service_point: Option<ServicePointSummary>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fees_and_fines: Option<FeesAndFines>,
}

impl LoanView {
    /// The properties the view adds. A stored loan may carry them from a client that
    /// PUT a view back; the view's own take their place.
    pub(crate) const EMBEDDED: [&'static str; 9] = [
        "item",
        "borrower",
        "loanPolicy",
        "overdueFinePolicy",
        "lostItemPolicy",
        "patronGroupAtCheckout",
        "checkoutServicePoint",
        "checkinServicePoint",
        "feesAndFines",
    ];

    /// The loan's id (a view is only made of a stored loan).
    pub fn id(&self) -> Option<Uuid> {
        self.loan.id
    }
}

/// The borrower a loan embeds.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Borrower {
    pub first_name: Option<String>,
    pub last_name: Option<String>,
    pub middle_name: Option<String>,
    pub barcode: Option<String>,
    pub preferred_first_name: Option<String>,
    pub patron_group: Option<Uuid>,
}

/// `{"name": ...}`: how a loan names its policies.
#[derive(Debug, Clone, Serialize)]
pub struct PolicyName {
    pub name: String,
}

/// The patron group a loan was made under.
#[derive(Debug, Clone, Serialize)]
pub struct PatronGroupRef {
    pub id: Uuid,
    pub name: Option<String>,
}

/// A service point as loans and requests embed it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServicePointSummary {
    pub name: String,
    pub code: String,
    pub discovery_display_name: String,
    pub pickup_location: Option<bool>,
}

/// What is left to pay on a loan's fees and fines.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FeesAndFines {
    pub amount_remaining_to_pay: f64,
}

/// A loan with its embedded objects.
pub fn loan_view(reader: &Reader<'_>, loan: Loan) -> Result<LoanView> {
    let item = ItemContext::of_item(reader, loan.item_id)?;
    Embedded::default().loan_view(reader, loan, item.as_ref())
}

/// A page of loans with their embedded objects, and the total.
pub fn list_loan_views(
    reader: &Reader<'_>,
    cql: Option<&str>,
    page: Page,
) -> Result<(Vec<LoanView>, u64)> {
    let (bodies, total) = records::list_json::<Loan>(reader, cql, page)?;
    let mut embedded = Embedded::default();
    let mut views = Vec::with_capacity(bodies.len());
    for body in bodies {
        let loan: Loan = records::parse(&body, "loan")?;
        let item = ItemContext::of_item(reader, loan.item_id)?;
        views.push(embedded.loan_view(reader, loan, item.as_ref())?);
    }
    Ok((views, total))
}

/// The embedded objects loans share, each read once per response: a patron's loans
/// (the desk's "loans after check-out" list) name one borrower, a few policies, one
/// patron group and one or two service points.
#[derive(Default)]
pub(crate) struct Embedded {
    borrowers: HashMap<Uuid, Option<Borrower>>,
    policy_names: HashMap<Uuid, Option<PolicyName>>,
    groups: HashMap<Uuid, Option<PatronGroupRef>>,
    service_points: HashMap<Uuid, Option<ServicePointSummary>>,
    // The loan made in this transaction: no fee or fine can name it yet.
    new_loan: Option<Uuid>,
}

impl Embedded {
    /// Adds what a transaction has already read, so the view does not read it again,
    /// and the loan it has just made, whose fees and fines are none.
    pub(crate) fn knowing(
        mut self,
        user: &folio::Stored<auth::User>,
        policies: &[(Uuid, &str)],
        service_point: Option<&inventory::model::ServicePoint>,
        new_loan: Option<Uuid>,
    ) -> Embedded {
        self.new_loan = new_loan;
        self.borrowers.insert(user.id, Some(borrower_of(user)));
        for (id, name) in policies {
            self.policy_names.insert(*id, Some(PolicyName { name: name.to_string() }));
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
        mut loan: Loan,
        item: Option<&ItemContext>,
    ) -> Result<LoanView> {
        for key in LoanView::EMBEDDED {
            loan.other.remove(key);
        }
        // The borrower and the loan's fees are read together (each is a round trip on
        // PostgreSQL); the rest is cached.
        let user_id =
            loan.user_id.filter(|id| !self.borrowers.contains_key(id)).map(|id| id.to_string());
        let loan_id = loan.id.filter(|id| self.new_loan != Some(*id)).map(|id| id.to_string());
        if let (Some(user_id), Some(loan_id)) = (&user_id, &loan_id) {
            reader.prefetch(&[auth::user_read(user_id), fees_of_loan_read(loan_id)])?;
        }
        let borrower = match loan.user_id {
            Some(user_id) => memo(&mut self.borrowers, user_id, || borrower(reader, user_id))?,
            None => None,
        };
        let names = &mut self.policy_names;
        let mut policy = |id: Option<Uuid>, name_of: NameOf| match id {
            Some(id) => memo(names, id, || name_of(reader, id)),
            None => Ok(None),
        };
        let loan_policy = policy(loan.loan_policy_id, name_of::<LoanPolicy>)?;
        let overdue_fine_policy =
            policy(loan.overdue_fine_policy_id, name_of::<OverdueFinePolicy>)?;
        let lost_item_policy = policy(loan.lost_item_policy_id, name_of::<LostItemFeePolicy>)?;
        let patron_group_at_checkout = match loan.patron_group_id_at_checkout {
            Some(group_id) => memo(&mut self.groups, group_id, || {
                Ok(auth::get_group(reader, group_id)?
                    .map(|g| PatronGroupRef { id: group_id, name: g.record.group }))
            })?,
            None => None,
        };
        let mut point = |id: Option<Uuid>| match id {
            Some(sp) => memo(&mut self.service_points, sp, || service_point(reader, sp)),
            None => Ok(None),
        };
        let checkout_service_point = point(loan.checkout_service_point_id)?;
        let checkin_service_point = point(loan.checkin_service_point_id)?;
        let fees_and_fines = match loan.id {
            Some(id) if self.new_loan == Some(id) => {
                Some(FeesAndFines { amount_remaining_to_pay: 0.0 })
            }
            Some(id) => {
                let accounts: Vec<Account> =
                    records::read(reader, &fees_of_loan_read(&id.to_string()))?;
                let remaining: f64 =
                    accounts.iter().filter(|a| a.is_open()).map(|a| a.remaining).sum();
                // An empty f64 sum is -0.0, which JSON would show as `-0.0`.
                let remaining = (remaining * 100.0).round() / 100.0 + 0.0;
                Some(FeesAndFines { amount_remaining_to_pay: remaining })
            }
            None => None,
        };
        Ok(LoanView {
            loan,
            item: item.map(ItemContext::summary),
            borrower,
            loan_policy,
            overdue_fine_policy,
            lost_item_policy,
            patron_group_at_checkout,
            checkout_service_point,
            checkin_service_point,
            fees_and_fines,
        })
    }
}

/// What a loan view reads of the loan's fees and fines: `loan_id` is the loan's.
fn fees_of_loan_read(loan_id: &str) -> store::Read<'_> {
    store::Read::Where(&crate::storage::ACCOUNTS, vec![("loan_id", loan_id)], &[])
}

type NameOf = fn(&Reader<'_>, Uuid) -> Result<Option<PolicyName>>;

/// The value for `id`, read once.
fn memo<T: Clone>(
    values: &mut HashMap<Uuid, Option<T>>,
    id: Uuid,
    read: impl FnOnce() -> Result<Option<T>>,
) -> Result<Option<T>> {
    if let Some(value) = values.get(&id) {
        return Ok(value.clone());
    }
    let value = read()?;
    values.insert(id, value.clone());
    Ok(value)
}

fn borrower(reader: &Reader<'_>, user_id: Uuid) -> Result<Option<Borrower>> {
    Ok(auth::get_user(reader, user_id)?.map(|user| borrower_of(&user)))
}

fn borrower_of(user: &auth::User) -> Borrower {
    let personal = user.personal.clone().unwrap_or_default();
    Borrower {
        first_name: personal.first_name,
        last_name: personal.last_name,
        middle_name: personal.middle_name,
        barcode: user.barcode.clone(),
        preferred_first_name: personal.preferred_first_name,
        patron_group: user.patron_group,
    }
}

fn service_point(reader: &Reader<'_>, id: Uuid) -> Result<Option<ServicePointSummary>> {
    Ok(inventory::get_service_point(reader, id)?.map(|point| service_point_of(&point)))
}

fn service_point_of(point: &inventory::model::ServicePoint) -> ServicePointSummary {
    ServicePointSummary {
        name: point.name.clone(),
        code: point.code.clone(),
        discovery_display_name: point.discovery_display_name.clone(),
        pickup_location: point.pickup_location,
    }
}

/// A request as `/circulation/requests` shows it: the stored request and FOLIO's
/// read-only embedded item, requester and pickup service point.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RequestView {
    #[serde(flatten)]
    pub request: Request,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub item: Option<RequestedItem>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub requester: Option<Requester>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pickup_service_point: Option<ServicePointSummary>,
}

impl RequestView {
    /// The properties the view adds (see [`LoanView`]'s).
    pub(crate) const EMBEDDED: [&'static str; 3] = ["item", "requester", "pickupServicePoint"];

    pub fn id(&self) -> Option<Uuid> {
        self.request.id
    }
}

/// The item a request embeds.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RequestedItem {
    pub barcode: Option<String>,
    pub title: String,
    pub status: &'static str,
    pub call_number: Option<String>,
    pub location: crate::item_context::Name,
}

/// The requester a request embeds.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Requester {
    pub first_name: Option<String>,
    pub last_name: Option<String>,
    pub barcode: Option<String>,
    pub patron_group_id: Option<Uuid>,
}

/// A request with its embedded item, requester and pickup service point.
pub fn request_view(reader: &Reader<'_>, request: &Request) -> Result<RequestView> {
    let mut request = request.clone();
    for key in RequestView::EMBEDDED {
        request.other.remove(key);
    }
    let item = match request.item_id {
        Some(item_id) => ItemContext::of_item(reader, item_id)?.map(|item| RequestedItem {
            barcode: item.item.barcode.clone(),
            title: item.title.clone(),
            status: item.status_name(),
            call_number: item.call_number(),
            location: crate::item_context::Name { name: item.location_name.clone() },
        }),
        None => None,
    };
    let requester = auth::get_user(reader, request.requester_id)?.map(|user| {
        let personal = user.personal.clone().unwrap_or_default();
        Requester {
            first_name: personal.first_name,
            last_name: personal.last_name,
            barcode: user.barcode.clone(),
            patron_group_id: user.patron_group,
        }
    });
    let pickup_service_point = match request.pickup_service_point_id {
        Some(sp) => service_point(reader, sp)?,
        None => None,
    };
    Ok(RequestView { request, item, requester, pickup_service_point })
}

/// A page of requests with their embedded objects, and the total.
pub fn list_request_views(
    reader: &Reader<'_>,
    cql: Option<&str>,
    page: Page,
) -> Result<(Vec<RequestView>, u64)> {
    let (bodies, total) = records::list_json::<Request>(reader, cql, page)?;
    let mut views = Vec::with_capacity(bodies.len());
    for body in bodies {
        let request: Request = records::parse(&body, "request")?;
        views.push(request_view(reader, &request)?);
    }
    Ok((views, total))
}

/// `{"name": ...}` of a policy, as loans embed it.
fn name_of<R: Record + Named>(reader: &Reader<'_>, id: Uuid) -> Result<Option<PolicyName>> {
    Ok(records::get::<R>(reader, id)?.map(|policy| PolicyName { name: policy.name().to_string() }))
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
