//! The links between profiles: adding and removing them as FOLIO does, with its node
//! (wrapper) ids, and FOLIO's `/profileAssociations` verbs.
//!
//! Node rules, kept so every tree stays connected however a client adds links:
//! - a job, action or mapping profile has one node, shared by all its links: a link
//!   that leaves the node out gets the one the profile already has (or a new one);
//! - a match profile gets a new node each time it is linked as a detail; a link from a
//!   match that leaves its node out gets the node the same batch gave that match, or the
//!   one it has in the same job;
//! - an action has at most one mapping profile: linking another replaces it.
//!
//! Removing a link to a match profile removes the branch under that node, as FOLIO's
//! cascade does.

use std::collections::HashMap;

use folio::{Actor, Record};
use store::{Reader, Writer};
use uuid::Uuid;

use crate::{
    Error, ProfileAssociation, ProfileSnapshotWrapper, ProfileType, Result,
    model::{ActionProfile, JobProfile, MappingProfile, MatchProfile},
    snapshot,
};

/// The profile a batch of links comes with: links that leave out an end get it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Owner {
    pub(crate) kind: ProfileType,
    pub(crate) id: Uuid,
}

/// Which list a batch of links came in, for messages naming a link's field.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Batch {
    /// A profile body's `addedRelations` or `deletedRelations`.
    Relations(&'static str),
    /// A `/profileAssociations` body.
    Single,
}

impl Batch {
    fn field(self, idx: usize, name: &str) -> String {
        match self {
            Batch::Relations(list) => format!("{list}[{idx}].{name}"),
            Batch::Single => name.to_string(),
        }
    }
}

/// The stored links whose columns equal `conditions`.
pub(crate) fn links_where(
    reader: &Reader<'_>,
    conditions: &[(&str, &str)],
) -> Result<Vec<ProfileAssociation>> {
    reader
        .find_where(&ProfileAssociation::TABLE, conditions)?
        .iter()
        .map(|row| Ok(folio::record::parse::<ProfileAssociation>(&row.body, &row.id)?))
        .collect()
}

/// The links under a master profile (`master_profile_id`, `master_type`), in order.
pub(crate) fn links_from(
    reader: &Reader<'_>,
    kind: ProfileType,
    id: Uuid,
) -> Result<Vec<ProfileAssociation>> {
    let mut links = links_where(
        reader,
        &[("master_profile_id", &id.to_string()), ("master_type", kind.as_str())],
    )?;
    sort(&mut links);
    Ok(links)
}

/// The links to a detail profile.
pub(crate) fn links_to(
    reader: &Reader<'_>,
    kind: ProfileType,
    id: Uuid,
) -> Result<Vec<ProfileAssociation>> {
    let mut links = links_where(
        reader,
        &[("detail_profile_id", &id.to_string()), ("detail_type", kind.as_str())],
    )?;
    sort(&mut links);
    Ok(links)
}

/// Siblings in their `order`; at the same order, a match's MATCH branch before its
/// NON_MATCH one, then in id order, so a tree reads the same every time.
pub(crate) fn sort(links: &mut [ProfileAssociation]) {
    let outcome = |l: &ProfileAssociation| match l.react_to {
        Some(crate::ReactTo::Match) => 0,
        Some(crate::ReactTo::NonMatch) => 1,
        None => 2,
    };
    links.sort_by_key(|l| (l.order, outcome(l), l.id));
}

/// Whether a link from `master` to `detail` may be made: FOLIO's link kinds, and both
/// profiles there.
fn check_link(
    reader: &Reader<'_>,
    (master_kind, master_id): (ProfileType, Uuid),
    (detail_kind, detail_id): (ProfileType, Uuid),
) -> Result<()> {
    if !master_kind.may_link(detail_kind) {
        return Err(Error::Invalid(vec![format!(
            "A {master_kind} cannot be linked to a {detail_kind}: FOLIO's associations are \
             job to match or action, match to match or action, action to action, match or mapping"
        )]));
    }
    for (kind, id, master) in [(master_kind, master_id, true), (detail_kind, detail_id, false)] {
        if !profile_exists(reader, kind, id)? {
            return Err(Error::LinkedNotFound { kind, master, ids: vec![id] });
        }
    }
    Ok(())
}

/// Whether a profile of the type with the id exists.
pub(crate) fn profile_exists(reader: &Reader<'_>, kind: ProfileType, id: Uuid) -> Result<bool> {
    let table = match kind {
        ProfileType::JobProfile => JobProfile::TABLE,
        ProfileType::MatchProfile => MatchProfile::TABLE,
        ProfileType::ActionProfile => ActionProfile::TABLE,
        ProfileType::MappingProfile => MappingProfile::TABLE,
    };
    Ok(reader.exists(&table, &id.to_string())?)
}

/// Adds a batch of links in order: fills the ends the owner stands for, checks both
/// profiles exist and may be linked, gives each end its node, and stores the links as
/// they are left (with their ids and nodes) in `links`.
pub(crate) fn add(
    writer: &mut Writer<'_>,
    links: &mut [ProfileAssociation],
    owner: Option<Owner>,
    batch: Batch,
) -> Result<()> {
    // Nodes given in this batch, by profile id: a link from a match added just before
    // hangs from the node that link gave it.
    let mut nodes: HashMap<Uuid, Uuid> = HashMap::new();
    for (idx, link) in links.iter_mut().enumerate() {
        fill_ends(link, owner, idx, batch)?;
        let ((master_kind, master_id), (detail_kind, detail_id)) =
            link.ends().expect("fill_ends sets both ends");
        check_link(writer, (master_kind, master_id), (detail_kind, detail_id))?;
        // FOLIO scopes a match's links to the job they were made for.
        if master_kind == ProfileType::MatchProfile
            && link.job_profile_id.is_none()
            && let Some(Owner { kind: ProfileType::JobProfile, id }) = owner
        {
            link.job_profile_id = Some(id);
        }
        let master_node = match link.master_wrapper_id {
            Some(node) => node,
            None if master_kind == ProfileType::MatchProfile => match nodes.get(&master_id) {
                Some(node) => *node,
                None => match_node(writer, master_id, link.job_profile_id)?
                    .unwrap_or_else(store::new_record_id),
            },
            None => shared_node(writer, &nodes, master_kind, master_id)?,
        };
        let detail_node = match link.detail_wrapper_id {
            Some(node) => node,
            None if detail_kind == ProfileType::MatchProfile => store::new_record_id(),
            None => shared_node(writer, &nodes, detail_kind, detail_id)?,
        };
        link.master_wrapper_id = Some(master_node);
        link.detail_wrapper_id = Some(detail_node);
        nodes.insert(master_id, master_node);
        nodes.insert(detail_id, detail_node);
        link.triggered = false;
        if (master_kind, detail_kind) == (ProfileType::ActionProfile, ProfileType::MappingProfile) {
            for old in links_from(writer, master_kind, master_id)? {
                if old.detail_profile_type == Some(ProfileType::MappingProfile) {
                    delete_link(writer, &old)?;
                }
            }
        }
        // A link keeps the id it comes with, unless another link has it.
        if let Some(id) = link.id
            && writer.exists(&ProfileAssociation::TABLE, &id.to_string())?
        {
            link.id = None;
        }
        folio::record::write(
            writer,
            link,
            folio::record::Mode::Create,
            Actor::default(),
            |_, _, _| Ok::<_, Error>(()),
        )?;
    }
    Ok(())
}

/// Fills a link's ends from the profile it comes with (FOLIO's `prepareAssociations`)
/// and checks it names both.
fn fill_ends(
    link: &mut ProfileAssociation,
    owner: Option<Owner>,
    idx: usize,
    batch: Batch,
) -> Result<()> {
    if let Some(owner) = owner {
        if link.master_profile_id.is_none() {
            link.master_profile_id = Some(owner.id);
            link.master_profile_type.get_or_insert(owner.kind);
        }
        if link.detail_profile_id.is_none() {
            link.detail_profile_id = Some(owner.id);
            link.detail_profile_type.get_or_insert(owner.kind);
        }
    }
    let missing = [
        ("masterProfileId", link.master_profile_id.is_none()),
        ("detailProfileId", link.detail_profile_id.is_none()),
        ("masterProfileType", link.master_profile_type.is_none()),
        ("detailProfileType", link.detail_profile_type.is_none()),
    ];
    match missing.into_iter().find(|(_, missing)| *missing) {
        Some((name, _)) => Err(Error::Decode(folio::DecodeError::Invalid {
            field: batch.field(idx, name),
            message: "must not be null".to_string(),
            value: None,
        })),
        None => Ok(()),
    }
}

/// The one node of a job, action or mapping profile: the one this batch gave it, else
/// the one its stored links name, else a new one.
fn shared_node(
    reader: &Reader<'_>,
    batch: &HashMap<Uuid, Uuid>,
    kind: ProfileType,
    id: Uuid,
) -> Result<Uuid> {
    if let Some(node) = batch.get(&id) {
        return Ok(*node);
    }
    if let Some(link) = links_from(reader, kind, id)?.first() {
        return Ok(link.master_wrapper_id.unwrap_or_else(store::new_record_id));
    }
    if let Some(node) = links_to(reader, kind, id)?.first().and_then(|l| l.detail_wrapper_id) {
        return Ok(node);
    }
    Ok(store::new_record_id())
}

/// The node a match profile has in a job's tree (in any tree, without a job): the
/// detail node of a link to it from the job or from a match of the job.
fn match_node(reader: &Reader<'_>, id: Uuid, job: Option<Uuid>) -> Result<Option<Uuid>> {
    let links = links_to(reader, ProfileType::MatchProfile, id)?;
    let in_job = |l: &&ProfileAssociation| match job {
        None => true,
        Some(job) => {
            (l.master_profile_type == Some(ProfileType::JobProfile)
                && l.master_profile_id == Some(job))
                || l.job_profile_id == Some(job)
        }
    };
    Ok(links.iter().find(in_job).and_then(|l| l.detail_wrapper_id))
}

/// Removes the stored links a batch names, FOLIO's way: an action's mapping link by the
/// two profiles; a link naming both nodes by its nodes, `order` and (if sent)
/// `reactTo`, within its job; else by id; else by the two profiles. A link that matches
/// nothing is ignored.
pub(crate) fn remove(
    writer: &mut Writer<'_>,
    links: &[ProfileAssociation],
    owner: Option<Owner>,
) -> Result<()> {
    for link in links {
        let job = link.job_profile_id.or(match owner {
            Some(Owner { kind: ProfileType::JobProfile, id })
                if link.master_profile_type == Some(ProfileType::MatchProfile) =>
            {
                Some(id)
            }
            _ => None,
        });
        let same_kinds = |l: &ProfileAssociation| {
            link.master_profile_type.is_none_or(|t| l.master_profile_type == Some(t))
                && link.detail_profile_type.is_none_or(|t| l.detail_profile_type == Some(t))
        };
        let found: Vec<ProfileAssociation> = match link {
            ProfileAssociation {
                master_profile_type: Some(ProfileType::ActionProfile),
                detail_profile_type: Some(ProfileType::MappingProfile),
                master_profile_id: Some(master),
                detail_profile_id: Some(detail),
                ..
            } => links_where(
                writer,
                &[
                    ("master_profile_id", &master.to_string()),
                    ("detail_profile_id", &detail.to_string()),
                ],
            )?
            .into_iter()
            .filter(same_kinds)
            .collect(),
            ProfileAssociation {
                master_wrapper_id: Some(master),
                detail_wrapper_id: Some(detail),
                ..
            } => links_where(
                writer,
                &[
                    ("master_wrapper_id", &master.to_string()),
                    ("detail_wrapper_id", &detail.to_string()),
                ],
            )?
            .into_iter()
            .filter(|l| l.order == link.order)
            .filter(|l| l.job_profile_id.is_none() || l.job_profile_id == job)
            .filter(|l| link.react_to.is_none() || l.react_to == link.react_to)
            .collect(),
            ProfileAssociation { id: Some(id), .. } => {
                association(writer, *id)?.into_iter().collect()
            }
            ProfileAssociation {
                master_profile_id: Some(master),
                detail_profile_id: Some(detail),
                ..
            } => links_where(
                writer,
                &[
                    ("master_profile_id", &master.to_string()),
                    ("detail_profile_id", &detail.to_string()),
                ],
            )?
            .into_iter()
            .filter(same_kinds)
            .filter(|l| l.order == link.order)
            .filter(|l| link.react_to.is_none() || l.react_to == link.react_to)
            .collect(),
            _ => Vec::new(),
        };
        for stored in found {
            delete_link(writer, &stored)?;
        }
    }
    Ok(())
}

/// Deletes a stored link; when it was the last link to a match node, the links under
/// that node go too.
pub(crate) fn delete_link(writer: &mut Writer<'_>, link: &ProfileAssociation) -> Result<()> {
    let Some(id) = link.id else { return Ok(()) };
    writer.delete(&ProfileAssociation::TABLE, &id.to_string())?;
    if link.detail_profile_type == Some(ProfileType::MatchProfile)
        && let Some(node) = link.detail_wrapper_id
    {
        let node = node.to_string();
        if links_where(writer, &[("detail_wrapper_id", &node)])?.is_empty() {
            for child in links_where(writer, &[("master_wrapper_id", &node)])? {
                delete_link(writer, &child)?;
            }
        }
    }
    Ok(())
}

/// Deletes the links a profile being deleted is the master of, and for a job, the links
/// made for it, with the branches under them.
pub(crate) fn delete_profile_links(
    writer: &mut Writer<'_>,
    kind: ProfileType,
    id: Uuid,
) -> Result<()> {
    for link in links_from(writer, kind, id)? {
        delete_link(writer, &link)?;
    }
    if kind == ProfileType::JobProfile {
        for link in links_where(writer, &[("job_profile_id", &id.to_string())])? {
            delete_link(writer, &link)?;
        }
    }
    Ok(())
}

/// A stored link.
pub fn association(reader: &Reader<'_>, id: Uuid) -> Result<Option<ProfileAssociation>> {
    Ok(folio::record::get::<ProfileAssociation>(reader, id)?.map(|s| s.record))
}

/// Every link from profiles of one type to profiles of another (FOLIO's
/// `GET /profileAssociations?master=&detail=`).
pub fn list_associations(
    reader: &Reader<'_>,
    master: ProfileType,
    detail: ProfileType,
) -> Result<Vec<ProfileAssociation>> {
    links_where(reader, &[("master_type", master.as_str()), ("detail_type", detail.as_str())])
}

/// Reads a `/profileAssociations` body; its types, if it has none, come from the
/// request's `master` and `detail` parameters.
pub fn decode_association(
    body: &[u8],
    master: ProfileType,
    detail: ProfileType,
) -> Result<ProfileAssociation> {
    let mut link: ProfileAssociation = folio::record::decode(body)?;
    link.master_profile_type.get_or_insert(master);
    link.detail_profile_type.get_or_insert(detail);
    Ok(link)
}

/// Stores one link (`POST /profileAssociations`). As FOLIO, the link gets a new id
/// whatever it is sent with.
pub fn create_association(
    writer: &mut Writer<'_>,
    mut link: ProfileAssociation,
) -> Result<ProfileAssociation> {
    link.id = None;
    let mut batch = [link];
    add(writer, &mut batch, None, Batch::Single)?;
    let [link] = batch;
    Ok(link)
}

/// Replaces a stored link (`PUT /profileAssociations/{id}`): the ends and nodes it does
/// not name are kept.
pub fn replace_association(
    writer: &mut Writer<'_>,
    id: Uuid,
    mut link: ProfileAssociation,
) -> Result<ProfileAssociation> {
    let old = association(writer, id)?.ok_or(Error::AssociationNotFound(id))?;
    link.id = Some(id);
    link.master_profile_id = link.master_profile_id.or(old.master_profile_id);
    link.detail_profile_id = link.detail_profile_id.or(old.detail_profile_id);
    link.master_profile_type = link.master_profile_type.or(old.master_profile_type);
    link.detail_profile_type = link.detail_profile_type.or(old.detail_profile_type);
    link.master_wrapper_id = link.master_wrapper_id.or(old.master_wrapper_id);
    link.detail_wrapper_id = link.detail_wrapper_id.or(old.detail_wrapper_id);
    link.triggered = false;
    let ((master_kind, master_id), (detail_kind, detail_id)) =
        link.ends().ok_or_else(|| Error::Corrupt {
            record: "profile association",
            id: id.to_string(),
            message: "a stored link without both ends".to_string(),
        })?;
    check_link(writer, (master_kind, master_id), (detail_kind, detail_id))?;
    folio::record::write(
        writer,
        &mut link,
        folio::record::Mode::Replace,
        Actor::default(),
        |_, _, _| Ok::<_, Error>(()),
    )?;
    Ok(link)
}

/// Deletes a stored link (`DELETE /profileAssociations/{id}`), with the branch under it
/// when it was the last link to a match node.
pub fn delete_association(writer: &mut Writer<'_>, id: Uuid) -> Result<()> {
    let link = association(writer, id)?.ok_or(Error::AssociationNotFound(id))?;
    delete_link(writer, &link)
}

/// A profile's details (`GET /profileAssociations/{id}/details`): the profile as a node
/// whose children are its details, optionally of one type only.
pub fn details(
    reader: &Reader<'_>,
    kind: ProfileType,
    id: Uuid,
    detail: Option<ProfileType>,
) -> Result<ProfileSnapshotWrapper> {
    snapshot::related(reader, kind, id, detail, snapshot::Direction::Details)
}

/// A profile's masters (`GET /profileAssociations/{id}/masters`), as [`details`].
pub fn masters(
    reader: &Reader<'_>,
    kind: ProfileType,
    id: Uuid,
    master: Option<ProfileType>,
) -> Result<ProfileSnapshotWrapper> {
    snapshot::related(reader, kind, id, master, snapshot::Direction::Masters)
}
