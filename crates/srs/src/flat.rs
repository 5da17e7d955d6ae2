//! A MARC record as byte slices, for the index: the leader, and each field's tag,
//! indicators and subfield values, read straight from the stored ISO 2709 without
//! building a `marc::Record` (or from one, for records stored otherwise).
//!
//! Owns only reading; which keys a record gives is `keys.rs`'s. The ISO 2709 reader
//! accepts the well-formed UTF-8 records `marc::encode` writes, which is every stored
//! record in form `iso`; anything else (MARC-8, a bad directory) makes it return `false`
//! and the caller decodes with `marc::decode`, so what is indexed never differs.

/// One field: its tag, indicators (0 for a control field) and subfields
/// `subfields[first..end]`; a control field has one, with code `0`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FlatField {
    pub(crate) tag: [u8; 3],
    pub(crate) control: bool,
    pub(crate) ind: [u8; 2],
    pub(crate) first: u32,
    pub(crate) end: u32,
}

/// A record's leader and fields; the buffers are reused from record to record.
#[derive(Default)]
pub(crate) struct FlatRecord {
    pub(crate) leader: [u8; 24],
    pub(crate) fields: Vec<FlatField>,
    // (code, start, end) into `text`.
    subfields: Vec<(u8, u32, u32)>,
    text: Vec<u8>,
}

impl FlatRecord {
    fn clear(&mut self) {
        self.fields.clear();
        self.subfields.clear();
        self.text.clear();
    }

    /// The subfields of `field`: (code, value).
    pub(crate) fn subfields(&self, field: &FlatField) -> impl Iterator<Item = (u8, &[u8])> + '_ {
        self.subfields[field.first as usize..field.end as usize]
            .iter()
            .map(|&(code, start, end)| (code, &self.text[start as usize..end as usize]))
    }

    fn push_value(&mut self, code: u8, value: &[u8]) {
        let start = self.text.len() as u32;
        self.text.extend_from_slice(value);
        self.subfields.push((code, start, self.text.len() as u32));
    }

    /// Reads a `marc::Record`.
    pub(crate) fn read_record(&mut self, record: &marc::Record) {
        self.clear();
        self.leader = *record.leader().as_bytes();
        for field in record.fields() {
            let first = self.subfields.len() as u32;
            let tag = *field.tag().as_bytes();
            match field.value() {
                Some(value) => {
                    self.push_value(b'0', value.as_bytes());
                    let end = self.subfields.len() as u32;
                    self.fields.push(FlatField { tag, control: true, ind: [0; 2], first, end });
                }
                None => {
                    for s in field.subfields() {
                        let mut code = [0; 4];
                        let code = s.code.encode_utf8(&mut code).as_bytes()[0];
                        self.push_value(code, s.value.as_bytes());
                    }
                    let end = self.subfields.len() as u32;
                    let ind = [field.ind1() as u8, field.ind2() as u8];
                    self.fields.push(FlatField { tag, control: false, ind, first, end });
                }
            }
        }
    }

    /// Reads ISO 2709 as `marc::encode` writes it. `false`: not such a record (nothing
    /// usable is left; decode it with `marc::decode` instead).
    pub(crate) fn read_iso(&mut self, text: &str) -> bool {
        self.clear();
        self.read_iso_inner(text.as_bytes()).is_some()
    }

    fn read_iso_inner(&mut self, bytes: &[u8]) -> Option<()> {
        const FT: u8 = 0x1E;
        const SF: u8 = 0x1F;
        let leader: [u8; 24] = bytes.get(..24)?.try_into().ok()?;
        let printable = leader.iter().all(|b| (0x20..0x7F).contains(b));
        if !printable || leader[9] != b'a' || &leader[10..12] != b"22" || &leader[20..22] != b"45" {
            return None;
        }
        if digits(&leader[..5])? != bytes.len() || bytes.last() != Some(&0x1D) {
            return None;
        }
        let base = digits(&leader[12..17])?;
        if base < 25 || base > bytes.len() || bytes[base - 1] != FT {
            return None;
        }
        let directory = &bytes[24..base - 1];
        if !directory.len().is_multiple_of(12) {
            return None;
        }
        self.leader = leader;
        for entry in directory.chunks_exact(12) {
            let tag: [u8; 3] = entry[..3].try_into().ok()?;
            if !tag.iter().all(u8::is_ascii_alphanumeric) {
                return None;
            }
            let len = digits(&entry[3..7])?;
            let start = base + digits(&entry[7..12])?;
            let field = bytes.get(start..start + len)?;
            let (&last, content) = field.split_last()?;
            // The stored tail is a `str`, and fields end at ASCII bytes, so `content`
            // is UTF-8: no check needed.
            if last != FT {
                return None;
            }
            let first = self.subfields.len() as u32;
            if tag[0] == b'0' && tag[1] == b'0' {
                if content.contains(&SF) || has_control_char(content) {
                    return None;
                }
                self.push_value(b'0', content);
                let end = self.subfields.len() as u32;
                self.fields.push(FlatField { tag, control: true, ind: [0; 2], first, end });
                continue;
            }
            let (ind, rest) = content.split_at_checked(2)?;
            if !ind.iter().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b' ') {
                return None;
            }
            let mut pieces = rest.split(|&b| b == SF);
            if !pieces.next()?.is_empty() {
                return None;
            }
            for piece in pieces {
                let (&code, value) = piece.split_first()?;
                if !(code.is_ascii_lowercase() || code.is_ascii_digit()) || has_control_char(value)
                {
                    return None;
                }
                self.push_value(code, value);
            }
            let end = self.subfields.len() as u32;
            self.fields.push(FlatField { tag, control: false, ind: [ind[0], ind[1]], first, end });
        }
        Some(())
    }
}

/// Characters `marc` refuses in values: ASCII controls other than none at all.
fn has_control_char(value: &[u8]) -> bool {
    value.iter().any(|&b| b < 0x20 || b == 0x7F)
}

fn digits(bytes: &[u8]) -> Option<usize> {
    let mut n = 0usize;
    for &b in bytes {
        if !b.is_ascii_digit() {
            return None;
        }
        n = n * 10 + (b - b'0') as usize;
    }
    Some(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a record reads as, field by field.
    fn show(flat: &FlatRecord) -> String {
        let mut out = String::from_utf8_lossy(&flat.leader).into_owned();
        for f in &flat.fields {
            out.push_str(&format!(
                "\n{} {:?} {:?}",
                String::from_utf8_lossy(&f.tag),
                f.control,
                f.ind
            ));
            for (code, value) in flat.subfields(f) {
                out.push_str(&format!(" ${}{}", code as char, String::from_utf8_lossy(value)));
            }
        }
        out
    }

    #[test]
    fn iso_and_record_read_alike() {
        let mut record = marc::Record::new(marc::Leader::new("00000cam a2200000 a 4500").unwrap());
        let tag = |t: &str| marc::Tag::new(t).unwrap();
        record.push(marc::Field::control(tag("001"), "in1").unwrap());
        record.push(marc::Field::control(tag("005"), "20141107001016.0").unwrap());
        record.push(
            marc::Field::data(tag("245"), '1', ' ', [('a', "Titel é"), ('b', "sub")]).unwrap(),
        );
        let bytes = marc::encode(&record).unwrap();
        let text = String::from_utf8(bytes.clone()).unwrap();
        let (mut a, mut b) = (FlatRecord::default(), FlatRecord::default());
        assert!(a.read_iso(&text));
        b.read_record(&marc::decode(&bytes).unwrap());
        assert_eq!(show(&a), show(&b));
        expect_test::expect![[r#"
            00101cam a2200061 a 4500
            001 true [0, 0] $0in1
            005 true [0, 0] $020141107001016.0
            245 false [49, 32] $aTitel é $bsub"#]]
        .assert_eq(&show(&a));
        // MARC-8 and broken records are left to `marc::decode`.
        let marc8 = text.replacen("cam a22", "cam  22", 1);
        assert!(!a.read_iso(&marc8));
        assert!(!a.read_iso(&text[..text.len() - 1]));
    }
}
