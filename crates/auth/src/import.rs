//! `POST /user-import` (FOLIO's mod-user-import): a campus directory's users, written in
//! one request. Users are matched by `externalSystemId` (prefixed with `sourceType_`
//! when one is given); patron groups, address types, departments and a request
//! preference's service point are given by name. One bad user fails that user, not the
//! batch: the answer counts created, updated and failed records and says why each
//! failure failed, in mod-user-import's words.
//!
//! The whole import is one write transaction, so a crash leaves either all of it or
//! none; within it each user is checked before it is written, so a refused user writes
//! nothing.

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use store::{Page, Writer};
use uuid::Uuid;

use folio::{Actor, Record};

use crate::directory::{AddressType, Department, RequestPreference};
use crate::users::USERS;
use crate::{Error, PatronGroup, Result, User};

/// The request body (`userdataimportCollection`).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImportRequest {
    #[serde(default)]
    pub users: Vec<Map<String, Value>>,
    pub total_records: i64,
    #[serde(default)]
    pub deactivate_missing_users: bool,
    #[serde(default)]
    pub update_only_present_fields: bool,
    #[serde(default)]
    pub source_type: Option<String>,
    #[serde(default)]
    pub included: Option<Included>,
}

/// Records the import brings along: departments to create when missing.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Included {
    #[serde(default)]
    pub departments: Vec<IncludedDepartment>,
    #[serde(default)]
    pub custom_fields: Vec<Value>,
}

#[derive(Debug, Deserialize)]
pub struct IncludedDepartment {
    pub name: String,
    #[serde(default)]
    pub code: Option<String>,
}

/// The answer (`importResponse`).
#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ImportResponse {
    pub message: String,
    pub total_records: usize,
    pub created_records: usize,
    pub updated_records: usize,
    pub failed_records: usize,
    pub failed_external_system_ids: Vec<String>,
    pub failed_users: Vec<FailedUser>,
    /// Why the whole batch failed (FOLIO answers it with 500); every user is then in
    /// `failed_users` with this message.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FailedUser {
    pub external_system_id: String,
    pub username: String,
    pub error_message: String,
}

const IMPORTED: &str = "Users were imported successfully.";

/// mod-user-import's codes for the preferred contact types, by name.
const CONTACT_TYPES: [(&str, &str); 5] =
    [("mail", "001"), ("email", "002"), ("text", "003"), ("phone", "004"), ("mobile", "005")];

/// Imports `request`'s users. `service_point` finds a service point's id by name (they
/// live in inventory).
pub fn import_users(
    writer: &mut Writer<'_>,
    request: ImportRequest,
    service_point: &dyn Fn(&Writer<'_>, &str) -> Result<Option<Uuid>>,
    actor: Actor,
) -> Result<ImportResponse> {
    if request.total_records == 0 {
        return Ok(ImportResponse { message: "No users to import.".into(), ..Default::default() });
    }
    let included_fields = request.included.as_ref().map_or(&[][..], |i| &i.custom_fields[..]);
    if !included_fields.is_empty()
        && let Err(message) = crate::custom_fields::merge_included(writer, included_fields, actor)
    {
        return Ok(batch_failure(&request.users, message));
    }
    let names = Names::load(writer, request.included.as_ref(), actor)?;
    let prefix = request.source_type.as_deref().filter(|s| !s.is_empty()).map(|s| format!("{s}_"));
    let mut response = ImportResponse::default();
    let mut imported = HashSet::new();
    for mut incoming in request.users {
        let external = incoming.get("externalSystemId").and_then(Value::as_str).unwrap_or("");
        let external = format!("{}{external}", prefix.as_deref().unwrap_or(""));
        let username =
            incoming.get("username").and_then(Value::as_str).unwrap_or_default().to_string();
        incoming.insert("externalSystemId".into(), Value::String(external.clone()));
        imported.insert(external.to_lowercase());
        // Each user in a savepoint of its own: a user that fails leaves nothing behind,
        // and on PostgreSQL its failed statement does not end the batch's transaction.
        let outcome = writer.attempt(|w| {
            import_one(
                w,
                &names,
                incoming,
                &external,
                request.update_only_present_fields,
                service_point,
                actor,
            )
            .map_err(UserFailed)
        });
        match outcome.map_err(|UserFailed(message)| message) {
            Ok(Written::Created) => response.created_records += 1,
            Ok(Written::Updated) => response.updated_records += 1,
            Err(message) => {
                response.failed_records += 1;
                response.failed_external_system_ids.push(external.clone());
                response.failed_users.push(FailedUser {
                    external_system_id: external,
                    username,
                    error_message: message,
                });
            }
        }
    }
    response.total_records =
        response.created_records + response.updated_records + response.failed_records;
    response.message = IMPORTED.to_string();
    if request.deactivate_missing_users {
        if response.failed_records > 0 {
            response.message =
                format!("{IMPORTED} Users were not deactivated because of import failures.");
        } else if deactivate_missing(writer, prefix.as_deref(), &imported, actor)? > 0 {
            response.message = "Deactivated missing users.".to_string();
        }
    }
    Ok(response)
}

/// Why one user of a batch was not imported, in mod-user-import's words.
struct UserFailed(String);

impl From<store::Error> for UserFailed {
    fn from(e: store::Error) -> Self {
        UserFailed(e.to_string())
    }
}

/// mod-user-import's answer when the batch cannot start: every user failed, for one
/// reason.
fn batch_failure(users: &[Map<String, Value>], message: String) -> ImportResponse {
    let text = |user: &Map<String, Value>, key: &str| {
        user.get(key).and_then(Value::as_str).unwrap_or_default().to_string()
    };
    let failed_users: Vec<FailedUser> = users
        .iter()
        .map(|user| FailedUser {
            external_system_id: text(user, "externalSystemId"),
            username: text(user, "username"),
            error_message: message.clone(),
        })
        .collect();
    ImportResponse {
        message: "Failed to import users.".into(),
        total_records: users.len(),
        failed_records: users.len(),
        failed_external_system_ids: failed_users
            .iter()
            .map(|u| u.external_system_id.clone())
            .collect(),
        failed_users,
        error: Some(message),
        ..Default::default()
    }
}

enum Written {
    Created,
    Updated,
}

/// The tenant's names for what users point to, read once per import.
struct Names {
    groups: HashMap<String, Uuid>,
    address_types: HashMap<String, Uuid>,
    departments: HashMap<String, Uuid>,
    custom_fields: Vec<folio::Stored<crate::CustomField>>,
}

impl Names {
    /// Reads the names, creating the request's included departments that are missing.
    fn load(writer: &mut Writer<'_>, included: Option<&Included>, actor: Actor) -> Result<Names> {
        let groups = matching::<PatronGroup>(writer, None)?
            .into_iter()
            .filter_map(|g| Some((g.group?, g.id?)))
            .collect();
        let address_types = matching::<AddressType>(writer, None)?
            .into_iter()
            .map(|t| (t.address_type.to_lowercase(), t.id.unwrap_or_default()))
            .collect();
        let mut departments: HashMap<String, Uuid> = matching::<Department>(writer, None)?
            .into_iter()
            .map(|d| (d.name.to_lowercase(), d.id.unwrap_or_default()))
            .collect();
        for new in included.map_or(&[][..], |i| &i.departments[..]) {
            if departments.contains_key(&new.name.to_lowercase()) {
                continue;
            }
            let department = Department {
                id: None,
                name: new.name.clone(),
                code: new.code.clone().unwrap_or_else(|| new.name.clone()),
                source: Some("System".into()),
                usage_number: None,
                metadata: None,
            };
            let department = folio::record::create(writer, department, actor)
                .map_err(|e| Error::from_record(e, Error::from))?;
            departments.insert(new.name.to_lowercase(), department.id.unwrap_or_default());
        }
        let custom_fields = crate::custom_fields(writer)?;
        Ok(Names { groups, address_types, departments, custom_fields })
    }
}

/// Maps one user's names to ids and writes it; `Err` is the reason it failed.
fn import_one(
    writer: &mut Writer<'_>,
    names: &Names,
    mut incoming: Map<String, Value>,
    external: &str,
    only_present: bool,
    service_point: &dyn Fn(&Writer<'_>, &str) -> Result<Option<Uuid>>,
    actor: Actor,
) -> std::result::Result<Written, String> {
    let preference = incoming.remove("requestPreference");
    if let Some(Value::Object(values)) = incoming.get_mut("customFields") {
        crate::custom_fields::map_import_values(&names.custom_fields, values)?;
    }
    if let Some(Value::String(group)) = incoming.get("patronGroup").cloned() {
        let id = names
            .groups
            .get(&group)
            .ok_or_else(|| format!("Patron group does not exist in the system: [{group}]"))?;
        incoming.insert("patronGroup".into(), Value::String(id.to_string()));
    }
    if let Some(Value::Array(departments)) = incoming.get("departments").cloned() {
        let mut ids = Vec::new();
        let mut missing = std::collections::BTreeSet::new();
        for name in departments.iter().filter_map(Value::as_str) {
            match names.departments.get(&name.to_lowercase()) {
                Some(id) => ids.push(Value::String(id.to_string())),
                None => {
                    missing.insert(name.to_string());
                }
            }
        }
        if !missing.is_empty() {
            let missing: Vec<String> = missing.into_iter().collect();
            return Err(format!(
                "Departments do not exist in the system: [{}]",
                missing.join(", ")
            ));
        }
        incoming.insert("departments".into(), Value::Array(ids));
    }
    if let Some(personal) = incoming.get_mut("personal").and_then(Value::as_object_mut) {
        name_addresses(personal, names);
        if let Some(Value::String(contact)) = personal.get("preferredContactTypeId").cloned() {
            let code = CONTACT_TYPES
                .iter()
                .find(|(name, _)| name.eq_ignore_ascii_case(&contact))
                .map(|(_, code)| Value::String((*code).to_string()));
            personal.insert("preferredContactTypeId".into(), code.unwrap_or(Value::Null));
        }
    }
    let existing = writer
        .find_by(&USERS, "external_system_id", external)
        .map_err(|e| e.to_string())?
        .into_iter()
        .next();
    let written = match existing {
        Some(stored) => {
            let mut body = incoming;
            if only_present {
                let previous: Map<String, Value> =
                    serde_json::from_str(&stored.body).map_err(|e| e.to_string())?;
                body = merge_present(previous, body);
            }
            body.insert("id".into(), Value::String(stored.id.clone()));
            let user: User = serde_json::from_value(Value::Object(body)).map_err(|e| {
                format!("Failed to update user with externalSystemId: {external}: {e}")
            })?;
            let id = Uuid::parse_str(&stored.id).map_err(|e| e.to_string())?;
            crate::update_user(writer, id, user, actor.user_id).map_err(|e| {
                format!("Failed to update user with externalSystemId: {external}: {e}")
            })?;
            (id, Written::Updated)
        }
        None => {
            let failed = || format!("Failed to create new user with externalSystemId: {external}");
            let user: User =
                serde_json::from_value(Value::Object(incoming)).map_err(|_| failed())?;
            let user = crate::create_user(writer, user, actor.user_id).map_err(|_| failed())?;
            let id = user.id.unwrap_or_default();
            // FOLIO gives every imported user an (empty) permission set.
            crate::grant_permissions(writer, id, &[]).map_err(|e| e.to_string())?;
            (id, Written::Created)
        }
    };
    if let Some(preference) = preference {
        save_preference(writer, written.0, preference, names, service_point, actor)?;
    }
    Ok(written.1)
}

/// Address types by name become ids; an address of an unknown type is left out, as
/// mod-user-import does.
fn name_addresses(personal: &mut Map<String, Value>, names: &Names) {
    let Some(Value::Array(addresses)) = personal.get("addresses").cloned() else { return };
    let named: Vec<Value> = addresses
        .into_iter()
        .filter_map(|mut address| {
            let name = address.get("addressTypeId")?.as_str()?.to_lowercase();
            let id = names.address_types.get(&name)?;
            address["addressTypeId"] = Value::String(id.to_string());
            Some(address)
        })
        .collect();
    personal.insert("addresses".into(), Value::Array(named));
}

/// `updateOnlyPresentFields`: the stored user with the incoming fields laid over it;
/// addresses merge by type, and a blank preferred first name keeps the stored one.
fn merge_present(
    mut previous: Map<String, Value>,
    incoming: Map<String, Value>,
) -> Map<String, Value> {
    let old_personal = previous.get("personal").cloned();
    for (key, value) in incoming {
        previous.insert(key, value);
    }
    if let (Some(Value::Object(old)), Some(Value::Object(new))) =
        (old_personal, previous.get_mut("personal"))
    {
        let old_addresses = old.get("addresses").and_then(Value::as_array).cloned();
        match (old_addresses, new.get("addresses").and_then(Value::as_array).cloned()) {
            (Some(old_addresses), None) => {
                new.insert("addresses".into(), Value::Array(old_addresses));
            }
            (Some(old_addresses), Some(new_addresses)) => {
                let mut by_type: Vec<Value> = old_addresses
                    .into_iter()
                    .filter(|a| {
                        !new_addresses
                            .iter()
                            .any(|n| n.get("addressTypeId") == a.get("addressTypeId"))
                    })
                    .collect();
                by_type.extend(new_addresses);
                new.insert("addresses".into(), Value::Array(by_type));
            }
            _ => {}
        }
        let blank = new
            .get("preferredFirstName")
            .and_then(Value::as_str)
            .is_none_or(|s| s.trim().is_empty());
        if blank && let Some(kept) = old.get("preferredFirstName") {
            new.insert("preferredFirstName".into(), kept.clone());
        }
    }
    previous
}

/// Creates or replaces the user's request preference, its names read as ids.
fn save_preference(
    writer: &mut Writer<'_>,
    user_id: Uuid,
    preference: Value,
    names: &Names,
    service_point: &dyn Fn(&Writer<'_>, &str) -> Result<Option<Uuid>>,
    actor: Actor,
) -> std::result::Result<(), String> {
    let Value::Object(mut preference) = preference else {
        return Err("User Preference validation failed: requestPreference must be an object".into());
    };
    preference.insert("userId".into(), Value::String(user_id.to_string()));
    if let Some(Value::String(name)) = preference.get("defaultServicePointId").cloned() {
        let id = service_point(writer, &name).map_err(|e| e.to_string())?.ok_or_else(|| {
            format!("User Preference validation failed: Provided defaultServicePointId value does not exist: {name}")
        })?;
        preference.insert("defaultServicePointId".into(), Value::String(id.to_string()));
    }
    if let Some(Value::String(name)) = preference.get("defaultDeliveryAddressTypeId").cloned() {
        let id = names.address_types.get(&name.to_lowercase()).ok_or_else(|| {
            format!("User Preference validation failed: Provided defaultDeliveryAddressTypeId value does not exist: {name}")
        })?;
        preference.insert("defaultDeliveryAddressTypeId".into(), Value::String(id.to_string()));
    }
    let mut preference: RequestPreference = serde_json::from_value(Value::Object(preference))
        .map_err(|e| format!("User Preference validation failed: {e}"))?;
    let existing = writer
        .find_by(&RequestPreference::TABLE, "user_id", &user_id.to_string())
        .map_err(|e| e.to_string())?
        .into_iter()
        .next();
    let written = match existing {
        Some(stored) => {
            let id = Uuid::parse_str(&stored.id).map_err(|e| e.to_string())?;
            preference.id = Some(id);
            folio::record::replace(writer, id, preference, actor).map(|_| ())
        }
        None => folio::record::create(writer, preference, actor).map(|_| ()),
    };
    written.map_err(|e| format!("Failed to create new user preference. {e}"))
}

/// Deactivates the active users of this source that the import did not name; returns how
/// many.
fn deactivate_missing(
    writer: &mut Writer<'_>,
    prefix: Option<&str>,
    imported: &HashSet<String>,
    actor: Actor,
) -> Result<usize> {
    // Users of this source: their external ids carry its prefix; without a source, any
    // user with an external id.
    let query = match prefix {
        Some(prefix) => {
            format!("externalSystemId==\"{}*\" and active==true", prefix.replace('"', ""))
        }
        None => "active==true".to_string(),
    };
    let mut n = 0;
    for mut user in matching::<User>(writer, Some(&query))? {
        let external = user.external_system_id.clone().unwrap_or_default();
        if external.is_empty() || imported.contains(&external.to_lowercase()) {
            continue;
        }
        let Some(id) = user.id else { continue };
        user.active = Some(false);
        crate::update_user(writer, id, user, actor.user_id)?;
        n += 1;
    }
    Ok(n)
}

/// Every record of a type that matches `cql` (all of them without one), typed: the
/// tenant's groups, address types and departments are a few dozen at most.
fn matching<R: Record>(reader: &store::Reader<'_>, cql: Option<&str>) -> Result<Vec<R>> {
    let all = Page { offset: 0, limit: u64::from(u32::MAX) };
    let as_auth = |e| Error::from_record(e, Error::from);
    let (bodies, _) = folio::record::list_json::<R>(reader, cql, all).map_err(as_auth)?;
    bodies.iter().map(|body| folio::record::parse::<R>(body, "").map_err(as_auth)).collect()
}
