//! MARCXML input. It owns finding `<record>` elements in a document (in a
//! `<collection>`, bare, or nested in another document such as an OAI-PMH
//! response) and checking their content against the model; XML syntax is
//! quick-xml's job.

use std::io::BufRead;

use quick_xml::NsReader;
use quick_xml::XmlVersion;
use quick_xml::events::{BytesStart, Event};
use quick_xml::name::ResolveResult;

use crate::error::{Error, Format, Problem, Report, Result, Warning};
use crate::field::{DELIMITER, Field, Tag, allowed_char, check_value, is_code};
use crate::leader::{Leader, is_printable};
use crate::marcxml::NAMESPACE;
use crate::record::Record;

/// Reads the first MARCXML record in `xml` (a `<collection>` or a bare
/// `<record>`), strictly.
pub fn from_str(xml: &str) -> Result<Record> {
    match Reader::new(xml.as_bytes()).next() {
        Some(result) => result,
        None => Err(Error::Malformed {
            format: Format::MarcXml,
            record: 1,
            offset: xml.len() as u64,
            problem: Problem::Xml("no MARCXML <record> element".to_owned()),
        }),
    }
}

/// Reads MARCXML records strictly, one `Result` per `<record>` element in
/// the MARC21 slim namespace (or in no namespace, as many files in the wild
/// are). A record that breaks the model (bad tag, indicator, subfield code,
/// leader) yields an error naming its number and byte offset, and reading
/// goes on with the next record; malformed XML ends the stream after its
/// error.
pub struct Reader<R> {
    inner: Inner<R>,
}

/// Reads MARCXML records leniently: leaders are padded or cut to 24
/// characters, bad indicators become blank, bad subfield codes `?`, fields
/// with a bad tag or of the wrong kind for their tag are dropped, disallowed
/// characters removed; each repair is a [`Warning`].
pub struct LenientReader<R> {
    inner: Inner<R>,
}

impl<R: BufRead> Reader<R> {
    /// A strict reader over `inner`.
    pub fn new(inner: R) -> Self {
        Reader { inner: Inner::new(inner) }
    }
}

impl<R: BufRead> LenientReader<R> {
    /// A lenient reader over `inner`.
    pub fn new(inner: R) -> Self {
        LenientReader { inner: Inner::new(inner) }
    }
}

impl<R: BufRead> Iterator for Reader<R> {
    type Item = Result<Record>;

    fn next(&mut self) -> Option<Result<Record>> {
        self.inner.next_record(None)
    }
}

impl<R: BufRead> Iterator for LenientReader<R> {
    type Item = Result<(Record, Vec<Warning>)>;

    fn next(&mut self) -> Option<Self::Item> {
        let mut warnings = Vec::new();
        let result = self.inner.next_record(Some(&mut warnings))?;
        Some(result.map(|record| (record, warnings)))
    }
}

/// What an element is to this reader.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Record,
    Leader,
    ControlField,
    DataField,
    Subfield,
    /// Another element in the MARC namespace (or none).
    OtherMarc,
    /// An element in another namespace.
    Foreign,
}

/// A start or empty tag, reduced to what the reader needs. Names and
/// attribute values are short, so they are kept inline: reading a subfield
/// costs no allocation besides its value.
struct Element {
    kind: Kind,
    name: Small,
    empty: bool,
    /// The MARCXML attributes, `tag`, `ind1`, `ind2`, `code`, when present.
    attributes: [Option<Small>; 4],
}

const ATTRIBUTES: [&str; 4] = ["tag", "ind1", "ind2", "code"];

impl Element {
    fn attribute(&self, name: &str) -> Option<&str> {
        let idx = ATTRIBUTES.iter().position(|&a| a == name)?;
        self.attributes[idx].as_ref().map(Small::as_str)
    }
}

/// A string stored inline when it is at most 22 bytes long.
enum Small {
    Inline { len: u8, bytes: [u8; 22] },
    Heap(String),
}

impl Small {
    fn new(text: &str) -> Small {
        if text.len() > 22 {
            return Small::Heap(text.to_owned());
        }
        let mut bytes = [0u8; 22];
        bytes[..text.len()].copy_from_slice(text.as_bytes());
        Small::Inline { len: text.len() as u8, bytes }
    }

    fn as_str(&self) -> &str {
        match self {
            // Invariant: a copy of a whole `&str`, so UTF-8.
            Small::Inline { len, bytes } => {
                std::str::from_utf8(&bytes[..usize::from(*len)]).unwrap_or_default()
            }
            Small::Heap(text) => text,
        }
    }
}

impl std::fmt::Display for Small {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The next piece of a record's content.
enum Item {
    Start(Element),
    End,
    /// Text, appended to `Inner::text`.
    Text,
    Eof,
}

struct Inner<R> {
    xml: NsReader<R>,
    buf: Vec<u8>,
    n_records: u64,
    /// Set after malformed XML: nothing more can be read.
    done: bool,
    /// Offset of the event last read.
    event_offset: u64,
    /// Text read since the caller last took it.
    text: String,
}

impl<R: BufRead> Inner<R> {
    fn new(inner: R) -> Self {
        let mut xml = NsReader::from_reader(inner);
        xml.config_mut().check_end_names = true;
        Inner {
            xml,
            buf: Vec::new(),
            n_records: 0,
            done: false,
            event_offset: 0,
            text: String::new(),
        }
    }

    fn next_record(&mut self, warnings: Option<&mut Vec<Warning>>) -> Option<Result<Record>> {
        if self.done {
            return None;
        }
        // Find the next record element, at any depth.
        let start = loop {
            match self.item(self.n_records + 1) {
                Ok(Item::Start(element)) if element.kind == Kind::Record => break element,
                Ok(Item::Eof) => {
                    self.done = true;
                    return None;
                }
                Ok(_) => self.text.clear(),
                Err(e) => {
                    self.done = true;
                    return Some(Err(e));
                }
            }
        };
        self.n_records += 1;
        self.text.clear();
        let offset = self.event_offset;
        let mut report = Report::new(Format::MarcXml, self.n_records, 0, warnings);
        let result = self.record(&start, offset, &mut report);
        if result.is_err() && !self.done {
            // Strict failure inside a well-formed record: skip the rest of it.
            if let Err(e) = self.skip_to_end(&start, 1) {
                self.done = true;
                return Some(Err(e));
            }
            self.text.clear();
        }
        Some(result)
    }

    /// Reads the next event as an [`Item`]; XML errors are fatal.
    fn item(&mut self, record: u64) -> Result<Item> {
        loop {
            self.buf.clear();
            self.event_offset = self.xml.buffer_position();
            let fatal = |offset: u64, message: String| Error::Malformed {
                format: Format::MarcXml,
                record,
                offset,
                problem: Problem::Xml(message),
            };
            let (ns, event) = match self.xml.read_resolved_event_into(&mut self.buf) {
                Ok(pair) => pair,
                Err(e) => {
                    self.done = true;
                    return Err(fatal(self.xml.error_position(), format!("malformed XML: {e}")));
                }
            };
            let is_marc = match ns {
                ResolveResult::Bound(ns) => ns.as_ref() == NAMESPACE,
                ResolveResult::Unbound => true,
                ResolveResult::Unknown(prefix) => {
                    self.done = true;
                    return Err(fatal(
                        self.event_offset,
                        format!("undeclared namespace prefix {prefix:?}"),
                    ));
                }
            };
            return Ok(match event {
                Event::Start(start) => {
                    Item::Start(element(&start, is_marc, false, record, self.event_offset)?)
                }
                Event::Empty(start) => {
                    Item::Start(element(&start, is_marc, true, record, self.event_offset)?)
                }
                Event::End(_) => Item::End,
                Event::Text(text) => {
                    self.text.push_str(&text.xml10_content());
                    Item::Text
                }
                Event::CData(data) => {
                    self.text.push_str(&data.xml10_content());
                    Item::Text
                }
                Event::GeneralRef(reference) => {
                    let resolved = match reference.resolve_char_ref() {
                        Ok(Some(c)) => Some(c.to_string()),
                        Ok(None) => {
                            quick_xml::escape::resolve_predefined_entity(&reference.xml10_content())
                                .map(str::to_owned)
                        }
                        Err(_) => None,
                    };
                    match resolved {
                        Some(text) => {
                            self.text.push_str(&text);
                            Item::Text
                        }
                        None => {
                            self.done = true;
                            let name = reference.xml10_content().into_owned();
                            return Err(fatal(
                                self.event_offset,
                                format!("unknown entity or character reference &{name};"),
                            ));
                        }
                    }
                }
                Event::Eof => Item::Eof,
                Event::Comment(_) | Event::Decl(_) | Event::PI(_) | Event::DocType(_) => continue,
            });
        }
    }

    /// Skips until the end of the element whose start was just read; `depth`
    /// elements are open.
    fn skip_to_end(&mut self, start: &Element, mut depth: usize) -> Result<()> {
        if start.empty {
            return Ok(());
        }
        while depth > 0 {
            match self.item(self.n_records)? {
                Item::Start(element) if !element.empty => depth += 1,
                Item::End => depth -= 1,
                Item::Eof => return Err(self.eof(start.name.as_str())),
                _ => {}
            }
        }
        Ok(())
    }

    fn eof(&mut self, inside: &str) -> Error {
        self.done = true;
        Error::Malformed {
            format: Format::MarcXml,
            record: self.n_records,
            offset: self.xml.buffer_position(),
            problem: Problem::Xml(format!("input ends inside <{inside}>")),
        }
    }

    /// Reads the content of a `<record>` whose start tag was just read.
    fn record(
        &mut self,
        start: &Element,
        record_offset: u64,
        report: &mut Report<'_>,
    ) -> Result<Record> {
        let mut leader: Option<Leader> = None;
        let mut fields = Vec::new();
        if !start.empty {
            loop {
                let item = self.item(self.n_records)?;
                let offset = self.event_offset as usize;
                match item {
                    Item::End => break,
                    Item::Eof => return Err(self.eof(start.name.as_str())),
                    Item::Text => {
                        let text = std::mem::take(&mut self.text);
                        if !text.trim().is_empty() {
                            let problem = Problem::Xml(format!(
                                "text {:?} directly in <{}>",
                                text.trim(),
                                start.name
                            ));
                            report.problem(self.event_offset as usize, problem, "ignored")?;
                        }
                        self.text = text;
                        self.text.clear();
                    }
                    Item::Start(element) => match element.kind {
                        Kind::Leader => {
                            let text = self.text(&element, report)?;
                            leader = Some(leader_from(&text, offset, report)?);
                        }
                        Kind::ControlField => {
                            let value = self.text(&element, report)?;
                            if let Some(field) = control_field(&element, value, offset, report)? {
                                fields.push(field);
                            }
                        }
                        Kind::DataField => {
                            if let Some(field) = self.data_field(&element, offset, report)? {
                                fields.push(field);
                            }
                        }
                        _ => {
                            self.unexpected(&element, start.name.as_str(), offset, report)?;
                        }
                    },
                }
            }
        }
        let leader = match leader {
            Some(leader) => leader,
            None => {
                let problem = Problem::Xml("record has no <leader>".to_owned());
                report.problem(record_offset as usize, problem, "default leader used")?;
                Leader::DEFAULT
            }
        };
        Ok(Record::with_fields(leader, fields))
    }

    /// An element that does not belong where it is: an error when strict,
    /// skipped when lenient (elements of other namespaces are skipped silently).
    fn unexpected(
        &mut self,
        element: &Element,
        parent: &str,
        offset: usize,
        report: &mut Report<'_>,
    ) -> Result<()> {
        if element.kind != Kind::Foreign {
            let problem = Problem::Xml(format!("unexpected <{}> in <{parent}>", element.name));
            report.problem(offset, problem, "element skipped")?;
        }
        // Text inside the skipped element is not part of the value being read.
        let kept = self.text.len();
        let result = self.skip_to_end(element, 1);
        self.text.truncate(kept);
        result
    }

    /// The text content of a leader, control field or subfield element.
    fn text(&mut self, element: &Element, report: &mut Report<'_>) -> Result<String> {
        self.text.clear();
        if element.empty {
            return Ok(String::new());
        }
        loop {
            let item = self.item(self.n_records)?;
            let offset = self.event_offset as usize;
            match item {
                Item::Text => {}
                Item::End => {
                    let value = self.text.as_str().to_owned();
                    self.text.clear();
                    return Ok(value);
                }
                Item::Eof => return Err(self.eof(element.name.as_str())),
                Item::Start(child) => {
                    self.unexpected(&child, element.name.as_str(), offset, report)?
                }
            }
        }
    }

    fn data_field(
        &mut self,
        element: &Element,
        offset: usize,
        report: &mut Report<'_>,
    ) -> Result<Option<Field>> {
        let tag = tag(element, offset, report)?;
        let ind = |name: &str, report: &mut Report<'_>| -> Result<u8> {
            let found = element.attribute(name).unwrap_or_default();
            match found.as_bytes() {
                [b] if is_printable(*b) => Ok(*b),
                _ => {
                    let problem =
                        Problem::BadIndicator { tag: tag_text(element), found: found.to_owned() };
                    report.problem(offset, problem, "indicator set to blank")?;
                    Ok(b' ')
                }
            }
        };
        let indicators = [ind("ind1", report)?, ind("ind2", report)?];
        let mut subfields = String::new();
        if !element.empty {
            loop {
                let item = self.item(self.n_records)?;
                let child_offset = self.event_offset as usize;
                match item {
                    Item::End => break,
                    Item::Eof => return Err(self.eof(element.name.as_str())),
                    Item::Text => {
                        if !self.text.trim().is_empty() {
                            let found = self.text.clone();
                            let problem =
                                Problem::DataBeforeSubfield { tag: tag_text(element), found };
                            report.problem(child_offset, problem, "data dropped")?;
                        }
                        self.text.clear();
                    }
                    Item::Start(child) if child.kind == Kind::Subfield => {
                        let found = child.attribute("code").unwrap_or_default().to_owned();
                        let mut value = self.text(&child, report)?;
                        let code = match found.as_bytes() {
                            [b] if is_code(*b) => char::from(*b),
                            _ => {
                                let problem =
                                    Problem::BadSubfieldCode { tag: tag_text(element), found };
                                report.problem(child_offset, problem, "code replaced with '?'")?;
                                '?'
                            }
                        };
                        clean(&mut value, element, child_offset, report)?;
                        subfields.push(char::from(DELIMITER));
                        subfields.push(code);
                        subfields.push_str(&value);
                    }
                    Item::Start(child) => {
                        self.unexpected(&child, element.name.as_str(), child_offset, report)?
                    }
                }
            }
        }
        let Some(tag) = tag else { return Ok(None) };
        if tag.is_control() {
            let problem = Problem::FieldKind {
                tag: tag.to_string(),
                expected: "control field",
                found: "<datafield>",
            };
            report.problem(offset, problem, "field dropped")?;
            return Ok(None);
        }
        Ok(Some(Field::data_unchecked(tag, indicators, subfields)))
    }
}

fn control_field(
    element: &Element,
    mut value: String,
    offset: usize,
    report: &mut Report<'_>,
) -> Result<Option<Field>> {
    let Some(tag) = tag(element, offset, report)? else { return Ok(None) };
    if !tag.is_control() {
        let problem = Problem::FieldKind {
            tag: tag.to_string(),
            expected: "data field",
            found: "<controlfield>",
        };
        report.problem(offset, problem, "field dropped")?;
        return Ok(None);
    }
    clean(&mut value, element, offset, report)?;
    Ok(Some(Field::control_unchecked(tag, value)))
}

/// The element's tag attribute as a [`Tag`]; `None` when lenient decoding
/// drops the field.
fn tag(element: &Element, offset: usize, report: &mut Report<'_>) -> Result<Option<Tag>> {
    let text = tag_text(element);
    match Tag::from_bytes(text.as_bytes()) {
        Some(tag) => Ok(Some(tag)),
        None => {
            report.problem(offset, Problem::BadTag(text), "field dropped")?;
            Ok(None)
        }
    }
}

fn tag_text(element: &Element) -> String {
    element.attribute("tag").unwrap_or_default().to_owned()
}

/// Removes the characters the model does not hold (reporting them).
fn clean(
    value: &mut String,
    element: &Element,
    offset: usize,
    report: &mut Report<'_>,
) -> Result<()> {
    if let Some(found) = check_value(value) {
        report.problem(
            offset,
            Problem::BadCharacter { tag: tag_text(element), found },
            "character removed",
        )?;
        value.retain(allowed_char);
    }
    Ok(())
}

fn leader_from(text: &str, offset: usize, report: &mut Report<'_>) -> Result<Leader> {
    if let Some(leader) = Leader::from_bytes(text.as_bytes()) {
        return Ok(leader);
    }
    let mut bytes = [b' '; 24];
    let mut n_chars = 0;
    for (position, c) in text.chars().enumerate() {
        n_chars += 1;
        if position >= 24 {
            continue;
        }
        match u8::try_from(c) {
            Ok(b) if is_printable(b) => bytes[position] = b,
            _ => {
                let problem = Problem::LeaderByte { position, found: c.to_string() };
                report.problem(offset, problem, "replaced with a space")?;
            }
        }
    }
    if n_chars != 24 {
        report.problem(
            offset,
            Problem::LeaderLength(text.to_owned()),
            "padded with spaces or cut to 24 characters",
        )?;
    }
    Ok(Leader::from_bytes(&bytes).unwrap_or_default())
}

/// Classifies a start tag and collects its attributes (unprefixed ones only:
/// MARCXML attributes are in no namespace).
fn element(
    start: &BytesStart<'_>,
    is_marc: bool,
    empty: bool,
    record: u64,
    offset: u64,
) -> Result<Element> {
    let local = start.local_name();
    let kind = if !is_marc {
        Kind::Foreign
    } else {
        match local.as_ref() {
            "record" => Kind::Record,
            "leader" => Kind::Leader,
            "controlfield" => Kind::ControlField,
            "datafield" => Kind::DataField,
            "subfield" => Kind::Subfield,
            _ => Kind::OtherMarc,
        }
    };
    let mut attributes = [None, None, None, None];
    if matches!(kind, Kind::ControlField | Kind::DataField | Kind::Subfield) {
        for attribute in start.attributes() {
            let malformed = |message: String| Error::Malformed {
                format: Format::MarcXml,
                record,
                offset,
                problem: Problem::Xml(message),
            };
            let attribute =
                attribute.map_err(|e| malformed(format!("malformed attribute: {e}")))?;
            let key = attribute.key.as_ref();
            let Some(idx) = ATTRIBUTES.iter().position(|&a| a == key) else { continue };
            let value = attribute
                .normalized_value(XmlVersion::Implicit1_0)
                .map_err(|e| malformed(format!("attribute {key}: {e}")))?;
            attributes[idx] = Some(Small::new(&value));
        }
    }
    Ok(Element { kind, name: Small::new(start.name().as_ref()), empty, attributes })
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};

    use super::*;

    fn check(xml: &str, expect: Expect) {
        let mut out = String::from("strict:\n");
        for item in Reader::new(xml.as_bytes()) {
            match item {
                Ok(record) => out += &format!("{record}"),
                Err(e) => out += &format!("  error {e}\n"),
            }
        }
        out += "lenient:\n";
        for item in LenientReader::new(xml.as_bytes()) {
            match item {
                Ok((record, warnings)) => {
                    for w in warnings {
                        out += &format!("  {w}\n");
                    }
                    out += &format!("{record}");
                }
                Err(e) => out += &format!("  error {e}\n"),
            }
        }
        expect.assert_eq(&out);
    }

    #[test]
    fn namespaces_entities_and_collections() {
        check(
            r#"<?xml version="1.0"?>
<marc:collection xmlns:marc="http://www.loc.gov/MARC21/slim" xmlns:x="urn:other">
 <marc:record><marc:leader>00000nam a2200000 a 4500</marc:leader>
  <marc:controlfield tag="001">a&amp;b&#x41;<![CDATA[<c>]]></marc:controlfield>
  <x:note>ignored</x:note>
  <marc:datafield tag="245" ind1="1" ind2="0"><marc:subfield code="a">T&#233;</marc:subfield><marc:subfield code="b"/></marc:datafield>
 </marc:record>
 <record xmlns="http://www.loc.gov/MARC21/slim"><leader>00000nam a2200000 a 4500</leader></record>
</marc:collection>"#,
            expect![[r#"
                strict:
                00000nam a2200000 a 4500
                001 a&bA<c>
                245 10 $a Té $b 

                00000nam a2200000 a 4500

                lenient:
                00000nam a2200000 a 4500
                001 a&bA<c>
                245 10 $a Té $b 

                00000nam a2200000 a 4500

            "#]],
        );
    }

    #[test]
    fn bad_records_are_skipped() {
        check(
            r#"<collection>
<record><leader>short</leader><datafield tag="42" ind1="z" ind2="zz"><subfield code="ab">x</subfield></datafield></record>
<record><leader>00000nam a2200000 a 4500</leader><controlfield tag="245">x</controlfield><datafield tag="100" ind1="1"><subfield>y</subfield><b/></datafield></record>
<record><leader>00000nam a2200000 a 4500</leader><controlfield tag="001">ok</controlfield><datafield tag="500" ind1=" " ind2=" "><subfield code="a">x<i>junk</i>y</subfield></datafield></record>
<record><leader>00000nam a2200000 a 4500</leader><controlfield tag="001">cut"#,
            expect![[r#"
                strict:
                  error MARCXML record 1, byte 21: leader "short" is not 24 characters long
                  error MARCXML record 2, byte 185: field 245: a <controlfield> with a data field tag
                  error MARCXML record 3, byte 452: unexpected <i> in <subfield>
                  error MARCXML record 4, byte 573: input ends inside <controlfield>
                lenient:
                  MARCXML record 1, byte 21: leader "short" is not 24 characters long; padded with spaces or cut to 24 characters
                  MARCXML record 1, byte 43: tag "42" is not three ASCII letters or digits; field dropped
                  MARCXML record 1, byte 43: field 42: indicator "zz" is not one printable ASCII character or space; indicator set to blank
                  MARCXML record 1, byte 82: field 42: subfield code "ab" is not one printable ASCII character; code replaced with '?'
                short                   

                  MARCXML record 2, byte 185: field 245: a <controlfield> with a data field tag; field dropped
                  MARCXML record 2, byte 225: field 100: indicator "" is not one printable ASCII character or space; indicator set to blank
                  MARCXML record 2, byte 255: field 100: subfield code "" is not one printable ASCII character; code replaced with '?'
                  MARCXML record 2, byte 277: unexpected <b> in <datafield>; element skipped
                00000nam a2200000 a 4500
                100 1  $? y

                  MARCXML record 3, byte 452: unexpected <i> in <subfield>; element skipped
                00000nam a2200000 a 4500
                001 ok
                500    $a xy

                  error MARCXML record 4, byte 573: input ends inside <controlfield>
            "#]],
        );
    }
}
