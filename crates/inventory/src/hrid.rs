//! HRIDs, the human-readable ids FOLIO gives instances, holdings and items (`in00000000001`),
//! and the tenant's settings for them (`/hrid-settings-storage/hrid-settings`): a prefix
//! and start number per record type, and whether numbers keep their leading zeroes.
//! Changing a start number restarts that type's counter there, as FOLIO does.

use serde::{Deserialize, Serialize};
use store::{ColumnValue, QueryField, Reader, RecordTable, Writer};
use uuid::Uuid;

use folio::record::Mode;
use folio::{Actor, Metadata};

use crate::storage::{Error, Result};

/// The record types that get HRIDs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HridKind {
    Instances,
    Holdings,
    Items,
}

impl HridKind {
    /// The counter's name; kept from before the settings existed.
    fn sequence(self) -> &'static str {
        match self {
            HridKind::Instances => "hrid_instance",
            HridKind::Holdings => "hrid_holdings",
            HridKind::Items => "hrid_item",
        }
    }
}

/// `hridSettings.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HridSettings {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Uuid>,
    pub instances: HridSetting,
    pub holdings: HridSetting,
    pub items: HridSetting,
    #[serde(default = "retain")]
    pub common_retain_leading_zeroes: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

/// One record type's prefix and first number.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HridSetting {
    #[serde(default)]
    pub prefix: Option<String>,
    #[serde(default = "one")]
    pub start_number: i64,
}

fn retain() -> bool {
    true
}

fn one() -> i64 {
    1
}

/// The one settings record's id.
const SETTINGS_ID: Uuid = Uuid::from_u128(0xa501f2a8_5b31_48b2_874d_2191e48db8cd);

/// The largest start number FOLIO allows (eleven digits).
const MAX_START: i64 = 99_999_999_999;

const TABLE: RecordTable = RecordTable {
    table: "hrid_settings",
    record_type: "hrid_settings",
    cached: false,
    columns: &[],
};

impl folio::Record for HridSettings {
    const TABLE: RecordTable = TABLE;
    const NAME: &'static str = "HRID settings";
    const QUERY: &'static [QueryField] = &[];
    folio::id_and_metadata!();
    fn columns(&self) -> Vec<ColumnValue> {
        Vec::new()
    }
}

impl Default for HridSettings {
    /// FOLIO's defaults: `in`, `ho`, `it`, each from 1, eleven digits.
    fn default() -> HridSettings {
        let setting = |prefix: &str| HridSetting { prefix: Some(prefix.into()), start_number: 1 };
        HridSettings {
            id: Some(SETTINGS_ID),
            instances: setting("in"),
            holdings: setting("ho"),
            items: setting("it"),
            common_retain_leading_zeroes: true,
            metadata: None,
        }
    }
}

impl HridSettings {
    fn of(&self, kind: HridKind) -> &HridSetting {
        match kind {
            HridKind::Instances => &self.instances,
            HridKind::Holdings => &self.holdings,
            HridKind::Items => &self.items,
        }
    }

    /// The HRID of number `n` of `kind`.
    pub fn format(&self, kind: HridKind, n: i64) -> String {
        let prefix = self.of(kind).prefix.as_deref().unwrap_or("");
        if self.common_retain_leading_zeroes {
            format!("{prefix}{n:011}")
        } else {
            format!("{prefix}{n}")
        }
    }
}

/// The tenant's settings: as stored, or FOLIO's defaults.
pub fn hrid_settings(reader: &Reader<'_>) -> Result<HridSettings> {
    Ok(folio::record::get::<HridSettings>(reader, SETTINGS_ID)?
        .map_or_else(HridSettings::default, |stored| stored.record))
}

/// Replaces the settings (`PUT`); a changed start number restarts that counter.
pub fn replace_hrid_settings(
    writer: &mut Writer<'_>,
    mut settings: HridSettings,
    actor: Actor,
) -> Result<()> {
    for (field, kind) in [
        ("instances", HridKind::Instances),
        ("holdings", HridKind::Holdings),
        ("items", HridKind::Items),
    ] {
        let start = settings.of(kind).start_number;
        if !(1..=MAX_START).contains(&start) {
            return Err(Error::invalid(
                &format!("{field}.startNumber"),
                start,
                format!("{field}.startNumber must be between 1 and {MAX_START}"),
            ));
        }
    }
    let previous = hrid_settings(writer)?;
    for kind in [HridKind::Instances, HridKind::Holdings, HridKind::Items] {
        let start = settings.of(kind).start_number;
        if start != previous.of(kind).start_number {
            writer.restart_sequence(kind.sequence(), start)?;
        }
    }
    settings.id = Some(SETTINGS_ID);
    folio::record::write(writer, &mut settings, Mode::Upsert, actor, |_, _, _| Ok::<_, Error>(()))?;
    Ok(())
}

/// The next HRID of `kind` under `settings`.
pub(crate) fn next(
    writer: &mut Writer<'_>,
    settings: &HridSettings,
    kind: HridKind,
) -> Result<String> {
    let n = writer.next_sequence(kind.sequence(), settings.of(kind).start_number)?;
    Ok(settings.format(kind, n))
}
