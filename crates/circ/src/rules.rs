//! The tenant's circulation rules: stored as FOLIO's `rulesAsText`, compiled once per
//! change, and applied to an item and a patron to find each kind of policy.

use std::sync::{Arc, Mutex};

use folio::Actor;
use inventory::Item;
use serde::{Deserialize, Serialize};
use store::{Reader, Writer};
use uuid::Uuid;

use crate::records::{self, Record};
use crate::storage::CIRCULATION_RULES;
use crate::{Error, Result};

/// The one rules document's id in its table.
const RULES_ID: &str = "circulation-rules";

/// FOLIO's `/circulation/rules` body.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RulesDocument {
    pub rules_as_text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
}

/// Compiled rules, shared between requests and recompiled when the stored text
/// changes (detected by the record's version, read in the caller's transaction).
#[derive(Default)]
pub struct RulesCache {
    compiled: Mutex<Option<(i64, Arc<circ_rules::Rules>)>>,
}

impl RulesCache {
    pub fn new() -> RulesCache {
        RulesCache::default()
    }

    /// The rules as stored now; compiles them if they changed since last time.
    pub fn get(&self, reader: &Reader<'_>) -> Result<Arc<circ_rules::Rules>> {
        let stored = reader
            .get(&CIRCULATION_RULES, RULES_ID)?
            .ok_or_else(|| Error::Corrupt("the tenant has no circulation rules".to_string()))?;
        if let Some((version, rules)) = self.compiled.lock().unwrap().as_ref()
            && *version == stored.version
        {
            return Ok(rules.clone());
        }
        let document: RulesDocument = records::parse(&stored.body, RULES_ID)?;
        let rules = circ_rules::Rules::compile(&document.rules_as_text)
            .map_err(|e| Error::Corrupt(format!("stored circulation rules do not compile: {e}")))?;
        let rules = Arc::new(rules);
        *self.compiled.lock().unwrap() = Some((stored.version, rules.clone()));
        Ok(rules)
    }
}

/// The stored rules document.
pub fn get_rules(reader: &Reader<'_>) -> Result<RulesDocument> {
    match reader.get(&CIRCULATION_RULES, RULES_ID)? {
        Some(stored) => records::parse(&stored.body, RULES_ID),
        None => Ok(RulesDocument { rules_as_text: String::new(), id: None }),
    }
}

/// Replaces the rules (FOLIO's `PUT /circulation/rules`): they must compile, and every
/// policy they name must exist. Nothing is stored otherwise.
pub fn put_rules(writer: &mut Writer<'_>, text: &str, _actor: Actor) -> Result<()> {
    let rules = circ_rules::Rules::compile(text).map_err(rules_error)?;
    for reference in rules.policy_references() {
        let table = match reference.kind {
            circ_rules::PolicyKind::Loan => crate::model::LoanPolicy::TABLE,
            circ_rules::PolicyKind::Request => crate::model::RequestPolicy::TABLE,
            circ_rules::PolicyKind::Notice => crate::model::NoticePolicy::TABLE,
            circ_rules::PolicyKind::OverdueFine => crate::model::OverdueFinePolicy::TABLE,
            circ_rules::PolicyKind::LostItem => crate::model::LostItemFeePolicy::TABLE,
        };
        if !writer.exists(&table, reference.policy_id)? {
            return Err(rules_error(reference.not_found()));
        }
    }
    let document = RulesDocument { rules_as_text: text.to_string(), id: Some(RULES_ID.into()) };
    let body = serde_json::to_string(&document).map_err(|e| Error::Corrupt(e.to_string()))?;
    let version = writer.get(&CIRCULATION_RULES, RULES_ID)?.map_or(1, |stored| stored.version + 1);
    writer.upsert(&CIRCULATION_RULES, RULES_ID, version, &body, &[])?;
    Ok(())
}

fn rules_error(e: circ_rules::Error) -> Error {
    Error::Rules { message: e.message, line: e.line, column: e.column }
}

/// What the rules match on, as ids.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RuleInputs {
    pub patron_group_id: Uuid,
    pub material_type_id: Uuid,
    pub loan_type_id: Uuid,
    pub location_id: Uuid,
    pub institution_id: Uuid,
    pub campus_id: Uuid,
    pub library_id: Uuid,
}

impl RuleInputs {
    /// The inputs for an item and a patron group: the item's effective loan type
    /// (temporary, else permanent) and effective location with its hierarchy.
    pub fn for_item(reader: &Reader<'_>, item: &Item, patron_group_id: Uuid) -> Result<RuleInputs> {
        let location_id = item.effective_location_id.ok_or_else(|| {
            Error::Corrupt(format!("item {:?} has no effective location", item.id))
        })?;
        let location = inventory::get_location(reader, location_id)?.ok_or_else(|| {
            Error::Corrupt(format!("item {:?} names a missing location", item.id))
        })?;
        Ok(RuleInputs {
            patron_group_id,
            material_type_id: item.material_type_id,
            loan_type_id: item.temporary_loan_type_id.unwrap_or(item.permanent_loan_type_id),
            location_id,
            institution_id: location.institution_id,
            campus_id: location.campus_id,
            library_id: location.library_id,
        })
    }

    /// Inputs from the lookup endpoints' query parameters.
    pub fn from_ids(
        reader: &Reader<'_>,
        item_type_id: Uuid,
        loan_type_id: Uuid,
        patron_type_id: Uuid,
        location_id: Uuid,
    ) -> Result<RuleInputs> {
        let location = inventory::get_location(reader, location_id)?.ok_or_else(|| {
            Error::invalid("location_id", location_id, format!("Location {location_id} not found"))
        })?;
        Ok(RuleInputs {
            patron_group_id: patron_type_id,
            material_type_id: item_type_id,
            loan_type_id,
            location_id,
            institution_id: location.institution_id,
            campus_id: location.campus_id,
            library_id: location.library_id,
        })
    }

    pub(crate) fn with_criteria<T>(&self, f: impl FnOnce(&circ_rules::Criteria<'_>) -> T) -> T {
        let (g, m, t, s, a, b, c) = (
            self.patron_group_id.to_string(),
            self.material_type_id.to_string(),
            self.loan_type_id.to_string(),
            self.location_id.to_string(),
            self.institution_id.to_string(),
            self.campus_id.to_string(),
            self.library_id.to_string(),
        );
        f(&circ_rules::Criteria {
            patron_group: &g,
            material_type: &m,
            loan_type: &t,
            institution: &a,
            campus: &b,
            library: &c,
            location: &s,
        })
    }
}

/// A policy the rules chose: its id, the line of the winning rule, and which
/// criterion types that rule tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PolicyMatch {
    pub policy_id: Uuid,
    pub line: usize,
    pub conditions: circ_rules::AppliedConditions,
}

fn policy_match(found: circ_rules::Match<'_>) -> Result<PolicyMatch> {
    let policy_id = Uuid::parse_str(found.policy_id).map_err(|_| {
        Error::Corrupt(format!(
            "circulation rules name a policy that is not a UUID: {}",
            found.policy_id
        ))
    })?;
    Ok(PolicyMatch { policy_id, line: found.line, conditions: found.conditions })
}

/// The winning policy of one kind.
pub fn lookup(
    rules: &circ_rules::Rules,
    kind: circ_rules::PolicyKind,
    inputs: &RuleInputs,
) -> Result<PolicyMatch> {
    inputs.with_criteria(|criteria| policy_match(rules.lookup(kind, criteria)))
}

/// Every matching rule's policy of one kind, best first.
pub fn lookup_all(
    rules: &circ_rules::Rules,
    kind: circ_rules::PolicyKind,
    inputs: &RuleInputs,
) -> Result<Vec<PolicyMatch>> {
    inputs.with_criteria(|criteria| {
        rules.lookup_all(kind, criteria).into_iter().map(policy_match).collect()
    })
}

/// The policy of this kind that the rules choose for these inputs, typed.
pub(crate) fn policy<R: Record>(
    reader: &Reader<'_>,
    rules: &circ_rules::Rules,
    kind: circ_rules::PolicyKind,
    inputs: &RuleInputs,
) -> Result<folio::Stored<R>> {
    let id = lookup(rules, kind, inputs)?.policy_id;
    records::get::<R>(reader, id)?.ok_or_else(|| {
        Error::Corrupt(format!("the circulation rules name a missing {} {id}", R::NAME))
    })
}
