//! The MARC search expression language of `POST /source-storage/stream/marc-record-identifiers`:
//! FOLIO's tokenizer, pre-checks, operand kinds and 400 messages, parsed into a tree.
//!
//! Owns the syntax and what each term means for one record; does not own evaluating it
//! over many records (`index.rs`). Errors carry FOLIO's message and the byte offset of
//! the text they are about.
//!
//! Differences from FOLIO, on purpose: `and` binds tighter than `or` and both are real
//! per-record boolean logic (FOLIO flattens field expressions into one OR); an
//! expression FOLIO would turn into invalid SQL (two terms without an operator, an
//! unknown `p_` key, text before a quoted value) is a 400 here rather than a 500.

/// A search expression FOLIO refuses, with FOLIO's message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ExpressionError {
    pub message: String,
    /// Byte offset in the expression of what the message is about.
    pub offset: usize,
}

/// Which of the two request fields an expression came from; FOLIO names it in messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExpressionKind {
    Leader,
    Fields,
}

impl ExpressionKind {
    fn name(self) -> &'static str {
        match self {
            ExpressionKind::Leader => "leaderSearchExpression",
            ExpressionKind::Fields => "marcFieldSearchExpression",
        }
    }
}

/// A parsed expression. A chain of one operator is one node (`a or b or c` is `Or`
/// over three), so a tree is as deep as the expression's parentheses nest, which
/// [`parse`] bounds (`limits::MAX_DEPTH`), however long its chains.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Expr {
    Term(Term),
    /// Two or more operands, all of which hold.
    And(Vec<Expr>),
    /// Two or more operands, one of which holds.
    Or(Vec<Expr>),
}

/// A MARC tag as three ASCII digits.
pub(crate) type Tag = [u8; 3];

/// One comparison, with the per-record meaning documented on each variant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Term {
    /// `p_NN[_MM] = | not= 'v'`: the leader slice (lower-cased, blanks as `#`; leader/05
    /// as is) equals / differs from `v`. `slot` numbers the FOLIO leader columns.
    Leader { slot: u8, value: String, negate: bool },
    /// `NNN.x`: over the values of subfield `x` of the record's NNN fields (the value of
    /// a control field counts as subfield `0`, as in FOLIO's index).
    Subfield { tag: Tag, code: u8, op: ValueOp },
    /// `NNN.ind1|ind2`: over the indicator of each NNN field, blank as `#`.
    Indicator { tag: Tag, which: u8, op: ValueOp },
    /// `NNN.value`: over every value of NNN (the control field's value, or each
    /// subfield of a data field).
    Value { tag: Tag, op: ValueOp },
    /// `NNN.SS_LL = | not= 'v'`: some value of NNN has `v` at character `SS` (0-based),
    /// `LL` long / has something else there.
    Position { tag: Tag, start: usize, len: usize, value: String, negate: bool },
    /// `NNN.date`: over the values of NNN whose first eight characters are a
    /// `yyyymmdd` date; values that are not dates never match.
    Date { tag: Tag, op: DateOp },
}

/// A comparison of text values. For a record, `Eq`, `NotEq` and `Prefix` hold when
/// *some* value compared satisfies them: `035.a not= 'X'` means "the record has an
/// 035 $a that is not X" (FOLIO's meaning, one index row at a time), not "no 035 $a
/// is X".
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ValueOp {
    Eq(String),
    NotEq(String),
    Prefix(String),
    /// `is 'present'`.
    Present,
    /// `is 'absent'`.
    Absent,
}

/// A comparison of dates as `yyyymmdd` numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DateOp {
    Eq(u32),
    NotEq(u32),
    From(u32),
    To(u32),
    Between(u32, u32),
}

/// The FOLIO leader columns: key, first position, length.
pub(crate) const LEADER_SLOTS: [(&str, usize, usize); 15] = [
    ("p_00_04", 0, 5),
    ("p_05", 5, 1),
    ("p_06", 6, 1),
    ("p_07", 7, 1),
    ("p_08", 8, 1),
    ("p_09", 9, 1),
    ("p_10", 10, 1),
    ("p_11", 11, 1),
    ("p_12_16", 12, 5),
    ("p_17", 17, 1),
    ("p_18", 18, 1),
    ("p_19", 19, 1),
    ("p_20", 20, 1),
    ("p_21", 21, 1),
    ("p_22", 22, 1),
];

/// The slot of leader/05, compared without normalisation.
pub(crate) const LEADER_STATUS_SLOT: u8 = 1;

const OPERATORS: &str = "[=, ^=, not=, from, to, in, is]";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Eq,
    Prefix,
    NotEq,
    From,
    To,
    In,
    Is,
}

impl Op {
    fn parse(s: &str) -> Option<Op> {
        Some(match s.to_lowercase().as_str() {
            "=" => Op::Eq,
            "^=" => Op::Prefix,
            "not=" => Op::NotEq,
            "from" => Op::From,
            "to" => Op::To,
            "in" => Op::In,
            "is" => Op::Is,
            _ => return None,
        })
    }

    fn as_str(self) -> &'static str {
        match self {
            Op::Eq => "=",
            Op::Prefix => "^=",
            Op::NotEq => "not=",
            Op::From => "from",
            Op::To => "to",
            Op::In => "in",
            Op::Is => "is",
        }
    }
}

#[derive(Debug)]
enum Lexeme {
    Open(usize),
    Close(usize),
    And(usize),
    Or(usize),
    Term { at: usize, raw: RawTerm },
}

/// A term as lexed, before its operator is checked against its key kind.
#[derive(Debug)]
struct RawTerm {
    key: String,
    op: Op,
    value: String,
    kind: KeyKind,
}

#[derive(Debug)]
enum KeyKind {
    Leader(u8),
    Indicator(Tag, u8),
    Subfield(Tag, u8),
    Value(Tag),
    Position(Tag, usize, usize),
    Date(Tag, Option<(u32, Option<u32>)>),
}

/// Parses an expression the way FOLIO checks and tokenizes it, within Quire's query
/// limits (`limits`: its length, its number of terms, how deep its parentheses nest).
pub(crate) fn parse(input: &str, kind: ExpressionKind) -> Result<Expr, ExpressionError> {
    let over = |exceeded: limits::Exceeded, offset| ExpressionError {
        message: format!("{exceeded} [expression: {}]", kind.name()),
        offset,
    };
    limits::check_bytes(input).map_err(|e| over(e, 0))?;
    precheck(input, kind)?;
    let lexemes = lex(input)?;
    let (mut depth, mut n_terms) = (0, 0);
    for lexeme in &lexemes {
        match lexeme {
            Lexeme::Open(at) => {
                depth += 1;
                limits::check_depth(depth).map_err(|e| over(e, *at))?;
            }
            Lexeme::Close(_) => depth = depth.saturating_sub(1),
            Lexeme::Term { at, .. } => {
                n_terms += 1;
                limits::check_terms(n_terms).map_err(|e| over(e, *at))?;
            }
            Lexeme::And(_) | Lexeme::Or(_) => {}
        }
    }
    let mut terms = Vec::new();
    for lexeme in &lexemes {
        if let Lexeme::Term { at, raw } = lexeme {
            terms.push(check(raw).map_err(|message| ExpressionError { message, offset: *at })?);
        }
    }
    let mut parser = Parser { lexemes: &lexemes, pos: 0, terms: terms.into_iter(), input };
    let expr = parser.or()?;
    if parser.pos != lexemes.len() {
        return Err(parser.unparsable());
    }
    Ok(expr)
}

fn precheck(input: &str, kind: ExpressionKind) -> Result<(), ExpressionError> {
    let name = kind.name();
    let fail = |message: String, offset| Err(ExpressionError { message, offset });
    if input.trim().is_empty() {
        return fail(
            format!("The input expression should not be black or empty [expression: {name}]"),
            0,
        );
    }
    if input.matches('(').count() != input.matches(')').count() {
        return fail(
            format!(
                "The number of opened brackets should be equal to number of closed brackets [expression: {name}]"
            ),
            0,
        );
    }
    if !input.matches('\'').count().is_multiple_of(2) {
        return fail(
            format!(
                "Each value in the expression should be surrounded by single quotes [expression: {name}]"
            ),
            input.rfind('\'').unwrap_or(0),
        );
    }
    if let Some(at) = input.find("''") {
        return fail(format!("Empty values are not allowed [expression: {name}]"), at);
    }
    Ok(())
}

fn not_parsable(input: &str, at: usize) -> ExpressionError {
    ExpressionError {
        message: format!("The given expression [{}] is not parsable", &input[at..]),
        offset: at,
    }
}

fn lex(input: &str) -> Result<Vec<Lexeme>, ExpressionError> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < input.len() {
        let rest = &input[at..];
        let bytes = rest.as_bytes();
        let is_field = bytes.len() >= 3 && bytes[..3].iter().all(u8::is_ascii_digit);
        if is_field || rest.starts_with("p_") {
            let (raw, used) = lex_term(rest).ok_or_else(|| not_parsable(input, at))?;
            let raw = raw.map_err(|message| ExpressionError { message, offset: at })?;
            out.push(Lexeme::Term { at, raw });
            at += used;
        } else if rest.starts_with('(') {
            out.push(Lexeme::Open(at));
            at += 1;
        } else if rest.starts_with(')') {
            out.push(Lexeme::Close(at));
            at += 1;
        } else if rest.starts_with("and") {
            out.push(Lexeme::And(at));
            at += 3;
        } else if rest.starts_with("or") {
            out.push(Lexeme::Or(at));
            at += 2;
        } else if rest.starts_with(' ') {
            at += 1;
        } else {
            return Err(not_parsable(input, at));
        }
    }
    Ok(out)
}

/// `KEY OP 'VALUE'`: the key and operator end at the first two spaces; the value is
/// between the next two quotes. Returns the term (or its FOLIO error) and the bytes used;
/// `None` when the text has no such shape.
fn lex_term(rest: &str) -> Option<(Result<RawTerm, String>, usize)> {
    let (key, after_key) = rest.split_once(' ')?;
    let (op_text, after_op) = after_key.split_once(' ')?;
    let value_start = after_op.strip_prefix('\'')?;
    let close = value_start.find('\'')?;
    let value = &value_start[..close];
    let used = rest.len() - (value_start.len() - close - 1);
    Some((classify(key, op_text, value), used))
}

fn classify(key: &str, op_text: &str, value: &str) -> Result<RawTerm, String> {
    let op = Op::parse(op_text).ok_or_else(|| {
        format!(
            "The given binary operator is not supported [key: {key}, operator: {op_text}, value: {value}]. Supported operators: {OPERATORS}"
        )
    })?;
    let unsupported_key = || {
        format!("The given key is not supported [key: {key}, operator: {op_text}, value: {value}]")
    };
    let kind = if key.starts_with("p_") {
        let slot = LEADER_SLOTS.iter().position(|(name, _, _)| *name == key);
        KeyKind::Leader(slot.ok_or_else(unsupported_key)? as u8)
    } else {
        let b = key.as_bytes();
        // FOLIO's key patterns put an unescaped `.` (any character) after the tag.
        let tag: Tag = [b[0], b[1], b[2]];
        let suffix = key.get(4..).filter(|_| b.len() > 4 && key.is_char_boundary(4));
        match suffix {
            Some("ind1") => KeyKind::Indicator(tag, 1),
            Some("ind2") => KeyKind::Indicator(tag, 2),
            Some(s) if s.len() == 1 && matches!(s.as_bytes()[0], b'0'..=b'9' | b'a'..=b'z') => {
                KeyKind::Subfield(tag, s.as_bytes()[0])
            }
            Some("value") => KeyKind::Value(tag),
            Some(s) if position_key(s).is_some() => {
                let (start, len) = position_key(s).unwrap_or_default();
                if value.chars().count() != len {
                    return Err(format!(
                        "The length of the value [{value}] should be equal to the end position [expected length = {len}]"
                    ));
                }
                KeyKind::Position(tag, start, len)
            }
            Some("date") => {
                let dates = match value.split_once('-') {
                    Some((first, rest)) => {
                        let second = rest.split('-').next().unwrap_or("");
                        (date_value(first)?, Some(date_value(second)?))
                    }
                    None => (date_value(value)?, None),
                };
                KeyKind::Date(tag, Some(dates))
            }
            _ => return Err(unsupported_key()),
        }
    };
    Ok(RawTerm { key: key.to_string(), op, value: value.to_string(), kind })
}

/// `SS_LL` with two or three digits each.
fn position_key(s: &str) -> Option<(usize, usize)> {
    let (start, len) = s.split_once('_')?;
    let ok = |p: &str| (2..=3).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_digit());
    if !ok(start) || !ok(len) {
        return None;
    }
    Some((start.parse().ok()?, len.parse().ok()?))
}

/// A query date: its first eight characters must be a calendar date `yyyymmdd`.
fn date_value(text: &str) -> Result<u32, String> {
    parse_date(text).ok_or_else(|| {
        format!("The given date [{text}] is in a wrong format. Expected date pattern: [yyyymmdd]")
    })
}

/// The `yyyymmdd` number of a value's first eight characters, if they are a real date
/// (FOLIO's `immutable_to_date`, which yields NULL otherwise).
pub(crate) fn parse_date(text: &str) -> Option<u32> {
    let digits = text.as_bytes().get(..8)?;
    if !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let n: u32 = std::str::from_utf8(digits).ok()?.parse().ok()?;
    let (y, m, d) = ((n / 10_000) as i32, n / 100 % 100, n % 100);
    chrono::NaiveDate::from_ymd_opt(y, m, d).map(|_| n)
}

/// Checks a term's operator against its key kind, in FOLIO's order and words.
fn check(raw: &RawTerm) -> Result<Term, String> {
    let RawTerm { key, op, value, kind } = raw;
    let op = *op;
    let presence = |value: &str| match value {
        "present" => Ok(ValueOp::Present),
        "absent" => Ok(ValueOp::Absent),
        other => Err(format!("Value [{other}] is not supported for the given Presence operand")),
    };
    let text_op = |what: &str| -> Result<ValueOp, String> {
        match op {
            Op::Eq => Ok(ValueOp::Eq(value.clone())),
            Op::NotEq => Ok(ValueOp::NotEq(value.clone())),
            Op::Prefix => Ok(ValueOp::Prefix(value.clone())),
            Op::Is => presence(value),
            _ => Err(format!(
                "Operator [{}] is not supported for the given {what} operand",
                op.as_str()
            )),
        }
    };
    Ok(match kind {
        KeyKind::Leader(slot) => match op {
            Op::Eq | Op::NotEq => {
                Term::Leader { slot: *slot, value: value.clone(), negate: op == Op::NotEq }
            }
            _ => {
                return Err(format!(
                    "Operator [{}] is not supported for the given Leader operand. Supported operators: [=]",
                    op.as_str()
                ));
            }
        },
        KeyKind::Indicator(tag, which) => {
            Term::Indicator { tag: *tag, which: *which, op: text_op("Indicator")? }
        }
        KeyKind::Subfield(tag, code) => {
            Term::Subfield { tag: *tag, code: *code, op: text_op("SubField")? }
        }
        KeyKind::Value(tag) => Term::Value { tag: *tag, op: text_op("Value")? },
        KeyKind::Position(tag, start, len) => match op {
            Op::Eq | Op::NotEq => Term::Position {
                tag: *tag,
                start: *start,
                len: *len,
                value: value.clone(),
                negate: op == Op::NotEq,
            },
            _ => {
                return Err(format!(
                    "Operator [{}] is not supported for the given Position operand",
                    op.as_str()
                ));
            }
        },
        KeyKind::Date(tag, dates) => {
            let (first, second) = dates.unwrap_or((0, None));
            let op = match (op, second) {
                (Op::Eq, None) => DateOp::Eq(first),
                (Op::NotEq, None) => DateOp::NotEq(first),
                (Op::From, None) => DateOp::From(first),
                (Op::To, None) => DateOp::To(first),
                (Op::In, Some(second)) => DateOp::Between(first, second),
                _ => {
                    return Err(format!(
                        "The given expression [{key} {} '{value}'] is not supported",
                        op.as_str()
                    ));
                }
            };
            Term::Date { tag: *tag, op }
        }
    })
}

/// Recursive descent over the lexemes: `or` of `and`s of terms or parenthesised
/// expressions. It recurses once per parenthesis, which `parse` has bounded.
struct Parser<'a> {
    lexemes: &'a [Lexeme],
    pos: usize,
    terms: std::vec::IntoIter<Term>,
    input: &'a str,
}

impl Parser<'_> {
    fn unparsable(&self) -> ExpressionError {
        let at = match self.lexemes.get(self.pos) {
            Some(
                Lexeme::Open(at)
                | Lexeme::Close(at)
                | Lexeme::And(at)
                | Lexeme::Or(at)
                | Lexeme::Term { at, .. },
            ) => *at,
            None => self.input.len(),
        };
        not_parsable(self.input, at)
    }

    fn or(&mut self) -> Result<Expr, ExpressionError> {
        let mut operands = vec![self.and()?];
        while matches!(self.lexemes.get(self.pos), Some(Lexeme::Or(_))) {
            self.pos += 1;
            operands.push(self.and()?);
        }
        Ok(if operands.len() == 1 { operands.remove(0) } else { Expr::Or(operands) })
    }

    fn and(&mut self) -> Result<Expr, ExpressionError> {
        let mut operands = vec![self.primary()?];
        while matches!(self.lexemes.get(self.pos), Some(Lexeme::And(_))) {
            self.pos += 1;
            operands.push(self.primary()?);
        }
        Ok(if operands.len() == 1 { operands.remove(0) } else { Expr::And(operands) })
    }

    fn primary(&mut self) -> Result<Expr, ExpressionError> {
        match self.lexemes.get(self.pos) {
            Some(Lexeme::Term { .. }) => {
                self.pos += 1;
                let term = self.terms.next().ok_or_else(|| self.unparsable())?;
                Ok(Expr::Term(term))
            }
            Some(Lexeme::Open(_)) => {
                self.pos += 1;
                let inner = self.or()?;
                if !matches!(self.lexemes.get(self.pos), Some(Lexeme::Close(_))) {
                    return Err(self.unparsable());
                }
                self.pos += 1;
                Ok(inner)
            }
            _ => Err(self.unparsable()),
        }
    }
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};

    use super::*;

    fn show_op(op: &ValueOp) -> String {
        match op {
            ValueOp::Eq(v) => format!("= {v:?}"),
            ValueOp::NotEq(v) => format!("not= {v:?}"),
            ValueOp::Prefix(v) => format!("^= {v:?}"),
            ValueOp::Present => "present".to_string(),
            ValueOp::Absent => "absent".to_string(),
        }
    }

    fn show(e: &Expr) -> String {
        let tag = |t: &Tag| String::from_utf8_lossy(t).into_owned();
        match e {
            Expr::And(operands) => {
                format!("(and {})", operands.iter().map(show).collect::<Vec<_>>().join(" "))
            }
            Expr::Or(operands) => {
                format!("(or {})", operands.iter().map(show).collect::<Vec<_>>().join(" "))
            }
            Expr::Term(t) => match t {
                Term::Leader { slot, value, negate } => {
                    let not = if *negate { "not" } else { "" };
                    format!("leader[{}]{not}={value:?}", LEADER_SLOTS[*slot as usize].0)
                }
                Term::Subfield { tag: t, code, op } => {
                    format!("{}${} {}", tag(t), *code as char, show_op(op))
                }
                Term::Indicator { tag: t, which, op } => {
                    format!("{}.ind{which} {}", tag(t), show_op(op))
                }
                Term::Value { tag: t, op } => format!("{}.value {}", tag(t), show_op(op)),
                Term::Position { tag: t, start, len, value, negate } => {
                    let not = if *negate { "not" } else { "" };
                    format!("{}[{start}+{len}]{not}={value:?}", tag(t))
                }
                Term::Date { tag: t, op } => format!("{}.date {op:?}", tag(t)),
            },
        }
    }

    /// Parses `input` as a fields expression (a leader one when it starts with `p_`)
    /// and shows the tree, or the error with its offset.
    fn check(input: &str, expect: Expect) {
        let kind =
            if input.starts_with("p_") { ExpressionKind::Leader } else { ExpressionKind::Fields };
        let actual = match parse(input, kind) {
            Ok(e) => show(&e),
            Err(e) => format!("error at {}: {}", e.offset, e.message),
        };
        expect.assert_eq(&actual);
    }

    #[test]
    fn leader_terms() {
        check("p_05 = 'd'", expect![[r#"leader[p_05]="d""#]]);
        check("p_06 not= 'a'", expect![[r#"leader[p_06]not="a""#]]);
        check("p_00_04 = '01234'", expect![[r#"leader[p_00_04]="01234""#]]);
        check("p_12_16 = '00241'", expect![[r#"leader[p_12_16]="00241""#]]);
        check(
            "p_05 ^= 'd'",
            expect![
                "error at 0: Operator [^=] is not supported for the given Leader operand. Supported operators: [=]"
            ],
        );
        check(
            "p_23 = 'a'",
            expect![
                "error at 0: The given key is not supported [key: p_23, operator: =, value: a]"
            ],
        );
    }

    #[test]
    fn field_key_forms_and_operators() {
        check("035.a = '(OCoLC)1'", expect![[r#"035$a = "(OCoLC)1""#]]);
        check("035.a not= 'X'", expect![[r#"035$a not= "X""#]]);
        check("245.a ^= 'The'", expect![[r#"245$a ^= "The""#]]);
        check("245.a is 'present'", expect!["245$a present"]);
        check("245.a is 'absent'", expect!["245$a absent"]);
        check("001.0 = 'in1'", expect![[r#"001$0 = "in1""#]]);
        check("245.ind1 = '1'", expect![[r#"245.ind1 = "1""#]]);
        check("245.ind2 not= '#'", expect![[r##"245.ind2 not= "#""##]]);
        check("245.ind1 is 'present'", expect!["245.ind1 present"]);
        check("500.value = 'note'", expect![[r#"500.value = "note""#]]);
        check("500.value ^= 'no'", expect![[r#"500.value ^= "no""#]]);
        check("500.value is 'absent'", expect!["500.value absent"]);
        check("008.35_03 = 'eng'", expect![[r#"008[35+3]="eng""#]]);
        check("008.035_003 not= 'eng'", expect![[r#"008[35+3]not="eng""#]]);
        // Operators are case-insensitive, as FOLIO's are.
        check("245.a NOT= 'x'", expect![[r#"245$a not= "x""#]]);
    }

    #[test]
    fn date_terms() {
        check("005.date = '20141107'", expect!["005.date Eq(20141107)"]);
        check("005.date not= '20141107'", expect!["005.date NotEq(20141107)"]);
        check("005.date from '20141107'", expect!["005.date From(20141107)"]);
        check("005.date to '20141107'", expect!["005.date To(20141107)"]);
        check("005.date in '20141101-20141130'", expect!["005.date Between(20141101, 20141130)"]);
        // Only the first eight characters are the date.
        check("005.date = '20141107001016.0'", expect!["005.date Eq(20141107)"]);
        check(
            "005.date in '20141101'",
            expect!["error at 0: The given expression [005.date in '20141101'] is not supported"],
        );
        check(
            "005.date = '20141101-20141130'",
            expect![
                "error at 0: The given expression [005.date = '20141101-20141130'] is not supported"
            ],
        );
        check(
            "005.date ^= '20141107'",
            expect!["error at 0: The given expression [005.date ^= '20141107'] is not supported"],
        );
        check(
            "005.date = '20141345'",
            expect![
                "error at 0: The given date [20141345] is in a wrong format. Expected date pattern: [yyyymmdd]"
            ],
        );
        check(
            "005.date in '20141101-2014'",
            expect![
                "error at 0: The given date [2014] is in a wrong format. Expected date pattern: [yyyymmdd]"
            ],
        );
    }

    #[test]
    fn expressions_over_the_limits_are_refused() {
        let term = "245.a ^= 'w'";
        let nested = |n: usize| format!("{}{term}{}", "(".repeat(n), ")".repeat(n));
        assert!(parse(&nested(limits::MAX_DEPTH), ExpressionKind::Fields).is_ok());
        check(
            &nested(limits::MAX_DEPTH + 1),
            expect![
                "error at 32: Query is nested too deeply: at most 32 levels are allowed [expression: marcFieldSearchExpression]"
            ],
        );
        check(
            &nested(5000),
            expect![
                "error at 32: Query is nested too deeply: at most 32 levels are allowed [expression: marcFieldSearchExpression]"
            ],
        );
        let chain = |n: usize| vec![term; n].join(" or ");
        assert!(parse(&chain(limits::MAX_TERMS), ExpressionKind::Fields).is_ok());
        check(
            &chain(limits::MAX_TERMS + 1),
            expect![
                "error at 16000: Query has too many terms: at most 1000 are allowed [expression: marcFieldSearchExpression]"
            ],
        );
        let leader = vec!["p_05 = 'c'"; 7000].join(" and ");
        check(
            &leader,
            expect![
                "error at 0: Query is too long: 104995 bytes, at most 65536 are allowed [expression: leaderSearchExpression]"
            ],
        );
    }

    #[test]
    fn precedence_and_brackets() {
        // `and` binds tighter than `or`; both associate to the left.
        check(
            "035.a = 'a' or 035.a = 'b' and 245.a = 'c'",
            expect![[r#"(or 035$a = "a" (and 035$a = "b" 245$a = "c"))"#]],
        );
        check(
            "035.a = 'a' and 035.a = 'b' or 245.a = 'c'",
            expect![[r#"(or (and 035$a = "a" 035$a = "b") 245$a = "c")"#]],
        );
        check(
            "(035.a = 'a' or 035.a = 'b') and 245.a = 'c'",
            expect![[r#"(and (or 035$a = "a" 035$a = "b") 245$a = "c")"#]],
        );
        check(
            "035.a = 'a' and 035.a = 'b' and 245.a = 'c'",
            expect![[r#"(and 035$a = "a" 035$a = "b" 245$a = "c")"#]],
        );
        check(
            "p_05 = 'c' or (p_06 = 'a' and p_07 = 'm')",
            expect![[r#"(or leader[p_05]="c" (and leader[p_06]="a" leader[p_07]="m"))"#]],
        );
        // Quoted values may hold spaces, brackets and the words `and`/`or`.
        check("245.a = 'war and (peace)'", expect![[r#"245$a = "war and (peace)""#]]);
    }

    #[test]
    fn prechecks_name_the_expression() {
        check(
            "  ",
            expect![
                "error at 0: The input expression should not be black or empty [expression: marcFieldSearchExpression]"
            ],
        );
        let leader = parse("", ExpressionKind::Leader).unwrap_err();
        expect![
            "The input expression should not be black or empty [expression: leaderSearchExpression]"
        ]
        .assert_eq(&leader.message);
        check(
            "(035.a = 'a'",
            expect![
                "error at 0: The number of opened brackets should be equal to number of closed brackets [expression: marcFieldSearchExpression]"
            ],
        );
        check(
            "035.a = 'a",
            expect![
                "error at 8: Each value in the expression should be surrounded by single quotes [expression: marcFieldSearchExpression]"
            ],
        );
        check(
            "035.a = ''",
            expect![
                "error at 8: Empty values are not allowed [expression: marcFieldSearchExpression]"
            ],
        );
    }

    #[test]
    fn term_errors() {
        check(
            "035.a like 'x'",
            expect![
                "error at 0: The given binary operator is not supported [key: 035.a, operator: like, value: x]. Supported operators: [=, ^=, not=, from, to, in, is]"
            ],
        );
        check(
            "035.ab = 'x'",
            expect![
                "error at 0: The given key is not supported [key: 035.ab, operator: =, value: x]"
            ],
        );
        check(
            "008.35_03 = 'en'",
            expect![
                "error at 0: The length of the value [en] should be equal to the end position [expected length = 3]"
            ],
        );
        check(
            "008.35_03 ^= 'eng'",
            expect!["error at 0: Operator [^=] is not supported for the given Position operand"],
        );
        check(
            "245.a is 'there'",
            expect!["error at 0: Value [there] is not supported for the given Presence operand"],
        );
        check(
            "245.a from 'x'",
            expect!["error at 0: Operator [from] is not supported for the given SubField operand"],
        );
        check(
            "245.ind1 in 'x'",
            expect!["error at 0: Operator [in] is not supported for the given Indicator operand"],
        );
        check(
            "245.value to 'x'",
            expect!["error at 0: Operator [to] is not supported for the given Value operand"],
        );
        // The offset is that of the term at fault.
        check(
            "245.a = 'x' and 035.a from 'y'",
            expect!["error at 16: Operator [from] is not supported for the given SubField operand"],
        );
    }

    #[test]
    fn unparsable_text() {
        check(
            "245.a = 'x' 035.a = 'y'",
            expect!["error at 12: The given expression [035.a = 'y'] is not parsable"],
        );
        check("245.a = 'x' and", expect!["error at 15: The given expression [] is not parsable"]);
        check(
            "or 245.a = 'x'",
            expect!["error at 0: The given expression [or 245.a = 'x'] is not parsable"],
        );
        check(
            "title = 'x'",
            expect!["error at 0: The given expression [title = 'x'] is not parsable"],
        );
        check(
            "245.a = x 'y'",
            expect!["error at 0: The given expression [245.a = x 'y'] is not parsable"],
        );
        check("()", expect!["error at 1: The given expression [)] is not parsable"]);
    }
}
