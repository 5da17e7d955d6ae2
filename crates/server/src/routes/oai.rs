//! OAI-PMH, as FOLIO exposes it (see the `oai` crate for the protocol):
//!
//! - the edge API, `GET|POST /oai` and `/oai/{apiKeyPath}`: the API key from the
//!   `apikey` argument, the `Authorization` header (`apikey KEY` or the bare key) or the
//!   path, in that order, as edge-oai-pmh reads it; `/oai/records?apikey=...` works too;
//! - the module API, `GET|POST /oai/records` with a token and `X-Okapi-Tenant`.
//!
//! POST takes its arguments as a form (`application/x-www-form-urlencoded`). A client
//! whose `Accept` admits no XML gets 406, as from the edge; with the service switched
//! off in the settings, every request gets 503.
//!
//! And FOLIO's settings: `GET|POST /oai-pmh/configuration-settings` (`?name=`),
//! `GET|PUT|DELETE /oai-pmh/configuration-settings/{id}`; sets defined by a query:
//! `GET|POST /oai-pmh/sets`, `GET|PUT|DELETE /oai-pmh/sets/{id}`.

use axum::{
    Router,
    extract::{Path, RawQuery, State},
    http::{HeaderMap, HeaderValue, Method, StatusCode, header},
    response::{IntoResponse, Response},
    routing::get,
};
use serde_json::json;
use uuid::Uuid;

use crate::{
    ApiError, AppState,
    extract::{Body, Caller, ListParams, blocking, form_pairs, in_background},
};

pub(super) fn router() -> Router<AppState> {
    // Harvest pages are compressed when the harvester asks (`Accept-Encoding`), as
    // Identify declares: MARCXML shrinks about tenfold.
    let harvest = Router::new()
        .route("/oai", get(without_path).post(without_path))
        .route("/oai/{key_path}", get(with_path).post(with_path))
        .layer(tower_http::compression::CompressionLayer::new());
    Router::new()
        .merge(harvest)
        .route("/oai-pmh/configuration-settings", get(list_settings).post(create_setting))
        .route(
            "/oai-pmh/configuration-settings/{id}",
            get(get_setting).put(replace_setting).delete(delete_setting),
        )
        .route("/oai-pmh/sets", get(list_sets).post(create_set))
        .route("/oai-pmh/sets/{id}", get(get_set).put(replace_set).delete(delete_set))
}

/// A set's members, from the tenant's instance search index, opened only when a
/// request names a set: a harvest of everything never touches it.
struct SearchMembers {
    state: AppState,
    tenant: std::sync::Arc<store::Tenant>,
}

impl oai::Members for SearchMembers {
    fn members(&self, query: &str) -> Result<std::collections::HashSet<Uuid>, String> {
        let index = self.state.runtime.instances(&self.tenant).map_err(|e| e.to_string())?;
        let mut ids = std::collections::HashSet::new();
        index
            .stream_ids(query, |id| {
                ids.insert(id);
                std::ops::ControlFlow::Continue(())
            })
            .map_err(|e| e.to_string())?;
        Ok(ids)
    }
}

fn members(state: &AppState, tenant: &std::sync::Arc<store::Tenant>) -> SearchMembers {
    SearchMembers { state: state.clone(), tenant: tenant.clone() }
}

async fn without_path(
    state: State<AppState>,
    method: Method,
    headers: HeaderMap,
    query: RawQuery,
    body: Body,
) -> Result<Response, ApiError> {
    harvest(state, None, method, headers, query, body).await
}

async fn with_path(
    state: State<AppState>,
    Path(key_path): Path<String>,
    method: Method,
    headers: HeaderMap,
    query: RawQuery,
    body: Body,
) -> Result<Response, ApiError> {
    harvest(state, Some(key_path), method, headers, query, body).await
}

async fn harvest(
    State(state): State<AppState>,
    key_path: Option<String>,
    method: Method,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
    Body(body): Body,
) -> Result<Response, ApiError> {
    if !accepts_xml(&headers) {
        return Ok((
            StatusCode::NOT_ACCEPTABLE,
            "The Accept header admits no XML: send Accept: text/xml",
        )
            .into_response());
    }
    let mut args = form_pairs(query.as_deref().unwrap_or(""));
    if method == Method::POST {
        args.extend(form_pairs(&String::from_utf8_lossy(&body)));
    }
    // The key is the edge's, not an OAI-PMH argument.
    let key_arg = args.iter().position(|(k, _)| k == "apikey").map(|i| args.remove(i).1);
    let module_api = key_path.as_deref() == Some("records");
    let key = key_arg
        .or_else(|| authorization_key(&headers))
        .or_else(|| key_path.clone().filter(|_| !module_api));
    let (tenant, tenant_name) = match key {
        Some(text) => {
            let key = oai::ApiKey::parse(&text)
                .ok_or_else(|| ApiError::unauthorized("Invalid API Key"))?;
            let tenant = state
                .store()
                .tenant(&key.tenant)
                .map_err(|_| ApiError::unauthorized("Invalid API Key"))?;
            let checked = tenant.clone();
            let issued = blocking(move || Ok(checked.read(|r| oai::is_issued(r, &key))?)).await?;
            if !issued {
                return Err(ApiError::unauthorized("Invalid API Key"));
            }
            let name = tenant.name().to_string();
            (tenant, name)
        }
        None if module_api => {
            let caller = caller(&state, &headers).await?;
            caller.require("oai-pmh.records.collection.get")?;
            let name = caller.tenant.name().to_string();
            (caller.tenant, name)
        }
        None => return Err(ApiError::unauthorized("Missing API Key")),
    };
    let base_url = base_url(&headers, key_path.as_deref());
    let now = chrono::Utc::now().timestamp();
    // Checked and prepared (which may write the harvest index) at ordinary priority;
    // the page, read only, built in the background so the desk goes first.
    let prepared = blocking(move || {
        let repository = tenant.read(|r| oai::repository(r, &base_url))?;
        if !repository.enabled {
            return Ok(None);
        }
        let prepared = oai::prepare(&tenant, &tenant_name, &args, now)?;
        Ok(Some((tenant, tenant_name, repository, prepared)))
    })
    .await?;
    let response = match prepared {
        None => None,
        Some((tenant, tenant_name, repository, prepared)) => Some(
            in_background(move || {
                let members = members(&state, &tenant);
                Ok(oai::respond(&tenant, &tenant_name, &repository, &prepared, &members)?)
            })
            .await?,
        ),
    };
    let Some(response) = response else {
        return Ok((StatusCode::SERVICE_UNAVAILABLE, "OAI-PMH service is disabled").into_response());
    };
    let mut out = (StatusCode::from_u16(response.status).unwrap_or(StatusCode::OK), response.body)
        .into_response();
    out.headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static("text/xml;charset=UTF-8"));
    Ok(out)
}

/// The module API's caller, authenticated as any other request.
async fn caller(state: &AppState, headers: &HeaderMap) -> Result<Caller, ApiError> {
    use axum::extract::FromRequestParts;
    let mut request = axum::http::Request::new(());
    *request.headers_mut() = headers.clone();
    let (mut parts, ()) = request.into_parts();
    Caller::from_request_parts(&mut parts, state).await
}

/// The key in `Authorization`: `apikey KEY` or the key alone (not a bearer token).
fn authorization_key(headers: &HeaderMap) -> Option<String> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?.trim();
    if value.starts_with("Bearer ") || value.starts_with("bearer ") {
        return None;
    }
    let key =
        value.strip_prefix("apikey ").or_else(|| value.strip_prefix("apiKey ")).unwrap_or(value);
    Some(key.trim().to_string())
}

/// Whether `Accept` admits XML: none given, or a `(text|*)/(xml|*)` among its types.
fn accepts_xml(headers: &HeaderMap) -> bool {
    let Some(accept) = headers.get(header::ACCEPT).and_then(|v| v.to_str().ok()) else {
        return true;
    };
    accept.split(',').any(|part| {
        let media = part.split(';').next().unwrap_or("").trim();
        let (kind, sub) = media.split_once('/').unwrap_or((media, ""));
        matches!(kind, "text" | "*") && matches!(sub, "xml" | "*")
    })
}

/// The URL the harvester asked, as the repository's base URL (what `<request>` echoes
/// and identifiers take their host from).
fn base_url(headers: &HeaderMap, key_path: Option<&str>) -> String {
    let host = headers.get(header::HOST).and_then(|v| v.to_str().ok()).unwrap_or("localhost");
    match key_path {
        Some(path) => format!("http://{host}/oai/{path}"),
        None => format!("http://{host}/oai"),
    }
}

async fn list_settings(caller: Caller, params: ListParams) -> Result<Response, ApiError> {
    caller.require("oai-pmh.configuration-settings.collection.get")?;
    let name: Option<String> = params.get("name")?;
    let page = params.page;
    let tenant = caller.tenant.clone();
    let all = blocking(move || Ok(tenant.read(|r| oai::configuration::list(r, name.as_deref()))?))
        .await?;
    let total = all.len();
    let page: Vec<_> =
        all.into_iter().skip(page.offset as usize).take(page.limit as usize).collect();
    Ok(super::json::value(
        StatusCode::OK,
        &json!({"configurationSettings": page, "totalRecords": total}),
    ))
}

async fn get_setting(caller: Caller, Path(id): Path<Uuid>) -> Result<Response, ApiError> {
    caller.require("oai-pmh.configuration-settings.item.get")?;
    let tenant = caller.tenant.clone();
    let setting = blocking(move || Ok(tenant.read(|r| oai::configuration::get(r, id))?)).await?;
    Ok(super::json::value(StatusCode::OK, &setting))
}

async fn create_setting(caller: Caller, Body(body): Body) -> Result<Response, ApiError> {
    caller.require("oai-pmh.configuration-settings.item.post")?;
    let setting: oai::Setting = folio::decode(&body)?;
    let tenant = caller.tenant.clone();
    let created =
        blocking(move || Ok(tenant.write(|w| oai::configuration::create(w, setting))?)).await?;
    let id = created.id.unwrap_or_default();
    let body = serde_json::to_string(&created).map_err(ApiError::internal)?;
    Ok(super::json::created(format!("/oai-pmh/configuration-settings/{id}"), body))
}

async fn replace_setting(
    caller: Caller,
    Path(id): Path<Uuid>,
    Body(body): Body,
) -> Result<Response, ApiError> {
    caller.require("oai-pmh.configuration-settings.item.put")?;
    let setting: oai::Setting = folio::decode(&body)?;
    let tenant = caller.tenant.clone();
    blocking(move || Ok(tenant.write(|w| oai::configuration::replace(w, id, setting))?)).await?;
    Ok(super::no_content())
}

async fn delete_setting(caller: Caller, Path(id): Path<Uuid>) -> Result<Response, ApiError> {
    caller.require("oai-pmh.configuration-settings.item.delete")?;
    let tenant = caller.tenant.clone();
    blocking(move || Ok(tenant.write(|w| oai::configuration::delete(w, id))?)).await?;
    Ok(super::no_content())
}

async fn list_sets(caller: Caller) -> Result<Response, ApiError> {
    caller.require("oai-pmh.sets.collection.get")?;
    let tenant = caller.tenant.clone();
    let sets = blocking(move || Ok(tenant.read(oai::set_definitions::list)?)).await?;
    let total = sets.len();
    Ok(super::json::value(StatusCode::OK, &json!({"sets": sets, "totalRecords": total})))
}

async fn get_set(caller: Caller, Path(id): Path<Uuid>) -> Result<Response, ApiError> {
    caller.require("oai-pmh.sets.item.get")?;
    let tenant = caller.tenant.clone();
    let set = blocking(move || Ok(tenant.read(|r| oai::set_definitions::get(r, id))?)).await?;
    Ok(super::json::value(StatusCode::OK, &set))
}

async fn create_set(
    State(state): State<AppState>,
    caller: Caller,
    Body(body): Body,
) -> Result<Response, ApiError> {
    caller.require("oai-pmh.sets.item.post")?;
    let set: oai::Set = folio::decode(&body)?;
    let tenant = caller.tenant.clone();
    let created = blocking(move || {
        let members = members(&state, &tenant);
        Ok(tenant.write(|w| oai::set_definitions::create(w, set, &members))?)
    })
    .await?;
    let id = created.id.unwrap_or_default();
    let body = serde_json::to_string(&created).map_err(ApiError::internal)?;
    Ok(super::json::created(format!("/oai-pmh/sets/{id}"), body))
}

async fn replace_set(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<Uuid>,
    Body(body): Body,
) -> Result<Response, ApiError> {
    caller.require("oai-pmh.sets.item.put")?;
    let set: oai::Set = folio::decode(&body)?;
    let tenant = caller.tenant.clone();
    blocking(move || {
        let members = members(&state, &tenant);
        Ok(tenant.write(|w| oai::set_definitions::replace(w, id, set, &members))?)
    })
    .await?;
    Ok(super::no_content())
}

async fn delete_set(caller: Caller, Path(id): Path<Uuid>) -> Result<Response, ApiError> {
    caller.require("oai-pmh.sets.item.delete")?;
    let tenant = caller.tenant.clone();
    blocking(move || Ok(tenant.write(|w| oai::set_definitions::delete(w, id))?)).await?;
    Ok(super::no_content())
}
