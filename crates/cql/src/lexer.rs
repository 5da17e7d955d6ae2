//! Splits a query into CQL tokens, the way cql-java's `CQLLexer` does.
//!
//! Owns: token boundaries, keyword recognition and how tokens are named in
//! error messages. Does not own: which words act as relations (that depends on
//! position, so it is the parser's call).
//!
//! Every token's text is a slice of the query, so lexing never allocates.
//! Quoted strings keep their backslash escapes (`"a\"b"` has the text `a\"b`),
//! because cql-java hands terms on with escapes intact and leaves masking to
//! the consumer.

use crate::error::{ParseError, Result};

/// The kinds of token. Keywords are recognised case-insensitively.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Eof,
    /// An unquoted run of characters other than `()/<>=`, space, tab, CR, LF.
    Word,
    /// A double-quoted string; the text excludes the quotes.
    Str,
    LParen,
    RParen,
    Slash,
    Lt,
    Gt,
    Eq,
    Le,
    Ge,
    Ne,
    EqEq,
    And,
    Or,
    Not,
    Prox,
    Sortby,
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct Token<'a> {
    pub(crate) kind: Kind,
    /// Word text, string content (escapes kept) or the operator as written.
    pub(crate) text: &'a str,
    /// Byte offset of the token's first character.
    pub(crate) start: usize,
}

impl Kind {
    /// The symbol of a comparison token, as it appears in XCQL.
    pub(crate) fn comparison(self) -> Option<&'static str> {
        Some(match self {
            Kind::Lt => "<",
            Kind::Gt => ">",
            Kind::Eq => "=",
            Kind::Le => "<=",
            Kind::Ge => ">=",
            Kind::Ne => "<>",
            Kind::EqEq => "==",
            _ => return None,
        })
    }

    /// How an expected token is named in an error message (single characters
    /// quoted, as cql-java does).
    pub(crate) fn describe(self) -> &'static str {
        match self {
            Kind::Eof => "EOF",
            Kind::Word => "word",
            Kind::Str => "string",
            Kind::LParen => "'('",
            Kind::RParen => "')'",
            Kind::Slash => "'/'",
            Kind::Lt => "'<'",
            Kind::Gt => "'>'",
            Kind::Eq => "'='",
            Kind::Le => "<=",
            Kind::Ge => ">=",
            Kind::Ne => "<>",
            Kind::EqEq => "==",
            Kind::And => "and",
            Kind::Or => "or",
            Kind::Not => "not",
            Kind::Prox => "prox",
            Kind::Sortby => "sortby",
        }
    }

    pub(crate) fn is_keyword(self) -> bool {
        matches!(self, Kind::And | Kind::Or | Kind::Not | Kind::Prox | Kind::Sortby)
    }
}

impl Token<'_> {
    /// How the token is named after "got" in an error message.
    pub(crate) fn describe(&self) -> String {
        match self.kind {
            Kind::Word => format!("word: '{}'", self.text),
            Kind::Str => format!("string: \"{}\"", self.text),
            kind => kind.describe().to_owned(),
        }
    }
}

pub(crate) struct Lexer<'a> {
    src: &'a str,
    pos: usize,
}

/// Bytes that end an unquoted word. Everything else, including `"`, `\` and
/// non-ASCII whitespace, belongs to the word (cql-java's `OPS_AND_WHITESPACE`).
fn ends_word(b: u8) -> bool {
    matches!(b, b'(' | b')' | b'/' | b'<' | b'>' | b'=' | b' ' | b'\t' | b'\r' | b'\n')
}

impl<'a> Lexer<'a> {
    pub(crate) fn new(src: &'a str) -> Self {
        Self { src, pos: 0 }
    }

    pub(crate) fn next_token(&mut self) -> Result<Token<'a>> {
        let bytes = self.src.as_bytes();
        while self.pos < bytes.len() && matches!(bytes[self.pos], b' ' | b'\t' | b'\r' | b'\n') {
            self.pos += 1;
        }
        let start = self.pos;
        let Some(&first) = bytes.get(start) else {
            return Ok(Token { kind: Kind::Eof, text: "", start });
        };
        let next = bytes.get(start + 1).copied();
        let (kind, len) = match (first, next) {
            (b'(', _) => (Kind::LParen, 1),
            (b')', _) => (Kind::RParen, 1),
            (b'/', _) => (Kind::Slash, 1),
            (b'=', Some(b'=')) => (Kind::EqEq, 2),
            (b'<', Some(b'=')) => (Kind::Le, 2),
            (b'>', Some(b'=')) => (Kind::Ge, 2),
            (b'<', Some(b'>')) => (Kind::Ne, 2),
            (b'=', _) => (Kind::Eq, 1),
            (b'<', _) => (Kind::Lt, 1),
            (b'>', _) => (Kind::Gt, 1),
            (b'"', _) => return self.string(start),
            _ => {
                let mut end = start;
                while end < bytes.len() && !ends_word(bytes[end]) {
                    end += 1;
                }
                let text = &self.src[start..end];
                self.pos = end;
                return Ok(Token { kind: keyword(text).unwrap_or(Kind::Word), text, start });
            }
        };
        self.pos = start + len;
        Ok(Token { kind, text: &self.src[start..start + len], start })
    }

    /// A quoted string starting at `start`. A backslash takes the next
    /// character along with it, so `\"` does not end the string.
    fn string(&mut self, start: usize) -> Result<Token<'a>> {
        let bytes = self.src.as_bytes();
        let mut i = start + 1;
        while i < bytes.len() {
            match bytes[i] {
                b'"' => {
                    self.pos = i + 1;
                    return Ok(Token { kind: Kind::Str, text: &self.src[start + 1..i], start });
                }
                // Skipping one byte is enough even before a multi-byte
                // character: its continuation bytes are never `"` or `\`.
                b'\\' => i += 2,
                _ => i += 1,
            }
        }
        // cql-java treats an unterminated string as the end of the query and
        // silently drops it (`a "b` parses as `a`); Quire is strict instead.
        Err(ParseError::new(start, "unterminated string"))
    }
}

/// The keyword a word spells, if any. ASCII case folding is exact here: no
/// non-ASCII character lower-cases to a letter of these keywords.
fn keyword(word: &str) -> Option<Kind> {
    let kind = match word.len() {
        2 if word.eq_ignore_ascii_case("or") => Kind::Or,
        3 if word.eq_ignore_ascii_case("and") => Kind::And,
        3 if word.eq_ignore_ascii_case("not") => Kind::Not,
        4 if word.eq_ignore_ascii_case("prox") => Kind::Prox,
        6 if word.eq_ignore_ascii_case("sortby") => Kind::Sortby,
        _ => return None,
    };
    Some(kind)
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};

    use super::*;

    fn check(input: &str, expect: Expect) {
        let mut lexer = Lexer::new(input);
        let mut out = Vec::new();
        loop {
            match lexer.next_token() {
                Ok(token) if token.kind == Kind::Eof => break,
                Ok(token) => out.push(format!("{:?}@{} {}", token.kind, token.start, token.text)),
                Err(e) => {
                    out.push(format!("error: {e}"));
                    break;
                }
            }
        }
        expect.assert_eq(&out.join("\n"));
    }

    #[test]
    fn operators_pair_greedily() {
        check(
            "a==b<>c<=d>=e<f>g=h</i",
            expect![[r#"
                Word@0 a
                EqEq@1 ==
                Word@3 b
                Ne@4 <>
                Word@6 c
                Le@7 <=
                Word@9 d
                Ge@10 >=
                Word@12 e
                Lt@13 <
                Word@14 f
                Gt@15 >
                Word@16 g
                Eq@17 =
                Word@18 h
                Lt@19 <
                Slash@20 /
                Word@21 i"#]],
        );
        check(
            "=<",
            expect![[r#"
            Eq@0 =
            Lt@1 <"#]],
        );
    }

    #[test]
    fn keywords_are_case_insensitive_words() {
        check(
            "AND Or nOt PROX SortBy andy",
            expect![[r#"
                And@0 AND
                Or@4 Or
                Not@7 nOt
                Prox@11 PROX
                Sortby@16 SortBy
                Word@23 andy"#]],
        );
    }

    #[test]
    fn strings_keep_escapes() {
        check(
            r#""a \"b\" \\" x"y te\rm\* "#,
            expect![[r#"
                Str@0 a \"b\" \\
                Word@13 x"y
                Word@17 te\rm\*"#]],
        );
        check(r#""é\ü""#, expect![[r#"Str@0 é\ü"#]]);
    }

    #[test]
    fn unterminated_strings_are_errors() {
        check(
            r#"a "b"#,
            expect![[r#"
            Word@0 a
            error: unterminated string (at byte 2)"#]],
        );
        check(r#""b\"#, expect![[r#"error: unterminated string (at byte 0)"#]]);
        check(r#""b\""#, expect![[r#"error: unterminated string (at byte 0)"#]]);
    }

    #[test]
    fn whitespace_is_ascii_only() {
        check(
            "a\tb\r\nc\u{a0}d",
            expect![[r#"
            Word@0 a
            Word@2 b
            Word@5 c d"#]],
        );
    }
}
