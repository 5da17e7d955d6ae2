//! One record's import: what FOLIO's create-instance flow does, in one pass.
//!
//! 1. Outside the write lock ([`prepare`]): the record is mapped to an instance by the
//!    tenant's rules; a record that already carries FOLIO's `999 ff` ids is refused.
//! 2. In the chunk's write transaction, each record in a savepoint of its own ([`write`]):
//!    the instance is saved (it gets its HRID), the MARC gets FOLIO's write-back (005 now,
//!    the old 001/003 into a 035, 001 = the instance HRID, `999 ff $i` instance id and `$s`
//!    SRS id), the SRS record is saved under the job's snapshot, and the journal entry
//!    says so. A record that fails writes nothing but its journal entry.

use std::sync::Arc;

use serde_json::{Map, Value};
use store::Writer;
use uuid::Uuid;

use folio::Actor;
use mapping::{ReferenceData, Rules, Target};

use crate::journal::{Action, Entry, Related, RelatedRecord};
use crate::profile::Tree;

/// What a job does with each record.
#[derive(Clone)]
pub enum Plan {
    /// FOLIO's "Default - Create instance and SRS MARC Bib".
    CreateInstance,
    /// FOLIO's "Default - Create SRS MARC Authority": an authority and its SRS record.
    CreateAuthority,
    /// FOLIO's "Default - Create Holdings and SRS MARC Holdings": a holdings record of
    /// the instance its 004 names, and its SRS record.
    CreateHoldings,
    /// A library's own profile, for MARC bibliographic records.
    Profile(Arc<Tree>),
}

impl Plan {
    pub(crate) fn record_type(&self) -> &'static str {
        match self {
            Plan::CreateInstance | Plan::Profile(_) => "MARC_BIBLIOGRAPHIC",
            Plan::CreateAuthority => "MARC_AUTHORITY",
            Plan::CreateHoldings => "MARC_HOLDINGS",
        }
    }

    /// The rules the plan maps with.
    pub fn rules(&self) -> mapping::RecordType {
        match self {
            Plan::CreateInstance | Plan::Profile(_) => mapping::RecordType::MarcBib,
            Plan::CreateAuthority => mapping::RecordType::MarcAuthority,
            Plan::CreateHoldings => mapping::RecordType::MarcHoldings,
        }
    }
}

/// Candidates for the matches no table answers (an incoming 035 against existing MARC
/// records' 035s, an identifier against instances' identifiers), from the tenant's
/// derived indexes, which the runtime holds. Each candidate is checked against the
/// stored record in the chunk's transaction, so an index that lags can miss a record
/// made moments ago (in the same chunk), never match a wrong one.
pub trait Candidates: Send + Sync {
    /// Brings the indexes up to every committed write (before each chunk).
    fn catch_up(&self) -> Result<(), String>;
    /// Instances whose MARC record has `value` in a `tag` field's `subfield`.
    fn by_marc_field(&self, tag: &str, subfield: char, value: &str) -> Result<Vec<Uuid>, String>;
    /// Instances with an identifier whose value is `value`.
    fn by_identifier(&self, value: &str) -> Result<Vec<Uuid>, String>;
}

/// What a record's processing needs, read once per job.
pub struct Setup {
    pub job: Uuid,
    pub plan: Plan,
    pub rules: Rules,
    pub reference: ReferenceData,
    /// Authority source files by code (`sh`, `n`): an authority's file is the one its
    /// natural id's prefix names.
    pub source_files: Vec<(String, Uuid)>,
    pub actor: Actor,
    /// For profiles that match on indexed values; the caller that holds the indexes
    /// sets it ([`Setup::with_candidates`]).
    pub candidates: Option<std::sync::Arc<dyn Candidates>>,
    /// Records read and mapped ahead of the job's cursor.
    pub(crate) ahead: std::sync::Mutex<crate::run::Ahead>,
}

impl Setup {
    pub fn with_candidates(mut self, candidates: std::sync::Arc<dyn Candidates>) -> Setup {
        self.candidates = Some(candidates);
        self
    }

    /// Whether its records' matches read the indexes.
    pub fn uses_candidates(&self) -> bool {
        matches!(&self.plan, Plan::Profile(tree) if tree.uses_candidates())
    }
}

/// A record mapped and ready to write, or why it cannot be.
#[derive(Clone)]
pub struct Prepared {
    order: u64,
    outcome: std::result::Result<Mapped, String>,
}

#[derive(Clone)]
pub(crate) struct Mapped {
    pub(crate) marc: marc::Record,
    /// The instance or authority, as the rules map it.
    pub(crate) record: Map<String, Value>,
}

/// FOLIO's refusal to create an instance from a record that names one already.
pub(crate) const HAS_IDS: &str = "A new Instance was not created because the incoming record already contains a 999ff$s or 999ff$i field";

/// Whether a record carries FOLIO's `999 ff` ids.
pub(crate) fn has_ids(marc: &marc::Record) -> bool {
    marc.fields_with_tag("999").any(|f| {
        f.indicators() == Some(['f', 'f'])
            && (f.subfield('i').is_some() || f.subfield('s').is_some())
    })
}

/// Maps one record read from the source (no storage).
pub fn prepare(setup: &Setup, order: u64, read: crate::source::Read1) -> Prepared {
    let outcome = read.and_then(|marc| {
        let has_ids = has_ids(&marc);
        let target = match setup.plan {
            Plan::CreateInstance => Target::Instance,
            Plan::CreateAuthority => Target::Authority,
            Plan::CreateHoldings => Target::Holdings,
            // A profile's matches read the ids a record carries.
            Plan::Profile(_) => {
                let record =
                    mapping::map_record(&marc, &setup.rules, Target::Instance, &setup.reference);
                return Ok(Mapped { marc, record });
            }
        };
        if target != Target::Instance {
            let record = mapping::map_record(&marc, &setup.rules, target, &setup.reference);
            return Ok(Mapped { marc, record });
        }
        if has_ids {
            return Err(HAS_IDS.into());
        }
        let record = mapping::map_record(&marc, &setup.rules, Target::Instance, &setup.reference);
        Ok(Mapped { marc, record })
    });
    Prepared { order, outcome }
}

impl Prepared {
    pub fn order(&self) -> u64 {
        self.order
    }
}

/// Writes one prepared record and its journal entry; says whether it went in. Records
/// are written in a savepoint each, so one that fails leaves nothing but its entry.
///
/// Most records go in whole or fail before they write anything, so a record is written
/// without a savepoint unless `careful`; a record that fails after part of it is written
/// answers [`Written::Redo`], and the caller rolls back the chunk and writes it again,
/// carefully: each record in a savepoint of its own. (A savepoint per record costs the
/// copy of every page it touches; most chunks never need one.)
pub fn write(
    w: &mut Writer<'_>,
    setup: &Setup,
    checked: &mut inventory::Checked,
    prepared: Prepared,
    careful: bool,
) -> crate::Result<Written> {
    let order = prepared.order;
    let record_type = setup.plan.record_type();
    let result = match prepared.outcome {
        Err(error) => Err(Failure::Record(error)),
        Ok(mapped) if careful => w.attempt(|w| create(w, setup, checked, order, mapped)),
        Ok(mapped) => create(w, setup, checked, order, mapped),
    };
    let (entry, ok) = match result {
        Ok(entry) => (entry, true),
        Err(Failure::Record(error) | Failure::AfterWrite(error)) if careful => {
            (Entry::failed(setup.job, order, record_type, error), false)
        }
        Err(Failure::Record(error)) => (Entry::failed(setup.job, order, record_type, error), false),
        Err(Failure::AfterWrite(_)) => return Ok(Written::Redo),
        // The database itself failed: the chunk fails, and the job goes on from it later.
        Err(Failure::Storage(e)) => return Err(e.into()),
    };
    crate::journal::write(w, &entry)?;
    Ok(if ok { Written::Imported } else { Written::Failed })
}

/// What [`write`] did with a record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Written {
    Imported,
    /// The record failed, wrote nothing, and its journal entry says why.
    Failed,
    /// The record failed after writing part of itself: the chunk must be done again,
    /// carefully.
    Redo,
}

/// Why a record did not go in: its own fault, before or after it wrote something, or
/// the database's.
pub(crate) enum Failure {
    Record(String),
    AfterWrite(String),
    Storage(store::Error),
}

impl Failure {
    /// The same failure, once the record has written something.
    pub(crate) fn after_write(self) -> Failure {
        match self {
            Failure::Record(message) => Failure::AfterWrite(message),
            other => other,
        }
    }
}

impl From<store::Error> for Failure {
    fn from(e: store::Error) -> Failure {
        match e {
            store::Error::Unique { .. }
            | store::Error::DuplicateId { .. }
            | store::Error::Query(_) => Failure::Record(e.to_string()),
            e => Failure::Storage(e),
        }
    }
}

impl From<inventory::Error> for Failure {
    fn from(e: inventory::Error) -> Failure {
        match e {
            inventory::Error::Store(e) => e.into(),
            e => Failure::Record(e.to_string()),
        }
    }
}

impl From<srs::Error> for Failure {
    fn from(e: srs::Error) -> Failure {
        match e {
            srs::Error::Store(e) => e.into(),
            e => Failure::Record(e.to_string()),
        }
    }
}

impl From<marc::Error> for Failure {
    fn from(e: marc::Error) -> Failure {
        Failure::Record(e.to_string())
    }
}

fn create(
    w: &mut Writer<'_>,
    setup: &Setup,
    checked: &mut inventory::Checked,
    order: u64,
    mapped: Mapped,
) -> std::result::Result<Entry, Failure> {
    match &setup.plan {
        Plan::CreateInstance => create_instance(w, setup, checked, order, mapped),
        Plan::CreateAuthority => create_authority(w, setup, checked, order, mapped),
        Plan::CreateHoldings => create_holdings(w, setup, checked, order, mapped),
        Plan::Profile(tree) => crate::profile::run(w, setup, tree, checked, order, mapped),
    }
}

/// A holdings record of the instance whose HRID the 004 holds, and its SRS record; 001
/// becomes the holdings HRID, `999 ff` names both.
fn create_holdings(
    w: &mut Writer<'_>,
    setup: &Setup,
    checked: &mut inventory::Checked,
    order: u64,
    mapped: Mapped,
) -> std::result::Result<Entry, Failure> {
    let Mapped { mut marc, record: mut holdings } = mapped;
    let instance_hrid = marc
        .control_value("004")
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .ok_or_else(|| Failure::Record("The record has no 004 naming its instance's HRID".into()))?
        .to_string();
    let instance = w.find_by(&inventory::INSTANCES, "hrid", &instance_hrid)?;
    let instance_id =
        instance.first().and_then(|row| Uuid::parse_str(&row.id).ok()).ok_or_else(|| {
            Failure::Record(format!("No instance has the HRID {instance_hrid} the 004 names"))
        })?;
    let holdings_id = store::new_record_id();
    let srs_id = store::new_record_id();
    holdings.remove("hrid");
    holdings.insert("id".into(), Value::String(holdings_id.to_string()));
    holdings.insert("instanceId".into(), Value::String(instance_id.to_string()));
    let holdings: inventory::HoldingsRecord = serde_json::from_value(Value::Object(holdings))
        .map_err(|e| Failure::Record(format!("The mapped holdings record is not valid: {e}")))?;
    let saved = inventory::create_record(w, holdings, setup.actor, checked)?;
    let hrid = saved.hrid.clone().unwrap_or_default();
    let write = |w: &mut Writer<'_>| -> std::result::Result<Entry, Failure> {
        let fields = marc.fields_mut();
        fields.retain(|f| f.tag().as_str() != "001");
        fields.insert(0, marc::Field::control(marc::Tag::new("001")?, hrid.as_str())?);
        set_ids(&mut marc, holdings_id, srs_id)?;
        let external = srs::ExternalIdsHolder {
            holdings_id: Some(holdings_id),
            holdings_hrid: Some(hrid.clone()),
            ..srs::ExternalIdsHolder::default()
        };
        let record =
            srs_record(setup, order, marc, srs_id, srs::RecordType::MarcHolding, false, external)?;
        srs::create(w, record, setup.actor)?;
        let mut entry = Entry::new(setup.job, order, setup.plan.record_type());
        entry.source_record_id = Some(srs_id);
        entry.source_record_action_status = Some(Action::Created);
        entry.related_holdings_info = vec![RelatedRecord {
            action_status: Some(Action::Created),
            id: Some(holdings_id),
            hrid: Some(hrid.clone()),
            permanent_location_id: Some(saved.permanent_location_id),
            holdings_id: None,
            error: None,
        }];
        entry.related_instance_info = Some(Related {
            action_status: None,
            id_list: vec![instance_id],
            hrid_list: vec![instance_hrid.clone()],
            error: None,
        });
        Ok(entry)
    };
    write(w).map_err(Failure::after_write)
}

/// An authority and its SRS record. Its natural id is its LCCN (010 $a) without spaces,
/// else its 001; its source file, the one whose code is the natural id's prefix.
fn create_authority(
    w: &mut Writer<'_>,
    setup: &Setup,
    checked: &mut inventory::Checked,
    order: u64,
    mapped: Mapped,
) -> std::result::Result<Entry, Failure> {
    let Mapped { mut marc, record: mut authority } = mapped;
    let natural_id = marc
        .field("010")
        .and_then(|f| f.subfield('a'))
        .or_else(|| marc.control_value("001"))
        .map(|v| v.split_whitespace().collect::<String>())
        .filter(|v| !v.is_empty())
        .ok_or_else(|| {
            Failure::Record("The record has no 010 $a or 001 to identify the authority".into())
        })?;
    let prefix: String = natural_id.chars().take_while(char::is_ascii_alphabetic).collect();
    let authority_id = store::new_record_id();
    let srs_id = store::new_record_id();
    authority.insert("id".into(), Value::String(authority_id.to_string()));
    authority.insert("source".into(), Value::String("MARC".into()));
    authority.insert("naturalId".into(), Value::String(natural_id));
    if let Some((_, file)) = setup.source_files.iter().find(|(code, _)| *code == prefix) {
        authority.insert("sourceFileId".into(), Value::String(file.to_string()));
    }
    let authority: inventory::Authority = serde_json::from_value(Value::Object(authority))
        .map_err(|e| Failure::Record(format!("The mapped authority is not valid: {e}")))?;
    let saved = inventory::create_record(w, authority, setup.actor, checked)?;
    let write = |w: &mut Writer<'_>| -> std::result::Result<Entry, Failure> {
        set_ids(&mut marc, authority_id, srs_id)?;
        let record = srs_record(
            setup,
            order,
            marc,
            srs_id,
            srs::RecordType::MarcAuthority,
            false,
            srs::ExternalIdsHolder {
                authority_id: Some(authority_id),
                ..srs::ExternalIdsHolder::default()
            },
        )?;
        srs::create(w, record, setup.actor)?;
        let mut entry = Entry::new(setup.job, order, setup.plan.record_type());
        entry.source_record_id = Some(srs_id);
        // The authority's heading, whichever kind it is.
        entry.source_record_title = inventory::model::HeadingKind::ALL
            .iter()
            .find_map(|kind| saved.headings(*kind).0)
            .map(str::to_string);
        entry.source_record_action_status = Some(Action::Created);
        entry.related_authority_info = Some(Related {
            action_status: Some(Action::Created),
            id_list: vec![authority_id],
            hrid_list: Vec::new(),
            error: None,
        });
        Ok(entry)
    };
    write(w).map_err(Failure::after_write)
}

pub(crate) fn create_instance(
    w: &mut Writer<'_>,
    setup: &Setup,
    checked: &mut inventory::Checked,
    order: u64,
    mapped: Mapped,
) -> std::result::Result<Entry, Failure> {
    let Mapped { marc, record: mut instance } = mapped;
    let instance_id = store::new_record_id();
    let srs_id = store::new_record_id();
    // The HRID is the tenant's to assign; the record's own 001 goes to a 035.
    instance.remove("hrid");
    // Quire keeps preceding and succeeding titles on no instance record.
    instance.remove("precedingTitles");
    instance.remove("succeedingTitles");
    instance.insert("id".into(), Value::String(instance_id.to_string()));
    let instance: inventory::Instance = serde_json::from_value(Value::Object(instance))
        .map_err(|e| Failure::Record(mapping_error(&e)))?;
    let suppressed = instance.discovery_suppress;
    let saved = inventory::create_record(w, instance, setup.actor, checked)?;
    let entry = source_record(w, setup, order, marc, &saved, instance_id, srs_id, suppressed)
        .map_err(Failure::after_write)?;
    Ok(entry)
}

/// The SRS record of a saved instance, and the record's journal entry.
#[allow(clippy::too_many_arguments, reason = "one record's parts, named")]
fn source_record(
    w: &mut Writer<'_>,
    setup: &Setup,
    order: u64,
    mut marc: marc::Record,
    saved: &inventory::Instance,
    instance_id: Uuid,
    srs_id: Uuid,
    suppressed: bool,
) -> std::result::Result<Entry, Failure> {
    let hrid = saved.hrid.clone().unwrap_or_default();
    write_back(&mut marc, &hrid, instance_id, srs_id)?;
    let record = srs_record(
        setup,
        order,
        marc,
        srs_id,
        srs::RecordType::MarcBib,
        suppressed,
        srs::ExternalIdsHolder {
            instance_id: Some(instance_id),
            instance_hrid: Some(hrid.clone()),
            ..srs::ExternalIdsHolder::default()
        },
    )?;
    srs::create(w, record, setup.actor)?;
    let mut entry = Entry::new(setup.job, order, setup.plan.record_type());
    entry.source_record_id = Some(srs_id);
    entry.source_record_title = Some(saved.title.clone());
    entry.source_record_action_status = Some(Action::Created);
    entry.related_instance_info = Some(Related {
        action_status: Some(Action::Created),
        id_list: vec![instance_id],
        hrid_list: vec![hrid],
        error: None,
    });
    Ok(entry)
}

/// The SRS record of an imported MARC record, under the job's snapshot.
pub(crate) fn srs_record(
    setup: &Setup,
    order: u64,
    marc: marc::Record,
    srs_id: Uuid,
    record_type: srs::RecordType,
    suppressed: bool,
    external_ids: srs::ExternalIdsHolder,
) -> std::result::Result<srs::Record, Failure> {
    let raw = marc::encode(&marc)?;
    Ok(srs::Record {
        id: Some(srs_id),
        snapshot_id: setup.job,
        matched_id: Some(srs_id),
        matched_profile_id: None,
        generation: 0,
        record_type,
        raw_record: Some(srs::RawRecord {
            id: Some(srs_id),
            content: Some(String::from_utf8_lossy(&raw).into_owned()),
        }),
        parsed_record: Some(srs::ParsedRecord {
            id: Some(srs_id),
            content: Some(marc),
            formatted_content: None,
        }),
        error_record: None,
        deleted: false,
        order: Some(order as i64),
        external_ids_holder: Some(external_ids),
        additional_info: srs::AdditionalInfo { suppress_discovery: suppressed },
        state: srs::State::Actual,
        leader_record_status: None,
        metadata: None,
    })
}

/// A mapped instance that breaks the instance schema, in words a cataloguer can act on.
pub(crate) fn mapping_error(e: &serde_json::Error) -> String {
    let text = e.to_string();
    if text.contains("missing field `title`") {
        "The record has no title (245) to map to the instance's required title".into()
    } else {
        format!("The mapped instance is not valid: {text}")
    }
}

/// FOLIO's write-back into an imported bibliographic record: 005 is now; the record's
/// own 001 (with its 003 as prefix) moves to a 035 unless one has it; 001 becomes the
/// instance's HRID; `999 ff $i` and `$s` name the instance and the SRS record.
pub(crate) fn write_back(
    marc: &mut marc::Record,
    hrid: &str,
    instance_id: Uuid,
    srs_id: Uuid,
) -> marc::Result<()> {
    let tag = |t: &str| marc::Tag::new(t);
    let old_001 = marc.control_value("001").map(str::to_string);
    let old_003 = marc.control_value("003").map(str::to_string);
    let fields = marc.fields_mut();
    fields.retain(|f| !matches!(f.tag().as_str(), "001" | "003" | "005"));
    if let Some(id) = old_001.filter(|v| !v.trim().is_empty()) {
        let value = match old_003.filter(|v| !v.trim().is_empty()) {
            Some(prefix) => format!("({}){}", prefix.trim(), id.trim()),
            None => id.trim().to_string(),
        };
        let present = fields
            .iter()
            .filter(|f| f.tag().as_str() == "035")
            .any(|f| f.subfield_values('a').any(|a| a.trim() == value));
        if !present {
            let at = fields.iter().position(|f| f.tag().as_str() > "035").unwrap_or(fields.len());
            fields.insert(at, marc::Field::data(tag("035")?, ' ', ' ', [('a', value.as_str())])?);
        }
    }
    let now = chrono::Utc::now();
    let stamp = format!("{}.{}", now.format("%Y%m%d%H%M%S"), now.timestamp_subsec_millis() / 100);
    fields.insert(0, marc::Field::control(tag("005")?, stamp)?);
    fields.insert(0, marc::Field::control(tag("001")?, hrid)?);
    set_ids(marc, instance_id, srs_id)
}

/// FOLIO's `999 ff`: `$i` the inventory record's id, `$s` the SRS record's; one, last.
fn set_ids(marc: &mut marc::Record, record_id: Uuid, srs_id: Uuid) -> marc::Result<()> {
    let fields = marc.fields_mut();
    fields.retain(|f| !(f.tag().as_str() == "999" && f.indicators() == Some(['f', 'f'])));
    let (i, s) = (record_id.to_string(), srs_id.to_string());
    fields.push(marc::Field::data(
        marc::Tag::new("999")?,
        'f',
        'f',
        [('i', i.as_str()), ('s', s.as_str())],
    )?);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_back_moves_the_control_number_and_adds_folios_ids() {
        let mut record = marc::Record::new(marc::Leader::new("00000nam a2200000 a 4500").unwrap());
        let t = |t: &str| marc::Tag::new(t).unwrap();
        record.push(marc::Field::control(t("001"), "ocm12345").unwrap());
        record.push(marc::Field::control(t("003"), "OCoLC").unwrap());
        record.push(marc::Field::control(t("008"), "850520s1985").unwrap());
        record.push(marc::Field::data(t("020"), ' ', ' ', [('a', "0451526538")]).unwrap());
        record.push(marc::Field::data(t("245"), '1', '0', [('a', "Title.")]).unwrap());
        let (i, s) = (Uuid::from_u128(1), Uuid::from_u128(2));
        write_back(&mut record, "in00000007", i, s).unwrap();
        let tags: Vec<String> =
            record.fields().iter().map(|f| f.tag().as_str().to_string()).collect();
        assert_eq!(tags, ["001", "005", "008", "020", "035", "245", "999"]);
        assert_eq!(record.control_value("001"), Some("in00000007"));
        assert_eq!(record.field("035").unwrap().subfield('a'), Some("(OCoLC)ocm12345"));
        let ids = record.field("999").unwrap();
        assert_eq!(ids.subfield('i'), Some(i.to_string().as_str()));
        assert_eq!(ids.subfield('s'), Some(s.to_string().as_str()));
    }
}
