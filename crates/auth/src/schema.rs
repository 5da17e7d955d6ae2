//! The auth component's tables, one migration per schema version. A migration, once
//! released, is never edited: a new version is added instead.

use store::Migration;

/// The auth component's schema.
pub const MIGRATIONS: store::Component = store::Component {
    name: "auth",
    migrations: &[
        Migration {
            version: 1,
            description: "users, credentials, permission assignments",
            sql: "
            CREATE TABLE users (
                id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL,
                username TEXT COLLATE NOCASE UNIQUE,
                barcode TEXT COLLATE NOCASE UNIQUE,
                external_system_id TEXT COLLATE NOCASE,
                active INTEGER,
                patron_group TEXT COLLATE NOCASE
            );
            CREATE INDEX users_external_system_id ON users (external_system_id);
            CREATE INDEX users_patron_group ON users (patron_group);
            CREATE TABLE auth_credentials (
                id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL,
                username TEXT NOT NULL COLLATE NOCASE UNIQUE
            );
            CREATE TABLE permissions_users (
                id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL,
                user_id TEXT NOT NULL UNIQUE
            );
        ",
        },
        // The users table is rebuilt rather than altered: `active` becomes the text FOLIO's
        // CQL compares (`active==true`), and the new columns are filled from the stored
        // bodies in the same step.
        Migration {
            version: 2,
            description: "users: type, names and expiration date columns; patron groups; proxies",
            sql: "
            CREATE TABLE users_v2 (
                id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL,
                username TEXT COLLATE NOCASE UNIQUE,
                barcode TEXT COLLATE NOCASE UNIQUE,
                external_system_id TEXT COLLATE NOCASE,
                active TEXT COLLATE NOCASE,
                patron_group TEXT COLLATE NOCASE,
                user_type TEXT COLLATE NOCASE,
                last_name TEXT COLLATE NOCASE,
                first_name TEXT COLLATE NOCASE,
                expiration_date TEXT
            );
            INSERT INTO users_v2 (id, version, body, username, barcode, external_system_id,
                                  active, patron_group, user_type, last_name, first_name,
                                  expiration_date)
            SELECT id, version, body, username, barcode, external_system_id,
                   CASE active WHEN 1 THEN 'true' WHEN 0 THEN 'false' END,
                   patron_group,
                   json_extract(body, '$.type'),
                   json_extract(body, '$.personal.lastName'),
                   json_extract(body, '$.personal.firstName'),
                   strftime('%Y-%m-%dT%H:%M:%fZ', json_extract(body, '$.expirationDate'))
            FROM users;
            DROP TABLE users;
            ALTER TABLE users_v2 RENAME TO users;
            CREATE INDEX users_external_system_id ON users (external_system_id);
            CREATE INDEX users_patron_group ON users (patron_group);
            CREATE INDEX users_user_type ON users (user_type);
            CREATE INDEX users_last_name ON users (last_name, first_name);
            CREATE INDEX users_first_name ON users (first_name);
            CREATE INDEX users_expiration_date ON users (expiration_date);
            CREATE TABLE patron_groups (
                id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL,
                group_name TEXT NOT NULL COLLATE NOCASE UNIQUE
            );
            CREATE TABLE proxies_for (
                id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL,
                user_id TEXT COLLATE NOCASE,
                proxy_user_id TEXT COLLATE NOCASE
            );
            CREATE INDEX proxies_for_user_id ON proxies_for (user_id, proxy_user_id);
            CREATE INDEX proxies_for_proxy_user_id ON proxies_for (proxy_user_id);
        ",
        },
        Migration {
            version: 3,
            description: "refresh tokens ended by a logout",
            sql: "
            CREATE TABLE auth_revoked_tokens (
                id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL,
                expires INTEGER NOT NULL
            );
            CREATE INDEX auth_revoked_tokens_expires ON auth_revoked_tokens (expires);
        ",
        },
        Migration {
            version: 4,
            description: "address types, departments, service points users, request preferences",
            sql: "
            CREATE TABLE address_types (
                id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL,
                address_type TEXT NOT NULL COLLATE NOCASE UNIQUE
            );
            CREATE TABLE departments (
                id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL,
                name TEXT NOT NULL COLLATE NOCASE UNIQUE,
                code TEXT NOT NULL COLLATE NOCASE UNIQUE
            );
            CREATE TABLE service_points_users (
                id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL,
                user_id TEXT NOT NULL UNIQUE
            );
            CREATE TABLE request_preferences (
                id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL,
                user_id TEXT NOT NULL UNIQUE
            );
        ",
        },
        Migration {
            version: 5,
            description: "custom field definitions",
            sql: "
            CREATE TABLE custom_fields (
                id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL,
                name TEXT NOT NULL COLLATE NOCASE,
                ref_id TEXT NOT NULL UNIQUE,
                entity_type TEXT NOT NULL,
                field_type TEXT NOT NULL,
                sort_order INTEGER
            );
        ",
        },
    ],
};

#[cfg(test)]
mod tests {
    use store::{Page, Store};

    /// A tenant written at schema version 1 opens at version 2 with its users' new
    /// columns filled from their bodies.
    #[test]
    fn version_1_users_are_carried_into_version_2() {
        let dir = tempfile::tempdir().unwrap();
        let options = store::testing::options();
        let v1 = store::Component { name: "auth", migrations: &super::MIGRATIONS.migrations[..1] };
        {
            let store = Store::open(dir.path(), options.clone(), &[v1]).unwrap();
            let (tenant, _) = store.create_tenant("t").unwrap();
            // Rows as version 1 of this crate wrote them (active as an integer).
            let body = r#"{"id":"00000000-0000-4000-8000-000000000001","username":"ann","barcode":"B1","active":true,"type":"patron","personal":{"lastName":"Zed","firstName":"Ann"},"expirationDate":"2030-01-02T03:04:05.000+00:00"}"#;
            let v1_users = store::RecordTable {
                table: "users",
                record_type: "user",
                cached: false,
                columns: &["username", "barcode", "active"],
            };
            // `upsert`, not `insert`: the store caches each table's INSERT for the process,
            // and other tests of this binary write the version 2 table.
            tenant
                .write(|w| {
                    w.upsert(
                        &v1_users,
                        "00000000-0000-4000-8000-000000000001",
                        1,
                        body,
                        &[
                            store::ColumnValue::Text("ann".into()),
                            store::ColumnValue::Text("B1".into()),
                            store::ColumnValue::Int(1),
                        ],
                    )
                })
                .unwrap();
        }
        let store = Store::open(dir.path(), options.clone(), &[super::MIGRATIONS]).unwrap();
        let tenant = store.tenant("t").unwrap();
        let page = Page { offset: 0, limit: 10 };
        for cql in [
            "active==true",
            "personal.lastName==zed and personal.firstName==Ann",
            "type==patron",
            r#"expirationDate>"2030-01-02T03:04:04" and expirationDate<"2030-01-02T03:04:06""#,
        ] {
            let (_, total) = tenant.read(|r| crate::list_users(r, Some(cql), page)).unwrap();
            assert_eq!(total, 1, "{cql}");
        }
        let user = tenant.read(|r| crate::user_by_barcode(r, "b1")).unwrap().unwrap();
        assert_eq!(user.username.as_deref(), Some("ann"));
    }
}
