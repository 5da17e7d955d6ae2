//! A library's own job profiles: the tree of matches and actions (`profiles::JobTree`)
//! walked for each incoming MARC bibliographic record, in the chunk's transaction.
//!
//! What Quire's engine runs, which is what libraries use profiles for:
//! - **matches** of one condition, `EXACTLY_MATCHES`, of the incoming record's 001,
//!   `999 ff $i`, `999 ff $s` or any data field's subfield (a 035 $a) against existing
//!   MARC bibliographic records (their 001, instance id, `matchedId`, or the same
//!   subfield), or of any incoming field against an instance's `hrid`, `id` or
//!   identifiers (of a type, if the profile names one). Subfield and identifier matches
//!   take their candidates from the runtime's indexes ([`crate::Candidates`]) and check
//!   each against the stored record. One record found: the match branch runs on it; none: the non-match
//!   branch; several: the record fails ("Found multiple records matching specified
//!   conditions"). A branch with nothing in it discards the record, and the log says so.
//!   Qualifiers as FOLIO reads them: an incoming value takes part only if it begins
//!   with, ends with or contains the qualifier's text, and is compared by its digits or
//!   its letters and digits if the profile says so; an existing value must pass its
//!   side's qualifier too.
//! - **actions**: create an instance (and its SRS record, as the default profile does),
//!   update the matched instance and its SRS record (an overlay: the SRS record's next
//!   generation, keeping the existing fields the tenant's MARC field protection names
//!   unless the profile overrides it; the instance re-mapped from it keeping its id,
//!   HRID and what cataloguers set by hand), and create holdings and items from fields of the record by a mapping
//!   profile (`949$l` a location, `949$i` a barcode): one holdings record and one item
//!   per occurrence of the field the mapping reads, an item going to the holdings record
//!   made from the same occurrence, like holdings made once.
//!
//! A profile that asks for anything else is refused when the job starts, naming the
//! step, so the job ends at once in `ERROR` with that message instead of failing every
//! record. Not yet: a comparison part on the existing side, several conditions per
//! match, criteria other than exact, MARC modify actions, updates of holdings and items.

use std::collections::BTreeSet;

use serde_json::{Map, Value};
use store::Writer;
use uuid::Uuid;

use profiles::{
    Action as ProfileAction, ActionStep, ComparisonPart, EntityType, FieldRule, FolioRecord,
    Indicator, JobTree, MappingStep, MarcSelector, MatchCriterion, MatchOperand, MatchStep,
    QualifierType, RuleValue, Step, Term,
};

use crate::fill::{self, Choices};
use crate::journal::{Action, Entry, Related, RelatedRecord};
use crate::process::{self, Failure, Mapped, Setup};

/// FOLIO's holdings source "FOLIO", of holdings made from a bibliographic record.
const FOLIO_HOLDINGS_SOURCE: &str = "f32d531e-df79-46b3-8932-cdd35f7a2264";

/// A job's profile, ready to run.
pub struct Tree {
    pub(crate) tree: JobTree,
    /// The reference records its mapping profiles name.
    pub(crate) choices: Choices,
    /// The MARC field protection its overlays keep fields by.
    pub(crate) protections: Vec<profiles::FieldProtection>,
}

impl Tree {
    /// Whether its matches read the indexes ([`crate::Candidates`]).
    pub(crate) fn uses_candidates(&self) -> bool {
        reads_indexes(&self.tree.steps)
    }

    /// The profile's tree, if Quire's engine can run all of it.
    pub fn new(reader: &store::Reader<'_>, tree: JobTree) -> crate::Result<Tree> {
        let reject = |reason: String| crate::Error::UnsupportedProfile { id: tree.job_id, reason };
        if tree.steps.is_empty() {
            return Err(reject("it has no match or action profile".into()));
        }
        check(&tree.steps).map_err(reject)?;
        let mut rules = Vec::new();
        collect_rules(&tree.steps, &mut rules);
        let choices = Choices::read(reader, &rules)?;
        let mut overrides = Vec::new();
        collect_overrides(&tree.steps, &mut overrides);
        let protections = profiles::protections(reader, &overrides)?;
        Ok(Tree { tree, choices, protections })
    }
}

/// The field protection settings the tree's mapping profiles override.
fn collect_overrides(steps: &[Step], out: &mut Vec<profiles::MarcFieldProtectionSetting>) {
    for step in steps {
        match step {
            Step::Match(m) => {
                collect_overrides(&m.on_match, out);
                collect_overrides(&m.on_non_match, out);
            }
            Step::Action(a) => {
                out.extend(a.mapping.iter().flat_map(|m| m.field_protection.iter().cloned()));
                collect_overrides(&a.then, out);
            }
        }
    }
}

fn collect_rules<'a>(steps: &'a [Step], out: &mut Vec<&'a FieldRule>) {
    for step in steps {
        match step {
            Step::Match(m) => {
                collect_rules(&m.on_match, out);
                collect_rules(&m.on_non_match, out);
            }
            Step::Action(a) => {
                for rule in a.mapping.iter().flat_map(|m| &m.rules) {
                    out.push(rule);
                    if let RuleValue::Repeatable { entries, .. } = &rule.value {
                        out.extend(entries.iter().flat_map(|e| &e.rules));
                    }
                }
                collect_rules(&a.then, out);
            }
        }
    }
}

/// Why Quire cannot run a step, if it cannot.
fn check(steps: &[Step]) -> Result<(), String> {
    for step in steps {
        match step {
            Step::Match(m) => {
                check_match(m).map_err(|e| format!("match profile '{}': {e}", m.name))?;
                check(&m.on_match)?;
                check(&m.on_non_match)?;
            }
            Step::Action(a) => {
                let supported = matches!(
                    (a.action, a.record),
                    (
                        ProfileAction::Create,
                        FolioRecord::Instance | FolioRecord::Holdings | FolioRecord::Item
                    ) | (
                        ProfileAction::Update,
                        FolioRecord::Instance | FolioRecord::MarcBibliographic
                    )
                );
                if !supported {
                    return Err(format!(
                        "action profile '{}': Quire's import cannot yet {} {} records",
                        a.name,
                        a.action.as_str(),
                        a.record.as_str()
                    ));
                }
                if matches!(a.record, FolioRecord::Holdings | FolioRecord::Item)
                    && a.mapping.is_none()
                {
                    return Err(format!("action profile '{}' has no mapping profile", a.name));
                }
                check(&a.then)?;
            }
        }
    }
    Ok(())
}

fn check_match(m: &MatchStep) -> Result<(), String> {
    if m.incoming_record_type != EntityType::MarcBibliographic {
        return Err("Quire matches incoming MARC bibliographic records only".into());
    }
    let [condition] = m.conditions.as_slice() else {
        return Err("Quire matches on one condition".into());
    };
    if condition.criterion != MatchCriterion::ExactlyMatches {
        return Err("Quire matches with EXACTLY_MATCHES only".into());
    }
    if condition.existing_qualifier.as_ref().is_some_and(|q| q.comparison_part.is_some()) {
        return Err("Quire compares the existing record's value whole: it does not take a \
                    comparison part on that side yet"
            .into());
    }
    let MatchOperand::Marc(_) = &condition.incoming else {
        return Err("the incoming value must be a MARC field".into());
    };
    match (&condition.existing, m.existing_record_type) {
        (MatchOperand::Field(f), EntityType::Instance)
            if INSTANCE_PATHS.contains(&f.path.as_str()) =>
        {
            Ok(())
        }
        (MatchOperand::Marc(s), EntityType::MarcBibliographic) if existing_marc(s).is_some() => {
            Ok(())
        }
        _ => Err("Quire matches existing MARC bibliographic records on 001, 999 ff $i or $s, \
                  or a data field's subfield, and instances on hrid, id or identifiers"
            .into()),
    }
}

/// The instance properties a match may compare.
const INSTANCE_PATHS: &[&str] = &["instance.hrid", "instance.id", IDENTIFIERS];
const IDENTIFIERS: &str = "instance.identifiers[].value";

/// Whether a tree's matches read the indexes.
fn reads_indexes(steps: &[Step]) -> bool {
    steps.iter().any(|step| match step {
        Step::Match(m) => {
            let indexed = m.conditions.iter().any(|c| match &c.existing {
                MatchOperand::Field(f) => f.path == IDENTIFIERS,
                MatchOperand::Marc(s) => matches!(existing_marc(s), Some(MarcKey::Subfield(_))),
                MatchOperand::Static(_) => false,
            });
            indexed || reads_indexes(&m.on_match) || reads_indexes(&m.on_non_match)
        }
        Step::Action(a) => reads_indexes(&a.then),
    })
}

/// Which key of existing MARC bibliographic records a selector reads.
#[derive(Clone, Copy)]
enum MarcKey {
    ControlNumber,
    InstanceId,
    MatchedId,
    /// A data field's subfield (`035 $a`), by the MARC index.
    Subfield(char),
}

fn existing_marc(s: &MarcSelector) -> Option<MarcKey> {
    let ff = |i: Indicator| matches!(i, Indicator::Value('f') | Indicator::Any);
    match (s.tag.as_str(), s.subfield) {
        ("001", _) => Some(MarcKey::ControlNumber),
        ("999", Some('i')) if ff(s.ind1) && ff(s.ind2) => Some(MarcKey::InstanceId),
        ("999", Some('s')) if ff(s.ind1) && ff(s.ind2) => Some(MarcKey::MatchedId),
        (tag, Some(code))
            if tag.len() == 3 && tag > "009" && tag.bytes().all(|b| b.is_ascii_digit()) =>
        {
            Some(MarcKey::Subfield(code))
        }
        _ => None,
    }
}

/// One record's walk through the tree.
struct Walk<'a> {
    setup: &'a Setup,
    tree: &'a Tree,
    order: u64,
    marc: marc::Record,
    /// The instance as the tenant's MARC rules map the record.
    mapped: Map<String, Value>,
    /// The instance the record is about: matched, or made by an action.
    instance: Option<Uuid>,
    /// The holdings made, by the occurrence of the field they were made from.
    holdings: Vec<Uuid>,
    entry: Entry,
    /// Whether anything was written (a failure after that undoes the record).
    wrote: bool,
}

/// Runs the tree for one record; its journal entry.
pub(crate) fn run(
    w: &mut Writer<'_>,
    setup: &Setup,
    tree: &Tree,
    checked: &mut inventory::Checked,
    order: u64,
    mapped: Mapped,
) -> Result<Entry, Failure> {
    let mut entry = Entry::new(setup.job, order, "MARC_BIBLIOGRAPHIC");
    entry.source_record_title =
        mapped.record.get("title").and_then(Value::as_str).map(str::to_string);
    let mut walk = Walk {
        setup,
        tree,
        order,
        marc: mapped.marc,
        mapped: mapped.record,
        instance: None,
        holdings: Vec::new(),
        entry,
        wrote: false,
    };
    match walk.steps(w, checked, &tree.tree.steps) {
        Ok(()) => {}
        Err(e) if walk.wrote => return Err(e.after_write()),
        Err(e) => return Err(e),
    }
    let mut entry = walk.entry;
    if entry.source_record_action_status.is_none() {
        entry.source_record_action_status = Some(Action::Discarded);
    }
    if entry.related_instance_info.is_none() {
        entry.related_instance_info = Some(Related {
            action_status: Some(Action::Discarded),
            id_list: walk.instance.into_iter().collect(),
            hrid_list: Vec::new(),
            error: None,
        });
    }
    Ok(entry)
}

impl Walk<'_> {
    fn steps(
        &mut self,
        w: &mut Writer<'_>,
        checked: &mut inventory::Checked,
        steps: &[Step],
    ) -> Result<(), Failure> {
        for step in steps {
            match step {
                Step::Match(m) => {
                    let found = self.find(w, m)?;
                    let branch = match found.len() {
                        0 => &m.on_non_match,
                        1 => {
                            self.instance = found.first().copied();
                            &m.on_match
                        }
                        _ => {
                            return Err(Failure::Record(
                                "Found multiple records matching specified conditions".into(),
                            ));
                        }
                    };
                    self.steps(w, checked, branch)?;
                }
                Step::Action(a) => {
                    self.action(w, checked, a)?;
                    self.steps(w, checked, &a.then)?;
                }
            }
        }
        Ok(())
    }

    /// The instances the match finds.
    fn find(&self, w: &Writer<'_>, m: &MatchStep) -> Result<BTreeSet<Uuid>, Failure> {
        let condition = &m.conditions[0];
        let MatchOperand::Marc(incoming) = &condition.incoming else { return Ok(BTreeSet::new()) };
        let mut found = BTreeSet::new();
        let incoming_qualifier = condition.incoming_qualifier.as_ref();
        // The existing value must equal the compared part of the incoming one, so an
        // incoming value the existing side's qualifier refuses can find nothing.
        let existing_qualifier = condition.existing_qualifier.as_ref();
        let values = selector_values(incoming, &self.marc)
            .into_iter()
            .filter(|v| qualifies(v, incoming_qualifier))
            .map(|v| compared_part(v, incoming_qualifier))
            .filter(|v| !v.is_empty() && qualifies(v, existing_qualifier));
        for value in values {
            match &condition.existing {
                MatchOperand::Field(f) if f.path == "instance.hrid" => {
                    for row in w.find_by(&inventory::INSTANCES, "hrid", &value)? {
                        found.extend(Uuid::parse_str(&row.id).ok());
                    }
                }
                MatchOperand::Field(f) if f.path == IDENTIFIERS => {
                    for id in self.candidates()?.by_identifier(&value).map_err(Failure::Record)? {
                        if has_identifier(w, id, &value, f.identifier_type_id)? {
                            found.insert(id);
                        }
                    }
                }
                MatchOperand::Field(_) => {
                    if let Ok(id) = Uuid::parse_str(&value)
                        && w.exists(&inventory::INSTANCES, &id.to_string())?
                    {
                        found.insert(id);
                    }
                }
                MatchOperand::Marc(s) => match existing_marc(s) {
                    Some(MarcKey::Subfield(code)) => {
                        let candidates = self.candidates()?;
                        for id in candidates
                            .by_marc_field(&s.tag, code, &value)
                            .map_err(Failure::Record)?
                        {
                            if live_bib(w, id)?
                                .is_some_and(|m| selector_values(s, &m).contains(&value))
                            {
                                found.insert(id);
                            }
                        }
                    }
                    key => found.extend(existing_bibs(w, key, &value)?),
                },
                MatchOperand::Static(_) => {}
            }
        }
        Ok(found)
    }

    fn candidates(&self) -> Result<&dyn crate::Candidates, Failure> {
        self.setup.candidates.as_deref().ok_or_else(|| {
            Failure::Record(
                "This match reads the search indexes, which this import runs without".into(),
            )
        })
    }

    fn action(
        &mut self,
        w: &mut Writer<'_>,
        checked: &mut inventory::Checked,
        a: &ActionStep,
    ) -> Result<(), Failure> {
        match (a.action, a.record) {
            (ProfileAction::Create, FolioRecord::Instance) => {
                if process::has_ids(&self.marc) {
                    return Err(Failure::Record(process::HAS_IDS.into()));
                }
                let mut instance = self.mapped.clone();
                if let Some(mapping) = &a.mapping {
                    fill::apply(
                        &mapping.rules,
                        "instance",
                        &self.marc,
                        &self.tree.choices,
                        &mut instance,
                    )
                    .map_err(Failure::Record)?;
                }
                let mapped = Mapped { marc: self.marc.clone(), record: instance };
                let entry = process::create_instance(w, self.setup, checked, self.order, mapped)?;
                self.wrote = true;
                self.instance =
                    entry.related_instance_info.as_ref().and_then(|i| i.id_list.first().copied());
                self.entry.source_record_id = entry.source_record_id;
                self.entry.source_record_action_status = entry.source_record_action_status;
                self.entry.related_instance_info = entry.related_instance_info;
            }
            (ProfileAction::Update, FolioRecord::Instance | FolioRecord::MarcBibliographic) => {
                // Both actions overlay the record; a profile with both does it once.
                if self
                    .entry
                    .related_instance_info
                    .as_ref()
                    .is_some_and(|i| i.action_status == Some(Action::Updated))
                {
                    return Ok(());
                }
                let instance = self.instance.ok_or_else(|| {
                    Failure::Record("An update must follow a match that found a record".into())
                })?;
                self.overlay(w, checked, instance, a.mapping.as_ref())?;
            }
            (ProfileAction::Create, FolioRecord::Holdings) => {
                let mapping = a.mapping.as_ref().expect("checked when the job started");
                self.create_holdings(w, checked, mapping)?;
            }
            (ProfileAction::Create, FolioRecord::Item) => {
                let mapping = a.mapping.as_ref().expect("checked when the job started");
                self.create_items(w, checked, mapping)?;
            }
            _ => unreachable!("refused when the job started"),
        }
        Ok(())
    }

    /// The overlay: the instance re-mapped from the incoming record, keeping its id,
    /// HRID and the administrative data the record does not carry; the SRS record's next
    /// generation with FOLIO's write-back.
    fn overlay(
        &mut self,
        w: &mut Writer<'_>,
        checked: &mut inventory::Checked,
        instance_id: Uuid,
        mapping: Option<&MappingStep>,
    ) -> Result<(), Failure> {
        let previous = match srs::get_by(w, instance_id, srs::IdType::Instance) {
            Ok(record) => Some(record),
            Err(srs::Error::NotFound { .. }) => None,
            Err(e) => return Err(e.into()),
        };
        // The fields the tenant protects stay: the incoming record with them is what
        // the SRS record becomes and the instance is mapped from.
        let mut marc = self.marc.clone();
        let mut mapped = self.mapped.clone();
        let existing = previous.as_ref().and_then(|p| p.parsed_record.as_ref()?.content.as_ref());
        if let Some(existing) = existing {
            let kept = profiles::keep_protected(&marc, existing, &self.tree.protections);
            if kept != marc {
                let (rules, reference) = (&self.setup.rules, &self.setup.reference);
                mapped = mapping::map_record(&kept, rules, mapping::Target::Instance, reference);
                marc = kept;
            }
        }
        let row = w
            .get(&inventory::INSTANCES, &instance_id.to_string())?
            .ok_or_else(|| Failure::Record(format!("Instance {instance_id} was not found")))?;
        let Value::Object(mut instance) = serde_json::from_str(&row.body)
            .map_err(|e| Failure::Record(format!("Instance {instance_id} cannot be read: {e}")))?
        else {
            return Err(Failure::Record(format!("Instance {instance_id} is not an object")));
        };
        // The bibliographic description is the record's, whole: what it no longer says goes.
        for name in mapping::Target::Instance.properties() {
            if !KEPT.contains(&name) {
                instance.remove(name);
            }
        }
        for (name, value) in &mapped {
            let empty = value.is_null()
                || value == &Value::Bool(false)
                || value.as_array().is_some_and(Vec::is_empty);
            // Quire keeps preceding and succeeding titles on no instance record.
            let skipped = matches!(name.as_str(), "hrid" | "precedingTitles" | "succeedingTitles");
            if skipped || (KEPT.contains(&name.as_str()) && empty) {
                continue;
            }
            instance.insert(name.clone(), value.clone());
        }
        instance.insert("source".into(), Value::String("MARC".into()));
        if let Some(mapping) = mapping {
            fill::apply(&mapping.rules, "instance", &marc, &self.tree.choices, &mut instance)
                .map_err(Failure::Record)?;
        }
        let instance: inventory::Instance = serde_json::from_value(Value::Object(instance))
            .map_err(|e| Failure::Record(process::mapping_error(&e)))?;
        let suppressed = instance.discovery_suppress;
        let saved = inventory::replace_record(w, instance, self.setup.actor, checked)?;
        self.wrote = true;
        let hrid = saved.hrid.clone().unwrap_or_default();
        let srs_id = store::new_record_id();
        let matched = previous.as_ref().and_then(|p| p.matched_id.or(p.id)).unwrap_or(srs_id);
        process::write_back(&mut marc, &hrid, instance_id, matched)?;
        let external = srs::ExternalIdsHolder {
            instance_id: Some(instance_id),
            instance_hrid: Some(hrid.clone()),
            ..srs::ExternalIdsHolder::default()
        };
        let record = process::srs_record(
            self.setup,
            self.order,
            marc,
            srs_id,
            srs::RecordType::MarcBib,
            suppressed,
            external,
        )?;
        let status = match previous.and_then(|p| p.id) {
            Some(old) => {
                srs::new_generation(w, old, record, self.setup.actor)?;
                Action::Updated
            }
            None => {
                srs::create(w, record, self.setup.actor)?;
                Action::Created
            }
        };
        self.entry.source_record_id = Some(srs_id);
        self.entry.source_record_action_status = Some(status);
        self.entry.source_record_title = Some(saved.title.clone());
        self.entry.related_instance_info = Some(Related {
            action_status: Some(Action::Updated),
            id_list: vec![instance_id],
            hrid_list: vec![hrid],
            error: None,
        });
        Ok(())
    }

    fn create_holdings(
        &mut self,
        w: &mut Writer<'_>,
        checked: &mut inventory::Checked,
        mapping: &MappingStep,
    ) -> Result<(), Failure> {
        let instance = self.instance.ok_or_else(|| {
            Failure::Record("No instance to attach the holdings record to".into())
        })?;
        let mut made: Vec<(Map<String, Value>, Uuid)> = Vec::new();
        self.holdings.clear();
        for view in occurrences(&self.marc, &mapping.rules) {
            let mut holdings = Map::new();
            holdings.insert("instanceId".into(), Value::String(instance.to_string()));
            holdings.insert("sourceId".into(), Value::String(FOLIO_HOLDINGS_SOURCE.into()));
            fill::apply(&mapping.rules, "holdings", &view, &self.tree.choices, &mut holdings)
                .map_err(Failure::Record)?;
            // Occurrences that make the same holdings record share it.
            if let Some((_, id)) = made.iter().find(|(json, _)| *json == holdings) {
                self.holdings.push(*id);
                continue;
            }
            let id = store::new_record_id();
            let mut body = holdings.clone();
            body.insert("id".into(), Value::String(id.to_string()));
            let record: inventory::HoldingsRecord = serde_json::from_value(Value::Object(body))
                .map_err(|e| {
                    Failure::Record(format!("The mapped holdings record is not valid: {e}"))
                })?;
            let saved = inventory::create_record(w, record, self.setup.actor, checked)?;
            self.wrote = true;
            self.entry.related_holdings_info.push(RelatedRecord {
                action_status: Some(Action::Created),
                id: Some(id),
                hrid: saved.hrid.clone(),
                permanent_location_id: Some(saved.permanent_location_id),
                holdings_id: None,
                error: None,
            });
            made.push((holdings, id));
            self.holdings.push(id);
        }
        Ok(())
    }

    fn create_items(
        &mut self,
        w: &mut Writer<'_>,
        checked: &mut inventory::Checked,
        mapping: &MappingStep,
    ) -> Result<(), Failure> {
        for (at, view) in occurrences(&self.marc, &mapping.rules).into_iter().enumerate() {
            let holdings =
                self.holdings.get(at).or(self.holdings.last()).copied().ok_or_else(|| {
                    Failure::Record("No holdings record to attach the item to".into())
                })?;
            let mut item = Map::new();
            item.insert("id".into(), Value::String(store::new_record_id().to_string()));
            item.insert("holdingsRecordId".into(), Value::String(holdings.to_string()));
            fill::apply(&mapping.rules, "item", &view, &self.tree.choices, &mut item)
                .map_err(Failure::Record)?;
            let record: inventory::Item = serde_json::from_value(Value::Object(item))
                .map_err(|e| Failure::Record(format!("The mapped item is not valid: {e}")))?;
            let saved = inventory::create_record(w, record, self.setup.actor, checked)?;
            self.wrote = true;
            self.entry.related_item_info.push(RelatedRecord {
                action_status: Some(Action::Created),
                id: saved.id,
                hrid: saved.hrid.clone(),
                permanent_location_id: saved.permanent_location_id,
                holdings_id: Some(holdings),
                error: None,
            });
        }
        Ok(())
    }
}

/// What an overlay keeps of the instance when the record does not set it: what
/// cataloguers set in FOLIO rather than in MARC.
const KEPT: &[&str] = &[
    "statusId",
    "catalogedDate",
    "previouslyHeld",
    "statisticalCodeIds",
    "administrativeNotes",
    "natureOfContentTermIds",
    "discoverySuppress",
    "staffSuppress",
    "deleted",
];

/// Whether the instance has an identifier of this value (and type, if given).
fn has_identifier(
    w: &Writer<'_>,
    id: Uuid,
    value: &str,
    type_id: Option<Uuid>,
) -> Result<bool, Failure> {
    let Some(row) = w.get(&inventory::INSTANCES, &id.to_string())? else { return Ok(false) };
    let instance: Value = serde_json::from_str(&row.body).unwrap_or_default();
    let identifiers = instance["identifiers"].as_array().map(Vec::as_slice).unwrap_or_default();
    Ok(identifiers.iter().any(|i| {
        i["value"].as_str().is_some_and(|v| v.trim() == value)
            && type_id
                .is_none_or(|t| i["identifierTypeId"].as_str() == Some(t.to_string().as_str()))
    }))
}

/// Whether a match qualifier lets a value take part: it begins with, ends with or
/// contains the qualifier's value (case matters, as in FOLIO). A qualifier without a
/// type or value lets every value in.
fn qualifies(value: &str, qualifier: Option<&profiles::Qualifier>) -> bool {
    let Some(q) = qualifier else { return true };
    let (Some(kind), Some(text)) = (q.qualifier_type, q.qualifier_value.as_deref()) else {
        return true;
    };
    match kind {
        QualifierType::BeginsWith => value.starts_with(text),
        QualifierType::EndsWith => value.ends_with(text),
        QualifierType::Contains => value.contains(text),
    }
}

/// The part of a value a match compares: its digits (`NUMERICS_ONLY`), its letters and
/// digits (`ALPHANUMERICS_ONLY`), or all of it.
fn compared_part(value: String, qualifier: Option<&profiles::Qualifier>) -> String {
    match qualifier.and_then(|q| q.comparison_part) {
        None => value,
        Some(ComparisonPart::NumericsOnly) => value.chars().filter(char::is_ascii_digit).collect(),
        Some(ComparisonPart::AlphanumericsOnly) => {
            value.chars().filter(|c| c.is_alphanumeric()).collect()
        }
    }
}

/// The values a selector reads from a record.
fn selector_values(s: &MarcSelector, marc: &marc::Record) -> Vec<String> {
    if s.tag.as_str() < "010" {
        return marc.control_value(&s.tag).map(|v| v.trim().to_string()).into_iter().collect();
    }
    let fits = |want: Indicator, have: char| match want {
        Indicator::Any => true,
        Indicator::Blank => have == ' ',
        Indicator::Value(c) => c == have,
    };
    marc.fields_with_tag(&s.tag)
        .filter(|f| f.indicators().is_some_and(|[a, b]| fits(s.ind1, a) && fits(s.ind2, b)))
        .flat_map(|f| match s.subfield {
            Some(code) => f.subfield_values(code).map(str::to_string).collect::<Vec<_>>(),
            None => vec![f.subfields().map(|s| s.value).collect::<Vec<_>>().join(" ")],
        })
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty())
        .collect()
}

/// The instances of the live MARC bibliographic records a key's value names.
fn existing_bibs(w: &Writer<'_>, key: Option<MarcKey>, value: &str) -> Result<Vec<Uuid>, Failure> {
    let live = |record: srs::Record| {
        (record.record_type == srs::RecordType::MarcBib && record.state == srs::State::Actual)
            .then(|| record.external_ids_holder.and_then(|e| e.instance_id))
            .flatten()
    };
    let by = |id_type: srs::IdType| -> Result<Vec<Uuid>, Failure> {
        let Ok(id) = Uuid::parse_str(value) else { return Ok(Vec::new()) };
        match srs::get_by(w, id, id_type) {
            Ok(record) => Ok(live(record).into_iter().collect()),
            Err(srs::Error::NotFound { .. }) => Ok(Vec::new()),
            Err(e) => Err(e.into()),
        }
    };
    match key {
        Some(MarcKey::InstanceId) => by(srs::IdType::Instance),
        Some(MarcKey::MatchedId) => by(srs::IdType::Record),
        Some(MarcKey::ControlNumber) => {
            let filter = srs::RecordFilter {
                external_hrid: Some(value.to_string()),
                record_type: Some(srs::RecordType::MarcBib),
                state: Some(srs::State::Actual),
                ..srs::RecordFilter::default()
            };
            let (records, _) = srs::list(w, &filter, store::Page { offset: 0, limit: 10 })?;
            Ok(records.into_iter().filter_map(live).collect())
        }
        Some(MarcKey::Subfield(_)) | None => Ok(Vec::new()),
    }
}

/// The MARC of an instance's live (ACTUAL) bibliographic record, if it has one.
fn live_bib(w: &Writer<'_>, instance: Uuid) -> Result<Option<marc::Record>, Failure> {
    match srs::get_by(w, instance, srs::IdType::Instance) {
        Ok(record)
            if record.record_type == srs::RecordType::MarcBib
                && record.state == srs::State::Actual =>
        {
            Ok(record.parsed_record.and_then(|p| p.content))
        }
        Ok(_) | Err(srs::Error::NotFound { .. }) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// The record as each occurrence of the field a mapping reads sees it: the record with
/// only that occurrence of the field. One view, the record, when the field is absent or
/// the mapping reads no data field.
fn occurrences(marc: &marc::Record, rules: &[FieldRule]) -> Vec<marc::Record> {
    let tag = rules.iter().find_map(|rule| {
        let mut expressions: Vec<&profiles::Expression> = Vec::new();
        match &rule.value {
            RuleValue::Expression(e) => expressions.push(e),
            RuleValue::Repeatable { entries, .. } => {
                for part in entries.iter().flat_map(|e| &e.rules) {
                    if let RuleValue::Expression(e) = &part.value {
                        expressions.push(e);
                    }
                }
            }
            _ => {}
        }
        expressions.into_iter().flat_map(|e| e.alternatives.iter().flatten()).find_map(
            |t| match t {
                Term::Field { tag, .. } if tag.as_str() >= "010" => Some(tag.clone()),
                _ => None,
            },
        )
    });
    let Some(tag) = tag else { return vec![marc.clone()] };
    let count = marc.fields_with_tag(&tag).count();
    if count <= 1 {
        return vec![marc.clone()];
    }
    (0..count)
        .map(|keep| {
            let mut view = marc.clone();
            let mut seen = 0;
            view.fields_mut().retain(|f| {
                if f.tag().as_str() != tag {
                    return true;
                }
                seen += 1;
                seen - 1 == keep
            });
            view
        })
        .collect()
}
