//! MARCXML output. It owns the element layout (the one `yaz-marcdump -o
//! marcxml` writes, so outputs can be compared line by line) and escaping.

use std::io::Write;

use crate::error::Result;
use crate::marcxml::NAMESPACE;
use crate::record::Record;

/// One record as a standalone `<record xmlns="http://www.loc.gov/MARC21/slim">`
/// element, e.g. for an OAI-PMH `<metadata>` element. Infallible: the model
/// holds no character XML 1.0 cannot carry.
///
/// ```
/// let mut record = marc::Record::new(marc::Leader::DEFAULT);
/// record.push(marc::Field::data(marc::Tag::new("245")?, '0', '0', [('a', "Q & A")])?);
/// let xml = marc::marcxml::to_string(&record);
/// assert!(xml.contains(r#"<subfield code="a">Q &amp; A</subfield>"#));
/// assert_eq!(marc::marcxml::from_str(&xml)?, record);
/// # Ok::<(), marc::Error>(())
/// ```
pub fn to_string(record: &Record) -> String {
    let mut out = String::with_capacity(record.fields().len() * 80 + 200);
    write_record(&mut out, record, true);
    out
}

/// Writes records as one MARCXML `<collection>` document: an XML declaration,
/// `<collection xmlns="http://www.loc.gov/MARC21/slim">`, the records, and
/// `</collection>` when [`finish`](Writer::finish)ed.
pub struct Writer<W: Write> {
    inner: W,
    buf: String,
    started: bool,
}

impl<W: Write> Writer<W> {
    /// A writer over `inner` (wrap files in a `BufWriter`). Nothing is
    /// written until the first record or `finish`.
    pub fn new(inner: W) -> Self {
        Writer { inner, buf: String::new(), started: false }
    }

    fn start(&mut self) -> Result<()> {
        if !self.started {
            self.started = true;
            write!(
                self.inner,
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<collection xmlns=\"{NAMESPACE}\">\n"
            )?;
        }
        Ok(())
    }

    /// Writes one record.
    pub fn write(&mut self, record: &Record) -> Result<()> {
        self.start()?;
        self.buf.clear();
        write_record(&mut self.buf, record, false);
        self.inner.write_all(self.buf.as_bytes())?;
        Ok(())
    }

    /// Closes the collection, flushes, and returns the inner writer.
    pub fn finish(mut self) -> Result<W> {
        self.start()?;
        self.inner.write_all(b"</collection>\n")?;
        self.inner.flush()?;
        Ok(self.inner)
    }
}

fn write_record(out: &mut String, record: &Record, with_namespace: bool) {
    if with_namespace {
        out.push_str("<record xmlns=\"");
        out.push_str(NAMESPACE);
        out.push_str("\">\n");
    } else {
        out.push_str("<record>\n");
    }
    out.push_str("  <leader>");
    escape(out, record.leader().as_str());
    out.push_str("</leader>\n");
    for field in record.fields() {
        match field.value() {
            Some(value) => {
                out.push_str("  <controlfield tag=\"");
                out.push_str(field.tag().as_str());
                out.push_str("\">");
                escape(out, value);
                out.push_str("</controlfield>\n");
            }
            None => {
                out.push_str("  <datafield tag=\"");
                out.push_str(field.tag().as_str());
                out.push_str("\" ind1=\"");
                escape_char(out, field.ind1());
                out.push_str("\" ind2=\"");
                escape_char(out, field.ind2());
                out.push_str("\">\n");
                for subfield in field.subfields() {
                    out.push_str("    <subfield code=\"");
                    escape_char(out, subfield.code);
                    out.push_str("\">");
                    escape(out, subfield.value);
                    out.push_str("</subfield>\n");
                }
                out.push_str("  </datafield>\n");
            }
        }
    }
    out.push_str("</record>\n");
}

/// Escapes the five XML special characters, in text and attribute values
/// alike (as YAZ does), and carriage returns.
pub(crate) fn escape(out: &mut String, text: &str) {
    let mut last = 0;
    for (idx, b) in text.bytes().enumerate() {
        let replacement = match b {
            b'<' => "&lt;",
            b'>' => "&gt;",
            b'&' => "&amp;",
            b'"' => "&quot;",
            b'\'' => "&apos;",
            // A raw CR would come back as LF (XML end-of-line handling).
            b'\r' => "&#13;",
            _ => continue,
        };
        out.push_str(&text[last..idx]);
        out.push_str(replacement);
        last = idx + 1;
    }
    out.push_str(&text[last..]);
}

fn escape_char(out: &mut String, c: char) {
    let mut buf = [0u8; 4];
    escape(out, c.encode_utf8(&mut buf));
}

#[cfg(test)]
mod tests {
    use expect_test::expect;

    use super::*;
    use crate::field::{Field, Tag};
    use crate::leader::Leader;

    #[test]
    fn layout_and_escaping() {
        let mut record = Record::new(Leader::DEFAULT);
        record.push(Field::control(Tag::new("001").unwrap(), "a<b").unwrap());
        record.push(
            Field::data(Tag::new("245").unwrap(), '"', '&', [('a', "<A & \"B\" 'c' >"), ('b', "")])
                .unwrap(),
        );
        let mut writer = Writer::new(Vec::new());
        writer.write(&record).unwrap();
        let out = String::from_utf8(writer.finish().unwrap()).unwrap();
        expect![[r#"
            <?xml version="1.0" encoding="UTF-8"?>
            <collection xmlns="http://www.loc.gov/MARC21/slim">
            <record>
              <leader>00000nam a2200000 a 4500</leader>
              <controlfield tag="001">a&lt;b</controlfield>
              <datafield tag="245" ind1="&quot;" ind2="&amp;">
                <subfield code="a">&lt;A &amp; &quot;B&quot; &apos;c&apos; &gt;</subfield>
                <subfield code="b"></subfield>
              </datafield>
            </record>
            </collection>
        "#]]
        .assert_eq(&out);
    }
}
