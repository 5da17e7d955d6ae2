//! Service point calendars (FOLIO mod-calendar, interface 5.0):
//! - `GET /calendar/calendars?id&servicePointId&startDate&endDate&offset&limit`, `POST`
//! - `GET`, `PUT`, `DELETE /calendar/calendars/{id}`
//! - `GET /calendar/dates/{servicePointId}/surrounding-openings?date`
//! - `GET /calendar/dates/{servicePointId}/all-openings?startDate&endDate&includeClosed&offset&limit`

use axum::{Router, extract::Path, http::StatusCode, response::Response, routing::get};
use chrono::NaiveDate;
use uuid::Uuid;

use crate::{
    ApiError, AppState,
    extract::{Body, Caller, ListParams, blocking},
};

pub(super) fn router() -> Router<AppState> {
    Router::new()
        .route("/calendar/calendars", get(list).post(create))
        .route("/calendar/calendars/{id}", get(get_one).put(replace).delete(delete))
        .route("/calendar/dates/{service_point}/surrounding-openings", get(surrounding))
        .route("/calendar/dates/{service_point}/all-openings", get(all_openings))
}

async fn list(caller: Caller, params: ListParams) -> Result<Response, ApiError> {
    caller.require("calendar.view")?;
    let (ids, points) = (params.get_all::<Uuid>("id")?, params.get_all::<Uuid>("servicePointId")?);
    let (start, end) = (params.get::<NaiveDate>("startDate")?, params.get("endDate")?);
    let (offset, limit) = page(&params);
    let tenant = caller.tenant.clone();
    let calendars = blocking(move || Ok(tenant.read(calendar::all)?)).await?;
    let matching: Vec<&calendar::Calendar> = calendars
        .iter()
        .filter(|c| ids.is_empty() || c.id.is_some_and(|id| ids.contains(&id)))
        .filter(|c| points.is_empty() || c.assignments.iter().any(|sp| points.contains(sp)))
        .filter(|c| start.is_none_or(|s| c.end_date >= s) && end.is_none_or(|e| c.start_date <= e))
        .collect();
    let page: Vec<_> = matching.iter().skip(offset).take(limit).collect();
    Ok(super::json::value(
        StatusCode::OK,
        &serde_json::json!({"calendars": page, "totalRecords": matching.len()}),
    ))
}

async fn get_one(caller: Caller, Path(id): Path<String>) -> Result<Response, ApiError> {
    caller.require("calendar.view")?;
    let id = super::authn::parse_uuid(&id)?;
    let tenant = caller.tenant.clone();
    let found = blocking(move || Ok(tenant.read(|r| calendar::get(r, id))?)).await?;
    Ok(super::json::value(StatusCode::OK, &found))
}

async fn create(caller: Caller, Body(body): Body) -> Result<Response, ApiError> {
    caller.require("calendar.create")?;
    let new = calendar::decode(&body)?;
    let tenant = caller.tenant.clone();
    let actor = super::records::actor(&caller);
    let created = blocking(move || Ok(tenant.write(|w| calendar::create(w, new, actor))?)).await?;
    let id = created.id.map(|id| id.to_string()).unwrap_or_default();
    let json = serde_json::to_string(&created).map_err(ApiError::internal)?;
    Ok(super::json::created(format!("/calendar/calendars/{id}"), json))
}

async fn replace(
    caller: Caller,
    Path(id): Path<String>,
    Body(body): Body,
) -> Result<Response, ApiError> {
    caller.require("calendar.update")?;
    let id = super::authn::parse_uuid(&id)?;
    let changed = calendar::decode(&body)?;
    let tenant = caller.tenant.clone();
    let actor = super::records::actor(&caller);
    let saved =
        blocking(move || Ok(tenant.write(|w| calendar::replace(w, id, changed, actor))?)).await?;
    // mod-calendar answers a PUT with the calendar as saved.
    Ok(super::json::value(StatusCode::OK, &saved))
}

async fn delete(caller: Caller, Path(id): Path<String>) -> Result<Response, ApiError> {
    caller.require("calendar.delete")?;
    let id = super::authn::parse_uuid(&id)?;
    let tenant = caller.tenant.clone();
    blocking(move || Ok(tenant.write(|w| calendar::delete(w, id))?)).await?;
    Ok(super::no_content())
}

/// mod-calendar's paging, as `usize` (the extractor keeps both within 2^31 - 1).
fn page(params: &ListParams) -> (usize, usize) {
    let as_usize = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
    (as_usize(params.page.offset), as_usize(params.page.limit))
}

/// The hours of the service point in the path.
async fn timetable(caller: &Caller, service_point: &str) -> Result<calendar::Timetable, ApiError> {
    caller.require("calendar.view")?;
    let service_point = super::authn::parse_uuid(service_point)?;
    let tenant = caller.tenant.clone();
    blocking(move || Ok(tenant.read(|r| calendar::timetable(r, service_point))?)).await
}

async fn surrounding(
    caller: Caller,
    Path(service_point): Path<String>,
    params: ListParams,
) -> Result<Response, ApiError> {
    let hours = timetable(&caller, &service_point).await?;
    let date = params
        .get::<NaiveDate>("date")?
        .ok_or_else(|| ApiError::bad_request("The date parameter is required (YYYY-MM-DD)"))?;
    Ok(super::json::value(
        StatusCode::OK,
        &serde_json::json!({"openings": hours.surrounding(date)}),
    ))
}

async fn all_openings(
    caller: Caller,
    Path(service_point): Path<String>,
    params: ListParams,
) -> Result<Response, ApiError> {
    let hours = timetable(&caller, &service_point).await?;
    let missing = |name: &str| {
        ApiError::bad_request(format!("The {name} parameter is required (YYYY-MM-DD)"))
    };
    let start = params.get::<NaiveDate>("startDate")?.ok_or_else(|| missing("startDate"))?;
    let end = params.get::<NaiveDate>("endDate")?.ok_or_else(|| missing("endDate"))?;
    let include_closed = params.all("includeClosed").any(|v| v == "true");
    let (offset, limit) = page(&params);
    // Ten years of days at most: a range beyond that is a mistake, not a request.
    if end < start || (end - start).num_days() > 3660 {
        return Err(ApiError::bad_request(
            "endDate must not be before startDate, nor more than ten years after it",
        ));
    }
    let dates: Vec<calendar::DayOpening> = hours.dates(start, end, include_closed).collect();
    let page: Vec<_> = dates.iter().skip(offset).take(limit).collect();
    Ok(super::json::value(
        StatusCode::OK,
        &serde_json::json!({"dates": page, "totalRecords": dates.len()}),
    ))
}
