//! The kinds of reference record as one declaration table ([`kinds!`] below): each line
//! names a kind's model, FOLIO path, collection key, stable storage name, unique code
//! and links. From it come [`RefKind`] (the kind as a value), [`RefRecord`] (a record of
//! any kind, typed), the kind's storage table and its [`folio::Record`] impl, so a new
//! kind of reference data is a model struct and one line.
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
    CallNumberType, Campus, ContributorNameType, HoldingsSource, HoldingsType, IdentifierType,
    InstanceStatus, InstanceType, Institution, Library, LoanType, Location, MaterialType,
    ModeOfIssuance, ServicePoint,
};

/// `(field, kind, id)`: a reference record's link to another.
pub type Link = (&'static str, RefKind, Uuid);

/// What reference data storage reads of a kind's model, beyond FOLIO's record verbs.
/// Written by [`kinds!`]; `links` by hand for the kinds that have them.
pub trait Reference: folio::Record + Clone + Into<RefRecord> {
    const KIND: RefKind;
    /// Whether FOLIO keeps the kind's codes unique.
    const UNIQUE_CODE: bool;
    /// Every kind has a required name, unique per tenant.
    fn name(&self) -> &str;
    /// The code, for the kinds whose code FOLIO keeps unique.
    fn unique_code(&self) -> Option<&str>;
    /// The other reference records this one points to.
    fn links(&self) -> Vec<Link>;
}

/// Calls [`KindVisitor::visit`] with a kind's model type, so generic code over
/// [`Reference`] can be chosen by a [`RefKind`] value.
pub trait KindVisitor {
    type Out;
    fn visit<T: Reference>(self) -> Self::Out;
}

/// The columns every reference table has, and the CQL indexes they answer.
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

fn columns<T: Reference>(record: &T) -> Vec<ColumnValue> {
    let links = record.links();
    let link =
        |field: &str| links.iter().find(|(f, _, _)| *f == field).map(|(_, _, id)| id.to_string());
    vec![
        ColumnValue::Text(record.name().to_string()),
        record.unique_code().map(str::to_string).into(),
        link("institutionId").into(),
        link("campusId").into(),
        link("libraryId").into(),
    ]
}

macro_rules! kinds {
    (@has) => { false };
    (@has $code:ident) => { true };
    (@links $record:expr) => { Vec::new() };
    (@links $record:expr, $links:path) => { $links($record) };
    ($(
        $kind:ident {
            path: $path:literal,
            key: $key:literal,
            name: $name:literal
            $(, code: $code:ident)?
            $(, links: $links:path)?
        }
    )*) => {
        /// A kind of reference record FOLIO's inventory storage serves.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum RefKind {
            $($kind,)*
        }

        impl RefKind {
            /// Every kind, ordered so that a kind comes after the kinds its records
            /// point to (institution → campus → library, service point → location):
            /// seeding in this order never meets a dangling reference.
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

            pub fn metadata(&self) -> Option<&Metadata> {
                match self { $(RefRecord::$kind(r) => r.metadata.as_ref(),)* }
            }

            pub fn set_metadata(&mut self, metadata: Option<Metadata>) {
                match self { $(RefRecord::$kind(r) => r.metadata = metadata,)* }
            }

            /// `(field, value)` for each of [`RefKind::unique_field_names`], in that
            /// order.
            pub fn unique_fields(&self) -> Vec<(&'static str, &str)> {
                let code = match self { $(RefRecord::$kind(r) => r.unique_code(),)* };
                let mut fields = vec![("name", self.name())];
                fields.extend(code.map(|code| ("code", code)));
                fields
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
                    record_type: $name,
                    columns: COLUMNS,
                };
                const NAME: &'static str = $name;
                const QUERY: &'static [QueryField] = QUERY_FIELDS;

                folio::id_and_metadata!();
                fn columns(&self) -> Vec<ColumnValue> {
                    columns(self)
                }
            }

            impl Reference for $kind {
                const KIND: RefKind = RefKind::$kind;
                const UNIQUE_CODE: bool = kinds!(@has $($code)?);
                fn name(&self) -> &str {
                    &self.name
                }
                fn unique_code(&self) -> Option<&str> {
                    None$(.or(Some(self.$code.as_str())))?
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

// The declaration table. Order matters: see `RefKind::ALL`.
kinds! {
    InstanceType { path: "/instance-types", key: "instanceTypes", name: "instance_type", code: code }
    ContributorNameType {
        path: "/contributor-name-types", key: "contributorNameTypes", name: "contributor_name_type"
    }
    IdentifierType { path: "/identifier-types", key: "identifierTypes", name: "identifier_type" }
    HoldingsType { path: "/holdings-types", key: "holdingsTypes", name: "holdings_type" }
    HoldingsSource {
        path: "/holdings-sources", key: "holdingsRecordsSources", name: "holdings_source"
    }
    CallNumberType { path: "/call-number-types", key: "callNumberTypes", name: "call_number_type" }
    InstanceStatus {
        path: "/instance-statuses", key: "instanceStatuses", name: "instance_status", code: code
    }
    ModeOfIssuance { path: "/modes-of-issuance", key: "issuanceModes", name: "mode_of_issuance" }
    MaterialType { path: "/material-types", key: "mtypes", name: "material_type" }
    LoanType { path: "/loan-types", key: "loantypes", name: "loan_type" }
    Institution { path: "/location-units/institutions", key: "locinsts", name: "institution" }
    Campus {
        path: "/location-units/campuses", key: "loccamps", name: "campus", links: campus_links
    }
    Library {
        path: "/location-units/libraries", key: "loclibs", name: "library", links: library_links
    }
    ServicePoint { path: "/service-points", key: "servicepoints", name: "service_point", code: code }
    Location {
        path: "/locations", key: "locations", name: "location", code: code, links: location_links
    }
}

// FOLIO enforces the location-unit links (`institutionId`, `campusId`, `libraryId`) with
// foreign keys; it does not check a location's `primaryServicePoint` or
// `servicePointIds`, which are listed too so that the caller can choose.

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

impl RefKind {
    pub fn all() -> &'static [RefKind] {
        RefKind::ALL
    }

    /// The kind served at `path` (exactly [`RefKind::path`]), if any.
    pub fn from_path(path: &str) -> Option<RefKind> {
        RefKind::ALL.iter().copied().find(|kind| kind.path() == path)
    }

    /// The fields whose values must be unique among the records of this kind: the
    /// unique indexes of FOLIO's mod-inventory-storage (`db_scripts/schema.json`).
    /// Every kind has a unique `name`; some also a unique `code`. Location units'
    /// codes are *not* unique in FOLIO.
    ///
    /// FOLIO compares these values case-insensitively and ignoring accents
    /// (`lower(f_unaccent(value))`, RMB's default for a unique index): "Book" and
    /// "book" clash.
    pub fn unique_field_names(self) -> &'static [&'static str] {
        struct UniqueNames;
        impl KindVisitor for UniqueNames {
            type Out = &'static [&'static str];
            fn visit<T: Reference>(self) -> Self::Out {
                if T::UNIQUE_CODE { &["name", "code"] } else { &["name"] }
            }
        }
        self.visit(UniqueNames)
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

    use super::RefKind;

    #[test]
    fn kinds_table() {
        let mut actual = String::new();
        for kind in RefKind::all() {
            assert_eq!(RefKind::from_path(kind.path()), Some(*kind));
            actual.push_str(&format!(
                "{:<22} {:<30} {:<21} unique={:?}\n",
                kind.record_type(),
                kind.path(),
                kind.collection_key(),
                kind.unique_field_names(),
            ));
        }
        expect![[r#"
            instance_type          /instance-types                instanceTypes         unique=["name", "code"]
            contributor_name_type  /contributor-name-types        contributorNameTypes  unique=["name"]
            identifier_type        /identifier-types              identifierTypes       unique=["name"]
            holdings_type          /holdings-types                holdingsTypes         unique=["name"]
            holdings_source        /holdings-sources              holdingsRecordsSources unique=["name"]
            call_number_type       /call-number-types             callNumberTypes       unique=["name"]
            instance_status        /instance-statuses             instanceStatuses      unique=["name", "code"]
            mode_of_issuance       /modes-of-issuance             issuanceModes         unique=["name"]
            material_type          /material-types                mtypes                unique=["name"]
            loan_type              /loan-types                    loantypes             unique=["name"]
            institution            /location-units/institutions   locinsts              unique=["name"]
            campus                 /location-units/campuses       loccamps              unique=["name"]
            library                /location-units/libraries      loclibs               unique=["name"]
            service_point          /service-points                servicepoints         unique=["name", "code"]
            location               /locations                     locations             unique=["name", "code"]
        "#]].assert_eq(&actual);
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
                    record.unique_fields(),
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
    }
}
