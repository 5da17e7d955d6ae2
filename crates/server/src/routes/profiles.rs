//! Data-import profiles: FOLIO mod-di-converter-storage's `/data-import-profiles` API.
//!
//! - `/data-import-profiles/{jobProfiles,matchProfiles,actionProfiles,mappingProfiles}`:
//!   GET list (`query`, `limit`, `offset`, `showHidden`, `withRelations`), POST (a
//!   `{profile, addedRelations, deletedRelations}` body; 201 with it as stored)
//! - `.../{id}`: GET (`withRelations`), PUT (the same body; 200 with the profile), DELETE
//! - `/data-import-profiles/profileAssociations`: GET (`master`, `detail`), POST
//! - `/data-import-profiles/profileAssociations/{id}`: GET, PUT, DELETE
//! - `/data-import-profiles/profileAssociations/{id}/details` (`masterType`,
//!   `detailType`) and `.../{id}/masters` (`detailType`, `masterType`)
//! - `/data-import-profiles/profileSnapshots/{profileId}`: GET a profile's tree
//!   (`profileType`, `JOB_PROFILE` when left out; `jobProfileId`)
//! - `/data-import-profiles/jobProfileSnapshots/{id}`: POST freezes the tree of job
//!   profile `id`; GET answers the frozen tree with id `id`
//! - `/data-import-profiles/entityTypes`: GET
//! - `/field-protection-settings/marc` and `.../{id}`: the MARC fields overlays keep
//!   (storage endpoints; the system settings cannot be changed or removed)

use axum::{
    Router,
    extract::Path,
    http::StatusCode,
    response::Response,
    routing::{get, post},
};
use profiles::{
    ActionProfile, JobProfile, MappingProfile, MatchProfile, Profile, ProfileType, UserInfo,
};
use uuid::Uuid;

use crate::{
    ApiError, AppState,
    extract::{Body, Caller, ListParams, blocking},
};

use super::{
    authn::parse_uuid,
    json,
    records::{Checked, Ruled, Spec, actor, single_records},
};

/// One profile type's paths, collection key and FOLIO permissions.
struct Kind {
    path: &'static str,
    item_path: &'static str,
    collection_key: &'static str,
    list: &'static str,
    get: &'static str,
    post: &'static str,
    put: &'static str,
    delete: &'static str,
}

macro_rules! kind {
    ($name:ident, $path:literal, $key:literal, $perm:literal) => {
        static $name: Kind = Kind {
            path: concat!("/data-import-profiles/", $path),
            item_path: concat!("/data-import-profiles/", $path, "/{id}"),
            collection_key: $key,
            list: concat!("converter-storage.", $perm, ".collection.get"),
            get: concat!("converter-storage.", $perm, ".item.get"),
            post: concat!("converter-storage.", $perm, ".post"),
            put: concat!("converter-storage.", $perm, ".put"),
            delete: concat!("converter-storage.", $perm, ".delete"),
        };
    };
}

kind!(JOBS, "jobProfiles", "jobProfiles", "jobprofile");
kind!(MATCHES, "matchProfiles", "matchProfiles", "matchprofile");
kind!(ACTIONS, "actionProfiles", "actionProfiles", "actionprofile");
kind!(MAPPINGS, "mappingProfiles", "mappingProfiles", "mappingprofile");

fn kind<P: Profile>() -> &'static Kind {
    match P::TYPE {
        ProfileType::JobProfile => &JOBS,
        ProfileType::MatchProfile => &MATCHES,
        ProfileType::ActionProfile => &ACTIONS,
        ProfileType::MappingProfile => &MAPPINGS,
    }
}

const ASSOCIATIONS: &str = "/data-import-profiles/profileAssociations";

pub(super) fn router() -> Router<AppState> {
    Router::new()
        .merge(profile_routes::<JobProfile>())
        .merge(profile_routes::<MatchProfile>())
        .merge(profile_routes::<ActionProfile>())
        .merge(profile_routes::<MappingProfile>())
        .route(ASSOCIATIONS, get(list_links).post(create_link))
        .route(
            "/data-import-profiles/profileAssociations/{id}",
            get(get_link).put(replace_link).delete(delete_link),
        )
        .route("/data-import-profiles/profileAssociations/{id}/details", get(details))
        .route("/data-import-profiles/profileAssociations/{id}/masters", get(masters))
        .route("/data-import-profiles/profileSnapshots/{id}", get(tree))
        .route(
            "/data-import-profiles/jobProfileSnapshots/{id}",
            post(freeze_job_tree).get(frozen_job_tree),
        )
        .route("/data-import-profiles/entityTypes", get(entity_types))
        .merge(single_records::<Checked<profiles::FieldProtection>>(&FIELD_PROTECTION))
}

spec!(
    FIELD_PROTECTION,
    "/field-protection-settings/marc",
    "marcFieldProtectionSettings",
    "converter-storage.field-protection-settings"
);

/// MARC field protection settings: each body checked; the system settings locked.
impl Ruled for profiles::FieldProtection {
    fn check(&self) -> Result<(), ApiError> {
        profiles::check_protection(self)
            .map_err(|(field, message)| ApiError::validation(field, None, message))
    }
    fn locked(reader: &store::Reader<'_>, id: Uuid) -> Result<Option<&'static str>, ApiError> {
        Ok(profiles::is_system(reader, id)?
            .then_some("A system MARC field protection setting cannot be changed or removed"))
    }
}

fn profile_routes<P: Profile>() -> Router<AppState> {
    let kind = kind::<P>();
    Router::new()
        .route(kind.path, get(list::<P>).post(create::<P>))
        .route(kind.item_path, get(get_one::<P>).put(replace::<P>).delete(delete::<P>))
}

async fn list<P: Profile>(caller: Caller, params: ListParams) -> Result<Response, ApiError> {
    let kind = kind::<P>();
    caller.require(kind.list)?;
    let show_hidden = params.get::<bool>("showHidden")?.unwrap_or(false);
    let with_relations = params.get::<bool>("withRelations")?.unwrap_or(false);
    let tenant = caller.tenant.clone();
    let (bodies, total) = blocking(move || {
        let cql = params.query.as_deref();
        Ok(tenant
            .read(|r| profiles::list_json::<P>(r, cql, params.page, show_hidden, with_relations))?)
    })
    .await?;
    Ok(json::collection(kind.collection_key, &bodies, total))
}

async fn get_one<P: Profile>(
    caller: Caller,
    Path(id): Path<String>,
    params: ListParams,
) -> Result<Response, ApiError> {
    caller.require(kind::<P>().get)?;
    let id = parse_uuid(&id)?;
    let with_relations = params.get::<bool>("withRelations")?.unwrap_or(false);
    let tenant = caller.tenant.clone();
    let body =
        blocking(move || Ok(tenant.read(|r| profiles::get_json::<P>(r, id, with_relations))?))
            .await?;
    Ok(json::raw(StatusCode::OK, body))
}

async fn create<P: Profile>(caller: Caller, Body(body): Body) -> Result<Response, ApiError> {
    let kind = kind::<P>();
    caller.require(kind.post)?;
    let dto = profiles::decode::<P>(&body)?;
    let (tenant, actor, user_id) = (caller.tenant.clone(), actor(&caller), caller.user_id);
    let dto = blocking(move || {
        let user_info = user_info(&tenant, user_id)?;
        Ok(tenant.write(|w| profiles::create(w, dto, actor, user_info))?)
    })
    .await?;
    let id = dto.id.map(|id| id.to_string()).unwrap_or_default();
    let body = serde_json::to_string(&dto).map_err(ApiError::internal)?;
    Ok(json::created(format!("{}/{id}", kind.path), body))
}

async fn replace<P: Profile>(
    caller: Caller,
    Path(id): Path<String>,
    Body(body): Body,
) -> Result<Response, ApiError> {
    caller.require(kind::<P>().put)?;
    let id = parse_uuid(&id)?;
    let dto = profiles::decode::<P>(&body)?;
    let (tenant, actor, user_id) = (caller.tenant.clone(), actor(&caller), caller.user_id);
    let profile = blocking(move || {
        let user_info = user_info(&tenant, user_id)?;
        Ok(tenant.write(|w| profiles::replace(w, id, dto, actor, user_info))?)
    })
    .await?;
    Ok(json::value(StatusCode::OK, &profile))
}

async fn delete<P: Profile>(caller: Caller, Path(id): Path<String>) -> Result<Response, ApiError> {
    caller.require(kind::<P>().delete)?;
    let id = parse_uuid(&id)?;
    let tenant = caller.tenant.clone();
    blocking(move || Ok(tenant.write(|w| profiles::delete::<P>(w, id))?)).await?;
    Ok(super::no_content())
}

/// The user making a change, by name, for the profile's `userInfo` (FOLIO looks the
/// user up in mod-users on every write).
fn user_info(tenant: &store::Tenant, user_id: Uuid) -> Result<Option<UserInfo>, ApiError> {
    let user = tenant.read(|r| auth::get_user(r, user_id))?;
    Ok(user.map(|user| {
        let personal = user.record.personal.as_ref();
        UserInfo {
            first_name: personal.and_then(|p| p.first_name.clone()),
            last_name: personal.and_then(|p| p.last_name.clone()),
            user_name: user.record.username.clone(),
        }
    }))
}

/// A profile type parameter, read as FOLIO reads it (exactly, 400 naming the types).
fn profile_type(params: &ListParams, name: &str) -> Result<Option<ProfileType>, ApiError> {
    params
        .get::<String>(name)?
        .map(|text| ProfileType::parse(&text).ok_or(profiles::Error::UnknownType(text)))
        .transpose()
        .map_err(ApiError::from)
}

fn required_type(params: &ListParams, name: &str) -> Result<ProfileType, ApiError> {
    profile_type(params, name)?
        .ok_or_else(|| ApiError::bad_parameter(name, "", format!("Parameter '{name}' is required")))
}

async fn list_links(caller: Caller, params: ListParams) -> Result<Response, ApiError> {
    caller.require("converter-storage.profileassociations.collection.get")?;
    let (master, detail) = (required_type(&params, "master")?, required_type(&params, "detail")?);
    let tenant = caller.tenant.clone();
    let links =
        blocking(move || Ok(tenant.read(|r| profiles::list_associations(r, master, detail))?))
            .await?;
    let bodies = links
        .iter()
        .map(serde_json::to_string)
        .collect::<Result<Vec<_>, _>>()
        .map_err(ApiError::internal)?;
    Ok(json::collection("profileAssociations", &bodies, bodies.len() as u64))
}

async fn create_link(
    caller: Caller,
    params: ListParams,
    Body(body): Body,
) -> Result<Response, ApiError> {
    caller.require("converter-storage.profileassociation.post")?;
    let (master, detail) = (required_type(&params, "master")?, required_type(&params, "detail")?);
    let link = profiles::decode_association(&body, master, detail)?;
    let tenant = caller.tenant.clone();
    let link =
        blocking(move || Ok(tenant.write(|w| profiles::create_association(w, link))?)).await?;
    let id = link.id.map(|id| id.to_string()).unwrap_or_default();
    let body = serde_json::to_string(&link).map_err(ApiError::internal)?;
    Ok(json::created(format!("{ASSOCIATIONS}/{id}"), body))
}

async fn get_link(caller: Caller, Path(id): Path<String>) -> Result<Response, ApiError> {
    caller.require("converter-storage.profileassociations.item.get")?;
    let id = parse_uuid(&id)?;
    let tenant = caller.tenant.clone();
    let link = blocking(move || Ok(tenant.read(|r| profiles::association(r, id))?)).await?;
    let link = link.ok_or(profiles::Error::AssociationNotFound(id))?;
    Ok(json::value(StatusCode::OK, &link))
}

async fn replace_link(
    caller: Caller,
    Path(id): Path<String>,
    params: ListParams,
    Body(body): Body,
) -> Result<Response, ApiError> {
    caller.require("converter-storage.profileassociation.put")?;
    let id = parse_uuid(&id)?;
    let (master, detail) = (required_type(&params, "master")?, required_type(&params, "detail")?);
    let link = profiles::decode_association(&body, master, detail)?;
    let tenant = caller.tenant.clone();
    let link =
        blocking(move || Ok(tenant.write(|w| profiles::replace_association(w, id, link))?)).await?;
    Ok(json::value(StatusCode::OK, &link))
}

async fn delete_link(caller: Caller, Path(id): Path<String>) -> Result<Response, ApiError> {
    caller.require("converter-storage.profileassociation.delete")?;
    let id = parse_uuid(&id)?;
    let tenant = caller.tenant.clone();
    blocking(move || Ok(tenant.write(|w| profiles::delete_association(w, id))?)).await?;
    Ok(super::no_content())
}

async fn details(
    caller: Caller,
    Path(id): Path<String>,
    params: ListParams,
) -> Result<Response, ApiError> {
    caller.require("converter-storage.profileassociations.details.item.get")?;
    let id = parse_uuid(&id)?;
    let (kind, filter) =
        (required_type(&params, "masterType")?, profile_type(&params, "detailType")?);
    let tenant = caller.tenant.clone();
    let node =
        blocking(move || Ok(tenant.read(|r| profiles::details(r, kind, id, filter))?)).await?;
    Ok(json::value(StatusCode::OK, &node))
}

async fn masters(
    caller: Caller,
    Path(id): Path<String>,
    params: ListParams,
) -> Result<Response, ApiError> {
    caller.require("converter-storage.profileassociations.masters.item.get")?;
    let id = parse_uuid(&id)?;
    let (kind, filter) =
        (required_type(&params, "detailType")?, profile_type(&params, "masterType")?);
    let tenant = caller.tenant.clone();
    let node =
        blocking(move || Ok(tenant.read(|r| profiles::masters(r, kind, id, filter))?)).await?;
    Ok(json::value(StatusCode::OK, &node))
}

async fn tree(
    caller: Caller,
    Path(id): Path<String>,
    params: ListParams,
) -> Result<Response, ApiError> {
    caller.require("converter-storage.profileSnapshots.get")?;
    let id = parse_uuid(&id)?;
    let kind = profile_type(&params, "profileType")?.unwrap_or(ProfileType::JobProfile);
    let job = params.get::<Uuid>("jobProfileId")?;
    let tenant = caller.tenant.clone();
    let tree = blocking(move || Ok(tenant.read(|r| profiles::snapshot(r, kind, id, job))?)).await?;
    Ok(json::value(StatusCode::OK, &tree))
}

async fn freeze_job_tree(caller: Caller, Path(id): Path<String>) -> Result<Response, ApiError> {
    caller.require("converter-storage.jobprofilesnapshots.post")?;
    let id = parse_uuid(&id)?;
    let tenant = caller.tenant.clone();
    let tree =
        blocking(move || Ok(tenant.write(|w| profiles::create_job_snapshot(w, id))?)).await?;
    let body = serde_json::to_string(&tree).map_err(ApiError::internal)?;
    Ok(json::created(format!("/data-import-profiles/jobProfileSnapshots/{}", tree.id), body))
}

async fn frozen_job_tree(caller: Caller, Path(id): Path<String>) -> Result<Response, ApiError> {
    caller.require("converter-storage.jobprofilesnapshots.get")?;
    let id = parse_uuid(&id)?;
    let tenant = caller.tenant.clone();
    let body = blocking(move || Ok(tenant.read(|r| profiles::job_snapshot_json(r, id))?)).await?;
    Ok(json::raw(StatusCode::OK, body))
}

async fn entity_types(caller: Caller) -> Result<Response, ApiError> {
    caller.require("converter-storage.entitytypes.get")?;
    let body = serde_json::json!({
        "entityTypes": profiles::ENTITY_TYPES,
        "totalRecords": profiles::ENTITY_TYPES.len(),
    });
    Ok(json::value(StatusCode::OK, &body))
}
