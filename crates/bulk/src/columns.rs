//! FOLIO's CSV columns of a bulk operation's record files (matched, proposed and
//! committed records), one table per entity type, and a record's stored JSON (FOLIO's
//! storage shape) rendered as one row of them.
//!
//! Cells hold names, not UUIDs: a location, loan type, patron group, ... is shown by its
//! name, looked up once per read through [`Names`]. A dangling id shows as an empty cell
//! (or, in a list, is left out); it never fails the row. Missing values are empty cells,
//! booleans `true`/`false`, dates as stored.
//!
//! Lists and compound values follow mod-bulk-operations' converters (`domain/converter`,
//! `util/Constants.java`): the items of a list are joined by `|` and the parts of one
//! item by `;` (tags, departments, proxies and email preferences, a list of plain values
//! in FOLIO, are joined by `;`; an instance's plain lists by ` | `). Within such
//! joined cells a part's own `|`, `;` and `:` are written `%7C`, `%3B` and `%3A` (FOLIO's
//! `SpecialCharacterEscaper`), so a MANUAL upload can split them back. The cells where
//! FOLIO uses its non-printing delimiters and a heading line (electronic access,
//! publication, subjects, classifications) are written here with plain `|` and `;`,
//! their parts escaped the same way except for `:` (URIs keep their colons).

use std::collections::HashMap;

use folio::Record as _;
use inventory::RefKind;
use serde_json::Value;
use store::Reader;
use uuid::Uuid;

use crate::operation::EntityType;

/// Joins the items of a list (FOLIO's `ITEM_DELIMITER`).
const ITEMS: &str = "|";
/// Joins the items of an instance's plain lists (FOLIO's `ITEM_DELIMITER_SPACED`).
const ITEMS_SPACED: &str = " | ";
/// Joins the parts of one item (FOLIO's `ARRAY_DELIMITER`).
const PARTS: &str = ";";
/// Joins the two parts of holdings data (FOLIO's `HOLDINGS_LOCATION_CALL_NUMBER_DELIMITER`).
const LOCATION_CALL_NUMBER: &str = " > ";

const USER_HEADER: &[&str] = &[
    "User name",
    "User id",
    "External system id",
    "Barcode",
    "Active",
    "Type",
    "Patron group",
    "Departments",
    "Proxy for",
    "Last name",
    "First name",
    "Middle name",
    "Preferred first name",
    "Email",
    "Phone",
    "Mobile phone",
    "Date of birth",
    "Addresses",
    "Preferred contact type id",
    "Link to the profile picture",
    "Enrollment date",
    "Expiration date",
    "Tags",
    "Custom fields",
    "Preferred email communications",
];

const ITEM_HEADER: &[&str] = &[
    "Item UUID",
    "Instance (Title, Publisher, Publication date)",
    "Holdings (Location, Call number)",
    "Item effective location",
    "Effective call number",
    "Suppress from discovery",
    "Item HRID",
    "Barcode",
    "Accession number",
    "Item identifier",
    "Former identifier",
    "Statistical codes",
    "Administrative note",
    "Material type",
    "Copy number",
    "Shelving order",
    "Item level call number type",
    "Item level call number prefix",
    "Item level call number",
    "Item level call number suffix",
    "Number of pieces",
    "Description of pieces",
    "Enumeration",
    "Chronology",
    "Volume",
    "Year, caption",
    "Number of missing pieces",
    "Missing pieces",
    "Missing pieces date",
    "Item damaged status",
    "Item damaged status date",
    "Notes",
    "Permanent loan type",
    "Temporary loan type",
    "Status",
    "Check in note",
    "Check out note",
    "Item permanent location",
    "Item temporary location",
    "Electronic access",
    "Tags",
    "Holdings UUID",
];

const HOLDINGS_HEADER: &[&str] = &[
    "Holdings UUID",
    "Instance (Title, Publisher, Publication date)",
    "Suppress from discovery",
    "Holdings HRID",
    "Source",
    "Former holdings Id",
    "Holdings type",
    "Statistical codes",
    "Administrative note",
    "Holdings permanent location",
    "Holdings temporary location",
    "Shelving title",
    "Holdings copy number",
    "Holdings level call number type",
    "Holdings level call number prefix",
    "Holdings level call number",
    "Holdings level call number suffix",
    "Number of items",
    "Holdings statement",
    "Holdings statement for supplements",
    "Holdings statement for indexes",
    "ILL policy",
    "Digitization policy",
    "Retention policy",
    "Notes",
    "Electronic access",
    "Acquisition method",
    "Order format",
    "Receipt status",
    "Tags",
];

const INSTANCE_HEADER: &[&str] = &[
    "Instance UUID",
    "Suppress from discovery",
    "Staff suppress",
    "Previously held",
    "Set for deletion",
    "Instance HRID",
    "Source",
    "Cataloged date",
    "Instance status term",
    "Mode of issuance",
    "Statistical code",
    "Administrative note",
    "Resource title",
    "Index title",
    "Series statements",
    "Contributors",
    "Publication",
    "Edition",
    "Physical description",
    "Resource type",
    "Nature of content",
    "Formats",
    "Languages",
    "Publication frequency",
    "Publication range",
    "Notes",
    "Electronic access",
    "Subject",
    "Classification",
];

/// FOLIO's column headers for `entity`, in order.
pub(crate) fn header(entity: EntityType) -> &'static [&'static str] {
    match entity {
        EntityType::User => USER_HEADER,
        EntityType::Item => ITEM_HEADER,
        EntityType::Holdings => HOLDINGS_HEADER,
        EntityType::Instance => INSTANCE_HEADER,
    }
}

/// One record's cells, in the order of `header(entity)`; as many cells as headers.
pub(crate) fn row(
    r: &Reader<'_>,
    names: &mut Names,
    entity: EntityType,
    record: &Value,
) -> crate::Result<Vec<String>> {
    let cells = match entity {
        EntityType::User => user_row(r, names, record)?,
        EntityType::Item => item_row(r, names, record)?,
        EntityType::Holdings => holdings_row(r, names, record)?,
        EntityType::Instance => instance_row(r, names, record)?,
    };
    debug_assert_eq!(cells.len(), header(entity).len(), "{entity:?} row");
    Ok(cells)
}

/// Names of the records rows refer to, each looked up once for one read: a file of ten
/// thousand items names a handful of locations and loan types, and each holdings record
/// and instance its items sit in once.
#[derive(Default)]
pub(crate) struct Names {
    /// Inventory reference records by kind and id; "" for a dangling id.
    refs: HashMap<(RefKind, Uuid), String>,
    /// Statistical codes as FOLIO shows them: `type name: code - name`.
    statistical_codes: HashMap<Uuid, String>,
    /// Patron groups, departments and address types by id.
    groups: HashMap<Uuid, String>,
    departments: HashMap<Uuid, String>,
    address_types: HashMap<Uuid, String>,
    /// User custom field definitions by `refId`, read on first use.
    custom_fields: Option<HashMap<String, CustomFieldNames>>,
    /// Instances as `Title. Publisher, date`, by instance id.
    titles: HashMap<Uuid, String>,
    /// Holdings records an item sits in, by holdings id.
    holdings: HashMap<Uuid, HoldingsSummary>,
}

/// What an item's row shows of its holdings record.
#[derive(Clone, Default)]
struct HoldingsSummary {
    /// The instance's title line (see [`Names::title`]).
    title: String,
    /// The permanent location's name and the call number, joined by ` > `.
    location_call_number: String,
}

/// A user custom field's name, and its options' values by option id.
struct CustomFieldNames {
    name: String,
    options: HashMap<String, String>,
}

impl Names {
    /// The name of an inventory reference record; "" when there is no id or no record.
    fn reference(
        &mut self,
        r: &Reader<'_>,
        kind: RefKind,
        id: Option<Uuid>,
    ) -> crate::Result<String> {
        let Some(id) = id else { return Ok(String::new()) };
        if let Some(name) = self.refs.get(&(kind, id)) {
            return Ok(name.clone());
        }
        let name = inventory::reference_name(r, kind, id)?.unwrap_or_default();
        self.refs.insert((kind, id), name.clone());
        Ok(name)
    }

    /// The names of a list of reference ids, dangling ones left out.
    fn references(
        &mut self,
        r: &Reader<'_>,
        kind: RefKind,
        ids: &[Value],
    ) -> crate::Result<Vec<String>> {
        let mut out = Vec::with_capacity(ids.len());
        for id in ids {
            let name = self.reference(r, kind, as_uuid(id))?;
            if !name.is_empty() {
                out.push(name);
            }
        }
        Ok(out)
    }

    /// A statistical code as FOLIO shows it, `type name: code - name` (each part
    /// escaped); "" for a dangling id.
    fn statistical_code(&mut self, r: &Reader<'_>, id: Uuid) -> crate::Result<String> {
        if let Some(shown) = self.statistical_codes.get(&id) {
            return Ok(shown.clone());
        }
        let shown = match r.get(&RefKind::StatisticalCode.table(), &id.to_string())? {
            Some(stored) => {
                let code = parse(&stored.body, "statistical code")?;
                let type_name = self.reference(
                    r,
                    RefKind::StatisticalCodeType,
                    uuid_at(&code, "statisticalCodeTypeId"),
                )?;
                format!(
                    "{}: {} - {}",
                    escape(&type_name),
                    escape(&text(&code, "code")),
                    escape(&text(&code, "name"))
                )
            }
            None => String::new(),
        };
        self.statistical_codes.insert(id, shown.clone());
        Ok(shown)
    }

    /// A record's `statisticalCodeIds`, joined by `|`.
    fn statistical_codes(&mut self, r: &Reader<'_>, record: &Value) -> crate::Result<String> {
        let mut out = Vec::new();
        for id in list(record, "statisticalCodeIds") {
            if let Some(id) = as_uuid(id) {
                let shown = self.statistical_code(r, id)?;
                if !shown.is_empty() {
                    out.push(shown);
                }
            }
        }
        Ok(out.join(ITEMS))
    }

    /// One extracted name column of an auth record, cached in `cache`.
    fn column(
        r: &Reader<'_>,
        cache: &mut HashMap<Uuid, String>,
        table: &store::RecordTable,
        column: &str,
        id: Option<Uuid>,
    ) -> crate::Result<String> {
        let Some(id) = id else { return Ok(String::new()) };
        if let Some(name) = cache.get(&id) {
            return Ok(name.clone());
        }
        let name = r.get_column(table, &id.to_string(), column)?.flatten().unwrap_or_default();
        cache.insert(id, name.clone());
        Ok(name)
    }

    fn group(&mut self, r: &Reader<'_>, id: Option<Uuid>) -> crate::Result<String> {
        Self::column(r, &mut self.groups, &auth::PatronGroup::TABLE, "group_name", id)
    }

    fn department(&mut self, r: &Reader<'_>, id: Option<Uuid>) -> crate::Result<String> {
        Self::column(r, &mut self.departments, &auth::Department::TABLE, "name", id)
    }

    fn address_type(&mut self, r: &Reader<'_>, id: Option<Uuid>) -> crate::Result<String> {
        Self::column(r, &mut self.address_types, &auth::AddressType::TABLE, "address_type", id)
    }

    /// The user custom field definitions, read once.
    fn custom_fields(
        &mut self,
        r: &Reader<'_>,
    ) -> crate::Result<&HashMap<String, CustomFieldNames>> {
        if self.custom_fields.is_none() {
            let mut fields = HashMap::new();
            for stored in auth::custom_fields(r)? {
                let field = stored.record;
                let Some(ref_id) = field.ref_id else { continue };
                let options = field
                    .select_field
                    .map(|select| {
                        select
                            .options
                            .values
                            .into_iter()
                            .filter_map(|option| Some((option.id?, option.value)))
                            .collect()
                    })
                    .unwrap_or_default();
                fields.insert(ref_id, CustomFieldNames { name: field.name, options });
            }
            self.custom_fields = Some(fields);
        }
        Ok(self.custom_fields.get_or_insert_with(HashMap::new))
    }

    /// An instance as FOLIO's "Instance (Title, Publisher, Publication date)" shows it:
    /// the title, then `. publisher, date` of the first publication (`. publisher`
    /// without a date); "" for a dangling id.
    fn title(&mut self, r: &Reader<'_>, instance_id: Option<Uuid>) -> crate::Result<String> {
        let Some(id) = instance_id else { return Ok(String::new()) };
        if let Some(title) = self.titles.get(&id) {
            return Ok(title.clone());
        }
        let title = match r.get(&inventory::INSTANCES, &id.to_string())? {
            Some(stored) => {
                let instance = parse(&stored.body, "instance")?;
                let mut title = text(&instance, "title");
                if let Some(first) = list(&instance, "publication").first() {
                    let publisher = text(first, "publisher");
                    let date = text(first, "dateOfPublication");
                    if !date.is_empty() {
                        title.push_str(&format!(". {publisher}, {date}"));
                    } else if !publisher.is_empty() {
                        title.push_str(&format!(". {publisher}"));
                    }
                }
                title
            }
            None => String::new(),
        };
        self.titles.insert(id, title.clone());
        Ok(title)
    }

    /// What an item's row shows of the holdings record it sits in.
    fn holdings(
        &mut self,
        r: &Reader<'_>,
        holdings_id: Option<Uuid>,
    ) -> crate::Result<HoldingsSummary> {
        let Some(id) = holdings_id else { return Ok(HoldingsSummary::default()) };
        if let Some(summary) = self.holdings.get(&id) {
            return Ok(summary.clone());
        }
        let summary = match r.get(&inventory::HOLDINGS, &id.to_string())? {
            Some(stored) => {
                let holdings = parse(&stored.body, "holdings record")?;
                let location = self.reference(
                    r,
                    RefKind::Location,
                    uuid_at(&holdings, "permanentLocationId"),
                )?;
                let call_number = ["callNumberPrefix", "callNumber", "callNumberSuffix"]
                    .iter()
                    .map(|key| text(&holdings, key))
                    .filter(|part| !part.is_empty())
                    .collect::<Vec<_>>()
                    .join(" ");
                HoldingsSummary {
                    title: self.title(r, uuid_at(&holdings, "instanceId"))?,
                    location_call_number: format!("{location}{LOCATION_CALL_NUMBER}{call_number}"),
                }
            }
            None => HoldingsSummary::default(),
        };
        self.holdings.insert(id, summary.clone());
        Ok(summary)
    }

    /// Notes as `type name;note;staffOnly`, joined by `|`; `type_key` names the note's
    /// type id.
    fn notes(
        &mut self,
        r: &Reader<'_>,
        record: &Value,
        kind: RefKind,
        type_key: &str,
    ) -> crate::Result<String> {
        let mut out = Vec::new();
        for note in list(record, "notes") {
            let type_name = self.reference(r, kind, uuid_at(note, type_key))?;
            out.push(
                [type_name, text(note, "note"), flag_or_false(note, "staffOnly")]
                    .iter()
                    .map(|part| escape(part))
                    .collect::<Vec<_>>()
                    .join(PARTS),
            );
        }
        Ok(out.join(ITEMS))
    }

    /// Electronic access as `uri;linkText;materialsSpecification;publicNote;relationship
    /// name`, joined by `|`.
    fn electronic_access(&mut self, r: &Reader<'_>, record: &Value) -> crate::Result<String> {
        let mut out = Vec::new();
        for access in list(record, "electronicAccess") {
            let relationship = self.reference(
                r,
                RefKind::ElectronicAccessRelationship,
                uuid_at(access, "relationshipId"),
            )?;
            let parts = [
                text(access, "uri"),
                text(access, "linkText"),
                text(access, "materialsSpecification"),
                text(access, "publicNote"),
                relationship,
            ];
            out.push(join_parts(&parts));
        }
        Ok(out.join(ITEMS))
    }
}

fn user_row(r: &Reader<'_>, names: &mut Names, user: &Value) -> crate::Result<Vec<String>> {
    let personal = user.get("personal").unwrap_or(&Value::Null);
    let mut departments = Vec::new();
    for id in list(user, "departments") {
        let name = names.department(r, as_uuid(id))?;
        if !name.is_empty() {
            departments.push(escape(&name));
        }
    }
    let mut addresses = Vec::new();
    for address in list(personal, "addresses") {
        let address_type = names.address_type(r, uuid_at(address, "addressTypeId"))?;
        let parts = [
            text(address, "id"),
            text(address, "countryId"),
            text(address, "addressLine1"),
            text(address, "addressLine2"),
            text(address, "city"),
            text(address, "region"),
            text(address, "postalCode"),
            text(address, "primaryAddress"),
            address_type,
        ];
        addresses.push(parts.iter().map(|part| escape(part)).collect::<Vec<_>>().join(PARTS));
    }
    Ok(vec![
        text(user, "username"),
        text(user, "id"),
        text(user, "externalSystemId"),
        text(user, "barcode"),
        text(user, "active"),
        text(user, "type"),
        names.group(r, uuid_at(user, "patronGroup"))?,
        departments.join(PARTS),
        strings(user, "proxyFor").join(PARTS),
        text(personal, "lastName"),
        text(personal, "firstName"),
        text(personal, "middleName"),
        text(personal, "preferredFirstName"),
        text(personal, "email"),
        text(personal, "phone"),
        text(personal, "mobilePhone"),
        text(personal, "dateOfBirth"),
        addresses.join(ITEMS),
        text(personal, "preferredContactTypeId"),
        text(personal, "profilePictureLink"),
        text(user, "enrollmentDate"),
        text(user, "expirationDate"),
        tags(user),
        custom_fields(r, names, user)?,
        strings(user, "preferredEmailCommunication").join(PARTS),
    ])
}

/// A user's custom fields as `name:value`, joined by `|`: a select's option by its
/// value, a multi-select's values joined by `;`, line breaks as `\n`.
fn custom_fields(r: &Reader<'_>, names: &mut Names, user: &Value) -> crate::Result<String> {
    let Some(values) = user.get("customFields").and_then(Value::as_object) else {
        return Ok(String::new());
    };
    let fields = names.custom_fields(r)?;
    let mut out = Vec::new();
    for (ref_id, value) in values {
        let field = fields.get(ref_id);
        let shown = |value: &Value| {
            let raw = scalar(value);
            let option = field.and_then(|f| f.options.get(&raw));
            option.cloned().unwrap_or(raw).replace('\n', "\\n")
        };
        let value = match value {
            Value::Array(values) => {
                values.iter().map(|v| escape(&shown(v))).collect::<Vec<_>>().join(PARTS)
            }
            other => escape(&shown(other)),
        };
        let name = field.map_or(ref_id.as_str(), |f| f.name.as_str());
        out.push(format!("{}:{value}", escape(name)));
    }
    Ok(out.join(ITEMS))
}

fn item_row(r: &Reader<'_>, names: &mut Names, item: &Value) -> crate::Result<Vec<String>> {
    let holdings_id = uuid_at(item, "holdingsRecordId");
    let holdings = names.holdings(r, holdings_id)?;
    let effective_call_number = item
        .get("effectiveCallNumberComponents")
        .map(|components| {
            ["prefix", "callNumber", "suffix"]
                .iter()
                .map(|key| text(components, key))
                .filter(|part| !part.is_empty())
                .map(|part| escape(&part))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_default();
    Ok(vec![
        text(item, "id"),
        holdings.title,
        holdings.location_call_number,
        names.reference(r, RefKind::Location, uuid_at(item, "effectiveLocationId"))?,
        effective_call_number,
        text(item, "discoverySuppress"),
        text(item, "hrid"),
        text(item, "barcode"),
        text(item, "accessionNumber"),
        text(item, "itemIdentifier"),
        escaped_list(item, "formerIds", ITEMS),
        names.statistical_codes(r, item)?,
        escaped_list(item, "administrativeNotes", ITEMS),
        names.reference(r, RefKind::MaterialType, uuid_at(item, "materialTypeId"))?,
        text(item, "copyNumber"),
        text(item, "effectiveShelvingOrder"),
        names.reference(r, RefKind::CallNumberType, uuid_at(item, "itemLevelCallNumberTypeId"))?,
        text(item, "itemLevelCallNumberPrefix"),
        text(item, "itemLevelCallNumber"),
        text(item, "itemLevelCallNumberSuffix"),
        text(item, "numberOfPieces"),
        text(item, "descriptionOfPieces"),
        text(item, "enumeration"),
        text(item, "chronology"),
        text(item, "volume"),
        escaped_list(item, "yearCaption", ITEMS),
        text(item, "numberOfMissingPieces"),
        text(item, "missingPieces"),
        text(item, "missingPiecesDate"),
        names.reference(r, RefKind::ItemDamagedStatus, uuid_at(item, "itemDamagedStatusId"))?,
        text(item, "itemDamagedStatusDate"),
        names.notes(r, item, RefKind::ItemNoteType, "itemNoteTypeId")?,
        names.reference(r, RefKind::LoanType, uuid_at(item, "permanentLoanTypeId"))?,
        names.reference(r, RefKind::LoanType, uuid_at(item, "temporaryLoanTypeId"))?,
        item.pointer("/status/name").map(scalar).unwrap_or_default(),
        circulation_notes(item, "Check in"),
        circulation_notes(item, "Check out"),
        names.reference(r, RefKind::Location, uuid_at(item, "permanentLocationId"))?,
        names.reference(r, RefKind::Location, uuid_at(item, "temporaryLocationId"))?,
        names.electronic_access(r, item)?,
        tags(item),
        text(item, "holdingsRecordId"),
    ])
}

/// An item's circulation notes of one type as `note;staffOnly`, joined by `|`.
fn circulation_notes(item: &Value, note_type: &str) -> String {
    list(item, "circulationNotes")
        .iter()
        .filter(|note| note.get("noteType").and_then(Value::as_str) == Some(note_type))
        .map(|note| {
            format!("{}{PARTS}{}", escape(&text(note, "note")), flag_or_false(note, "staffOnly"))
        })
        .collect::<Vec<_>>()
        .join(ITEMS)
}

fn holdings_row(r: &Reader<'_>, names: &mut Names, holdings: &Value) -> crate::Result<Vec<String>> {
    Ok(vec![
        text(holdings, "id"),
        names.title(r, uuid_at(holdings, "instanceId"))?,
        text(holdings, "discoverySuppress"),
        text(holdings, "hrid"),
        names.reference(r, RefKind::HoldingsSource, uuid_at(holdings, "sourceId"))?,
        escaped_list(holdings, "formerIds", ITEMS),
        names.reference(r, RefKind::HoldingsType, uuid_at(holdings, "holdingsTypeId"))?,
        names.statistical_codes(r, holdings)?,
        escaped_list(holdings, "administrativeNotes", ITEMS),
        names.reference(r, RefKind::Location, uuid_at(holdings, "permanentLocationId"))?,
        names.reference(r, RefKind::Location, uuid_at(holdings, "temporaryLocationId"))?,
        text(holdings, "shelvingTitle"),
        text(holdings, "copyNumber"),
        names.reference(r, RefKind::CallNumberType, uuid_at(holdings, "callNumberTypeId"))?,
        text(holdings, "callNumberPrefix"),
        text(holdings, "callNumber"),
        text(holdings, "callNumberSuffix"),
        text(holdings, "numberOfItems"),
        statements(holdings, "holdingsStatements"),
        statements(holdings, "holdingsStatementsForSupplements"),
        statements(holdings, "holdingsStatementsForIndexes"),
        names.reference(r, RefKind::IllPolicy, uuid_at(holdings, "illPolicyId"))?,
        text(holdings, "digitizationPolicy"),
        text(holdings, "retentionPolicy"),
        names.notes(r, holdings, RefKind::HoldingsNoteType, "holdingsNoteTypeId")?,
        names.electronic_access(r, holdings)?,
        text(holdings, "acquisitionMethod"),
        text(holdings, "acquisitionFormat"),
        text(holdings, "receiptStatus"),
        tags(holdings),
    ])
}

/// Holdings statements as `statement;note;staffNote`, joined by `|`.
fn statements(holdings: &Value, key: &str) -> String {
    list(holdings, key)
        .iter()
        .map(|statement| {
            ["statement", "note", "staffNote"]
                .iter()
                .map(|part| escape(&text(statement, part)))
                .collect::<Vec<_>>()
                .join(PARTS)
        })
        .collect::<Vec<_>>()
        .join(ITEMS)
}

fn instance_row(r: &Reader<'_>, names: &mut Names, instance: &Value) -> crate::Result<Vec<String>> {
    let publications = list(instance, "publication")
        .iter()
        .map(|publication| {
            join_parts(&[
                text(publication, "publisher"),
                text(publication, "role"),
                text(publication, "place"),
                text(publication, "dateOfPublication"),
            ])
        })
        .collect::<Vec<_>>()
        .join(ITEMS);
    let mut subjects = Vec::new();
    for subject in list(instance, "subjects") {
        let source = names.reference(r, RefKind::SubjectSource, uuid_at(subject, "sourceId"))?;
        let subject_type = names.reference(r, RefKind::SubjectType, uuid_at(subject, "typeId"))?;
        subjects.push(join_parts(&[text(subject, "value"), source, subject_type]));
    }
    let mut classifications = Vec::new();
    for classification in list(instance, "classifications") {
        let classification_type = names.reference(
            r,
            RefKind::ClassificationType,
            uuid_at(classification, "classificationTypeId"),
        )?;
        classifications
            .push(join_parts(&[classification_type, text(classification, "classificationNumber")]));
    }
    let series = list(instance, "series")
        .iter()
        .map(|series| text(series, "value"))
        .collect::<Vec<_>>()
        .join(ITEMS_SPACED);
    let contributors = list(instance, "contributors")
        .iter()
        .map(|contributor| text(contributor, "name"))
        .collect::<Vec<_>>()
        .join("; ");
    Ok(vec![
        text(instance, "id"),
        flag_or_false(instance, "discoverySuppress"),
        flag_or_false(instance, "staffSuppress"),
        flag_or_false(instance, "previouslyHeld"),
        flag_or_false(instance, "deleted"),
        text(instance, "hrid"),
        text(instance, "source"),
        text(instance, "catalogedDate"),
        names.reference(r, RefKind::InstanceStatus, uuid_at(instance, "statusId"))?,
        names.reference(r, RefKind::ModeOfIssuance, uuid_at(instance, "modeOfIssuanceId"))?,
        names.statistical_codes(r, instance)?,
        strings(instance, "administrativeNotes").join(ITEMS_SPACED),
        text(instance, "title"),
        text(instance, "indexTitle"),
        series,
        contributors,
        publications,
        strings(instance, "editions").join(ITEMS_SPACED),
        strings(instance, "physicalDescriptions").join(ITEMS_SPACED),
        names.reference(r, RefKind::InstanceType, uuid_at(instance, "instanceTypeId"))?,
        names
            .references(r, RefKind::NatureOfContentTerm, list(instance, "natureOfContentTermIds"))?
            .join(ITEMS_SPACED),
        names
            .references(r, RefKind::InstanceFormat, list(instance, "instanceFormatIds"))?
            .join(ITEMS_SPACED),
        strings(instance, "languages").join(ITEMS_SPACED),
        strings(instance, "publicationFrequency").join(ITEMS_SPACED),
        strings(instance, "publicationRange").join(ITEMS_SPACED),
        names.notes(r, instance, RefKind::InstanceNoteType, "instanceNoteTypeId")?,
        names.electronic_access(r, instance)?,
        subjects.join(ITEMS),
        classifications.join(ITEMS),
    ])
}

/// A stored body, as JSON.
fn parse(body: &str, what: &str) -> crate::Result<Value> {
    serde_json::from_str(body).map_err(|e| crate::Error::Corrupt(format!("stored {what}: {e}")))
}

/// A scalar as a cell: a string as is, a number or boolean written out; anything else
/// (absent, null, an object) as "".
fn scalar(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        _ => String::new(),
    }
}

/// The scalar at `key` of an object.
fn text(object: &Value, key: &str) -> String {
    object.get(key).map(scalar).unwrap_or_default()
}

/// A boolean at `key`, absent or null as `false` (FOLIO's `BooleanNullConverter`).
fn flag_or_false(object: &Value, key: &str) -> String {
    object.get(key).and_then(Value::as_bool).unwrap_or(false).to_string()
}

/// The array at `key` of an object; empty when absent or not an array.
fn list<'v>(object: &'v Value, key: &str) -> &'v [Value] {
    object.get(key).and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

/// The non-empty scalars of the array at `key`.
fn strings(object: &Value, key: &str) -> Vec<String> {
    list(object, key).iter().map(scalar).filter(|s| !s.is_empty()).collect()
}

/// The scalars of the array at `key`, escaped and joined by `delimiter`.
fn escaped_list(object: &Value, key: &str, delimiter: &str) -> String {
    strings(object, key).iter().map(|s| escape(s)).collect::<Vec<_>>().join(delimiter)
}

/// A record's tags (`tags.tagList`), escaped and joined by `;` as FOLIO's
/// `TagsConverter` does.
fn tags(record: &Value) -> String {
    record.get("tags").map(|tags| escaped_list(tags, "tagList", PARTS)).unwrap_or_default()
}

fn as_uuid(value: &Value) -> Option<Uuid> {
    value.as_str().and_then(|s| Uuid::parse_str(s).ok())
}

/// The UUID at `key`; `None` when absent or not a UUID (shown as a dangling id).
fn uuid_at(object: &Value, key: &str) -> Option<Uuid> {
    object.get(key).and_then(as_uuid)
}

/// FOLIO's `SpecialCharacterEscaper.escape`: the delimiters a part may not hold.
fn escape(part: &str) -> String {
    part.replace('|', "%7C").replace(';', "%3B").replace(':', "%3A")
}

/// Parts of an item of the cells FOLIO writes with its non-printing delimiters
/// (electronic access, publication, subject, classification): `|` and `;` escaped as
/// [`escape`] does, `:` kept, joined by `;`.
fn join_parts(parts: &[String]) -> String {
    parts
        .iter()
        .map(|part| part.replace('|', "%7C").replace(';', "%3B"))
        .collect::<Vec<_>>()
        .join(PARTS)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use folio::Actor;
    use serde_json::json;

    use super::*;

    /// Seed reference records (`crates/inventory/reference_data`).
    const MAIN_LIBRARY: &str = "fcd64ce1-6995-48f0-840e-89ffa2288371";
    const BOOK: &str = "1a54b431-2e4f-452d-9cae-9cee66c9a892";
    const CAN_CIRCULATE: &str = "2b94c631-fca9-4892-a730-03ee529ffe27";
    const FOLIO_SOURCE: &str = "f32d531e-df79-46b3-8932-cdd35f7a2264";
    const TEXT_TYPE: &str = "6312d172-f0cf-40f6-b27d-9fa8feaf332f";

    struct Fixture {
        _dir: tempfile::TempDir,
        tenant: Arc<store::Tenant>,
        instance: Value,
        holdings: Value,
        item: Value,
    }

    /// A tenant with reference data and one instance, holdings record and item.
    fn fixture() -> Fixture {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = store::Store::open(
            dir.path(),
            store::testing::options(),
            &[auth::MIGRATIONS, inventory::MIGRATIONS],
        )
        .expect("open store");
        let (tenant, _) = store.create_tenant("diku").expect("tenant");
        tenant.write(inventory::load_reference_data).expect("reference data");
        let (instance, holdings, item) = tenant
            .write(|w| {
                let body = json!({"source": "FOLIO", "title": "A title", "instanceTypeId": TEXT_TYPE,
                    "publication": [{"publisher": "Publisher", "dateOfPublication": "2001"}]});
                let instance: inventory::Instance =
                    inventory::create(w, body.to_string().as_bytes(), Actor::default())?;
                let body = json!({"instanceId": instance.id, "sourceId": FOLIO_SOURCE,
                    "permanentLocationId": MAIN_LIBRARY, "callNumber": "QA 76"});
                let holdings: inventory::HoldingsRecord =
                    inventory::create(w, body.to_string().as_bytes(), Actor::default())?;
                let body = json!({"holdingsRecordId": holdings.id, "status": {"name": "Available"},
                    "materialTypeId": BOOK, "permanentLoanTypeId": CAN_CIRCULATE,
                    "barcode": "b1", "formerIds": ["x|y"],
                    "circulationNotes": [{"noteType": "Check in", "note": "Fragile", "staffOnly": true}]});
                let item: inventory::Item =
                    inventory::create(w, body.to_string().as_bytes(), Actor::default())?;
                Ok::<_, inventory::Error>((instance, holdings, item))
            })
            .expect("records");
        let value = |v: serde_json::Result<Value>| v.expect("json");
        Fixture {
            _dir: dir,
            tenant,
            instance: value(serde_json::to_value(&instance)),
            holdings: value(serde_json::to_value(&holdings)),
            item: value(serde_json::to_value(&item)),
        }
    }

    fn rows(f: &Fixture, entity: EntityType, record: &Value) -> Vec<String> {
        f.tenant.read(|r| row(r, &mut Names::default(), entity, record)).expect("row")
    }

    fn cell<'a>(entity: EntityType, cells: &'a [String], column: &str) -> &'a str {
        let i = header(entity).iter().position(|h| *h == column).expect("column");
        &cells[i]
    }

    #[test]
    fn headers_are_folios() {
        assert_eq!(header(EntityType::User).len(), 25);
        assert_eq!(header(EntityType::Item).len(), 42);
        assert_eq!(header(EntityType::Holdings).len(), 30);
        assert_eq!(header(EntityType::Instance).len(), 29);
    }

    #[test]
    fn rows_have_a_cell_per_header() {
        let f = fixture();
        let user = json!({"id": "8d7fc0e4-3e0a-4e5f-9d3a-2a3b4c5d6e7f", "username": "jo",
            "patronGroup": "00000000-0000-4000-8000-000000000000",
            "departments": ["not-a-uuid"], "personal": {"lastName": "Doe",
            "addresses": [{"addressLine1": "1 Main St; Apt 2", "addressTypeId": "bad"}]},
            "customFields": {"color": "blue"}, "tags": {"tagList": ["a", "b"]}});
        let user_row = rows(&f, EntityType::User, &user);
        assert_eq!(user_row.len(), header(EntityType::User).len());
        assert_eq!(cell(EntityType::User, &user_row, "Patron group"), "");
        assert_eq!(cell(EntityType::User, &user_row, "Last name"), "Doe");
        assert_eq!(cell(EntityType::User, &user_row, "Tags"), "a;b");
        assert_eq!(cell(EntityType::User, &user_row, "Custom fields"), "color:blue");
        assert_eq!(cell(EntityType::User, &user_row, "Addresses"), ";;1 Main St%3B Apt 2;;;;;;");
        for (entity, record) in [
            (EntityType::Item, &f.item),
            (EntityType::Holdings, &f.holdings),
            (EntityType::Instance, &f.instance),
        ] {
            assert_eq!(rows(&f, entity, record).len(), header(entity).len(), "{entity:?}");
        }
        for entity in
            [EntityType::User, EntityType::Item, EntityType::Holdings, EntityType::Instance]
        {
            assert_eq!(rows(&f, entity, &json!({})).len(), header(entity).len(), "{entity:?}");
        }
    }

    #[test]
    fn an_item_row_shows_names() {
        let f = fixture();
        let cells = rows(&f, EntityType::Item, &f.item);
        let at = |column| cell(EntityType::Item, &cells, column);
        assert_eq!(at("Item effective location"), "Main Library");
        assert_eq!(at("Material type"), "book");
        assert_eq!(at("Permanent loan type"), "Can circulate");
        assert_eq!(at("Instance (Title, Publisher, Publication date)"), "A title. Publisher, 2001");
        assert_eq!(at("Holdings (Location, Call number)"), "Main Library > QA 76");
        assert_eq!(at("Effective call number"), "QA 76");
        assert_eq!(at("Status"), "Available");
        assert_eq!(at("Barcode"), "b1");
        assert_eq!(at("Former identifier"), "x%7Cy");
        assert_eq!(at("Check in note"), "Fragile;true");
        assert_eq!(at("Check out note"), "");
        assert_eq!(at("Holdings UUID"), text(&f.holdings, "id"));
        assert!(!cells.iter().any(|c| c.contains(MAIN_LIBRARY) || c.contains(BOOK)));
    }

    #[test]
    fn holdings_and_instance_rows_show_names() {
        let f = fixture();
        let cells = rows(&f, EntityType::Holdings, &f.holdings);
        let at = |column| cell(EntityType::Holdings, &cells, column);
        assert_eq!(at("Source"), "FOLIO");
        assert_eq!(at("Holdings permanent location"), "Main Library");
        assert_eq!(at("Instance (Title, Publisher, Publication date)"), "A title. Publisher, 2001");

        let cells = rows(&f, EntityType::Instance, &f.instance);
        let at = |column| cell(EntityType::Instance, &cells, column);
        assert_eq!(at("Resource type"), "text");
        assert_eq!(at("Resource title"), "A title");
        assert_eq!(at("Publication"), "Publisher;;;2001");
        assert_eq!(at("Staff suppress"), "false");
    }

    #[test]
    fn dangling_references_are_empty() {
        let f = fixture();
        let mut item = f.item.clone();
        item["materialTypeId"] = json!("00000000-0000-4000-8000-000000000001");
        item["holdingsRecordId"] = json!("00000000-0000-4000-8000-000000000002");
        item["statisticalCodeIds"] = json!(["00000000-0000-4000-8000-000000000003"]);
        let cells = rows(&f, EntityType::Item, &item);
        let at = |column| cell(EntityType::Item, &cells, column);
        assert_eq!(at("Material type"), "");
        assert_eq!(at("Instance (Title, Publisher, Publication date)"), "");
        assert_eq!(at("Holdings (Location, Call number)"), "");
        assert_eq!(at("Statistical codes"), "");
    }
}
