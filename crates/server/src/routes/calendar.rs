//! Service point calendars (FOLIO mod-calendar, interface 5.0):
//! - `GET /calendar/calendars?id&servicePointId&startDate&endDate&offset&limit`, `POST`
//! - `GET`, `PUT`, `DELETE /calendar/calendars/{id}`
//! - `GET /calendar/dates/{servicePointId}/surrounding-openings?date`
//! - `GET /calendar/dates/{servicePointId}/all-openings?startDate&endDate&includeClosed&offset&limit`

use axum::{
    Router,
    extract::{Path, RawQuery},
    http::StatusCode,
    response::Response,
    routing::get,
};
use chrono::NaiveDate;
use uuid::Uuid;

use crate::{
    ApiError, AppState,
    extract::{Body, Caller, blocking},
};

pub(super) fn router() -> Router<AppState> {
    Router::new()
        .route("/calendar/calendars", get(list).post(create))
        .route("/calendar/calendars/{id}", get(get_one).put(replace).delete(delete))
        .route("/calendar/dates/{service_point}/surrounding-openings", get(surrounding))
        .route("/calendar/dates/{service_point}/all-openings", get(all_openings))
}

/// The query's parameters; `id` and `servicePointId` may repeat.
struct Params(Vec<(String, String)>);

impl Params {
    fn new(query: Option<String>) -> Params {
        Params(form_urlencoded::parse(query.unwrap_or_default().as_bytes()).into_owned().collect())
    }

    fn all(&self, name: &str) -> Vec<&str> {
        self.0.iter().filter(|(k, _)| k == name).map(|(_, v)| v.as_str()).collect()
    }

    fn one(&self, name: &str) -> Option<&str> {
        self.all(name).into_iter().next()
    }

    fn uuids(&self, name: &str) -> Result<Vec<Uuid>, ApiError> {
        self.all(name)
            .into_iter()
            .map(|v| {
                v.parse()
                    .map_err(|_| ApiError::bad_parameter(name, v, format!("{name} must be a UUID")))
            })
            .collect()
    }

    fn date(&self, name: &str) -> Result<Option<NaiveDate>, ApiError> {
        self.one(name)
            .map(|v| {
                v.parse().map_err(|_| {
                    ApiError::bad_parameter(name, v, format!("{name} must be a date (YYYY-MM-DD)"))
                })
            })
            .transpose()
    }

    /// A paging parameter, in FOLIO's range and words.
    fn number(&self, name: &str, default: usize) -> Result<usize, ApiError> {
        self.one(name).map_or(Ok(default), |v| Ok(crate::extract::parse_count(name, v)? as usize))
    }
}

async fn list(caller: Caller, RawQuery(query): RawQuery) -> Result<Response, ApiError> {
    caller.require("calendar.view")?;
    let params = Params::new(query);
    let (ids, points) = (params.uuids("id")?, params.uuids("servicePointId")?);
    let (start, end) = (params.date("startDate")?, params.date("endDate")?);
    let (offset, limit) = (params.number("offset", 0)?, params.number("limit", 10)?);
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

/// The hours of the service point in the path, and the query's parameters.
async fn timetable(
    caller: &Caller,
    service_point: &str,
    query: Option<String>,
) -> Result<(calendar::Timetable, Params), ApiError> {
    caller.require("calendar.view")?;
    let service_point = super::authn::parse_uuid(service_point)?;
    let tenant = caller.tenant.clone();
    let hours =
        blocking(move || Ok(tenant.read(|r| calendar::timetable(r, service_point))?)).await?;
    Ok((hours, Params::new(query)))
}

async fn surrounding(
    caller: Caller,
    Path(service_point): Path<String>,
    RawQuery(query): RawQuery,
) -> Result<Response, ApiError> {
    let (hours, params) = timetable(&caller, &service_point, query).await?;
    let date = params
        .date("date")?
        .ok_or_else(|| ApiError::bad_request("The date parameter is required (YYYY-MM-DD)"))?;
    Ok(super::json::value(
        StatusCode::OK,
        &serde_json::json!({"openings": hours.surrounding(date)}),
    ))
}

async fn all_openings(
    caller: Caller,
    Path(service_point): Path<String>,
    RawQuery(query): RawQuery,
) -> Result<Response, ApiError> {
    let (hours, params) = timetable(&caller, &service_point, query).await?;
    let missing = |name: &str| {
        ApiError::bad_request(format!("The {name} parameter is required (YYYY-MM-DD)"))
    };
    let start = params.date("startDate")?.ok_or_else(|| missing("startDate"))?;
    let end = params.date("endDate")?.ok_or_else(|| missing("endDate"))?;
    let include_closed = params.one("includeClosed").is_some_and(|v| v == "true");
    let (offset, limit) = (params.number("offset", 0)?, params.number("limit", 10)?);
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
