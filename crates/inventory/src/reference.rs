//! The thirteen kinds of reference record as one small surface: [`RefKind`] names a
//! kind (its FOLIO path, collection key and storage name) and [`RefRecord`] holds a
//! decoded record of any kind, typed.
//!
//! Useful for: generic CRUD over reference data (one route table and one store table
//! shape for all kinds), uniqueness and foreign-key checks. Not useful for: anything
//! kind-specific (service-point pickup rules, location hierarchy consistency), which
//! matches on the variant and uses the model struct.

use serde::Serialize;
use serde::de::DeserializeOwned;
use uuid::Uuid;

use folio::Metadata;
use folio::{DecodeError, decode};

use crate::model::{
    CallNumberType, Campus, ContributorNameType, HoldingsSource, HoldingsType, IdentifierType,
    InstanceType, Institution, Library, LoanType, Location, MaterialType, ServicePoint,
};

/// A kind of reference record FOLIO's inventory storage serves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RefKind {
    InstanceType,
    ContributorNameType,
    IdentifierType,
    HoldingsType,
    HoldingsSource,
    CallNumberType,
    MaterialType,
    LoanType,
    Institution,
    Campus,
    Library,
    Location,
    ServicePoint,
}

impl RefKind {
    /// Every kind. Ordered so that a kind comes after the kinds its records point to
    /// (institution → campus → library, service point → location): seeding in this
    /// order never meets a dangling reference.
    pub const ALL: [RefKind; 13] = [
        RefKind::InstanceType,
        RefKind::ContributorNameType,
        RefKind::IdentifierType,
        RefKind::HoldingsType,
        RefKind::HoldingsSource,
        RefKind::CallNumberType,
        RefKind::MaterialType,
        RefKind::LoanType,
        RefKind::Institution,
        RefKind::Campus,
        RefKind::Library,
        RefKind::ServicePoint,
        RefKind::Location,
    ];

    pub fn all() -> &'static [RefKind] {
        &RefKind::ALL
    }

    /// The FOLIO collection path, e.g. `/material-types`; a record is at
    /// `{path}/{id}`.
    pub fn path(self) -> &'static str {
        match self {
            RefKind::InstanceType => "/instance-types",
            RefKind::ContributorNameType => "/contributor-name-types",
            RefKind::IdentifierType => "/identifier-types",
            RefKind::HoldingsType => "/holdings-types",
            RefKind::HoldingsSource => "/holdings-sources",
            RefKind::CallNumberType => "/call-number-types",
            RefKind::MaterialType => "/material-types",
            RefKind::LoanType => "/loan-types",
            RefKind::Institution => "/location-units/institutions",
            RefKind::Campus => "/location-units/campuses",
            RefKind::Library => "/location-units/libraries",
            RefKind::Location => "/locations",
            RefKind::ServicePoint => "/service-points",
        }
    }

    /// The array key of a collection response, e.g. `mtypes` in
    /// `{"mtypes": [...], "totalRecords": 8}`.
    pub fn collection_key(self) -> &'static str {
        match self {
            RefKind::InstanceType => "instanceTypes",
            RefKind::ContributorNameType => "contributorNameTypes",
            RefKind::IdentifierType => "identifierTypes",
            RefKind::HoldingsType => "holdingsTypes",
            RefKind::HoldingsSource => "holdingsRecordsSources",
            RefKind::CallNumberType => "callNumberTypes",
            RefKind::MaterialType => "mtypes",
            RefKind::LoanType => "loantypes",
            RefKind::Institution => "locinsts",
            RefKind::Campus => "loccamps",
            RefKind::Library => "loclibs",
            RefKind::Location => "locations",
            RefKind::ServicePoint => "servicepoints",
        }
    }

    /// A short, stable snake-case name (`material_type`), for storage table names and
    /// logs. Invariant: never changes once released, since stored data is keyed by it.
    pub fn record_type(self) -> &'static str {
        match self {
            RefKind::InstanceType => "instance_type",
            RefKind::ContributorNameType => "contributor_name_type",
            RefKind::IdentifierType => "identifier_type",
            RefKind::HoldingsType => "holdings_type",
            RefKind::HoldingsSource => "holdings_source",
            RefKind::CallNumberType => "call_number_type",
            RefKind::MaterialType => "material_type",
            RefKind::LoanType => "loan_type",
            RefKind::Institution => "institution",
            RefKind::Campus => "campus",
            RefKind::Library => "library",
            RefKind::Location => "location",
            RefKind::ServicePoint => "service_point",
        }
    }

    /// The kind served at `path` (exactly [`RefKind::path`]), if any.
    pub fn from_path(path: &str) -> Option<RefKind> {
        RefKind::ALL.into_iter().find(|kind| kind.path() == path)
    }

    /// The fields whose values must be unique among the records of this kind: the
    /// unique indexes of FOLIO's mod-inventory-storage (`db_scripts/schema.json`).
    /// Every kind has a unique `name`; instance types, locations and service points
    /// also a unique `code`. Location units' codes are *not* unique in FOLIO.
    ///
    /// FOLIO compares these values case-insensitively and ignoring accents
    /// (`lower(f_unaccent(value))`, RMB's default for a unique index): "Book" and
    /// "book" clash.
    pub fn unique_field_names(self) -> &'static [&'static str] {
        match self {
            RefKind::InstanceType | RefKind::Location | RefKind::ServicePoint => &["name", "code"],
            RefKind::ContributorNameType
            | RefKind::IdentifierType
            | RefKind::HoldingsType
            | RefKind::HoldingsSource
            | RefKind::CallNumberType
            | RefKind::MaterialType
            | RefKind::LoanType
            | RefKind::Institution
            | RefKind::Campus
            | RefKind::Library => &["name"],
        }
    }

    /// Decodes one record of this kind from a request body, with the same errors as
    /// [`decode`].
    pub fn decode(self, body: &[u8]) -> Result<RefRecord, DecodeError> {
        fn typed<T: DeserializeOwned>(
            body: &[u8],
            wrap: fn(T) -> RefRecord,
        ) -> Result<RefRecord, DecodeError> {
            decode::<T>(body).map(wrap)
        }
        match self {
            RefKind::InstanceType => typed(body, RefRecord::InstanceType),
            RefKind::ContributorNameType => typed(body, RefRecord::ContributorNameType),
            RefKind::IdentifierType => typed(body, RefRecord::IdentifierType),
            RefKind::HoldingsType => typed(body, RefRecord::HoldingsType),
            RefKind::HoldingsSource => typed(body, RefRecord::HoldingsSource),
            RefKind::CallNumberType => typed(body, RefRecord::CallNumberType),
            RefKind::MaterialType => typed(body, RefRecord::MaterialType),
            RefKind::LoanType => typed(body, RefRecord::LoanType),
            RefKind::Institution => typed(body, RefRecord::Institution),
            RefKind::Campus => typed(body, RefRecord::Campus),
            RefKind::Library => typed(body, RefRecord::Library),
            RefKind::Location => typed(body, RefRecord::Location),
            RefKind::ServicePoint => typed(body, RefRecord::ServicePoint),
        }
    }

    /// Decodes a JSON array of records of this kind (the seed files' shape).
    pub fn decode_array(self, json: &str) -> Result<Vec<RefRecord>, serde_json::Error> {
        fn typed<T: DeserializeOwned>(
            json: &str,
            wrap: fn(T) -> RefRecord,
        ) -> Result<Vec<RefRecord>, serde_json::Error> {
            Ok(serde_json::from_str::<Vec<T>>(json)?.into_iter().map(wrap).collect())
        }
        match self {
            RefKind::InstanceType => typed(json, RefRecord::InstanceType),
            RefKind::ContributorNameType => typed(json, RefRecord::ContributorNameType),
            RefKind::IdentifierType => typed(json, RefRecord::IdentifierType),
            RefKind::HoldingsType => typed(json, RefRecord::HoldingsType),
            RefKind::HoldingsSource => typed(json, RefRecord::HoldingsSource),
            RefKind::CallNumberType => typed(json, RefRecord::CallNumberType),
            RefKind::MaterialType => typed(json, RefRecord::MaterialType),
            RefKind::LoanType => typed(json, RefRecord::LoanType),
            RefKind::Institution => typed(json, RefRecord::Institution),
            RefKind::Campus => typed(json, RefRecord::Campus),
            RefKind::Library => typed(json, RefRecord::Library),
            RefKind::Location => typed(json, RefRecord::Location),
            RefKind::ServicePoint => typed(json, RefRecord::ServicePoint),
        }
    }
}

/// One reference record of any kind, typed. Serialises as the inner record, in
/// FOLIO's shape.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum RefRecord {
    InstanceType(InstanceType),
    ContributorNameType(ContributorNameType),
    IdentifierType(IdentifierType),
    HoldingsType(HoldingsType),
    HoldingsSource(HoldingsSource),
    CallNumberType(CallNumberType),
    MaterialType(MaterialType),
    LoanType(LoanType),
    Institution(Institution),
    Campus(Campus),
    Library(Library),
    Location(Location),
    ServicePoint(ServicePoint),
}

/// Applies `$body` to the inner record, whatever its kind; for the accessors every
/// model has under the same name.
macro_rules! each_record {
    ($record:expr, $r:ident => $body:expr) => {
        match $record {
            RefRecord::InstanceType($r) => $body,
            RefRecord::ContributorNameType($r) => $body,
            RefRecord::IdentifierType($r) => $body,
            RefRecord::HoldingsType($r) => $body,
            RefRecord::HoldingsSource($r) => $body,
            RefRecord::CallNumberType($r) => $body,
            RefRecord::MaterialType($r) => $body,
            RefRecord::LoanType($r) => $body,
            RefRecord::Institution($r) => $body,
            RefRecord::Campus($r) => $body,
            RefRecord::Library($r) => $body,
            RefRecord::Location($r) => $body,
            RefRecord::ServicePoint($r) => $body,
        }
    };
}

impl RefRecord {
    pub fn kind(&self) -> RefKind {
        match self {
            RefRecord::InstanceType(_) => RefKind::InstanceType,
            RefRecord::ContributorNameType(_) => RefKind::ContributorNameType,
            RefRecord::IdentifierType(_) => RefKind::IdentifierType,
            RefRecord::HoldingsType(_) => RefKind::HoldingsType,
            RefRecord::HoldingsSource(_) => RefKind::HoldingsSource,
            RefRecord::CallNumberType(_) => RefKind::CallNumberType,
            RefRecord::MaterialType(_) => RefKind::MaterialType,
            RefRecord::LoanType(_) => RefKind::LoanType,
            RefRecord::Institution(_) => RefKind::Institution,
            RefRecord::Campus(_) => RefKind::Campus,
            RefRecord::Library(_) => RefKind::Library,
            RefRecord::Location(_) => RefKind::Location,
            RefRecord::ServicePoint(_) => RefKind::ServicePoint,
        }
    }

    /// `None` on a create request without an id; the server then assigns one.
    pub fn id(&self) -> Option<Uuid> {
        each_record!(self, r => r.id)
    }

    pub fn set_id(&mut self, id: Uuid) {
        each_record!(self, r => r.id = Some(id))
    }

    /// Every kind has a required name.
    pub fn name(&self) -> &str {
        each_record!(self, r => &r.name)
    }

    pub fn metadata(&self) -> Option<&Metadata> {
        each_record!(self, r => r.metadata.as_ref())
    }

    pub fn set_metadata(&mut self, metadata: Option<Metadata>) {
        each_record!(self, r => r.metadata = metadata)
    }

    /// `(field, value)` for each of [`RefKind::unique_field_names`], in that order.
    pub fn unique_fields(&self) -> Vec<(&'static str, &str)> {
        let mut fields = vec![("name", self.name())];
        match self {
            RefRecord::InstanceType(r) => fields.push(("code", &r.code)),
            RefRecord::Location(r) => fields.push(("code", &r.code)),
            RefRecord::ServicePoint(r) => fields.push(("code", &r.code)),
            RefRecord::ContributorNameType(_)
            | RefRecord::IdentifierType(_)
            | RefRecord::HoldingsType(_)
            | RefRecord::HoldingsSource(_)
            | RefRecord::CallNumberType(_)
            | RefRecord::MaterialType(_)
            | RefRecord::LoanType(_)
            | RefRecord::Institution(_)
            | RefRecord::Campus(_)
            | RefRecord::Library(_) => {}
        }
        fields
    }

    /// The other reference records this one points to, as `(field, kind, id)`.
    ///
    /// FOLIO enforces the location-unit links (`institutionId`, `campusId`,
    /// `libraryId`) with foreign keys; it does not check a location's
    /// `primaryServicePoint` or `servicePointIds`, which are listed too so that the
    /// caller can choose.
    pub fn references(&self) -> Vec<(&'static str, RefKind, Uuid)> {
        match self {
            RefRecord::Campus(r) => vec![("institutionId", RefKind::Institution, r.institution_id)],
            RefRecord::Library(r) => vec![("campusId", RefKind::Campus, r.campus_id)],
            RefRecord::Location(r) => {
                let mut refs = vec![
                    ("institutionId", RefKind::Institution, r.institution_id),
                    ("campusId", RefKind::Campus, r.campus_id),
                    ("libraryId", RefKind::Library, r.library_id),
                    ("primaryServicePoint", RefKind::ServicePoint, r.primary_service_point),
                ];
                refs.extend(
                    r.service_point_ids
                        .iter()
                        .map(|id| ("servicePointIds", RefKind::ServicePoint, *id)),
                );
                refs
            }
            RefRecord::InstanceType(_)
            | RefRecord::ContributorNameType(_)
            | RefRecord::IdentifierType(_)
            | RefRecord::HoldingsType(_)
            | RefRecord::HoldingsSource(_)
            | RefRecord::CallNumberType(_)
            | RefRecord::MaterialType(_)
            | RefRecord::LoanType(_)
            | RefRecord::Institution(_)
            | RefRecord::ServicePoint(_) => Vec::new(),
        }
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
