//! The file extensions a tenant's import takes (mod-data-import's `/data-import/fileExtensions`):
//! which data type each names and which are blocked. FOLIO's web client reads them before
//! an upload, to refuse a blocked file and offer the profiles of its data type. Every
//! tenant starts with FOLIO's defaults, under their ids ([`seed`]); `restore` puts them
//! back.

use serde::{Deserialize, Serialize};
use store::{ColumnValue, FieldKind, QueryField, RecordTable, Writer};
use uuid::Uuid;

use folio::{Actor, Metadata, Record};

/// One file extension.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FileExtension {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Uuid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub extension: String,
    #[serde(default)]
    pub data_types: Vec<String>,
    pub import_blocked: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_info: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

impl Record for FileExtension {
    const TABLE: RecordTable = RecordTable {
        table: "import_file_extensions",
        record_type: "import_file_extension",
        cached: false,
        columns: &["extension", "import_blocked"],
    };
    const NAME: &'static str = "File extension";
    const QUERY: &'static [QueryField] = &[
        QueryField { index: "id", column: "id", kind: FieldKind::Text },
        QueryField { index: "extension", column: "extension", kind: FieldKind::Text },
        QueryField { index: "importBlocked", column: "import_blocked", kind: FieldKind::Bool },
    ];
    folio::id_and_metadata!();
    fn columns(&self) -> Vec<ColumnValue> {
        vec![
            ColumnValue::Text(self.extension.clone()),
            ColumnValue::Int(i64::from(self.import_blocked)),
        ]
    }
}

/// The data types an extension may name: what FOLIO's import reads.
pub const DATA_TYPES: [&str; 2] = ["MARC", "EDIFACT"];

/// FOLIO's default extensions: id, extension, data type (none: blocked).
const DEFAULTS: [(Uuid, &str, Option<&str>); 13] = [
    (Uuid::from_u128(0x5cf7a0e5_f359_43f5_8c96_e5df74131183), ".dat", Some("MARC")),
    (Uuid::from_u128(0xebb05fe7_45d5_4eab_80cd_587bda42c7ca), ".edi", Some("EDIFACT")),
    (Uuid::from_u128(0x8d3a66b7_3a88_4f59_9d83_a50b020ac60a), ".gif", None),
    (Uuid::from_u128(0xf340c632_a8b0_4d07_9c2f_b913e82d23d5), ".inv", Some("EDIFACT")),
    (Uuid::from_u128(0xe6747033_7a8f_45a8_beba_21468dd554c7), ".jpg", None),
    (Uuid::from_u128(0x1df36889_4d3a_482e_a8c8_9c67b8245feb), ".marc", Some("MARC")),
    (Uuid::from_u128(0xf445092c_94b8_408a_a9f1_5edd8b5919c9), ".mrc", Some("MARC")),
    (Uuid::from_u128(0x0001886d_679b_4167_bcf6_9ba640929a8f), ".mrk", None),
    (Uuid::from_u128(0x8ffe5abc_a532_48cb_ab0e_827ea980154c), ".ord", Some("MARC")),
    (Uuid::from_u128(0x9dff36d2_cb05_4483_80bc_40dbb57888e6), ".pdf", None),
    (Uuid::from_u128(0x756800be_ec03_47b6_ace3_e62d1bd6c5dd), ".png", None),
    (Uuid::from_u128(0x6cf5568b_4d37_4d35_9116_e8a52120779d), ".xml", Some("MARC")),
    (Uuid::from_u128(0x8d15a305_5bf8_497f_b2ff_6cffda5f13cf), ".zip", None),
];

/// Checks a body: an extension starting with a dot, known data types, and none on a
/// blocked one. A failure names the field and says what is wrong.
pub fn check(extension: &FileExtension) -> Result<(), (&'static str, String)> {
    let text = extension.extension.trim();
    if text.len() < 2 || !text.starts_with('.') || text.contains(char::is_whitespace) {
        return Err((
            "extension",
            format!(
                "File extension '{}' must be a dot and at least one character, without spaces",
                extension.extension
            ),
        ));
    }
    if let Some(unknown) = extension.data_types.iter().find(|t| !DATA_TYPES.contains(&t.as_str())) {
        return Err(("dataTypes", format!("Data type '{unknown}' is not one of MARC, EDIFACT")));
    }
    if extension.import_blocked && !extension.data_types.is_empty() {
        return Err(("dataTypes", "A blocked file extension has no data types".into()));
    }
    Ok(())
}

/// Adds FOLIO's default extensions a tenant lacks (by id); how many it added.
pub fn seed(w: &mut Writer<'_>) -> crate::Result<usize> {
    let mut added = 0;
    for (id, extension, data_type) in DEFAULTS {
        if w.exists(&FileExtension::TABLE, &id.to_string())?
            || !w.find_by(&FileExtension::TABLE, "extension", extension)?.is_empty()
        {
            continue;
        }
        let record = FileExtension {
            id: Some(id),
            description: Some(String::new()),
            extension: extension.to_string(),
            data_types: data_type.map(str::to_string).into_iter().collect(),
            import_blocked: data_type.is_none(),
            user_info: Some(
                serde_json::json!({"firstName": "", "lastName": "", "userName": "System"}),
            ),
            metadata: None,
        };
        folio::record::create(w, record, Actor::default()).map_err(record_error)?;
        added += 1;
    }
    Ok(added)
}

/// `POST /data-import/fileExtensions/restore/default`: every extension removed, FOLIO's
/// defaults put back.
pub fn restore(w: &mut Writer<'_>) -> crate::Result<()> {
    let ids: Vec<String> =
        w.scan(&FileExtension::TABLE, None, 10_000)?.into_iter().map(|row| row.id).collect();
    for id in ids {
        w.delete(&FileExtension::TABLE, &id)?;
    }
    seed(w)?;
    Ok(())
}

fn record_error(e: folio::record::Error) -> crate::Error {
    match e {
        folio::record::Error::Store(e) => e.into(),
        other => crate::Error::Invalid(other.to_string()),
    }
}
