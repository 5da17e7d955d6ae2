//! The rules MARC records are mapped to inventory records with, as
//! mod-source-record-manager serves them (see `mapping::replace_rules`):
//!
//! - `GET|PUT /mapping-rules/{marc-bib|marc-holdings|marc-authority}` (PUT: bib and
//!   holdings only; the body is a whole rule set, and the answer is the stored one)
//! - `PUT /mapping-rules/{type}/restore`: back to the defaults

use axum::{
    Router, extract::Path, http::StatusCode, response::Response, routing::get, routing::put,
};

use crate::{
    ApiError, AppState,
    extract::{Body, Caller, blocking},
};

pub(super) fn router() -> Router<AppState> {
    Router::new()
        .route("/mapping-rules/{record_type}", get(get_rules).put(put_rules))
        .route("/mapping-rules/{record_type}/restore", put(restore))
}

/// The record type a path names, with FOLIO's message for any other.
fn record_type(path: &str, editing: bool) -> Result<mapping::RecordType, ApiError> {
    mapping::RecordType::from_path(path).ok_or_else(|| {
        ApiError::bad_request(if editing {
            "Only marc-bib or marc-holdings supported"
        } else {
            "Only marc-bib, marc-holdings or marc-authority supported"
        })
    })
}

async fn get_rules(caller: Caller, Path(path): Path<String>) -> Result<Response, ApiError> {
    caller.require("mapping-rules.get")?;
    let record_type = record_type(&path, false)?;
    let tenant = caller.tenant.clone();
    let json = blocking(move || Ok(tenant.read(|r| mapping::rules_json(r, record_type))?)).await?;
    Ok(super::json::raw(StatusCode::OK, json))
}

async fn put_rules(
    caller: Caller,
    Path(path): Path<String>,
    Body(body): Body,
) -> Result<Response, ApiError> {
    caller.require("mapping-rules.update")?;
    let record_type = record_type(&path, true)?;
    let tenant = caller.tenant.clone();
    let json =
        blocking(move || Ok(tenant.write(|w| mapping::replace_rules(w, record_type, &body))?))
            .await?;
    Ok(super::json::raw(StatusCode::OK, json))
}

async fn restore(caller: Caller, Path(path): Path<String>) -> Result<Response, ApiError> {
    caller.require("mapping-rules.restore")?;
    let record_type = record_type(&path, true)?;
    let tenant = caller.tenant.clone();
    let json =
        blocking(move || Ok(tenant.write(|w| mapping::restore_defaults(w, record_type))?)).await?;
    Ok(super::json::raw(StatusCode::OK, json))
}
