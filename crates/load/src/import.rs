//! The `import` scenario's import: a MARC file sent as FOLIO's web client sends it
//! (upload definition, the file, `processFiles` with the default create profile), and
//! its job followed to the end. FOLIO's PTF ran check-in/check-out beside its imports;
//! the CLI runs `cico` idle, then again while this import runs, and compares.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::Context;
use serde_json::{Value, json};

use crate::LoadOptions;

/// FOLIO's "Default - Create instance and SRS MARC Bib".
const DEFAULT_PROFILE: &str = "e34d7b92-9b83-11eb-a8b3-0242ac130003";

/// An import started on the server.
pub struct Import {
    pub job: String,
    pub started: Instant,
}

/// Uploads `file` and starts its import with FOLIO's default create profile.
pub async fn start_import(
    client: &reqwest::Client,
    options: &LoadOptions,
    token: &str,
    file: &Path,
) -> anyhow::Result<Import> {
    let name = file.file_name().map_or("import.mrc".into(), |n| n.to_string_lossy().into_owned());
    let bytes = std::fs::read(file).with_context(|| format!("reading {}", file.display()))?;
    let call = |method: reqwest::Method, path: &str| {
        client
            .request(method, format!("{}{path}", options.url))
            .header("x-okapi-tenant", &options.tenant)
            .header("x-okapi-token", token)
    };
    let started = Instant::now();
    let definition: Value = call(reqwest::Method::POST, "/data-import/uploadDefinitions")
        .json(&json!({"fileDefinitions": [{"name": name}]}))
        .send()
        .await?
        .error_for_status()?
        .json()
        .await?;
    let id = definition["id"].as_str().context("no upload definition id")?;
    let file_id = definition["fileDefinitions"][0]["id"].as_str().context("no file id")?;
    let job = definition["fileDefinitions"][0]["jobExecutionId"]
        .as_str()
        .context("no job id")?
        .to_string();
    let uploaded: Value = call(
        reqwest::Method::POST,
        &format!("/data-import/uploadDefinitions/{id}/files/{file_id}"),
    )
    .header("content-type", "application/octet-stream")
    .body(bytes)
    .send()
    .await?
    .error_for_status()?
    .json()
    .await?;
    let profile = json!({"id": DEFAULT_PROFILE, "name": "Default - Create instance and SRS MARC Bib", "dataType": "MARC"});
    call(reqwest::Method::POST, &format!("/data-import/uploadDefinitions/{id}/processFiles"))
        .json(&json!({"uploadDefinition": uploaded, "jobProfileInfo": profile}))
        .send()
        .await?
        .error_for_status()?;
    Ok(Import { job, started })
}

/// Follows a job until it ends; the job as it ended and the seconds since it started.
pub async fn wait_import(
    client: &reqwest::Client,
    options: &LoadOptions,
    token: &str,
    import: &Import,
) -> anyhow::Result<(Value, f64)> {
    loop {
        let job = import_job(client, options, token, import).await?;
        if matches!(job["status"].as_str(), Some("COMMITTED" | "ERROR" | "CANCELLED")) {
            return Ok((job, import.started.elapsed().as_secs_f64()));
        }
        // A poll, as the web client's progress bar polls; not a deadline.
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// The import's job as it stands (`progress.current` counts the records done).
pub async fn import_job(
    client: &reqwest::Client,
    options: &LoadOptions,
    token: &str,
    import: &Import,
) -> anyhow::Result<Value> {
    crate::engine::get_json(
        client,
        options,
        token,
        &format!("/change-manager/jobExecutions/{}", import.job),
    )
    .await
}
