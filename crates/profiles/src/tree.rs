//! The import engine's view of a job profile: a typed tree it walks for each incoming
//! record, with no JSON left to read.
//!
//! # How FOLIO runs a tree (and how an engine should read this one)
//!
//! For each incoming record the engine takes the job's [`Step`]s in order:
//! - a [`Step::Match`] looks for existing records of `existing_record_type` whose value
//!   ([`MatchCondition::existing`]) stands in the `criterion` to the incoming record's
//!   ([`MatchCondition::incoming`]). One record found: its `on_match` steps run on it.
//!   None: the `on_non_match` steps run. More than one: the record fails ("Found multiple
//!   records matching specified conditions"). A match's conditions join by their
//!   `boolean_operation` (the first has none).
//! - a [`Step::Action`] does its [`Action`] to a record of its [`FolioRecord`] type: on
//!   the record matched above it, if any, or a new one; its [`MappingStep`] says how the
//!   record is filled from the incoming one. Its `then` steps (rare in FOLIO) run after
//!   it.
//!
//! Steps are in FOLIO's order (the links' `order`). A match's child linked without
//! `reactTo` is in neither list: FOLIO never runs it.
//!
//! # Mapping
//!
//! A [`MappingStep`] for Inventory records is a list of [`FieldRule`]s, one per target
//! path (`holdings.permanentLocationId`, `instance.statisticalCodeIds[]`), each with a
//! [`RuleValue`]: an [`Expression`] over the incoming MARC record (`949$a`), an action
//! for a boolean field, or entries of an array field with what becomes of the existing
//! ones. Reference-data targets list their choices (`accepted_values`, id and label):
//! FOLIO turns a mapped value into an id when it equals a label, the code in a label's
//! last brackets, or the label's name, ignoring case. For MARC records the step lists
//! field edits (`marc_details`) and whether they update or modify the record.
//!
//! Bibliographic fields of an instance are not in its mapping profile: FOLIO maps them
//! with the MARC-to-Instance rules (the `mapping` crate), and the profile adds the
//! administrative fields on top.

use uuid::Uuid;

use crate::{
    Error, Expression, ProfileContent, ProfileSnapshotWrapper, ProfileType, ReactTo, Result,
    model::{
        Action, ActionProfile, BooleanFieldAction, BooleanOperation, EntityType, FolioRecord,
        JobProfile, MappingProfile, MappingRule, MarcFieldProtectionSetting, MarcMappingDetail,
        MarcMappingOption, MatchCriterion, MatchExpression, MatchProfile, Qualifier,
        RepeatableFieldAction, StaticValueDetails,
    },
    snapshot,
};

/// A job profile's tree, typed.
#[derive(Clone, Debug, PartialEq)]
pub struct JobTree {
    pub job_id: Uuid,
    /// The job profile as stored (its name, data type, ...).
    pub job: JobProfile,
    /// What the job does with each incoming record, in order.
    pub steps: Vec<Step>,
}

/// One step of a tree.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    Match(MatchStep),
    Action(ActionStep),
}

/// A match profile in a tree, with the branches for each outcome.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchStep {
    pub profile_id: Uuid,
    pub name: String,
    pub incoming_record_type: EntityType,
    /// The type of the records looked for.
    pub existing_record_type: EntityType,
    /// The comparisons, in order (FOLIO's `matchDetails`).
    pub conditions: Vec<MatchCondition>,
    /// What runs on the one record found.
    pub on_match: Vec<Step>,
    /// What runs when no record is found.
    pub on_non_match: Vec<Step>,
}

/// One comparison: the incoming record's value against existing records' values.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchCondition {
    pub incoming: MatchOperand,
    pub existing: MatchOperand,
    pub criterion: MatchCriterion,
    /// Which of a side's values take part, and which part of them is compared.
    pub incoming_qualifier: Option<Qualifier>,
    pub existing_qualifier: Option<Qualifier>,
    /// How this comparison joins the ones before it; `None` for the first.
    pub boolean_operation: Option<BooleanOperation>,
}

/// Where a compared value comes from.
#[derive(Clone, Debug, PartialEq)]
pub enum MatchOperand {
    /// From a MARC record (incoming, or existing SRS records).
    Marc(MarcSelector),
    /// From an Inventory (or acquisitions) record, by path.
    Field(RecordField),
    /// A constant.
    Static(StaticValueDetails),
}

/// Values of a MARC record: a control field's whole value (tags `001` to `009`; the
/// indicators and subfield do not apply), or the values of subfield `subfield` in the
/// data fields of the tag whose indicators fit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MarcSelector {
    pub tag: String,
    pub ind1: Indicator,
    pub ind2: Indicator,
    pub subfield: Option<char>,
}

/// What an indicator must be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Indicator {
    /// `*` (or left out): any.
    Any,
    /// Empty or a space: a blank indicator.
    Blank,
    Value(char),
}

impl Indicator {
    fn read(text: Option<&str>) -> Indicator {
        match text {
            None | Some("*") => Indicator::Any,
            Some(t) => match t.trim().chars().next() {
                None => Indicator::Blank,
                Some(c) => Indicator::Value(c),
            },
        }
    }
}

/// A value of an Inventory record by path: `instance.hrid`, `instance.id`,
/// `holdingsrecord.hrid`, `item.barcode`, or `instance.identifiers[].value` with the
/// identifier type it must have.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordField {
    pub path: String,
    /// For identifier paths: only identifiers of this type.
    pub identifier_type_id: Option<Uuid>,
    /// Any other labelled part of the field definition, as sent (label, value).
    pub others: Vec<(String, String)>,
}

/// An action profile in a tree.
#[derive(Clone, Debug, PartialEq)]
pub struct ActionStep {
    pub profile_id: Uuid,
    pub name: String,
    pub action: Action,
    pub record: FolioRecord,
    /// Whether `$9` is removed from the linkable fields of a MARC Bib record.
    pub remove_9_subfields: bool,
    /// How the record is filled; `None` when the action has no mapping profile (a
    /// delete, or a profile not finished).
    pub mapping: Option<MappingStep>,
    /// Steps linked under the action itself.
    pub then: Vec<Step>,
}

/// A mapping profile in a tree.
#[derive(Clone, Debug, PartialEq)]
pub struct MappingStep {
    pub profile_id: Uuid,
    pub name: String,
    pub incoming_record_type: EntityType,
    /// The type of the record filled (the action's record type).
    pub existing_record_type: Option<EntityType>,
    /// The enabled rules, in the profile's order (FOLIO's mapper skips disabled ones).
    pub rules: Vec<FieldRule>,
    /// For MARC records: whether the edits update or modify the record.
    pub marc_option: Option<MarcMappingOption>,
    /// For MARC records: the field edits, in order.
    pub marc_details: Vec<MarcMappingDetail>,
    /// Overrides of the tenant's MARC field protection.
    pub field_protection: Vec<MarcFieldProtectionSetting>,
}

/// The rule for one target field.
#[derive(Clone, Debug, PartialEq)]
pub struct FieldRule {
    /// The UI's name for the field (`permanentLocationId`).
    pub name: String,
    /// The target (`holdings.permanentLocationId`; `[]` marks an array).
    pub path: String,
    /// Whether the record is refused without a value for it.
    pub required: bool,
    pub value: RuleValue,
    /// Reference-data choices (id, label `name (code)`), in the profile's order.
    pub accepted_values: Vec<(String, String)>,
}

/// What a rule puts in its target.
#[derive(Clone, Debug, PartialEq)]
pub enum RuleValue {
    /// Nothing: the target keeps what it has.
    Empty,
    Expression(Expression),
    /// A value for a boolean target.
    Boolean(BooleanFieldAction),
    /// Entries of an array target, each a set of rules for its parts, and what becomes
    /// of the entries the record has (with `DeleteExisting` and no entries: remove all).
    Repeatable {
        action: RepeatableFieldAction,
        entries: Vec<RepeatableEntry>,
    },
}

/// One entry of an array target.
#[derive(Clone, Debug, PartialEq)]
pub struct RepeatableEntry {
    pub order: i32,
    pub path: String,
    /// Every rule of the entry: FOLIO reads an entry's rules whatever their `enabled`.
    pub rules: Vec<FieldRule>,
}

/// A job profile's tree as it is now (what `GET /profileSnapshots/{id}` shows), typed.
pub fn job_tree(reader: &store::Reader<'_>, job_profile_id: Uuid) -> Result<JobTree> {
    let root =
        snapshot::snapshot(reader, ProfileType::JobProfile, job_profile_id, Some(job_profile_id))?;
    JobTree::from_snapshot(&root)
}

impl JobTree {
    /// The typed tree of a job's snapshot, e.g. one frozen when an import started
    /// ([`crate::job_snapshot`]).
    pub fn from_snapshot(root: &ProfileSnapshotWrapper) -> Result<JobTree> {
        let ProfileContent::Job(job) = &root.content else {
            return Err(Error::Invalid(vec![format!(
                "A job tree starts at a JOB_PROFILE, not a {}",
                root.content_type
            )]));
        };
        Ok(JobTree {
            job_id: job.id.or(root.profile_id).unwrap_or_default(),
            job: (**job).clone(),
            steps: steps(&root.child_snapshot_wrappers),
        })
    }
}

/// The steps of a node's children, in order. A mapping or job under a job or match
/// is not a step (FOLIO links neither there).
fn steps(children: &[ProfileSnapshotWrapper]) -> Vec<Step> {
    let mut ordered: Vec<&ProfileSnapshotWrapper> = children.iter().collect();
    ordered.sort_by_key(|c| c.order);
    ordered
        .into_iter()
        .filter_map(|child| match &child.content {
            ProfileContent::Match(profile) => Some(Step::Match(match_step(child, profile))),
            ProfileContent::Action(profile) => Some(Step::Action(action_step(child, profile))),
            ProfileContent::Job(_) | ProfileContent::Mapping(_) => None,
        })
        .collect()
}

fn match_step(node: &ProfileSnapshotWrapper, profile: &MatchProfile) -> MatchStep {
    let branch = |outcome: ReactTo| -> Vec<Step> {
        let chosen: Vec<ProfileSnapshotWrapper> = node
            .child_snapshot_wrappers
            .iter()
            .filter(|c| c.react_to == Some(outcome))
            .cloned()
            .collect();
        steps(&chosen)
    };
    MatchStep {
        profile_id: profile.id.or(node.profile_id).unwrap_or_default(),
        name: profile.name.clone(),
        incoming_record_type: profile.incoming_record_type,
        existing_record_type: profile.existing_record_type,
        conditions: profile
            .match_details
            .iter()
            .map(|d| MatchCondition {
                incoming: operand(&d.incoming_match_expression, d.incoming_record_type),
                existing: operand(&d.existing_match_expression, d.existing_record_type),
                criterion: d.match_criterion,
                incoming_qualifier: d.incoming_match_expression.qualifier.clone(),
                existing_qualifier: d.existing_match_expression.qualifier.clone(),
                boolean_operation: d.boolean_operation,
            })
            .collect(),
        on_match: branch(ReactTo::Match),
        on_non_match: branch(ReactTo::NonMatch),
    }
}

fn operand(expression: &MatchExpression, record_type: EntityType) -> MatchOperand {
    use crate::model::DataValueType;
    if expression.data_value_type == DataValueType::StaticValue {
        return MatchOperand::Static(expression.static_value_details.clone().unwrap_or_default());
    }
    if record_type.is_marc() {
        return MatchOperand::Marc(MarcSelector {
            tag: expression.field("field").unwrap_or_default().trim().to_string(),
            ind1: Indicator::read(expression.field("indicator1")),
            ind2: Indicator::read(expression.field("indicator2")),
            subfield: expression.field("recordSubfield").and_then(|s| s.trim().chars().next()),
        });
    }
    MatchOperand::Field(RecordField {
        path: expression.field("field").unwrap_or_default().trim().to_string(),
        identifier_type_id: expression
            .field("identifierTypeId")
            .and_then(|id| Uuid::parse_str(id.trim()).ok()),
        others: expression
            .fields
            .iter()
            .filter(|f| f.label != "field" && f.label != "identifierTypeId")
            .map(|f| (f.label.clone(), f.value.clone()))
            .collect(),
    })
}

fn action_step(node: &ProfileSnapshotWrapper, profile: &ActionProfile) -> ActionStep {
    let mapping = node.child_snapshot_wrappers.iter().find_map(|c| match &c.content {
        ProfileContent::Mapping(m) => Some(mapping_step(c, m)),
        _ => None,
    });
    ActionStep {
        profile_id: profile.id.or(node.profile_id).unwrap_or_default(),
        name: profile.name.clone(),
        action: profile.action,
        record: profile.folio_record,
        remove_9_subfields: profile.remove_9_subfields,
        mapping,
        then: steps(&node.child_snapshot_wrappers),
    }
}

fn mapping_step(node: &ProfileSnapshotWrapper, profile: &MappingProfile) -> MappingStep {
    let details = profile.mapping_details.as_ref();
    MappingStep {
        profile_id: profile.id.or(node.profile_id).unwrap_or_default(),
        name: profile.name.clone(),
        incoming_record_type: profile.incoming_record_type,
        existing_record_type: profile.existing_record_type,
        rules: details
            .map(|d| d.mapping_fields.iter().filter(|r| r.is_enabled()).map(field_rule).collect())
            .unwrap_or_default(),
        marc_option: details.and_then(|d| d.marc_mapping_option),
        marc_details: details.map(|d| d.marc_mapping_details.clone()).unwrap_or_default(),
        field_protection: profile.marc_field_protection_settings.clone(),
    }
}

/// A rule typed as FOLIO's reader reads it: a boolean action first; then entries of a
/// repeatable field; then a repeatable field's deletion; then the expression.
fn field_rule(rule: &MappingRule) -> FieldRule {
    let value = if let Some(action) = rule.boolean_field_action {
        RuleValue::Boolean(action)
    } else if let Some(action) = rule.repeatable_field_action
        && (!rule.subfields.is_empty() || action == RepeatableFieldAction::DeleteExisting)
    {
        RuleValue::Repeatable {
            action,
            entries: rule
                .subfields
                .iter()
                .map(|entry| RepeatableEntry {
                    order: entry.order,
                    path: entry.path.clone(),
                    rules: entry.fields.iter().map(field_rule).collect(),
                })
                .collect(),
        }
    } else {
        match rule.value.as_deref().and_then(Expression::parse) {
            Some(expression) => RuleValue::Expression(expression),
            None => RuleValue::Empty,
        }
    };
    FieldRule {
        name: rule.name.clone(),
        path: rule.path.clone().unwrap_or_default(),
        required: rule.required,
        value,
        accepted_values: rule
            .accepted_values
            .iter()
            .flatten()
            .map(|(id, label)| (id.clone(), label.as_str().unwrap_or_default().to_string()))
            .collect(),
    }
}
