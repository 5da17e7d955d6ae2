//! A record's metadata in each format: its MARC (the SRS record, or one made from the
//! instance when it has none, as FOLIO's "Source record storage and Inventory" records
//! source does), with FOLIO's additions for `marc21_withholdings` (a 952 per item, an
//! 856 per electronic access of a holdings record or item) and the suppression mark
//! (999 ff $t); and Dublin Core made from that MARC.

use std::collections::HashMap;

use marc::{Field, Leader, Record, Tag};
use serde_json::Value;
use store::Reader;
use uuid::Uuid;

use crate::Result;
use crate::protocol::Format;

/// What a page's records are made from, read for the whole page at once: four queries
/// a page (MARC, the instances without a MARC record, holdings, items) rather than
/// some a record, each a round trip on PostgreSQL; and the reference names the page's
/// items use, read once.
pub(crate) struct Sources {
    names: Names,
    marc: HashMap<Uuid, srs::Record>,
    /// By id, the bodies of the instances with no live MARC bib, whose MARC is made
    /// from them.
    instances: HashMap<Uuid, String>,
    /// By instance id: each holdings record's id and body. Read for `marc21_withholdings`
    /// only, as are the items.
    holdings: HashMap<Uuid, Vec<(String, Value)>>,
    /// By holdings record id, in the store's order.
    items: HashMap<String, Vec<Value>>,
}

impl Sources {
    pub(crate) fn read(r: &Reader<'_>, ids: &[Uuid], format: Format) -> Result<Sources> {
        let marc = srs::get_many_by_external(r, ids)?;
        let without: Vec<String> = ids
            .iter()
            .filter(|id| marc.get(id).and_then(live_bib).is_none())
            .map(Uuid::to_string)
            .collect();
        let without: Vec<&str> = without.iter().map(String::as_str).collect();
        let instances = r
            .find_by_any(&inventory::INSTANCES, "id", &without)?
            .into_iter()
            .filter_map(|row| Some((Uuid::parse_str(&row.id).ok()?, row.body)))
            .collect();
        let mut holdings: HashMap<Uuid, Vec<(String, Value)>> = HashMap::new();
        let mut items: HashMap<String, Vec<Value>> = HashMap::new();
        if format == Format::Marc21WithHoldings {
            let texts: Vec<String> = ids.iter().map(Uuid::to_string).collect();
            let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
            let rows = r.find_by_any(&inventory::HOLDINGS, "instance_id", &refs)?;
            let holdings_ids: Vec<&str> = rows.iter().map(|h| h.id.as_str()).collect();
            for item in r.find_by_any(&inventory::ITEMS, "holdings_record_id", &holdings_ids)? {
                let item = parse(&item.body);
                if let Some(holding) = item.get("holdingsRecordId").and_then(Value::as_str) {
                    items.entry(holding.to_string()).or_default().push(item);
                }
            }
            for row in &rows {
                let body = parse(&row.body);
                if let Some(instance) = uuid(&body, "instanceId") {
                    holdings.entry(instance).or_default().push((row.id.clone(), body));
                }
            }
        }
        Ok(Sources { names: Names::default(), marc, instances, holdings, items })
    }
}

fn parse(body: &str) -> Value {
    serde_json::from_str(body).unwrap_or(Value::Null)
}

/// Writes the `<metadata>` element of instance `id` from `sources` (read for a page
/// holding it); false (and nothing written) when the instance has neither a live MARC
/// record nor an instance record.
pub(crate) fn write(
    r: &Reader<'_>,
    sources: &mut Sources,
    id: Uuid,
    format: Format,
    mark_suppressed: Option<bool>,
    out: &mut String,
) -> Result<bool> {
    let Some(mut record) = marc_of(sources, id)? else { return Ok(false) };
    if format == Format::Marc21WithHoldings {
        add_holdings(r, sources, id, mark_suppressed.is_some(), &mut record);
    }
    if let Some(suppressed) = mark_suppressed {
        mark(&mut record, id, suppressed);
    }
    out.push_str("<metadata>\n");
    match format {
        Format::OaiDc => marc::dc::write_oai_dc(&record, out),
        Format::Marc21 | Format::Marc21WithHoldings => {
            out.push_str(&marc::marcxml::to_string(&record));
        }
    }
    out.push_str("</metadata>\n");
    Ok(true)
}

/// The instance's live MARC bib, or MARC made from the instance.
fn marc_of(sources: &Sources, id: Uuid) -> Result<Option<Record>> {
    if let Some(content) = sources.marc.get(&id).and_then(live_bib) {
        return Ok(Some(content.clone()));
    }
    let Some(body) = sources.instances.get(&id) else { return Ok(None) };
    let instance: Value = serde_json::from_str(body)
        .map_err(|e| crate::Error::Corrupt(format!("instance {id}: {e}")))?;
    Ok(Some(from_instance(&instance, id)))
}

/// The MARC of a live MARC bib record.
fn live_bib(record: &srs::Record) -> Option<&Record> {
    if record.deleted || record.record_type != srs::RecordType::MarcBib {
        return None;
    }
    record.parsed_record.as_ref()?.content.as_ref()
}

/// MARC made from an instance's own fields: what a harvester needs to show and find it.
pub(crate) fn from_instance(instance: &Value, id: Uuid) -> Record {
    let text = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).map(str::to_string);
    let mut record = Record::new(Leader::new("00000nam a2200000 a 4500").expect("a valid leader"));
    let mut push = |tag: &str, ind: (char, char), subfields: Vec<(char, String)>| {
        let subfields: Vec<(char, &str)> = subfields
            .iter()
            .filter(|(_, v)| !v.is_empty())
            .map(|(c, v)| (*c, v.as_str()))
            .collect();
        if subfields.is_empty() {
            return;
        }
        if let Ok(field) = Tag::new(tag).and_then(|tag| Field::data(tag, ind.0, ind.1, subfields)) {
            record.push(field);
        }
    };
    let mut controls = Vec::new();
    if let Some(hrid) = text(instance, "hrid") {
        controls.push(("001", hrid));
    }
    let list = |key: &str| instance.get(key).and_then(Value::as_array).cloned().unwrap_or_default();
    for contributor in list("contributors") {
        let name = text(&contributor, "name").unwrap_or_default();
        let tag = if contributor.get("primary").and_then(Value::as_bool) == Some(true) {
            "100"
        } else {
            "700"
        };
        push(tag, ('1', ' '), vec![('a', name)]);
    }
    push("245", ('0', '0'), vec![('a', text(instance, "title").unwrap_or_default())]);
    for edition in list("editions") {
        push("250", (' ', ' '), vec![('a', edition.as_str().unwrap_or_default().to_string())]);
    }
    for publication in list("publication") {
        push(
            "264",
            (' ', '1'),
            vec![
                ('a', text(&publication, "place").unwrap_or_default()),
                ('b', text(&publication, "publisher").unwrap_or_default()),
                ('c', text(&publication, "dateOfPublication").unwrap_or_default()),
            ],
        );
    }
    for description in list("physicalDescriptions") {
        push("300", (' ', ' '), vec![('a', description.as_str().unwrap_or_default().to_string())]);
    }
    for subject in list("subjects") {
        let value = subject.as_str().map(str::to_string).or_else(|| text(&subject, "value"));
        push("650", (' ', '4'), vec![('a', value.unwrap_or_default())]);
    }
    for identifier in list("identifiers") {
        push("024", ('8', ' '), vec![('a', text(&identifier, "value").unwrap_or_default())]);
    }
    push("999", ('f', 'f'), vec![('i', id.to_string())]);
    // Control fields go first, in tag order; the data fields follow in tag order.
    let mut fields: Vec<Field> = controls
        .into_iter()
        .filter_map(|(tag, value)| Tag::new(tag).and_then(|t| Field::control(t, value)).ok())
        .collect();
    let (leader, mut data) = record.into_parts();
    data.sort_by(|a, b| a.tag().as_str().cmp(b.tag().as_str()));
    fields.extend(data);
    Record::with_fields(leader, fields)
}

/// FOLIO's suppression mark: `$t` 1 or 0 in the 999 ff field (added when missing).
fn mark(record: &mut Record, id: Uuid, suppressed: bool) {
    let flag = if suppressed { "1" } else { "0" };
    let fields = record.fields_mut();
    let existing =
        fields.iter_mut().find(|f| f.tag().as_str() == "999" && f.indicators() == Some(['f', 'f']));
    match existing {
        Some(field) => {
            field.remove_subfields('t');
            let _ = field.push_subfield('t', flag);
        }
        None => {
            let field = Tag::new("999").and_then(|tag| {
                Field::data(tag, 'f', 'f', [('i', id.to_string().as_str()), ('t', flag)])
            });
            if let Ok(field) = field {
                fields.push(field);
            }
        }
    }
}

/// Reference data names by id, read once per response.
#[derive(Default)]
struct Names {
    records: HashMap<Uuid, Option<Value>>,
}

impl Names {
    fn record(
        &mut self,
        r: &Reader<'_>,
        kind: inventory::RefKind,
        id: Option<Uuid>,
    ) -> Option<&Value> {
        let id = id?;
        self.records
            .entry(id)
            .or_insert_with(|| {
                inventory::get_reference_json(r, kind, id)
                    .ok()
                    .and_then(|body| serde_json::from_str(&body).ok())
            })
            .as_ref()
    }

    fn field(
        &mut self,
        r: &Reader<'_>,
        kind: inventory::RefKind,
        id: Option<Uuid>,
        key: &str,
    ) -> String {
        self.record(r, kind, id)
            .and_then(|v| v.get(key))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    }
}

fn uuid(v: &Value, key: &str) -> Option<Uuid> {
    v.get(key).and_then(Value::as_str).and_then(|s| Uuid::parse_str(s).ok())
}

fn string(v: &Value, key: &str) -> String {
    v.get(key).and_then(Value::as_str).unwrap_or_default().to_string()
}

/// A 952 per item, an 856 per electronic access of a holdings record or item.
fn add_holdings(
    r: &Reader<'_>,
    sources: &mut Sources,
    id: Uuid,
    with_suppression: bool,
    record: &mut Record,
) {
    let Sources { names, holdings, items, .. } = sources;
    let mut holdings: Vec<&(String, Value)> =
        holdings.get(&id).map(|h| h.iter().collect()).unwrap_or_default();
    // Items in the store's order, by holdings record id and then item id.
    holdings.sort_by(|a, b| a.0.cmp(&b.0));
    let mut fields = Vec::new();
    for (holding_id, holding) in &holdings {
        for item in items.get(holding_id).into_iter().flatten() {
            push(
                &mut fields,
                "952",
                ('f', 'f'),
                &item_subfields(r, names, item, holding, with_suppression),
            );
            electronic_access(r, names, item, with_suppression, &mut fields);
        }
    }
    for (_, holding) in &holdings {
        electronic_access(r, names, holding, with_suppression, &mut fields);
    }
    // Before the 999s FOLIO keeps last.
    let at = record
        .fields()
        .iter()
        .position(|f| f.tag().as_str() > "952")
        .unwrap_or(record.fields().len());
    record.fields_mut().splice(at..at, fields);
}

/// An item's 952: where it is, its call number and copy, its loan type and ILL policy.
fn item_subfields(
    r: &Reader<'_>,
    names: &mut Names,
    item: &Value,
    holding: &Value,
    with_suppression: bool,
) -> Vec<(char, String)> {
    use inventory::RefKind;
    let location_id = uuid(item, "effectiveLocationId");
    let location = names.record(r, RefKind::Location, location_id).cloned().unwrap_or(Value::Null);
    let call = item.get("effectiveCallNumberComponents").cloned().unwrap_or(Value::Null);
    let loan_type = uuid(item, "temporaryLoanTypeId").or_else(|| uuid(item, "permanentLoanTypeId"));
    let display = location
        .get("discoveryDisplayName")
        .and_then(Value::as_str)
        .map(str::to_string)
        .unwrap_or_else(|| string(&location, "name"));
    let mut subfields = vec![
        ('a', names.field(r, RefKind::Institution, uuid(&location, "institutionId"), "name")),
        ('b', names.field(r, RefKind::Campus, uuid(&location, "campusId"), "name")),
        ('c', names.field(r, RefKind::Library, uuid(&location, "libraryId"), "name")),
        ('d', display),
        ('e', string(&call, "callNumber")),
        ('f', string(&call, "prefix")),
        ('g', string(&call, "suffix")),
        ('h', names.field(r, RefKind::CallNumberType, uuid(&call, "typeId"), "name")),
        ('i', names.field(r, RefKind::MaterialType, uuid(item, "materialTypeId"), "name")),
        ('j', string(item, "volume")),
        ('k', string(item, "enumeration")),
        ('l', string(item, "chronology")),
        ('m', string(item, "barcode")),
        ('n', string(item, "copyNumber")),
        ('p', names.field(r, RefKind::LoanType, loan_type, "name")),
        ('r', names.field(r, RefKind::IllPolicy, uuid(holding, "illPolicyId"), "name")),
        ('s', string(&location, "name")),
    ];
    if with_suppression {
        let suppressed = item.get("discoverySuppress").and_then(Value::as_bool).unwrap_or(false);
        subfields.push(('t', if suppressed { "1" } else { "0" }.to_string()));
    }
    subfields
}

fn electronic_access(
    r: &Reader<'_>,
    names: &mut Names,
    owner: &Value,
    with_suppression: bool,
    fields: &mut Vec<Field>,
) {
    let Some(links) = owner.get("electronicAccess").and_then(Value::as_array) else { return };
    for link in links {
        let relationship = names.field(
            r,
            inventory::RefKind::ElectronicAccessRelationship,
            uuid(link, "relationshipId"),
            "name",
        );
        let ind2 = match relationship.as_str() {
            "Resource" => '0',
            "Version of resource" => '1',
            "Related resource" => '2',
            "Component part(s) of resource" | "Component part(s)" => '3',
            "Version of component part(s) of resource" | "Version of component part(s)" => '4',
            "No display constant generated" => '8',
            _ => ' ',
        };
        let mut subfields = vec![
            ('3', string(link, "materialsSpecification")),
            ('u', string(link, "uri")),
            ('y', string(link, "linkText")),
            ('z', string(link, "publicNote")),
        ];
        if with_suppression {
            let suppressed =
                owner.get("discoverySuppress").and_then(Value::as_bool).unwrap_or(false);
            subfields.push(('t', if suppressed { "1" } else { "0" }.to_string()));
        }
        push(fields, "856", ('4', ind2), &subfields);
    }
}

fn push(
    fields: &mut Vec<Field>,
    tag: &str,
    (ind1, ind2): (char, char),
    subfields: &[(char, String)],
) {
    let present: Vec<(char, &str)> =
        subfields.iter().filter(|(_, v)| !v.is_empty()).map(|(c, v)| (*c, v.as_str())).collect();
    if present.is_empty() {
        return;
    }
    if let Ok(field) = Tag::new(tag).and_then(|t| Field::data(t, ind1, ind2, present)) {
        fields.push(field);
    }
}
