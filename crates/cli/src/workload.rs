//! `quire generate` and `quire load`.

use std::{path::PathBuf, sync::Arc, time::Duration};

use anyhow::Context;

use crate::DataDirArg;

#[derive(Debug, clap::Args)]
pub(crate) struct GenerateArgs {
    /// The tenant to fill; created (with reference data) if it does not exist.
    #[arg(long)]
    tenant: String,
    /// How many instances; holdings and items follow FOLIO's proportions.
    #[arg(long)]
    instances: usize,
    /// Seed of the generator: the same seed gives the same records.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Real MARC bib records (ISO 2709) to derive MARC-sourced instances from. Default:
    /// the Library of Congress records of pymarc 5.4.0 (`QUIRE_LC_RECORDS`, else the
    /// cache, else fetched from PyPI); without them every instance is FOLIO-sourced.
    #[arg(long, env = "QUIRE_LC_RECORDS")]
    marc_records: Option<PathBuf>,
    /// Generate FOLIO-sourced instances only, with no MARC source records.
    #[arg(long)]
    no_marc: bool,
    /// MARC authority records (ISO 2709) to derive authorities from; repeatable.
    /// Default: the Library of Congress subject authorities in
    /// `../shared/data/marc/{2500,5000}.mrc` when they are there.
    #[arg(long = "authority-records")]
    authority_records: Vec<PathBuf>,
    /// Leave the search and MARC indexes to the server (they are built, or caught up,
    /// by default, unless a server holds them).
    #[arg(long)]
    no_index: bool,
    #[command(flatten)]
    data: DataDirArg,
}

/// The LC corpus: the given file, the cached one, or one fetched from PyPI; `None`
/// (with the reason printed) when none can be had.
fn lc_corpus(args: &GenerateArgs) -> anyhow::Result<Option<Arc<generate::marc_bibs::LcCorpus>>> {
    use generate::marc_bibs::{LcCorpus, fetch};
    if args.no_marc {
        return Ok(None);
    }
    let path = match args.marc_records.clone().or_else(LcCorpus::locate) {
        Some(path) => path,
        None => {
            eprintln!("fetching the Library of Congress records (pymarc 5.4.0) from PyPI ...");
            match fetch() {
                Ok(path) => path,
                Err(e) => {
                    eprintln!(
                        "no MARC records ({e:#}); generating FOLIO-sourced instances from the word list only"
                    );
                    return Ok(None);
                }
            }
        }
    };
    let corpus = LcCorpus::load(&path)?;
    eprintln!("deriving MARC records from {} real records in {}", corpus.len(), path.display());
    Ok(Some(Arc::new(corpus)))
}

fn authority_records(args: &GenerateArgs) -> anyhow::Result<Vec<marc::Record>> {
    let paths: Vec<PathBuf> = if args.authority_records.is_empty() {
        ["../shared/data/marc/2500.mrc", "../shared/data/marc/5000.mrc"]
            .into_iter()
            .map(PathBuf::from)
            .filter(|p| p.is_file())
            .collect()
    } else {
        args.authority_records.clone()
    };
    let mut records = Vec::new();
    for path in &paths {
        let file =
            std::fs::File::open(path).with_context(|| format!("opening {}", path.display()))?;
        for record in marc::Reader::new(std::io::BufReader::new(file)) {
            match record {
                Ok(record) => records.push(record),
                Err(e) => eprintln!("{}: skipping a record: {e}", path.display()),
            }
        }
    }
    if records.is_empty() {
        eprintln!(
            "no MARC authority records given (--authority-records); generating no authorities"
        );
    }
    Ok(records)
}

pub(crate) fn generate(args: GenerateArgs) -> anyhow::Result<()> {
    let started = std::time::Instant::now();
    let store = args.data.open(args.data.options()?)?;
    runtime::provision_tenant(&store, &args.tenant, None, runtime::ExistingUsers::MayAdd)
        .with_context(|| format!("cannot prepare tenant {}", args.tenant))?;
    let tenant = store.tenant(&args.tenant)?;
    let bar = indicatif::ProgressBar::new(args.instances as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{elapsed_precise} [{bar:40}] {pos}/{len} instances, {per_sec}, eta {eta}",
        )
        .expect("valid template")
        .progress_chars("=> "),
    );
    let options = generate::GenerateOptions {
        instances: args.instances,
        seed: args.seed,
        corpus: lc_corpus(&args)?,
        authority_records: Arc::new(authority_records(&args)?),
        ..generate::GenerateOptions::default()
    };
    let index = if args.no_index { None } else { open_instance_index(&tenant)? };
    let Some(index) = index else {
        let report = generate::generate(&tenant, &options, &mut |written| {
            bar.set_position(written.done as u64)
        })?;
        bar.finish_and_clear();
        println!("{}", report.summary());
        return Ok(());
    };

    // The instance index is built from the records as they are written, on a thread of
    // its own, so the two cores share records and index and nothing is read back.
    let build = index.bulk_build(&tenant)?;
    let (sender, receiver) = std::sync::mpsc::sync_channel::<generate::Written>(1);
    let indexer = std::thread::Builder::new().name("generate-index".into()).spawn(move || {
        let mut build = build;
        for written in receiver {
            build.add(&written.instances, &written.holdings, &written.items)?;
        }
        Ok::<_, search::Error>(build)
    })?;
    let generated = generate::generate(&tenant, &options, &mut |written| {
        bar.set_position(written.done as u64);
        // A closed channel means the indexer failed: its error is reported below.
        let _ignored = sender.send(written);
    });
    drop(sender);
    bar.finish_and_clear();
    let build = indexer.join().map_err(|_| anyhow::anyhow!("the indexing thread panicked"))?;
    let report = generated?;
    println!("{}", report.summary());
    let build = build?;

    // The build holds every inventory change this run made. It stands for the whole log
    // up to now only if nothing else wrote inventory records meanwhile (a server, say);
    // otherwise the changes since it began are replayed.
    let after = tenant.last_seq()?;
    let seq = build.covered_seq(&tenant, after)?;
    if seq != after {
        println!("other inventory changes were made meanwhile; replaying them into the index");
    }
    let stats = index.finish_bulk_build(&tenant, build, seq)?;
    let authorities = search::AuthorityIndex::open(&tenant)?;
    authorities.catch_up(&tenant)?;
    println!(
        "search index: {} instances, {} authority headings; {:.1} s in all ({:.0} instances/s, indexes included)",
        stats.instances,
        authorities.status().documents,
        started.elapsed().as_secs_f64(),
        report.instances as f64 / started.elapsed().as_secs_f64(),
    );
    Ok(())
}

/// The tenant's instance index, or `None` when a running server holds it (it then
/// indexes the new records itself, following the change log).
fn open_instance_index(tenant: &store::Tenant) -> anyhow::Result<Option<search::InstanceIndex>> {
    match search::InstanceIndex::open(tenant) {
        Ok(index) => Ok(Some(index)),
        Err(search::Error::Busy(_)) => {
            println!("a server holds the search index; it indexes the new records itself");
            Ok(None)
        }
        Err(e) => Err(e.into()),
    }
}

#[derive(Debug, clap::Args)]
pub(crate) struct LoadArgs {
    /// search, search-under-reindex, search-during-cico, marc-search, cico, export-ids,
    /// import, bulk-edit or oai.
    scenario: String,
    /// The server, e.g. http://127.0.0.1:9130.
    #[arg(long, env = "QUIRE_LOAD_URL")]
    url: String,
    #[arg(long, env = "QUIRE_LOAD_TENANT")]
    tenant: String,
    #[arg(long, env = "QUIRE_LOAD_USERNAME")]
    username: String,
    #[arg(long, env = "QUIRE_LOAD_PASSWORD")]
    password: String,
    /// Virtual users (closed model), or the most requests in flight (open model).
    #[arg(long, default_value_t = 1)]
    users: usize,
    /// How long to send requests after the ramp-up, e.g. 60s, 5m, 1h.
    #[arg(long, default_value = "60s", value_parser = parse_duration)]
    duration: Duration,
    /// Time over which the virtual users start.
    #[arg(long, default_value = "0s", value_parser = parse_duration)]
    ramp_up: Duration,
    /// Open model: start this many requests per second, whatever the server does.
    #[arg(long)]
    rate: Option<f64>,
    /// Closed model: pause after each answer, in milliseconds.
    #[arg(long, default_value_t = 0)]
    think_time_ms: u64,
    /// FOLIO's search workload (requests.tsv and word files); by default the shared
    /// reference copy beside the checkout.
    #[arg(long)]
    workload: Option<PathBuf>,
    /// search-under-reindex: the tenant that reindexes meanwhile.
    #[arg(long)]
    reindex_tenant: Option<String>,
    /// Run the requests whose endpoints exist and leave out the others (by default a
    /// scenario with a missing endpoint stops with an error).
    #[arg(long)]
    skip_missing: bool,
    /// cico: send only the check-out and check-in POSTs, without the page's GETs (the
    /// saturation figure of the bare transactions).
    #[arg(long)]
    posts_only: bool,
    /// cico: pause 1-5 s plus 2-4 s between iterations, as PTF's script does.
    #[arg(long)]
    folio_think_time: bool,
    /// cico: how many Available items to fetch for check-outs.
    #[arg(long, default_value_t = 20_000)]
    pool: usize,
    /// cico: this load generator's share of the items, K/N (every N-th from the K-th,
    /// counting from 0), for N generators run at once, one per node.
    #[arg(long, value_parser = parse_share)]
    share: Option<(usize, usize)>,
    /// import: the MARC file to import (FOLIO's default create profile) during the
    /// second cico run.
    #[arg(long)]
    file: Option<PathBuf>,
    /// search-during-cico: check-in/check-out's virtual users (`--users` are search's).
    #[arg(long, default_value_t = 8)]
    cico_users: usize,
    /// search-during-cico: how long search and the desk run together, e.g. 30m for an
    /// afternoon's wear (the other phases run for `--duration`).
    #[arg(long, value_parser = parse_duration)]
    together: Option<Duration>,
    /// bulk-edit: the record type edited (USER, ITEM, HOLDINGS_RECORD or INSTANCE).
    #[arg(long, default_value = "ITEM")]
    entity: String,
    /// bulk-edit: how many records (the tenant's first, by id).
    #[arg(long, default_value_t = 10_000)]
    records: usize,
    /// oai: the edge API key (`quire tenant oai-key`).
    #[arg(long)]
    oai_key: Option<String>,
    /// oai: the metadata format harvested.
    #[arg(long, default_value = "marc21_withholdings")]
    prefix: String,
    /// oai: harvest alone, without the cico runs.
    #[arg(long)]
    harvest_only: bool,
    /// Also write the report as JSON here.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Also write the report as an HTML page here.
    #[arg(long)]
    html: Option<PathBuf>,
}

impl LoadArgs {
    fn cico(&self) -> load::CicoOptions {
        load::CicoOptions {
            posts_only: self.posts_only,
            pool: self.pool,
            skip_missing: self.skip_missing,
            folio_think_time: self.folio_think_time,
            share: self.share,
        }
    }
}

fn parse_share(text: &str) -> Result<(usize, usize), String> {
    let parsed = text
        .split_once('/')
        .and_then(|(k, n)| Some((k.trim().parse().ok()?, n.trim().parse().ok()?)));
    match parsed {
        Some((k, n)) if k < n => Ok((k, n)),
        _ => Err(format!("{text:?}: expected K/N with K < N, e.g. 0/2")),
    }
}

fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let split = text.find(|c: char| !c.is_ascii_digit() && c != '.').unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let value: f64 =
        number.parse().map_err(|_| format!("not a duration: {text:?} (try 30s, 5m, 1h)"))?;
    let seconds = match unit {
        "" | "s" => value,
        "ms" => value / 1000.0,
        "m" => value * 60.0,
        "h" => value * 3600.0,
        _ => return Err(format!("unknown unit {unit:?} in {text:?} (use ms, s, m or h)")),
    };
    Ok(Duration::from_secs_f64(seconds))
}

pub(crate) fn load(args: LoadArgs) -> anyhow::Result<()> {
    let scenario = load::ScenarioName::parse(&args.scenario).with_context(|| {
        format!(
            "unknown scenario {:?}; the scenarios are {}",
            args.scenario,
            load::ScenarioName::all().join(", ")
        )
    })?;
    let options = load::LoadOptions {
        url: args.url.trim_end_matches('/').to_string(),
        tenant: args.tenant.clone(),
        username: args.username.clone(),
        password: args.password.clone(),
        users: args.users,
        duration: args.duration,
        ramp_up: args.ramp_up,
        rate: args.rate,
        think_time: Duration::from_millis(args.think_time_ms),
    };
    if scenario == load::ScenarioName::Import {
        return cico_under_import(&args, &options);
    }
    if scenario == load::ScenarioName::Oai {
        return cico_under_harvest(&args, &options);
    }
    if scenario == load::ScenarioName::BulkEdit {
        return bulk_edit(&args, &options);
    }
    if scenario == load::ScenarioName::SearchDuringCico {
        return search_during_cico(&args, &options);
    }
    if scenario == load::ScenarioName::Cico {
        let cico = args.cico();
        let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
        let (measurements, setup) = runtime.block_on(async {
            eprintln!(
                "running cico for {:?} with {} users{}{}...",
                options.duration,
                options.users,
                if cico.posts_only { ", POSTs only" } else { "" },
                if cico.folio_think_time { ", PTF's think time" } else { "" }
            );
            load::run_cico(&options, &cico).await
        })?;
        eprintln!(
            "started from {} patrons, {} Available items, {} open loans; left out: note-links (mod-notes, not covered){}",
            setup.patrons,
            setup.available_items,
            setup.open_loans,
            setup.missing_endpoints.iter().map(|e| format!(", {e}")).collect::<String>()
        );
        let mut report = load::Report::new(&args.scenario, &options, &measurements);
        if cico.folio_think_time {
            report.model =
                format!("closed, {} virtual users, PTF's think time (3-9 s)", options.users);
        }
        return write_report(&args, &report);
    }
    let mut workload = match scenario {
        load::ScenarioName::Search | load::ScenarioName::SearchUnderReindex => {
            let dir = args.workload.clone().or_else(load::default_workload_dir).context(
                "FOLIO's search workload was not found: pass --workload DIR (the directory with requests.tsv)",
            )?;
            load::search_workload(&dir)?
        }
        load::ScenarioName::MarcSearch => load::marc_search_workload(),
        load::ScenarioName::Cico
        | load::ScenarioName::Import
        | load::ScenarioName::Oai
        | load::ScenarioName::BulkEdit
        | load::ScenarioName::SearchDuringCico => {
            unreachable!("cico runs its own virtual users")
        }
        load::ScenarioName::ExportIds => load::export_ids_workload(),
    };
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    let report = runtime.block_on(async {
        let client = reqwest_client()?;
        let token = load::login(&client, &options).await?;
        let missing = load::missing_endpoints(&client, &options, &token, &workload).await?;
        if !missing.is_empty() {
            if !args.skip_missing {
                anyhow::bail!(
                    "scenario {} needs endpoints this server does not have yet: {} (--skip-missing runs the rest)",
                    args.scenario,
                    missing.join(", ")
                );
            }
            eprintln!("leaving out requests to missing endpoints: {}", missing.join(", "));
            workload.requests.retain(|t| {
                let endpoint = t.path.split('?').next().unwrap_or(&t.path);
                !missing.contains(&format!("{} {endpoint}", t.method))
            });
        }
        if scenario == load::ScenarioName::SearchUnderReindex {
            let other = args.reindex_tenant.as_deref().context("search-under-reindex needs --reindex-tenant")?;
            start_reindex(&client, &options, other).await?;
        }
        eprintln!("running {} for {:?} with {} users...", args.scenario, options.duration, options.users);
        let measurements = load::run(&options, Arc::new(workload)).await?;
        Ok(load::Report::new(&args.scenario, &options, &measurements))
    })?;
    write_report(&args, &report)
}

/// FOLIO's PTF pairing: check-in/check-out idle, then again while a MARC file imports;
/// the POSTs' 95th percentiles side by side, and the import's time.
fn cico_under_import(args: &LoadArgs, options: &load::LoadOptions) -> anyhow::Result<()> {
    let file = args.file.clone().context("the import scenario needs --file FILE (a MARC file)")?;
    let cico = args.cico();
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    let (idle, during, job, seconds, cico_seconds, done_in_cico) = runtime.block_on(async {
        eprintln!("running cico idle for {:?} with {} users...", options.duration, options.users);
        let (idle, _) = load::run_cico(options, &cico).await?;
        let client = reqwest_client()?;
        let token = load::login(&client, options).await?;
        let import = load::start_import(&client, options, &token, &file).await?;
        eprintln!("importing {} (job {}); running cico meanwhile...", file.display(), import.job);
        let (during, _) = load::run_cico(options, &cico).await?;
        let cico_seconds = import.started.elapsed().as_secs_f64();
        let done_in_cico =
            load::import_job(&client, options, &token, &import).await?["progress"]["current"]
                .as_u64()
                .unwrap_or(0);
        let (job, seconds) = load::wait_import(&client, options, &token, &import).await?;
        Ok::<_, anyhow::Error>((idle, during, job, seconds, cico_seconds, done_in_cico))
    })?;
    let (idle, during) = compare_cico(options, &idle, &during, "the import");
    let records = job["progress"]["total"].as_u64().unwrap_or(0);
    println!(
        "import: {} records, {} in {seconds:.1} s ({:.0} records/s); {}",
        records,
        job["status"].as_str().unwrap_or("?"),
        records as f64 / seconds,
        if seconds >= cico_seconds {
            format!(
                "it ran through the whole cico run and had done {done_in_cico} records when that \
                 ended ({cico_seconds:.1} s in, upload included)"
            )
        } else {
            format!(
                "it ended {:.1} s before the cico run did: shorten --duration",
                cico_seconds - seconds
            )
        }
    );
    if let Some(path) = &args.json {
        let value = serde_json::json!({
            "idle": serde_json::from_str::<serde_json::Value>(&idle.json())?,
            "during": serde_json::from_str::<serde_json::Value>(&during.json())?,
            "import": {"records": records, "seconds": seconds, "status": job["status"], "doneDuringCico": done_in_cico, "cicoEndedAfterSeconds": cico_seconds},
        });
        std::fs::write(path, value.to_string())
            .with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}

/// Search while the desk works, as a library's afternoon has it: FOLIO's search mix
/// alone, check-in/check-out alone, both together (for `--together`, by default
/// `--duration`), and search alone again after, the others for `--duration`; the p95s
/// side by side, and the instance index's segments over the run (every check-out
/// re-indexes an instance, and each commit adds a segment).
fn search_during_cico(args: &LoadArgs, options: &load::LoadOptions) -> anyhow::Result<()> {
    let dir = args.workload.clone().or_else(load::default_workload_dir).context(
        "FOLIO's search workload was not found: pass --workload DIR (the directory with requests.tsv)",
    )?;
    let workload = Arc::new(load::search_workload(&dir)?);
    let cico = args.cico();
    let cico_options = load::LoadOptions { users: args.cico_users, ..options.clone() };
    let together = args.together.unwrap_or(options.duration);
    let search_together = load::LoadOptions { duration: together, ..options.clone() };
    let cico_together = load::LoadOptions { duration: together, ..cico_options.clone() };
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    let (reports, segments) = runtime.block_on(async {
        let client = reqwest_client()?;
        let token = load::login(&client, options).await?;
        let started = std::time::Instant::now();
        let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let sampler = {
            let (client, token, done) = (client.clone(), token.clone(), done.clone());
            async move {
                let mut samples = Vec::new();
                while !done.load(std::sync::atomic::Ordering::SeqCst) {
                    if let Ok(status) = load::index_status(&client, options, &token).await
                        && let Some(segments) = status["segments"].as_u64()
                    {
                        samples.push(load::IndexSample {
                            second: started.elapsed().as_secs(),
                            segments,
                            deleted_documents: status["deletedDocuments"].as_u64().unwrap_or(0),
                        });
                    }
                    tokio::time::sleep(Duration::from_secs(1)).await;
                }
                samples
            }
        };
        let phases = async {
            eprintln!("search alone for {:?} with {} users...", options.duration, options.users);
            let before = load::run(options, workload.clone()).await?;
            eprintln!("cico alone for {:?} with {} users...", options.duration, args.cico_users);
            let (idle, _) = load::run_cico(&cico_options, &cico).await?;
            eprintln!("search and cico together for {together:?}...");
            let (during, desk) = tokio::join!(
                load::run(&search_together, workload.clone()),
                load::run_cico(&cico_together, &cico)
            );
            eprintln!("search alone again for {:?}...", options.duration);
            let after = load::run(options, workload.clone()).await?;
            done.store(true, std::sync::atomic::Ordering::SeqCst);
            anyhow::Ok((before, idle, during?, desk?.0, after))
        };
        let (phases, samples) = tokio::join!(phases, sampler);
        anyhow::Ok((phases?, samples))
    })?;
    let (before, idle, during, desk, after) = reports;
    let search = |name: &str, m: &load::Measurements| load::Report::new(name, options, m);
    let (before, during, after) = (
        search("search alone", &before),
        search("search during cico", &during),
        search("search after cico", &after),
    );
    for report in [&before, &during, &after] {
        println!("{}", report.text());
    }
    let (desk_alone, desk) = compare_cico(&cico_options, &idle, &desk, "search");
    let summary = format!(
        "search p95: {:.1} ms alone, {:.1} ms during cico ({:.2}x), {:.1} ms after ({:.2}x); {:.0} / {:.0} / {:.0} requests/s",
        before.all.p95_ms,
        during.all.p95_ms,
        during.all.p95_ms / before.all.p95_ms,
        after.all.p95_ms,
        after.all.p95_ms / before.all.p95_ms,
        before.all.requests_per_second,
        during.all.requests_per_second,
        after.all.requests_per_second,
    );
    println!("{summary}");
    let fmt =
        |s: &load::IndexSample| format!("{}s:{}/{}", s.second, s.segments, s.deleted_documents);
    println!(
        "index segments / deleted documents over the run (second: segments/deleted): {}",
        segments
            .iter()
            .step_by(segments.len().div_ceil(30).max(1))
            .map(fmt)
            .collect::<Vec<_>>()
            .join(" ")
    );
    if let Some(path) = &args.json {
        let value = serde_json::json!({
            "searchAlone": serde_json::from_str::<serde_json::Value>(&before.json())?,
            "searchDuringCico": serde_json::from_str::<serde_json::Value>(&during.json())?,
            "searchAfterCico": serde_json::from_str::<serde_json::Value>(&after.json())?,
            "cicoDuringSearch": serde_json::from_str::<serde_json::Value>(&desk.json())?,
            "segments": segments,
        });
        std::fs::write(path, value.to_string())
            .with_context(|| format!("writing {}", path.display()))?;
    }
    if let Some(path) = &args.html {
        let page = load::html_page(
            "Quire load report: search during check-in/check-out",
            &summary,
            &[&before, &desk_alone, &during, &desk, &after],
            &segments,
        );
        std::fs::write(path, page).with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}

/// A bulk edit as FOLIO's PTF timed it: upload to committed, each step's share, and
/// FOLIO's duration for the same job where PTF published one.
fn bulk_edit(args: &LoadArgs, options: &load::LoadOptions) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    let run = runtime.block_on(async {
        let client = reqwest_client()?;
        let token = load::login(&client, options).await?;
        eprintln!("bulk edit of {} {} records...", args.records, args.entity);
        load::bulk_edit(&client, options, &token, &args.entity, args.records).await
    })?;
    let op = &run.operation;
    println!(
        "bulk edit: {} {} records, {} in {:.2} s (match {:.2} s, edit {:.2} s, commit {:.2} s), search {:.2} s later; committed {}, errors {}, warnings {}",
        run.records,
        run.entity,
        op["status"].as_str().unwrap_or("?"),
        run.total,
        run.upload,
        run.edit,
        run.commit,
        run.search_lag,
        op["committedNumOfRecords"],
        op["committedNumOfErrors"],
        op["committedNumOfWarnings"],
    );
    let folio = load::FOLIO_BULK_EDIT
        .iter()
        .find(|(entity, records, _)| *entity == run.entity && *records == run.records);
    if let Some((_, _, seconds)) = folio {
        println!("FOLIO (PTF, Nolana): {seconds:.0} s; Quire {:.0}x faster", seconds / run.total);
    }
    if let Some(path) = &args.json {
        let value = serde_json::json!({
            "entity": run.entity, "records": run.records, "seconds": run.total,
            "match": run.upload, "edit": run.edit, "commit": run.commit,
            "searchLag": run.search_lag, "operation": op,
        });
        std::fs::write(path, value.to_string())
            .with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}

/// Prints cico's reports idle and during `work`, and the check-out and check-in POSTs'
/// p95 side by side; returns the two reports.
fn compare_cico(
    options: &load::LoadOptions,
    idle: &load::Measurements,
    during: &load::Measurements,
    work: &str,
) -> (load::Report, load::Report) {
    let idle = load::Report::new("cico (idle)", options, idle);
    let during = load::Report::new(&format!("cico (during {work})"), options, during);
    println!("{}", idle.text());
    println!("{}", during.text());
    let p95 = |report: &load::Report, name: &str| {
        report.rows.iter().find(|r| r.request == name).map_or(f64::NAN, |r| r.p95_ms)
    };
    for name in [load::CHECK_OUT_POST, load::CHECK_IN_POST] {
        let (before, meanwhile) = (p95(&idle, name), p95(&during, name));
        println!(
            "{name}: p95 {before:.1} ms idle, {meanwhile:.1} ms during {work} ({:.2}x)",
            meanwhile / before
        );
    }
    (idle, during)
}

/// A full OAI-PMH harvest, timed page by page; with cico idle before it and cico
/// during it unless `--harvest-only`.
fn cico_under_harvest(args: &LoadArgs, options: &load::LoadOptions) -> anyhow::Result<()> {
    let key = args.oai_key.clone().context("the oai scenario needs --oai-key KEY")?;
    let cico = args.cico();
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    let (harvest, reports) = runtime.block_on(async {
        let client = reqwest_client()?;
        if args.harvest_only {
            let harvest = load::harvest(&client, &options.url, &key, &args.prefix).await?;
            return Ok::<_, anyhow::Error>((harvest, None));
        }
        eprintln!("running cico idle for {:?} with {} users...", options.duration, options.users);
        let (idle, _) = load::run_cico(options, &cico).await?;
        eprintln!("harvesting {} and running cico meanwhile...", args.prefix);
        let harvesting = load::harvest(&client, &options.url, &key, &args.prefix);
        let (harvest, during) = tokio::join!(harvesting, load::run_cico(options, &cico));
        Ok((harvest?, Some((idle, during?.0))))
    })?;
    if let Some((idle, during)) = reports {
        compare_cico(options, &idle, &during, "the harvest");
    }
    println!(
        "harvest ({}): {} records ({} deleted) in {} pages, {:.1} s, {:.0} records/s, {:.0} MB; page p50 {:.1} ms, p95 {:.1} ms, p99 {:.1} ms",
        args.prefix,
        harvest.records,
        harvest.deleted,
        harvest.pages,
        harvest.seconds,
        harvest.records as f64 / harvest.seconds,
        harvest.bytes as f64 / 1e6,
        load::quantile(&harvest.page_ms, 0.5),
        load::quantile(&harvest.page_ms, 0.95),
        load::quantile(&harvest.page_ms, 0.99),
    );
    Ok(())
}

fn write_report(args: &LoadArgs, report: &load::Report) -> anyhow::Result<()> {
    println!("{}", report.text());
    if let Some(path) = &args.json {
        std::fs::write(path, report.json())
            .with_context(|| format!("writing {}", path.display()))?;
    }
    if let Some(path) = &args.html {
        std::fs::write(path, report.html())
            .with_context(|| format!("writing {}", path.display()))?;
    }
    if report.all.errors > 0 {
        eprintln!("{} of {} requests failed", report.all.errors, report.all.total);
    }
    Ok(())
}

fn reqwest_client() -> anyhow::Result<load::reqwest::Client> {
    Ok(load::reqwest::Client::builder().timeout(Duration::from_secs(120)).build()?)
}

/// Starts a full reindex of another tenant, logged in with the same credentials.
async fn start_reindex(
    client: &load::reqwest::Client,
    options: &load::LoadOptions,
    tenant: &str,
) -> anyhow::Result<()> {
    let other = load::LoadOptions { tenant: tenant.to_string(), ..options.clone() };
    let token = load::login(client, &other).await?;
    let response = client
        .post(format!("{}/search/index/instance-records/reindex/full", options.url))
        .header("x-okapi-tenant", tenant)
        .header("x-okapi-token", token)
        .header("content-type", "application/json")
        .body("{}")
        .send()
        .await?;
    anyhow::ensure!(
        response.status().is_success(),
        "starting the reindex of {tenant} failed: {}",
        response.status()
    );
    Ok(())
}

#[derive(Debug, clap::Args)]
pub(crate) struct ReindexArgs {
    #[arg(long)]
    tenant: String,
    #[command(flatten)]
    data: DataDirArg,
}

pub(crate) fn reindex(args: ReindexArgs) -> anyhow::Result<()> {
    let store = args.data.open(args.data.options()?)?;
    let tenant = store.tenant(&args.tenant)?;
    let index = search::InstanceIndex::open(&tenant)
        .context("opening the search index (is a server running on this data directory? then use its reindex API)")?;
    let bar = indicatif::ProgressBar::new(0);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{elapsed_precise} [{bar:40}] {pos}/{len} instances, {per_sec}, eta {eta}",
        )
        .expect("valid template")
        .progress_chars("=> "),
    );
    let stats = index.reindex(&tenant, |progress| {
        bar.set_length(progress.total);
        bar.set_position(progress.done);
    })?;
    bar.finish_and_clear();
    let secs = stats.elapsed.as_secs_f64();
    println!(
        "reindexed {} instances of tenant {} in {:.1} s ({:.0} instances/s); {} changes replayed",
        stats.instances,
        args.tenant,
        secs,
        stats.instances as f64 / secs.max(1e-9),
        stats.replayed,
    );
    match stats.compaction {
        Some(took) => println!(
            "merged into one segment {:.1} s after that; generation {}",
            took.as_secs_f64(),
            stats.generation
        ),
        None => println!("generation {}", stats.generation),
    }
    Ok(())
}
