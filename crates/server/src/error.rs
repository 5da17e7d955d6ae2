//! The one place where errors become HTTP responses.
//!
//! Every crate's error maps here, exhaustively, to a status and FOLIO's error body:
//! `{"errors":[{"message","type","code","parameters":[{"key","value"}]}],"total_records":1}`.
//! Internal failures are logged with their detail and answered with a generic message.

use axum::{
    http::{HeaderValue, StatusCode, header},
    response::{IntoResponse, Response},
};
use serde::Serialize;

/// An error response.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    errors: Vec<ErrorEntry>,
    /// A body of another shape, for the few endpoints whose FOLIO errors are not
    /// `{"errors":[...]}` (circulation rules: `{"message","line","column"}`).
    body: Option<serde_json::Value>,
}

#[derive(Debug, Serialize)]
struct ErrorEntry {
    message: String,
    #[serde(rename = "type")]
    kind: &'static str,
    code: &'static str,
    parameters: Vec<Parameter>,
    /// On a check-out or renewal refusal staff may override: the block, and the permission the
    /// caller lacks to override it, if any (FOLIO's `overridableBlock`).
    #[serde(rename = "overridableBlock", skip_serializing_if = "Option::is_none")]
    overridable_block: Option<serde_json::Value>,
}

#[derive(Debug, Serialize)]
struct Parameter {
    key: String,
    value: String,
}

impl ApiError {
    fn new(
        status: StatusCode,
        kind: &'static str,
        code: &'static str,
        message: impl Into<String>,
    ) -> ApiError {
        ApiError {
            status,
            errors: vec![ErrorEntry {
                message: message.into(),
                kind,
                code,
                parameters: Vec::new(),
                overridable_block: None,
            }],
            body: None,
        }
    }

    fn with_parameter(mut self, key: impl Into<String>, value: impl Into<String>) -> ApiError {
        self.errors[0].parameters.push(Parameter { key: key.into(), value: value.into() });
        self
    }

    pub fn status(&self) -> StatusCode {
        self.status
    }

    #[cfg(test)]
    pub(crate) fn message(&self) -> &str {
        &self.errors[0].message
    }

    pub(crate) fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, "BadRequest", "bad_request", message)
    }

    pub(crate) fn bad_parameter(name: &str, value: &str, message: impl Into<String>) -> ApiError {
        ApiError::bad_request(message).with_parameter(name, value)
    }

    pub(crate) fn not_found(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::NOT_FOUND, "NotFound", "not_found_error", message)
    }

    pub(crate) fn unauthorized(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::UNAUTHORIZED, "Unauthorized", "unauthorized", message)
    }

    pub(crate) fn forbidden(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::FORBIDDEN, "Forbidden", "forbidden", message)
    }

    /// A 422 naming a field. Its code says which rule failed: FOLIO's bean-validation
    /// code for the messages those constraints give, else FOLIO's `validation_error`.
    pub(crate) fn validation(
        field: &str,
        value: Option<&str>,
        message: impl Into<String>,
    ) -> ApiError {
        let message = message.into();
        let code = constraint_code(&message);
        ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "1", code, message)
            .with_parameter(field, value.unwrap_or("null"))
    }

    /// A 422 for a value another record holds already.
    pub(crate) fn duplicate(field: &str, value: &str, message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "1", "value.duplicate", message)
            .with_parameter(field, value)
    }

    /// A 422 for a PUT whose body names another record than its path.
    pub(crate) fn id_mismatch(body: &str, message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "1", "id_mismatch", message)
            .with_parameter("id", body)
    }

    /// 405, for a path that exists with another method.
    pub(crate) fn method_not_allowed() -> ApiError {
        ApiError::new(
            StatusCode::METHOD_NOT_ALLOWED,
            "MethodNotAllowed",
            "method_not_allowed",
            "This endpoint does not take this HTTP method",
        )
    }

    pub(crate) fn payload_too_large(limit: usize) -> ApiError {
        ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "PayloadTooLarge",
            "payload_too_large",
            format!("Request body is larger than the limit of {limit} bytes"),
        )
    }

    pub(crate) fn internal(detail: impl std::fmt::Display) -> ApiError {
        tracing::error!(error = %detail, "internal error");
        ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "InternalServerError",
            "internal_error",
            "Internal server error",
        )
    }
}

/// The code FOLIO gives a 422 whose message is one of its bean-validation constraints'
/// (RMB and Spring modules answer `must not be null` with
/// `javax.validation.constraints.NotNull.message`, and so on); `validation_error`
/// otherwise, as FOLIO's Spring modules name a failed rule.
fn constraint_code(message: &str) -> &'static str {
    if message == "must not be null" {
        "javax.validation.constraints.NotNull.message"
    } else if message.starts_with("size must be between") {
        "javax.validation.constraints.Size.message"
    } else if message.starts_with("must match") {
        "javax.validation.constraints.Pattern.message"
    } else {
        "validation_error"
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        #[derive(Serialize)]
        struct Body<'a> {
            errors: &'a [ErrorEntry],
            total_records: usize,
        }
        let body = match &self.body {
            Some(body) => serde_json::to_vec(body),
            None => {
                serde_json::to_vec(&Body { errors: &self.errors, total_records: self.errors.len() })
            }
        }
        .unwrap_or_else(|_| b"{\"errors\":[]}".to_vec());
        let mut response = (self.status, body).into_response();
        response
            .headers_mut()
            .insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
        response
    }
}

impl From<store::Error> for ApiError {
    fn from(e: store::Error) -> ApiError {
        match e {
            store::Error::InvalidTenantName(name) => ApiError::bad_parameter(
                "X-Okapi-Tenant",
                &name,
                format!("Invalid tenant name: {name}"),
            ),
            store::Error::UnknownTenant(name) => {
                ApiError::bad_parameter("X-Okapi-Tenant", &name, format!("No such tenant: {name}"))
            }
            store::Error::Unique { table, column } => ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "1",
                "unique_violation",
                format!("{column} value already exists in table {table}"),
            )
            .with_parameter(column, ""),
            store::Error::DuplicateId { table, id } => ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "1",
                "unique_violation",
                format!("id value already exists in table {table}: {id}"),
            )
            .with_parameter("id", id),
            store::Error::Query(q) => ApiError::from(q),
            // Answered as the write itself would have been.
            store::Error::Deferred { source, .. } => ApiError::from(*source),
            e @ (store::Error::Database(_)
            | store::Error::Io { .. }
            | store::Error::Corrupt(_)
            | store::Error::Copy(_)) => ApiError::internal(e),
        }
    }
}

impl From<store::QueryError> for ApiError {
    fn from(e: store::QueryError) -> ApiError {
        let message = e.to_string();
        match e {
            store::QueryError::Syntax(_) => ApiError::new(
                StatusCode::BAD_REQUEST,
                "CQLParseException",
                "cql_error",
                format!("Invalid CQL: {message}"),
            ),
            store::QueryError::UnsupportedField(field)
            | store::QueryError::UnsupportedRelation { field, .. }
            | store::QueryError::InvalidValue { field, .. } => ApiError::new(
                StatusCode::BAD_REQUEST,
                "QueryValidationException",
                "validation_error",
                message,
            )
            .with_parameter("field", field),
            store::QueryError::UnsupportedBoolean(op) => ApiError::new(
                StatusCode::BAD_REQUEST,
                "QueryValidationException",
                "validation_error",
                message,
            )
            .with_parameter("operator", op),
        }
    }
}

impl From<auth::Error> for ApiError {
    fn from(e: auth::Error) -> ApiError {
        let message = e.to_string();
        match e {
            auth::Error::BadCredentials
            | auth::Error::UnknownUsername(_)
            | auth::Error::InactiveUser => ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "LoginException",
                "password.incorrect",
                message,
            ),
            auth::Error::InvalidToken(_)
            | auth::Error::ExpiredToken
            | auth::Error::WrongPassword => ApiError::unauthorized(message),
            auth::Error::CredentialsExist(user_id) => {
                ApiError::duplicate("userId", &user_id.to_string(), message)
            }
            auth::Error::NoCredentials(_) => ApiError::not_found(message),
            auth::Error::UserTaken { field, value, write } => {
                let status = match write {
                    auth::Write::Create => StatusCode::UNPROCESSABLE_ENTITY,
                    auth::Write::Update => StatusCode::BAD_REQUEST,
                };
                ApiError::new(status, "1", "value.duplicate", message)
                    .with_parameter(field.name(), value)
            }
            auth::Error::UnknownPatronGroup(id) => {
                ApiError::new(StatusCode::BAD_REQUEST, "1", "patron_group.not_found", message)
                    .with_parameter("patronGroup", id.to_string())
            }
            auth::Error::IdMismatch => ApiError::bad_request(message),
            auth::Error::NotFound { .. } => ApiError::not_found(message),
            auth::Error::GroupNameTaken(name) => {
                ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "1", "group.duplicate", message)
                    .with_parameter("group", name)
            }
            auth::Error::GroupInUse(_) => ApiError::bad_request(message),
            auth::Error::ProxyExists { .. } => {
                ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "1", "proxy.duplicate", message)
            }
            auth::Error::Decode(e) => e.into(),
            auth::Error::Invalid { field, message } => ApiError::validation(&field, None, message),
            // folio-custom-fields' shape: one error per problem, type "1", code "-1".
            auth::Error::CustomFieldValues(problems) => ApiError {
                status: StatusCode::UNPROCESSABLE_ENTITY,
                body: None,
                errors: problems
                    .into_iter()
                    .map(|p| ErrorEntry {
                        message: p.message,
                        kind: "1",
                        code: "-1",
                        parameters: vec![Parameter { key: p.key, value: p.value }],
                        overridable_block: None,
                    })
                    .collect(),
            },
            auth::Error::Store(e) => ApiError::from(e),
            e @ (auth::Error::Hashing(_) | auth::Error::Corrupt(_)) => ApiError::internal(e),
        }
    }
}

impl From<circ::Error> for ApiError {
    fn from(e: circ::Error) -> ApiError {
        let message = e.to_string();
        match e {
            circ::Error::NotFound { .. } => ApiError::not_found(message),
            circ::Error::Invalid { field, value, message } => {
                ApiError::validation(&field, Some(&value), message)
            }
            circ::Error::Refused(refusals) => ApiError {
                status: StatusCode::UNPROCESSABLE_ENTITY,
                body: None,
                errors: refusals
                    .into_iter()
                    .map(|r| ErrorEntry {
                        message: r.message,
                        kind: "1",
                        code: r.code.unwrap_or("validation_error"),
                        parameters: r
                            .parameters
                            .into_iter()
                            .map(|(key, value)| Parameter { key, value })
                            .collect(),
                        overridable_block: r.overridable.map(|o| {
                            let missing: Vec<&str> =
                                o.permission_missing.then(|| o.block.permission()).into_iter().collect();
                            serde_json::json!({"name": o.block.name(), "missingPermissions": missing})
                        }),
                    })
                    .collect(),
            },
            // FOLIO's rules editor reads `{"message","line","column"}`.
            circ::Error::Rules { message, line, column } => {
                let body = serde_json::json!({"message": message, "line": line, "column": column});
                let mut error = ApiError::new(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    "CirculationRulesException",
                    "circulation_rules_error",
                    message,
                );
                error.body = Some(body);
                error
            }
            circ::Error::InUse { .. } => {
                ApiError::new(StatusCode::BAD_REQUEST, "InUse", "in_use", message)
            }
            circ::Error::Decode(e) => ApiError::from(e),
            circ::Error::Inventory(e) => ApiError::from(e),
            circ::Error::Auth(e) => ApiError::from(e),
            circ::Error::Store(e) => ApiError::from(e),
            e @ circ::Error::Corrupt(_) => ApiError::internal(e),
        }
    }
}

/// mod-calendar's error body: `{"timestamp","status","errors":[{"code","message","data"}]}`.
impl From<calendar::Error> for ApiError {
    fn from(e: calendar::Error) -> ApiError {
        let message = e.to_string();
        let (status, code, data) = match e {
            calendar::Error::NotFound(_) => (StatusCode::NOT_FOUND, "calendarNotFound", None),
            calendar::Error::Invalid { code, .. } => (StatusCode::BAD_REQUEST, code, None),
            calendar::Error::Overlap { service_points, .. } => (
                StatusCode::CONFLICT,
                "calendarDateOverlap",
                Some(serde_json::json!({"conflictingServicePointIds": service_points})),
            ),
            calendar::Error::Decode(e) => return ApiError::from(e),
            calendar::Error::Store(e) => return ApiError::from(e),
            e @ calendar::Error::Corrupt { .. } => return ApiError::internal(e),
        };
        let mut error = serde_json::json!({"code": code, "message": message});
        if let Some(data) = data {
            error["data"] = data;
        }
        let mut api = ApiError::new(status, "CalendarException", "calendar_error", message);
        api.body = Some(serde_json::json!({
            "timestamp": chrono::Utc::now().to_rfc3339(),
            "status": status.as_u16(),
            "errors": [error],
        }));
        api
    }
}

impl From<settings::Error> for ApiError {
    fn from(e: settings::Error) -> ApiError {
        let message = e.to_string();
        match e {
            settings::Error::NotFound(_) => ApiError::not_found(message),
            settings::Error::Duplicate(_) => ApiError::duplicate("module", "", message),
            settings::Error::IdMismatch { body, .. } => {
                ApiError::id_mismatch(&body.to_string(), message)
            }
            settings::Error::Decode(e) => ApiError::from(e),
            settings::Error::Store(e) => ApiError::from(e),
            e @ settings::Error::Corrupt { .. } => ApiError::internal(e),
        }
    }
}

impl From<import::Error> for ApiError {
    fn from(e: import::Error) -> ApiError {
        let message = e.to_string();
        match e {
            import::Error::JobNotFound(_)
            | import::Error::UploadNotFound(_)
            | import::Error::FileNotFound { .. } => ApiError::not_found(message),
            import::Error::Finished { .. } | import::Error::Invalid(_) => {
                ApiError::bad_request(message)
            }
            import::Error::UnsupportedProfile { id, .. } => {
                ApiError::validation("jobProfileInfo.id", Some(&id.to_string()), message)
            }
            import::Error::Profiles(e) => e.into(),
            import::Error::NoProfile(_) => ApiError::validation("jobProfileInfo", None, message),
            import::Error::Store(e) => e.into(),
            import::Error::Inventory(e) => e.into(),
            import::Error::Srs(e) => e.into(),
            import::Error::Mapping(e) => e.into(),
            e @ (import::Error::Corrupt(_) | import::Error::Indexes(_) | import::Error::Redo) => {
                ApiError::internal(e)
            }
        }
    }
}

impl From<mapping::Error> for ApiError {
    fn from(e: mapping::Error) -> ApiError {
        let message = e.to_string();
        match e {
            mapping::Error::Parse(mapping::ParseError::NotJson) | mapping::Error::NotEditable => {
                ApiError::bad_request(message)
            }
            // Quire checks a rule set against the format before storing it, so a set the
            // import could not apply is refused here, naming where it breaks.
            mapping::Error::Parse(mapping::ParseError::Invalid { path, .. }) => {
                ApiError::validation(&path, None, message)
            }
            mapping::Error::Store(e) => ApiError::from(e),
            e @ mapping::Error::Corrupt(..) => ApiError::internal(e),
        }
    }
}

/// mod-di-converter-storage's answers: 404 for what is not there (a link's profile
/// included), 422 with one error per rule a profile write breaks, 400 for a change to one
/// of FOLIO's locked default profiles, 409 for deleting a profile in use.
impl From<profiles::Error> for ApiError {
    fn from(e: profiles::Error) -> ApiError {
        let message = e.to_string();
        match e {
            profiles::Error::ProfileNotFound { .. }
            | profiles::Error::AssociationNotFound(_)
            | profiles::Error::SnapshotNotFound(_)
            | profiles::Error::LinkedNotFound { .. } => ApiError::not_found(message),
            profiles::Error::Invalid(messages) => ApiError {
                status: StatusCode::UNPROCESSABLE_ENTITY,
                body: None,
                errors: messages
                    .into_iter()
                    .map(|message| ErrorEntry {
                        message,
                        kind: "1",
                        code: "validation_error",
                        parameters: Vec::new(),
                        overridable_block: None,
                    })
                    .collect(),
            },
            profiles::Error::DefaultProfile { id, .. } => {
                ApiError::bad_parameter("id", &id.to_string(), message)
            }
            profiles::Error::UnknownType(value) => ApiError::bad_parameter("type", &value, message),
            profiles::Error::InUse(id) => {
                ApiError::new(StatusCode::CONFLICT, "ConflictException", "profile_in_use", message)
                    .with_parameter("id", id.to_string())
            }
            profiles::Error::Decode(e) => ApiError::from(e),
            profiles::Error::Store(e) => ApiError::from(e),
            e @ profiles::Error::Corrupt { .. } => ApiError::internal(e),
        }
    }
}

/// The shared record verbs' failures, for record types with no words of their own:
/// a taken unique value is FOLIO's `value.duplicate` naming the column.
impl From<folio::record::Error> for ApiError {
    fn from(e: folio::record::Error) -> ApiError {
        let message = e.to_string();
        match e {
            folio::record::Error::NotFound { .. } => ApiError::not_found(message),
            folio::record::Error::IdMismatch { body, .. } => {
                ApiError::id_mismatch(&body.to_string(), message)
            }
            folio::record::Error::VersionConflict { .. } => ApiError::new(
                StatusCode::CONFLICT,
                "OptimisticLockingException",
                "optimistic_locking",
                message,
            ),
            folio::record::Error::Store(store::Error::DuplicateId { id, table }) => {
                ApiError::duplicate(
                    "id",
                    &id,
                    format!("id value already exists in table {table}: {id}"),
                )
            }
            folio::record::Error::Store(e) => ApiError::from(e),
            e @ folio::record::Error::Corrupt { .. } => ApiError::internal(e),
        }
    }
}

impl From<folio::DecodeError> for ApiError {
    fn from(e: folio::DecodeError) -> ApiError {
        match e {
            folio::DecodeError::Malformed { message, line, column } => ApiError::new(
                StatusCode::BAD_REQUEST,
                "JsonParseException",
                "malformed_json",
                format!("Malformed JSON at line {line}, column {column}: {message}"),
            ),
            folio::DecodeError::Invalid { field, message, value } => {
                ApiError::validation(&field, value.as_deref(), message)
            }
        }
    }
}

impl From<inventory::Error> for ApiError {
    fn from(e: inventory::Error) -> ApiError {
        let message = e.to_string();
        match e {
            inventory::Error::NotFound { .. } => ApiError::not_found(message),
            inventory::Error::VersionConflict { .. } => ApiError::new(
                StatusCode::CONFLICT,
                "OptimisticLockingException",
                "optimistic_locking",
                message,
            ),
            inventory::Error::Invalid { field, value, .. } => {
                ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "1", "validation_error", message)
                    .with_parameter(field, value)
            }
            inventory::Error::InUse { .. } => ApiError::new(
                StatusCode::BAD_REQUEST,
                "ReferentialIntegrity",
                "record_in_use",
                message,
            ),
            inventory::Error::Decode(d) => ApiError::from(d),
            inventory::Error::Store(s) => ApiError::from(s),
            e @ inventory::Error::Corrupt(_) => ApiError::internal(e),
        }
    }
}

impl From<bulk::Error> for ApiError {
    fn from(e: bulk::Error) -> ApiError {
        let message = e.to_string();
        match e {
            bulk::Error::NotFound(_) => ApiError::not_found(message),
            bulk::Error::Invalid(_) => ApiError::bad_request(message),
            bulk::Error::Store(e) => e.into(),
            bulk::Error::Inventory(e) => e.into(),
            bulk::Error::Auth(e) => e.into(),
            e @ bulk::Error::Corrupt(_) => ApiError::internal(e),
        }
    }
}

impl From<runtime::Error> for ApiError {
    fn from(e: runtime::Error) -> ApiError {
        match e {
            runtime::Error::Store(e) => e.into(),
            runtime::Error::Search(e) => e.into(),
            runtime::Error::Srs(e) => e.into(),
            runtime::Error::Auth(e) => e.into(),
            runtime::Error::Inventory(e) => e.into(),
            runtime::Error::Circ(e) => e.into(),
            runtime::Error::Profiles(e) => e.into(),
            runtime::Error::Import(e) => e.into(),
            runtime::Error::Bulk(e) => e.into(),
            e @ runtime::Error::AdministratorNotAdded { .. } => ApiError::forbidden(e.to_string()),
            e @ runtime::Error::Thread(_) => ApiError::internal(e),
        }
    }
}

impl From<search::Error> for ApiError {
    fn from(e: search::Error) -> ApiError {
        let message = e.to_string();
        match e {
            search::Error::InvalidQuery { .. } => ApiError::new(
                StatusCode::BAD_REQUEST,
                "SearchServiceException",
                "service_error",
                message,
            ),
            search::Error::QueryTooLarge { .. } => ApiError::new(
                StatusCode::BAD_REQUEST,
                "RequestValidationException",
                "validation_error",
                message,
            ),
            search::Error::UnknownField { field } => ApiError::new(
                StatusCode::BAD_REQUEST,
                "RequestValidationException",
                "validation_error",
                message,
            )
            .with_parameter("field", field),
            search::Error::UnsupportedRelation { .. }
            | search::Error::UnsupportedOperator { .. } => ApiError::new(
                StatusCode::BAD_REQUEST,
                "UnsupportedOperationException",
                "service_error",
                message,
            ),
            search::Error::InvalidPaging { parameter, value, .. } => ApiError::new(
                StatusCode::BAD_REQUEST,
                "RequestValidationException",
                "validation_error",
                message,
            )
            .with_parameter(parameter, value),
            search::Error::InvalidDate { field, value } => ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "ValidationException",
                "validation_error",
                message,
            )
            .with_parameter(field, value),
            search::Error::InvalidSort { field } => ApiError::new(
                StatusCode::BAD_REQUEST,
                "RequestValidationException",
                "validation_error",
                message,
            )
            .with_parameter("sortBy", field),
            search::Error::InvalidFacet { facet } => ApiError::new(
                StatusCode::BAD_REQUEST,
                "RequestValidationException",
                "validation_error",
                message,
            )
            .with_parameter("facet", facet),
            search::Error::Store(e) => ApiError::from(e),
            search::Error::Inventory(e) => ApiError::from(e),
            e @ (search::Error::Index(_) | search::Error::Busy(_) | search::Error::Io { .. }) => {
                ApiError::internal(e)
            }
        }
    }
}

impl From<srs::Error> for ApiError {
    fn from(e: srs::Error) -> ApiError {
        let message = e.to_string();
        match e {
            srs::Error::NotFound { .. } => ApiError::not_found(message),
            srs::Error::Decode(e) => e.into(),
            srs::Error::Invalid { field, value, .. } => {
                ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "1", "validation_error", message)
                    .with_parameter(field, value)
            }
            // FOLIO answers a bad MARC search expression with 400 and its message.
            srs::Error::Expression(_) => ApiError::bad_request(message),
            srs::Error::Store(s) => ApiError::from(s),
            e @ srs::Error::Corrupt(_) => ApiError::internal(e),
        }
    }
}

impl From<oai::Error> for ApiError {
    fn from(e: oai::Error) -> ApiError {
        match e {
            oai::Error::Store(s) => ApiError::from(s),
            oai::Error::Srs(s) => ApiError::from(s),
            oai::Error::NotFound(_) => ApiError::not_found(e.to_string()),
            oai::Error::Invalid { ref field, .. } => {
                let field = field.clone();
                ApiError::validation(&field, None, e.to_string())
            }
            oai::Error::Corrupt(_) => ApiError::internal(e),
        }
    }
}

impl From<tokio::task::JoinError> for ApiError {
    fn from(e: tokio::task::JoinError) -> ApiError {
        ApiError::internal(format!("blocking task failed: {e}"))
    }
}
