//! `quire generate`: a realistic, reproducible library data set written straight into a
//! tenant's storage, in FOLIO's proportions (per instance about 1.07 holdings records and
//! 1.22 items, as in the PTF data set).
//!
//! A producer thread builds batches of typed records while the calling thread writes them,
//! one transaction per batch, so the two cores share the work. Everything is drawn from a
//! ChaCha generator seeded by `--seed`, whose output is stable across platforms and
//! versions, so two runs with the same seed and the same starting tenant write the same
//! records (only `metadata` dates differ).
//!
//! What it writes: instances, holdings and items; MARC source records and authorities
//! derived from real records when given; patrons, loan policies, circulation rules,
//! open loans and requests (`circulation`).

use std::{
    sync::{Arc, mpsc},
    time::Instant,
};

use anyhow::Context;
use inventory::RefKind;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};
use uuid::Uuid;

use crate::circulation::{Circulating, Circulation, CirculationReport};
use crate::marc_bibs::{LcCorpus, MarcRefs, instance_from_marc, random_isbn};
use crate::words::{Words, capitalize};

/// What to generate.
#[derive(Debug, Clone)]
pub struct GenerateOptions {
    pub instances: usize,
    pub seed: u64,
    /// Instances per write transaction. The tables' UUID indexes take inserts at
    /// random places, so a transaction rewrites most of their pages however few rows it
    /// adds; large ones write each page once for many inserts. 400,000 instances took
    /// 174 s in transactions of 2,000 and 91-103 s in transactions of 10,000; 1,000,000
    /// took 315-352 s in transactions of 10,000 (325 s with a 1 GiB cache), 240 s in
    /// 50,000 with 2 GiB (3.9 GB resident) and 215 s in 100,000 with 3 GiB (6.2 GB).
    pub batch_size: usize,
    /// The writer's page cache while generating (`store::Tenant::set_write_cache`):
    /// large enough to hold every page a transaction dirties, so none is written to the
    /// WAL twice.
    pub write_cache: u64,
    /// Real MARC records to derive MARC-sourced instances and their source records
    /// from; without them every instance is FOLIO-sourced, with text from the word list.
    pub corpus: Option<Arc<LcCorpus>>,
    /// The share of instances that are MARC-sourced when a corpus is given.
    pub marc_share: f64,
    /// Real MARC authority records to derive authorities from (none: no authorities).
    pub authority_records: Arc<Vec<marc::Record>>,
    /// Authorities per instance, when authority records are given.
    pub authorities_per_instance: f64,
}

impl Default for GenerateOptions {
    fn default() -> Self {
        GenerateOptions {
            instances: 1000,
            seed: 1,
            batch_size: 50_000,
            write_cache: 2 << 30,
            corpus: None,
            marc_share: 0.9,
            authority_records: Arc::default(),
            authorities_per_instance: 0.1,
        }
    }
}

/// What was generated.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GenerateReport {
    pub instances: usize,
    pub holdings: usize,
    pub items: usize,
    pub users: usize,
    /// MARC-sourced instances, each with a MARC bib source record.
    pub marc_records: usize,
    pub authorities: usize,
    pub suppressed_instances: usize,
    pub deleted_instances: usize,
    pub items_available: usize,
    /// Patrons, loans and requests.
    pub circulation: CirculationReport,
    pub languages: std::collections::BTreeMap<String, usize>,
    pub seconds: f64,
}

impl GenerateReport {
    /// The proportions, as printed at the end of a run.
    pub fn summary(&self) -> String {
        let per = |n: usize| n as f64 / self.instances.max(1) as f64;
        let eng = self.languages.get("eng").copied().unwrap_or(0);
        format!(
            "{} instances ({} with MARC source records), {} holdings ({:.3} per instance), {} items ({:.3} per instance), \
             {} authorities, {} users, {} open loans ({} overdue), {} requests; \
             {:.1}% suppressed, {:.1}% deleted, {:.1}% of items Available, {:.1}% English; {:.1} s ({:.0} instances/s)",
            self.instances,
            self.marc_records,
            self.holdings,
            per(self.holdings),
            self.items,
            per(self.items),
            self.authorities,
            self.users,
            self.circulation.open_loans,
            self.circulation.overdue_loans,
            self.circulation.requests,
            100.0 * per(self.suppressed_instances),
            100.0 * per(self.deleted_instances),
            100.0 * self.items_available as f64 / self.items.max(1) as f64,
            100.0 * per(eng),
            self.seconds,
            self.instances as f64 / self.seconds.max(1e-9),
        )
    }
}

/// Reference ids the records point to, looked up by FOLIO's well-known names.
struct Refs {
    text_type: Uuid,
    other_types: Vec<Uuid>,
    personal_name: Uuid,
    corporate_name: Uuid,
    isbn: Uuid,
    lccn: Uuid,
    oclc: Uuid,
    folio_source: Uuid,
    book: Uuid,
    other_materials: Vec<Uuid>,
    can_circulate: Uuid,
    /// Not loanable under the generated circulation rules.
    reading_room: Uuid,
    other_loan_types: Vec<Uuid>,
    locations: Vec<Uuid>,
    call_number_types: Vec<Uuid>,
    marc: MarcRefs,
}

pub(crate) fn ids_of(reader: &store::Reader<'_>, kind: RefKind) -> anyhow::Result<Vec<Uuid>> {
    let (bodies, _) = inventory::list_reference_json(
        reader,
        kind,
        None,
        store::Page { offset: 0, limit: 10_000 },
    )?;
    let mut ids = Vec::new();
    for body in bodies {
        ids.extend(kind.decode(body.as_bytes())?.id());
    }
    Ok(ids)
}

impl Refs {
    fn load(tenant: &store::Tenant) -> anyhow::Result<Refs> {
        tenant.read(|r| {
            let id = |kind, name: &str| -> anyhow::Result<Uuid> {
                inventory::reference_id_by_name(r, kind, name)?.with_context(|| {
                    format!("the tenant's reference data has no {kind:?} named {name:?}")
                })
            };
            let text_type = id(RefKind::InstanceType, "text")?;
            let book = id(RefKind::MaterialType, "book")?;
            let can_circulate = id(RefKind::LoanType, "Can circulate")?;
            let without = |ids: Vec<Uuid>, one: Uuid| {
                ids.into_iter().filter(|i| *i != one).collect::<Vec<_>>()
            };
            let locations = ids_of(r, RefKind::Location)?;
            anyhow::ensure!(!locations.is_empty(), "the tenant has no locations");
            Ok(Refs {
                text_type,
                other_types: without(ids_of(r, RefKind::InstanceType)?, text_type),
                personal_name: id(RefKind::ContributorNameType, "Personal name")?,
                corporate_name: id(RefKind::ContributorNameType, "Corporate name")?,
                isbn: id(RefKind::IdentifierType, "ISBN")?,
                lccn: id(RefKind::IdentifierType, "LCCN")?,
                oclc: id(RefKind::IdentifierType, "OCLC")?,
                folio_source: id(RefKind::HoldingsSource, "FOLIO")?,
                book,
                other_materials: without(ids_of(r, RefKind::MaterialType)?, book),
                can_circulate,
                reading_room: id(RefKind::LoanType, "Reading room")?,
                other_loan_types: without(ids_of(r, RefKind::LoanType)?, can_circulate),
                locations,
                call_number_types: ids_of(r, RefKind::CallNumberType)?,
                marc: MarcRefs {
                    personal_name: id(RefKind::ContributorNameType, "Personal name")?,
                    corporate_name: id(RefKind::ContributorNameType, "Corporate name")?,
                    meeting_name: id(RefKind::ContributorNameType, "Meeting name")?,
                    isbn: id(RefKind::IdentifierType, "ISBN")?,
                    invalid_isbn: id(RefKind::IdentifierType, "Invalid ISBN")?,
                    issn: id(RefKind::IdentifierType, "ISSN")?,
                    lccn: id(RefKind::IdentifierType, "LCCN")?,
                    oclc: id(RefKind::IdentifierType, "OCLC")?,
                    system_control_number: id(RefKind::IdentifierType, "System control number")?,
                    instance_types: instance_types_by_code(r)?,
                },
            })
        })
    }
}

/// Instance types by their code (`txt`, `ntm`, ...).
fn instance_types_by_code(
    reader: &store::Reader<'_>,
) -> anyhow::Result<std::collections::HashMap<String, Uuid>> {
    let (bodies, _) = inventory::list_reference_json(
        reader,
        RefKind::InstanceType,
        None,
        store::Page { offset: 0, limit: 10_000 },
    )?;
    let mut out = std::collections::HashMap::new();
    for body in bodies {
        let value: Value = serde_json::from_str(&body)?;
        if let (Some(code), Some(id)) = (value["code"].as_str(), value["id"].as_str()) {
            out.insert(code.to_string(), id.parse()?);
        }
    }
    Ok(out)
}

/// A MARC bib source record of a generated instance.
struct Bib {
    /// Its instance's position in the batch.
    instance: usize,
    id: Uuid,
    record: marc::Record,
    suppress: bool,
    deleted: bool,
}

/// One transaction's worth of records.
struct Batch {
    bibs: Vec<Bib>,
    instances: Vec<inventory::Instance>,
    holdings: Vec<inventory::HoldingsRecord>,
    items: Vec<inventory::Item>,
    /// Items Checked out, Awaiting pickup or Paged: their loans and requests.
    circulating: Vec<Circulating>,
    report: GenerateReport,
}

/// Shares of languages among instances, roughly as in a large US academic catalogue.
const LANGUAGES: &[(&str, u32)] = &[
    ("eng", 640),
    ("ger", 60),
    ("fre", 60),
    ("spa", 50),
    ("ita", 30),
    ("rus", 30),
    ("chi", 30),
    ("jpn", 20),
    ("por", 20),
    ("ara", 15),
    ("heb", 10),
    ("pol", 10),
    ("ukr", 5),
    ("lat", 10),
    ("dut", 10),
    ("kor", 10),
];

/// Item statuses and their shares in per mille.
const STATUSES: &[(&str, u32)] = &[
    ("Available", 820),
    ("Checked out", 120),
    ("In transit", 15),
    ("Missing", 10),
    ("Awaiting pickup", 8),
    ("In process", 10),
    ("Paged", 5),
    ("Withdrawn", 12),
];

fn weighted<'a>(rng: &mut impl Rng, table: &'a [(&'a str, u32)]) -> &'a str {
    let total: u32 = table.iter().map(|(_, w)| w).sum();
    let mut pick = rng.gen_range(0..total);
    for (value, weight) in table {
        if pick < *weight {
            return value;
        }
        pick -= weight;
    }
    table[0].0
}

pub(crate) fn uuid(rng: &mut impl Rng) -> Uuid {
    uuid::Builder::from_random_bytes(rng.r#gen()).into_uuid()
}

fn person(words: &Words, rng: &mut impl Rng) -> String {
    let mut name =
        format!("{}, {}", capitalize(words.uniform(rng)), capitalize(words.uniform(rng)));
    if rng.gen_bool(0.3) {
        name.push_str(&format!(
            " {}.",
            capitalize(words.uniform(rng)).chars().next().unwrap_or('A')
        ));
    }
    if rng.gen_bool(0.4) {
        let born = rng.gen_range(1700..1990);
        name.push_str(&format!(", {born}-"));
        if born < 1950 || rng.gen_bool(0.3) {
            name.push_str(&(born + rng.gen_range(25..95)).to_string());
        }
    }
    name
}

fn title(words: &Words, rng: &mut impl Rng) -> String {
    let n = 1 + rng.gen_range(0..4) + rng.gen_range(0..4);
    let mut title = capitalize(&words.phrase(rng, n));
    if rng.gen_bool(0.35) {
        let n = 2 + rng.gen_range(0..5);
        title.push_str(" : ");
        title.push_str(&words.phrase(rng, n));
    }
    title
}

fn instance_json(
    words: &Words,
    rng: &mut ChaCha8Rng,
    refs: &Refs,
    report: &mut GenerateReport,
) -> Value {
    let id = uuid(rng);
    let language = weighted(rng, LANGUAGES).to_string();
    *report.languages.entry(language.clone()).or_default() += 1;
    let mut contributors = vec![json!({
        "name": person(words, rng), "contributorNameTypeId": refs.personal_name, "primary": true
    })];
    for _ in 0..rng.gen_range(0..3) {
        let (name, kind) = if rng.gen_bool(0.2) {
            (
                format!("{} {}", capitalize(words.word(rng)), capitalize(words.uniform(rng))),
                refs.corporate_name,
            )
        } else {
            (person(words, rng), refs.personal_name)
        };
        contributors.push(json!({ "name": name, "contributorNameTypeId": kind, "primary": false }));
    }
    let mut identifiers = Vec::new();
    if rng.gen_bool(0.75) {
        let isbn = random_isbn(rng);
        identifiers.push(json!({ "value": isbn, "identifierTypeId": refs.isbn }));
    }
    if rng.gen_bool(0.4) {
        identifiers.push(json!({ "value": format!("{:>4}{:06}", rng.gen_range(50..100), rng.gen_range(0..1_000_000)), "identifierTypeId": refs.lccn }));
    }
    if rng.gen_bool(0.5) {
        identifiers.push(json!({ "value": format!("(OCoLC){}", rng.gen_range(1_000_000..2_000_000_000u64)), "identifierTypeId": refs.oclc }));
    }
    let subjects: Vec<Value> = (0..rng.gen_range(0..5))
        .map(|_| {
            let n_words = 1 + rng.gen_range(0..2);
            let mut value = capitalize(&words.phrase(rng, n_words));
            for _ in 0..rng.gen_range(0..3) {
                value.push_str(" -- ");
                value.push_str(&capitalize(words.word(rng)));
            }
            json!({ "value": value })
        })
        .collect();
    let year = 2025 - (rng.r#gen::<f64>().powi(2) * 225.0) as i32;
    let suppressed = rng.gen_bool(0.02);
    let deleted = rng.gen_bool(0.003);
    report.suppressed_instances += suppressed as usize;
    report.deleted_instances += deleted as usize;
    let instance_type = if rng.gen_bool(0.9) || refs.other_types.is_empty() {
        refs.text_type
    } else {
        refs.other_types[rng.gen_range(0..refs.other_types.len())]
    };
    let mut instance = json!({
        "id": id,
        "source": "FOLIO",
        "title": title(words, rng),
        "instanceTypeId": instance_type,
        "languages": [language],
        "contributors": contributors,
        "identifiers": identifiers,
        "subjects": subjects,
        "publication": [{
            "publisher": format!("{} {}", capitalize(words.word(rng)), if rng.gen_bool(0.5) { "Press" } else { "Publishers" }),
            "place": capitalize(words.uniform(rng)),
            "dateOfPublication": year.to_string(),
        }],
        "physicalDescriptions": [format!("{} p. ; {} cm", rng.gen_range(40..900), rng.gen_range(18..32))],
        "discoverySuppress": suppressed,
        "staffSuppress": rng.gen_bool(0.01),
        "deleted": deleted,
    });
    if rng.gen_bool(0.15) {
        instance["series"] = json!([{ "value": format!("{} series ; {}", capitalize(&words.phrase(rng, 2)), rng.gen_range(1..200)) }]);
    }
    if rng.gen_bool(0.1) {
        instance["alternativeTitles"] = json!([{ "alternativeTitle": title(words, rng) }]);
    }
    if rng.gen_bool(0.3) {
        instance["notes"] = json!([{ "note": format!("Includes {} references.", words.word(rng)), "staffOnly": false }]);
    }
    instance
}

/// A MARC-sourced instance and its source record, derived from a real record.
fn marc_instance(
    corpus: &LcCorpus,
    rng: &mut ChaCha8Rng,
    refs: &Refs,
    n: u64,
    batch: &mut Batch,
) -> Value {
    let id = uuid(rng);
    let suppressed = rng.gen_bool(0.02);
    let deleted = rng.gen_bool(0.003);
    let staff_suppressed = rng.gen_bool(0.01);
    let record = corpus.derive(rng, n, deleted);
    let mut instance = instance_from_marc(&record, id, &refs.marc);
    instance["discoverySuppress"] = json!(suppressed);
    instance["staffSuppress"] = json!(staff_suppressed);
    instance["deleted"] = json!(deleted);
    let report = &mut batch.report;
    report.suppressed_instances += suppressed as usize;
    report.deleted_instances += deleted as usize;
    report.marc_records += 1;
    if let Some(language) = instance["languages"][0].as_str() {
        *report.languages.entry(language.to_string()).or_default() += 1;
    }
    batch.bibs.push(Bib {
        instance: batch.instances.len(),
        id: uuid(rng),
        record,
        suppress: suppressed,
        deleted,
    });
    instance
}

fn build_batch(
    words: &Words,
    rng: &mut ChaCha8Rng,
    refs: &Refs,
    corpus: Option<(&LcCorpus, f64)>,
    n: usize,
    first_instance: usize,
    first_item: usize,
) -> anyhow::Result<Batch> {
    let mut batch = Batch {
        bibs: Vec::new(),
        instances: Vec::with_capacity(n),
        holdings: Vec::new(),
        items: Vec::new(),
        circulating: Vec::new(),
        report: GenerateReport::default(),
    };
    // A fixed base date keeps item status dates reproducible.
    let base =
        chrono::DateTime::parse_from_rfc3339("2024-01-01T00:00:00Z").expect("valid date").to_utc();
    for i in 0..n {
        let instance = match corpus {
            Some((corpus, share)) if rng.gen_bool(share) => {
                marc_instance(corpus, rng, refs, (first_instance + i + 1) as u64, &mut batch)
            }
            _ => instance_json(words, rng, refs, &mut batch.report),
        };
        let instance: inventory::Instance = serde_json::from_value(instance)?;
        let instance_id = instance.id.context("generated instances carry ids")?;
        batch.instances.push(instance);
        let n_holdings = if rng.gen_bool(0.07) { 2 } else { 1 };
        for _ in 0..n_holdings {
            let holdings_id = uuid(rng);
            let call_number = format!(
                "{}{} .{}{}",
                (b'A' + rng.gen_range(0..26)) as char,
                rng.gen_range(1..9999),
                (b'A' + rng.gen_range(0..26)) as char,
                rng.gen_range(1..999)
            );
            let location = refs.locations[rng.gen_range(0..refs.locations.len())];
            batch.holdings.push(serde_json::from_value(json!({
                "id": holdings_id,
                "instanceId": instance_id,
                "sourceId": refs.folio_source,
                "permanentLocationId": location,
                "callNumber": call_number,
                "callNumberTypeId": refs.call_number_types.first(),
            }))?);
            // 1.22 items per instance over 1.07 holdings: 1.14 items per holdings record.
            let n_items = if rng.gen_bool(0.14) { 2 } else { 1 };
            for copy in 0..n_items {
                let barcode = first_item + batch.items.len() + 1;
                let mut status = weighted(rng, STATUSES);
                let material = if rng.gen_bool(0.85) || refs.other_materials.is_empty() {
                    refs.book
                } else {
                    refs.other_materials[rng.gen_range(0..refs.other_materials.len())]
                };
                let loan_type = if rng.gen_bool(0.9) || refs.other_loan_types.is_empty() {
                    refs.can_circulate
                } else {
                    refs.other_loan_types[rng.gen_range(0..refs.other_loan_types.len())]
                };
                // Reading-room copies never leave the building (the generated rules make
                // them not loanable), so none is on loan or paged.
                if loan_type == refs.reading_room && matches!(status, "Checked out" | "Paged") {
                    status = "Available";
                }
                batch.report.items_available += (status == "Available") as usize;
                let status_date = base + chrono::Duration::seconds(rng.gen_range(0..60 * 86_400));
                let item_id = uuid(rng);
                if matches!(status, "Checked out" | "Awaiting pickup" | "Paged") {
                    batch.circulating.push(Circulating {
                        item: item_id,
                        holdings: holdings_id,
                        instance: instance_id,
                        location,
                        material_type: material,
                        loan_type,
                        status,
                        since: status_date,
                    });
                }
                batch.items.push(serde_json::from_value(json!({
                    "id": item_id,
                    "holdingsRecordId": holdings_id,
                    "barcode": format!("{barcode:010}"),
                    "copyNumber": (copy + 1).to_string(),
                    "status": { "name": status, "date": folio::Timestamp::from(status_date).to_string() },
                    "materialTypeId": material,
                    "permanentLoanTypeId": loan_type,
                    "discoverySuppress": rng.gen_bool(0.01),
                }))?);
            }
        }
    }
    batch.report.instances = batch.instances.len();
    batch.report.holdings = batch.holdings.len();
    batch.report.items = batch.items.len();
    Ok(batch)
}

/// One batch of the data set, once its transaction has committed.
#[derive(Debug)]
pub struct Written {
    /// Instances written so far, this batch's included.
    pub done: usize,
    /// The batch's inventory records as stored: HRIDs, metadata and computed fields
    /// filled in. A caller can index them without reading them back.
    pub instances: Vec<inventory::Instance>,
    pub holdings: Vec<inventory::HoldingsRecord>,
    pub items: Vec<inventory::Item>,
}

/// Generates the data set into `tenant`, calling `progress` after each batch.
pub fn generate(
    tenant: &store::Tenant,
    options: &GenerateOptions,
    progress: &mut dyn FnMut(Written),
) -> anyhow::Result<GenerateReport> {
    tenant.set_write_cache(Some(options.write_cache))?;
    let report = generate_with_cache(tenant, options, progress);
    tenant.set_write_cache(None)?;
    report
}

fn generate_with_cache(
    tenant: &store::Tenant,
    options: &GenerateOptions,
    progress: &mut dyn FnMut(Written),
) -> anyhow::Result<GenerateReport> {
    let started = Instant::now();
    let refs = Refs::load(tenant)?;
    // Barcodes continue after the items already there, so a second run adds to a tenant.
    let first_item = tenant
        .read(|r| {
            inventory::list_json::<inventory::Item>(r, None, store::Page { offset: 0, limit: 0 })
        })?
        .1 as usize;
    let first_instance = tenant
        .read(|r| {
            inventory::list_json::<inventory::Instance>(
                r,
                None,
                store::Page { offset: 0, limit: 0 },
            )
        })?
        .1 as usize;
    // Patrons first: the loans and requests written with each batch point to them.
    let mut circulation =
        Circulation::prepare(tenant, options.seed, (options.instances / 20).max(50))?;
    let snapshot = match options.corpus {
        Some(_) => Some(tenant.write(srs::ensure_generated_snapshot)?),
        None => None,
    };
    let (sender, receiver) = mpsc::sync_channel::<anyhow::Result<Batch>>(2);
    let options_for_producer = options.clone();
    let producer = std::thread::spawn(move || {
        let words = Words::new();
        let mut rng = ChaCha8Rng::seed_from_u64(options_for_producer.seed);
        let mut done = 0;
        let mut next_item = first_item;
        let corpus = options_for_producer
            .corpus
            .as_deref()
            .map(|corpus| (corpus, options_for_producer.marc_share));
        while done < options_for_producer.instances {
            let n = options_for_producer.batch_size.min(options_for_producer.instances - done);
            let batch =
                build_batch(&words, &mut rng, &refs, corpus, n, first_instance + done, next_item);
            if let Ok(b) = &batch {
                next_item += b.items.len();
            }
            let failed = batch.is_err();
            if sender.send(batch).is_err() || failed {
                return;
            }
            done += n;
        }
    });
    let mut report = GenerateReport::default();
    let actor = folio::Actor::default();
    for batch in receiver {
        let batch = batch?;
        let Batch { mut bibs, mut instances, holdings, items, circulating, report: part } = batch;
        let stored = tenant.write(|w| {
            // FOLIO keeps a MARC instance's HRID in the 001 of its source record.
            let hrids = inventory::next_hrids::<inventory::Instance>(w, bibs.len())?;
            anyhow::ensure!(hrids.len() == bibs.len(), "instances have HRIDs");
            for (bib, hrid) in bibs.iter_mut().zip(hrids) {
                if let Some(field) = bib.record.field_mut("001") {
                    field.set_value(hrid.clone())?;
                }
                instances[bib.instance].hrid = Some(hrid);
            }
            let linked: Vec<(Uuid, String)> = bibs
                .iter()
                .map(|bib| {
                    let instance = &instances[bib.instance];
                    (instance.id.unwrap_or_default(), instance.hrid.clone().unwrap_or_default())
                })
                .collect();
            let instances = inventory::save_batch(w, instances, false, actor)?;
            let holdings = inventory::save_batch(w, holdings, false, actor)?;
            let items = inventory::save_batch(w, items, false, actor)?;
            circulation.write(w, &circulating)?;
            if let Some(snapshot_id) = snapshot {
                let new =
                    bibs.into_iter().zip(linked).map(|(bib, (instance_id, instance_hrid))| {
                        srs::NewBib {
                            id: Some(bib.id),
                            marc: bib.record,
                            instance_id,
                            instance_hrid,
                            snapshot_id,
                            suppress_discovery: bib.suppress,
                            state: if bib.deleted {
                                srs::State::Deleted
                            } else {
                                srs::State::Actual
                            },
                        }
                    });
                srs::put_marc_bibs(w, new)?;
            }
            Ok::<_, anyhow::Error>((instances, holdings, items))
        })?;
        // The WAL is emptied after each batch, or it grows by the whole data set. It
        // keeps its file, which the next batch overwrites; the end gives the space back.
        tenant.checkpoint_in_place()?;
        report.instances += part.instances;
        report.holdings += part.holdings;
        report.items += part.items;
        report.marc_records += part.marc_records;
        report.suppressed_instances += part.suppressed_instances;
        report.deleted_instances += part.deleted_instances;
        report.items_available += part.items_available;
        for (language, n) in part.languages {
            *report.languages.entry(language).or_default() += n;
        }
        let (instances, holdings, items) = stored;
        progress(Written { done: report.instances, instances, holdings, items });
    }
    producer.join().map_err(|_| anyhow::anyhow!("the record producer panicked"))?;
    report.users = circulation.report.users;
    report.circulation = circulation.report;
    report.authorities = generate_authorities(tenant, options)?;
    tenant.checkpoint()?;
    report.seconds = started.elapsed().as_secs_f64();
    Ok(report)
}

/// Authorities derived from real MARC authority records: the records in turn, each with
/// a fresh id and natural id (so a large set repeats real headings, as a union catalogue
/// of several sources does).
fn generate_authorities(
    tenant: &store::Tenant,
    options: &GenerateOptions,
) -> anyhow::Result<usize> {
    let sources: Vec<inventory::Authority> = options
        .authority_records
        .iter()
        .filter_map(crate::authorities::authority_from_marc)
        .collect();
    if sources.is_empty() {
        return Ok(0);
    }
    let n = (options.instances as f64 * options.authorities_per_instance).round() as usize;
    let mut rng = ChaCha8Rng::seed_from_u64(options.seed ^ 0xa07_0417);
    let first = tenant
        .read(|r| {
            inventory::list_json::<inventory::Authority>(
                r,
                None,
                store::Page { offset: 0, limit: 0 },
            )
        })?
        .1 as usize;
    let actor = folio::Actor::default();
    let mut done = 0;
    while done < n {
        let chunk = options.batch_size.min(n - done);
        let batch: Vec<inventory::Authority> = (done..done + chunk)
            .map(|i| {
                let mut authority = sources[(first + i) % sources.len()].clone();
                authority.id = Some(uuid(&mut rng));
                authority.natural_id = format!("qa{:09}", first + i + 1);
                authority
            })
            .collect();
        tenant.write(|w| inventory::save_batch(w, batch, false, actor))?;
        done += chunk;
    }
    Ok(n)
}
