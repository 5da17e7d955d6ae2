//! Records out of what a job was given: a file of binary MARC (ISO 2709, UTF-8 or
//! MARC-8), MARCXML or MARC-in-JSON, or chunks a client posted. A record that cannot be
//! read is an error for that record alone; the records around it go on.
//!
//! Binary MARC is cut at the record terminator (0x1D) and each record decoded on its
//! own, so a broken record cannot take its neighbours with it, and the byte offset of
//! the next record is the cursor a restart seeks to. MARCXML and JSON files are read
//! from the start, skipping the records already done.

use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};

use serde::Deserialize;

/// The serialisations a job takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// ISO 2709 (FOLIO's `MARC_RAW`).
    Iso2709,
    MarcXml,
    /// FOLIO's MARC-in-JSON: one record, or an array, or one per line.
    MarcJson,
}

impl Format {
    /// Guesses from the first bytes: `<` is XML, `{` or `[` JSON, else binary.
    pub fn sniff(head: &[u8]) -> Format {
        let start = head
            .iter()
            .copied()
            .find(|b| !b.is_ascii_whitespace() && *b != 0xEF && *b != 0xBB && *b != 0xBF);
        match start {
            Some(b'<') => Format::MarcXml,
            Some(b'{' | b'[') => Format::MarcJson,
            _ => Format::Iso2709,
        }
    }

    /// FOLIO's `contentType` of a posted chunk.
    pub fn from_content_type(content_type: &str) -> Option<Format> {
        match content_type {
            "MARC_RAW" => Some(Format::Iso2709),
            "MARC_XML" => Some(Format::MarcXml),
            "MARC_JSON" => Some(Format::MarcJson),
            _ => None,
        }
    }
}

/// One record read, or why it could not be.
pub type Read1 = std::result::Result<marc::Record, String>;

/// Decodes one binary record, repairing what can be repaired.
pub fn decode_iso(bytes: &[u8]) -> Read1 {
    marc::decode_lenient(bytes).map(|(record, _warnings)| record).map_err(|e| e.to_string())
}

/// Decodes one MARCXML `<record>` (or a collection holding one).
pub fn decode_xml(text: &str) -> Read1 {
    let mut reader = marc::marcxml::LenientReader::new(text.as_bytes());
    match reader.next() {
        Some(Ok((record, _))) => Ok(record),
        Some(Err(e)) => Err(e.to_string()),
        None => Err("no MARCXML record found".into()),
    }
}

/// Decodes one MARC-in-JSON record.
pub fn decode_json(text: &str) -> Read1 {
    marc::json::from_str(text).map_err(|e| e.to_string())
}

/// Reads a job's file from a cursor: the records from `next_order` on, a batch at a
/// time.
pub struct FileReader {
    format: Format,
    inner: Inner,
    /// The order of the next record.
    order: u64,
}

enum Inner {
    Iso {
        reader: BufReader<File>,
        offset: u64,
    },
    /// MARCXML is streamed (a file may be large); JSON files are held as parsed values.
    Xml(Box<marc::marcxml::LenientReader<BufReader<File>>>),
    Json(std::vec::IntoIter<serde_json::Value>),
}

impl FileReader {
    /// Opens `path` to read from the record at `order` (at byte `offset`, for binary
    /// MARC).
    pub fn open(path: &std::path::Path, order: u64, offset: u64) -> std::io::Result<FileReader> {
        let mut file = File::open(path)?;
        let mut head = [0u8; 64];
        let n = file.read(&mut head)?;
        let format = Format::sniff(&head[..n]);
        file.seek(SeekFrom::Start(0))?;
        let inner = match format {
            Format::Iso2709 => {
                let mut reader = BufReader::with_capacity(1 << 16, file);
                reader.seek(SeekFrom::Start(offset))?;
                Inner::Iso { reader, offset }
            }
            Format::MarcXml => {
                let mut reader = marc::marcxml::LenientReader::new(BufReader::new(file));
                for _ in 0..order {
                    if reader.next().is_none() {
                        break;
                    }
                }
                Inner::Xml(Box::new(reader))
            }
            Format::MarcJson => {
                let mut text = String::new();
                BufReader::new(file).read_to_string(&mut text)?;
                let values = json_records(&text).map_err(std::io::Error::other)?;
                let mut values = values.into_iter();
                for _ in 0..order {
                    values.next();
                }
                Inner::Json(values)
            }
        };
        Ok(FileReader { format, inner, order })
    }

    pub fn format(&self) -> Format {
        self.format
    }

    /// Up to `n` more records with their orders; empty at the end. A file that fails
    /// to read (an I/O error, or XML that is not well formed) is `Err`: the job cannot go
    /// on.
    pub fn next_batch(&mut self, n: usize) -> std::io::Result<Vec<(u64, Read1)>> {
        let mut out = Vec::with_capacity(n);
        while out.len() < n
            && let Some(record) = self.next_record()?
        {
            out.push(record);
        }
        Ok(out)
    }

    /// The next record with its order; `None` at the end.
    pub fn next_record(&mut self) -> std::io::Result<Option<(u64, Read1)>> {
        let record = loop {
            break match &mut self.inner {
                Inner::Iso { reader, offset } => {
                    let mut bytes = Vec::new();
                    let read = reader.read_until(0x1D, &mut bytes)?;
                    if read == 0 {
                        return Ok(None);
                    }
                    *offset += read as u64;
                    // Line ends or padding between records are not records.
                    if bytes.iter().all(|b| b.is_ascii_whitespace() || *b == 0x1A || *b == 0) {
                        continue;
                    }
                    decode_iso(&bytes)
                }
                Inner::Xml(reader) => match reader.next() {
                    None => return Ok(None),
                    Some(Ok((record, _))) => Ok(record),
                    // XML that is not well formed ends the stream after this error.
                    Some(Err(e)) => Err(e.to_string()),
                },
                Inner::Json(values) => match values.next() {
                    None => return Ok(None),
                    Some(value) => decode_json(&value.to_string()),
                },
            };
        };
        let order = self.order;
        self.order += 1;
        Ok(Some((order, record)))
    }

    /// The order of the next record.
    pub fn order(&self) -> u64 {
        self.order
    }

    /// For binary MARC, the byte offset of the next record.
    pub fn offset(&self) -> u64 {
        match &self.inner {
            Inner::Iso { offset, .. } => *offset,
            _ => 0,
        }
    }
}

/// The records of a JSON file: an array, one record, or one record per line.
fn json_records(text: &str) -> std::result::Result<Vec<serde_json::Value>, String> {
    let trimmed = text.trim_start();
    if trimmed.starts_with('[') {
        return serde_json::from_str(trimmed)
            .map_err(|e| format!("not a JSON array of records: {e}"));
    }
    let mut values = Vec::new();
    for value in serde_json::Deserializer::from_str(text).into_iter::<serde_json::Value>() {
        values.push(value.map_err(|e| format!("not JSON: {e}"))?);
    }
    Ok(values)
}

/// How many records a file holds, counted without decoding (binary MARC: record
/// terminators; XML: `<record` elements; JSON: values). For progress; a broken file
/// still counts what it can.
pub fn count_records(path: &std::path::Path) -> std::io::Result<u64> {
    let mut file = File::open(path)?;
    let mut head = [0u8; 64];
    let n = file.read(&mut head)?;
    let format = Format::sniff(&head[..n]);
    file.seek(SeekFrom::Start(0))?;
    let mut reader = BufReader::with_capacity(1 << 16, file);
    match format {
        Format::Iso2709 => {
            let mut count = 0;
            let mut last_was_content = false;
            loop {
                let buffer = reader.fill_buf()?;
                if buffer.is_empty() {
                    break;
                }
                for &b in buffer {
                    if b == 0x1D {
                        count += 1;
                        last_was_content = false;
                    } else if !b.is_ascii_whitespace() {
                        last_was_content = true;
                    }
                }
                let len = buffer.len();
                reader.consume(len);
            }
            Ok(count + u64::from(last_was_content))
        }
        Format::MarcXml => {
            let mut text = String::new();
            reader.read_to_string(&mut text)?;
            Ok(count_xml_records(&text))
        }
        Format::MarcJson => {
            let mut text = String::new();
            reader.read_to_string(&mut text)?;
            Ok(json_records(&text).map_or(0, |v| v.len() as u64))
        }
    }
}

fn count_xml_records(text: &str) -> u64 {
    let mut count = 0;
    let mut rest = text;
    while let Some(i) = rest.find('<') {
        rest = &rest[i + 1..];
        let name =
            rest.split(|c: char| c.is_whitespace() || c == '>' || c == '/').next().unwrap_or("");
        let local = name.rsplit(':').next().unwrap_or(name);
        if local == "record" {
            count += 1;
        }
    }
    count
}

/// A chunk as a scripted client posts it (`rawRecordsDto`).
#[derive(Clone, Debug, Deserialize, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RawRecords {
    #[serde(default)]
    pub id: Option<uuid::Uuid>,
    #[serde(default)]
    pub initial_records: Vec<RawRecord>,
    pub records_metadata: RecordsMetadata,
}

#[derive(Clone, Debug, Deserialize, serde::Serialize)]
pub struct RawRecord {
    pub record: String,
    #[serde(default)]
    pub order: Option<u64>,
}

#[derive(Clone, Debug, Deserialize, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RecordsMetadata {
    pub last: bool,
    pub counter: u64,
    #[serde(default)]
    pub total: Option<u64>,
    pub content_type: String,
}

/// The records of a posted chunk, decoded by its content type.
pub fn chunk_records(chunk: &RawRecords, first_order: u64) -> Vec<(u64, Read1)> {
    let format = Format::from_content_type(&chunk.records_metadata.content_type);
    chunk
        .initial_records
        .iter()
        .enumerate()
        .map(|(i, raw)| {
            let order = raw.order.unwrap_or(first_order + i as u64);
            let record = match format {
                Some(Format::Iso2709) => decode_iso(raw.record.as_bytes()),
                Some(Format::MarcXml) => decode_xml(&raw.record),
                Some(Format::MarcJson) => decode_json(&raw.record),
                None => Err(format!(
                    "Content type {} is not supported",
                    chunk.records_metadata.content_type
                )),
            };
            (order, record)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shared(file: &str) -> std::path::PathBuf {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../../shared/data/marc")
            .join(file)
    }

    #[test]
    fn files_are_read_in_batches_from_a_cursor() {
        let path = shared("100.mrc");
        assert_eq!(count_records(&path).unwrap(), 100);
        let mut reader = FileReader::open(&path, 0, 0).unwrap();
        let first = reader.next_batch(30).unwrap();
        assert_eq!(first.len(), 30);
        assert!(first.iter().all(|(_, r)| r.is_ok()));
        let (order, offset) = (first.last().unwrap().0 + 1, reader.offset());
        let mut again = FileReader::open(&path, order, offset).unwrap();
        let rest: Vec<_> = std::iter::from_fn(|| Some(again.next_batch(30).unwrap()))
            .take_while(|b| !b.is_empty())
            .flatten()
            .collect();
        assert_eq!(rest.len(), 70);
        assert_eq!(rest[0].0, 30);

        let xml = shared("UChicago_SampleBibs.xml");
        assert_eq!(count_records(&xml).unwrap(), 62);
        let mut reader = FileReader::open(&xml, 60, 0).unwrap();
        assert_eq!(reader.format(), Format::MarcXml);
        assert_eq!(reader.next_batch(10).unwrap().len(), 2);
    }

    #[test]
    fn a_broken_record_fails_alone() {
        let good = std::fs::read(shared("100.mrc")).unwrap();
        // The shared invalid file's text as the second record.
        let first = good.iter().position(|b| *b == 0x1D).unwrap() + 1;
        let mut bytes = good[..first].to_vec();
        bytes.extend(std::fs::read(shared("invalidMarcFile.mrc")).unwrap());
        bytes.push(0x1D);
        bytes.extend(&good[first..]);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("spoiled.mrc");
        std::fs::write(&path, &bytes).unwrap();
        let records = FileReader::open(&path, 0, 0).unwrap().next_batch(5).unwrap();
        let ok: Vec<bool> = records.iter().map(|(_, r)| r.is_ok()).collect();
        assert_eq!(ok, [true, false, true, true, true], "{:?}", records[1].1);
    }
}
