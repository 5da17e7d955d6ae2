//! The kinds of reference record as one declaration table ([`kinds!`] below): each line
//! names a kind's model, FOLIO path, collection key, stable storage name, code, unique
//! values, links and extra CQL indexes. From it come [`RefKind`] (the kind as a value),
//! [`RefRecord`] (a record of any kind, typed), the kind's storage table and its
//! [`folio::Record`] impl, so a new kind of reference data is a model struct and one
//! line.
//!
//! Useful for: generic CRUD over reference data (one route table and one store table
//! shape for all kinds), uniqueness and foreign-key checks. Not useful for: anything
//! kind-specific (service-point pickup rules, location hierarchy consistency), which
//! matches on the variant and uses the model struct.

use serde::Serialize;
use store::{ColumnValue, QueryField, RecordTable};
use uuid::Uuid;

use folio::Metadata;
use folio::{DecodeError, decode};

use crate::model::{
    AlternativeTitleType, AuthorityNoteType, CallNumberType, Campus, ClassificationType,
    ContributorNameType, ContributorType, ElectronicAccessRelationship, HoldingsNoteType,
    HoldingsSource, HoldingsType, IdentifierType, IllPolicy, InstanceDateType, InstanceFormat,
    InstanceNoteType, InstanceRelationshipType, InstanceStatus, InstanceType, Institution,
    ItemDamagedStatus, ItemNoteType, Library, LoanType, Location, MaterialType, ModeOfIssuance,
    NatureOfContentTerm, ServicePoint, StatisticalCode, StatisticalCodeType, SubjectSource,
    SubjectType,
};

/// `(field, kind, id)`: a reference record's link to another.
pub type Link = (&'static str, RefKind, Uuid);

/// A value FOLIO keeps unique among the records of a kind: one unique index of
/// mod-inventory-storage's `db_scripts/schema.json`.
///
/// FOLIO compares these values case-insensitively and ignoring accents
/// (`lower(f_unaccent(value))`, RMB's default for a unique index); Quire ignores case
/// (the columns are `COLLATE NOCASE`): "Book" and "book" clash.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Unique {
    /// `name` or `code`: the JSON field, which is also the column that holds it.
    pub field: &'static str,
    /// A link field (see [`Reference::links`]) the value is unique within, for FOLIO's
    /// two-field indexes: a statistical code's code need only differ from the other
    /// codes of its type. `None`: unique per tenant.
    pub within: Option<&'static str>,
}

/// One record's value for one of its kind's [`Unique`] keys.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UniqueValue<'r> {
    pub key: Unique,
    pub value: &'r str,
    /// Where the key has a `within` link: the id it points to.
    pub scope: Option<Uuid>,
}

/// What reference data storage reads of a kind's model, beyond FOLIO's record verbs.
/// Written by [`kinds!`]; `links` by hand for the kinds that have them.
pub trait Reference: folio::Record + Clone + Into<RefRecord> {
    const KIND: RefKind;
    /// What FOLIO keeps unique among the kind's records.
    const UNIQUE: &'static [Unique];
    /// Every kind has a required name (unique for most kinds, see [`Reference::UNIQUE`]).
    fn name(&self) -> &str;
    /// The code, for the kinds that have one, unique or not.
    fn code(&self) -> Option<&str>;
    /// The other reference records this one points to.
    fn links(&self) -> Vec<Link>;

    /// The record's value for each of [`Reference::UNIQUE`]; a key whose field the
    /// record leaves out (an optional code) has none, and so cannot clash.
    fn unique_values(&self) -> Vec<UniqueValue<'_>> {
        let links = self.links();
        let link = |field: &str| links.iter().find(|(f, _, _)| *f == field).map(|&(_, _, id)| id);
        Self::UNIQUE
            .iter()
            .filter_map(|&key| {
                let value = if key.field == "name" { Some(self.name()) } else { self.code() }?;
                Some(UniqueValue { key, value, scope: key.within.and_then(link) })
            })
            .collect()
    }
}

/// Calls [`KindVisitor::visit`] with a kind's model type, so generic code over
/// [`Reference`] can be chosen by a [`RefKind`] value.
pub trait KindVisitor {
    type Out;
    fn visit<T: Reference>(self) -> Self::Out;
}

/// The columns every reference table has, and the CQL indexes they answer. `code` holds
/// the kind's code whether or not FOLIO keeps it unique.
pub(crate) const COLUMNS: &[&str] = &["name", "code", "institution_id", "campus_id", "library_id"];

pub(crate) const QUERY_FIELDS: &[QueryField] = {
    use store::FieldKind::Text;
    &[
        QueryField { index: "id", column: "id", kind: Text },
        QueryField { index: "name", column: "name", kind: Text },
        QueryField { index: "code", column: "code", kind: Text },
        QueryField { index: "institutionId", column: "institution_id", kind: Text },
        QueryField { index: "campusId", column: "campus_id", kind: Text },
        QueryField { index: "libraryId", column: "library_id", kind: Text },
    ]
};

// The CQL indexes some kinds answer beyond the shared ones (`query:` in `kinds!`), on
// fields no column holds. They are SQL over the stored JSON (Rust code still reads a
// record only through its model), so SQLite reads the whole table to answer them:
// reference tables hold tens to a few hundred records (268 contributor types at most),
// which costs less than a column, and a migration, per field.

/// An index on a top-level field of a reference record's stored JSON. Text compares
/// ignoring case, as FOLIO's CQL does; a boolean compares as JSON's 1 and 0.
macro_rules! body_field {
    ($field:literal, Text) => {
        QueryField {
            index: $field,
            column: concat!("json_extract(body, '$.", $field, "') COLLATE NOCASE"),
            kind: store::FieldKind::Text,
        }
    };
    ($field:literal, Bool) => {
        QueryField {
            index: $field,
            column: concat!("json_extract(body, '$.", $field, "')"),
            kind: store::FieldKind::Bool,
        }
    };
}

/// For the kinds whose records have a `source` (`source==folio`).
const SOURCE: &[QueryField] = &[body_field!("source", Text)];

/// FOLIO indexes `pickupLocation`; request and check-in clients list the pickup points.
const SERVICE_POINT_QUERY: &[QueryField] = &[body_field!("pickupLocation", Bool)];

/// FOLIO indexes `primaryServicePoint`; circulation asks which locations a service point
/// serves.
const LOCATION_QUERY: &[QueryField] = &[body_field!("primaryServicePoint", Text)];

const STATISTICAL_CODE_QUERY: &[QueryField] =
    &[body_field!("source", Text), body_field!("statisticalCodeTypeId", Text)];

/// [`QUERY_FIELDS`] followed by `own`: the `folio::Record::QUERY` of a kind with
/// indexes of its own. `N` is the sum of the two lengths.
const fn with_shared<const N: usize>(own: &[QueryField]) -> [QueryField; N] {
    assert!(N == QUERY_FIELDS.len() + own.len());
    let mut fields = [QUERY_FIELDS[0]; N];
    let mut i = 0;
    while i < N {
        fields[i] =
            if i < QUERY_FIELDS.len() { QUERY_FIELDS[i] } else { own[i - QUERY_FIELDS.len()] };
        i += 1;
    }
    fields
}

/// A model's code field, required or optional.
trait CodeField {
    fn as_code(&self) -> Option<&str>;
}

impl CodeField for String {
    fn as_code(&self) -> Option<&str> {
        Some(self)
    }
}

impl CodeField for Option<String> {
    fn as_code(&self) -> Option<&str> {
        self.as_deref()
    }
}

fn columns<T: Reference>(record: &T) -> Vec<ColumnValue> {
    let links = record.links();
    let link =
        |field: &str| links.iter().find(|(f, _, _)| *f == field).map(|(_, _, id)| id.to_string());
    vec![
        ColumnValue::Text(record.name().to_string()),
        record.code().into(),
        link("institutionId").into(),
        link("campusId").into(),
        link("libraryId").into(),
    ]
}

/// The declaration table's grammar, one entry per kind:
///
/// ```text
/// Model {
///     path: "/collection-path", key: "collectionKey", name: "storage_name"
///     [, code: field]          the kind's code, unique or not: kept in the `code` column
///     [, unique: [name, code within linkField, ...]]   default: [name]
///     [, links: fn(&Model) -> Vec<Link>]
///     [, query: EXTRA_QUERY_FIELDS]
/// }
/// ```
macro_rules! kinds {
    (@code $record:expr) => { None };
    (@code $record:expr, $code:ident) => { CodeField::as_code(&$record.$code) };
    (@unique) => { &[Unique { field: "name", within: None }] };
    (@unique [$($field:ident $(within $within:ident)?),*]) => {
        &[$(Unique { field: kinds!(@field $field), within: kinds!(@within $($within)?) }),*]
    };
    (@field name) => { "name" };
    (@field code) => { "code" };
    (@within) => { None };
    (@within $within:ident) => { Some(stringify!($within)) };
    (@links $record:expr) => { Vec::new() };
    (@links $record:expr, $links:path) => { $links($record) };
    (@query) => { QUERY_FIELDS };
    (@query $own:ident) => { &with_shared::<{ QUERY_FIELDS.len() + $own.len() }>($own) };
    ($(
        $kind:ident {
            path: $path:literal,
            key: $key:literal,
            name: $name:literal
            $(, code: $code:ident)?
            $(, unique: [$($unique:ident $(within $within:ident)?),*])?
            $(, links: $links:path)?
            $(, query: $query:ident)?
        }
    )*) => {
        /// A kind of reference record FOLIO's inventory storage serves.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum RefKind {
            $($kind,)*
        }

        impl RefKind {
            /// Every kind, ordered so that a kind comes after the kinds its records
            /// point to (institution → campus → library, service point → location,
            /// statistical code type → statistical code): seeding in this order never
            /// meets a dangling reference.
            pub const ALL: &'static [RefKind] = &[$(RefKind::$kind,)*];

            /// The FOLIO collection path, e.g. `/material-types`; a record is at
            /// `{path}/{id}`.
            pub fn path(self) -> &'static str {
                match self { $(RefKind::$kind => $path,)* }
            }

            /// The array key of a collection response, e.g. `mtypes` in
            /// `{"mtypes": [...], "totalRecords": 8}`.
            pub fn collection_key(self) -> &'static str {
                match self { $(RefKind::$kind => $key,)* }
            }

            /// A short, stable snake-case name (`material_type`), for storage table
            /// names, seed files and messages. Invariant: never changes once released,
            /// since stored data is keyed by it.
            pub fn record_type(self) -> &'static str {
                match self { $(RefKind::$kind => $name,)* }
            }

            /// The kind's storage table, `ref_{record_type}`.
            pub fn table(self) -> RecordTable {
                match self { $(RefKind::$kind => <$kind as folio::Record>::TABLE,)* }
            }

            /// The CQL indexes the kind's list answers: the shared ones, then its own.
            pub fn query_fields(self) -> &'static [QueryField] {
                match self { $(RefKind::$kind => <$kind as folio::Record>::QUERY,)* }
            }

            /// The kind's seed records, a JSON array compiled in from
            /// `reference_data/{record_type}.json`.
            pub fn seed_json(self) -> &'static str {
                match self {
                    $(RefKind::$kind => include_str!(concat!("../reference_data/", $name, ".json")),)*
                }
            }

            /// Calls `visitor` with this kind's model type.
            pub fn visit<V: KindVisitor>(self, visitor: V) -> V::Out {
                match self { $(RefKind::$kind => visitor.visit::<$kind>(),)* }
            }
        }

        /// One reference record of any kind, typed. Serialises as the inner record,
        /// in FOLIO's shape.
        #[derive(Clone, Debug, PartialEq, Serialize)]
        #[serde(untagged)]
        pub enum RefRecord {
            $($kind($kind),)*
        }

        impl RefRecord {
            pub fn kind(&self) -> RefKind {
                match self { $(RefRecord::$kind(_) => RefKind::$kind,)* }
            }

            /// `None` on a create request without an id; the server then assigns one.
            pub fn id(&self) -> Option<Uuid> {
                match self { $(RefRecord::$kind(r) => r.id,)* }
            }

            pub fn set_id(&mut self, id: Uuid) {
                match self { $(RefRecord::$kind(r) => r.id = Some(id),)* }
            }

            /// Every kind has a required name.
            pub fn name(&self) -> &str {
                match self { $(RefRecord::$kind(r) => &r.name,)* }
            }

            /// The code, for the kinds that have one.
            pub fn code(&self) -> Option<&str> {
                match self { $(RefRecord::$kind(r) => r.code(),)* }
            }

            pub fn metadata(&self) -> Option<&Metadata> {
                match self { $(RefRecord::$kind(r) => r.metadata.as_ref(),)* }
            }

            pub fn set_metadata(&mut self, metadata: Option<Metadata>) {
                match self { $(RefRecord::$kind(r) => r.metadata = metadata,)* }
            }

            /// The record's values for [`RefKind::unique_keys`], in that order.
            pub fn unique_values(&self) -> Vec<UniqueValue<'_>> {
                match self { $(RefRecord::$kind(r) => r.unique_values(),)* }
            }

            /// The other reference records this one points to, as `(field, kind, id)`.
            pub fn references(&self) -> Vec<Link> {
                match self { $(RefRecord::$kind(r) => r.links(),)* }
            }
        }

        $(
            impl folio::Record for $kind {
                const TABLE: RecordTable = RecordTable {
                    table: concat!("ref_", $name),
                    record_type: $name, cached: true,
                    columns: COLUMNS,
                };
                const NAME: &'static str = $name;
                const QUERY: &'static [QueryField] = kinds!(@query $($query)?);

                folio::id_and_metadata!();
                fn columns(&self) -> Vec<ColumnValue> {
                    columns(self)
                }
            }

            impl Reference for $kind {
                const KIND: RefKind = RefKind::$kind;
                const UNIQUE: &'static [Unique] =
                    kinds!(@unique $([$($unique $(within $within)?),*])?);
                fn name(&self) -> &str {
                    &self.name
                }
                fn code(&self) -> Option<&str> {
                    kinds!(@code self $(, $code)?)
                }
                fn links(&self) -> Vec<Link> {
                    kinds!(@links self $(, $links)?)
                }
            }

            impl From<$kind> for RefRecord {
                fn from(record: $kind) -> RefRecord {
                    RefRecord::$kind(record)
                }
            }
        )*
    };
}

// The declaration table. Order matters: see `RefKind::ALL`. The unique values are
// FOLIO's unique indexes (mod-inventory-storage's `db_scripts/schema.json`;
// mod-entities-links' tables for authority note types).
kinds! {
    InstanceType {
        path: "/instance-types", key: "instanceTypes", name: "instance_type",
        code: code, unique: [name, code], query: SOURCE
    }
    ContributorNameType {
        path: "/contributor-name-types", key: "contributorNameTypes",
        name: "contributor_name_type", query: SOURCE
    }
    IdentifierType {
        path: "/identifier-types", key: "identifierTypes", name: "identifier_type", query: SOURCE
    }
    HoldingsType {
        path: "/holdings-types", key: "holdingsTypes", name: "holdings_type", query: SOURCE
    }
    HoldingsSource {
        path: "/holdings-sources", key: "holdingsRecordsSources", name: "holdings_source",
        query: SOURCE
    }
    CallNumberType {
        path: "/call-number-types", key: "callNumberTypes", name: "call_number_type",
        query: SOURCE
    }
    InstanceStatus {
        path: "/instance-statuses", key: "instanceStatuses", name: "instance_status",
        code: code, unique: [name, code], query: SOURCE
    }
    ModeOfIssuance {
        path: "/modes-of-issuance", key: "issuanceModes", name: "mode_of_issuance",
        query: SOURCE
    }
    AlternativeTitleType {
        path: "/alternative-title-types", key: "alternativeTitleTypes",
        name: "alternative_title_type", query: SOURCE
    }
    ClassificationType {
        path: "/classification-types", key: "classificationTypes", name: "classification_type",
        query: SOURCE
    }
    ContributorType {
        path: "/contributor-types", key: "contributorTypes", name: "contributor_type",
        code: code, unique: [name, code], query: SOURCE
    }
    ElectronicAccessRelationship {
        path: "/electronic-access-relationships", key: "electronicAccessRelationships",
        name: "electronic_access_relationship", query: SOURCE
    }
    InstanceDateType {
        path: "/instance-date-types", key: "instanceDateTypes", name: "instance_date_type",
        code: code, unique: [], query: SOURCE
    }
    InstanceFormat {
        path: "/instance-formats", key: "instanceFormats", name: "instance_format",
        code: code, unique: [name, code], query: SOURCE
    }
    InstanceNoteType {
        path: "/instance-note-types", key: "instanceNoteTypes", name: "instance_note_type",
        query: SOURCE
    }
    InstanceRelationshipType {
        path: "/instance-relationship-types", key: "instanceRelationshipTypes",
        name: "instance_relationship_type"
    }
    NatureOfContentTerm {
        path: "/nature-of-content-terms", key: "natureOfContentTerms",
        name: "nature_of_content_term", query: SOURCE
    }
    SubjectSource {
        path: "/subject-sources", key: "subjectSources", name: "subject_source",
        code: code, unique: [name, code], query: SOURCE
    }
    SubjectType {
        path: "/subject-types", key: "subjectTypes", name: "subject_type", query: SOURCE
    }
    HoldingsNoteType {
        path: "/holdings-note-types", key: "holdingsNoteTypes", name: "holdings_note_type",
        query: SOURCE
    }
    IllPolicy { path: "/ill-policies", key: "illPolicies", name: "ill_policy", query: SOURCE }
    ItemNoteType {
        path: "/item-note-types", key: "itemNoteTypes", name: "item_note_type", query: SOURCE
    }
    ItemDamagedStatus {
        path: "/item-damaged-statuses", key: "itemDamageStatuses", name: "item_damaged_status",
        query: SOURCE
    }
    StatisticalCodeType {
        path: "/statistical-code-types", key: "statisticalCodeTypes",
        name: "statistical_code_type", unique: [], query: SOURCE
    }
    StatisticalCode {
        path: "/statistical-codes", key: "statisticalCodes", name: "statistical_code",
        code: code, unique: [name, code within statisticalCodeTypeId],
        links: statistical_code_links, query: STATISTICAL_CODE_QUERY
    }
    AuthorityNoteType {
        path: "/authority-note-types", key: "authorityNoteTypes", name: "authority_note_type",
        query: SOURCE
    }
    MaterialType {
        path: "/material-types", key: "mtypes", name: "material_type", query: SOURCE
    }
    LoanType { path: "/loan-types", key: "loantypes", name: "loan_type", query: SOURCE }
    Institution {
        path: "/location-units/institutions", key: "locinsts", name: "institution", code: code
    }
    Campus {
        path: "/location-units/campuses", key: "loccamps", name: "campus", code: code,
        links: campus_links
    }
    Library {
        path: "/location-units/libraries", key: "loclibs", name: "library", code: code,
        links: library_links
    }
    ServicePoint {
        path: "/service-points", key: "servicepoints", name: "service_point",
        code: code, unique: [name, code], query: SERVICE_POINT_QUERY
    }
    Location {
        path: "/locations", key: "locations", name: "location", code: code,
        unique: [name, code], links: location_links, query: LOCATION_QUERY
    }
}

// FOLIO enforces the location-unit links (`institutionId`, `campusId`, `libraryId`) and
// a statistical code's `statisticalCodeTypeId` with foreign keys; it does not check a
// location's `primaryServicePoint` or `servicePointIds`, which are listed too so that
// the caller can choose.

fn campus_links(campus: &Campus) -> Vec<Link> {
    vec![("institutionId", RefKind::Institution, campus.institution_id)]
}

fn library_links(library: &Library) -> Vec<Link> {
    vec![("campusId", RefKind::Campus, library.campus_id)]
}

fn location_links(location: &Location) -> Vec<Link> {
    let mut links = vec![
        ("institutionId", RefKind::Institution, location.institution_id),
        ("campusId", RefKind::Campus, location.campus_id),
        ("libraryId", RefKind::Library, location.library_id),
        ("primaryServicePoint", RefKind::ServicePoint, location.primary_service_point),
    ];
    links.extend(
        location.service_point_ids.iter().map(|id| ("servicePointIds", RefKind::ServicePoint, *id)),
    );
    links
}

fn statistical_code_links(code: &StatisticalCode) -> Vec<Link> {
    vec![("statisticalCodeTypeId", RefKind::StatisticalCodeType, code.statistical_code_type_id)]
}

impl RefKind {
    pub fn all() -> &'static [RefKind] {
        RefKind::ALL
    }

    /// The kind served at `path` (exactly [`RefKind::path`]), if any.
    pub fn from_path(path: &str) -> Option<RefKind> {
        RefKind::ALL.iter().copied().find(|kind| kind.path() == path)
    }

    /// What FOLIO keeps unique among the records of this kind: most kinds a `name`,
    /// some also a `code`; a statistical code's code only within its type; nothing at
    /// all for statistical code types and instance date types. Location units' codes
    /// are *not* unique in FOLIO.
    pub fn unique_keys(self) -> &'static [Unique] {
        struct UniqueKeys;
        impl KindVisitor for UniqueKeys {
            type Out = &'static [Unique];
            fn visit<T: Reference>(self) -> Self::Out {
                T::UNIQUE
            }
        }
        self.visit(UniqueKeys)
    }

    /// Decodes one record of this kind from a request body, with the same errors as
    /// [`decode`].
    pub fn decode(self, body: &[u8]) -> Result<RefRecord, DecodeError> {
        struct Decode<'b>(&'b [u8]);
        impl KindVisitor for Decode<'_> {
            type Out = Result<RefRecord, DecodeError>;
            fn visit<T: Reference>(self) -> Self::Out {
                decode::<T>(self.0).map(Into::into)
            }
        }
        self.visit(Decode(body))
    }

    /// Decodes a JSON array of records of this kind (the seed files' shape).
    pub fn decode_array(self, json: &str) -> Result<Vec<RefRecord>, serde_json::Error> {
        struct DecodeArray<'j>(&'j str);
        impl KindVisitor for DecodeArray<'_> {
            type Out = Result<Vec<RefRecord>, serde_json::Error>;
            fn visit<T: Reference>(self) -> Self::Out {
                Ok(serde_json::from_str::<Vec<T>>(self.0)?.into_iter().map(Into::into).collect())
            }
        }
        self.visit(DecodeArray(json))
    }
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};

    use super::{QUERY_FIELDS, RefKind, RefRecord};

    #[test]
    fn kinds_table() {
        let mut actual = String::new();
        for kind in RefKind::all() {
            assert_eq!(RefKind::from_path(kind.path()), Some(*kind));
            let unique: Vec<String> = kind
                .unique_keys()
                .iter()
                .map(|key| match key.within {
                    Some(within) => format!("{} within {within}", key.field),
                    None => key.field.to_string(),
                })
                .collect();
            // The shared indexes, then the kind's own, each index once.
            let fields = kind.query_fields();
            let (shared, own) = fields.split_at(QUERY_FIELDS.len());
            assert!(shared.iter().zip(QUERY_FIELDS).all(|(a, b)| a.index == b.index), "{kind:?}");
            let own: Vec<&str> = own.iter().map(|f| f.index).collect();
            for (i, field) in fields.iter().enumerate() {
                assert!(
                    fields[..i].iter().all(|f| !f.index.eq_ignore_ascii_case(field.index)),
                    "{kind:?} declares {} twice",
                    field.index
                );
            }
            actual.push_str(&format!(
                "{:<30} {:<32} {:<29} unique={unique:?} query+={own:?}\n",
                kind.record_type(),
                kind.path(),
                kind.collection_key(),
            ));
        }
        expect![[r#"
            instance_type                  /instance-types                  instanceTypes                 unique=["name", "code"] query+=["source"]
            contributor_name_type          /contributor-name-types          contributorNameTypes          unique=["name"] query+=["source"]
            identifier_type                /identifier-types                identifierTypes               unique=["name"] query+=["source"]
            holdings_type                  /holdings-types                  holdingsTypes                 unique=["name"] query+=["source"]
            holdings_source                /holdings-sources                holdingsRecordsSources        unique=["name"] query+=["source"]
            call_number_type               /call-number-types               callNumberTypes               unique=["name"] query+=["source"]
            instance_status                /instance-statuses               instanceStatuses              unique=["name", "code"] query+=["source"]
            mode_of_issuance               /modes-of-issuance               issuanceModes                 unique=["name"] query+=["source"]
            alternative_title_type         /alternative-title-types         alternativeTitleTypes         unique=["name"] query+=["source"]
            classification_type            /classification-types            classificationTypes           unique=["name"] query+=["source"]
            contributor_type               /contributor-types               contributorTypes              unique=["name", "code"] query+=["source"]
            electronic_access_relationship /electronic-access-relationships electronicAccessRelationships unique=["name"] query+=["source"]
            instance_date_type             /instance-date-types             instanceDateTypes             unique=[] query+=["source"]
            instance_format                /instance-formats                instanceFormats               unique=["name", "code"] query+=["source"]
            instance_note_type             /instance-note-types             instanceNoteTypes             unique=["name"] query+=["source"]
            instance_relationship_type     /instance-relationship-types     instanceRelationshipTypes     unique=["name"] query+=[]
            nature_of_content_term         /nature-of-content-terms         natureOfContentTerms          unique=["name"] query+=["source"]
            subject_source                 /subject-sources                 subjectSources                unique=["name", "code"] query+=["source"]
            subject_type                   /subject-types                   subjectTypes                  unique=["name"] query+=["source"]
            holdings_note_type             /holdings-note-types             holdingsNoteTypes             unique=["name"] query+=["source"]
            ill_policy                     /ill-policies                    illPolicies                   unique=["name"] query+=["source"]
            item_note_type                 /item-note-types                 itemNoteTypes                 unique=["name"] query+=["source"]
            item_damaged_status            /item-damaged-statuses           itemDamageStatuses            unique=["name"] query+=["source"]
            statistical_code_type          /statistical-code-types          statisticalCodeTypes          unique=[] query+=["source"]
            statistical_code               /statistical-codes               statisticalCodes              unique=["name", "code within statisticalCodeTypeId"] query+=["source", "statisticalCodeTypeId"]
            authority_note_type            /authority-note-types            authorityNoteTypes            unique=["name"] query+=["source"]
            material_type                  /material-types                  mtypes                        unique=["name"] query+=["source"]
            loan_type                      /loan-types                      loantypes                     unique=["name"] query+=["source"]
            institution                    /location-units/institutions     locinsts                      unique=["name"] query+=[]
            campus                         /location-units/campuses         loccamps                      unique=["name"] query+=[]
            library                        /location-units/libraries        loclibs                       unique=["name"] query+=[]
            service_point                  /service-points                  servicepoints                 unique=["name", "code"] query+=["pickupLocation"]
            location                       /locations                       locations                     unique=["name", "code"] query+=["primaryServicePoint"]
        "#]].assert_eq(&actual);
    }

    /// `(field, value)` for each unique value, the field followed by its scope if any.
    fn unique(record: &RefRecord) -> Vec<(String, &str)> {
        record
            .unique_values()
            .into_iter()
            .map(|v| match v.scope {
                Some(scope) => (format!("{} within {scope}", v.key.field), v.value),
                None => (v.key.field.to_string(), v.value),
            })
            .collect()
    }

    /// Decodes `body` as `kind` and prints the accessors, or the error.
    fn check(kind: RefKind, body: &str, expect: Expect) {
        let actual = match kind.decode(body.as_bytes()) {
            Ok(record) => {
                assert_eq!(record.kind(), kind);
                format!(
                    "id={:?} name={:?} unique={:?} refs={:?}\n{}",
                    record.id().map(|id| id.to_string()),
                    record.name(),
                    unique(&record),
                    record.references(),
                    serde_json::to_string(&record).unwrap()
                )
            }
            Err(e) => format!("{e:?}"),
        };
        expect.assert_eq(&actual);
    }

    #[test]
    fn accessors() {
        check(
            RefKind::MaterialType,
            r#"{"id": "1a54b431-2e4f-452d-9cae-9cee66c9a892", "name": "book", "source": "folio"}"#,
            expect![[r#"
                id=Some("1a54b431-2e4f-452d-9cae-9cee66c9a892") name="book" unique=[("name", "book")] refs=[]
                {"id":"1a54b431-2e4f-452d-9cae-9cee66c9a892","name":"book","source":"folio"}"#]],
        );
        check(
            RefKind::LoanType,
            r#"{"name": "Overnight"}"#,
            expect![[r#"
                id=None name="Overnight" unique=[("name", "Overnight")] refs=[]
                {"name":"Overnight","source":"local"}"#]],
        );
        check(
            RefKind::ServicePoint,
            r#"{"name": "Circ Desk 3", "code": "cd3", "discoveryDisplayName": "Desk 3",
                "pickupLocation": true,
                "holdShelfExpiryPeriod": {"duration": 3, "intervalId": "Weeks"}}"#,
            expect![[r#"
                id=None name="Circ Desk 3" unique=[("name", "Circ Desk 3"), ("code", "cd3")] refs=[]
                {"name":"Circ Desk 3","code":"cd3","discoveryDisplayName":"Desk 3","pickupLocation":true,"holdShelfExpiryPeriod":{"duration":3,"intervalId":"Weeks"},"holdShelfClosedLibraryDateManagement":"Keep_the_current_due_date","staffSlips":[],"ecsRequestRouting":false}"#]],
        );
        check(
            RefKind::Location,
            r#"{"name": "Stacks", "code": "U/M/L/S",
                "institutionId": "00000000-0000-4000-8000-000000000001",
                "campusId": "00000000-0000-4000-8000-000000000002",
                "libraryId": "00000000-0000-4000-8000-000000000003",
                "primaryServicePoint": "00000000-0000-4000-8000-000000000004",
                "servicePointIds": ["00000000-0000-4000-8000-000000000004"],
                "details": {"floor": 3}}"#,
            expect![[r#"
                id=None name="Stacks" unique=[("name", "Stacks"), ("code", "U/M/L/S")] refs=[("institutionId", Institution, 00000000-0000-4000-8000-000000000001), ("campusId", Campus, 00000000-0000-4000-8000-000000000002), ("libraryId", Library, 00000000-0000-4000-8000-000000000003), ("primaryServicePoint", ServicePoint, 00000000-0000-4000-8000-000000000004), ("servicePointIds", ServicePoint, 00000000-0000-4000-8000-000000000004)]
                {"name":"Stacks","code":"U/M/L/S","institutionId":"00000000-0000-4000-8000-000000000001","campusId":"00000000-0000-4000-8000-000000000002","libraryId":"00000000-0000-4000-8000-000000000003","details":{"floor":3},"primaryServicePoint":"00000000-0000-4000-8000-000000000004","servicePointIds":["00000000-0000-4000-8000-000000000004"],"isShadow":false}"#]],
        );
        check(
            RefKind::StatisticalCode,
            r#"{"name": "Book, print (books)", "code": "books", "source": "UC",
                "statisticalCodeTypeId": "3abd6fc2-b3e4-4879-b1e1-78be41769fe3"}"#,
            expect![[r#"
                id=None name="Book, print (books)" unique=[("name", "Book, print (books)"), ("code within 3abd6fc2-b3e4-4879-b1e1-78be41769fe3", "books")] refs=[("statisticalCodeTypeId", StatisticalCodeType, 3abd6fc2-b3e4-4879-b1e1-78be41769fe3)]
                {"name":"Book, print (books)","code":"books","statisticalCodeTypeId":"3abd6fc2-b3e4-4879-b1e1-78be41769fe3","source":"UC"}"#]],
        );
        check(
            RefKind::SubjectSource,
            r#"{"name": "Source not specified", "source": "folio"}"#,
            expect![[r#"
                id=None name="Source not specified" unique=[("name", "Source not specified")] refs=[]
                {"name":"Source not specified","source":"folio"}"#]],
        );
        check(
            RefKind::SubjectSource,
            r#"{"name": "Mine", "source": "mine"}"#,
            expect![[
                r#"Invalid { field: "source", message: "unknown variant `mine`, expected one of `folio`, `local`, `consortium`", value: Some("mine") }"#
            ]],
        );
        check(
            RefKind::InstanceDateType,
            r#"{"name": "Multiple dates", "code": "m", "source": "folio",
                "displayFormat": {"delimiter": ",", "keepDelimiter": false}}"#,
            expect![[r#"
                id=None name="Multiple dates" unique=[] refs=[]
                {"name":"Multiple dates","code":"m","displayFormat":{"delimiter":",","keepDelimiter":false},"source":"folio"}"#]],
        );
    }
}
