//! The `bulk-edit` scenario: a bulk edit of N records, as FOLIO's PTF ran it (upload
//! the identifiers, start UPLOAD, content-update with PTF's rules, EDIT, COMMIT), each
//! step followed to its end, with the time from the upload to the committed records.

use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use serde_json::{Value, json};

use crate::LoadOptions;

/// FOLIO's PTF durations (Nolana): entity type, records, seconds.
pub const FOLIO_BULK_EDIT: &[(&str, usize, f64)] = &[
    ("USER", 1_000, 43.0),
    ("USER", 2_500, 105.0),
    ("ITEM", 1_000, 169.0),
    ("ITEM", 10_000, 1_140.0),
    ("HOLDINGS_RECORD", 1_000, 111.0),
    ("HOLDINGS_RECORD", 10_000, 646.0),
];

/// How one bulk edit went: each step's seconds and the operation as it ended.
#[derive(Debug)]
pub struct BulkRun {
    pub entity: String,
    pub records: usize,
    pub upload: f64,
    pub edit: f64,
    pub commit: f64,
    pub total: f64,
    /// Seconds from COMPLETED until the instance search index had applied every change
    /// committed by then.
    pub search_lag: f64,
    pub operation: Value,
}

/// Where a record type is listed, and its list's key.
fn list_of(entity: &str) -> anyhow::Result<(&'static str, &'static str)> {
    Ok(match entity {
        "ITEM" => ("/item-storage/items", "items"),
        "HOLDINGS_RECORD" => ("/holdings-storage/holdings", "holdingsRecords"),
        "USER" => ("/users", "users"),
        "INSTANCE" => ("/instance-storage/instances", "instances"),
        _ => bail!("unknown entity type {entity}: USER, ITEM, HOLDINGS_RECORD or INSTANCE"),
    })
}

/// Runs a bulk edit of the first `records` records of `entity`.
pub async fn bulk_edit(
    client: &reqwest::Client,
    options: &LoadOptions,
    token: &str,
    entity: &str,
    records: usize,
) -> anyhow::Result<BulkRun> {
    let call = |method: reqwest::Method, path: &str| {
        client
            .request(method, format!("{}{path}", options.url))
            .header("x-okapi-tenant", &options.tenant)
            .header("x-okapi-token", token)
    };
    let get =
        |path: String| async move { crate::engine::get_json(client, options, token, &path).await };
    let (path, key) = list_of(entity)?;
    let query = if entity == "USER" {
        format!("username<>\"{}\"", options.username)
    } else {
        "cql.allRecords=1".into()
    };
    let list = get(crate::encode_query(&format!("{path}?limit={records}&query={query}"))).await?;
    let ids: Vec<&str> = list[key]
        .as_array()
        .context("no records listed")?
        .iter()
        .filter_map(|r| r["id"].as_str())
        .collect();
    if ids.len() < records {
        bail!("the tenant has {} {entity} records; the scenario needs {records}", ids.len());
    }
    let second = |list: &Value, key: &str| -> anyhow::Result<String> {
        let all = list[key].as_array().context("empty reference list")?;
        let pick = all.get(1).or(all.first()).context("empty reference list")?;
        Ok(pick["id"].as_str().context("no id")?.to_string())
    };
    let location = second(&get("/locations?limit=10".into()).await?, "locations")?;
    let actions = |option: &str, action: Value| json!({"option": option, "actions": [action]});
    let rules: Vec<Value> = match entity {
        // PTF's item job: clear the temporary location and loan type, status Unknown,
        // a new permanent location and loan type.
        "ITEM" => {
            let loan = second(&get("/loan-types?limit=10".into()).await?, "loantypes")?;
            vec![
                actions("TEMPORARY_LOCATION", json!({"type": "CLEAR_FIELD"})),
                actions("STATUS", json!({"type": "REPLACE_WITH", "updated": "Unknown"})),
                actions("PERMANENT_LOCATION", json!({"type": "REPLACE_WITH", "updated": location})),
                actions("TEMPORARY_LOAN_TYPE", json!({"type": "CLEAR_FIELD"})),
                actions("PERMANENT_LOAN_TYPE", json!({"type": "REPLACE_WITH", "updated": loan})),
            ]
        }
        "HOLDINGS_RECORD" => vec![
            actions("PERMANENT_LOCATION", json!({"type": "REPLACE_WITH", "updated": location})),
            actions("TEMPORARY_LOCATION", json!({"type": "CLEAR_FIELD"})),
        ],
        // PTF's user job: expiration date, patron group, an e-mail find-and-replace.
        "USER" => {
            let group = second(&get("/groups?limit=10".into()).await?, "usergroups")?;
            vec![
                actions(
                    "EXPIRATION_DATE",
                    json!({"type": "REPLACE_WITH", "updated": "2030-12-31"}),
                ),
                actions("PATRON_GROUP", json!({"type": "REPLACE_WITH", "updated": group})),
                actions(
                    "EMAIL_ADDRESS",
                    json!({"type": "FIND_AND_REPLACE", "initial": "@", "updated": "@mail."}),
                ),
            ]
        }
        _ => vec![actions("STAFF_SUPPRESS", json!({"type": "SET_TO_TRUE"}))],
    };

    let started = Instant::now();
    let operation: Value = call(
        reqwest::Method::POST,
        &format!("/bulk-operations/upload?entityType={entity}&identifierType=ID&manual=false"),
    )
    .header("content-type", "text/csv")
    .body(ids[..records].join("\n"))
    .send()
    .await?
    .error_for_status()?
    .json()
    .await?;
    let id = operation["id"].as_str().context("no operation id")?.to_string();
    let step = |step: &'static str| {
        let id = id.clone();
        async move {
            let response = call(reqwest::Method::POST, &format!("/bulk-operations/{id}/start"))
                .json(&json!({"step": step, "approach": "IN_APP"}))
                .send()
                .await?;
            if !response.status().is_success() {
                bail!("start {step}: {} {}", response.status(), response.text().await?);
            }
            // Follow the step closely: a coarse poll would add its interval to the figure.
            loop {
                let op = get(format!("/bulk-operations/{id}")).await?;
                let status = op["status"].as_str().unwrap_or_default();
                if !matches!(
                    status,
                    "RETRIEVING_RECORDS" | "DATA_MODIFICATION_IN_PROGRESS" | "APPLY_CHANGES"
                ) {
                    return anyhow::Ok(op);
                }
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        }
    };
    let matched = step("UPLOAD").await?;
    if matched["status"] != "DATA_MODIFICATION" {
        bail!("matching ended {}: {matched}", matched["status"]);
    }
    let upload = started.elapsed().as_secs_f64();
    let body = json!({
        "bulkOperationRules": rules.iter().map(|r| json!({"bulkOperationId": id, "rule_details": r})).collect::<Vec<_>>(),
        "totalRecords": records,
    });
    call(reqwest::Method::POST, &format!("/bulk-operations/{id}/content-update"))
        .json(&body)
        .send()
        .await?
        .error_for_status()?;
    step("EDIT").await?;
    let edit = started.elapsed().as_secs_f64() - upload;
    let operation = step("COMMIT").await?;
    let total = started.elapsed().as_secs_f64();
    // How long the search takes to reflect the commit: until the index has applied
    // every change the change log held when the operation reported COMPLETED.
    let status = || crate::index_status(client, options, token);
    let target = status().await?["changeLogSequence"].as_i64().context("no sequence")?;
    while status().await?["appliedSequence"].as_i64().unwrap_or(0) < target {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let search_lag = started.elapsed().as_secs_f64() - total;
    Ok(BulkRun {
        entity: entity.to_string(),
        records,
        upload,
        edit,
        commit: total - upload - edit,
        total,
        search_lag,
        operation,
    })
}
