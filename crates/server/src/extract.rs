//! Extractors: the tenant of a request, the authenticated caller, request bodies and
//! paging parameters, each rejecting with the FOLIO error shape.

use std::sync::Arc;

use uuid::Uuid;

use axum::{
    body::Bytes,
    extract::{FromRequest, FromRequestParts, Request},
    http::{HeaderMap, request::Parts},
};

use crate::{ApiError, AppState};

pub(crate) const TENANT_HEADER: &str = "x-okapi-tenant";
pub(crate) const TOKEN_HEADER: &str = "x-okapi-token";

/// The tenant named by `X-Okapi-Tenant`; it must exist.
pub(crate) struct TenantCtx(pub(crate) Arc<store::Tenant>);

impl FromRequestParts<AppState> for TenantCtx {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let name = tenant_header(&parts.headers)?.ok_or_else(|| {
            ApiError::bad_request(
                "Missing X-Okapi-Tenant header: every request must name its tenant",
            )
        })?;
        Ok(TenantCtx(state.store().tenant(&name)?))
    }
}

/// The tenant `X-Okapi-Tenant` names, if the header is there. A value that is not
/// printable ASCII cannot be a tenant name and is refused as such.
pub(crate) fn tenant_header(headers: &HeaderMap) -> Result<Option<String>, ApiError> {
    match headers.get(TENANT_HEADER) {
        None => Ok(None),
        Some(value) => {
            let value = value.to_str().map_err(|_| {
                let shown = String::from_utf8_lossy(value.as_bytes()).into_owned();
                ApiError::from(store::Error::InvalidTenantName(shown))
            })?;
            Ok(Some(value.trim().to_string()))
        }
    }
}

/// An authenticated request: the tenant, who is calling and what they may do.
pub(crate) struct Caller {
    pub(crate) tenant: Arc<store::Tenant>,
    pub(crate) user_id: uuid::Uuid,
    pub(crate) standing: Arc<auth::Standing>,
}

impl Caller {
    /// Fails with 403 unless the caller holds `permission`.
    pub(crate) fn require(&self, permission: &str) -> Result<(), ApiError> {
        if self.permissions().contains(permission) {
            Ok(())
        } else {
            Err(ApiError::forbidden(format!("Access requires permission: {permission}")))
        }
    }

    pub(crate) fn permissions(&self) -> &auth::PermissionSet {
        &self.standing.permissions
    }
}

impl FromRequestParts<AppState> for Caller {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let token = bearer_token(&parts.headers).ok_or_else(|| {
            ApiError::unauthorized("Missing token: send X-Okapi-Token or Authorization: Bearer (log in at /authn/login)")
        })?;
        let claims = state.key.verify(&token)?;
        if claims.token_type == auth::TokenType::Refresh {
            return Err(ApiError::unauthorized(
                "Invalid token: a refresh token cannot authorize requests",
            ));
        }
        // Like Okapi, a request without X-Okapi-Tenant takes its tenant from the token.
        let tenant_name = tenant_header(&parts.headers)?.unwrap_or_else(|| claims.tenant.clone());
        let tenant = state.store().tenant(&tenant_name)?;
        if claims.tenant != tenant_name {
            return Err(ApiError::forbidden(format!(
                "Token is for tenant {} and cannot be used for tenant {tenant_name}",
                claims.tenant
            )));
        }
        let standing = match state.runtime.standings().get(&tenant_name, claims.user_id) {
            Some(standing) => standing,
            None => {
                let (runtime, tenant, user_id) =
                    (state.runtime.clone(), tenant.clone(), claims.user_id);
                blocking(move || Ok(runtime.standings().load(&tenant, user_id)?)).await?
            }
        };
        if !standing.admits(&claims) {
            return Err(ApiError::unauthorized(
                "Invalid token: its user is inactive or deleted, or it was revoked",
            ));
        }
        Ok(Caller { tenant, user_id: claims.user_id, standing })
    }
}

/// The token from `X-Okapi-Token`, `Authorization: Bearer`, or the `folioAccessToken` cookie.
fn bearer_token(headers: &HeaderMap) -> Option<String> {
    if let Some(token) = headers.get(TOKEN_HEADER).and_then(|v| v.to_str().ok()) {
        return Some(token.trim().to_string());
    }
    if let Some(value) =
        headers.get(axum::http::header::AUTHORIZATION).and_then(|v| v.to_str().ok())
        && let Some(token) = value.strip_prefix("Bearer ").or_else(|| value.strip_prefix("bearer "))
    {
        return Some(token.trim().to_string());
    }
    cookie(headers, "folioAccessToken")
}

pub(crate) fn cookie(headers: &HeaderMap, name: &str) -> Option<String> {
    headers.get_all(axum::http::header::COOKIE).iter().filter_map(|v| v.to_str().ok()).find_map(
        |cookies| {
            cookies.split(';').find_map(|pair| {
                let (k, v) = pair.trim().split_once('=')?;
                (k == name).then(|| v.to_string())
            })
        },
    )
}

/// A request body, up to the configured size limit (413 beyond).
pub(crate) struct Body(pub(crate) Bytes);

impl FromRequest<AppState> for Body {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &AppState) -> Result<Self, ApiError> {
        let limit = state.config.max_body_bytes;
        match Bytes::from_request(req, state).await {
            Ok(bytes) => Ok(Body(bytes)),
            Err(rejection) if rejection.status() == axum::http::StatusCode::PAYLOAD_TOO_LARGE => {
                Err(ApiError::payload_too_large(limit))
            }
            Err(rejection) => {
                Err(ApiError::bad_request(format!("Cannot read request body: {rejection}")))
            }
        }
    }
}

/// The query string of a request: FOLIO's `query`, `limit` and `offset`, read as every
/// list endpoint reads them, and the endpoint's other parameters, read typed through
/// [`Param`] with [`ListParams::get`] and [`ListParams::require`].
pub(crate) struct ListParams {
    pub(crate) query: Option<String>,
    pub(crate) page: store::Page,
    /// Whether the request named a `limit` (endpoints differ in their default).
    pub(crate) explicit_limit: bool,
    /// Other parameters, for endpoints that take more.
    rest: Vec<(String, String)>,
}

/// The type of a query parameter: how its text reads, and what it must be when it does
/// not (for the 400, which names the parameter and quotes the value).
pub(crate) trait Param: Sized {
    /// What a value must be: "a UUID", "true or false".
    const EXPECTED: &'static str;
    fn read(value: &str) -> Option<Self>;
}

impl Param for String {
    const EXPECTED: &'static str = "text";
    fn read(value: &str) -> Option<String> {
        Some(value.to_string())
    }
}

impl Param for Uuid {
    const EXPECTED: &'static str = "a UUID";
    fn read(value: &str) -> Option<Uuid> {
        Uuid::parse_str(value).ok()
    }
}

impl Param for bool {
    const EXPECTED: &'static str = "true or false";
    fn read(value: &str) -> Option<bool> {
        match value {
            "true" => Some(true),
            "false" => Some(false),
            _ => None,
        }
    }
}

impl Param for i64 {
    const EXPECTED: &'static str = "an integer";
    fn read(value: &str) -> Option<i64> {
        value.parse().ok()
    }
}

impl Param for chrono::NaiveDate {
    const EXPECTED: &'static str = "a date (YYYY-MM-DD)";
    fn read(value: &str) -> Option<chrono::NaiveDate> {
        value.parse().ok()
    }
}

impl Param for folio::Timestamp {
    const EXPECTED: &'static str = "a date or date-time";
    fn read(value: &str) -> Option<folio::Timestamp> {
        folio::Timestamp::parse(value)
    }
}

impl ListParams {
    /// Whether the parameter is `true` (any case); anything else, or none, is false.
    pub(crate) fn flag(&self, name: &str) -> bool {
        self.rest.iter().any(|(k, v)| k == name && v.eq_ignore_ascii_case("true"))
    }

    /// Every value of a parameter that may repeat, as sent.
    pub(crate) fn all<'p>(&'p self, name: &'p str) -> impl Iterator<Item = &'p str> + 'p {
        self.rest.iter().filter(move |(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    /// The parameter read as `T`, if sent (the first, if repeated).
    pub(crate) fn get<T: Param>(&self, name: &str) -> Result<Option<T>, ApiError> {
        self.all(name).next().map(|value| read(name, value)).transpose()
    }

    /// Every value of a repeatable parameter, read as `T`.
    pub(crate) fn get_all<T: Param>(&self, name: &str) -> Result<Vec<T>, ApiError> {
        self.all(name).map(|value| read(name, value)).collect()
    }

    /// A parameter the endpoint cannot do without.
    pub(crate) fn require<T: Param>(&self, name: &str) -> Result<T, ApiError> {
        self.get(name)?.ok_or_else(|| {
            ApiError::bad_parameter(name, "", format!("Parameter '{name}' is required"))
        })
    }
}

fn read<T: Param>(name: &str, value: &str) -> Result<T, ApiError> {
    T::read(value).ok_or_else(|| {
        ApiError::bad_parameter(
            name,
            value,
            format!("Parameter '{name}' must be {}, got '{value}'", T::EXPECTED),
        )
    })
}

/// FOLIO storage modules return 10 records unless asked for more.
const DEFAULT_LIMIT: u64 = 10;

impl<S: Send + Sync> FromRequestParts<S> for ListParams {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, ApiError> {
        let raw = parts.uri.query().unwrap_or("");
        let pairs: Vec<(String, String)> = form_pairs(raw);
        let mut params = ListParams {
            query: None,
            page: store::Page { offset: 0, limit: DEFAULT_LIMIT },
            explicit_limit: false,
            rest: Vec::new(),
        };
        for (key, value) in pairs {
            match key.as_str() {
                "query" => params.query = Some(value).filter(|q| !q.trim().is_empty()),
                "limit" => {
                    params.page.limit = parse_count("limit", &value)?;
                    params.explicit_limit = true;
                }
                "offset" => params.page.offset = parse_count("offset", &value)?,
                _ => params.rest.push((key, value)),
            }
        }
        Ok(params)
    }
}

/// The largest `limit` or `offset`: FOLIO declares both as 32-bit integers.
const MAX_COUNT: u64 = i32::MAX as u64;

/// A paging parameter in FOLIO's range, 0 to 2^31 - 1, with RMB's messages, which quote
/// the value as sent.
pub(crate) fn parse_count(name: &str, value: &str) -> Result<u64, ApiError> {
    let invalid = |rule: String| {
        ApiError::bad_parameter(
            name,
            value,
            format!(
                "'{name}' parameter is incorrect. parameter value {{{value}}} is not valid: {rule}"
            ),
        )
    };
    let digits = value.trim();
    let (negative, digits) = match digits.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, digits.strip_prefix('+').unwrap_or(digits)),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(invalid("must be an integer, greater than or equal to 0".to_string()));
    }
    if negative && digits.bytes().any(|b| b != b'0') {
        return Err(invalid("must be greater than or equal to 0".to_string()));
    }
    // Any run of digits too long for u64 is too large too.
    match digits.parse::<u64>() {
        Ok(n) if n <= MAX_COUNT => Ok(n),
        _ => Err(invalid(format!("must be less than or equal to {MAX_COUNT}"))),
    }
}

/// Decodes `application/x-www-form-urlencoded` pairs (the query string).
pub(crate) fn form_pairs(raw: &str) -> Vec<(String, String)> {
    form_urlencoded::parse(raw.as_bytes()).into_owned().collect()
}

/// Runs blocking work (SQLite, argon2) off the async threads; a panic becomes a 500.
pub(crate) async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(f).await?
}

/// Runs a long read that a client asks for again and again (a harvest's pages) on one
/// of a few threads kept in the idle scheduling class (`store::lower_current_thread`):
/// on a small machine the desk's requests then take the CPU first and the harvest what
/// they leave. At niceness 19 a page builder kept a woken desk thread waiting for the
/// rest of its time slice; a check-out's p95 beside a 1M harvest was 3.0-4.8 ms, and
/// 2.1-3.0 ms since, the harvest as fast (docs/benchmarks.md, row Z).
/// The pool's size, the number of CPUs, bounds how many such reads run at once; the
/// others wait their turn. Work that may write belongs in [`blocking`]: a lowered
/// thread holding the writer would keep the desk waiting. A panic becomes a 500.
pub(crate) async fn in_background<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    static POOL: std::sync::OnceLock<std::sync::mpsc::Sender<PoolJob>> = std::sync::OnceLock::new();
    run_in(POOL.get_or_init(|| start_pool("quire-background", store::lower_current_thread)), f)
        .await
}

/// Runs a search (a query on a tenant's index, its facets) on one of as many threads as
/// CPUs, at the requests' priority; the others wait their turn. On tokio's blocking
/// threads twenty users' searches ran twenty threads at once, and the desk's writer
/// and requests each got a share of the CPU as small: beside them a check-out's p95
/// was 2.5-2.9x its time alone (11x over half an hour on a million instances); on
/// this pool 1.0-1.1x (docs/benchmarks.md, row AB). Searches are CPU work, so running
/// as many at a time as cores does as many a second. Work that may write belongs in
/// [`blocking`]. A panic becomes a 500.
pub(crate) async fn searching<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    static POOL: std::sync::OnceLock<std::sync::mpsc::Sender<PoolJob>> = std::sync::OnceLock::new();
    run_in(POOL.get_or_init(|| start_pool("quire-search", || ())), f).await
}

async fn run_in<T: Send + 'static>(
    pool: &std::sync::mpsc::Sender<PoolJob>,
    f: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    let (send, receive) = tokio::sync::oneshot::channel();
    let job: PoolJob = Box::new(move || {
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
            .unwrap_or_else(|_| Err(ApiError::internal("a pooled request panicked")));
        // The request may have gone: nobody to tell.
        let _ = send.send(result);
    });
    pool.send(job).map_err(|_| ApiError::internal("the request threads have stopped"))?;
    receive.await.map_err(|_| ApiError::internal("a pooled request was dropped"))?
}

type PoolJob = Box<dyn FnOnce() + Send>;

/// As many threads as CPUs, named `name-N`, each first running `setup` (its priority),
/// started at first use and kept for the process's life (as tokio's blocking threads
/// are), taking jobs in the order sent.
fn start_pool(name: &str, setup: fn()) -> std::sync::mpsc::Sender<PoolJob> {
    let (send, receive) = std::sync::mpsc::channel::<PoolJob>();
    let receive = std::sync::Arc::new(std::sync::Mutex::new(receive));
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    for i in 0..threads {
        let receive = receive.clone();
        let started = std::thread::Builder::new().name(format!("{name}-{i}")).spawn(move || {
            setup();
            loop {
                // The lock is held only to take a job, never while running one.
                let job = match receive.lock() {
                    Ok(receive) => receive.recv(),
                    Err(_) => return,
                };
                match job {
                    Ok(job) => job(),
                    Err(_) => return,
                }
            }
        });
        if let Err(e) = started {
            tracing::error!(error = %e, thread = name, "could not start a pool thread");
        }
    }
    send
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Searches run at most as many at a time as there are CPUs, each answered with
    /// its own result; a panicking one becomes a 500 and the pool goes on.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn searches_run_as_many_at_a_time_as_cpus() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let running = std::sync::Arc::new(AtomicUsize::new(0));
        let most = std::sync::Arc::new(AtomicUsize::new(0));
        let searches = (0..16).map(|n| {
            let (running, most) = (running.clone(), most.clone());
            searching(move || {
                let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                most.fetch_max(now, Ordering::SeqCst);
                std::thread::sleep(std::time::Duration::from_millis(5));
                running.fetch_sub(1, Ordering::SeqCst);
                Ok(n)
            })
        });
        let answers: Vec<u32> = futures_util::future::join_all(searches)
            .await
            .into_iter()
            .map(Result::unwrap)
            .collect();
        assert_eq!(answers, (0..16).collect::<Vec<_>>());
        let cpus = std::thread::available_parallelism().map_or(2, |n| n.get());
        assert!(most.load(Ordering::SeqCst) <= cpus, "{} at once", most.load(Ordering::SeqCst));

        let panicked = searching::<()>(|| panic!("a search panicked")).await;
        assert_eq!(panicked.unwrap_err().status(), axum::http::StatusCode::INTERNAL_SERVER_ERROR);
        assert_eq!(searching(|| Ok(7)).await.unwrap(), 7);
    }

    #[test]
    fn decodes_query_strings() {
        assert_eq!(
            form_pairs("query=barcode%3D%3D%22X%201%22&limit=5&x"),
            vec![
                ("query".to_string(), "barcode==\"X 1\"".to_string()),
                ("limit".to_string(), "5".to_string()),
                ("x".to_string(), String::new())
            ]
        );
        assert_eq!(form_pairs("a=a+b%2"), vec![("a".to_string(), "a b%2".to_string())]);
        assert_eq!(form_pairs("a=%E2%82%AC"), vec![("a".to_string(), "€".to_string())]);
        assert_eq!(form_pairs("a=100%"), vec![("a".to_string(), "100%".to_string())]);
    }

    #[test]
    fn parameters_read_typed_and_name_themselves_when_they_do_not() {
        let params = ListParams {
            query: None,
            page: store::Page { offset: 0, limit: DEFAULT_LIMIT },
            explicit_limit: false,
            rest: form_pairs(
                "id=00000000-0000-4000-8000-000000000001&id=00000000-0000-4000-8000-000000000002\
                 &deleted=true&state=maybe&day=2026-02-30",
            ),
        };
        let show = |r: Result<String, ApiError>| match r {
            Ok(v) => v,
            Err(e) => format!("{} {}", e.status().as_u16(), e.message()),
        };
        let all = params.get_all::<Uuid>("id").map(|ids| format!("{ids:?}"));
        assert_eq!(
            show(all),
            "[00000000-0000-4000-8000-000000000001, 00000000-0000-4000-8000-000000000002]"
        );
        assert_eq!(show(params.get::<bool>("deleted").map(|b| format!("{b:?}"))), "Some(true)");
        assert_eq!(show(params.get::<bool>("absent").map(|b| format!("{b:?}"))), "None");
        assert_eq!(
            show(params.get::<bool>("state").map(|b| format!("{b:?}"))),
            "400 Parameter 'state' must be true or false, got 'maybe'"
        );
        assert_eq!(
            show(params.get::<chrono::NaiveDate>("day").map(|d| format!("{d:?}"))),
            "400 Parameter 'day' must be a date (YYYY-MM-DD), got '2026-02-30'"
        );
        assert_eq!(
            show(params.require::<Uuid>("userId").map(|u| u.to_string())),
            "400 Parameter 'userId' is required"
        );
    }

    #[test]
    fn paging_parameters_are_in_folio_range() {
        let check = |value: &str| match parse_count("limit", value) {
            Ok(n) => n.to_string(),
            Err(e) => format!("{} {}", e.status().as_u16(), e.message()),
        };
        assert_eq!(check("0"), "0");
        assert_eq!(check(" 2147483647 "), "2147483647");
        assert_eq!(check("-0"), "0");
        assert_eq!(
            check("2147483648"),
            "400 'limit' parameter is incorrect. parameter value {2147483648} is not valid: must be less than or equal to 2147483647"
        );
        assert_eq!(
            check("9223372036854775808"),
            "400 'limit' parameter is incorrect. parameter value {9223372036854775808} is not valid: must be less than or equal to 2147483647"
        );
        assert_eq!(
            check("184467440737095516150000"),
            "400 'limit' parameter is incorrect. parameter value {184467440737095516150000} is not valid: must be less than or equal to 2147483647"
        );
        assert_eq!(
            check("-3"),
            "400 'limit' parameter is incorrect. parameter value {-3} is not valid: must be greater than or equal to 0"
        );
        assert_eq!(
            check("ten"),
            "400 'limit' parameter is incorrect. parameter value {ten} is not valid: must be an integer, greater than or equal to 0"
        );
        assert_eq!(
            check("1e3"),
            "400 'limit' parameter is incorrect. parameter value {1e3} is not valid: must be an integer, greater than or equal to 0"
        );
    }

    #[tokio::test]
    async fn a_panic_in_blocking_work_is_a_500_and_the_runtime_lives_on() {
        let err = blocking::<()>(|| panic!("boom")).await.unwrap_err();
        assert_eq!(err.status(), axum::http::StatusCode::INTERNAL_SERVER_ERROR);
        assert_eq!(blocking(|| Ok(7)).await.unwrap(), 7);
    }
}
