//! HTTP API tests: the real router, driven request by request with `oneshot`.

mod admin;
mod auth;
mod authorities;
mod batch;
mod bulk_operations;
mod circulation;
mod client_flow;
mod data_import;
mod errors;
mod holdings_items;
mod hostile;
mod import_files;
mod import_profiles;
mod instances;
mod mapping_rules;
mod oai;
mod profiles;
mod query_languages;
mod reference;
mod round_trip;
mod search;
mod settings;
mod srs;
mod support;
mod tenancy;
mod users;
