//! MARC 21 to simple Dublin Core, as the `oai_dc:dc` element of the OAI-PMH
//! `oai_dc` metadata format. This module owns the crosswalk: which fields feed
//! which DC element, how their subfields are joined, and the order of the
//! elements. It does not build the OAI-PMH response around the element, choose
//! the records, or look at anything but the MARC record.
//!
//! The crosswalk is the Library of Congress stylesheet `MARC21slim2OAIDC.xsl`
//! (revision of 2010-11-19), which FOLIO's mod-oai-pmh adopted for `oai_dc`.
//! It is reproduced element for element, quirks included, so that a harvester
//! sees the values it would get from the stylesheet (when this module was
//! written, libxslt running the stylesheet over every record of the shared
//! MARC data gave the same elements, in the same order, with the same text):
//!
//! | DC element    | Source (one element per field, in record order, unless noted)          |
//! |---------------|------------------------------------------------------------------------|
//! | `title`       | 245 $a $b $f $g $h $k                                                  |
//! | `creator`     | 100, 110, 111, 700, 710, 711, 720: every subfield                      |
//! | `type`        | leader/06-07, always one element (maybe empty); 655, every subfield    |
//! | `publisher`   | 260 $a $b                                                              |
//! | `date`        | each 260 $c                                                            |
//! | `language`    | 008/35-37, always one element (maybe empty)                            |
//! | `format`      | each 856 $q                                                            |
//! | `description` | 520 $a; 521 $a; 500-599 but 506, 530, 540, 546: $a (520, 521 twice)    |
//! | `subject`     | 600, 610, 611, 630, 650, 653 $a $b $c $d $q, grouped in that tag order |
//! | `coverage`    | 752 $a $b $c $d                                                        |
//! | `relation`    | 530 $a $b $c $d $u; 760-787 linking entries $o $t                      |
//! | `identifier`  | 856 $u; 020 $a as `URN:ISBN:<$a>`                                      |
//! | `rights`      | 506 $a; 540 $a                                                         |
//!
//! Where one subfield is named ("$a", "$u") the stylesheet takes the first
//! one, and writes an empty element when the field has none (a 020 with only
//! $z gives `URN:ISBN:`). Subfields are concatenated with nothing between them
//! and no punctuation is trimmed, because the stylesheet's `subfieldSelect`
//! uses an empty delimiter and it never calls `chopPunctuation`: MARC's own
//! spacing is what separates them (`Logical matters /`, `Barnes, Jonathan,1942-`).
//! The type element concatenates its parts the same way: `collection` for
//! leader/07 `c`, `manuscript` for leader/06 `d`, `f`, `p` or `t`, then the
//! resource type (an archival collection, `pc`, gives
//! `collectionmanuscriptmixed material`), because the stylesheet once wrote
//! the first two as attributes and kept their text when it dropped them.
//!
//! Not mapped, because the stylesheet does not map them: 264 (so RDA records
//! get no publisher or date), 008/07-10, 041, 651, 662, 022 and 024. Two later
//! FOLIO edits are not followed either: since 2024 FOLIO takes the type from
//! 336 $a instead of the leader (MODOAIPMH-550), and since 2020 it adds a
//! rights element from 999 ff $t, the discovery-suppression flag that its
//! OAI-PMH layer writes into the record (MODOAIPMH-124). Both concern FOLIO's
//! instance data rather than the crosswalk, so they belong with the OAI-PMH code.

use crate::field::Field;
use crate::leader::Leader;
use crate::marcxml::escape;
use crate::record::Record;

/// The `oai_dc` namespace, the metadata namespace of the `oai_dc` format.
pub const NAMESPACE: &str = "http://www.openarchives.org/OAI/2.0/oai_dc/";

/// The `oai_dc` schema, as OAI-PMH `ListMetadataFormats` and `xsi:schemaLocation` name it.
pub const SCHEMA: &str = "http://www.openarchives.org/OAI/2.0/oai_dc.xsd";

/// The Dublin Core element set 1.1 namespace, of the `dc:` elements.
const DC_NAMESPACE: &str = "http://purl.org/dc/elements/1.1/";

const XSI_NAMESPACE: &str = "http://www.w3.org/2001/XMLSchema-instance";

/// The linking entry fields (76X-78X) the stylesheet maps to relations; 779
/// and 782-784 are not among them.
const LINKING_ENTRIES: &[&str] = &[
    "760", "762", "765", "767", "770", "772", "773", "774", "775", "776", "777", "780", "785",
    "786", "787",
];

/// Appends the record as an `oai_dc:dc` element (with its namespace
/// declarations and `xsi:schemaLocation` pointing at
/// `http://www.openarchives.org/OAI/2.0/oai_dc.xsd`) to `out`.
///
/// The output is a fragment for an OAI-PMH `<metadata>` element: no XML
/// declaration, one element per line, a newline at the end. Infallible: the
/// record model holds no character XML 1.0 cannot carry.
///
/// ```
/// use marc::{Field, Leader, Record, Tag};
///
/// let mut record = Record::new(Leader::new("00000nam a2200000 a 4500")?);
/// record.push(Field::control(Tag::new("008")?, "120427s2012    enk           000 0 eng d")?);
/// record.push(Field::data(Tag::new("245")?, '1', '0', [('a', "Q & A :"), ('b', "a primer /"), ('c', "Ann Lee.")])?);
/// let mut xml = String::new();
/// marc::dc::write_oai_dc(&record, &mut xml);
/// assert!(xml.starts_with(r#"<oai_dc:dc xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/""#));
/// assert!(xml.contains("\n  <dc:title>Q &amp; A :a primer /</dc:title>\n  <dc:type>text</dc:type>\n"));
/// assert!(xml.contains("<dc:language>eng</dc:language>"));
/// # Ok::<(), marc::Error>(())
/// ```
pub fn write_oai_dc(record: &Record, out: &mut String) {
    out.push_str("<oai_dc:dc xmlns:oai_dc=\"");
    out.push_str(NAMESPACE);
    out.push_str("\" xmlns:dc=\"");
    out.push_str(DC_NAMESPACE);
    out.push_str("\" xmlns:xsi=\"");
    out.push_str(XSI_NAMESPACE);
    out.push_str("\" xsi:schemaLocation=\"");
    out.push_str(NAMESPACE);
    out.push(' ');
    out.push_str(SCHEMA);
    out.push_str("\">\n");

    for field in tagged(record, &["245"]) {
        element(out, "title", select(field, "abfghk"));
    }
    for field in tagged(record, &["100", "110", "111", "700", "710", "711", "720"]) {
        element(out, "creator", every(field));
    }
    element(out, "type", resource_type(record.leader()).into_iter().flatten());
    for field in tagged(record, &["655"]) {
        element(out, "type", every(field));
    }
    for field in tagged(record, &["260"]) {
        element(out, "publisher", select(field, "ab"));
    }
    for date in tagged(record, &["260"]).flat_map(|f| f.subfield_values('c')) {
        element(out, "date", [date]);
    }
    element(out, "language", [language(record)]);
    for format in tagged(record, &["856"]).flat_map(|f| f.subfield_values('q')) {
        element(out, "format", [format]);
    }
    // 520 and 521 come first on their own and again among the notes, as in the stylesheet.
    let notes = record.iter().filter(|f| is_described_note(f));
    for field in tagged(record, &["520"]).chain(tagged(record, &["521"])).chain(notes) {
        element(out, "description", field.subfield('a'));
    }
    for tag in ["600", "610", "611", "630", "650", "653"] {
        for field in tagged(record, &[tag]) {
            element(out, "subject", select(field, "abcdq"));
        }
    }
    for field in tagged(record, &["752"]) {
        element(out, "coverage", select(field, "abcd"));
    }
    for field in tagged(record, &["530"]) {
        element(out, "relation", select(field, "abcdu"));
    }
    for field in tagged(record, LINKING_ENTRIES) {
        element(out, "relation", select(field, "ot"));
    }
    for field in tagged(record, &["856"]) {
        element(out, "identifier", field.subfield('u'));
    }
    for field in tagged(record, &["020"]) {
        element(out, "identifier", ["URN:ISBN:", field.subfield('a').unwrap_or_default()]);
    }
    for field in tagged(record, &["506"]).chain(tagged(record, &["540"])) {
        element(out, "rights", field.subfield('a'));
    }
    out.push_str("</oai_dc:dc>\n");
}

/// The fields with any of these tags, in record order (the stylesheet's XPath
/// unions, such as `datafield[@tag=100]|datafield[@tag=700]`, keep document order).
fn tagged<'r>(record: &'r Record, tags: &'r [&str]) -> impl Iterator<Item = &'r Field> + 'r {
    record.iter().filter(move |f| tags.contains(&f.tag().as_str()))
}

/// The values of the subfields whose code is in `codes`, in field order.
fn select<'f>(field: &'f Field, codes: &'static str) -> impl Iterator<Item = &'f str> + 'f {
    field.subfields().filter(move |s| codes.contains(s.code)).map(|s| s.value)
}

/// Every subfield value: the XPath string value of a MARCXML `datafield`, as
/// FOLIO serialises it (unindented, so no whitespace between subfields).
fn every(field: &Field) -> impl Iterator<Item = &str> + '_ {
    field.subfields().map(|s| s.value)
}

/// Whether the field is a 5XX note the stylesheet describes: tags 500-599
/// compared as numbers, so only all-digit tags, less the notes it maps
/// elsewhere (506 and 540 to rights, 530 to relation) or drops (546, language).
fn is_described_note(field: &Field) -> bool {
    matches!(field.tag().as_bytes(), [b'5', b'0'..=b'9', b'0'..=b'9'])
        && !matches!(field.tag().as_str(), "506" | "530" | "540" | "546")
}

/// The parts of the leader-based type, concatenated by the caller.
fn resource_type(leader: &Leader) -> [Option<&'static str>; 3] {
    let record_type = leader.record_type();
    let collection = (leader.bibliographic_level() == 'c').then_some("collection");
    let manuscript = matches!(record_type, 'd' | 'f' | 'p' | 't').then_some("manuscript");
    let kind = match record_type {
        'a' | 't' => Some("text"),
        'e' | 'f' => Some("cartographic"),
        'c' | 'd' => Some("notated music"),
        'i' | 'j' => Some("sound recording"),
        'k' => Some("still image"),
        'g' => Some("moving image"),
        'r' => Some("three dimensional object"),
        'm' => Some("software, multimedia"),
        'p' => Some("mixed material"),
        _ => None,
    };
    [collection, manuscript, kind]
}

/// 008/35-37 of the first 008, as much of it as there is (XPath `substring`
/// counts characters and is content with a short string).
fn language(record: &Record) -> &str {
    let value = record.control_value("008").unwrap_or_default();
    let start = value.char_indices().nth(35).map_or(value.len(), |(idx, _)| idx);
    let rest = &value[start..];
    let end = rest.char_indices().nth(3).map_or(rest.len(), |(idx, _)| idx);
    &rest[..end]
}

/// Writes `<dc:name>` with the parts concatenated as its text, on its own line;
/// `<dc:name/>` when there is no text, as an XSLT serialiser writes it.
fn element<'v>(out: &mut String, name: &str, parts: impl IntoIterator<Item = &'v str>) {
    out.push_str("  <dc:");
    out.push_str(name);
    out.push('>');
    let text = out.len();
    for part in parts {
        escape(out, part);
    }
    if out.len() == text {
        out.truncate(text - 1);
        out.push_str("/>\n");
    } else {
        out.push_str("</dc:");
        out.push_str(name);
        out.push_str(">\n");
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use expect_test::{Expect, expect};
    use quick_xml::NsReader;
    use quick_xml::events::Event;
    use quick_xml::name::ResolveResult;

    use super::*;
    use crate::field::Tag;

    /// The DC elements in the order the stylesheet writes them.
    const ORDER: [&str; 13] = [
        "title",
        "creator",
        "type",
        "publisher",
        "date",
        "language",
        "format",
        "description",
        "subject",
        "coverage",
        "relation",
        "identifier",
        "rights",
    ];

    fn check(record: &Record, expect: Expect) {
        let xml = to_string(record);
        parse(&xml);
        expect.assert_eq(&xml);
    }

    fn to_string(record: &Record) -> String {
        let mut xml = String::new();
        write_oai_dc(record, &mut xml);
        xml
    }

    /// Parses `oai_dc:dc` output with quick-xml, checking that it is one
    /// well-formed element in the oai_dc namespace with the schema location,
    /// holding only `dc:` elements with text; returns their (name, text).
    fn parse(xml: &str) -> Vec<(String, String)> {
        let mut reader = NsReader::from_str(xml);
        reader.config_mut().check_end_names = true;
        let mut elements: Vec<(String, String)> = Vec::new();
        let (mut depth, mut roots) = (0, 0);
        loop {
            let (ns, event) = reader.read_resolved_event().unwrap_or_else(|e| panic!("{e}\n{xml}"));
            let ns = match ns {
                ResolveResult::Bound(ns) => Some(ns.as_ref().to_owned()),
                _ => None,
            };
            match &event {
                Event::Start(start) | Event::Empty(start) if depth == 0 => {
                    roots += 1;
                    assert_eq!(
                        (ns.as_deref(), start.local_name().as_ref()),
                        (Some(NAMESPACE), "dc")
                    );
                    let location = start.attributes().map(Result::unwrap).find(|a| {
                        let (ns, name) = reader.resolver().resolve_attribute(a.key);
                        ns == ResolveResult::Bound(quick_xml::name::Namespace(XSI_NAMESPACE))
                            && name.as_ref() == "schemaLocation"
                    });
                    let location = location.expect("xsi:schemaLocation").value.into_owned();
                    assert_eq!(location, format!("{NAMESPACE} {SCHEMA}"));
                    depth += usize::from(matches!(event, Event::Start(_)));
                }
                Event::Start(start) | Event::Empty(start) => {
                    assert_eq!(depth, 1, "nested element in {xml}");
                    assert_eq!(ns.as_deref(), Some(DC_NAMESPACE));
                    let name = start.local_name().as_ref().to_owned();
                    elements.push((name, String::new()));
                    depth += usize::from(matches!(event, Event::Start(_)));
                }
                Event::End(_) => depth -= 1,
                Event::Text(text) if depth == 2 => {
                    elements.last_mut().unwrap().1.push_str(&text.xml10_content());
                }
                Event::Text(text) => assert!(text.xml10_content().trim().is_empty()),
                Event::GeneralRef(reference) => {
                    assert_eq!(depth, 2);
                    let text = match reference.resolve_char_ref().unwrap() {
                        Some(c) => c.to_string(),
                        None => {
                            quick_xml::escape::resolve_predefined_entity(&reference.xml10_content())
                                .expect("a predefined entity")
                                .to_owned()
                        }
                    };
                    elements.last_mut().unwrap().1.push_str(&text);
                }
                Event::Eof => break,
                other => panic!("unexpected {other:?} in {xml}"),
            }
        }
        assert_eq!((roots, depth), (1, 0), "{xml}");
        elements
    }

    fn values<'e>(elements: &'e [(String, String)], name: &str) -> Vec<&'e str> {
        elements.iter().filter(|(n, _)| n == name).map(|(_, text)| text.as_str()).collect()
    }

    fn read(file: &str) -> Vec<Record> {
        let path =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/marc").join(file);
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        crate::Reader::new(bytes.as_slice()).map(Result::unwrap).collect()
    }

    fn data(tag: &str, indicators: &str, subfields: &[(char, &str)]) -> Field {
        let [ind1, ind2] = [0, 1].map(|i| indicators.chars().nth(i).unwrap());
        Field::data(Tag::new(tag).unwrap(), ind1, ind2, subfields.iter().copied()).unwrap()
    }

    #[test]
    fn every_mapping_in_stylesheet_order() {
        let mut record = Record::new(Leader::new("00000nam a2200000 i 4500").unwrap());
        record.push(Field::control(Tag::new("001").unwrap(), "in001").unwrap());
        record.push(
            Field::control(Tag::new("008").unwrap(), "120427s2012    enk           000 0 fre d")
                .unwrap(),
        );
        record.push(data("020", "  ", &[('a', "9780199577521"), ('q', "hardback")]));
        record.push(data("020", "  ", &[('z', "0000000000")]));
        record.push(data("041", "0 ", &[('a', "fre"), ('a', "eng")]));
        record.push(data("100", "1 ", &[('a', "Lee, Ann,"), ('d', "1942-"), ('e', "author.")]));
        record.push(data(
            "245",
            "14",
            &[
                ('6', "880-01"),
                ('a', "The Q & A :"),
                ('b', "a <primer> /"),
                ('c', "Ann Lee."),
                ('h', "[text]"),
            ],
        ));
        record.push(data(
            "260",
            "  ",
            &[('a', "Paris :"), ('b', "Gallimard,"), ('c', "2012,"), ('c', "©2011.")],
        ));
        record.push(data("264", " 1", &[('a', "Oxford :"), ('b', "Clarendon,"), ('c', "2013.")]));
        record.push(data("500", "  ", &[('a', "First note.")]));
        record.push(data("506", "1 ", &[('a', "Open access.")]));
        record.push(data("520", "  ", &[('a', "Summary \"quoted\" 'here'."), ('b', "Expansion.")]));
        record.push(data(
            "530",
            "  ",
            &[('a', "Also online."), ('u', "http://example.org/?a=1&b=2")],
        ));
        record.push(data("540", "  ", &[('b', "No $a here.")]));
        record.push(data("546", "  ", &[('a', "In French.")]));
        record.push(data("650", " 0", &[('a', "Logic."), ('x', "History"), ('v', "Sources.")]));
        record.push(data("600", "10", &[('a', "Aristotle."), ('t', "Organon.")]));
        record.push(data("651", " 0", &[('a', "Greece.")]));
        record.push(data("655", " 7", &[('a', "Essays."), ('2', "lcgft")]));
        record.push(data("700", "1 ", &[('a', "Roe, Rick,"), ('e', "editor.")]));
        record.push(data("752", "  ", &[('a', "France"), ('d', "Paris.")]));
        record.push(data(
            "776",
            "08",
            &[('i', "Online version:"), ('t', "The Q & A."), ('o', "ocm1")],
        ));
        record.push(data("710", "2 ", &[('a', "Example Press.")]));
        record.push(data("856", "40", &[('q', "text/html"), ('u', "http://example.org/1")]));
        record.push(data("856", "42", &[('3', "Cover")]));
        check(
            &record,
            expect![[r#"
                <oai_dc:dc xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://www.openarchives.org/OAI/2.0/oai_dc/ http://www.openarchives.org/OAI/2.0/oai_dc.xsd">
                  <dc:title>The Q &amp; A :a &lt;primer&gt; /[text]</dc:title>
                  <dc:creator>Lee, Ann,1942-author.</dc:creator>
                  <dc:creator>Roe, Rick,editor.</dc:creator>
                  <dc:creator>Example Press.</dc:creator>
                  <dc:type>text</dc:type>
                  <dc:type>Essays.lcgft</dc:type>
                  <dc:publisher>Paris :Gallimard,</dc:publisher>
                  <dc:date>2012,</dc:date>
                  <dc:date>©2011.</dc:date>
                  <dc:language>fre</dc:language>
                  <dc:format>text/html</dc:format>
                  <dc:description>Summary &quot;quoted&quot; &apos;here&apos;.</dc:description>
                  <dc:description>First note.</dc:description>
                  <dc:description>Summary &quot;quoted&quot; &apos;here&apos;.</dc:description>
                  <dc:subject>Aristotle.</dc:subject>
                  <dc:subject>Logic.</dc:subject>
                  <dc:coverage>FranceParis.</dc:coverage>
                  <dc:relation>Also online.http://example.org/?a=1&amp;b=2</dc:relation>
                  <dc:relation>The Q &amp; A.ocm1</dc:relation>
                  <dc:identifier>http://example.org/1</dc:identifier>
                  <dc:identifier/>
                  <dc:identifier>URN:ISBN:9780199577521</dc:identifier>
                  <dc:identifier>URN:ISBN:</dc:identifier>
                  <dc:rights>Open access.</dc:rights>
                  <dc:rights/>
                </oai_dc:dc>
            "#]],
        );

        // Nothing but a leader: the two elements the stylesheet always writes.
        let record = Record::new(Leader::new("00000npc a2200000   4500").unwrap());
        check(
            &record,
            expect![[r#"
                <oai_dc:dc xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://www.openarchives.org/OAI/2.0/oai_dc/ http://www.openarchives.org/OAI/2.0/oai_dc.xsd">
                  <dc:type>collectionmanuscriptmixed material</dc:type>
                  <dc:language/>
                </oai_dc:dc>
            "#]],
        );
    }

    #[test]
    fn shared_records_snapshots() {
        // A monograph catalogued under RDA (264, so no publisher or date) and
        // an archival collection.
        check(
            &read("100.mrc")[0],
            expect![[r#"
                <oai_dc:dc xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://www.openarchives.org/OAI/2.0/oai_dc/ http://www.openarchives.org/OAI/2.0/oai_dc.xsd">
                  <dc:title>Logical matters /</dc:title>
                  <dc:creator>Barnes, Jonathan,1942-</dc:creator>
                  <dc:creator>Bonelli, Maddalena.</dc:creator>
                  <dc:type>text</dc:type>
                  <dc:language>eng</dc:language>
                  <dc:description>Includes bibliographical references (pages [729]-750) and indexes.</dc:description>
                  <dc:subject>Philosophy, Ancient.</dc:subject>
                  <dc:subject>Logic.</dc:subject>
                  <dc:identifier>URN:ISBN:9780199577521</dc:identifier>
                  <dc:identifier>URN:ISBN:0199577528</dc:identifier>
                </oai_dc:dc>
            "#]],
        );
        check(
            &read("CornellFOLIOExemplars.mrc")[7],
            expect![[r#"
                <oai_dc:dc xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://www.openarchives.org/OAI/2.0/oai_dc/ http://www.openarchives.org/OAI/2.0/oai_dc.xsd">
                  <dc:title>Cornell University Graduate School records,1909-2012.</dc:title>
                  <dc:creator>Cornell University.Graduate School.</dc:creator>
                  <dc:type>collectionmanuscriptmixed material</dc:type>
                  <dc:language>eng</dc:language>
                  <dc:description>8 volumes of correspondence, administrative records, and statistics of the Cornell University Graduate School; also, announcements, speeches, reports, catalogs, applications, minutes and department self studies, program reviews, and external reports. Includes Graduate School annual reports for 1975/1976-1986/1987 as well as 2001/2002-2002/2003.</dc:description>
                  <dc:description>8 volumes of correspondence, administrative records, and statistics of the Cornell University Graduate School; also, announcements, speeches, reports, catalogs, applications, minutes and department self studies, program reviews, and external reports. Includes Graduate School annual reports for 1975/1976-1986/1987 as well as 2001/2002-2002/2003.</dc:description>
                  <dc:description>Cornell University Graduate School Records, #12-1-1776.   Division of Rare and Manuscript Collections, Cornell University Library.</dc:description>
                  <dc:subject>Cornell University</dc:subject>
                  <dc:subject>Cornell University</dc:subject>
                  <dc:subject>Management</dc:subject>
                  <dc:identifier>http://resolver.library.cornell.edu/cgi-bin/EADresolver?id=RMA01776</dc:identifier>
                  <dc:rights>Restricted to permission of office of origin.</dc:rights>
                </oai_dc:dc>
            "#]],
        );
    }

    /// Every record of two shared files, checked against values computed here
    /// from the fields.
    #[test]
    fn shared_records_map_field_by_field() {
        let mut n_checked = 0;
        for file in ["100.mrc", "CornellFOLIOExemplars.mrc"] {
            for (idx, record) in read(file).iter().enumerate() {
                let xml = to_string(record);
                let context = format!("{file} record {idx}:\n{xml}");
                assert!(
                    xml.starts_with("<oai_dc:dc ") && xml.ends_with("</oai_dc:dc>\n"),
                    "{context}"
                );
                let elements = parse(&xml);

                // The elements come in the stylesheet's order.
                let ranks: Vec<usize> = elements
                    .iter()
                    .map(|(n, _)| ORDER.iter().position(|o| o == n).unwrap())
                    .collect();
                assert!(ranks.is_sorted(), "{context}");

                let joined = |f: &Field, codes: &str| -> String {
                    f.subfields().filter(|s| codes.contains(s.code)).map(|s| s.value).collect()
                };
                let titles: Vec<String> =
                    record.fields_with_tag("245").map(|f| joined(f, "abfghk")).collect();
                assert_eq!(values(&elements, "title"), titles, "{context}");
                for (title, field) in titles.iter().zip(record.fields_with_tag("245")) {
                    assert!(title.contains(field.subfield('a').unwrap()), "{context}");
                }

                let creators: Vec<String> = record
                    .iter()
                    .filter(|f| {
                        ["100", "110", "111", "700", "710", "711", "720"]
                            .contains(&f.tag().as_str())
                    })
                    .map(|f| f.subfields().map(|s| s.value).collect())
                    .collect();
                assert_eq!(values(&elements, "creator"), creators, "{context}");

                let leader = record.leader();
                let kind = match (leader.record_type(), leader.bibliographic_level()) {
                    ('a', 'c') => "collectiontext",
                    ('a', _) => "text",
                    ('c', _) => "notated music",
                    ('e', _) => "cartographic",
                    ('g', _) => "moving image",
                    ('i' | 'j', _) => "sound recording",
                    ('k', _) => "still image",
                    ('p', 'c') => "collectionmanuscriptmixed material",
                    ('r', _) => "three dimensional object",
                    ('t', _) => "manuscripttext",
                    other => panic!("no type in this test for {other:?}"),
                };
                // A 655's string value: every subfield, whatever its code.
                let genres =
                    record.fields_with_tag("655").map(|f| f.subfields().map(|s| s.value).collect());
                let types: Vec<String> = std::iter::once(kind.to_owned()).chain(genres).collect();
                assert_eq!(values(&elements, "type"), types, "{context}");

                let f008 = record.control_value("008").unwrap();
                assert!(f008.is_ascii() && f008.len() == 40, "{context}");
                assert_eq!(values(&elements, "language"), [&f008[35..38]], "{context}");

                let publishers: Vec<String> =
                    record.fields_with_tag("260").map(|f| joined(f, "ab")).collect();
                assert_eq!(values(&elements, "publisher"), publishers, "{context}");
                let dates: Vec<&str> =
                    record.fields_with_tag("260").flat_map(|f| f.subfield_values('c')).collect();
                assert_eq!(values(&elements, "date"), dates, "{context}");

                let subjects = values(&elements, "subject");
                let subject_tags = ["600", "610", "611", "630", "650", "653"];
                let n_subjects =
                    record.iter().filter(|f| subject_tags.contains(&f.tag().as_str())).count();
                assert_eq!(subjects.len(), n_subjects, "{context}");
                for field in record.fields_with_tag("650") {
                    let a = field.subfield('a').unwrap();
                    assert!(subjects.iter().any(|s| s.starts_with(a)), "650 $a {a:?}: {context}");
                }

                let n_notes = record
                    .iter()
                    .filter(|f| {
                        let tag: u16 = f.tag().as_str().parse().unwrap_or(0);
                        (500..600).contains(&tag) && ![506, 530, 540, 546].contains(&tag)
                    })
                    .count();
                let n_summaries =
                    record.iter().filter(|f| f.tag() == "520" || f.tag() == "521").count();
                assert_eq!(
                    values(&elements, "description").len(),
                    n_summaries + n_notes,
                    "{context}"
                );

                let identifiers = values(&elements, "identifier");
                let isbns: Vec<String> = record
                    .fields_with_tag("020")
                    .map(|f| format!("URN:ISBN:{}", f.subfield('a').unwrap_or("")))
                    .collect();
                let urls: Vec<&str> =
                    record.fields_with_tag("856").map(|f| f.subfield('u').unwrap_or("")).collect();
                assert_eq!(
                    identifiers,
                    [urls, isbns.iter().map(String::as_str).collect()].concat(),
                    "{context}"
                );

                let rights: Vec<&str> = ["506", "540"]
                    .into_iter()
                    .flat_map(|t| record.fields_with_tag(t).map(|f| f.subfield('a').unwrap_or("")))
                    .collect();
                assert_eq!(values(&elements, "rights"), rights, "{context}");
                n_checked += 1;
            }
        }
        assert_eq!(n_checked, 162);
    }

    #[test]
    fn escapes_special_characters() {
        let mut record = read("100.mrc").swap_remove(0);
        let special = "<b>Tom & \"Jerry\"</b> ]]> 'x' \r\n tab\there";
        record.push(data("500", "  ", &[('a', special)]));
        record.fields_mut().retain(|f| f.tag() != "245");
        record.push(data("245", "00", &[('a', "AT&T <&amp;> :"), ('b', "R&D.")]));
        let xml = to_string(&record);
        assert!(xml.contains(
            "<dc:description>&lt;b&gt;Tom &amp; &quot;Jerry&quot;&lt;/b&gt; ]]&gt; &apos;x&apos; &#13;\n tab\there</dc:description>"
        ));
        assert!(xml.contains("<dc:title>AT&amp;T &lt;&amp;amp;&gt; :R&amp;D.</dc:title>"));
        let elements = parse(&xml);
        assert!(values(&elements, "description").contains(&special));
        assert_eq!(values(&elements, "title"), ["AT&T <&amp;> :R&D."]);
    }
}
