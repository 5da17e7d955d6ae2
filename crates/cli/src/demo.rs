//! `quire demo`: a server on a fresh data directory with a `demo` tenant, an administrator,
//! reference data and generated instances with holdings and items.
//!
//! The records are written straight into storage, not through HTTP. The full workload
//! generator (`quire generate`, realistic MARC-derived data at scale) is a separate
//! command; this one only needs enough believable records to try the API on.

use std::time::Instant;

use anyhow::Context;
use inventory::RefKind;
use rand::{Rng, SeedableRng, rngs::StdRng};

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
    let store = crate::open_store(&data_dir, &args.server)?;
    let admin = server::AdminUser {
        username: ADMIN_USER.to_string(),
        password: ADMIN_PASSWORD.to_string(),
    };
    server::provision_tenant(&store, TENANT, Some(&admin))
        .map_err(|e| anyhow::anyhow!("cannot create the demo tenant: {}", e.status()))?;
    let tenant = store.tenant(TENANT)?;
    let started = Instant::now();
    let counts = generate(&tenant, args.instances, 42)?;
    eprintln!(
        "generated {} instances, {} holdings, {} items in {:.1} s",
        counts.0,
        counts.1,
        counts.2,
        started.elapsed().as_secs_f64()
    );
    print_guide(&args, &data_dir);
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

fn print_guide(args: &DemoArgs, data_dir: &std::path::Path) {
    let url = format!("http://{}", args.listen);
    println!(
        "\nQuire demo: tenant '{TENANT}', user '{ADMIN_USER}', password '{ADMIN_PASSWORD}', data in {}\n",
        data_dir.display()
    );
    println!("Log in and keep the token:");
    println!(
        "  TOKEN=$(curl -s -XPOST {url}/authn/login -H 'X-Okapi-Tenant: {TENANT}' -H 'Content-Type: application/json' \\\n      -d '{{\"username\":\"{ADMIN_USER}\",\"password\":\"{ADMIN_PASSWORD}\"}}' | sed 's/.*\"okapiToken\":\"\\([^\"]*\\)\".*/\\1/')"
    );
    println!("Then try:");
    let h = format!("-H 'X-Okapi-Tenant: {TENANT}' -H \"X-Okapi-Token: $TOKEN\"");
    println!("  curl -s {h} '{url}/instance-storage/instances?limit=2'");
    println!(
        "  curl -s {h} -G '{url}/inventory/items' --data-urlencode 'query=barcode==\"demo-000000001\"'"
    );
    println!(
        "  curl -s {h} -G '{url}/item-storage/items' --data-urlencode 'query=status.name==\"Checked out\" sortBy barcode' -d limit=3"
    );
    println!("  curl -s {h} '{url}/locations'");
    println!("  curl -s {url}/admin/health; curl -s {url}/admin/metrics | head\n");
}

/// A few hundred common words; titles draw from them with a skew towards the first, so
/// some words are frequent and most are rare, as in a real catalogue.
const WORDS: &[&str] = &[
    "history",
    "introduction",
    "world",
    "american",
    "new",
    "life",
    "theory",
    "art",
    "studies",
    "science",
    "guide",
    "war",
    "music",
    "english",
    "practice",
    "social",
    "language",
    "modern",
    "development",
    "century",
    "poems",
    "book",
    "handbook",
    "early",
    "national",
    "french",
    "public",
    "analysis",
    "education",
    "essays",
    "america",
    "state",
    "collected",
    "politics",
    "literature",
    "law",
    "design",
    "health",
    "culture",
    "medicine",
    "letters",
    "works",
    "church",
    "children",
    "great",
    "selected",
    "economic",
    "policy",
    "women",
    "research",
    "systems",
    "management",
    "china",
    "british",
    "england",
    "german",
    "journal",
    "methods",
    "principles",
    "report",
    "philosophy",
    "religion",
    "south",
    "north",
    "east",
    "west",
    "city",
    "river",
    "mountain",
    "garden",
    "ocean",
    "island",
    "stories",
    "tales",
    "novel",
    "memoir",
    "biography",
    "atlas",
    "dictionary",
    "encyclopedia",
    "chemistry",
    "physics",
    "biology",
    "mathematics",
    "geology",
    "astronomy",
    "engineering",
    "computing",
    "economics",
    "psychology",
    "sociology",
    "anthropology",
    "archaeology",
    "linguistics",
    "rhetoric",
    "logic",
    "ethics",
    "aesthetics",
    "democracy",
    "empire",
    "revolution",
    "reform",
    "trade",
    "industry",
    "labor",
    "market",
    "money",
    "banking",
    "finance",
    "agriculture",
    "forestry",
    "fisheries",
    "climate",
    "weather",
    "energy",
    "water",
    "soil",
    "plants",
    "animals",
    "birds",
    "insects",
    "fishes",
    "mammals",
    "evolution",
    "genetics",
    "cells",
    "brain",
    "mind",
    "memory",
    "dreams",
    "childhood",
    "youth",
    "family",
    "marriage",
    "friendship",
    "love",
    "death",
    "grief",
    "hope",
    "faith",
    "freedom",
    "justice",
    "power",
    "peace",
    "conflict",
    "migration",
    "exile",
    "home",
    "travel",
    "voyage",
    "journey",
    "maps",
    "borders",
    "frontier",
    "colonial",
    "medieval",
    "ancient",
    "renaissance",
    "baroque",
    "victorian",
    "twentieth",
    "nineteenth",
    "contemporary",
    "future",
    "technology",
    "machines",
    "networks",
    "information",
    "libraries",
    "archives",
    "museums",
    "books",
    "print",
    "reading",
    "writing",
    "translation",
    "poetry",
    "drama",
    "theatre",
    "film",
    "photography",
    "painting",
    "sculpture",
    "architecture",
    "cities",
    "villages",
    "landscape",
    "nature",
    "wilderness",
    "seasons",
    "night",
];

const LANGUAGES: &[&str] =
    &["eng", "eng", "eng", "eng", "ger", "fre", "spa", "ita", "rus", "chi", "jpn", "por"];

const STATUSES: &[&str] =
    &["Available", "Available", "Available", "Available", "Checked out", "In transit", "Missing"];

fn word(rng: &mut StdRng) -> &'static str {
    // Squaring a uniform draw skews towards the start of the list.
    let u: f64 = rng.r#gen();
    WORDS[((u * u) * WORDS.len() as f64) as usize % WORDS.len()]
}

fn title(rng: &mut StdRng) -> String {
    let n = rng.gen_range(2..7);
    let mut words: Vec<&str> = (0..n).map(|_| word(rng)).collect();
    if rng.gen_bool(0.3) {
        words.insert(0, "the");
    }
    let mut title = words.join(" ");
    if let Some(first) = title.get_mut(0..1) {
        first.make_ascii_uppercase();
    }
    title
}

fn name(rng: &mut StdRng) -> String {
    const FIRST: &[&str] = &[
        "Anna", "Ben", "Clara", "David", "Eva", "Farid", "Grace", "Hugo", "Ines", "Jon", "Kai",
        "Lena",
    ];
    const LAST: &[&str] = &[
        "Smith", "Müller", "García", "Rossi", "Novak", "Kim", "Okafor", "Larsen", "Dubois",
        "Silva", "Tanaka", "Cohen",
    ];
    format!("{}, {}", LAST[rng.gen_range(0..LAST.len())], FIRST[rng.gen_range(0..FIRST.len())])
}

/// Generates `n` instances with about 1.07 holdings and 1.22 items each (FOLIO PTF's
/// proportions). Returns (instances, holdings, items).
pub(crate) fn generate(
    tenant: &store::Tenant,
    n: usize,
    seed: u64,
) -> anyhow::Result<(usize, usize, usize)> {
    let refs = tenant.read(|r| {
        let id = |kind, name: &str| -> anyhow::Result<uuid::Uuid> {
            inventory::reference_id_by_name(r, kind, name)?
                .with_context(|| format!("reference data has no {kind:?} named {name:?}"))
        };
        Ok::<_, anyhow::Error>((
            id(RefKind::InstanceType, "text")?,
            id(RefKind::ContributorNameType, "Personal name")?,
            id(RefKind::HoldingsSource, "FOLIO")?,
            id(RefKind::MaterialType, "book")?,
            id(RefKind::LoanType, "Can circulate")?,
            location_ids(r)?,
        ))
    })?;
    let (instance_type, personal_name, folio_source, book, can_circulate, locations) = refs;
    let mut rng = StdRng::seed_from_u64(seed);
    let (mut n_holdings, mut n_items) = (0, 0);
    const CHUNK: usize = 1000;
    let mut start = 0;
    while start < n {
        let end = (start + CHUNK).min(n);
        let mut instances = Vec::new();
        let mut holdings = Vec::new();
        let mut items = Vec::new();
        for idx in start..end {
            let instance_id = random_uuid(&mut rng);
            let instance: inventory::Instance = serde_json::from_value(serde_json::json!({
                "id": instance_id,
                "source": "FOLIO",
                "title": title(&mut rng),
                "instanceTypeId": instance_type,
                "languages": [LANGUAGES[rng.gen_range(0..LANGUAGES.len())]],
                "contributors": [{ "name": name(&mut rng), "contributorNameTypeId": personal_name, "primary": true }],
                "subjects": [{ "value": format!("{} -- {}", word(&mut rng), word(&mut rng)) }],
                "publication": [{ "publisher": format!("{} Press", name(&mut rng).split(',').next().unwrap_or("Demo")), "dateOfPublication": rng.gen_range(1850..2026).to_string() }],
                "discoverySuppress": rng.gen_bool(0.02),
            }))?;
            instances.push(instance);
            let n_h = if rng.gen_bool(0.07) { 2 } else { 1 };
            for _ in 0..n_h {
                let holdings_id = random_uuid(&mut rng);
                let location = locations[rng.gen_range(0..locations.len())];
                holdings.push(serde_json::from_value::<inventory::HoldingsRecord>(serde_json::json!({
                    "id": holdings_id,
                    "instanceId": instance_id,
                    "sourceId": folio_source,
                    "permanentLocationId": location,
                    "callNumber": format!("{}{} .{}{}", (b'A' + rng.gen_range(0..26)) as char, rng.gen_range(1..9999), (b'A' + rng.gen_range(0..26)) as char, rng.gen_range(1..99)),
                }))?);
                n_holdings += 1;
                let n_i = if rng.gen_bool(0.14) { 2 } else { 1 };
                for _ in 0..n_i {
                    n_items += 1;
                    items.push(serde_json::from_value::<inventory::Item>(serde_json::json!({
                        "holdingsRecordId": holdings_id,
                        "barcode": format!("demo-{n_items:09}"),
                        "status": { "name": STATUSES[rng.gen_range(0..STATUSES.len())] },
                        "materialTypeId": book,
                        "permanentLoanTypeId": can_circulate,
                    }))?);
                }
            }
            let _ = idx;
        }
        let actor = inventory::Actor::default();
        tenant.write(|w| {
            inventory::save_batch(w, instances, false, actor)?;
            inventory::save_batch(w, holdings, false, actor)?;
            inventory::save_batch(w, items, false, actor)?;
            Ok::<_, inventory::Error>(())
        })?;
        start = end;
    }
    Ok((n, n_holdings, n_items))
}

/// A version-4 UUID from the seeded generator, so a demo is reproducible.
fn random_uuid(rng: &mut StdRng) -> uuid::Uuid {
    uuid::Builder::from_random_bytes(rng.r#gen()).into_uuid()
}

fn location_ids(reader: &store::Reader<'_>) -> anyhow::Result<Vec<uuid::Uuid>> {
    let (bodies, _) = inventory::list_reference_json(
        reader,
        RefKind::Location,
        None,
        store::Page { offset: 0, limit: 100 },
    )?;
    let mut ids = Vec::new();
    for body in bodies {
        let record = RefKind::Location.decode(body.as_bytes())?;
        ids.extend(record.id());
    }
    anyhow::ensure!(!ids.is_empty(), "reference data has no locations");
    Ok(ids)
}
