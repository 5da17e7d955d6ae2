//! `quire import FILE --tenant T`: a MARC file into a tenant, by the same job engine the
//! data-import API uses, either straight into a data directory (no server running) or
//! through a running server's API, with a progress bar and FOLIO's job summary at the end.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use serde_json::{Value, json};
use uuid::Uuid;

use crate::DataDirArg;

#[derive(Debug, clap::Args)]
pub(crate) struct ImportArgs {
    /// The file: binary MARC (UTF-8 or MARC-8), MARCXML or MARC-in-JSON.
    file: PathBuf,
    /// The tenant to import into.
    #[arg(long)]
    tenant: String,
    /// The job profile, by id or name: FOLIO's "Default - Create instance and SRS MARC
    /// Bib" (when not given), "Default - Create SRS MARC Authority", "Default - Create
    /// Holdings and SRS MARC Holdings", or any job profile of the tenant.
    #[arg(long)]
    profile: Option<String>,
    #[command(flatten)]
    data: DataDirArg,
    /// Import through a running server at this URL instead of into the data directory.
    #[arg(long)]
    url: Option<String>,
    #[arg(long, env = "QUIRE_USERNAME", default_value = "admin")]
    username: String,
    #[arg(long, env = "QUIRE_PASSWORD")]
    password: Option<String>,
}

const DEFAULT_NAME: &str = "Default - Create instance and SRS MARC Bib";

pub(crate) fn run(args: ImportArgs) -> anyhow::Result<()> {
    let file =
        args.file.canonicalize().with_context(|| format!("cannot read {}", args.file.display()))?;
    let name =
        file.file_name().map_or_else(|| "import".into(), |n| n.to_string_lossy().into_owned());
    let started = Instant::now();
    let job = match &args.url {
        Some(url) => through_server(url, &args, &file, &name)?,
        None => into_data_dir(&args, &file, &name)?,
    };
    report(&job, started.elapsed());
    if job["status"] == "COMMITTED" { Ok(()) } else { bail!("the job ended {}", job["status"]) }
}

/// FOLIO's default create profiles Quire's engine runs, by name.
const DEFAULTS: [(&str, Uuid); 3] = [
    (DEFAULT_NAME, import::DEFAULT_CREATE_INSTANCE),
    ("Default - Create SRS MARC Authority", import::DEFAULT_CREATE_AUTHORITY),
    ("Default - Create Holdings and SRS MARC Holdings", import::DEFAULT_CREATE_HOLDINGS),
];

/// The profile a name or id means: an id as given, FOLIO's default create profiles by
/// name, any other name looked up among the tenant's job profiles by `lookup` (given a
/// CQL query, it answers the matching job profiles' JSON).
fn profile(
    given: Option<&str>,
    lookup: impl FnOnce(&str) -> anyhow::Result<Vec<Value>>,
) -> anyhow::Result<import::ProfileInfo> {
    let info = |id, name: Option<&str>| import::ProfileInfo {
        id,
        name: name.map(str::to_string),
        data_type: Some("MARC".into()),
        hidden: None,
    };
    let text = given.unwrap_or(DEFAULT_NAME);
    if let Some((name, id)) = DEFAULTS.iter().find(|(name, _)| *name == text) {
        return Ok(info(*id, Some(name)));
    }
    if let Ok(id) = Uuid::parse_str(text) {
        return Ok(info(id, None));
    }
    let escaped = text.replace('\\', "\\\\").replace('"', "\\\"");
    let found = lookup(&format!("name==\"{escaped}\""))?;
    match found.as_slice() {
        [one] => {
            let id = one["id"].as_str().and_then(|id| Uuid::parse_str(id).ok());
            Ok(info(id.context("the job profile has no id")?, Some(text)))
        }
        [] => bail!(
            "no job profile named {text:?}; give its name or id, or leave it out for {DEFAULT_NAME:?}"
        ),
        _ => bail!("{} job profiles are named {text:?}; give its id", found.len()),
    }
}

/// Runs the job here, on the data directory, as the server's runner would.
fn into_data_dir(args: &ImportArgs, file: &std::path::Path, name: &str) -> anyhow::Result<Value> {
    let store = std::sync::Arc::new(args.data.open(args.data.options()?)?);
    let tenant = store.tenant(&args.tenant)?;
    let profile = profile(args.profile.as_deref(), |query| {
        let page = store::Page { offset: 0, limit: 10 };
        let (bodies, _) = tenant.read(|r| {
            profiles::list_json::<profiles::JobProfile>(r, Some(query), page, true, false)
        })?;
        Ok(bodies.iter().filter_map(|b| serde_json::from_str(b).ok()).collect())
    })?;
    let by = import::RunBy { first_name: Some("quire".into()), last_name: Some("import".into()) };
    let path = file.to_string_lossy().into_owned();
    let job = tenant.write(|w| import::new_file_job(w, Uuid::nil(), by, name, &path, profile))?;
    // Held while this command runs the job, so that a server on the same store leaves it
    // alone, and takes it up should this command die.
    let lease = runtime::import_lease(job.id);
    let mut held = runtime::Held::default();
    anyhow::ensure!(
        held.keep(&tenant, &lease),
        "a server took up job {} before this command",
        job.id
    );
    let import_dir = runtime::import_dir(&tenant);
    let setup = match import::open(&tenant, job.id, &import_dir)? {
        Ok(setup) => setup,
        Err(_) => return Ok(serde_json::to_value(tenant.read(|r| import::get_job(r, job.id))?)?),
    };
    let bar = bar(tenant.read(|r| import::get_job(r, job.id))?.progress.total);
    // The search index follows the records as they go in, as on a server.
    let runtime = runtime::Runtime::new(store.clone());
    let setup = if setup.uses_candidates() {
        setup.with_candidates(runtime.import_candidates(&tenant)?)
    } else {
        setup
    };
    let index = runtime.instances(&tenant)?;
    let started = Instant::now();
    let mut records_done = None;
    loop {
        anyhow::ensure!(held.keep(&tenant, &lease), "another node took job {} over", job.id);
        match import::step(&tenant, &setup, &import_dir)? {
            import::Step::More => {
                bar.set_position(tenant.read(|r| import::get_job(r, job.id))?.progress.current);
            }
            import::Step::Ended(status) => {
                bar.set_message("indexing");
                records_done = Some(started.elapsed());
                index.catch_up(&tenant)?;
                import::finish(&tenant, job.id, status)?;
                break;
            }
            import::Step::Done(_) | import::Step::Waiting => break,
        }
    }
    bar.finish_and_clear();
    held.release(&tenant, &lease);
    let job = tenant.read(|r| import::get_job(r, job.id))?;
    let summary = tenant.read(|r| import::summary(r, job.id))?;
    let mut value = serde_json::to_value(&job)?;
    value["summary"] = serde_json::to_value(summary)?;
    if let Some(records) = records_done {
        // How the time went: the records, then the search index catching up.
        value["recordsSeconds"] = json!(records.as_secs_f64());
        value["indexSeconds"] = json!((started.elapsed() - records).as_secs_f64());
    }
    Ok(value)
}

/// Uploads the file to a running server and follows the job there.
fn through_server(
    url: &str,
    args: &ImportArgs,
    file: &std::path::Path,
    name: &str,
) -> anyhow::Result<Value> {
    let url = url.trim_end_matches('/');
    let password =
        args.password.clone().context("--password (or QUIRE_PASSWORD) is needed with --url")?;
    let agent = ureq::AgentBuilder::new().timeout(Duration::from_secs(600)).build();
    let login = agent
        .post(&format!("{url}/authn/login"))
        .set("x-okapi-tenant", &args.tenant)
        .send_json(json!({"username": args.username, "password": password}))
        .context("login failed")?;
    let token = login.header("x-okapi-token").context("no token in the login answer")?.to_string();
    let call = |method: &str, path: &str| {
        agent
            .request(method, &format!("{url}{path}"))
            .set("x-okapi-tenant", &args.tenant)
            .set("x-okapi-token", &token)
    };
    let profile = profile(args.profile.as_deref(), |query| {
        let found: Value = call("GET", "/data-import-profiles/jobProfiles")
            .query("query", query)
            .query("showHidden", "true")
            .call()?
            .into_json()?;
        Ok(found["jobProfiles"].as_array().cloned().unwrap_or_default())
    })?;
    let definition: Value = call("POST", "/data-import/uploadDefinitions")
        .send_json(json!({"fileDefinitions": [{"name": name}]}))?
        .into_json()?;
    let id = definition["id"].as_str().context("no upload definition id")?;
    let file_id = definition["fileDefinitions"][0]["id"].as_str().context("no file id")?;
    let job = definition["fileDefinitions"][0]["jobExecutionId"]
        .as_str()
        .context("no job id")?
        .to_string();
    let reader = std::fs::File::open(file)?;
    let uploaded: Value =
        call("POST", &format!("/data-import/uploadDefinitions/{id}/files/{file_id}"))
            .set("content-type", "application/octet-stream")
            .send(reader)?
            .into_json()?;
    call("POST", &format!("/data-import/uploadDefinitions/{id}/processFiles"))
        .send_json(json!({"uploadDefinition": uploaded, "jobProfileInfo": profile}))?;
    let bar = bar(0);
    let ended = loop {
        let state: Value =
            call("GET", &format!("/change-manager/jobExecutions/{job}")).call()?.into_json()?;
        bar.set_length(state["progress"]["total"].as_u64().unwrap_or(0));
        bar.set_position(state["progress"]["current"].as_u64().unwrap_or(0));
        if matches!(
            state["status"].as_str(),
            Some("COMMITTED" | "ERROR" | "CANCELLED" | "DISCARDED")
        ) {
            break state;
        }
        std::thread::sleep(Duration::from_millis(250));
    };
    bar.finish_and_clear();
    let mut ended = ended;
    ended["summary"] =
        call("GET", &format!("/metadata-provider/jobSummary/{job}")).call()?.into_json()?;
    Ok(ended)
}

fn bar(total: u64) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::new(total);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{elapsed_precise} [{bar:40}] {pos}/{len} records, {per_sec}, eta {eta} {msg}",
        )
        .expect("valid template")
        .progress_chars("=> "),
    );
    bar
}

/// The job's end, as a librarian reads it.
fn report(job: &Value, elapsed: Duration) {
    let done = job["progress"]["current"].as_u64().unwrap_or(0);
    let secs = elapsed.as_secs_f64();
    println!(
        "job {} ({}): {} — {} records in {:.1} s ({:.0} records/s)",
        job["hrId"],
        job["id"].as_str().unwrap_or(""),
        job["status"].as_str().unwrap_or("?"),
        done,
        secs,
        done as f64 / secs.max(1e-9),
    );
    let summary = &job["summary"];
    for (label, key) in [("SRS MARC", "sourceRecordSummary"), ("instances", "instanceSummary")] {
        let s = &summary[key];
        println!(
            "  {label}: {} created, {} updated, {} discarded",
            s["totalCreatedEntities"], s["totalUpdatedEntities"], s["totalDiscardedEntities"]
        );
    }
    if summary["totalErrors"].as_u64().unwrap_or(0) > 0 {
        println!(
            "  {} records failed: see GET /metadata-provider/jobLogEntries/{}?errorsOnly=true",
            summary["totalErrors"],
            job["id"].as_str().unwrap_or("")
        );
    }
    if let (Some(records), Some(index)) =
        (job["recordsSeconds"].as_f64(), job["indexSeconds"].as_f64())
    {
        println!(
            "  {records:.1} s writing the records, then {index:.1} s bringing the search index up to date"
        );
    }
    if let Some(error) = job["errorStatus"].as_str() {
        println!("  {error}");
    }
}
