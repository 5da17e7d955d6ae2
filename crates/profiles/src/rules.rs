//! The rules of job, action and mapping profile writes beyond the unique name, as
//! mod-di-converter-storage's profile services check them, with their messages.
//!
//! A job must have links; its actions and matches must exist (404 otherwise); an UPDATE
//! action must sit under a match; a MODIFY action may neither stand alone nor come first
//! under a match. An action and its mapping profile must be for the same record type,
//! and a MARC mapping's option (update or modify) must be the action's.

use std::collections::HashMap;

use store::Reader;
use uuid::Uuid;

use crate::{
    Error, ProfileAssociation, ProfileDto, ProfileType, Result,
    associations::{links_from, links_to},
    model::{
        Action, ActionProfile, FolioRecord, JobProfile, MappingProfile, MatchProfile,
        RepeatableFieldAction,
    },
    snapshot, storage,
};

/// FOLIO's message for an action and a MARC mapping of unlike kinds.
pub(crate) const INVALID_ACTION_TYPE: &str = "Unable to complete requested change. MARC Update Action profiles can only be linked with MARC Update Mapping profiles and MARC Modify Action profiles can only be linked with MARC Modify Mapping profiles. Please ensure your Action and Mapping profiles are of like types and try again.";

/// A job profile's rules, on the links its tree will have after the write: the stored
/// ones (on a replace) less those the body removes, plus those it adds.
pub(crate) fn job(
    reader: &Reader<'_>,
    dto: &ProfileDto<JobProfile>,
    stored: Option<&JobProfile>,
) -> Result<Vec<String>> {
    let id = dto.id.or(dto.profile.id).unwrap_or_default();
    let mut links: Vec<ProfileAssociation> = match stored {
        Some(_) => snapshot::job_links(reader, id)?
            .into_iter()
            .filter(|l| {
                !matches!(
                    l.detail_profile_type,
                    Some(ProfileType::MappingProfile | ProfileType::JobProfile)
                )
            })
            .collect(),
        None => Vec::new(),
    };
    links.retain(|l| !dto.deleted_relations.iter().any(|d| same_link(l, d)));
    links.extend(dto.added_relations.iter().map(|l| {
        let mut l = l.clone();
        if l.master_profile_id.is_none() {
            l.master_profile_id = Some(id);
            l.master_profile_type.get_or_insert(ProfileType::JobProfile);
        }
        l
    }));

    let mut problems = Vec::new();
    if links.is_empty() {
        problems.push("Job profile does not contain any associations".to_string());
    }
    let is = |kind: ProfileType| move |l: &&ProfileAssociation| l.detail_profile_type == Some(kind);
    let action_links: Vec<&ProfileAssociation> =
        links.iter().filter(is(ProfileType::ActionProfile)).collect();
    let mut actions: HashMap<Uuid, ActionProfile> = HashMap::new();
    let mut missing = Vec::new();
    for id in action_links.iter().filter_map(|l| l.detail_profile_id) {
        match storage::get::<ActionProfile>(reader, id)? {
            Some(action) => {
                actions.insert(id, action);
            }
            None if !missing.contains(&id) => missing.push(id),
            None => {}
        }
    }
    if !missing.is_empty() {
        return Err(Error::LinkedNotFound {
            kind: ProfileType::ActionProfile,
            master: false,
            ids: missing,
        });
    }
    let is_modify = |l: &ProfileAssociation| {
        l.detail_profile_id
            .and_then(|id| actions.get(&id))
            .is_some_and(|a| a.action == Action::Modify)
    };
    for link in &action_links {
        let Some(action) = link.detail_profile_id.and_then(|id| actions.get(&id)) else {
            continue;
        };
        let master = link.master_profile_type;
        match action.action {
            Action::Update if master != Some(ProfileType::MatchProfile) => {
                problems.push(format!(
                    "ActionProfile with id '{}' and action UPDATE requires linked MatchProfile",
                    action.id.unwrap_or_default()
                ));
            }
            Action::Modify => {
                if master == Some(ProfileType::JobProfile) && links.iter().all(is_modify) {
                    problems.push("Modify action cannot be used as a standalone action".into());
                }
                if master == Some(ProfileType::MatchProfile) && first_under_match(&links, link) {
                    problems.push("Modify action cannot be used right after a Match".into());
                }
            }
            _ => {}
        }
    }
    if action_links.is_empty() {
        problems.push("Linked ActionProfile was not found after MatchProfile".to_string());
    }
    let mut missing = Vec::new();
    for link in links.iter().filter(is(ProfileType::MatchProfile)) {
        if let Some(id) = link.detail_profile_id
            && storage::get::<MatchProfile>(reader, id)?.is_none()
            && !missing.contains(&id)
        {
            missing.push(id);
        }
    }
    if !missing.is_empty() {
        return Err(Error::LinkedNotFound {
            kind: ProfileType::MatchProfile,
            master: false,
            ids: missing,
        });
    }
    Ok(problems)
}

/// Whether a removed link names a stored one: by id when both have one, else by nodes.
fn same_link(stored: &ProfileAssociation, removed: &ProfileAssociation) -> bool {
    match (stored.id, removed.id) {
        (Some(a), Some(b)) => a == b,
        _ => {
            stored.master_wrapper_id == removed.master_wrapper_id
                && stored.detail_wrapper_id == removed.detail_wrapper_id
        }
    }
}

/// Whether a link under a match comes first among its siblings (FOLIO: order 0, or the
/// lowest order under the same node).
fn first_under_match(links: &[ProfileAssociation], link: &ProfileAssociation) -> bool {
    if link.order == 0 {
        return true;
    }
    let Some(node) = link.master_wrapper_id else { return false };
    links
        .iter()
        .filter(|l| l.master_wrapper_id == Some(node))
        .min_by_key(|l| l.order)
        .is_some_and(|first| first.order == link.order && first.id == link.id)
}

/// An action profile's rules: no MARC Bib created by an action, and every mapping it is
/// linked to (added, or kept on a replace) for its record type and kind.
pub(crate) fn action(
    reader: &Reader<'_>,
    dto: &ProfileDto<ActionProfile>,
    stored: Option<&ActionProfile>,
) -> Result<Vec<String>> {
    let action = &dto.profile;
    let mut problems = Vec::new();
    if action.folio_record == FolioRecord::MarcBibliographic && action.action == Action::Create {
        problems
            .push("Can't create ActionProfile for MARC Bib record type with Create action".into());
    }
    for link in &dto.added_relations {
        if link.detail_profile_type == Some(ProfileType::MappingProfile)
            && let Some(id) = link.detail_profile_id
            && let Some(mapping) = storage::get::<MappingProfile>(reader, id)?
        {
            let message = format!(
                "Mapping profile '{}' can not be linked to this Action profile. ExistingRecordType and FolioRecord types are different",
                mapping.name
            );
            problems.extend(link_problems(action, &mapping, message));
        }
    }
    if stored.is_some()
        && let Some(id) = dto.id
    {
        for link in links_from(reader, ProfileType::ActionProfile, id)? {
            let Some(mapping_id) = link.detail_profile_id else { continue };
            let removed =
                dto.deleted_relations.iter().any(|d| d.detail_profile_id == Some(mapping_id));
            if link.detail_profile_type != Some(ProfileType::MappingProfile) || removed {
                continue;
            }
            if let Some(mapping) = storage::get::<MappingProfile>(reader, mapping_id)? {
                problems.extend(link_problems(
                    action,
                    &mapping,
                    "Can not update ActionProfile recordType and linked MappingProfile recordType are different".into(),
                ));
            }
        }
    }
    Ok(problems)
}

/// A mapping profile's rules: a repeatable field's action needs entries (but
/// DELETE_EXISTING), and every action it is linked to (added, or kept on a replace) is
/// for its record type and kind.
pub(crate) fn mapping(
    reader: &Reader<'_>,
    dto: &ProfileDto<MappingProfile>,
    stored: Option<&MappingProfile>,
) -> Result<Vec<String>> {
    let mapping = &dto.profile;
    let mut problems = Vec::new();
    for link in &dto.added_relations {
        if link.master_profile_type == Some(ProfileType::ActionProfile)
            && let Some(id) = link.master_profile_id
            && let Some(action) = storage::get::<ActionProfile>(reader, id)?
        {
            let message = format!(
                "Action profile '{}' can not be linked to this Mapping profile. FolioRecord and ExistingRecordType types are different",
                action.name
            );
            problems.extend(link_problems(&action, mapping, message));
        }
    }
    let rules = mapping.mapping_details.iter().flat_map(|d| d.mapping_fields.iter());
    for rule in rules {
        if let Some(repeat) = rule.repeatable_field_action
            && rule.subfields.is_empty()
            && repeat != RepeatableFieldAction::DeleteExisting
        {
            problems.push(format!(
                "Invalid repeatableFieldAction for empty subfields: {}",
                repeat.as_str()
            ));
        }
    }
    if stored.is_some()
        && let Some(id) = dto.id
    {
        for link in links_to(reader, ProfileType::MappingProfile, id)? {
            let Some(action_id) = link.master_profile_id else { continue };
            let removed =
                dto.deleted_relations.iter().any(|d| d.master_profile_id == Some(action_id));
            if link.master_profile_type != Some(ProfileType::ActionProfile) || removed {
                continue;
            }
            if let Some(action) = storage::get::<ActionProfile>(reader, action_id)? {
                problems.extend(link_problems(
                    &action,
                    mapping,
                    "Can not update MappingProfile recordType and linked ActionProfile recordType are different".into(),
                ));
            }
        }
    }
    Ok(problems)
}

/// What is wrong with an action using a mapping: the mapping fills another record type
/// (`message`), or a MARC mapping's option is not the action's.
fn link_problems(action: &ActionProfile, mapping: &MappingProfile, message: String) -> Vec<String> {
    let record = mapping.existing_record_type.map(|t| t.as_str());
    if record != Some(action.folio_record.as_str()) {
        return vec![message];
    }
    match mapping.mapping_details.as_ref().and_then(|d| d.marc_mapping_option) {
        Some(option) if option.as_str() != action.action.as_str() => {
            vec![INVALID_ACTION_TYPE.to_string()]
        }
        _ => Vec::new(),
    }
}
