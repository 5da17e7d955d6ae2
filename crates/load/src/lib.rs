//! The load harness behind `quire load`: it replays FOLIO's performance tests against a
//! running server over HTTP, as a client would, and prints the figures beside FOLIO's
//! published ones.
//!
//! What it owns: scenarios, virtual users, latency histograms and reports. What it does
//! not own: the data it runs against (`generate` writes that) nor any record rule.

mod bulk;
mod cico;
mod engine;
mod import;
mod oai;
mod report;
mod workload;

pub use reqwest;

pub use crate::{
    bulk::{BulkRun, FOLIO_BULK_EDIT, bulk_edit},
    cico::{
        CHECK_IN_POST, CHECK_IN_TRANSACTION, CHECK_OUT_POST, CHECK_OUT_TRANSACTION, CicoOptions,
        CicoSetup, run_cico,
    },
    engine::{
        LoadOptions, Measurements, MemorySample, RequestStats, Second, index_status, login,
        missing_endpoints, run,
    },
    import::{Import, import_job, start_import, wait_import},
    oai::{Harvest, harvest, quantile, resumption_token},
    report::{Baseline, IndexSample, Report, Row, html_page},
    workload::{
        RequestTemplate, ScenarioName, Workload, default_workload_dir, encode_query,
        export_ids_workload, marc_search_workload, search_workload,
    },
};
