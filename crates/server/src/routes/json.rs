//! JSON responses built from stored JSON bodies without parsing them again.

use axum::{
    http::{HeaderValue, StatusCode, header},
    response::{IntoResponse, Response},
};

/// A response whose body is already JSON text.
pub(crate) fn raw(status: StatusCode, body: String) -> Response {
    let mut response = (status, body).into_response();
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

/// A serialisable value as a JSON response.
pub(crate) fn value<T: serde::Serialize>(status: StatusCode, value: &T) -> Response {
    match serde_json::to_string(value) {
        Ok(body) => raw(status, body),
        Err(e) => crate::ApiError::internal(format!("serialising response: {e}")).into_response(),
    }
}

/// FOLIO's collection shape: `{"<key>":[...],"totalRecords":N}`.
pub(crate) fn collection(key: &str, bodies: &[String], total: u64) -> Response {
    let mut out =
        String::with_capacity(bodies.iter().map(|b| b.len() + 1).sum::<usize>() + key.len() + 40);
    out.push_str("{\"");
    out.push_str(key);
    out.push_str("\":[");
    for (idx, body) in bodies.iter().enumerate() {
        if idx > 0 {
            out.push(',');
        }
        out.push_str(body);
    }
    out.push_str("],\"totalRecords\":");
    out.push_str(&total.to_string());
    out.push('}');
    raw(StatusCode::OK, out)
}

/// 201 Created with `Location`.
pub(crate) fn created(location: String, body: String) -> Response {
    let mut response = raw(StatusCode::CREATED, body);
    if let Ok(value) = HeaderValue::from_str(&location) {
        response.headers_mut().insert(header::LOCATION, value);
    }
    response
}
