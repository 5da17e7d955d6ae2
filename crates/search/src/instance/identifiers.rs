//! FOLIO's identifier and call-number normalisations (mod-search's ISBN, OCLC, LCCN and
//! classification processors), applied to values when indexing and to terms when
//! searching, so both sides agree.

/// ISBN values as indexed: a valid ISBN-13 or ISBN-10 at the start of the value
/// without its hyphens and spaces (an ISBN-10 also as its ISBN-13), followed by the
/// qualifier after it (`(cloth : alk. paper)`) as a value of its own. Anything else is
/// kept with hyphens and spaces between digits removed.
///
/// As in FOLIO, the value is lowercased before the ISBN-10 pattern (which wants an
/// upper-case `X`) is tried, so an ISBN-10 ending in a check digit `X` is kept as
/// written and gets no ISBN-13 twin.
pub(crate) fn normalize_isbn(value: &str) -> Vec<String> {
    let value = value.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase();
    if value.is_empty() {
        return Vec::new();
    }
    if let Some(end) = isbn13_prefix(&value) {
        return with_qualifier(vec![strip_separators(&value[..end])], &value[end..]);
    }
    if let Some(end) = isbn10_prefix(&value) {
        let isbn10 = strip_separators(&value[..end]);
        if isbn10_is_valid(&isbn10) {
            let isbn13 = isbn10_to_13(&isbn10);
            return with_qualifier(vec![isbn10, isbn13], &value[end..]);
        }
    }
    vec![remove_separators_between_digits(&value)]
}

/// The search-term form of an ISBN: the first normalised value, a trailing `*` kept.
pub(crate) fn isbn_term(term: &str) -> String {
    let (body, star) = match term.strip_suffix('*') {
        Some(body) => (body, "*"),
        None => (term, ""),
    };
    let normalized = normalize_isbn(body).into_iter().next().unwrap_or_else(|| body.to_string());
    format!("{normalized}{star}")
}

fn with_qualifier(mut values: Vec<String>, rest: &str) -> Vec<String> {
    let qualifier = rest.trim();
    if !qualifier.is_empty() {
        values.push(qualifier.to_string());
    }
    values
}

fn strip_separators(s: &str) -> String {
    s.chars().filter(|c| *c != '-' && *c != ' ').collect()
}

/// Digit groups separated by one hyphen or space: `1-5` digits, `1-7`, `1-6`, then the
/// check character.
fn grouped(s: &str, check: impl Fn(char) -> bool) -> Option<usize> {
    let bytes = s.as_bytes();
    let mut idx = 0;
    for (min, max) in [(1, 5), (1, 7), (1, 6)] {
        let start = idx;
        while idx < bytes.len() && bytes[idx].is_ascii_digit() && idx - start < max {
            idx += 1;
        }
        if idx - start < min || idx >= bytes.len() || !matches!(bytes[idx], b'-' | b' ') {
            return None;
        }
        idx += 1;
    }
    let c = s[idx..].chars().next()?;
    check(c).then_some(idx + 1)
}

fn isbn13_prefix(s: &str) -> Option<usize> {
    if !(s.starts_with("978") || s.starts_with("979")) {
        return None;
    }
    let rest = &s[3..];
    if rest.len() >= 10 && rest.as_bytes()[..10].iter().all(u8::is_ascii_digit) {
        return Some(13);
    }
    let sep = rest.chars().next()?;
    if sep != '-' && sep != ' ' {
        return None;
    }
    grouped(&rest[1..], |c| c.is_ascii_digit()).map(|end| 4 + end)
}

fn isbn10_prefix(s: &str) -> Option<usize> {
    let is_check = |c: char| c.is_ascii_digit() || c == 'X';
    let bytes = s.as_bytes();
    if bytes.len() >= 10 && bytes[..9].iter().all(u8::is_ascii_digit) && is_check(bytes[9] as char)
    {
        return Some(10);
    }
    grouped(s, is_check)
}

fn isbn10_is_valid(isbn: &str) -> bool {
    if isbn.len() != 10 {
        return false;
    }
    let mut sum = 0;
    for (idx, c) in isbn.chars().enumerate() {
        let digit = match c {
            'X' if idx == 9 => 10,
            c => match c.to_digit(10) {
                Some(d) => d,
                None => return false,
            },
        };
        sum += digit * (10 - idx as u32);
    }
    sum % 11 == 0
}

fn isbn10_to_13(isbn10: &str) -> String {
    let body = format!("978{}", &isbn10[..9]);
    let sum: u32 = body
        .chars()
        .enumerate()
        .map(|(idx, c)| c.to_digit(10).unwrap_or(0) * if idx % 2 == 0 { 1 } else { 3 })
        .sum();
    format!("{body}{}", (10 - sum % 10) % 10)
}

fn remove_separators_between_digits(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::with_capacity(s.len());
    for (idx, &c) in chars.iter().enumerate() {
        let between = idx > 0
            && idx + 1 < chars.len()
            && chars[idx - 1].is_ascii_digit()
            && chars[idx + 1].is_ascii_digit();
        if !(between && (c == '-' || c == ' ')) {
            out.push(c);
        }
    }
    out
}

/// An OCLC number as indexed and searched: whitespace runs become `-`, then the first
/// run of digits and dashes starting with a non-zero digit (`(OCoLC)ocm0060710867` →
/// `60710867`); a trailing `*` is kept.
pub(crate) fn normalize_oclc(value: &str) -> Option<String> {
    let value = value.trim();
    if value.is_empty() {
        return None;
    }
    let dashed = value.split_whitespace().collect::<Vec<_>>().join("-");
    let mut out = String::new();
    if let Some(start) = dashed.find(|c: char| ('1'..='9').contains(&c)) {
        out.extend(dashed[start..].chars().take_while(|c| c.is_ascii_digit() || *c == '-'));
    }
    if value.ends_with('*') {
        out.push('*');
    }
    Some(out)
}

/// LCCNs: whitespace removed, lowercased.
pub(crate) fn normalize_no_space(value: &str) -> Option<String> {
    let out: String = value.chars().filter(|c| !c.is_whitespace()).collect();
    (!out.is_empty()).then(|| out.to_lowercase())
}

/// Classification and call numbers: only ASCII letters and digits kept.
pub(crate) fn alphanumeric(value: &str) -> Option<String> {
    let out: String = value.chars().filter(char::is_ascii_alphanumeric).collect();
    (!out.is_empty()).then_some(out)
}

/// The search-term form of an alphanumeric-normalised value: leading and trailing `*`
/// kept, `*` alone when nothing is left.
pub(crate) fn alphanumeric_term(term: &str) -> String {
    let lead = if term.starts_with('*') { "*" } else { "" };
    let trail = if term.ends_with('*') { "*" } else { "" };
    match alphanumeric(term) {
        Some(core) => format!("{lead}{core}{trail}"),
        None => "*".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};

    use super::{alphanumeric_term, isbn_term, normalize_isbn, normalize_oclc};

    fn check(values: &[&str], expect: Expect) {
        let out: Vec<String> = values
            .iter()
            .map(|v| {
                format!(
                    "{v} => isbn {:?} term {:?} oclc {:?} alnum {:?}",
                    normalize_isbn(v),
                    isbn_term(v),
                    normalize_oclc(v),
                    alphanumeric_term(v)
                )
            })
            .collect();
        expect.assert_eq(&out.join("\n"));
    }

    #[test]
    fn normalisations() {
        check(
            &[
                "978-0-471-44250-9 (cloth : alk. paper)",
                "0262012103",
                "047144250X",
                "0471-4*",
                "(OCoLC)ocm0060710867",
                "*1691 .I5 1967",
            ],
            expect![[r#"
                978-0-471-44250-9 (cloth : alk. paper) => isbn ["9780471442509", "(cloth : alk. paper)"] term "9780471442509" oclc Some("978-0-471-44250-9-") alnum "9780471442509clothalkpaper"
                0262012103 => isbn ["0262012103", "9780262012102"] term "0262012103" oclc Some("262012103") alnum "0262012103"
                047144250X => isbn ["047144250x"] term "047144250x" oclc Some("47144250") alnum "047144250X"
                0471-4* => isbn ["04714*"] term "04714*" oclc Some("471-4*") alnum "04714*"
                (OCoLC)ocm0060710867 => isbn ["(ocolc)ocm0060710867"] term "(ocolc)ocm0060710867" oclc Some("60710867") alnum "OCoLCocm0060710867"
                *1691 .I5 1967 => isbn ["*1691 .i51967"] term "*1691 .i51967" oclc Some("1691-") alnum "*1691I51967""#]],
        );
    }
}
