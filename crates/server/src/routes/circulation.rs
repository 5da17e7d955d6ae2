//! Circulation: policies and other circulation storage, the rules, and the desk's
//! transactions.
//!
//! - storage CRUD: `/loan-policy-storage/loan-policies`, `/request-policy-storage/request-policies`,
//!   `/patron-notice-policy-storage/patron-notice-policies`, `/overdue-fines-policies`,
//!   `/lost-item-fees-policies`, `/fixed-due-date-schedule-storage/fixed-due-date-schedules`,
//!   `/loan-storage/loans`, `/request-storage/requests`, `/accounts`, `/manualblocks`,
//!   `/patron-block-conditions`, `/patron-block-limits`, `/check-in-storage/check-ins`,
//!   `/staff-slips-storage/staff-slips`
//! - `GET|PUT /circulation/rules`, `GET|PUT /circulation-rules-storage`
//! - `GET /circulation/rules/{loan|request|notice|overdue-fine|lost-item}-policy[-all]`
//! - `POST /circulation/check-out-by-barcode`, `/circulation/check-in-by-barcode`,
//!   `/circulation/renew-by-barcode`
//! - `GET /circulation/loans[/{id}]`, `PUT|DELETE /circulation/loans/{id}`
//! - `GET|POST /circulation/requests`, `GET|PUT /circulation/requests/{id}`
//! - `GET /automated-patron-blocks/{userId}`

use axum::{
    Router,
    extract::{Path, State},
    http::StatusCode,
    response::Response,
    routing::{get, post},
};
use chrono::Utc;
use serde_json::json;

use super::records::{Circ, Spec, actor, single_records};
use crate::{
    ApiError, AppState,
    extract::{Body, Caller, ListParams, blocking},
};

spec!(
    LOAN_POLICIES,
    "/loan-policy-storage/loan-policies",
    "loanPolicies",
    "circulation-storage.loan-policies"
);
spec!(
    REQUEST_POLICIES,
    "/request-policy-storage/request-policies",
    "requestPolicies",
    "circulation-storage.request-policies"
);
spec!(
    NOTICE_POLICIES,
    "/patron-notice-policy-storage/patron-notice-policies",
    "patronNoticePolicies",
    "circulation-storage.patron-notice-policies"
);
spec!(
    OVERDUE_FINE_POLICIES,
    "/overdue-fines-policies",
    "overdueFinePolicies",
    "overdue-fines-policies"
);
spec!(
    LOST_ITEM_FEE_POLICIES,
    "/lost-item-fees-policies",
    "lostItemFeePolicies",
    "lost-item-fees-policies"
);
spec!(
    SCHEDULES,
    "/fixed-due-date-schedule-storage/fixed-due-date-schedules",
    "fixedDueDateSchedules",
    "circulation-storage.fixed-due-date-schedules"
);
spec!(LOANS, "/loan-storage/loans", "loans", "circulation-storage.loans");
spec!(REQUESTS, "/request-storage/requests", "requests", "circulation-storage.requests");
spec!(ACCOUNTS, "/accounts", "accounts", "accounts");
spec!(MANUAL_BLOCKS, "/manualblocks", "manualblocks", "manualblocks");
spec!(CONDITIONS, "/patron-block-conditions", "patronBlockConditions", "patron-block-conditions");
spec!(LIMITS, "/patron-block-limits", "patronBlockLimits", "patron-block-limits");
spec!(CHECK_INS, "/check-in-storage/check-ins", "checkIns", "check-in-storage.check-ins");
spec!(
    STAFF_SLIPS,
    "/staff-slips-storage/staff-slips",
    "staffSlips",
    "circulation-storage.staff-slips"
);

pub(super) fn router() -> Router<AppState> {
    use circ::model::*;
    Router::new()
        .merge(single_records::<Circ<LoanPolicy>>(&LOAN_POLICIES))
        .merge(single_records::<Circ<RequestPolicy>>(&REQUEST_POLICIES))
        .merge(single_records::<Circ<NoticePolicy>>(&NOTICE_POLICIES))
        .merge(single_records::<Circ<OverdueFinePolicy>>(&OVERDUE_FINE_POLICIES))
        .merge(single_records::<Circ<LostItemFeePolicy>>(&LOST_ITEM_FEE_POLICIES))
        .merge(single_records::<Circ<FixedDueDateSchedule>>(&SCHEDULES))
        .merge(single_records::<Circ<Loan>>(&LOANS))
        .merge(single_records::<Circ<Request>>(&REQUESTS))
        .merge(single_records::<Circ<Account>>(&ACCOUNTS))
        .merge(single_records::<Circ<ManualBlock>>(&MANUAL_BLOCKS))
        .merge(single_records::<Circ<PatronBlockCondition>>(&CONDITIONS))
        .merge(single_records::<Circ<PatronBlockLimit>>(&LIMITS))
        .merge(single_records::<Circ<CheckIn>>(&CHECK_INS))
        .merge(single_records::<Circ<StaffSlip>>(&STAFF_SLIPS))
        .route("/circulation/rules", get(get_rules).put(put_rules))
        .route("/circulation-rules-storage", get(get_rules).put(put_rules))
        .route("/circulation/rules/{policy}", get(lookup))
        .route("/circulation/check-out-by-barcode", post(check_out))
        .route("/circulation/check-in-by-barcode", post(check_in))
        .route("/circulation/renew-by-barcode", post(renew))
        .route("/circulation/loans", get(list_loans))
        .route("/circulation/loans/{id}", get(get_loan).put(put_loan).delete(delete_loan))
        .route("/circulation/loans/{id}/{action}", post(loan_action))
        .route("/circulation/requests", get(list_requests).post(create_request))
        .route("/circulation/requests/{id}", get(get_request).put(put_request))
        .route("/automated-patron-blocks/{user_id}", get(automated_blocks))
}

async fn get_rules(caller: Caller) -> Result<Response, ApiError> {
    caller.require("circulation.rules.get")?;
    let tenant = caller.tenant.clone();
    let document = blocking(move || Ok(tenant.read(circ::get_rules)?)).await?;
    Ok(super::json::value(StatusCode::OK, &document))
}

async fn put_rules(caller: Caller, Body(body): Body) -> Result<Response, ApiError> {
    caller.require("circulation.rules.put")?;
    let document: circ::RulesDocument = folio::decode(&body)?;
    let tenant = caller.tenant.clone();
    let actor = actor(&caller);
    blocking(move || Ok(tenant.write(|w| circ::put_rules(w, &document.rules_as_text, actor))?))
        .await?;
    // The rules cache notices the new version on its next use; nothing to invalidate.
    Ok(super::no_content())
}

/// `/circulation/rules/loan-policy?item_type_id&loan_type_id&patron_type_id&location_id`
/// and the other kinds, with `-all` for every matching rule.
async fn lookup(
    State(state): State<AppState>,
    caller: Caller,
    Path(policy): Path<String>,
    params: ListParams,
) -> Result<Response, ApiError> {
    caller.require("circulation.rules.get")?;
    let (name, all) = match policy.strip_suffix("-all") {
        Some(name) => (name, true),
        None => (policy.as_str(), false),
    };
    let (kind, id_key) = match name {
        "loan-policy" => (circ::PolicyKind::Loan, "loanPolicyId"),
        "request-policy" => (circ::PolicyKind::Request, "requestPolicyId"),
        "notice-policy" => (circ::PolicyKind::Notice, "noticePolicyId"),
        "overdue-fine-policy" => (circ::PolicyKind::OverdueFine, "overdueFinePolicyId"),
        "lost-item-policy" => (circ::PolicyKind::LostItem, "lostItemPolicyId"),
        _ => return Err(ApiError::not_found("No such endpoint")),
    };
    let (item_type, loan_type, patron_type, location) = (
        params.require("item_type_id")?,
        params.require("loan_type_id")?,
        params.require("patron_type_id")?,
        params.require("location_id")?,
    );
    let cache = state.runtime.circulation_rules(caller.tenant.name());
    let tenant = caller.tenant.clone();
    let body = blocking(move || {
        Ok(tenant.read(|r| -> Result<serde_json::Value, circ::Error> {
            let rules = cache.get(r)?;
            let inputs =
                circ::RuleInputs::from_ids(r, item_type, loan_type, patron_type, location)?;
            if all {
                let matches = circ::lookup_all(&rules, kind, &inputs)?;
                let list: Vec<_> = matches
                    .iter()
                    .map(|m| json!({id_key: m.policy_id, "circulationRuleLine": m.line}))
                    .collect();
                Ok(json!({"circulationRuleMatches": list}))
            } else {
                let m = circ::lookup(&rules, kind, &inputs)?;
                Ok(json!({id_key: m.policy_id, "appliedRuleConditions": {
                    "materialTypeMatch": m.conditions.material_type,
                    "loanTypeMatch": m.conditions.loan_type,
                    "patronGroupMatch": m.conditions.patron_group}}))
            }
        })?)
    })
    .await?;
    Ok(super::json::value(StatusCode::OK, &body))
}

async fn check_out(
    State(state): State<AppState>,
    caller: Caller,
    Body(body): Body,
) -> Result<Response, ApiError> {
    caller.require("circulation.check-out-by-barcode.post")?;
    let request: circ::CheckOutRequest = folio::decode(&body)?;
    let cache = state.runtime.circulation_rules(caller.tenant.name());
    let tenant = caller.tenant.clone();
    let actor = actor(&caller);
    let standing = caller.standing.clone();
    let may_override =
        move |block: circ::OverridableBlock| standing.permissions.contains(block.permission());
    // The view is read inside the write transaction: the writer's page cache is warm,
    // where a fresh read transaction would start cold after this very commit.
    let view = blocking(move || {
        Ok(tenant.write(|w| {
            // Its writes ride with the next read, on PostgreSQL: a failed one (none
            // should, under the tenant's lock) fails the check-out as it would have.
            w.defer_writes();
            circ::check_out(w, &cache, request, &may_override, actor, Utc::now())?.view(w)
        })?)
    })
    .await?;
    let id = view.id().map(|id| id.to_string()).unwrap_or_default();
    let body = serde_json::to_string(&view).map_err(ApiError::internal)?;
    Ok(super::json::created(format!("/circulation/loans/{id}"), body))
}

async fn check_in(caller: Caller, Body(body): Body) -> Result<Response, ApiError> {
    caller.require("circulation.check-in-by-barcode.post")?;
    let request: circ::CheckInRequest = folio::decode(&body)?;
    let tenant = caller.tenant.clone();
    let actor = actor(&caller);
    let body = blocking(move || {
        Ok(tenant.write(|w| {
            w.defer_writes();
            circ::check_in(w, request, actor, Utc::now())?.view(w)
        })?)
    })
    .await?;
    Ok(super::json::value(StatusCode::OK, &body))
}

async fn renew(
    State(state): State<AppState>,
    caller: Caller,
    Body(body): Body,
) -> Result<Response, ApiError> {
    caller.require("circulation.renew-by-barcode.post")?;
    let request: circ::RenewRequest = folio::decode(&body)?;
    let cache = state.runtime.circulation_rules(caller.tenant.name());
    let tenant = caller.tenant.clone();
    let actor = actor(&caller);
    let standing = caller.standing.clone();
    let may_override =
        move |block: circ::OverridableBlock| standing.permissions.contains(block.permission());
    let view = blocking(move || {
        Ok(tenant.write(|w| {
            let loan = circ::renew(w, &cache, request, &may_override, actor, Utc::now())?;
            circ::loan_view(w, loan)
        })?)
    })
    .await?;
    Ok(super::json::value(StatusCode::OK, &view))
}

async fn list_loans(caller: Caller, params: ListParams) -> Result<Response, ApiError> {
    caller.require("circulation.loans.collection.get")?;
    let tenant = caller.tenant.clone();
    let (views, total) = blocking(move || {
        Ok(tenant.read(|r| circ::list_loan_views(r, params.query.as_deref(), params.page))?)
    })
    .await?;
    Ok(super::json::value(StatusCode::OK, &json!({"loans": views, "totalRecords": total})))
}

async fn get_loan(caller: Caller, Path(id): Path<String>) -> Result<Response, ApiError> {
    caller.require("circulation.loans.item.get")?;
    let id = super::authn::parse_uuid(&id)?;
    let tenant = caller.tenant.clone();
    let view = blocking(move || {
        Ok(tenant.read(|r| -> Result<_, circ::Error> {
            let loan = circ::get::<circ::model::Loan>(r, id)?
                .ok_or(circ::Error::NotFound { record_type: "loan", id: id.to_string() })?;
            circ::loan_view(r, loan.record)
        })?)
    })
    .await?;
    Ok(super::json::value(StatusCode::OK, &view))
}

async fn put_loan(
    caller: Caller,
    Path(id): Path<String>,
    Body(body): Body,
) -> Result<Response, ApiError> {
    caller.require("circulation.loans.item.put")?;
    let id = super::authn::parse_uuid(&id)?;
    let loan: circ::model::Loan = circ::decode(&body)?;
    let tenant = caller.tenant.clone();
    let actor = actor(&caller);
    blocking(move || Ok(tenant.write(|w| circ::replace(w, id, loan, actor))?)).await?;
    Ok(super::no_content())
}

async fn delete_loan(caller: Caller, Path(id): Path<String>) -> Result<Response, ApiError> {
    caller.require("circulation.loans.item.delete")?;
    let id = super::authn::parse_uuid(&id)?;
    let tenant = caller.tenant.clone();
    blocking(move || Ok(tenant.write(|w| circ::delete::<circ::model::Loan>(w, id))?)).await?;
    Ok(super::no_content())
}

/// `POST /circulation/loans/{id}/{action}`: change-due-date, declare-item-lost,
/// claim-item-returned, declare-claimed-returned-item-as-missing (204 when done).
async fn loan_action(
    caller: Caller,
    Path((id, action)): Path<(String, String)>,
    Body(body): Body,
) -> Result<Response, ApiError> {
    let known = [
        "change-due-date",
        "declare-item-lost",
        "claim-item-returned",
        "declare-claimed-returned-item-as-missing",
    ];
    if !known.contains(&action.as_str()) {
        return Err(ApiError::not_found(format!("No such loan action: {action}")));
    }
    caller.require(&format!("circulation.loans.{action}.post"))?;
    let id = super::authn::parse_uuid(&id)?;
    let tenant = caller.tenant.clone();
    let actor = actor(&caller);
    blocking(move || {
        let now = Utc::now();
        Ok(tenant.write(|w| match action.as_str() {
            "change-due-date" => circ::change_due_date(w, id, folio::decode(&body)?, actor),
            "declare-item-lost" => {
                circ::declare_item_lost(w, id, folio::decode(&body)?, actor, now)
            }
            "claim-item-returned" => {
                circ::claim_item_returned(w, id, folio::decode(&body)?, actor, now)
            }
            _ => circ::declare_claimed_returned_item_as_missing(
                w,
                id,
                folio::decode(&body)?,
                actor,
                now,
            ),
        })?)
    })
    .await?;
    Ok(super::no_content())
}

async fn list_requests(caller: Caller, params: ListParams) -> Result<Response, ApiError> {
    caller.require("circulation.requests.collection.get")?;
    let tenant = caller.tenant.clone();
    let (views, total) = blocking(move || {
        Ok(tenant.read(|r| circ::list_request_views(r, params.query.as_deref(), params.page))?)
    })
    .await?;
    Ok(super::json::value(StatusCode::OK, &json!({"requests": views, "totalRecords": total})))
}

async fn get_request(caller: Caller, Path(id): Path<String>) -> Result<Response, ApiError> {
    caller.require("circulation.requests.item.get")?;
    let id = super::authn::parse_uuid(&id)?;
    let tenant = caller.tenant.clone();
    let view = blocking(move || {
        Ok(tenant.read(|r| -> Result<_, circ::Error> {
            let request = circ::get::<circ::model::Request>(r, id)?
                .ok_or(circ::Error::NotFound { record_type: "request", id: id.to_string() })?;
            circ::request_view(r, &request)
        })?)
    })
    .await?;
    Ok(super::json::value(StatusCode::OK, &view))
}

async fn create_request(
    State(state): State<AppState>,
    caller: Caller,
    Body(body): Body,
) -> Result<Response, ApiError> {
    caller.require("circulation.requests.item.post")?;
    let request: circ::model::Request = circ::decode(&body)?;
    let cache = state.runtime.circulation_rules(caller.tenant.name());
    let tenant = caller.tenant.clone();
    let actor = actor(&caller);
    let view = blocking(move || {
        let request =
            tenant.write(|w| circ::create_request(w, &cache, request, actor, Utc::now()))?;
        Ok(tenant.read(|r| circ::request_view(r, &request))?)
    })
    .await?;
    let id = view.id().map(|id| id.to_string()).unwrap_or_default();
    let body = serde_json::to_string(&view).map_err(ApiError::internal)?;
    Ok(super::json::created(format!("/circulation/requests/{id}"), body))
}

async fn put_request(
    caller: Caller,
    Path(id): Path<String>,
    Body(body): Body,
) -> Result<Response, ApiError> {
    caller.require("circulation.requests.item.put")?;
    let id = super::authn::parse_uuid(&id)?;
    let request: circ::model::Request = circ::decode(&body)?;
    let tenant = caller.tenant.clone();
    let actor = actor(&caller);
    blocking(move || {
        Ok(tenant.write(|w| circ::replace_request(w, id, request, actor, Utc::now()))?)
    })
    .await?;
    Ok(super::no_content())
}

async fn automated_blocks(
    caller: Caller,
    Path(user_id): Path<String>,
) -> Result<Response, ApiError> {
    caller.require("automated-patron-blocks.collection.get")?;
    let user_id = super::authn::parse_uuid(&user_id)?;
    let tenant = caller.tenant.clone();
    let blocks = blocking(move || {
        Ok(tenant.read(|r| -> Result<_, circ::Error> {
            let group = auth::get_user(r, user_id)?.and_then(|u| u.patron_group);
            circ::automated_blocks(r, user_id, group, Utc::now())
        })?)
    })
    .await?;
    Ok(super::json::value(StatusCode::OK, &json!({"automatedPatronBlocks": blocks})))
}
