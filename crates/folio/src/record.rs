//! The storage verbs every FOLIO record type shares, over `store`: create (an id assigned
//! when the body has none, metadata stamped), replace (the body's id must be the path's,
//! creation metadata kept, `_version` checked), delete, get, get as stored JSON, and list
//! with the storage CQL subset. A record type is a declaration ([`Record`]); what a crate
//! adds (reference checks, derived fields, HRIDs, its own words for a taken name) it does
//! in the hook [`write`] takes, or around these verbs.
//!
//! Unique-index violations come back as [`Error::Store`] holding `store::Error::Unique`
//! or `DuplicateId`, so the owning crate words them as its FOLIO module does.

use serde::{Serialize, de::DeserializeOwned};
use store::{ColumnValue, Page, QueryField, Reader, RecordTable, Writer};
use uuid::Uuid;

use crate::{Actor, Metadata, stamp};

/// A FOLIO record type stored as JSON in one table, with extracted columns.
pub trait Record: Serialize + DeserializeOwned {
    const TABLE: RecordTable;
    /// How messages name it: "loan policy".
    const NAME: &'static str;
    /// The CQL indexes its storage list endpoint answers.
    const QUERY: &'static [QueryField];
    /// Whether a PUT of a missing record creates it, as FOLIO's storage does for some
    /// types (loans, requests).
    const PUT_CREATES: bool = false;
    /// Top-level properties FOLIO marks read-only for the type: what a GET of its
    /// business view embeds and a client may PUT back. [`decode`] drops them. Models that
    /// refuse unknown properties drop theirs at parse time instead ([`crate::decode`]'s
    /// callers declare them as ignored fields), which costs nothing on a hot path.
    const READ_ONLY: &'static [&'static str] = &[];

    fn id(&self) -> Option<Uuid>;
    fn set_id(&mut self, id: Uuid);
    fn metadata(&self) -> Option<&Metadata>;
    fn set_metadata(&mut self, metadata: Metadata);
    /// The values of `TABLE`'s extracted columns, in its order.
    fn columns(&self) -> Vec<ColumnValue>;

    /// `_version`, for the types whose writes FOLIO locks optimistically: a write that
    /// sends one must send the stored one. Types without it keep these defaults.
    fn version(&self) -> Option<i64> {
        None
    }
    fn set_version(&mut self, _version: i64) {}
    /// Forgets the `_version` a body sent: FOLIO's `-unsafe` batch writes skip
    /// optimistic locking.
    fn clear_version(&mut self) {}
}

/// The accessors of [`Record`] for a type with FOLIO's usual fields, `id: Option<Uuid>`
/// and `metadata: Option<Metadata>`: write `folio::id_and_metadata!();` in the `impl`, or
/// `folio::id_and_metadata!(versioned);` for a type that also has `version: Option<i64>`
/// (FOLIO's `_version`).
#[macro_export]
macro_rules! id_and_metadata {
    (versioned) => {
        $crate::id_and_metadata!();
        fn version(&self) -> Option<i64> {
            self.version
        }
        fn set_version(&mut self, version: i64) {
            self.version = Some(version);
        }
        fn clear_version(&mut self) {
            self.version = None;
        }
    };
    () => {
        fn id(&self) -> Option<uuid::Uuid> {
            self.id
        }
        fn set_id(&mut self, id: uuid::Uuid) {
            self.id = Some(id);
        }
        fn metadata(&self) -> Option<&$crate::Metadata> {
            self.metadata.as_ref()
        }
        fn set_metadata(&mut self, metadata: $crate::Metadata) {
            self.metadata = Some(metadata);
        }
    };
}

/// Decodes a request body into a record (FOLIO's 400/422 split, as [`crate::decode`]),
/// dropping the type's [`Record::READ_ONLY`] properties first, as FOLIO's storage
/// modules do: a read-only property never fails a write.
pub fn decode<R: Record>(body: &[u8]) -> Result<R, crate::DecodeError> {
    if R::READ_ONLY.is_empty() {
        return crate::decode(body);
    }
    crate::decode_without(body, R::READ_ONLY)
}

/// What a verb can meet; the owning crate words each for its FOLIO module.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{record} not found: {id}")]
    NotFound { record: &'static str, id: Uuid },
    /// A PUT whose body names another record than its path.
    #[error("The id in the body ({body}) does not match the id in the path ({path})")]
    IdMismatch { body: Uuid, path: Uuid },
    /// The `_version` sent is not the stored one (FOLIO's optimistic locking).
    #[error(
        "Cannot update record {id} because it has been changed (optimistic locking): Stored _version is {stored}, _version of request is {sent}"
    )]
    VersionConflict { id: Uuid, stored: i64, sent: i64 },
    #[error(transparent)]
    Store(#[from] store::Error),
    /// A stored body that does not read back as its type.
    #[error("corrupt {record} {id}: {message}")]
    Corrupt { record: &'static str, id: String, message: String },
}

/// The verbs' result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// How a [`write`] treats a stored record with the same id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// POST: the id must be new.
    Create,
    /// PUT: the record must exist, unless the type says a PUT creates.
    Replace,
    /// Batch upsert: either.
    Upsert,
}

/// What a [`write`] did, and to which record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Written {
    pub id: Uuid,
    /// Whether it replaced a stored record (else it created one).
    pub replaced: bool,
}

/// The one write every verb of every record type comes to: assigns an id when the record
/// has none, checks `_version` against the stored record, stamps metadata (keeping the
/// creation half), calls `prepare` with the record as stored before (the owning crate's
/// checks and derived fields), then writes the body and its columns. The record is left
/// as stored. A unique-index violation comes back as [`Error::Store`], for the caller to
/// word with the record still at hand.
pub fn write<R: Record, E: From<Error>>(
    writer: &mut Writer<'_>,
    record: &mut R,
    mode: Mode,
    actor: Actor,
    prepare: impl FnOnce(&mut Writer<'_>, &mut R, Option<&R>) -> Result<(), E>,
) -> Result<Written, E> {
    let id = match record.id() {
        Some(id) => id,
        None => {
            let id = store::new_record_id();
            record.set_id(id);
            id
        }
    };
    let id_text = id.to_string();
    let existing = match mode {
        Mode::Create => None,
        Mode::Replace | Mode::Upsert => {
            writer.get_with_columns(&R::TABLE, &id_text).map_err(Error::from)?
        }
    };
    if mode == Mode::Replace && existing.is_none() && !R::PUT_CREATES {
        return Err(Error::NotFound { record: R::NAME, id }.into());
    }
    let previous = match existing {
        Some((stored, columns)) => {
            if let Some(sent) = record.version()
                && sent != stored.version
            {
                return Err(Error::VersionConflict { id, stored: stored.version, sent }.into());
            }
            Some((parse::<R>(&stored.body, &id_text)?, stored.version, columns))
        }
        None => None,
    };
    record.set_metadata(stamp(previous.as_ref().and_then(|(p, ..)| p.metadata()), actor));
    let version = previous.as_ref().map_or(1, |(_, version, _)| version + 1);
    record.set_version(version);
    prepare(writer, record, previous.as_ref().map(|(p, ..)| p))?;
    let body = to_json(record)?;
    let columns = record.columns();
    match &previous {
        Some((_, _, stored_columns)) => {
            writer
                .update_changed(&R::TABLE, (&id_text, version, &body), &columns, stored_columns)
                .map_err(Error::from)?;
            Ok(Written { id, replaced: true })
        }
        None => {
            writer.insert(&R::TABLE, &id_text, version, &body, &columns).map_err(Error::from)?;
            Ok(Written { id, replaced: false })
        }
    }
}

/// Stores a new record; assigns an id when it has none.
pub fn create<R: Record>(writer: &mut Writer<'_>, mut record: R, actor: Actor) -> Result<R> {
    write(writer, &mut record, Mode::Create, actor, |_, _, _| Ok::<_, Error>(()))?;
    Ok(record)
}

/// Checks a PUT's body against its path and gives the record the path's id.
pub fn claim_id<R: Record>(record: &mut R, id: Uuid) -> Result<()> {
    match record.id() {
        Some(body) if body != id => Err(Error::IdMismatch { body, path: id }),
        _ => {
            record.set_id(id);
            Ok(())
        }
    }
}

/// Replaces a stored record (FOLIO's PUT): the body's id, if any, must be the path's;
/// creation metadata is kept. A missing record is created where the type says so.
pub fn replace<R: Record>(
    writer: &mut Writer<'_>,
    id: Uuid,
    mut record: R,
    actor: Actor,
) -> Result<R> {
    claim_id(&mut record, id)?;
    write(writer, &mut record, Mode::Replace, actor, |_, _, _| Ok::<_, Error>(()))?;
    Ok(record)
}

/// Writes a record as it is (metadata already set) over the stored one, or anew. Only the
/// columns that changed are rewritten, so the others keep their index entries.
pub fn save<R: Record>(writer: &mut Writer<'_>, record: &R) -> Result<()> {
    let id = record.id().ok_or(Error::Corrupt {
        record: R::NAME,
        id: String::new(),
        message: "a record to save has no id".to_string(),
    })?;
    let id_text = id.to_string();
    let body = to_json(record)?;
    let columns = record.columns();
    match writer.version_and_columns(&R::TABLE, &id_text)? {
        Some((version, previous)) => {
            writer.update_changed(
                &R::TABLE,
                (&id_text, version + 1, &body),
                &columns,
                &previous,
            )?;
        }
        None => writer.insert(&R::TABLE, &id_text, 1, &body, &columns)?,
    }
    Ok(())
}

/// Stamps a record the verbs of its crate changed, and saves it.
pub fn update<R: Record>(writer: &mut Writer<'_>, record: &mut R, actor: Actor) -> Result<()> {
    let metadata = stamp(record.metadata(), actor);
    record.set_metadata(metadata);
    save(writer, record)
}

/// Changes a record this transaction read, as `change` says, stamps its metadata and
/// writes it back: what [`update`] does without reading the record's version and
/// columns again (a round trip on PostgreSQL), as they were read with it. Only the
/// columns that changed are rewritten. For the desk, whose rules read a loan or an item
/// under the tenant's lock and then change it; nothing else can write it meanwhile.
pub fn update_read<R: Record + Clone>(
    writer: &mut Writer<'_>,
    record: &mut R,
    actor: Actor,
    change: impl FnOnce(&mut R),
) -> Result<()> {
    let read = record.clone();
    let id = read.id().ok_or(Error::Corrupt {
        record: R::NAME,
        id: String::new(),
        message: "a record to save has no id".to_string(),
    })?;
    change(record);
    record.set_metadata(stamp(record.metadata(), actor));
    let id_text = id.to_string();
    let previous = read.columns();
    let found = match read.version() {
        // A record that carries its version has the row's (`write` sets both).
        Some(version) => {
            record.set_version(version + 1);
            let body = to_json(record)?;
            let row = (id_text.as_str(), version + 1, body.as_str());
            writer.update_changed(&R::TABLE, row, &record.columns(), &previous)?
        }
        None => {
            let body = to_json(record)?;
            writer.update_read(&R::TABLE, (&id_text, &body), &record.columns(), &previous)?
        }
    };
    if found { Ok(()) } else { Err(Error::NotFound { record: R::NAME, id }) }
}

/// Deletes a record.
pub fn delete<R: Record>(writer: &mut Writer<'_>, id: Uuid) -> Result<()> {
    if writer.delete(&R::TABLE, &id.to_string())? {
        Ok(())
    } else {
        Err(Error::NotFound { record: R::NAME, id })
    }
}

/// A record as read from its table. Its id is the row's, so it is a [`Uuid`], not the
/// body's `Option`: code that holds a stored record never asks whether it has an id. It
/// reads as the record (`Deref`); `id` names the row's.
#[derive(Debug, Clone, PartialEq)]
pub struct Stored<R> {
    pub id: Uuid,
    pub record: R,
}

impl<R: Record> Stored<R> {
    /// Reads a stored row back as its type.
    pub fn from_row(row: &store::StoredRecord) -> Result<Stored<R>> {
        let id = Uuid::parse_str(&row.id).map_err(|e| Error::Corrupt {
            record: R::NAME,
            id: row.id.clone(),
            message: e.to_string(),
        })?;
        Ok(Stored { id, record: parse(&row.body, &row.id)? })
    }
}

/// A stored record serialises as the record: its body carries the same id.
impl<R: Serialize> Serialize for Stored<R> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.record.serialize(serializer)
    }
}

impl<R> std::ops::Deref for Stored<R> {
    type Target = R;
    fn deref(&self) -> &R {
        &self.record
    }
}

impl<R> std::ops::DerefMut for Stored<R> {
    fn deref_mut(&mut self) -> &mut R {
        &mut self.record
    }
}

/// The record with this id, typed.
pub fn get<R: Record>(reader: &Reader<'_>, id: Uuid) -> Result<Option<Stored<R>>> {
    let row = reader.get(&R::TABLE, &id.to_string())?;
    row.map(|row| parse(&row.body, &row.id).map(|record| Stored { id, record })).transpose()
}

/// The stored JSON of a record (what a GET answers, with no JSON work).
pub fn get_json<R: Record>(reader: &Reader<'_>, id: Uuid) -> Result<String> {
    match reader.get(&R::TABLE, &id.to_string())? {
        Some(stored) => Ok(stored.body),
        None => Err(Error::NotFound { record: R::NAME, id }),
    }
}

/// One page of records matching a CQL query, as stored JSON, and the exact total.
pub fn list_json<R: Record>(
    reader: &Reader<'_>,
    cql: Option<&str>,
    page: Page,
) -> Result<(Vec<String>, u64)> {
    let (records, total) = reader.list(&R::TABLE, R::QUERY, cql, page)?;
    Ok((records.into_iter().map(|r| r.body).collect(), total))
}

/// Reads a stored body back as its type.
pub fn parse<R: Record>(body: &str, id: &str) -> Result<R> {
    serde_json::from_str(body).map_err(|e| Error::Corrupt {
        record: R::NAME,
        id: id.to_string(),
        message: e.to_string(),
    })
}

fn to_json<R: Record>(record: &R) -> Result<String> {
    serde_json::to_string(record).map_err(|e| Error::Corrupt {
        record: R::NAME,
        id: record.id().map(|id| id.to_string()).unwrap_or_default(),
        message: e.to_string(),
    })
}
