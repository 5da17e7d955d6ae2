//! The staff web page: plain HTML, CSS and JavaScript modules under `assets/`, served at
//! `/` (the page) and `/ui/...` (its scripts and styles).
//!
//! The page talks to Quire only through the FOLIO API, as any client does, logging in with
//! `login-with-expiry` cookies; nothing here reads a store. There is no build step: the
//! assets are the files a browser loads. Release builds carry them inside the binary;
//! debug builds read them from `crates/web/assets`, so an edit shows on reload.

use axum::{
    Router,
    extract::Path,
    http::{HeaderMap, HeaderValue, StatusCode, header},
    response::{IntoResponse, Response},
    routing::get,
};
use rust_embed::Embed;

#[derive(Embed)]
#[folder = "assets/"]
struct Assets;

/// `GET /` and `GET /ui/{file}`, open to anyone: the page asks for a login itself.
pub fn router<S: Clone + Send + Sync + 'static>() -> Router<S> {
    Router::new()
        .route("/", get(|headers: HeaderMap| async move { asset("index.html", &headers) }))
        .route(
            "/ui/{*path}",
            get(|Path(path): Path<String>, headers: HeaderMap| async move {
                asset(&path, &headers)
            }),
        )
}

/// One asset, revalidated by its hash on every load (`no-cache` with an `ETag`), so a
/// new binary's page is never mixed with an old one's scripts.
fn asset(path: &str, headers: &HeaderMap) -> Response {
    let Some(file) = Assets::get(path) else {
        return (StatusCode::NOT_FOUND, "No such file").into_response();
    };
    let hash = file.metadata.sha256_hash();
    let etag = format!("\"{}\"", hash[..8].iter().map(|b| format!("{b:02x}")).collect::<String>());
    let mut response = if headers.get(header::IF_NONE_MATCH).is_some_and(|v| v == etag.as_str()) {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        ([(header::CONTENT_TYPE, content_type(path))], file.data).into_response()
    };
    let response_headers = response.headers_mut();
    response_headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    if let Ok(value) = HeaderValue::from_str(&etag) {
        response_headers.insert(header::ETAG, value);
    }
    response_headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    // The page runs only its own scripts and styles and is never framed.
    response_headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'self'; img-src 'self' data:; object-src 'none'; frame-ancestors 'none'",
        ),
    );
    response
}

fn content_type(path: &str) -> &'static str {
    match path.rsplit_once('.').map(|(_, extension)| extension) {
        Some("html") => "text/html; charset=utf-8",
        Some("js") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use axum::{body::Body, http::Request};
    use tower::ServiceExt;

    use super::*;

    async fn get(path: &str, if_none_match: Option<&str>) -> Response {
        let mut request = Request::get(path);
        if let Some(etag) = if_none_match {
            request = request.header(header::IF_NONE_MATCH, etag);
        }
        router::<()>().oneshot(request.body(Body::empty()).unwrap()).await.unwrap()
    }

    #[tokio::test]
    async fn the_page_and_its_scripts_are_served_with_their_types() {
        let page = get("/", None).await;
        assert_eq!(page.status(), StatusCode::OK);
        assert_eq!(page.headers()[header::CONTENT_TYPE], "text/html; charset=utf-8");
        assert!(
            page.headers()[header::CONTENT_SECURITY_POLICY].to_str().unwrap().contains("'self'")
        );
        let script = get("/ui/app.js", None).await;
        assert_eq!(script.headers()[header::CONTENT_TYPE], "text/javascript; charset=utf-8");
        assert_eq!(get("/ui/missing.js", None).await.status(), StatusCode::NOT_FOUND);
    }

    /// The page asks for every module at once (`modulepreload`), so a module added
    /// without its link would load an import level later.
    #[test]
    fn every_module_is_preloaded() {
        let page = Assets::get("index.html").unwrap();
        let page = std::str::from_utf8(&page.data).unwrap();
        for path in Assets::iter().filter(|p| p.ends_with(".js") && p != "app.js") {
            let link = format!(r#"<link rel="modulepreload" href="/ui/{path}">"#);
            assert!(page.contains(&link), "index.html lacks {link}");
        }
    }

    #[tokio::test]
    async fn an_unchanged_asset_is_answered_304() {
        let first = get("/ui/style.css", None).await;
        let etag = first.headers()[header::ETAG].to_str().unwrap().to_string();
        let again = get("/ui/style.css", Some(&etag)).await;
        assert_eq!(again.status(), StatusCode::NOT_MODIFIED);
        assert_eq!(get("/ui/style.css", Some("\"stale\"")).await.status(), StatusCode::OK);
    }
}
