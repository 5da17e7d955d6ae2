//! Inventory: FOLIO's instances, holdings records, items and the reference data they
//! point to, as mod-inventory-storage defines them, and authority records, as
//! mod-entities-links defines them.
//!
//! This crate owns the typed model of every inventory record (`model`), decoding
//! request bodies into it with FOLIO's 400/422 distinctions (`decode`), the
//! kinds of reference record as one surface (`RefKind`, `RefRecord`), and the seed
//! data a new tenant gets, and the storage verbs: create, replace, batch upsert and
//! delete with FOLIO's rules (HRIDs, `_version` locking, metadata, references, derived
//! fields), reference-data storage, and the `/inventory` business views. It does not own
//! HTTP (the `server` crate maps `Error` and `DecodeError` to responses) or SQL (the
//! `store` crate; this crate declares its tables as migrations).
//!
//! ```
//! use inventory::Instance;
//! use folio::decode;
//!
//! let body = br#"{
//!     "source": "FOLIO",
//!     "title": "The semantic web primer",
//!     "instanceTypeId": "6312d172-f0cf-40f6-b27d-9fa8feaf332f",
//!     "languages": ["eng"]
//! }"#;
//! let instance: Instance = decode(body).unwrap();
//! assert_eq!(instance.title, "The semantic web primer");
//! assert!(instance.id.is_none()); // the server assigns one
//!
//! // Arrays are always written, FOLIO-style; absent options are not.
//! let json = serde_json::to_value(&instance).unwrap();
//! assert_eq!(json["identifiers"], serde_json::json!([]));
//! assert!(json.get("hrid").is_none());
//! ```
//!
//! Invariants:
//! - Records are parsed once, into the `model` types; no code reads inventory JSON
//!   by property name.
//! - A value of a model type fits FOLIO's schema: required fields are present, ids
//!   are UUIDs, enumerated strings are known. A model never carries a property FOLIO
//!   would reject.
//! - Serialising a model yields FOLIO's JSON; decode → serialise → decode is the
//!   identity.
//! - The model and decoding do no I/O; the verbs work inside a `store` transaction
//!   they are handed, so a caller composes them atomically.

mod hrid;
pub mod model;

mod circulation;
#[cfg(test)]
mod decode_tests;
mod records;
mod refdata;
mod reference;
mod seed;
mod source_files;
mod storage;
mod views;

pub use circulation::{
    InstanceSummary, get_holdings, get_instance, get_item, get_location, get_service_point,
    instance_of_holdings, instance_of_holdings_read, item_by_barcode, item_by_barcode_key,
    item_by_barcode_read, reference_name, update_item,
};
pub use hrid::{HridKind, HridSetting, HridSettings, hrid_settings, replace_hrid_settings};
pub use model::{Authority, HoldingsRecord, Instance, Item, ItemStatusName};
pub use records::{
    Checked, Record, create, create_record, decode_batch, delete, get_json, list_json, next_hrid,
    next_hrids, replace, replace_record, save_batch,
};
pub use refdata::{
    create_reference, delete_reference, get_reference_json, list_reference_json,
    load_reference_data, reference_id_by_name, replace_reference,
};
pub use reference::{KindVisitor, Link, RefKind, RefRecord, Reference, Unique, UniqueValue};
pub use seed::{Language, language_list, languages, seed, seed_records};
pub use source_files::{
    HridManagement, NewSourceFile, SourceFile, SourceFilePatch, create_source_file,
    delete_source_file, get_source_file, list_source_files, next_source_file_hrid,
    patch_source_file,
};
pub use storage::{AUTHORITIES, Error, HOLDINGS, INSTANCES, ITEMS, MIGRATIONS, Result};
pub use views::{
    ContributorName, INSTANCE_VIEW, ITEM_VIEW, InstanceView, ItemView, NamedRef, ViewShape,
    instance_view_json, item_view_json, list_instance_views_json, list_item_views_json,
};
