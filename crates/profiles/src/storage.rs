//! The verbs of the four profile endpoints, generic over the profile type: read a
//! profile body, create, replace, delete, get and list, with FOLIO's checks in FOLIO's
//! order and the links a body adds and removes written in the same transaction.
//!
//! A write's checks run before anything is written: a refused write writes nothing.

use folio::{Actor, Record};
use serde_json::{Map, Value};
use store::{Page, Reader, Writer};
use uuid::Uuid;

use crate::{
    Error, ProfileAssociation, ProfileDto, Result, UserInfo,
    associations::{self, Batch, Owner},
    defaults,
    model::{Profile, name_key},
    snapshot,
};

/// Reads a profile body (`{profile, addedRelations, deletedRelations}`) with FOLIO's
/// 400/422 split. Read-only properties (`userInfo`, `parentProfiles`, `childProfiles`,
/// `metadata`, a link's `detail`) are dropped, not refused, so a profile read with
/// `withRelations` can be sent back as it is; a 422 names the field within the body
/// (`profile.name`, `addedRelations[0].detailProfileId`).
pub fn decode<P: Profile>(body: &[u8]) -> Result<ProfileDto<P>> {
    #[derive(serde::Deserialize)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    struct Raw {
        #[serde(default)]
        id: Option<Uuid>,
        profile: Map<String, Value>,
        #[serde(default)]
        added_relations: Option<Vec<Map<String, Value>>>,
        #[serde(default)]
        deleted_relations: Option<Vec<Map<String, Value>>>,
    }
    let raw: Raw = folio::decode(body)?;
    let profile = part::<P>(raw.profile, P::READ_ONLY, "profile")?;
    let links = |list: Option<Vec<Map<String, Value>>>, name: &str| -> Result<Vec<_>> {
        let list = list.unwrap_or_default();
        list.into_iter()
            .enumerate()
            .map(|(idx, link)| {
                part::<ProfileAssociation>(
                    link,
                    ProfileAssociation::READ_ONLY,
                    &format!("{name}[{idx}]"),
                )
            })
            .collect()
    };
    Ok(ProfileDto {
        id: raw.id,
        profile,
        added_relations: links(raw.added_relations, "addedRelations")?,
        deleted_relations: links(raw.deleted_relations, "deletedRelations")?,
    })
}

/// Decodes one object of a body without its read-only properties, naming a bad field
/// by its place in the body.
fn part<T: serde::de::DeserializeOwned>(
    mut object: Map<String, Value>,
    read_only: &[&str],
    at: &str,
) -> Result<T> {
    for key in read_only {
        object.remove(*key);
    }
    let bytes = serde_json::to_vec(&object).map_err(|e| Error::Corrupt {
        record: "request body",
        id: String::new(),
        message: e.to_string(),
    })?;
    folio::decode(&bytes).map_err(|e| match e {
        folio::DecodeError::Invalid { field, message, value } => {
            let field = if field.is_empty() { at.to_string() } else { format!("{at}.{field}") };
            Error::Decode(folio::DecodeError::Invalid { field, message, value })
        }
        e @ folio::DecodeError::Malformed { .. } => Error::Decode(e),
    })
}

/// Creates a profile with the links its body adds (`POST`), and answers the body as
/// stored: the profile with its id, metadata and `userInfo`, the links with their ids
/// and nodes. `user_info` names the user making the change.
pub fn create<P: Profile>(
    writer: &mut Writer<'_>,
    dto: ProfileDto<P>,
    actor: Actor,
    user_info: Option<UserInfo>,
) -> Result<ProfileDto<P>> {
    let ProfileDto { mut profile, added_relations, deleted_relations, .. } = dto;
    let sent_id = profile.id();
    let id = sent_id.unwrap_or_else(store::new_record_id);
    profile.set_id(id);
    profile.normalise();
    let mut problems = common_problems(writer, &profile, id)?;
    if sent_id.is_some() && writer.exists(&P::TABLE, &id.to_string())? {
        problems.push(format!("{} with id '{id}' already exists", P::LABEL));
    }
    let dto = ProfileDto { id: Some(id), profile, added_relations, deleted_relations };
    problems.extend(P::check(writer, &dto, None)?);
    if !problems.is_empty() {
        return Err(Error::Invalid(problems));
    }
    let ProfileDto { mut profile, mut added_relations, deleted_relations, .. } = dto;
    profile.set_user_info(user_info);
    write(writer, &mut profile, folio::record::Mode::Create, actor)?;
    let owner = Some(Owner { kind: P::TYPE, id });
    associations::remove(writer, &deleted_relations, owner)?;
    associations::add(writer, &mut added_relations, owner, Batch::Relations("addedRelations"))?;
    Ok(ProfileDto { id: Some(id), profile, added_relations, deleted_relations })
}

/// Replaces a profile and applies the links its body adds and removes (`PUT`); the
/// path's id wins over the body's, as in FOLIO. One of FOLIO's locked default profiles
/// takes only a change of its tags.
pub fn replace<P: Profile>(
    writer: &mut Writer<'_>,
    id: Uuid,
    dto: ProfileDto<P>,
    actor: Actor,
    user_info: Option<UserInfo>,
) -> Result<P> {
    let stored = folio::record::get::<P>(writer, id)?
        .ok_or(Error::ProfileNotFound { kind: P::TYPE, id })?
        .record;
    let ProfileDto { mut profile, added_relations, deleted_relations, .. } = dto;
    profile.set_id(id);
    profile.normalise();
    if defaults::locked(P::TYPE, id) && !same_but_tags(&stored, &profile)? {
        return Err(Error::DefaultProfile { kind: P::TYPE, id, delete: false });
    }
    let mut problems = common_problems(writer, &profile, id)?;
    let dto = ProfileDto { id: Some(id), profile, added_relations, deleted_relations };
    problems.extend(P::check(writer, &dto, Some(&stored))?);
    if !problems.is_empty() {
        return Err(Error::Invalid(problems));
    }
    let ProfileDto { mut profile, mut added_relations, deleted_relations, .. } = dto;
    profile.set_user_info(user_info);
    write(writer, &mut profile, folio::record::Mode::Replace, actor)?;
    let owner = Some(Owner { kind: P::TYPE, id });
    associations::remove(writer, &deleted_relations, owner)?;
    associations::add(writer, &mut added_relations, owner, Batch::Relations("addedRelations"))?;
    Ok(profile)
}

/// Deletes a profile (`DELETE`) with the links it is the master of. FOLIO refuses to
/// delete its default profiles (400) and a profile another links to as a detail (409).
pub fn delete<P: Profile>(writer: &mut Writer<'_>, id: Uuid) -> Result<()> {
    if defaults::undeletable(P::TYPE, id) {
        return Err(Error::DefaultProfile { kind: P::TYPE, id, delete: true });
    }
    if !writer.exists(&P::TABLE, &id.to_string())? {
        return Err(Error::ProfileNotFound { kind: P::TYPE, id });
    }
    if !associations::links_to(writer, P::TYPE, id)?.is_empty() {
        return Err(Error::InUse(id));
    }
    associations::delete_profile_links(writer, P::TYPE, id)?;
    writer.delete(&P::TABLE, &id.to_string())?;
    Ok(())
}

/// A profile as stored, typed.
pub fn get<P: Profile>(reader: &Reader<'_>, id: Uuid) -> Result<Option<P>> {
    Ok(folio::record::get::<P>(reader, id)?.map(|stored| stored.record))
}

/// A profile's JSON (`GET /{id}`): as stored, or with its parents and children filled
/// in (`withRelations`).
pub fn get_json<P: Profile>(reader: &Reader<'_>, id: Uuid, with_relations: bool) -> Result<String> {
    if !with_relations {
        return match folio::record::get_json::<P>(reader, id) {
            Err(folio::record::Error::NotFound { .. }) => {
                Err(Error::ProfileNotFound { kind: P::TYPE, id })
            }
            other => Ok(other?),
        };
    }
    let mut profile = get::<P>(reader, id)?.ok_or(Error::ProfileNotFound { kind: P::TYPE, id })?;
    snapshot::with_relations(reader, id, &mut profile)?;
    to_json(&profile, id)
}

/// One page of profiles matching a CQL query, and the total (`GET`). Hidden profiles
/// are left out unless `show_hidden`; `with_relations` fills each one's parents and
/// children.
pub fn list_json<P: Profile>(
    reader: &Reader<'_>,
    cql: Option<&str>,
    page: Page,
    show_hidden: bool,
    with_relations: bool,
) -> Result<(Vec<String>, u64)> {
    let visible;
    let cql = if show_hidden {
        cql
    } else {
        visible = visible_only(cql);
        Some(visible.as_str())
    };
    let (bodies, total) = folio::record::list_json::<P>(reader, cql, page)?;
    if !with_relations {
        return Ok((bodies, total));
    }
    let mut out = Vec::with_capacity(bodies.len());
    for body in bodies {
        let mut profile: P = serde_json::from_str(&body).map_err(|e| Error::Corrupt {
            record: P::NAME,
            id: String::new(),
            message: e.to_string(),
        })?;
        let id = profile.id().ok_or_else(|| Error::Corrupt {
            record: P::NAME,
            id: String::new(),
            message: "a stored profile without an id".to_string(),
        })?;
        snapshot::with_relations(reader, id, &mut profile)?;
        out.push(to_json(&profile, id)?);
    }
    Ok((out, total))
}

/// The query with FOLIO's `showHidden=false` filter (`hidden==false`) joined to it. A
/// `sortBy` stays at the end, where CQL allows it.
pub(crate) fn visible_only(cql: Option<&str>) -> String {
    const FILTER: &str = "hidden==false";
    let Some(text) = cql.map(str::trim).filter(|t| !t.is_empty()) else {
        return FILTER.to_string();
    };
    let Ok(query) = cql::parse(text) else {
        // The store refuses it with the parser's words.
        return text.to_string();
    };
    if query.sort_keys.is_empty() {
        return format!("{FILTER} and ({text})");
    }
    // The last `sortBy` that ends a query equal to the whole one without its sort keys.
    let lower = text.to_ascii_lowercase();
    for (at, _) in lower.rmatch_indices("sortby") {
        let (search, sort) = text.split_at(at);
        if let Ok(head) = cql::parse(search)
            && head.sort_keys.is_empty()
            && head.root == query.root
        {
            return format!("{FILTER} and ({}) {sort}", search.trim_end());
        }
    }
    text.to_string()
}

/// The checks every profile type shares: FOLIO's unique name (trimmed, ignoring case).
fn common_problems<P: Profile>(reader: &Reader<'_>, profile: &P, id: Uuid) -> Result<Vec<String>> {
    let taken = reader
        .find_by(&P::TABLE, "name_key", &name_key(profile.name()))?
        .iter()
        .any(|row| row.id != id.to_string());
    Ok(if taken {
        vec![format!("{} '{}' already exists", P::LABEL, profile.name())]
    } else {
        Vec::new()
    })
}

/// Whether two versions of a profile differ in their tags at most (and in what the
/// server fills: metadata, `userInfo`, relations).
fn same_but_tags<P: Profile>(stored: &P, sent: &P) -> Result<bool> {
    let strip = |p: &P| -> Result<Value> {
        let mut value = serde_json::to_value(p).map_err(|e| Error::Corrupt {
            record: P::NAME,
            id: String::new(),
            message: e.to_string(),
        })?;
        if let Some(object) = value.as_object_mut() {
            for key in ["tags", "metadata", "userInfo", "parentProfiles", "childProfiles"] {
                object.remove(key);
            }
        }
        Ok(value)
    };
    Ok(strip(stored)? == strip(sent)?)
}

/// Writes a profile; a name taken meanwhile is FOLIO's duplicate-name message.
fn write<P: Profile>(
    writer: &mut Writer<'_>,
    profile: &mut P,
    mode: folio::record::Mode,
    actor: Actor,
) -> Result<()> {
    let written = folio::record::write(writer, profile, mode, actor, |_, _, _| Ok::<_, Error>(()));
    match written {
        Err(Error::Store(store::Error::Unique { .. })) => {
            Err(Error::Invalid(vec![format!("{} '{}' already exists", P::LABEL, profile.name())]))
        }
        other => other.map(|_| ()),
    }
}

fn to_json<P: Profile>(profile: &P, id: Uuid) -> Result<String> {
    serde_json::to_string(profile).map_err(|e| Error::Corrupt {
        record: P::NAME,
        id: id.to_string(),
        message: e.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use expect_test::expect;
    use serde_json::json;

    use super::*;
    use crate::{
        ActionProfile, JobProfile, MappingProfile, MatchProfile, ProfileType,
        testing::{post, render, tenant, user},
    };

    fn refused(result: Result<Uuid>) -> String {
        match result {
            Ok(id) => format!("created {id}"),
            Err(Error::Invalid(messages)) => messages.join("\n"),
            Err(e) => format!("{e}"),
        }
    }

    /// A job that matches 001 to instance HRIDs, updates the instance it finds and
    /// creates one when it finds none: match, two actions with their mappings, one job.
    fn overlay_job(tenant: &store::Tenant) -> (Uuid, Uuid) {
        let matched = post::<MatchProfile>(tenant, json!({"profile": {
            "name": "001 to instance HRID",
            "incomingRecordType": "MARC_BIBLIOGRAPHIC", "existingRecordType": "INSTANCE",
            "matchDetails": [{
                "incomingRecordType": "MARC_BIBLIOGRAPHIC", "existingRecordType": "INSTANCE",
                "incomingMatchExpression": {"dataValueType": "VALUE_FROM_RECORD", "fields": [
                    {"label": "field", "value": "001"}, {"label": "indicator1", "value": ""},
                    {"label": "indicator2", "value": ""}, {"label": "recordSubfield", "value": ""}]},
                "matchCriterion": "EXACTLY_MATCHES",
                "existingMatchExpression": {"dataValueType": "VALUE_FROM_RECORD",
                    "fields": [{"label": "field", "value": "instance.hrid"}]}}]}}))
        .unwrap();
        let update = post::<ActionProfile>(
            tenant,
            json!({"profile": {
            "name": "Update instance", "action": "UPDATE", "folioRecord": "INSTANCE"}}),
        )
        .unwrap();
        let create = post::<ActionProfile>(
            tenant,
            json!({"profile": {
            "name": "Create instance", "action": "CREATE", "folioRecord": "INSTANCE"}}),
        )
        .unwrap();
        for (name, action, suppress) in
            [("Update instance", update, "ALL_TRUE"), ("Create instance", create, "ALL_FALSE")]
        {
            post::<MappingProfile>(tenant, json!({
                "profile": {"name": name, "incomingRecordType": "MARC_BIBLIOGRAPHIC",
                    "existingRecordType": "INSTANCE",
                    "mappingDetails": {"name": "instance", "recordType": "INSTANCE", "mappingFields": [
                        {"name": "discoverySuppress", "enabled": true, "path": "instance.discoverySuppress",
                         "booleanFieldAction": suppress},
                        {"name": "statusId", "enabled": "true", "path": "instance.statusId",
                         "value": "\"Cataloged\"", "acceptedValues": {"9634a5ab-9228-4703-baf2-4d12ebc77d56": "Cataloged"}},
                        {"name": "catalogedDate", "enabled": "true", "path": "instance.catalogedDate", "value": "###TODAY###"},
                        {"name": "hrid", "enabled": "false", "path": "instance.hrid", "value": ""},
                        {"name": "statisticalCodeIds", "enabled": "true", "path": "instance.statisticalCodeIds[]",
                         "repeatableFieldAction": "EXTEND_EXISTING", "subfields": [{"order": 0,
                           "path": "instance.statisticalCodeIds[]", "fields": [{"name": "statisticalCodeId",
                           "enabled": "true", "path": "instance.statisticalCodeIds[]", "value": "949$s"}]}]}]}},
                "addedRelations": [{"masterProfileId": action, "masterProfileType": "ACTION_PROFILE",
                    "detailProfileType": "MAPPING_PROFILE", "order": 0}]}))
            .unwrap();
        }
        let job = post::<JobProfile>(tenant, json!({
            "profile": {"name": "Overlay by 001", "dataType": "MARC"},
            "addedRelations": [
                {"masterProfileType": "JOB_PROFILE", "detailProfileId": matched,
                 "detailProfileType": "MATCH_PROFILE", "order": 0},
                {"masterProfileId": matched, "masterProfileType": "MATCH_PROFILE",
                 "detailProfileId": update, "detailProfileType": "ACTION_PROFILE", "order": 0, "reactTo": "MATCH"},
                {"masterProfileId": matched, "masterProfileType": "MATCH_PROFILE",
                 "detailProfileId": create, "detailProfileType": "ACTION_PROFILE", "order": 0, "reactTo": "NON_MATCH"}]}))
        .unwrap();
        (job, matched)
    }

    #[test]
    fn a_job_built_from_profiles_and_links_reads_back_as_a_typed_tree() {
        let (_dir, tenant) = tenant();
        let (job, _) = overlay_job(&tenant);
        let tree = tenant.read(|r| crate::job_tree(r, job)).unwrap();
        expect![[r#"
            job "Overlay by 001" Marc
              match "001 to instance HRID" MarcBibliographic -> Instance
                where MARC 001 Blank Blank $ ExactlyMatches field instance.hrid
                on match:
                  action "Update instance" Update Instance
                    mapping "Update instance" -> Some(Instance), 4 rules, 0 MARC edits
                      instance.discoverySuppress = Boolean(AllTrue)
                      instance.statusId = Expression(Expression { alternatives: [[Literal("Cataloged")]] })
                      instance.catalogedDate = Expression(Expression { alternatives: [[Today]] })
                      instance.statisticalCodeIds[] = Repeatable { action: ExtendExisting, entries: [RepeatableEntry { order: 0, path: "instance.statisticalCodeIds[]", rules: [FieldRule { name: "statisticalCodeId", path: "instance.statisticalCodeIds[]", required: false, value: Expression(Expression { alternatives: [[Field { tag: "949", subfield: Some('s') }]] }), accepted_values: [] }] }] }
                on non-match:
                  action "Create instance" Create Instance
                    mapping "Create instance" -> Some(Instance), 4 rules, 0 MARC edits
                      instance.discoverySuppress = Boolean(AllFalse)
                      instance.statusId = Expression(Expression { alternatives: [[Literal("Cataloged")]] })
                      instance.catalogedDate = Expression(Expression { alternatives: [[Today]] })
                      instance.statisticalCodeIds[] = Repeatable { action: ExtendExisting, entries: [RepeatableEntry { order: 0, path: "instance.statisticalCodeIds[]", rules: [FieldRule { name: "statisticalCodeId", path: "instance.statisticalCodeIds[]", required: false, value: Expression(Expression { alternatives: [[Field { tag: "949", subfield: Some('s') }]] }), accepted_values: [] }] }] }
        "#]]
        .assert_eq(&render(&tree));
        // A frozen snapshot reads back as the same tree.
        let frozen = tenant.write(|w| crate::create_job_snapshot(w, job)).unwrap();
        let stored = tenant.read(|r| crate::job_snapshot(r, frozen.id)).unwrap();
        assert_eq!(crate::JobTree::from_snapshot(&stored).unwrap(), tree);
    }

    #[test]
    fn folio_messages_for_broken_rules() {
        let (_dir, tenant) = tenant();
        let (job, matched) = overlay_job(&tenant);
        let again = post::<JobProfile>(
            &tenant,
            json!({"profile": {"name": " overlay BY 001 ", "dataType": "MARC"}}),
        );
        expect![[r#"
            Job profile ' overlay BY 001 ' already exists
            Job profile does not contain any associations
            Linked ActionProfile was not found after MatchProfile"#]]
        .assert_eq(&refused(again));
        let taken_id = post::<JobProfile>(
            &tenant,
            json!({"profile": {"id": job, "name": "Other", "dataType": "MARC"},
            "addedRelations": [{"masterProfileType": "JOB_PROFILE", "detailProfileId": matched, "detailProfileType": "MATCH_PROFILE"}]}),
        );
        assert_eq!(
            refused(taken_id),
            format!(
                "Job profile with id '{job}' already exists\nLinked ActionProfile was not found after MatchProfile"
            )
        );
        let update = post::<ActionProfile>(&tenant, json!({"profile": {"name": "Update holdings", "action": "UPDATE", "folioRecord": "HOLDINGS"}})).unwrap();
        let standalone = post::<JobProfile>(
            &tenant,
            json!({"profile": {"name": "Lone update", "dataType": "MARC"},
            "addedRelations": [{"masterProfileType": "JOB_PROFILE", "detailProfileId": update, "detailProfileType": "ACTION_PROFILE"}]}),
        );
        assert_eq!(
            refused(standalone),
            format!(
                "ActionProfile with id '{update}' and action UPDATE requires linked MatchProfile"
            )
        );
        let unknown = Uuid::from_u128(7);
        let missing = post::<JobProfile>(
            &tenant,
            json!({"profile": {"name": "Ghost", "dataType": "MARC"},
            "addedRelations": [{"masterProfileType": "JOB_PROFILE", "detailProfileId": unknown, "detailProfileType": "ACTION_PROFILE"}]}),
        );
        assert_eq!(
            refused(missing),
            format!("Linked ActionProfiles with ids '{unknown}' were not found")
        );
        let marc_create = post::<ActionProfile>(
            &tenant,
            json!({"profile": {"name": "Make bib", "action": "CREATE", "folioRecord": "MARC_BIBLIOGRAPHIC"}}),
        );
        assert_eq!(
            refused(marc_create),
            "Can't create ActionProfile for MARC Bib record type with Create action"
        );
        let holdings_mapping = post::<MappingProfile>(
            &tenant,
            json!({"profile": {"name": "Holdings from 949",
            "incomingRecordType": "MARC_BIBLIOGRAPHIC", "existingRecordType": "HOLDINGS"},
            "addedRelations": [{"masterProfileId": update, "masterProfileType": "ACTION_PROFILE", "detailProfileType": "MAPPING_PROFILE"}]}),
        );
        assert!(refused(holdings_mapping).starts_with("created"));
        let wrong = post::<MappingProfile>(
            &tenant,
            json!({"profile": {"name": "Items from 949",
            "incomingRecordType": "MARC_BIBLIOGRAPHIC", "existingRecordType": "ITEM",
            "mappingDetails": {"name": "item", "recordType": "ITEM", "mappingFields": [
                {"name": "notes", "enabled": "true", "path": "item.notes[]", "repeatableFieldAction": "EXTEND_EXISTING"}]}},
            "addedRelations": [{"masterProfileId": update, "masterProfileType": "ACTION_PROFILE", "detailProfileType": "MAPPING_PROFILE"}]}),
        );
        expect![[r#"
            Action profile 'Update holdings' can not be linked to this Mapping profile. FolioRecord and ExistingRecordType types are different
            Invalid repeatableFieldAction for empty subfields: EXTEND_EXISTING"#]]
        .assert_eq(&refused(wrong));
        // Nothing of a refused write is stored.
        let n_jobs = tenant
            .read(|r| list_json::<JobProfile>(r, None, Page { offset: 0, limit: 10 }, true, false))
            .unwrap()
            .1;
        assert_eq!(n_jobs, 1);
    }

    #[test]
    fn deleting_refuses_profiles_in_use_and_takes_a_jobs_links_along() {
        let (_dir, tenant) = tenant();
        let (job, matched) = overlay_job(&tenant);
        let in_use = tenant.write(|w| delete::<MatchProfile>(w, matched));
        assert_eq!(
            in_use.unwrap_err().to_string(),
            format!(
                "Can not delete profile by id '{matched}' cause profile associated with other profiles"
            )
        );
        tenant.write(|w| delete::<JobProfile>(w, job)).unwrap();
        // The job's links went with it (its match's branch too); the actions keep their mappings.
        let n_links = tenant.read(|r| r.count(&ProfileAssociation::TABLE)).unwrap();
        let mappings = tenant
            .read(|r| {
                crate::list_associations(r, ProfileType::ActionProfile, ProfileType::MappingProfile)
            })
            .unwrap();
        assert_eq!((n_links, mappings.len()), (2, 2));
        tenant.write(|w| delete::<MatchProfile>(w, matched)).unwrap();
        let gone = tenant.write(|w| delete::<MatchProfile>(w, matched));
        assert_eq!(
            gone.unwrap_err().to_string(),
            format!("Match Profile with id '{matched}' was not found")
        );
    }

    #[test]
    fn folio_defaults_are_locked_but_for_tags() {
        let (_dir, tenant) = tenant();
        tenant.write(crate::seed).unwrap();
        let id = crate::DEFAULT_CREATE_HOLDINGS_JOB;
        let stored = tenant.read(|r| get::<JobProfile>(r, id)).unwrap().unwrap();
        let put = |profile: &JobProfile| {
            let dto = ProfileDto {
                id: None,
                profile: profile.clone(),
                added_relations: Vec::new(),
                deleted_relations: Vec::new(),
            };
            tenant.write(|w| replace(w, id, dto, Actor::default(), user())).map(|_| ())
        };
        let mut tagged = stored.clone();
        tagged.tags =
            Some(crate::Tags { tag_list: Some(vec!["local".into()]), ..Default::default() });
        put(&tagged).unwrap();
        let mut renamed = stored.clone();
        renamed.name = "Mine".into();
        assert_eq!(
            put(&renamed).unwrap_err().to_string(),
            format!("Can`t update default JOB_PROFILE with id {id}")
        );
        let deleted = tenant.write(|w| delete::<JobProfile>(w, id));
        assert_eq!(
            deleted.unwrap_err().to_string(),
            format!("Can`t delete default JOB_PROFILE with id {id}")
        );
        // "Default - Create instance and SRS MARC Bib" is the tenant's to change.
        let mut default = tenant
            .read(|r| get::<JobProfile>(r, crate::DEFAULT_CREATE_INSTANCE_JOB))
            .unwrap()
            .unwrap();
        default.description = Some("ours".into());
        let dto = ProfileDto {
            id: None,
            profile: default,
            added_relations: Vec::new(),
            deleted_relations: Vec::new(),
        };
        tenant
            .write(|w| {
                replace(w, crate::DEFAULT_CREATE_INSTANCE_JOB, dto, Actor::default(), user())
            })
            .unwrap();
    }

    #[test]
    fn read_only_properties_are_dropped_and_fields_are_named_within_the_body() {
        let body = json!({"profile": {"name": "x", "dataType": "MARC", "userInfo": {"firstName": "A"},
            "childProfiles": [{"junk": 1}], "parentProfiles": [], "metadata": {"createdDate": "never"}},
            "addedRelations": [{"masterProfileType": "JOB_PROFILE", "detailProfileType": "MATCH_PROFILE",
                "detailProfileId": "00000000-0000-4000-8000-000000000001", "detail": {"any": "thing"}}]});
        let dto: ProfileDto<JobProfile> = decode(body.to_string().as_bytes()).unwrap();
        assert_eq!((dto.profile.user_info, dto.profile.metadata), (None, None));
        let show = |body: serde_json::Value| match decode::<JobProfile>(body.to_string().as_bytes())
        {
            Ok(_) => "ok".to_string(),
            Err(Error::Decode(folio::DecodeError::Invalid { field, message, .. })) => {
                format!("{field}: {message}")
            }
            Err(e) => e.to_string(),
        };
        assert_eq!(
            show(json!({"profile": {"dataType": "MARC"}})),
            "profile.name: must not be null"
        );
        assert_eq!(
            show(json!({"profile": {"name": "x", "dataType": "XML"}})).split(':').next(),
            Some("profile.dataType")
        );
        assert_eq!(
            show(json!({"profile": {"name": "x", "dataType": "MARC", "colour": 1}})),
            "profile.colour: Unrecognized field \"colour\""
        );
        assert_eq!(show(json!({"addedRelations": []})), "profile: must not be null");
        assert_eq!(show(json!({"profile": {"name": "x", "dataType": "MARC"}, "addedRelations": [{"order": "first"}]})).split(':').next(), Some("addedRelations[0].order"));
    }

    #[test]
    fn hidden_profiles_are_filtered_before_any_sort() {
        let check = |q: Option<&str>, expected: &str| assert_eq!(visible_only(q), expected);
        check(None, "hidden==false");
        check(Some("name=x* or description=x*"), "hidden==false and (name=x* or description=x*)");
        check(
            Some("cql.allRecords=1 sortBy name/sort.descending"),
            "hidden==false and (cql.allRecords=1) sortBy name/sort.descending",
        );
        check(
            Some("name==\"a sortBy b\" sortBy name"),
            "hidden==false and (name==\"a sortBy b\") sortBy name",
        );
        check(Some("name=("), "name=(");
    }
}
