//! FOLIO's OAI-PMH configuration (`/oai-pmh/configuration-settings`): entries named
//! `behavior`, `general` and `technical`, each a `configValue` object of strings. An
//! entry the tenant has not stored reads as FOLIO's default, under a fixed id, so a
//! client that GETs one and PUTs it back stores it.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use store::{ColumnValue, Reader, RecordTable, Writer};
use uuid::Uuid;

use crate::{Error, Repository, Result};

pub(crate) const SETTINGS: RecordTable = RecordTable {
    table: "oai_settings",
    record_type: "",
    cached: false,
    columns: &["config_name"],
};

/// One configuration entry, in FOLIO's shape.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Setting {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Uuid>,
    pub config_name: String,
    pub config_value: Map<String, Value>,
}

/// FOLIO's defaults, under fixed ids.
fn defaults() -> Vec<Setting> {
    let entry = |n: u128, name: &str, value: Value| Setting {
        id: Some(Uuid::from_u128(0x0a1e_5e77_0000_4000_8000_0000_0000_0000 + n)),
        config_name: name.to_string(),
        config_value: value.as_object().cloned().unwrap_or_default(),
    };
    vec![
        entry(
            1,
            "behavior",
            json!({
                "deletedRecordsSupport": "persistent",
                "suppressedRecordsProcessing": "true",
                "errorsProcessing": "200",
                "recordsSource": "Source record storage"
            }),
        ),
        entry(
            2,
            "general",
            json!({
                "enableOaiService": "true",
                "repositoryName": "FOLIO_OAI_Repository",
                "baseUrl": "",
                "administratorEmail": "oai-pmh@folio.org",
                "timeGranularity": "YYYY-MM-DDThh:mm:ssZ"
            }),
        ),
        entry(
            3,
            "technical",
            json!({"maxRecordsPerResponse": "100", "enableValidation": "false", "formattedOutput": "false"}),
        ),
    ]
}

fn stored(r: &Reader<'_>) -> Result<Vec<Setting>> {
    crate::all_rows(r, &SETTINGS)
}

/// Every entry (the defaults where none is stored), or those named `name`.
pub fn list(r: &Reader<'_>, name: Option<&str>) -> Result<Vec<Setting>> {
    let mut all = stored(r)?;
    for default in defaults() {
        if !all.iter().any(|s| s.config_name == default.config_name) {
            all.push(default);
        }
    }
    all.retain(|s| name.is_none_or(|n| s.config_name == n));
    Ok(all)
}

/// One entry by id.
pub fn get(r: &Reader<'_>, id: Uuid) -> Result<Setting> {
    list(r, None)?.into_iter().find(|s| s.id == Some(id)).ok_or(Error::NotFound(id))
}

/// Stores a new entry; a name already stored is refused.
pub fn create(w: &mut Writer<'_>, mut setting: Setting) -> Result<Setting> {
    check(&setting)?;
    if stored(w)?.iter().any(|s| s.config_name == setting.config_name) {
        return Err(Error::Invalid {
            field: "configName".into(),
            message: format!(
                "Configuration setting with name '{}' already exists",
                setting.config_name
            ),
        });
    }
    let id = *setting.id.get_or_insert_with(store::new_record_id);
    save(w, id, &setting)?;
    Ok(setting)
}

/// Replaces entry `id` (a default's id stores it).
pub fn replace(w: &mut Writer<'_>, id: Uuid, mut setting: Setting) -> Result<()> {
    check(&setting)?;
    let known = get(w, id)?;
    if known.config_name != setting.config_name {
        return Err(Error::Invalid {
            field: "configName".into(),
            message: format!("Configuration setting '{id}' is named '{}'", known.config_name),
        });
    }
    setting.id = Some(id);
    save(w, id, &setting)
}

/// Deletes a stored entry: its defaults apply again.
pub fn delete(w: &mut Writer<'_>, id: Uuid) -> Result<()> {
    if w.delete(&SETTINGS, &id.to_string())? { Ok(()) } else { Err(Error::NotFound(id)) }
}

fn save(w: &mut Writer<'_>, id: Uuid, setting: &Setting) -> Result<()> {
    let body = serde_json::to_string(setting).map_err(|e| Error::Corrupt(e.to_string()))?;
    w.upsert(
        &SETTINGS,
        &id.to_string(),
        1,
        &body,
        &[ColumnValue::Text(setting.config_name.clone())],
    )?;
    Ok(())
}

/// The values Quire acts on, checked as FOLIO's settings page checks them.
fn check(setting: &Setting) -> Result<()> {
    let one_of = |key: &str, allowed: &[&str]| -> Result<()> {
        match setting.config_value.get(key) {
            None => Ok(()),
            Some(Value::String(v)) if allowed.contains(&v.as_str()) => Ok(()),
            Some(v) => Err(Error::Invalid {
                field: format!("configValue.{key}"),
                message: format!("'{key}' must be one of {}, not {v}", allowed.join(", ")),
            }),
        }
    };
    one_of("deletedRecordsSupport", &["persistent", "transient", "no"])?;
    one_of("suppressedRecordsProcessing", &["true", "false"])?;
    one_of("errorsProcessing", &["200", "500"])?;
    one_of("enableOaiService", &["true", "false"])?;
    if let Some(v) = setting.config_value.get("maxRecordsPerResponse") {
        let n = v.as_str().and_then(|s| s.parse::<u32>().ok()).or(v.as_u64().map(|n| n as u32));
        if !n.is_some_and(|n| (1..=500).contains(&n)) {
            return Err(Error::Invalid {
                field: "configValue.maxRecordsPerResponse".into(),
                message: format!("'maxRecordsPerResponse' must be a number from 1 to 500, not {v}"),
            });
        }
    }
    if let Some(Value::String(url)) = setting.config_value.get("baseUrl")
        && !url.is_empty()
        && !(url.starts_with("http://") || url.starts_with("https://"))
    {
        return Err(Error::Invalid {
            field: "configValue.baseUrl".into(),
            message: format!("'baseUrl' must be an http or https URL, not '{url}'"),
        });
    }
    Ok(())
}

/// The repository as the settings describe it; `base_url` where they name none.
pub fn repository(r: &Reader<'_>, base_url: &str) -> Result<Repository> {
    let settings = list(r, None)?;
    let value = |name: &str, key: &str| -> Option<String> {
        let v = settings.iter().find(|s| s.config_name == name)?.config_value.get(key)?;
        match v {
            Value::String(s) => Some(s.clone()),
            other => Some(other.to_string()),
        }
    };
    let configured = value("general", "baseUrl").filter(|u| !u.is_empty());
    let mut repository = Repository::new(configured.as_deref().unwrap_or(base_url));
    if let Some(name) = value("general", "repositoryName") {
        repository.name = name;
    }
    if let Some(emails) = value("general", "administratorEmail") {
        let emails: Vec<String> = emails
            .split(',')
            .map(str::trim)
            .filter(|e| !e.is_empty())
            .map(str::to_string)
            .collect();
        if !emails.is_empty() {
            repository.admin_emails = emails;
        }
    }
    if let Some(n) = value("technical", "maxRecordsPerResponse").and_then(|n| n.parse().ok()) {
        repository.page_size = n;
    }
    repository.include_suppressed =
        value("behavior", "suppressedRecordsProcessing").as_deref() != Some("false");
    repository.errors_as_200 = value("behavior", "errorsProcessing").as_deref() != Some("500");
    repository.keeps_deleted = value("behavior", "deletedRecordsSupport").as_deref() != Some("no");
    repository.enabled = value("general", "enableOaiService").as_deref() != Some("false");
    Ok(repository)
}
