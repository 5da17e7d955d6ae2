//! Jobs over the shared MARC files, run to their end on this thread: what goes in, what
//! the log says, and that a job stopped midway goes on without doing a record twice.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use import::{ProfileInfo, RunBy, Status};
use serde_json::Value;
use store::{Page, Store, Tenant};
use uuid::Uuid;

fn shared(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/marc").join(file)
}

struct Fixture {
    _dir: tempfile::TempDir,
    tenant: Arc<Tenant>,
    imports: PathBuf,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(
        dir.path(),
        store::testing::options(),
        // Profiles' tables, unseeded: jobs run FOLIO's default create profile as the
        // plain create plan when the tenant has no such profile.
        &[
            inventory::MIGRATIONS,
            srs::MIGRATIONS,
            mapping::MIGRATIONS,
            import::MIGRATIONS,
            profiles::MIGRATIONS,
        ],
    )
    .unwrap();
    let (tenant, _) = store.create_tenant("diku").unwrap();
    tenant.write(inventory::load_reference_data).unwrap();
    let imports = dir.path().join("imports");
    std::fs::create_dir_all(&imports).unwrap();
    Fixture { _dir: dir, tenant, imports }
}

fn profile(id: Uuid, name: &str) -> ProfileInfo {
    ProfileInfo { id, name: Some(name.into()), data_type: Some("MARC".into()), hidden: None }
}

fn default_profile() -> ProfileInfo {
    profile(import::DEFAULT_CREATE_INSTANCE, "Default - Create instance and SRS MARC Bib")
}

/// Copies a file into the import directory and makes a job of it.
fn file_job(f: &Fixture, file: &str, bytes: Option<Vec<u8>>) -> Uuid {
    file_job_with(f, file, bytes, default_profile())
}

fn file_job_with(f: &Fixture, file: &str, bytes: Option<Vec<u8>>, profile: ProfileInfo) -> Uuid {
    let bytes = bytes.unwrap_or_else(|| std::fs::read(shared(file)).unwrap());
    std::fs::write(f.imports.join(file), bytes).unwrap();
    let job = f
        .tenant
        .write(|w| import::new_file_job(w, Uuid::nil(), RunBy::default(), file, file, profile))
        .unwrap();
    job.id
}

fn count(f: &Fixture, table: &RecordTableName) -> u64 {
    f.tenant.read(|r| r.count(&table.0)).unwrap()
}

struct RecordTableName(store::RecordTable);

fn instances() -> RecordTableName {
    RecordTableName(inventory::INSTANCES)
}

#[test]
fn a_file_of_bibs_becomes_instances_and_source_records() {
    let f = fixture();
    let id = file_job(&f, "100.mrc", None);
    let status = import::run_to_end(&f.tenant, id, &f.imports, |_, _| {}).unwrap();
    assert_eq!(status, Status::Committed);
    let job = f.tenant.read(|r| import::get_job(r, id)).unwrap();
    assert_eq!((job.progress.current, job.progress.total), (100, 100));
    assert_eq!(job.ui_status, "RUNNING_COMPLETE");
    assert!(job.completed_date.is_some());
    assert_eq!(count(&f, &instances()), 100);

    let (entries, total) = f
        .tenant
        .read(|r| {
            import::entries(
                r,
                id,
                false,
                import::SortBy::Order,
                false,
                Page { offset: 0, limit: 10 },
            )
        })
        .unwrap();
    assert_eq!(total, 100);
    assert_eq!(entries[0].source_record_order, "0");
    let first = &entries[0];
    let info = first.related_instance_info.as_ref().unwrap();
    assert_eq!(info.action_status, Some(import::Action::Created));

    // The SRS record carries FOLIO's write-back, and the instance is what its MARC says.
    let srs_id = first.source_record_id.unwrap();
    let source = f.tenant.read(|r| srs::get(r, srs_id)).unwrap();
    let marc = source.parsed_record.as_ref().unwrap().content.as_ref().unwrap();
    assert_eq!(marc.control_value("001"), Some(info.hrid_list[0].as_str()));
    let ids = marc.fields_with_tag("999").find(|f| f.indicators() == Some(['f', 'f'])).unwrap();
    assert_eq!(ids.subfield('i'), Some(info.id_list[0].to_string().as_str()));
    assert_eq!(ids.subfield('s'), Some(srs_id.to_string().as_str()));
    let instance: Value = serde_json::from_str(
        &f.tenant.read(|r| inventory::get_json::<inventory::Instance>(r, info.id_list[0])).unwrap(),
    )
    .unwrap();
    let title: Vec<&str> = marc
        .fields_with_tag("245")
        .last()
        .unwrap()
        .subfields()
        .filter(|s| "anpbcfghks".contains(s.code))
        .map(|s| s.value)
        .collect();
    assert_eq!(instance["title"], title.join(" "));
    assert_eq!(instance["source"], "MARC");
    assert_eq!(instance["hrid"], info.hrid_list[0]);

    let summary = f.tenant.read(|r| import::summary(r, id)).unwrap();
    assert_eq!(summary.instance_summary.total_created_entities, 100);
    assert_eq!(summary.source_record_summary.total_created_entities, 100);
    assert_eq!(summary.total_errors, 0);
}

#[test]
fn bad_records_fail_alone_and_the_job_ends_with_errors() {
    let f = fixture();
    // A good record, a broken one, and a record that already names an instance.
    let good = std::fs::read(shared("100.mrc")).unwrap();
    let end = good.iter().position(|b| *b == 0x1D).unwrap() + 1;
    let first = good[..end].to_vec();
    let mut broken = std::fs::read(shared("invalidMarcFile.mrc")).unwrap();
    broken.push(0x1D);
    let mut bytes = first.clone();
    bytes.extend_from_slice(&broken);
    bytes.extend_from_slice(&first);
    let id = file_job(&f, "mixed.mrc", Some(bytes));
    let status = import::run_to_end(&f.tenant, id, &f.imports, |_, _| {}).unwrap();
    assert_eq!(status, Status::Error);
    let job = f.tenant.read(|r| import::get_job(r, id)).unwrap();
    assert_eq!(job.progress.current, 3);
    assert_eq!(count(&f, &instances()), 2);
    let (errors, n) = f
        .tenant
        .read(|r| {
            import::entries(
                r,
                id,
                true,
                import::SortBy::Order,
                false,
                Page { offset: 0, limit: 10 },
            )
        })
        .unwrap();
    assert_eq!(n, 1);
    assert_eq!(errors[0].source_record_order, "1");
    assert!(
        errors[0].error.as_deref().unwrap().starts_with("ISO 2709 record 1"),
        "{:?}",
        errors[0].error
    );

    // pymarc's broken file: what can be read goes in, each failure is logged.
    let id =
        file_job(&f, "bad_records.mrc", std::fs::read(shared("pymarc-test/bad_records.mrc")).ok());
    let status = import::run_to_end(&f.tenant, id, &f.imports, |_, _| {}).unwrap();
    let job = f.tenant.read(|r| import::get_job(r, id)).unwrap();
    let summary = f.tenant.read(|r| import::summary(r, id)).unwrap();
    assert!(status.is_final());
    assert_eq!(
        summary.instance_summary.total_created_entities + summary.total_errors,
        job.progress.current
    );
}

#[test]
fn a_job_stopped_midway_goes_on_from_its_last_chunk() {
    let f = fixture();
    let mut bytes = Vec::new();
    for file in ["100.mrc", "CornellFOLIOExemplars.mrc", "61PRINT160129.mrc"] {
        bytes.extend(std::fs::read(shared(file)).unwrap());
    }
    let id = file_job(&f, "all.mrc", Some(bytes));
    // Two chunks, then the process "dies": a new setup, as after a restart.
    let setup = import::open(&f.tenant, id, &f.imports).unwrap().unwrap();
    let total = f.tenant.read(|r| import::get_job(r, id)).unwrap().progress.total;
    assert_eq!(total, 100 + 62 + 246);
    for _ in 0..2 {
        assert_eq!(import::step(&f.tenant, &setup, &f.imports).unwrap(), import::Step::More);
    }
    // A step writes at most a chunk, and less when its slice of the writer is over.
    let written = count(&f, &instances());
    assert!(written > 0 && written <= 2 * import::CHUNK as u64, "{written} after two steps");
    let progress = f.tenant.read(|r| import::get_job(r, id)).unwrap().progress.current;
    assert!(written <= progress && progress < total, "{written} instances, progress {progress}");
    let status = import::run_to_end(&f.tenant, id, &f.imports, |_, _| {}).unwrap();
    let summary = f.tenant.read(|r| import::summary(r, id)).unwrap();
    assert_eq!(summary.instance_summary.total_created_entities + summary.total_errors, total);
    assert_eq!(count(&f, &instances()), summary.instance_summary.total_created_entities);
    let (errors, _) = f
        .tenant
        .read(|r| {
            import::entries(r, id, true, import::SortBy::Order, false, Page { offset: 0, limit: 5 })
        })
        .unwrap();
    assert_eq!(status, Status::Committed, "{errors:?}");
    // Every record's journal entry is there once.
    let (_, logged) = f
        .tenant
        .read(|r| {
            import::entries(
                r,
                id,
                false,
                import::SortBy::Order,
                false,
                Page { offset: 0, limit: 0 },
            )
        })
        .unwrap();
    assert_eq!(logged, total);
}

/// A record that fails after its instance is written (here: its SRS snapshot is gone)
/// leaves no instance behind: the chunk is written again, each record in a savepoint.
#[test]
fn a_record_failing_halfway_leaves_nothing_behind() {
    let f = fixture();
    let id = file_job(&f, "100.mrc", None);
    let setup = import::open(&f.tenant, id, &f.imports).unwrap().unwrap();
    f.tenant.write(|w| srs::delete_snapshot(w, id)).unwrap();
    let status = loop {
        match import::step(&f.tenant, &setup, &f.imports).unwrap() {
            import::Step::More => {}
            import::Step::Ended(status) => break status,
            other => panic!("{other:?}"),
        }
    };
    assert_eq!(status, Status::Error);
    assert_eq!(count(&f, &instances()), 0, "no instance without its SRS record");
    let summary = f.tenant.read(|r| import::summary(r, id)).unwrap();
    assert_eq!(summary.total_errors, 100);
    let (errors, _) = f
        .tenant
        .read(|r| {
            import::entries(r, id, true, import::SortBy::Order, false, Page { offset: 0, limit: 1 })
        })
        .unwrap();
    assert!(errors[0].error.as_deref().unwrap().starts_with("Snapshot with id"), "{errors:?}");
}

/// FOLIO's default authority profile: each record an authority and its SRS record,
/// the heading and tracings by the authority rules, its source file by its LCCN prefix.
#[test]
fn a_file_of_authorities_becomes_authorities() {
    let f = fixture();
    let authorities =
        profile(import::DEFAULT_CREATE_AUTHORITY, "Default - Create SRS MARC Authority");
    let id = file_job_with(&f, "2500.mrc", None, authorities);
    let status = import::run_to_end(&f.tenant, id, &f.imports, |_, _| {}).unwrap();
    assert_eq!(status, Status::Committed);
    assert_eq!(f.tenant.read(|r| r.count(&inventory::AUTHORITIES)).unwrap(), 2500);
    let summary = f.tenant.read(|r| import::summary(r, id)).unwrap();
    assert_eq!(summary.authority_summary.total_created_entities, 2500);

    let (entries, _) = f
        .tenant
        .read(|r| {
            import::entries(
                r,
                id,
                false,
                import::SortBy::Order,
                false,
                Page { offset: 0, limit: 1 },
            )
        })
        .unwrap();
    let entry = &entries[0];
    let authority_id = entry.related_authority_info.as_ref().unwrap().id_list[0];
    let authority: Value = serde_json::from_str(
        &f.tenant.read(|r| inventory::get_json::<inventory::Authority>(r, authority_id)).unwrap(),
    )
    .unwrap();
    let source = f.tenant.read(|r| srs::get(r, entry.source_record_id.unwrap())).unwrap();
    let marc = source.parsed_record.as_ref().unwrap().content.as_ref().unwrap();
    // The natural id is the LCCN without spaces; LCSH is the file of `sh` ids.
    let lccn: String =
        marc.field("010").unwrap().subfield('a').unwrap().split_whitespace().collect();
    assert_eq!(authority["naturalId"], lccn);
    assert!(lccn.starts_with("sh"), "{lccn}");
    assert_eq!(authority["sourceFileId"], "837e2c7b-037b-4113-9dfd-b1b8aeeb1fb8");
    assert_eq!(authority["source"], "MARC");
    // The 150 heading, subdivisions joined with `--`.
    let heading = marc.field("150").unwrap();
    let parts: Vec<&str> =
        heading.subfields().filter(|s| "abvxyz".contains(s.code)).map(|s| s.value).collect();
    let expected = parts.join("--");
    if heading.subfields().all(|s| "avxyz".contains(s.code)) {
        assert_eq!(authority["topicalTerm"], expected);
    }
    assert_eq!(entry.source_record_title.as_deref(), authority["topicalTerm"].as_str());
    let ids = marc.fields_with_tag("999").find(|f| f.indicators() == Some(['f', 'f'])).unwrap();
    assert_eq!(ids.subfield('i'), Some(authority_id.to_string().as_str()));
    assert_eq!(source.record_type, srs::RecordType::MarcAuthority);
}

/// FOLIO's default holdings profile: each MFHD a holdings record of the instance its
/// 004 names, with the location its 852 $b codes, and an SRS MARC holdings record; an
/// MFHD naming no instance fails alone.
#[test]
fn a_file_of_mfhds_becomes_holdings_of_their_instances() {
    let f = fixture();
    let bibs = file_job(&f, "100.mrc", None);
    assert_eq!(
        import::run_to_end(&f.tenant, bibs, &f.imports, |_, _| {}).unwrap(),
        Status::Committed
    );
    let (entries, _) = f
        .tenant
        .read(|r| {
            import::entries(
                r,
                bibs,
                false,
                import::SortBy::Order,
                false,
                Page { offset: 0, limit: 2 },
            )
        })
        .unwrap();
    let instance = entries[0].related_instance_info.clone().unwrap();
    let (instance_id, instance_hrid) = (instance.id_list[0], instance.hrid_list[0].clone());

    let t = |t: &str| marc::Tag::new(t).unwrap();
    let mfhd = |bib: &str, call_number: &str| {
        let mut record = marc::Record::new(marc::Leader::new("00000nx  a2200000zn 4500").unwrap());
        record.push(marc::Field::control(t("001"), "vendor-1").unwrap());
        record.push(marc::Field::control(t("004"), bib).unwrap());
        record.push(marc::Field::control(t("008"), "1011280u    8   4001uueng0000000").unwrap());
        record.push(
            marc::Field::data(
                t("852"),
                '0',
                ' ',
                [('b', "KU/CC/DI/M"), ('h', call_number), ('i', ".A1 1985")],
            )
            .unwrap(),
        );
        marc::encode(&record).unwrap()
    };
    let mut file = mfhd(&instance_hrid, "PS1305");
    file.extend(mfhd("in99999999", "QA76"));
    let holdings =
        profile(import::DEFAULT_CREATE_HOLDINGS, "Default - Create Holdings and SRS MARC Holdings");
    let id = file_job_with(&f, "mfhd.mrc", Some(file), holdings);
    assert_eq!(import::run_to_end(&f.tenant, id, &f.imports, |_, _| {}).unwrap(), Status::Error);
    assert_eq!(f.tenant.read(|r| r.count(&inventory::HOLDINGS)).unwrap(), 1);

    let (entries, _) = f
        .tenant
        .read(|r| {
            import::entries(
                r,
                id,
                false,
                import::SortBy::Order,
                false,
                Page { offset: 0, limit: 2 },
            )
        })
        .unwrap();
    assert!(entries[1].error.as_deref().unwrap().contains("in99999999"), "{:?}", entries[1]);
    let made = &entries[0].related_holdings_info[0];
    let holdings: Value = serde_json::from_str(
        &f.tenant
            .read(|r| inventory::get_json::<inventory::HoldingsRecord>(r, made.id.unwrap()))
            .unwrap(),
    )
    .unwrap();
    assert_eq!(holdings["instanceId"], instance_id.to_string());
    assert_eq!(holdings["permanentLocationId"], "fcd64ce1-6995-48f0-840e-89ffa2288371");
    assert_eq!(holdings["callNumber"], "PS1305 .A1 1985");
    assert_eq!(holdings["hrid"], made.hrid.clone().unwrap());
    let source = f.tenant.read(|r| srs::get(r, entries[0].source_record_id.unwrap())).unwrap();
    assert_eq!(source.record_type, srs::RecordType::MarcHolding);
    let marc = source.parsed_record.as_ref().unwrap().content.as_ref().unwrap();
    assert_eq!(marc.control_value("001"), made.hrid.as_deref());
    let ids = marc.fields_with_tag("999").find(|f| f.indicators() == Some(['f', 'f'])).unwrap();
    assert_eq!(ids.subfield('i'), Some(made.id.unwrap().to_string().as_str()));
}

/// Runs a job step by step while a desk keeps writing: the import's writes end early to
/// let each desk write go, and go on from the record where they stopped. Returns the
/// steps that wrote records.
fn run_beside_a_desk(f: &Fixture, id: Uuid) -> (Status, u64) {
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let desk = {
        let (tenant, stop) = (f.tenant.clone(), stop.clone());
        std::thread::spawn(move || {
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                tenant.write(|_| Ok::<_, store::Error>(())).unwrap();
            }
        })
    };
    let setup = import::open(&f.tenant, id, &f.imports).unwrap().unwrap();
    let mut writes = 0;
    let status = loop {
        match import::step(&f.tenant, &setup, &f.imports).unwrap() {
            import::Step::More => writes += 1,
            import::Step::Ended(status) => break import::finish(&f.tenant, id, status).unwrap(),
            other => panic!("the job stopped at {other:?}"),
        }
    };
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    desk.join().unwrap();
    (status, writes)
}

/// Every record of the job went in once: one journal entry per order, and as many
/// instances as created entries.
fn each_record_once(f: &Fixture, id: Uuid, total: u64) {
    let (entries, logged) = f
        .tenant
        .read(|r| {
            import::entries(
                r,
                id,
                false,
                import::SortBy::Order,
                false,
                Page { offset: 0, limit: 10_000 },
            )
        })
        .unwrap();
    assert_eq!(logged, total);
    let orders: std::collections::BTreeSet<u64> =
        entries.iter().map(|e| e.source_record_order.parse().unwrap()).collect();
    assert_eq!(orders, (0..total).collect());
    let summary = f.tenant.read(|r| import::summary(r, id)).unwrap();
    assert_eq!(summary.instance_summary.total_created_entities + summary.total_errors, total);
}

#[test]
fn an_import_gives_way_to_the_desk_and_misses_no_record() {
    let f = fixture();
    let mut bytes = Vec::new();
    for file in ["100.mrc", "CornellFOLIOExemplars.mrc", "61PRINT160129.mrc"] {
        bytes.extend(std::fs::read(shared(file)).unwrap());
    }
    let total = 100 + 62 + 246;
    let id = file_job(&f, "all.mrc", Some(bytes));
    let (status, writes) = run_beside_a_desk(&f, id);
    assert_eq!(status, Status::Committed);
    each_record_once(&f, id, total);
    assert_eq!(count(&f, &instances()), total);
    let chunks = total.div_ceil(import::CHUNK as u64);
    assert!(writes > chunks, "{writes} writes: none ended early for the desk");

    // The same through posted chunks: a chunk left halfway goes on from its next record.
    let records: Vec<String> = std::fs::read(shared("100.mrc"))
        .unwrap()
        .split_inclusive(|b| *b == 0x1D)
        .map(|r| String::from_utf8(r.to_vec()).unwrap())
        .collect();
    assert_eq!(records.len(), 100);
    let job = f
        .tenant
        .write(|w| import::new_job(w, Uuid::nil(), RunBy::default(), None, Some(default_profile())))
        .unwrap();
    for (n, part) in records.chunks(40).enumerate() {
        let chunk = import::RawRecords {
            id: None,
            initial_records: part
                .iter()
                .map(|r| import::RawRecord { record: r.clone(), order: None })
                .collect(),
            records_metadata: import::RecordsMetadata {
                last: n == 2,
                counter: n as u64 + 1,
                total: Some(100),
                content_type: "MARC_RAW".into(),
            },
        };
        f.tenant.write(|w| import::post_chunk(w, job.id, &chunk)).unwrap();
    }
    let (status, writes) = run_beside_a_desk(&f, job.id);
    assert_eq!(status, Status::Committed);
    each_record_once(&f, job.id, 100);
    assert_eq!(count(&f, &instances()), total + 100);
    assert!(writes > 3, "{writes} writes: none ended early for the desk");
}

/// The default create profile as FOLIO seeds it runs as the plain create plan (the
/// fast one); tests/api's `an_edited_default_create_profile_runs_as_edited` runs it
/// edited, as a tree.
#[test]
fn the_seeded_default_create_profile_runs_as_the_create_plan() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(
        dir.path(),
        store::testing::options(),
        &[
            inventory::MIGRATIONS,
            srs::MIGRATIONS,
            mapping::MIGRATIONS,
            import::MIGRATIONS,
            profiles::MIGRATIONS,
        ],
    )
    .unwrap();
    let (tenant, _) = store.create_tenant("diku").unwrap();
    tenant.write(profiles::seed).unwrap();
    let job = tenant
        .write(|w| {
            import::new_file_job(w, Uuid::nil(), RunBy::default(), "f", "f", default_profile())
        })
        .unwrap();
    // As a job starts: the profile frozen, then the plan read from that snapshot.
    let setup = import::setup(&tenant, &job).unwrap();
    assert!(matches!(setup.plan, import::process::Plan::CreateInstance));
}
