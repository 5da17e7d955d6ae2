//! The expressions of mapping rules (a rule's `value`), as FOLIO's MARC record reader
//! (data-import-processing-core's `MarcRecordReader`) reads them.
//!
//! An expression is one or more alternatives separated by `; else `: the first that
//! gives a value wins. An alternative is a sequence of terms separated by whitespace
//! (whitespace inside quotes belongs to the quoted text), whose values are concatenated:
//! MARC references (`949$a`, a whole field `001`, positions `LDR/05` or `008/35-37`),
//! quoted constants (`"Available"`), and the placeholders `###TODAY###` and
//! `###REMOVE###`. Anything else FOLIO's MARC reader passes over; it is kept as
//! [`Term::Unrecognised`] (EDIFACT invoice rules, `DTM+137[2]`, are read by FOLIO's
//! EDIFACT reader, which Quire does not have).
//!
//! ```
//! use profiles::{Expression, Term};
//! let e = Expression::parse("949$a \" - \" LDR/05; else \"Available\"").unwrap();
//! assert_eq!(e.alternatives.len(), 2);
//! assert_eq!(e.alternatives[0][0], Term::Field { tag: "949".into(), subfield: Some('a') });
//! assert_eq!(e.alternatives[1], vec![Term::Literal("Available".into())]);
//! assert_eq!(Expression::parse("  "), None);
//! ```

/// A mapping rule's value, parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expression {
    /// Tried in turn; each is a sequence of terms whose values are concatenated.
    // Invariant: not empty, and no alternative is empty.
    pub alternatives: Vec<Vec<Term>>,
}

/// One term of an alternative.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Term {
    /// A MARC field (`001`, `245`) or one subfield of it (`949$a`): each occurrence's
    /// value, or the subfield's values.
    Field { tag: String, subfield: Option<char> },
    /// Character positions of the leader (`LDR/05`, tag `LDR`) or of a control field
    /// (`008/35-37`), zero-based, `end` included.
    Positions { tag: String, start: u16, end: u16 },
    /// A quoted constant, without its quotes.
    Literal(String),
    /// `###TODAY###`: today's date (`yyyy-MM-dd`, in the tenant's time zone).
    Today,
    /// `###REMOVE###`: clears the target on an update.
    Remove,
    /// A part FOLIO's MARC reader passes over, as written.
    Unrecognised(String),
}

const ELSE: &str = "; else ";

impl Expression {
    /// Parses a rule's value; `None` when it is empty (the rule maps nothing).
    pub fn parse(text: &str) -> Option<Expression> {
        let alternatives: Vec<Vec<Term>> = text
            .split(ELSE)
            .map(|alternative| words(alternative).into_iter().map(term).collect::<Vec<_>>())
            .filter(|terms| !terms.is_empty())
            .collect();
        (!alternatives.is_empty()).then_some(Expression { alternatives })
    }
}

/// Splits on whitespace outside quotes (`"`, `'` or a backtick, each closed by itself).
fn words(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = None;
    let mut quote = None;
    for (at, c) in text.char_indices() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c.is_whitespace() => {
                if let Some(from) = start.take() {
                    out.push(&text[from..at]);
                }
            }
            None => {
                start.get_or_insert(at);
                if matches!(c, '"' | '\'' | '`') {
                    quote = Some(c);
                }
            }
        }
    }
    if let Some(from) = start {
        out.push(&text[from..]);
    }
    out
}

fn term(word: &str) -> Term {
    if word.eq_ignore_ascii_case("###TODAY###") {
        return Term::Today;
    }
    if word.eq_ignore_ascii_case("###REMOVE###") {
        return Term::Remove;
    }
    if word.len() >= 2 && word.starts_with('"') && word.ends_with('"') {
        return Term::Literal(word[1..word.len() - 1].to_string());
    }
    let bytes = word.as_bytes();
    let is_tag = |tag: &[u8]| tag.len() == 3 && tag.iter().all(u8::is_ascii_digit);
    if is_tag(bytes) {
        return Term::Field { tag: word.to_string(), subfield: None };
    }
    if bytes.len() == 5
        && is_tag(&bytes[..3])
        && bytes[3] == b'$'
        && (bytes[4].is_ascii_lowercase() || bytes[4].is_ascii_digit())
    {
        return Term::Field { tag: word[..3].to_string(), subfield: Some(char::from(bytes[4])) };
    }
    if let Some((tag, positions)) = word.split_once('/')
        && (tag == "LDR" || is_tag(tag.as_bytes()))
        && let Some((start, end)) = positions_of(positions)
    {
        return Term::Positions { tag: tag.to_string(), start, end };
    }
    Term::Unrecognised(word.to_string())
}

/// `05` or `35-37`.
fn positions_of(text: &str) -> Option<(u16, u16)> {
    let (start, end) = text.split_once('-').unwrap_or((text, text));
    let read = |s: &str| (!s.is_empty() && s.len() <= 2).then(|| s.parse::<u16>().ok()).flatten();
    let (start, end) = (read(start)?, read(end)?);
    (start <= end).then_some((start, end))
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};

    use super::*;

    fn check(text: &str, expected: Expect) {
        let shown = match Expression::parse(text) {
            None => "none".to_string(),
            Some(e) => e
                .alternatives
                .iter()
                .map(|terms| terms.iter().map(|t| format!("{t:?}")).collect::<Vec<_>>().join(" + "))
                .collect::<Vec<_>>()
                .join("\nelse "),
        };
        expected.assert_eq(&shown);
    }

    #[test]
    fn marc_references() {
        check("949$a", expect![[r#"Field { tag: "949", subfield: Some('a') }"#]]);
        check("001", expect![[r#"Field { tag: "001", subfield: None }"#]]);
        check("LDR/05", expect![[r#"Positions { tag: "LDR", start: 5, end: 5 }"#]]);
        check("008/35-37", expect![[r#"Positions { tag: "008", start: 35, end: 37 }"#]]);
        check(
            "949$A 94$a 949a",
            expect![[r#"Unrecognised("949$A") + Unrecognised("94$a") + Unrecognised("949a")"#]],
        );
    }

    #[test]
    fn constants_concatenation_and_fallbacks() {
        check(
            r#"949$c " " 949$d; else "Available""#,
            expect![[r#"
                Field { tag: "949", subfield: Some('c') } + Literal(" ") + Field { tag: "949", subfield: Some('d') }
                else Literal("Available")"#]],
        );
        check(r#""Open""#, expect![[r#"Literal("Open")"#]]);
        check("###TODAY###", expect!["Today"]);
        check("###remove###", expect!["Remove"]);
        check("DTM+137[2]", expect![[r#"Unrecognised("DTM+137[2]")"#]]);
        check("", expect!["none"]);
        check(" ;  else ", expect![[r#"Unrecognised(";") + Unrecognised("else")"#]]);
    }
}
