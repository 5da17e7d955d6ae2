//! `quire`: the one binary. Parses flags, dispatches to a subcommand, maps errors to exit
//! codes. Everything else lives in the library crates.

use std::{net::SocketAddr, path::PathBuf, sync::Arc};

use anyhow::Context;
use clap::{Parser, Subcommand};

#[allow(unsafe_code)]
mod allocator;
mod demo;
mod events;
mod import;
mod workload;

/// Quire: a fast library services platform speaking FOLIO's HTTP API.
#[derive(Debug, Parser)]
#[command(name = "quire", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run the HTTP server.
    Serve(ServeArgs),
    /// Start a server on a fresh data directory with a `demo` tenant and generated records.
    Demo(DemoArgs),
    /// Manage tenants.
    #[command(subcommand)]
    Tenant(TenantCommand),
    /// Parse CQL queries, one per stdin line, and print their XCQL (or `ERROR: ...`),
    /// each followed by a line `----`.
    Cql,
    /// Write a realistic, reproducible data set straight into a tenant's storage.
    Generate(workload::GenerateArgs),
    /// Rebuild a tenant's search index (with the server stopped; a running server
    /// reindexes through `POST /search/index/instance-records/reindex/full`).
    Reindex(workload::ReindexArgs),
    /// Replay one of FOLIO's performance tests against a server and report the figures
    /// beside FOLIO's.
    Load(Box<workload::LoadArgs>),
    /// Import a MARC file into a tenant: into a data directory, or through a server.
    Import(import::ImportArgs),
    /// Domain events published to Kafka.
    #[command(subcommand)]
    Events(events::EventsCommand),
}

#[derive(Debug, clap::Args)]
pub(crate) struct DataDirArg {
    /// The data directory: one database (and later index) per tenant under it.
    #[arg(long, env = "QUIRE_DATA_DIR", default_value = "quire-data")]
    pub(crate) data_dir: PathBuf,
    /// Where records are kept: `sqlite`, one database per tenant in the data directory,
    /// or a PostgreSQL database's URL (`postgresql://user@host:port/database`), one
    /// schema per tenant, the data directory then holding this node's search indexes.
    #[arg(long, env = "QUIRE_STORE", default_value = "sqlite")]
    pub(crate) store: String,
    /// On PostgreSQL: connections kept open for reuse, shared by every tenant. Timeouts
    /// go in the URL: `connect_timeout=SECONDS`, and `options=-c statement_timeout=MS`.
    #[arg(long, env = "QUIRE_STORE_CONNECTIONS", default_value_t = 16)]
    pub(crate) store_connections: usize,
}

impl DataDirArg {
    /// The default storage options on the store asked for.
    pub(crate) fn options(&self) -> anyhow::Result<store::Options> {
        let backend = match self.store.as_str() {
            "sqlite" => store::Backend::Sqlite,
            url if url.starts_with("postgresql://") || url.starts_with("postgres://") => {
                store::Backend::Postgres { url: url.to_string() }
            }
            other => anyhow::bail!(
                "--store {other:?}: expected sqlite or a postgresql://user@host:port/database URL"
            ),
        };
        anyhow::ensure!(self.store_connections >= 1, "--store-connections must be at least 1");
        Ok(store::Options {
            backend,
            connections: self.store_connections,
            ..store::Options::default()
        })
    }

    /// Opens the store with `options` (from [`DataDirArg::options`]) and every
    /// component's migrations.
    pub(crate) fn open(&self, options: store::Options) -> anyhow::Result<store::Store> {
        let what = match &options.backend {
            store::Backend::Sqlite => format!("data directory {}", self.data_dir.display()),
            store::Backend::Postgres { .. } => "the PostgreSQL store".to_string(),
        };
        store::Store::open(&self.data_dir, options, &runtime::components())
            .with_context(|| format!("opening {what}"))
    }
}

#[derive(Debug, clap::Args)]
struct ServeArgs {
    #[command(flatten)]
    data: DataDirArg,
    /// Address to listen on.
    #[arg(long, env = "QUIRE_LISTEN", default_value = "127.0.0.1:9130")]
    listen: SocketAddr,
    #[command(flatten)]
    server: ServerOptions,
}

#[derive(Debug, Clone, clap::Args)]
struct ServerOptions {
    /// Key required in `X-Quire-Admin-Key` by the tenant API (`POST /_/tenant`). Without
    /// it the tenant API is open when listening on loopback and closed otherwise.
    #[arg(long, env = "QUIRE_ADMIN_KEY")]
    admin_key: Option<String>,
    /// `normal`: a commit survives a crash of the process; `full`: also a power loss.
    #[arg(long, env = "QUIRE_DURABILITY", default_value = "normal", value_parser = ["normal", "full"])]
    durability: String,
    /// Read each tenant's database into memory in the background at start, at idle
    /// priority, and keep it mapped, so the first requests do not wait on the disk.
    #[arg(long, env = "QUIRE_PREWARM", default_value_t = true, action = clap::ArgAction::Set)]
    prewarm: bool,
    /// Largest request body accepted, in bytes.
    #[arg(long, env = "QUIRE_MAX_BODY_BYTES", default_value_t = 64 * 1024 * 1024)]
    max_body_bytes: usize,
    /// Lifetime of access tokens (login-with-expiry), in seconds.
    #[arg(long, env = "QUIRE_ACCESS_TOKEN_TTL", default_value_t = 600)]
    access_token_ttl: u64,
    /// Lifetime of tokens from the legacy /authn/login, in seconds.
    #[arg(long, env = "QUIRE_LEGACY_TOKEN_TTL", default_value_t = 86400)]
    legacy_token_ttl: u64,
    #[command(flatten)]
    kafka: events::KafkaArgs,
}

#[derive(Debug, clap::Args)]
struct DemoArgs {
    /// Where to put the demo's data; a fresh temporary directory when absent.
    #[arg(long, env = "QUIRE_DEMO_DIR")]
    data_dir: Option<PathBuf>,
    /// Address to listen on.
    #[arg(long, env = "QUIRE_LISTEN", default_value = "127.0.0.1:9130")]
    listen: SocketAddr,
    /// How many instances to generate.
    #[arg(long, default_value_t = 5000)]
    instances: usize,
    /// Generate the data, print what to try, and exit without serving.
    #[arg(long)]
    no_serve: bool,
    #[command(flatten)]
    server: ServerOptions,
}

#[derive(Debug, Subcommand)]
enum TenantCommand {
    /// Create a tenant with reference data and an administrator (idempotent).
    Create {
        /// Tenant name: `[a-z][a-z0-9_]{0,30}`.
        name: String,
        #[arg(long, env = "QUIRE_ADMIN_USER", default_value = "admin")]
        admin_user: String,
        #[arg(long, env = "QUIRE_ADMIN_PASSWORD")]
        admin_password: String,
        #[command(flatten)]
        data: DataDirArg,
    },
    /// List tenants.
    List {
        #[command(flatten)]
        data: DataDirArg,
    },
    /// Issue an API key for FOLIO's OAI-PMH edge API (`/oai?apikey=KEY`), naming the
    /// tenant and one of its users (the institutional user harvests run as).
    OaiKey {
        name: String,
        #[arg(long, default_value = "admin")]
        user: String,
        #[command(flatten)]
        data: DataDirArg,
    },
    /// Copy a tenant, with its change log, from one store to another (a data directory
    /// or a PostgreSQL URL each), and check the copy table by table, by row count and
    /// checksum. The source is left as it was. Run it with no server writing to the
    /// tenant; the target's servers build their indexes from the copied change log.
    Move {
        name: String,
        /// Where the tenant is: a data directory, or `postgresql://user@host:port/db`.
        #[arg(long)]
        from: String,
        /// Where it goes (it must not be there yet): a data directory or a URL.
        #[arg(long)]
        to: String,
    },
}

/// A store given as a data directory (SQLite) or a PostgreSQL URL, and the directory
/// that holds a PostgreSQL store's derived state meanwhile.
fn open_location(location: &str) -> anyhow::Result<(store::Store, Option<tempfile::TempDir>)> {
    let components = runtime::components();
    if location.starts_with("postgresql://") || location.starts_with("postgres://") {
        let scratch = tempfile::tempdir()?;
        let options = store::Options {
            backend: store::Backend::Postgres { url: location.to_string() },
            ..store::Options::default()
        };
        let store = store::Store::open(scratch.path(), options, &components)
            .with_context(|| format!("opening {location}"))?;
        return Ok((store, Some(scratch)));
    }
    let store =
        store::Store::open(std::path::Path::new(location), store::Options::default(), &components)
            .with_context(|| format!("opening data directory {location}"))?;
    Ok((store, None))
}

fn main() -> std::process::ExitCode {
    allocator::keep_freed_memory();
    init_logging();
    allocator::give_back_freed_memory();
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// Logs go to stderr, filtered by `QUIRE_LOG` (default `info`), as text or, with
/// `QUIRE_LOG_FORMAT=json`, one JSON object per event with its span fields (tenant,
/// method, route, request id) for log collectors.
fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_env("QUIRE_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr);
    if std::env::var("QUIRE_LOG_FORMAT").is_ok_and(|f| f.eq_ignore_ascii_case("json")) {
        builder.json().with_current_span(true).init();
    } else {
        builder.init();
    }
}

fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Serve(args) => {
            let store = open_store(&args.data, &args.server)?;
            let state = app_state(store, &args.data.data_dir, &args.server, args.listen)?;
            serve(state, args.listen)
        }
        Command::Demo(args) => demo::run(args),
        Command::Tenant(TenantCommand::Create { name, admin_user, admin_password, data }) => {
            let store = data.open(data.options()?)?;
            let admin = runtime::AdminUser { username: admin_user, password: admin_password };
            let existing = runtime::ExistingUsers::MayAdd;
            let outcome = runtime::provision_tenant(&store, &name, Some(&admin), existing)
                .with_context(|| format!("cannot create tenant {name}"))?;
            println!(
                "tenant {name}: {}; {} reference records added; administrator {}",
                if outcome.created_tenant { "created" } else { "already existed" },
                outcome.n_reference_records,
                if outcome.created_admin {
                    format!("'{}' created", admin.username)
                } else {
                    "already present".to_string()
                }
            );
            Ok(())
        }
        Command::Tenant(TenantCommand::List { data }) => {
            let store = data.open(data.options()?)?;
            for name in store.tenant_names() {
                println!("{name}");
            }
            Ok(())
        }
        Command::Tenant(TenantCommand::OaiKey { name, user, data }) => {
            let store = data.open(data.options()?)?;
            let tenant = store.tenant(&name).with_context(|| format!("no tenant {name}"))?;
            let known = tenant.read(|r| auth::username_taken(r, &user))?;
            anyhow::ensure!(known, "tenant {name} has no user {user}");
            let key = tenant.write(|w| oai::issue(w, &name, &user))?;
            println!("{}", key.encode());
            Ok(())
        }
        Command::Tenant(TenantCommand::Move { name, from, to }) => {
            let started = std::time::Instant::now();
            let (source, _scratch) = open_location(&from)?;
            anyhow::ensure!(source.tenant(&name).is_ok(), "{from} holds no tenant {name}");
            let (target, _scratch) = open_location(&to)?;
            let sums = source
                .copy_tenant(&name, &target)
                .with_context(|| format!("copying tenant {name} from {from} to {to}"))?;
            for sum in &sums {
                println!("{:<32} {:>12} rows  checksum {:016x}", sum.table, sum.rows, sum.checksum);
            }
            let rows: u64 = sums.iter().map(|s| s.rows).sum();
            println!(
                "tenant {name}: {} tables, {rows} rows copied to {to} and checked in {:.1} s; \
                 {from} still holds it",
                sums.len(),
                started.elapsed().as_secs_f64()
            );
            Ok(())
        }
        Command::Generate(args) => workload::generate(args),
        Command::Reindex(args) => workload::reindex(args),
        Command::Load(args) => workload::load(*args),
        Command::Import(args) => import::run(args),
        Command::Events(command) => events::run(command),
        Command::Cql => {
            let stdin = std::io::stdin();
            let stdout = std::io::stdout();
            cql::xcql_filter(stdin.lock(), std::io::BufWriter::new(stdout.lock()))
                .context("reading queries")?;
            Ok(())
        }
    }
}

fn open_store(data: &DataDirArg, options: &ServerOptions) -> anyhow::Result<Arc<store::Store>> {
    let durability = match options.durability.as_str() {
        "full" => store::Durability::Full,
        _ => store::Durability::Normal,
    };
    let store =
        data.open(store::Options { durability, prewarm: options.prewarm, ..data.options()? })?;
    Ok(Arc::new(store))
}

fn app_state(
    store: Arc<store::Store>,
    data_dir: &std::path::Path,
    options: &ServerOptions,
    listen: SocketAddr,
) -> anyhow::Result<server::AppState> {
    // On PostgreSQL every node signs with the database's key, so a token is good on any.
    let key = match store.shared_value("token-key", || auth::TokenKey::generate().to_hex())? {
        Some(hex) => auth::TokenKey::from_hex(&hex).context("the store's token key")?,
        None => load_or_create_key(data_dir)?,
    };
    let config = server::Config {
        max_body_bytes: options.max_body_bytes,
        access_token_ttl: std::time::Duration::from_secs(options.access_token_ttl),
        legacy_token_ttl: std::time::Duration::from_secs(options.legacy_token_ttl),
        admin_key: options.admin_key.clone(),
        open_tenant_api: listen.ip().is_loopback(),
        ..server::Config::default()
    };
    let publisher = options.kafka.start(&store)?;
    let state = server::AppState::new(Arc::new(runtime::Runtime::new(store)), key, config);
    Ok(match publisher {
        Some(publisher) => state.with_events(Arc::new(publisher)),
        None => state,
    })
}

/// The token-signing key lives in the data directory, so tokens survive a restart and
/// every process on the directory agrees on it.
fn load_or_create_key(data_dir: &std::path::Path) -> anyhow::Result<auth::TokenKey> {
    let path = data_dir.join("token.key");
    if let Ok(text) = std::fs::read_to_string(&path) {
        return auth::TokenKey::from_hex(&text)
            .with_context(|| format!("{} is not a valid key", path.display()));
    }
    let key = auth::TokenKey::generate();
    let tmp = data_dir.join("token.key.tmp");
    std::fs::write(&tmp, key.to_hex()).with_context(|| format!("writing {}", tmp.display()))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o600))?;
    }
    std::fs::rename(&tmp, &path)?;
    Ok(key)
}

fn serve(state: server::AppState, listen: SocketAddr) -> anyhow::Result<()> {
    state.runtime().open_search_indexes().context("cannot open the search indexes")?;
    state
        .runtime()
        .follow_harvest_indexes()
        .context("cannot follow the OAI-PMH harvest indexes")?;
    // Import jobs and bulk operations that were running when the process stopped, or
    // whose node died, go on from their last chunk.
    state.runtime().keep_jobs_running().context("cannot start the job keeper")?;
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(listen)
            .await
            .with_context(|| format!("cannot listen on {listen}"))?;
        tracing::info!(%listen, tenants = ?state.runtime().store().tenant_names(), "quire listening");
        server::serve(state, listener).await?;
        Ok(())
    })
}
