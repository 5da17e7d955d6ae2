//! What a rule's target may name: the properties of an instance, a holdings record and
//! an authority that mapping fills, and the kind of each. FOLIO's engine finds these by
//! reflection on its generated record classes; Quire declares them, and a rule whose
//! target is not here is skipped, as FOLIO skips one its class lacks.

/// The kind of value a property holds.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Shape {
    Text,
    /// `"true"` (in any case) is true, anything else false.
    Bool,
    /// A list of strings; each mapped value is added.
    Texts,
    /// One object, filled only by rules that say `createSingleObject` (`dates`).
    Object(&'static [(&'static str, Shape)]),
    /// A list of objects; a rule adds one or fills the one its field began.
    Objects(&'static [(&'static str, Shape)]),
}

use Shape::{Bool, Object, Objects, Text, Texts};

const ELECTRONIC_ACCESS: Shape = Objects(&[
    ("uri", Text),
    ("linkText", Text),
    ("materialsSpecification", Text),
    ("publicNote", Text),
    ("relationshipId", Text),
]);

const LINKED_TITLE: Shape = Objects(&[
    ("title", Text),
    ("hrid", Text),
    ("isbnId", Text),
    ("isbnValue", Text),
    ("issnId", Text),
    ("issnValue", Text),
]);

/// An instance (mod-inventory's `instance.json`).
pub(crate) const INSTANCE: &[(&str, Shape)] = &[
    ("hrid", Text),
    ("source", Text),
    ("title", Text),
    ("indexTitle", Text),
    ("instanceTypeId", Text),
    ("modeOfIssuanceId", Text),
    ("catalogedDate", Text),
    ("statusId", Text),
    ("discoverySuppress", Bool),
    ("staffSuppress", Bool),
    ("deleted", Bool),
    ("previouslyHeld", Bool),
    ("editions", Texts),
    ("languages", Texts),
    ("physicalDescriptions", Texts),
    ("publicationFrequency", Texts),
    ("publicationRange", Texts),
    ("instanceFormatIds", Texts),
    ("administrativeNotes", Texts),
    ("statisticalCodeIds", Texts),
    ("natureOfContentTermIds", Texts),
    ("dates", Object(&[("dateTypeId", Text), ("date1", Text), ("date2", Text)])),
    ("identifiers", Objects(&[("identifierTypeId", Text), ("value", Text)])),
    (
        "alternativeTitles",
        Objects(&[
            ("alternativeTitleTypeId", Text),
            ("alternativeTitle", Text),
            ("authorityId", Text),
        ]),
    ),
    (
        "contributors",
        Objects(&[
            ("name", Text),
            ("authorityId", Text),
            ("contributorNameTypeId", Text),
            ("contributorTypeId", Text),
            ("contributorTypeText", Text),
            ("primary", Bool),
        ]),
    ),
    ("classifications", Objects(&[("classificationTypeId", Text), ("classificationNumber", Text)])),
    (
        "publication",
        Objects(&[
            ("publisher", Text),
            ("place", Text),
            ("dateOfPublication", Text),
            ("role", Text),
        ]),
    ),
    ("notes", Objects(&[("instanceNoteTypeId", Text), ("note", Text), ("staffOnly", Bool)])),
    (
        "subjects",
        Objects(&[("value", Text), ("authorityId", Text), ("sourceId", Text), ("typeId", Text)]),
    ),
    ("series", Objects(&[("value", Text), ("authorityId", Text)])),
    ("electronicAccess", ELECTRONIC_ACCESS),
    ("precedingTitles", LINKED_TITLE),
    ("succeedingTitles", LINKED_TITLE),
];

const STATEMENTS: Shape = Objects(&[("statement", Text), ("note", Text), ("staffNote", Text)]);

/// A holdings record (`holdingsrecord.json`).
pub(crate) const HOLDINGS: &[(&str, Shape)] = &[
    ("hrid", Text),
    ("holdingsTypeId", Text),
    ("permanentLocationId", Text),
    ("temporaryLocationId", Text),
    ("callNumberTypeId", Text),
    ("callNumberPrefix", Text),
    ("callNumber", Text),
    ("callNumberSuffix", Text),
    ("shelvingTitle", Text),
    ("copyNumber", Text),
    ("acquisitionMethod", Text),
    ("receiptStatus", Text),
    ("discoverySuppress", Bool),
    ("formerIds", Texts),
    ("administrativeNotes", Texts),
    ("statisticalCodeIds", Texts),
    ("notes", Objects(&[("holdingsNoteTypeId", Text), ("note", Text), ("staffOnly", Bool)])),
    ("electronicAccess", ELECTRONIC_ACCESS),
    ("holdingsStatements", STATEMENTS),
    ("holdingsStatementsForSupplements", STATEMENTS),
    ("holdingsStatementsForIndexes", STATEMENTS),
];

/// An authority (`authorityDto`): one heading, its see-from and see-also-from tracings.
pub(crate) const AUTHORITY: &[(&str, Shape)] = &[
    ("id", Text),
    ("subjectHeadings", Text),
    ("personalName", Text),
    ("personalNameTitle", Text),
    ("corporateName", Text),
    ("corporateNameTitle", Text),
    ("meetingName", Text),
    ("meetingNameTitle", Text),
    ("uniformTitle", Text),
    ("namedEvent", Text),
    ("chronTerm", Text),
    ("topicalTerm", Text),
    ("geographicName", Text),
    ("genreTerm", Text),
    ("mediumPerfTerm", Text),
    ("generalSubdivision", Text),
    ("geographicSubdivision", Text),
    ("chronSubdivision", Text),
    ("formSubdivision", Text),
    ("sftPersonalName", Texts),
    ("sftPersonalNameTitle", Texts),
    ("sftCorporateName", Texts),
    ("sftCorporateNameTitle", Texts),
    ("sftMeetingName", Texts),
    ("sftMeetingNameTitle", Texts),
    ("sftUniformTitle", Texts),
    ("sftNamedEvent", Texts),
    ("sftChronTerm", Texts),
    ("sftTopicalTerm", Texts),
    ("sftGeographicName", Texts),
    ("sftGenreTerm", Texts),
    ("sftMediumPerfTerm", Texts),
    ("sftGeneralSubdivision", Texts),
    ("sftGeographicSubdivision", Texts),
    ("sftChronSubdivision", Texts),
    ("sftFormSubdivision", Texts),
    ("saftPersonalName", Texts),
    ("saftPersonalNameTitle", Texts),
    ("saftCorporateName", Texts),
    ("saftCorporateNameTitle", Texts),
    ("saftMeetingName", Texts),
    ("saftMeetingNameTitle", Texts),
    ("saftUniformTitle", Texts),
    ("saftNamedEvent", Texts),
    ("saftChronTerm", Texts),
    ("saftTopicalTerm", Texts),
    ("saftGeographicName", Texts),
    ("saftGenreTerm", Texts),
    ("saftMediumPerfTerm", Texts),
    ("saftGeneralSubdivision", Texts),
    ("saftGeographicSubdivision", Texts),
    ("saftChronSubdivision", Texts),
    ("saftFormSubdivision", Texts),
    ("identifiers", Objects(&[("identifierTypeId", Text), ("value", Text)])),
    ("notes", Objects(&[("noteTypeId", Text), ("note", Text)])),
];

/// The shape a dotted target names in `record`, if it names one: `title`,
/// `identifiers.value`, `dates.date1`.
pub(crate) fn resolve(record: &'static [(&'static str, Shape)], target: &str) -> Option<Path> {
    let mut parts = target.split('.');
    let first = parts.next()?;
    let (name, shape) = record.iter().find(|(name, _)| *name == first)?;
    let path = match (shape, parts.next()) {
        (Text | Bool | Texts, None) => Path { field: name, shape: *shape, inner: None },
        (Object(fields) | Objects(fields), Some(second)) => {
            let (inner, inner_shape) = fields.iter().find(|(n, _)| *n == second)?;
            if matches!(inner_shape, Object(_) | Objects(_)) {
                return None;
            }
            Path { field: name, shape: *shape, inner: Some((inner, *inner_shape)) }
        }
        _ => return None,
    };
    if parts.next().is_some() {
        return None;
    }
    Some(path)
}

/// A resolved target: a property, and for an object or list of objects, the property
/// within it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Path {
    pub field: &'static str,
    pub shape: Shape,
    pub inner: Option<(&'static str, Shape)>,
}
