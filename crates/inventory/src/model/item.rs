//! `Item`: one physical or electronic copy (FOLIO `item-storage/item.json`), the types
//! nested in it, and the rules that derive its read-only `effective*` fields.

use serde::{Deserialize, Serialize};
use uuid::Uuid;

use folio::{Metadata, Timestamp};

use crate::model::nullable;
use crate::model::{CallNumberComponents, ElectronicAccess, HoldingsRecord, Tags, Virtual};

/// An item. FOLIO's schema types most of its reference fields as plain strings; Quire
/// holds every one that names another record as a UUID, as FOLIO's database does
/// (they are foreign keys there).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Item {
    /// Assigned by the server when a create request has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Uuid>,
    #[serde(default, rename = "_version", skip_serializing_if = "Option::is_none")]
    pub version: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hrid: Option<String>,
    pub holdings_record_id: Uuid,
    /// Position among the items of its holdings; FOLIO fills it when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order: Option<i32>,
    #[serde(default, deserialize_with = "nullable::set")]
    pub former_ids: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub discovery_suppress: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display_summary: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accession_number: Option<String>,
    /// Unique per tenant, compared case-insensitively (FOLIO's unique index on
    /// `lower(barcode)`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub barcode: Option<String>,
    /// Read-only sort key derived from the effective call number. Quire does not
    /// compute it yet (see [`Item::derive_effective_fields`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effective_shelving_order: Option<String>,
    #[serde(default, deserialize_with = "nullable::vec")]
    pub additional_call_numbers: Vec<CallNumberComponents>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub item_level_call_number: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub item_level_call_number_prefix: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub item_level_call_number_suffix: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub item_level_call_number_type_id: Option<Uuid>,
    /// Read-only, derived from the item and its holdings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effective_call_number_components: Option<EffectiveCallNumberComponents>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub volume: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enumeration: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chronology: Option<String>,
    #[serde(default, deserialize_with = "nullable::set")]
    pub year_caption: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub item_identifier: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub copy_number: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub number_of_pieces: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description_of_pieces: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub number_of_missing_pieces: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub missing_pieces: Option<String>,
    /// Free text in FOLIO's schema, kept as sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub missing_pieces_date: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub item_damaged_status_id: Option<Uuid>,
    /// Free text in FOLIO's schema, kept as sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub item_damaged_status_date: Option<String>,
    #[serde(default, deserialize_with = "nullable::vec")]
    pub administrative_notes: Vec<String>,
    #[serde(default, deserialize_with = "nullable::vec")]
    pub notes: Vec<ItemNote>,
    #[serde(default, deserialize_with = "nullable::vec")]
    pub circulation_notes: Vec<CirculationNote>,
    pub status: ItemStatus,
    pub material_type_id: Uuid,
    #[serde(default, skip_serializing)]
    pub material_type: Virtual,
    pub permanent_loan_type_id: Uuid,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temporary_loan_type_id: Option<Uuid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permanent_location_id: Option<Uuid>,
    #[serde(default, skip_serializing)]
    pub permanent_location: Virtual,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temporary_location_id: Option<Uuid>,
    #[serde(default, skip_serializing)]
    pub temporary_location: Virtual,
    /// Read-only, derived: see [`Item::derive_effective_fields`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effective_location_id: Option<Uuid>,
    #[serde(default, deserialize_with = "nullable::vec")]
    pub electronic_access: Vec<ElectronicAccess>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub in_transit_destination_service_point_id: Option<Uuid>,
    #[serde(default, deserialize_with = "nullable::set")]
    pub statistical_code_ids: Vec<Uuid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub purchase_order_line_identifier: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tags: Option<Tags>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
    #[serde(default, rename = "holdingsRecord2", skip_serializing)]
    pub holdings_record2: Virtual,
    /// Read-only in FOLIO (computed from bound-with parts): a PUT drops them.
    #[serde(default, skip_serializing)]
    pub is_bound_with: Virtual,
    #[serde(default, skip_serializing)]
    pub bound_with_titles: Virtual,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_check_in: Option<LastCheckIn>,
}

impl Item {
    /// Recomputes the read-only fields FOLIO's item storage derives on every create
    /// and update, from this item and the holdings record it belongs to:
    ///
    /// - `effectiveLocationId` = item temporary ?? item permanent ?? holdings temporary
    ///   ?? holdings permanent location;
    /// - each part of `effectiveCallNumberComponents` (call number, prefix, suffix,
    ///   type) = the item-level value if it is present and not blank, else the
    ///   holdings value. The object is always present, possibly empty, as in FOLIO.
    /// - `effectiveShelvingOrder` is cleared: FOLIO derives it from the call-number
    ///   type's normalisation rules, which Quire does not implement yet, and a value a
    ///   client sent could be stale.
    ///
    /// Whatever the client sent in these fields is overwritten.
    pub fn derive_effective_fields(&mut self, holdings: &HoldingsRecord) {
        self.effective_location_id = self
            .temporary_location_id
            .or(self.permanent_location_id)
            .or(holdings.temporary_location_id)
            .or(Some(holdings.permanent_location_id));
        self.effective_call_number_components = Some(EffectiveCallNumberComponents {
            call_number: first_non_blank(&self.item_level_call_number, &holdings.call_number),
            prefix: first_non_blank(
                &self.item_level_call_number_prefix,
                &holdings.call_number_prefix,
            ),
            suffix: first_non_blank(
                &self.item_level_call_number_suffix,
                &holdings.call_number_suffix,
            ),
            type_id: self.item_level_call_number_type_id.or(holdings.call_number_type_id),
        });
        self.effective_shelving_order = None;
    }
}

fn first_non_blank(item: &Option<String>, holdings: &Option<String>) -> Option<String> {
    let present = |s: &&String| !s.trim().is_empty();
    item.as_ref().filter(present).or(holdings.as_ref().filter(present)).cloned()
}

/// The call number an item shelves under, after falling back to its holdings.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EffectiveCallNumberComponents {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_number: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefix: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suffix: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub type_id: Option<Uuid>,
}

/// `item.status` (`item-storage/itemStatus.json`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ItemStatus {
    pub name: ItemStatusName,
    /// When the status last changed; read-only, set by the server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date: Option<Timestamp>,
}

/// Every item status FOLIO knows, spelled as on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ItemStatusName {
    #[serde(rename = "Aged to lost")]
    AgedToLost,
    #[serde(rename = "Available")]
    Available,
    #[serde(rename = "Awaiting pickup")]
    AwaitingPickup,
    #[serde(rename = "Awaiting delivery")]
    AwaitingDelivery,
    #[serde(rename = "Checked out")]
    CheckedOut,
    #[serde(rename = "Claimed returned")]
    ClaimedReturned,
    #[serde(rename = "Declared lost")]
    DeclaredLost,
    #[serde(rename = "In process")]
    InProcess,
    #[serde(rename = "In process (non-requestable)")]
    InProcessNonRequestable,
    #[serde(rename = "In transit")]
    InTransit,
    #[serde(rename = "Intellectual item")]
    IntellectualItem,
    #[serde(rename = "Long missing")]
    LongMissing,
    #[serde(rename = "Lost and paid")]
    LostAndPaid,
    #[serde(rename = "Missing")]
    Missing,
    #[serde(rename = "On order")]
    OnOrder,
    #[serde(rename = "Paged")]
    Paged,
    #[serde(rename = "Restricted")]
    Restricted,
    #[serde(rename = "Order closed")]
    OrderClosed,
    #[serde(rename = "Unavailable")]
    Unavailable,
    #[serde(rename = "Unknown")]
    Unknown,
    #[serde(rename = "Withdrawn")]
    Withdrawn,
}

impl ItemStatusName {
    /// All statuses, in FOLIO's schema order.
    pub const ALL: [ItemStatusName; 21] = [
        ItemStatusName::AgedToLost,
        ItemStatusName::Available,
        ItemStatusName::AwaitingPickup,
        ItemStatusName::AwaitingDelivery,
        ItemStatusName::CheckedOut,
        ItemStatusName::ClaimedReturned,
        ItemStatusName::DeclaredLost,
        ItemStatusName::InProcess,
        ItemStatusName::InProcessNonRequestable,
        ItemStatusName::InTransit,
        ItemStatusName::IntellectualItem,
        ItemStatusName::LongMissing,
        ItemStatusName::LostAndPaid,
        ItemStatusName::Missing,
        ItemStatusName::OnOrder,
        ItemStatusName::Paged,
        ItemStatusName::Restricted,
        ItemStatusName::OrderClosed,
        ItemStatusName::Unavailable,
        ItemStatusName::Unknown,
        ItemStatusName::Withdrawn,
    ];

    /// The wire spelling, e.g. `"Checked out"`.
    pub fn as_str(self) -> &'static str {
        match self {
            ItemStatusName::AgedToLost => "Aged to lost",
            ItemStatusName::Available => "Available",
            ItemStatusName::AwaitingPickup => "Awaiting pickup",
            ItemStatusName::AwaitingDelivery => "Awaiting delivery",
            ItemStatusName::CheckedOut => "Checked out",
            ItemStatusName::ClaimedReturned => "Claimed returned",
            ItemStatusName::DeclaredLost => "Declared lost",
            ItemStatusName::InProcess => "In process",
            ItemStatusName::InProcessNonRequestable => "In process (non-requestable)",
            ItemStatusName::InTransit => "In transit",
            ItemStatusName::IntellectualItem => "Intellectual item",
            ItemStatusName::LongMissing => "Long missing",
            ItemStatusName::LostAndPaid => "Lost and paid",
            ItemStatusName::Missing => "Missing",
            ItemStatusName::OnOrder => "On order",
            ItemStatusName::Paged => "Paged",
            ItemStatusName::Restricted => "Restricted",
            ItemStatusName::OrderClosed => "Order closed",
            ItemStatusName::Unavailable => "Unavailable",
            ItemStatusName::Unknown => "Unknown",
            ItemStatusName::Withdrawn => "Withdrawn",
        }
    }
}

impl std::fmt::Display for ItemStatusName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ItemNote {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub item_note_type_id: Option<Uuid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    #[serde(default, deserialize_with = "nullable::or_default")]
    pub staff_only: bool,
}

/// A note shown to staff at check-in or check-out (`item-storage/circulationNote.json`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CirculationNote {
    /// A client-made id for the note; a plain string in FOLIO, not a record reference.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note_type: Option<CirculationNoteType>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<CirculationNoteSource>,
    /// Free text in FOLIO's schema, kept as sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    #[serde(default, deserialize_with = "nullable::or_default")]
    pub staff_only: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum CirculationNoteType {
    #[serde(rename = "Check in")]
    CheckIn,
    #[serde(rename = "Check out")]
    CheckOut,
}

/// Who wrote a circulation note.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CirculationNoteSource {
    /// The user's id; a plain string in FOLIO's schema.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub personal: Option<PersonalName>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PersonalName {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_name: Option<String>,
}

/// The last check-in of an item (`item-storage/itemLastCheckIn.json`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LastCheckIn {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date_time: Option<Timestamp>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service_point_id: Option<Uuid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub staff_member_id: Option<Uuid>,
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};

    use crate::model::{HoldingsRecord, Item, ItemStatusName};

    /// Derives the effective fields of `item` (JSON) under `holdings` (JSON) and prints
    /// them, with location ids shortened to their first group.
    fn check(holdings: &str, item: &str, expect: Expect) {
        let holdings: HoldingsRecord = serde_json::from_str(holdings).unwrap();
        let mut item: Item = serde_json::from_str(item).unwrap();
        item.effective_shelving_order = Some("stale".to_owned());
        item.derive_effective_fields(&holdings);
        assert_eq!(item.effective_shelving_order, None);
        let location = item.effective_location_id.map(|id| id.to_string()[..8].to_owned());
        let components = serde_json::to_string(&item.effective_call_number_components).unwrap();
        expect.assert_eq(&format!("location={location:?} call_number={components}"));
    }

    const HOLDINGS: &str = r#"{
        "sourceId": "f32d531e-df79-46b3-8932-cdd35f7a2264",
        "instanceId": "69640328-788e-43fc-9c3c-af39e243f3b7",
        "permanentLocationId": "11111111-0000-4000-8000-000000000000",
        "callNumberTypeId": "95467209-6d7b-468b-94df-0f5d7ad2747d",
        "callNumberPrefix": "REF",
        "callNumber": "QA76.73.R87 K53 2019",
        "callNumberSuffix": "c.1"
    }"#;

    const HOLDINGS_WITH_TEMPORARY: &str = r#"{
        "sourceId": "f32d531e-df79-46b3-8932-cdd35f7a2264",
        "instanceId": "69640328-788e-43fc-9c3c-af39e243f3b7",
        "permanentLocationId": "11111111-0000-4000-8000-000000000000",
        "temporaryLocationId": "22222222-0000-4000-8000-000000000000"
    }"#;

    fn item(extra: &str) -> String {
        format!(
            r#"{{
                "holdingsRecordId": "c4a15834-0184-4a6f-9c0c-0ca5bad8286d",
                "status": {{"name": "Available"}},
                "materialTypeId": "1a54b431-2e4f-452d-9cae-9cee66c9a892",
                "permanentLoanTypeId": "2b94c631-fca9-4892-a730-03ee529ffe27"
                {extra}
            }}"#
        )
    }

    #[test]
    fn effective_location() {
        check(
            HOLDINGS,
            &item(""),
            expect![[
                r#"location=Some("11111111") call_number={"callNumber":"QA76.73.R87 K53 2019","prefix":"REF","suffix":"c.1","typeId":"95467209-6d7b-468b-94df-0f5d7ad2747d"}"#
            ]],
        );
        check(
            HOLDINGS_WITH_TEMPORARY,
            &item(""),
            expect![[r#"location=Some("22222222") call_number={}"#]],
        );
        check(
            HOLDINGS_WITH_TEMPORARY,
            &item(r#", "permanentLocationId": "33333333-0000-4000-8000-000000000000""#),
            expect![[r#"location=Some("33333333") call_number={}"#]],
        );
        check(
            HOLDINGS_WITH_TEMPORARY,
            &item(
                r#", "permanentLocationId": "33333333-0000-4000-8000-000000000000",
                   "temporaryLocationId": "44444444-0000-4000-8000-000000000000""#,
            ),
            expect![[r#"location=Some("44444444") call_number={}"#]],
        );
        check(
            HOLDINGS,
            &item(r#", "temporaryLocationId": "44444444-0000-4000-8000-000000000000""#),
            expect![[
                r#"location=Some("44444444") call_number={"callNumber":"QA76.73.R87 K53 2019","prefix":"REF","suffix":"c.1","typeId":"95467209-6d7b-468b-94df-0f5d7ad2747d"}"#
            ]],
        );
    }

    #[test]
    fn effective_call_number_mixes_item_and_holdings_parts() {
        check(
            HOLDINGS,
            &item(
                r#", "itemLevelCallNumber": "QA76.73.R87 K53 2019 v.2",
                   "itemLevelCallNumberTypeId": "03dd64d0-5626-4ecd-8ece-4531e0069f35""#,
            ),
            expect![[
                r#"location=Some("11111111") call_number={"callNumber":"QA76.73.R87 K53 2019 v.2","prefix":"REF","suffix":"c.1","typeId":"03dd64d0-5626-4ecd-8ece-4531e0069f35"}"#
            ]],
        );
        // Blank item-level values do not hide the holdings' values.
        check(
            HOLDINGS,
            &item(r#", "itemLevelCallNumber": "  ", "itemLevelCallNumberPrefix": """#),
            expect![[
                r#"location=Some("11111111") call_number={"callNumber":"QA76.73.R87 K53 2019","prefix":"REF","suffix":"c.1","typeId":"95467209-6d7b-468b-94df-0f5d7ad2747d"}"#
            ]],
        );
        check(
            HOLDINGS_WITH_TEMPORARY,
            &item(r#", "itemLevelCallNumberSuffix": "copy 3""#),
            expect![[r#"location=Some("22222222") call_number={"suffix":"copy 3"}"#]],
        );
    }

    #[test]
    fn status_names_round_trip() {
        for status in ItemStatusName::ALL {
            let json = serde_json::to_string(&status).unwrap();
            assert_eq!(json, format!("\"{}\"", status.as_str()));
            assert_eq!(serde_json::from_str::<ItemStatusName>(&json).unwrap(), status);
        }
    }
}
