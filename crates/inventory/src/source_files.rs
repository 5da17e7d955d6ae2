//! Authority source files (FOLIO's mod-entities-links `/authority-source-files`): the
//! vocabularies authority records come from (LCNAF, LCSH, FAST, ...), each with the
//! prefixes of its record ids (`n`, `sh`, `fst`). A library adds its own local files,
//! which number new authority records (`POST .../{id}/hrid`).
//!
//! Not on the reference-data table (`reference.rs`): a file has several codes, each
//! unique across files, a unique base URL, a partial update (PATCH with `_version`)
//! instead of a PUT, and FOLIO's files may not be renamed or deleted.

use serde::{Deserialize, Serialize};
use store::{ColumnValue, FieldKind, Page, QueryField, Reader, RecordTable, Writer};
use uuid::Uuid;

use folio::{Actor, Metadata, Record};

use crate::storage::{AUTHORITIES, Error, Result};

const TABLE: RecordTable = RecordTable {
    table: "authority_source_files",
    record_type: "authority_source_file",
    cached: false,
    columns: &["name", "base_url", "type", "source"],
};

/// A source file as stored and answered (`authoritySourceFileDto`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SourceFile {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Uuid>,
    pub name: String,
    pub codes: Vec<String>,
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub file_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_url: Option<String>,
    /// `folio` for FOLIO's files, `local` for a library's own.
    pub source: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selectable: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hrid_management: Option<HridManagement>,
    #[serde(rename = "_version", default, skip_serializing_if = "Option::is_none")]
    pub version: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HridManagement {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_number: Option<i64>,
}

/// A new local file (`authoritySourceFilePostDto`): one code. Other properties are
/// ignored, as FOLIO's Spring module ignores them.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NewSourceFile {
    #[serde(default)]
    pub id: Option<Uuid>,
    pub name: String,
    pub code: String,
    #[serde(rename = "type", default)]
    pub file_type: Option<String>,
    #[serde(default)]
    pub base_url: Option<String>,
    #[serde(default)]
    pub selectable: Option<bool>,
    #[serde(default)]
    pub hrid_management: Option<HridManagement>,
}

/// A partial update (`authoritySourceFilePatchDto`): the fields sent change; others (a
/// whole record as read) are ignored.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SourceFilePatch {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub code: Option<String>,
    #[serde(rename = "type", default)]
    pub file_type: Option<String>,
    #[serde(default)]
    pub base_url: Option<String>,
    #[serde(default)]
    pub selectable: Option<bool>,
    #[serde(default)]
    pub hrid_management: Option<HridManagement>,
    #[serde(rename = "_version")]
    pub version: i64,
}

impl Record for SourceFile {
    const TABLE: RecordTable = TABLE;
    const NAME: &'static str = "Authority Source File";
    const QUERY: &'static [QueryField] = &[
        QueryField { index: "id", column: "id", kind: FieldKind::Text },
        QueryField { index: "name", column: "name", kind: FieldKind::Text },
        QueryField { index: "baseUrl", column: "base_url", kind: FieldKind::Text },
        QueryField { index: "type", column: "type", kind: FieldKind::Text },
        QueryField { index: "source", column: "source", kind: FieldKind::Text },
    ];

    folio::id_and_metadata!(versioned);
    fn columns(&self) -> Vec<ColumnValue> {
        vec![
            ColumnValue::Text(self.name.clone()),
            self.base_url.as_deref().into(),
            self.file_type.as_deref().into(),
            ColumnValue::Text(self.source.clone()),
        ]
    }
}

/// FOLIO's source files, with their ids.
fn seed_files() -> Vec<SourceFile> {
    serde_json::from_str(include_str!("../reference_data/authority_source_files.json"))
        .expect("authority_source_files.json is checked by tests")
}

/// Stores FOLIO's source files a tenant lacks; says how many.
pub(crate) fn seed_source_files(writer: &mut Writer<'_>) -> Result<usize> {
    let mut added = 0;
    for file in seed_files() {
        let id = file.id.unwrap_or_default();
        if writer.exists(&TABLE, &id.to_string())? {
            continue;
        }
        folio::record::create(writer, file, Actor::default())?;
        added += 1;
    }
    Ok(added)
}

pub fn list_source_files(
    reader: &Reader<'_>,
    cql: Option<&str>,
    page: Page,
) -> Result<(Vec<String>, u64)> {
    Ok(folio::record::list_json::<SourceFile>(reader, cql, page)?)
}

pub fn get_source_file(reader: &Reader<'_>, id: Uuid) -> Result<folio::Stored<SourceFile>> {
    folio::record::get(reader, id)?
        .ok_or_else(|| Error::NotFound { record_type: SourceFile::NAME, id: id.to_string() })
}

/// Adds a library's own file; its HRIDs start at `hridManagement.startNumber` (1 when
/// not given).
pub fn create_source_file(
    writer: &mut Writer<'_>,
    new: NewSourceFile,
    actor: Actor,
) -> Result<SourceFile> {
    check_code(&new.code)?;
    let start = new.hrid_management.as_ref().and_then(|h| h.start_number).unwrap_or(1);
    let file = SourceFile {
        id: new.id,
        name: new.name,
        codes: vec![new.code.clone()],
        file_type: new.file_type,
        base_url: new.base_url.as_deref().map(normalize_url),
        source: "local".into(),
        selectable: Some(new.selectable.unwrap_or(true)),
        hrid_management: Some(HridManagement { start_number: Some(start) }),
        version: None,
        metadata: None,
    };
    check_unique(writer, &file)?;
    let file = folio::record::create(writer, file, actor).map_err(|e| unique_error(e, "id"))?;
    writer.restart_sequence(&sequence(&new.code), start)?;
    Ok(file)
}

/// Changes the fields `patch` sends. FOLIO's files keep their name; a file that
/// authority records point to, or one of FOLIO's, keeps its code and HRID start.
pub fn patch_source_file(
    writer: &mut Writer<'_>,
    id: Uuid,
    patch: SourceFilePatch,
    actor: Actor,
) -> Result<()> {
    let stored = get_source_file(writer, id)?;
    let stored_version = stored.version.unwrap_or(1);
    if patch.version != stored_version {
        return Err(Error::VersionConflict {
            id: id.to_string(),
            stored: stored_version,
            sent: patch.version,
        });
    }
    let folio = stored.source == "folio";
    if folio || has_authorities(writer, id)? {
        let mut refused = Vec::new();
        if folio && let Some(name) = &patch.name {
            refused.push(("name", name.clone()));
        }
        if let Some(code) = &patch.code {
            refused.push(("code", code.clone()));
        }
        if let Some(start) = patch.hrid_management.as_ref().and_then(|h| h.start_number) {
            refused.push(("hridManagement.startNumber", start.to_string()));
        }
        if let Some((field, value)) = refused.into_iter().next() {
            return Err(Error::invalid(
                field,
                value,
                "Unable to patch. Authority source file source is FOLIO or it has authority references",
            ));
        }
    }
    let mut file = stored.record.clone();
    let old_code = file.codes.first().cloned();
    if let Some(name) = patch.name {
        file.name = name;
    }
    if let Some(code) = &patch.code {
        check_code(code)?;
        file.codes = vec![code.clone()];
    }
    if patch.file_type.is_some() {
        file.file_type = patch.file_type;
    }
    if let Some(url) = patch.base_url {
        file.base_url = Some(normalize_url(&url));
    }
    if patch.selectable.is_some() {
        file.selectable = patch.selectable;
    }
    let new_start = patch.hrid_management.as_ref().and_then(|h| h.start_number);
    if let Some(start) = new_start {
        file.hrid_management = Some(HridManagement { start_number: Some(start) });
    }
    check_unique(writer, &file)?;
    file.version = None;
    folio::record::replace(writer, id, file.clone(), actor).map_err(|e| unique_error(e, "id"))?;
    if file.source == "local" {
        let code = file.codes.first().cloned().unwrap_or_default();
        if new_start.is_some() || old_code.as_deref() != Some(code.as_str()) {
            let start = file.hrid_management.and_then(|h| h.start_number).unwrap_or(1);
            writer.restart_sequence(&sequence(&code), start)?;
        }
    }
    Ok(())
}

/// Deletes a library's own file that no authority record points to.
pub fn delete_source_file(writer: &mut Writer<'_>, id: Uuid) -> Result<()> {
    let stored = get_source_file(writer, id)?;
    if stored.source == "folio" {
        return Err(Error::invalid(
            "source",
            "folio",
            "Cannot delete Authority source file with source 'folio'",
        ));
    }
    if has_authorities(writer, id)? {
        return Err(Error::invalid(
            "id",
            id,
            "Unable to delete. Authority source file has referenced authorities",
        ));
    }
    folio::record::delete::<SourceFile>(writer, id)?;
    Ok(())
}

/// The next HRID of a local file with one code: the code and the next number.
pub fn next_source_file_hrid(writer: &mut Writer<'_>, id: Uuid) -> Result<String> {
    let file = get_source_file(writer, id)?;
    let refused = || {
        Error::invalid(
            "id",
            id,
            format!(
                "Cannot get next HRID for source file [id: {id}, cause: source file doesn't support HRID generation]"
            ),
        )
    };
    if file.source != "local" || file.codes.len() != 1 {
        return Err(refused());
    }
    let code = &file.codes[0];
    let start = file.hrid_management.as_ref().and_then(|h| h.start_number).unwrap_or(1);
    let next = writer.next_sequence(&sequence(code), start)?;
    Ok(format!("{code}{next}"))
}

fn sequence(code: &str) -> String {
    format!("authority_source_file:{code}")
}

fn has_authorities(reader: &Reader<'_>, id: Uuid) -> Result<bool> {
    let page = Page { offset: 0, limit: 0 };
    let cql = format!("sourceFileId==\"{id}\"");
    let (_, total) = reader.list(&AUTHORITIES, crate::Authority::QUERY, Some(&cql), page)?;
    Ok(total > 0)
}

/// FOLIO's rule for a prefix: letters only, 1 to 25 of them.
fn check_code(code: &str) -> Result<()> {
    if code.is_empty() || code.len() > 25 || !code.chars().all(|c| c.is_ascii_alphabetic()) {
        return Err(Error::invalid(
            "code",
            code,
            "Authority Source File prefix should be non-empty sequence of letters",
        ));
    }
    Ok(())
}

/// A base URL as FOLIO keeps it: without the scheme or `www.`, ending in `/`.
fn normalize_url(url: &str) -> String {
    let mut rest = url.trim();
    for prefix in ["https://www.", "http://www.", "https://", "http://", "www."] {
        if let Some(stripped) = rest.strip_prefix(prefix) {
            rest = stripped;
            break;
        }
    }
    if rest.ends_with('/') { rest.to_string() } else { format!("{rest}/") }
}

/// Codes are unique across files, as are names and base URLs (the table checks those
/// two; they are checked here first for FOLIO's messages).
fn check_unique(reader: &Reader<'_>, file: &SourceFile) -> Result<()> {
    let mut after = None;
    loop {
        let rows = reader.scan(&TABLE, after.as_deref(), 500)?;
        let Some(last) = rows.last() else { return Ok(()) };
        after = Some(last.id.clone());
        for row in &rows {
            let other: folio::Stored<SourceFile> = folio::Stored::from_row(row)?;
            if Some(other.id) == file.id {
                continue;
            }
            let duplicate = |field: &str, value: &str| {
                Error::invalid(
                    field,
                    value,
                    format!("Authority source file with the given '{field}' already exists."),
                )
            };
            if other.name == file.name {
                return Err(duplicate("name", &file.name));
            }
            if file.base_url.is_some() && other.base_url == file.base_url {
                return Err(duplicate("baseUrl", file.base_url.as_deref().unwrap_or_default()));
            }
            if let Some(code) = file.codes.iter().find(|c| other.codes.contains(c)) {
                return Err(duplicate("code", code));
            }
        }
    }
}

fn unique_error(e: folio::record::Error, field: &str) -> Error {
    match e {
        folio::record::Error::Store(store::Error::DuplicateId { id, .. }) => {
            Error::invalid(field, id, "Authority Source File with the given 'id' already exists.")
        }
        e => e.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folios_files_load_and_are_distinct() {
        let files = seed_files();
        assert_eq!(files.len(), 12);
        let mut codes: Vec<&str> =
            files.iter().flat_map(|f| f.codes.iter().map(String::as_str)).collect();
        let n = codes.len();
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes.len(), n, "codes are unique across files");
        assert!(files.iter().all(|f| f.id.is_some() && f.source == "folio"));
    }

    #[test]
    fn base_urls_lose_their_scheme_and_end_in_a_slash() {
        assert_eq!(normalize_url("https://www.example.org/auth"), "example.org/auth/");
        assert_eq!(normalize_url("http://id.loc.gov/x/"), "id.loc.gov/x/");
        assert_eq!(normalize_url("www.example.org"), "example.org/");
    }
}
