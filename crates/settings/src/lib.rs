//! Tenant settings: FOLIO mod-configuration's entries (`/configurations/entries`), the
//! key/value store FOLIO's UI reads on every desk page (check-out settings, locale and
//! time zone, ...).
//!
//! What it owns: the entries table (declared as a migration), the entry model and its
//! storage verbs. An entry is unique by module, config name, code and user, as in
//! FOLIO. What it does not own: HTTP (`server` maps [`Error`]), the meaning of any
//! setting (each reader interprets its own).

use folio::{Actor, Metadata, Record};
use serde::{Deserialize, Serialize};
use store::{ColumnValue, FieldKind, Migration, Page, QueryField, Reader, RecordTable, Writer};
use uuid::Uuid;

/// The settings component's schema.
pub const MIGRATIONS: store::Component = store::Component {
    name: "settings",
    migrations: &[Migration {
        version: 1,
        description: "configuration entries",
        sql: include_str!("../migrations/0001_config_entries.sql"),
    }],
};

const ENTRIES: RecordTable = RecordTable {
    table: "config_entries",
    record_type: "config_entry",
    cached: true,
    columns: &["module", "config_name", "code", "user_id", "enabled"],
};

/// The CQL indexes `/configurations/entries` answers.
const QUERY: &[QueryField] = &[
    QueryField { index: "id", column: "id", kind: FieldKind::Text },
    QueryField { index: "module", column: "module", kind: FieldKind::Text },
    QueryField { index: "configName", column: "config_name", kind: FieldKind::Text },
    QueryField { index: "code", column: "code", kind: FieldKind::Text },
    QueryField { index: "userId", column: "user_id", kind: FieldKind::Text },
    QueryField { index: "enabled", column: "enabled", kind: FieldKind::Text },
];

/// One configuration entry (mod-configuration's `kv_configuration.json`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConfigEntry {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Uuid>,
    pub module: String,
    pub config_name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_id: Option<Uuid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

impl Record for ConfigEntry {
    const TABLE: RecordTable = ENTRIES;
    const NAME: &'static str = "configuration entry";
    const QUERY: &'static [QueryField] = QUERY;

    folio::id_and_metadata!();
    fn columns(&self) -> Vec<ColumnValue> {
        vec![
            ColumnValue::Text(self.module.clone()),
            ColumnValue::Text(self.config_name.clone()),
            ColumnValue::Text(self.code.clone().unwrap_or_default()),
            ColumnValue::Text(self.user_id.map(|u| u.to_string()).unwrap_or_default()),
            self.enabled.map_or(ColumnValue::Null, |e| ColumnValue::Text(e.to_string())),
        ]
    }
}

impl ConfigEntry {
    fn key(&self) -> String {
        format!(
            "module {}, configName {}, code {}",
            self.module,
            self.config_name,
            self.code.as_deref().unwrap_or("(none)")
        )
    }
}

/// A settings error.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("Configuration entry not found: {0}")]
    NotFound(Uuid),
    /// Another entry has the same module, config name, code and user.
    #[error("A configuration entry with {0} already exists")]
    Duplicate(String),
    #[error("The id in the body ({body}) does not match the id in the path ({path})")]
    IdMismatch { body: Uuid, path: Uuid },
    #[error(transparent)]
    Decode(#[from] folio::DecodeError),
    #[error(transparent)]
    Store(#[from] store::Error),
    #[error("corrupt configuration entry {id}: {message}")]
    Corrupt { id: String, message: String },
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Reads a request body into an entry, with FOLIO's 400 (malformed) and 422 (a missing
/// `module` or `configName`) distinctions.
pub fn decode(body: &[u8]) -> Result<ConfigEntry> {
    Ok(folio::decode(body)?)
}

/// Stores a new entry; assigns an id when it has none.
pub fn create(writer: &mut Writer<'_>, entry: ConfigEntry, actor: Actor) -> Result<ConfigEntry> {
    let key = entry.key();
    folio::record::create(writer, entry, actor).map_err(|e| error(e, key))
}

/// Replaces a stored entry (PUT).
pub fn replace(
    writer: &mut Writer<'_>,
    id: Uuid,
    entry: ConfigEntry,
    actor: Actor,
) -> Result<ConfigEntry> {
    let key = entry.key();
    folio::record::replace(writer, id, entry, actor).map_err(|e| error(e, key))
}

pub fn delete(writer: &mut Writer<'_>, id: Uuid) -> Result<()> {
    folio::record::delete::<ConfigEntry>(writer, id).map_err(|e| error(e, String::new()))
}

pub fn get(reader: &Reader<'_>, id: Uuid) -> Result<Option<folio::Stored<ConfigEntry>>> {
    folio::record::get(reader, id).map_err(|e| error(e, String::new()))
}

/// The stored JSON of one entry.
pub fn get_json(reader: &Reader<'_>, id: Uuid) -> Result<String> {
    folio::record::get_json::<ConfigEntry>(reader, id).map_err(|e| error(e, String::new()))
}

/// Entries matching a CQL query (module, configName, code, userId, enabled, id), and
/// the total.
pub fn list_json(reader: &Reader<'_>, cql: Option<&str>, page: Page) -> Result<(Vec<String>, u64)> {
    folio::record::list_json::<ConfigEntry>(reader, cql, page).map_err(|e| error(e, String::new()))
}

/// A verb's failure in mod-configuration's words; `key` names the entry for a taken one.
fn error(e: folio::record::Error, key: String) -> Error {
    match e {
        folio::record::Error::NotFound { id, .. } => Error::NotFound(id),
        folio::record::Error::IdMismatch { body, path } => Error::IdMismatch { body, path },
        folio::record::Error::Store(store::Error::Unique { .. }) => Error::Duplicate(key),
        folio::record::Error::Store(e) => e.into(),
        folio::record::Error::Corrupt { id, message, .. } => Error::Corrupt { id, message },
        // Entries carry no `_version`: a conflict means a fault.
        e @ folio::record::Error::VersionConflict { id, .. } => {
            Error::Corrupt { id: id.to_string(), message: e.to_string() }
        }
    }
}

/// The tenant's time zone as FOLIO keeps it: the `timezone` of the `ORG` /
/// `localeSettings` entry's JSON value (`{"locale":"en-US","timezone":"Europe/Berlin"}`).
/// `None` when there is no such entry or it names no zone.
pub fn time_zone(reader: &Reader<'_>) -> Result<Option<String>> {
    let found = reader.find_where(
        &ENTRIES,
        &[("module", "ORG"), ("config_name", "localeSettings"), ("code", ""), ("user_id", "")],
    )?;
    let Some(stored) = found.first() else { return Ok(None) };
    let entry: ConfigEntry =
        folio::record::parse(&stored.body, &stored.id).map_err(|e| error(e, String::new()))?;
    let value: Option<serde_json::Value> =
        entry.value.as_deref().and_then(|v| serde_json::from_str(v).ok());
    Ok(value.and_then(|v| v["timezone"].as_str().map(str::to_string)).filter(|z| !z.is_empty()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tenant() -> (tempfile::TempDir, std::sync::Arc<store::Tenant>) {
        let dir = tempfile::tempdir().unwrap();
        let store =
            store::Store::open(dir.path(), store::testing::options(), &[MIGRATIONS]).unwrap();
        let (tenant, _) = store.create_tenant("t").unwrap();
        (dir, tenant)
    }

    fn entry(json: &str) -> ConfigEntry {
        decode(json.as_bytes()).unwrap()
    }

    #[test]
    fn unique_by_module_name_code_and_user_absent_values_equal() {
        let (_dir, tenant) = tenant();
        let settings = r#"{"module":"CHECKOUT","configName":"other_settings","value":"{}"}"#;
        tenant.write(|w| create(w, entry(settings), Actor::default())).unwrap();
        let again = tenant.write(|w| create(w, entry(settings), Actor::default()));
        assert!(matches!(again, Err(Error::Duplicate(_))), "{again:?}");
        // Another code is another entry.
        let coded = r#"{"module":"CHECKOUT","configName":"other_settings","code":"x"}"#;
        tenant.write(|w| create(w, entry(coded), Actor::default())).unwrap();
        let (found, total) = tenant
            .read(|r| {
                list_json(
                    r,
                    Some("(module==CHECKOUT and configName==other_settings)"),
                    Page { offset: 0, limit: 10 },
                )
            })
            .unwrap();
        assert_eq!((found.len(), total), (2, 2));
    }

    #[test]
    fn time_zone_comes_from_the_org_locale_settings() {
        let (_dir, tenant) = tenant();
        assert_eq!(tenant.read(time_zone).unwrap(), None);
        let locale = r#"{"module":"ORG","configName":"localeSettings","enabled":true,
            "value":"{\"locale\":\"de-DE\",\"timezone\":\"Europe/Berlin\",\"currency\":\"EUR\"}"}"#;
        tenant.write(|w| create(w, entry(locale), Actor::default())).unwrap();
        assert_eq!(tenant.read(time_zone).unwrap().as_deref(), Some("Europe/Berlin"));
    }

    #[test]
    fn replace_keeps_creation_metadata_and_checks_ids() {
        let (_dir, tenant) = tenant();
        let created = tenant
            .write(|w| {
                create(
                    w,
                    entry(r#"{"module":"ORG","configName":"localeSettings"}"#),
                    Actor::default(),
                )
            })
            .unwrap();
        let id = created.id.unwrap();
        let mut changed = created.clone();
        changed.value = Some(r#"{"timezone":"Europe/Berlin"}"#.into());
        let replaced = tenant.write(|w| replace(w, id, changed, Actor::default())).unwrap();
        assert_eq!(
            replaced.metadata.as_ref().unwrap().created_date,
            created.metadata.as_ref().unwrap().created_date
        );
        let other = Uuid::new_v4();
        let wrong = tenant.write(|w| replace(w, other, created.clone(), Actor::default()));
        assert!(matches!(wrong, Err(Error::IdMismatch { .. })));
        let missing = entry(r#"{"module":"ORG","configName":"x"}"#);
        let absent = tenant.write(|w| replace(w, other, missing, Actor::default()));
        assert!(matches!(absent, Err(Error::NotFound(_))));
        tenant.write(|w| delete(w, id)).unwrap();
        assert!(tenant.read(|r| get(r, id)).unwrap().is_none());
        let bad = decode(br#"{"module":"ORG"}"#);
        assert!(matches!(bad, Err(Error::Decode(folio::DecodeError::Invalid { .. }))), "{bad:?}");
    }
}
