//! `quire demo`: a server on a fresh data directory with a `demo` tenant, an administrator,
//! reference data and generated instances, holdings, items, patrons, loans and requests.
//!
//! The records come from the workload generator behind `quire generate` (seed 42),
//! written straight into storage, not through HTTP.

use anyhow::Context;

use crate::DemoArgs;

const TENANT: &str = "demo";
const ADMIN_USER: &str = "admin";
const ADMIN_PASSWORD: &str = "admin";

pub(crate) fn run(args: DemoArgs) -> anyhow::Result<()> {
    let (data_dir, _temp_guard) = match &args.data_dir {
        Some(dir) => (dir.clone(), None),
        None => {
            let dir = std::env::temp_dir().join(format!("quire-demo-{}", std::process::id()));
            (dir.clone(), Some(TempDir(dir)))
        }
    };
    if data_dir.join("tenants").join(TENANT).exists() {
        anyhow::bail!(
            "{} already holds a demo tenant; pass a fresh --data-dir",
            data_dir.display()
        );
    }
    std::fs::create_dir_all(&data_dir)
        .with_context(|| format!("creating {}", data_dir.display()))?;
    let data = crate::DataDirArg {
        data_dir: data_dir.clone(),
        store: "sqlite".to_string(),
        store_connections: store::Options::default().connections,
    };
    let store = crate::open_store(&data, &args.server)?;
    let admin = runtime::AdminUser {
        username: ADMIN_USER.to_string(),
        password: ADMIN_PASSWORD.to_string(),
    };
    runtime::provision_tenant(&store, TENANT, Some(&admin), runtime::ExistingUsers::MayAdd)
        .context("cannot create the demo tenant")?;
    let tenant = store.tenant(TENANT)?;
    let options = generate::GenerateOptions {
        instances: args.instances,
        seed: 42,
        corpus: marc_corpus()?,
        ..generate::GenerateOptions::default()
    };
    let report = generate::generate(&tenant, &options, &mut |_| {})?;
    eprintln!(
        "generated {} instances, {} holdings, {} items, {} patrons, {} open loans, {} requests in {:.1} s",
        report.instances,
        report.holdings,
        report.items,
        report.users,
        report.circulation.open_loans,
        report.circulation.requests,
        report.seconds
    );
    let desk = desk_example(&tenant)?;
    let oai_key = tenant.write(|w| oai::issue(w, TENANT, ADMIN_USER))?.encode();
    print_guide(&args, &data_dir, &desk, &oai_key);
    if args.no_serve {
        return Ok(());
    }
    let state = crate::app_state(store, &data_dir, &args.server, args.listen)?;
    crate::serve(state, args.listen)
}

/// Removes the demo's temporary data directory when the demo ends.
struct TempDir(std::path::PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// An Available item, an active patron and a service point for the check-out example:
/// (item barcode, patron barcode, service point id).
/// Real MARC records for the demo's MARC-sourced instances and their SRS records: the
/// Library of Congress file if this machine has it (`quire generate` fetches it), else
/// the shared test bibs beside the workspace (`100.mrc`: its `2500.mrc` and `5000.mrc`
/// are authorities, which have no titles). Without either, every instance is
/// FOLIO-sourced.
fn marc_corpus() -> anyhow::Result<Option<std::sync::Arc<generate::marc_bibs::LcCorpus>>> {
    use generate::marc_bibs::LcCorpus;
    let shared =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/marc/100.mrc");
    let path = LcCorpus::locate().or_else(|| shared.is_file().then_some(shared));
    let Some(path) = path else { return Ok(None) };
    Ok(Some(std::sync::Arc::new(LcCorpus::load(&path)?)))
}

fn desk_example(tenant: &store::Tenant) -> anyhow::Result<(String, String, String)> {
    let first = |bodies: Vec<String>, field: &str| -> Option<String> {
        let value: serde_json::Value = serde_json::from_str(bodies.first()?).ok()?;
        value[field].as_str().map(str::to_string)
    };
    let page = store::Page { offset: 0, limit: 1 };
    let (item, patron, point) = tenant.read(|r| -> anyhow::Result<_> {
        let available = Some(r#"status.name=="Available" sortBy barcode"#);
        let item = inventory::list_json::<inventory::Item>(r, available, page)?;
        let patron = auth::list_users(r, Some("active==true and barcode=P*"), page)?;
        let kind = inventory::RefKind::ServicePoint;
        let point = inventory::list_reference_json(r, kind, None, page)?;
        Ok((item, patron, point))
    })?;
    Ok((
        first(item.0, "barcode").unwrap_or_default(),
        first(patron.0, "barcode").unwrap_or_default(),
        first(point.0, "id").unwrap_or_default(),
    ))
}

fn print_guide(
    args: &DemoArgs,
    data_dir: &std::path::Path,
    desk: &(String, String, String),
    oai_key: &str,
) {
    let url = format!("http://{}", args.listen);
    println!(
        "\nOpen the staff page: {url}/?tenant={TENANT}   (user '{ADMIN_USER}', password '{ADMIN_PASSWORD}')"
    );
    println!(
        "\nQuire demo: tenant '{TENANT}', user '{ADMIN_USER}', password '{ADMIN_PASSWORD}', data in {}\n",
        data_dir.display()
    );
    println!("Or use the FOLIO API directly.");
    println!("Log in and keep the token:");
    println!(
        "  TOKEN=$(curl -s -XPOST {url}/authn/login -H 'X-Okapi-Tenant: {TENANT}' -H 'Content-Type: application/json' \\\n      -d '{{\"username\":\"{ADMIN_USER}\",\"password\":\"{ADMIN_PASSWORD}\"}}' | sed 's/.*\"okapiToken\":\"\\([^\"]*\\)\".*/\\1/')"
    );
    println!("Then try:");
    let h = format!("-H 'X-Okapi-Tenant: {TENANT}' -H \"X-Okapi-Token: $TOKEN\"");
    println!("  curl -s {h} '{url}/instance-storage/instances?limit=2'");
    println!(
        "  curl -s {h} -G '{url}/inventory/items' --data-urlencode 'query=barcode==\"0000000001\"'"
    );
    println!(
        "  curl -s {h} -G '{url}/item-storage/items' --data-urlencode 'query=status.name==\"Checked out\" sortBy barcode' -d limit=3"
    );
    println!("  curl -s {h} '{url}/locations'");
    println!(
        "  curl -s {h} -H 'Content-Type: application/json' -XPOST '{url}/circulation/check-out-by-barcode' \\\n      -d '{{\"itemBarcode\":\"{}\",\"userBarcode\":\"{}\",\"servicePointId\":\"{}\"}}'",
        desk.0, desk.1, desk.2
    );
    println!("Harvest by OAI-PMH (FOLIO's edge API; the key is the demo's):");
    println!(
        "  curl -s '{url}/oai?verb=ListRecords&metadataPrefix=marc21_withholdings&apikey={oai_key}'"
    );
    println!("  curl -s {url}/admin/health; curl -s {url}/admin/metrics | head\n");
}
