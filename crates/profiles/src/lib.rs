//! Data-import profiles: FOLIO mod-di-converter-storage's job, match, action and
//! mapping profiles (`/data-import-profiles/...`), the links between them, the trees
//! they make, FOLIO's default profiles under their fixed ids, and [`JobTree`], the
//! typed tree the import engine walks for each incoming record.
//!
//! What it owns: the profile and link tables (declared as [`MIGRATIONS`]), the models in
//! FOLIO's JSON shapes, FOLIO's rules and messages for writing them, the trees in FOLIO's
//! `profileSnapshotWrapper` shape, and the defaults ([`seed`]). What it does not own:
//! HTTP (`server` maps [`Error`]), who the user is (the server passes a [`UserInfo`]),
//! running an import, or the MARC-to-Instance rules (the `mapping` crate).
//!
//! ```
//! use profiles::{JobProfile, Step};
//!
//! let dir = tempfile::tempdir().unwrap();
//! let store = store::Store::open(dir.path(), store::Options::default(), &[profiles::MIGRATIONS])
//!     .unwrap();
//! let (tenant, _) = store.create_tenant("diku").unwrap();
//! tenant.write(profiles::seed).unwrap();
//! let tree =
//!     tenant.read(|r| profiles::job_tree(r, profiles::DEFAULT_CREATE_INSTANCE_JOB)).unwrap();
//! assert_eq!(tree.job.name, "Default - Create instance and SRS MARC Bib");
//! let [Step::Action(create)] = &tree.steps[..] else { panic!("{:?}", tree.steps) };
//! assert_eq!(create.name, "Default - Create instance");
//! assert!(create.mapping.is_some());
//! ```
//!
//! Invariants:
//! - A profile's name is unique within its type, trimmed and ignoring case (FOLIO's
//!   rule, held by a unique index).
//! - Every stored link names both ends, both node ids, and profiles that existed when it
//!   was written; a profile another links to as a detail cannot be deleted, so a tree
//!   never meets a link to nothing it was not told of. An action has at most one
//!   mapping profile.
//! - A write that breaks a rule writes nothing: every check runs before the first write.

mod associations;
mod defaults;
mod error;
mod expression;
mod model;
mod protection;
mod rules;
mod snapshot;
mod storage;
#[cfg(test)]
mod testing;
mod tree;

use store::Migration;

pub use crate::{
    associations::{
        association, create_association, decode_association, delete_association, details,
        list_associations, masters, replace_association,
    },
    defaults::{
        DEFAULT_CREATE_AUTHORITY_JOB, DEFAULT_CREATE_HOLDINGS_JOB, DEFAULT_CREATE_INSTANCE_JOB,
        defaults, seed,
    },
    error::{Error, Result},
    expression::{Expression, Term},
    model::{
        Action, ActionProfile, BooleanFieldAction, BooleanOperation, ComparisonPart, DataType,
        DataValueType, EntityType, FieldDefinition, FolioRecord, JobProfile, MappingDetails,
        MappingProfile, MappingRule, MarcData, MarcField, MarcFieldAction,
        MarcFieldProtectionSetting, MarcMappingDetail, MarcMappingOption, MarcSubfield,
        MarcSubfieldPosition, MarcSubfieldSubaction, MatchCriterion, MatchDetail, MatchExpression,
        MatchProfile, Profile, ProfileAssociation, ProfileContent, ProfileDto, ProfileReactTo,
        ProfileSnapshotWrapper, ProfileType, Qualifier, QualifierType, ReactTo,
        RepeatableFieldAction, RepeatableSubfield, StaticValueDetails, StaticValueType, Tags,
        UserInfo,
    },
    protection::{
        FieldProtection, check_protection, is_system, keep_protected, protections, seed_protection,
    },
    snapshot::{create_job_snapshot, job_snapshot, job_snapshot_json, snapshot},
    storage::{create, decode, delete, get, get_json, list_json, replace},
    tree::{
        ActionStep, FieldRule, Indicator, JobTree, MappingStep, MarcSelector, MatchCondition,
        MatchOperand, MatchStep, RecordField, RepeatableEntry, RuleValue, Step, job_tree,
    },
};

/// The profiles component's schema.
pub const MIGRATIONS: store::Component = store::Component {
    name: "profiles",
    migrations: &[
        Migration {
            version: 1,
            description: "data-import profiles, their links, frozen job trees",
            sql: include_str!("../migrations/0001_profiles.sql"),
        },
        Migration {
            version: 2,
            description: "MARC field protection settings",
            sql: "
            CREATE TABLE marc_field_protection_settings (
                id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL,
                field TEXT NOT NULL,
                source TEXT NOT NULL
            );
            ",
        },
    ],
};

/// The record types FOLIO's `/data-import-profiles/entityTypes` lists.
pub const ENTITY_TYPES: &[&str] = &[
    "INVENTORY_HOLDINGS",
    "INVENTORY_INSTANCE",
    "INVENTORY_ITEM",
    "INVOICE",
    "MARC_AUTHORITY_RECORD",
    "MARC_BIB_RECORD",
    "MARC_HOLDINGS_RECORD",
    "ORDER",
    "ERROR",
];
