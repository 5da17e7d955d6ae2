//! Profile trees in FOLIO's `profileSnapshotWrapper` shape: a profile's whole tree
//! (`/profileSnapshots/{id}`), a job's tree frozen for an import
//! (`/jobProfileSnapshots`), and a profile's direct parents and children
//! (`withRelations`, `/profileAssociations/{id}/details|masters`).
//!
//! How a tree is walked: a job's children are the links from the job; an action's, the
//! links from the action (shared by every job that uses it: its mapping); a match's, the
//! links from the match's node in this job. A link to a profile that no longer exists is
//! left out, and a link met again on its own path (a cycle a client made) is not
//! descended into again.

use std::collections::HashMap;

use store::{Reader, RecordTable, Writer};
use uuid::Uuid;

use crate::{
    Error, ProfileAssociation, ProfileContent, ProfileSnapshotWrapper, ProfileType, Result,
    associations::{links_from, links_to},
    model::{ActionProfile, JobProfile, MappingProfile, MatchProfile, Profile},
};

/// How deep a tree goes at most; FOLIO's trees are a few levels deep.
const MAX_DEPTH: usize = 32;

const SNAPSHOTS: RecordTable = RecordTable {
    table: "profile_snapshots",
    record_type: "profile_snapshot",
    cached: false,
    columns: &[],
};

/// A profile of any type, as a node's content; `None` when there is none with the id.
pub(crate) fn load(
    reader: &Reader<'_>,
    kind: ProfileType,
    id: Uuid,
) -> Result<Option<ProfileContent>> {
    fn get<P: Profile>(reader: &Reader<'_>, id: Uuid) -> Result<Option<ProfileContent>> {
        Ok(folio::record::get::<P>(reader, id)?.map(|stored| stored.record.into_content()))
    }
    match kind {
        ProfileType::JobProfile => get::<JobProfile>(reader, id),
        ProfileType::MatchProfile => get::<MatchProfile>(reader, id),
        ProfileType::ActionProfile => get::<ActionProfile>(reader, id),
        ProfileType::MappingProfile => get::<MappingProfile>(reader, id),
    }
}

/// One walk over a tree, reading each profile once however often it is used.
struct Walk<'r, 'a> {
    reader: &'r Reader<'a>,
    /// The job the tree is for: a match's links are the ones made for it.
    job: Option<Uuid>,
    profiles: HashMap<(ProfileType, Uuid), Option<ProfileContent>>,
}

impl<'r, 'a> Walk<'r, 'a> {
    fn new(reader: &'r Reader<'a>, job: Option<Uuid>) -> Walk<'r, 'a> {
        Walk { reader, job, profiles: HashMap::new() }
    }

    fn profile(&mut self, kind: ProfileType, id: Uuid) -> Result<Option<ProfileContent>> {
        if let Some(found) = self.profiles.get(&(kind, id)) {
            return Ok(found.clone());
        }
        let found = load(self.reader, kind, id)?;
        self.profiles.insert((kind, id), found.clone());
        Ok(found)
    }

    /// The links under a node, in order. `node` is the match's node in the tree; a match
    /// at the root has none and takes the match's links in the job from any node.
    fn children(
        &self,
        kind: ProfileType,
        id: Uuid,
        node: Option<Uuid>,
    ) -> Result<Vec<ProfileAssociation>> {
        let in_job = |l: &ProfileAssociation| {
            l.job_profile_id.is_none() || self.job.is_none() || l.job_profile_id == self.job
        };
        Ok(match kind {
            ProfileType::JobProfile => links_from(self.reader, kind, id)?,
            ProfileType::MatchProfile => links_from(self.reader, kind, id)?
                .into_iter()
                .filter(in_job)
                .filter(|l| node.is_none() || l.master_wrapper_id == node)
                .collect(),
            ProfileType::ActionProfile => {
                links_from(self.reader, kind, id)?.into_iter().filter(in_job).collect()
            }
            ProfileType::MappingProfile => Vec::new(),
        })
    }

    /// The node a link leads to, with its branch.
    fn node(
        &mut self,
        link: &ProfileAssociation,
        path: &mut Vec<Option<Uuid>>,
    ) -> Result<Option<ProfileSnapshotWrapper>> {
        let Some((_, (kind, id))) = link.ends() else { return Ok(None) };
        let Some(content) = self.profile(kind, id)? else { return Ok(None) };
        let mut children = Vec::new();
        if path.len() < MAX_DEPTH && !path.contains(&link.id) {
            path.push(link.id);
            for child in self.children(kind, id, link.detail_wrapper_id)? {
                children.extend(self.node(&child, path)?);
            }
            path.pop();
        }
        Ok(Some(ProfileSnapshotWrapper {
            id: store::new_record_id(),
            profile_id: Some(id),
            profile_wrapper_id: link.detail_wrapper_id,
            content_type: kind,
            react_to: link.react_to,
            order: link.order,
            content,
            child_snapshot_wrappers: children,
        }))
    }

    /// The links of the tree under a node, parents before their children.
    fn links(
        &self,
        kind: ProfileType,
        id: Uuid,
        node: Option<Uuid>,
        path: &mut Vec<Option<Uuid>>,
        out: &mut Vec<ProfileAssociation>,
    ) -> Result<()> {
        for link in self.children(kind, id, node)? {
            let Some((_, (detail_kind, detail_id))) = link.ends() else { continue };
            if path.len() >= MAX_DEPTH || path.contains(&link.id) {
                continue;
            }
            path.push(link.id);
            self.links(detail_kind, detail_id, link.detail_wrapper_id, path, out)?;
            path.pop();
            out.push(link);
        }
        Ok(())
    }
}

/// The node a job, action or mapping profile has in every tree (FOLIO's one wrapper
/// per such profile); a match has one per use, so none of its own.
fn own_node(reader: &Reader<'_>, kind: ProfileType, id: Uuid) -> Result<Option<Uuid>> {
    if kind == ProfileType::MatchProfile {
        return Ok(None);
    }
    if let Some(node) = links_from(reader, kind, id)?.first().and_then(|l| l.master_wrapper_id) {
        return Ok(Some(node));
    }
    Ok(links_to(reader, kind, id)?.first().and_then(|l| l.detail_wrapper_id))
}

/// A profile's tree (`GET /profileSnapshots/{id}?profileType=&jobProfileId=`). For a
/// job the tree is the job's own; under another root, `job` says which job's links
/// of a match count (without one, every job's).
pub fn snapshot(
    reader: &Reader<'_>,
    kind: ProfileType,
    id: Uuid,
    job: Option<Uuid>,
) -> Result<ProfileSnapshotWrapper> {
    let job = job.or((kind == ProfileType::JobProfile).then_some(id));
    let mut walk = Walk::new(reader, job);
    let content = walk.profile(kind, id)?.ok_or(Error::ProfileNotFound { kind, id })?;
    let mut children = Vec::new();
    let mut path = Vec::new();
    for link in walk.children(kind, id, None)? {
        children.extend(walk.node(&link, &mut path)?);
    }
    Ok(ProfileSnapshotWrapper {
        id: store::new_record_id(),
        profile_id: Some(id),
        profile_wrapper_id: own_node(reader, kind, id)?,
        content_type: kind,
        react_to: None,
        order: 0,
        content,
        child_snapshot_wrappers: children,
    })
}

/// Every link of a job's tree (for the job's rules), parents before children.
pub(crate) fn job_links(reader: &Reader<'_>, job: Uuid) -> Result<Vec<ProfileAssociation>> {
    let walk = Walk::new(reader, Some(job));
    let mut out = Vec::new();
    walk.links(ProfileType::JobProfile, job, None, &mut Vec::new(), &mut out)?;
    Ok(out)
}

/// Freezes a job's tree for an import (`POST /jobProfileSnapshots/{jobProfileId}`): it
/// is stored under the root node's id, and reads back the same however the profiles
/// change afterwards.
pub fn create_job_snapshot(writer: &mut Writer<'_>, job: Uuid) -> Result<ProfileSnapshotWrapper> {
    let tree = snapshot(writer, ProfileType::JobProfile, job, Some(job))?;
    let body = serde_json::to_string(&tree).map_err(|e| Error::Corrupt {
        record: "profile snapshot",
        id: tree.id.to_string(),
        message: e.to_string(),
    })?;
    writer.insert(&SNAPSHOTS, &tree.id.to_string(), 1, &body, &[])?;
    Ok(tree)
}

/// A frozen job tree as stored (`GET /jobProfileSnapshots/{id}`).
pub fn job_snapshot_json(reader: &Reader<'_>, id: Uuid) -> Result<String> {
    match reader.get(&SNAPSHOTS, &id.to_string())? {
        Some(row) => Ok(row.body),
        None => Err(Error::SnapshotNotFound(id)),
    }
}

/// A frozen job tree, typed (what an import started with it walks, through
/// [`crate::JobTree::from_snapshot`]).
pub fn job_snapshot(reader: &Reader<'_>, id: Uuid) -> Result<ProfileSnapshotWrapper> {
    let body = job_snapshot_json(reader, id)?;
    serde_json::from_str(&body).map_err(|e| Error::Corrupt {
        record: "profile snapshot",
        id: id.to_string(),
        message: e.to_string(),
    })
}

/// Which way [`related`] looks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Direction {
    Details,
    Masters,
}

/// A profile as a node whose children are its details or its masters, optionally of
/// one type: FOLIO's `/profileAssociations/{id}/details` and `/masters`.
pub(crate) fn related(
    reader: &Reader<'_>,
    kind: ProfileType,
    id: Uuid,
    other: Option<ProfileType>,
    direction: Direction,
) -> Result<ProfileSnapshotWrapper> {
    let content = load(reader, kind, id)?.ok_or_else(|| Error::LinkedNotFound {
        kind,
        master: direction == Direction::Details,
        ids: vec![id],
    })?;
    Ok(ProfileSnapshotWrapper {
        id,
        profile_id: None,
        profile_wrapper_id: None,
        content_type: kind,
        react_to: None,
        order: 0,
        content,
        child_snapshot_wrappers: relations(reader, kind, id, other, direction)?,
    })
}

/// A profile's direct details or masters as nodes without branches, as FOLIO lists
/// them in `childProfiles` and `parentProfiles`: the node's `id` is the profile's.
pub(crate) fn relations(
    reader: &Reader<'_>,
    kind: ProfileType,
    id: Uuid,
    other: Option<ProfileType>,
    direction: Direction,
) -> Result<Vec<ProfileSnapshotWrapper>> {
    let links = match direction {
        Direction::Details => links_from(reader, kind, id)?,
        Direction::Masters => links_to(reader, kind, id)?,
    };
    let mut walk = Walk::new(reader, None);
    let mut out = Vec::new();
    for link in links {
        let Some((master, detail)) = link.ends() else { continue };
        let ((other_kind, other_id), node) = match direction {
            Direction::Details => (detail, link.detail_wrapper_id),
            Direction::Masters => (master, link.master_wrapper_id),
        };
        if other.is_some_and(|o| o != other_kind) {
            continue;
        }
        let Some(content) = walk.profile(other_kind, other_id)? else { continue };
        out.push(ProfileSnapshotWrapper {
            id: other_id,
            profile_id: None,
            profile_wrapper_id: node,
            content_type: other_kind,
            react_to: link.react_to,
            order: link.order,
            content,
            child_snapshot_wrappers: Vec::new(),
        });
    }
    Ok(out)
}

/// Fills a profile's `parentProfiles` and `childProfiles` (`withRelations=true`).
pub(crate) fn with_relations<P: Profile>(
    reader: &Reader<'_>,
    id: Uuid,
    profile: &mut P,
) -> Result<()> {
    let parents = relations(reader, P::TYPE, id, None, Direction::Masters)?;
    let children = relations(reader, P::TYPE, id, None, Direction::Details)?;
    profile.set_relations(parents, children);
    Ok(())
}
