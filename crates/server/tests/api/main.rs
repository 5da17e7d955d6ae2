//! HTTP API tests: the real router, driven request by request with `oneshot`.

mod admin;
mod auth;
mod batch;
mod errors;
mod holdings_items;
mod instances;
mod reference;
mod search;
mod support;
mod tenancy;
