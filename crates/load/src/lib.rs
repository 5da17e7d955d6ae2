//! Workloads: the data-set generator behind `quire generate` and the load harness behind
//! `quire load`, which replays FOLIO's performance tests against a server and prints the
//! figures beside FOLIO's published ones.
//!
//! What it owns: generated records (written straight into storage), scenarios, virtual
//! users, latency histograms and reports. What it does not own: any record rule (it goes
//! through `inventory`'s verbs, and through the HTTP API like any client).

pub mod authorities;
mod cico;
mod circulation;
mod engine;
mod generate;
pub mod marc_bibs;
mod report;
mod words;
mod workload;

pub use reqwest;

pub use crate::{
    cico::{
        CHECK_IN_POST, CHECK_IN_TRANSACTION, CHECK_OUT_POST, CHECK_OUT_TRANSACTION, CicoOptions,
        CicoSetup, run_cico,
    },
    circulation::CirculationReport,
    engine::{
        LoadOptions, Measurements, MemorySample, RequestStats, Second, login, missing_endpoints,
        run,
    },
    generate::{GenerateOptions, GenerateReport, Written, generate},
    report::{Baseline, Report, Row},
    workload::{
        RequestTemplate, ScenarioName, Workload, default_workload_dir, encode_query,
        export_ids_workload, marc_search_workload, search_workload,
    },
};
