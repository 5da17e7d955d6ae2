//! Where inventory records (and authorities) live: their tables, migrations, and the
//! errors of storing them. The tables are public so that what follows the change log
//! (the search index) reads the same tables and matches the same record types, with no
//! copy of their names to fall out of step.

use store::{Migration, RecordTable};

pub const INSTANCES: RecordTable = RecordTable {
    table: "instances",
    record_type: "instance",
    cached: false,
    columns: &["hrid", "source", "updated_date"],
};

pub const HOLDINGS: RecordTable = RecordTable {
    table: "holdings",
    record_type: "holdings",
    cached: false,
    columns: &[
        "hrid",
        "instance_id",
        "permanent_location_id",
        "effective_location_id",
        "updated_date",
    ],
};

pub const ITEMS: RecordTable = RecordTable {
    table: "items",
    record_type: "item",
    cached: false,
    columns: &[
        "hrid",
        "barcode",
        "holdings_record_id",
        "status_name",
        "effective_location_id",
        "material_type_id",
        "permanent_loan_type_id",
        "updated_date",
    ],
};

pub const AUTHORITIES: RecordTable = RecordTable {
    table: "authorities",
    record_type: "authority",
    cached: false,
    columns: &["natural_id", "source", "source_file_id", "heading_type", "updated_date"],
};

/// The inventory component's schema.
pub const MIGRATIONS: store::Component = store::Component {
    name: "inventory",
    migrations: &[
        Migration {
            version: 1,
            description: "instances, holdings, items and reference data",
            sql: include_str!("../migrations/0001_inventory.sql"),
        },
        Migration {
            version: 2,
            description: "authorities",
            sql: include_str!("../migrations/0002_authorities.sql"),
        },
        Migration {
            version: 3,
            description: "HRID settings",
            sql: include_str!("../migrations/0003_hrid_settings.sql"),
        },
        Migration {
            version: 4,
            description: "instance statuses and modes of issuance",
            sql: include_str!("../migrations/0004_instance_statuses_and_modes.sql"),
        },
        Migration {
            version: 5,
            description: "the rest of FOLIO's reference kinds; location-unit codes as columns",
            sql: include_str!("../migrations/0005_reference_kinds.sql"),
        },
        Migration {
            version: 6,
            description: "authority source files",
            sql: include_str!("../migrations/0006_authority_source_files.sql"),
        },
    ],
};

/// An inventory error.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{record_type} not found: {id}")]
    NotFound { record_type: &'static str, id: String },
    /// The `_version` sent does not match the stored one (FOLIO's optimistic locking).
    #[error(
        "Cannot update record {id} because it has been changed (optimistic locking): Stored _version is {stored}, _version of request is {sent}"
    )]
    VersionConflict { id: String, stored: i64, sent: i64 },
    /// A rule about the record's content failed, e.g. a reference to a missing record.
    #[error("{message}")]
    Invalid { field: String, value: String, message: String },
    /// The record cannot be deleted while others refer to it.
    #[error("Cannot delete {record_type} {id}: {message}")]
    InUse { record_type: &'static str, id: String, message: String },
    #[error(transparent)]
    Decode(#[from] folio::DecodeError),
    #[error(transparent)]
    Store(#[from] store::Error),
    #[error("corrupt stored record: {0}")]
    Corrupt(String),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// FOLIO's shared verbs' errors in inventory's words.
impl From<folio::record::Error> for Error {
    fn from(e: folio::record::Error) -> Error {
        match e {
            folio::record::Error::NotFound { record, id } => {
                Error::NotFound { record_type: record, id: id.to_string() }
            }
            e @ folio::record::Error::IdMismatch { body, .. } => {
                Error::invalid("id", body, e.to_string())
            }
            folio::record::Error::VersionConflict { id, stored, sent } => {
                Error::VersionConflict { id: id.to_string(), stored, sent }
            }
            folio::record::Error::Store(e) => Error::Store(e),
            e @ folio::record::Error::Corrupt { .. } => Error::Corrupt(e.to_string()),
        }
    }
}

impl Error {
    pub(crate) fn invalid(field: &str, value: impl ToString, message: impl Into<String>) -> Error {
        Error::Invalid {
            field: field.to_string(),
            value: value.to_string(),
            message: message.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use store::{ColumnValue, Component, Page, Store};

    use super::MIGRATIONS;
    use crate::{RefKind, list_reference_json, load_reference_data};

    /// A tenant made before migration 5 kept location units' codes out of the `code`
    /// column. After it, `code==` finds them, and seeding adds the new kinds' records.
    #[test]
    fn migration_5_on_a_version_4_tenant() {
        let dir = tempfile::tempdir().unwrap();
        let options = store::testing::options();
        let version_4 =
            Component { name: MIGRATIONS.name, migrations: &MIGRATIONS.migrations[..4] };
        {
            let store = Store::open(dir.path(), options.clone(), &[version_4]).unwrap();
            let (tenant, _) = store.create_tenant("t").unwrap();
            let (id, institution) =
                ("62cf76b7-cca5-4d33-9217-edf42ce1a848", "40ee00ca-a518-4b49-be01-0638d0a4ac57");
            let body = format!(
                r#"{{"id":"{id}","name":"City Campus","code":"CC","institutionId":"{institution}"}}"#
            );
            // The columns as version 4 wrote them: no code.
            let columns = [
                ColumnValue::Text("City Campus".into()),
                ColumnValue::Null,
                ColumnValue::Text(institution.into()),
                ColumnValue::Null,
                ColumnValue::Null,
            ];
            let campus = RefKind::Campus.table();
            tenant.write(|w| w.insert(&campus, id, 1, &body, &columns)).unwrap();
        }
        let store = Store::open(dir.path(), options.clone(), &[MIGRATIONS]).unwrap();
        let tenant = store.tenant("t").unwrap();
        let page = Page { offset: 0, limit: 10 };
        let (found, _) = tenant
            .read(|r| list_reference_json(r, RefKind::Campus, Some("code==cc"), page))
            .unwrap();
        assert_eq!(found.len(), 1);
        tenant.write(load_reference_data).unwrap();
        let (_, n_codes) =
            tenant.read(|r| list_reference_json(r, RefKind::StatisticalCode, None, page)).unwrap();
        assert_eq!(n_codes, 28);
    }
}
