//! The user directory's smaller records (FOLIO's mod-users and inventory's service point
//! assignments), each a declaration over `folio`'s record verbs: address types,
//! departments, the service points a user works at, and a patron's request preferences.
//! Campus loaders look the first two up by name before writing users.

use serde::{Deserialize, Serialize};
use store::{ColumnValue, FieldKind::Text, QueryField, RecordTable};
use uuid::Uuid;

use folio::{Metadata, Record};

/// `/addresstypes`: home, work, ...; the name is unique.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AddressType {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Uuid>,
    pub address_type: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub desc: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

/// `/departments`; name and code are unique.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Department {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Uuid>,
    pub name: String,
    pub code: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Read-only in FOLIO (how many users are in it): a write drops it.
    #[serde(default, skip_serializing)]
    pub usage_number: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

/// `/service-points-users`: where a staff member may work; one record per user.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ServicePointsUser {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Uuid>,
    pub user_id: Uuid,
    #[serde(default)]
    pub service_points_ids: Vec<Uuid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_service_point_id: Option<Uuid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

/// How a patron wants requested items: `Hold Shelf` or `Delivery`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Fulfillment {
    #[serde(rename = "Hold Shelf")]
    HoldShelf,
    Delivery,
}

/// `/request-preference-storage/request-preference`: one record per patron.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RequestPreference {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Uuid>,
    pub user_id: Uuid,
    pub hold_shelf: bool,
    pub delivery: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_service_point_id: Option<Uuid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_delivery_address_type_id: Option<Uuid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fulfillment: Option<Fulfillment>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

macro_rules! declare {
    ($type:ty, $table:literal, $name:literal, [$($column:literal => $index:literal),*], |$r:ident| $columns:expr) => {
        impl Record for $type {
            const TABLE: RecordTable =
                RecordTable { table: $table, record_type: $table, cached: false, columns: &[$($column),*] };
            const NAME: &'static str = $name;
            const QUERY: &'static [QueryField] = &[
                QueryField { index: "id", column: "id", kind: Text },
                $(QueryField { index: $index, column: $column, kind: Text },)*
            ];
            folio::id_and_metadata!();
            fn columns(&self) -> Vec<ColumnValue> {
                let $r = self;
                $columns
            }
        }
    };
}

declare!(AddressType, "address_types", "Address type", ["address_type" => "addressType"], |r| {
    vec![ColumnValue::Text(r.address_type.clone())]
});
declare!(Department, "departments", "Department", ["name" => "name", "code" => "code"], |r| {
    vec![ColumnValue::Text(r.name.clone()), ColumnValue::Text(r.code.clone())]
});
declare!(
    ServicePointsUser,
    "service_points_users",
    "Service points user",
    ["user_id" => "userId"],
    |r| vec![ColumnValue::Text(r.user_id.to_string())]
);
declare!(
    RequestPreference,
    "request_preferences",
    "Request preference",
    ["user_id" => "userId"],
    |r| vec![ColumnValue::Text(r.user_id.to_string())]
);
