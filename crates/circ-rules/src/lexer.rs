//! Tokens of the circulation rules language, with Python-like INDENT and
//! DEDENT tokens for nested rules. It owns where tokens are and what they
//! are; it does not know which token may follow which (that is the parser).
//!
//! The token stream is the one mod-circulation's ANTLR lexer produces, so
//! that the parser can report the same positions and token texts:
//!
//! - Blank lines and comment-only lines (`#` or `/` up to the line end) are
//!   invisible, whatever their indentation.
//! - The spaces before a line's first token decide its indentation; INDENT
//!   and DEDENT tokens sit at that line's first column. A tab anywhere
//!   outside a comment is an error.
//! - A file that does not end with a line break gets a synthetic NEWLINE
//!   before EOF, and every open indentation level is closed there.
//! - A run of `[0-9A-Za-z-]` is one word. Whole-word keywords (`priority`,
//!   `all`, ...) and the single letters `tabcsmg` and `lrnoi` win over names,
//!   so they can never be used as names.

use crate::error::Error;

/// Token kinds, in the order of the ANTLR grammar's token types (EOF first),
/// which is also the order expected-token lists are printed in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Eof,
    Indent,
    Dedent,
    Priority,
    Colon,
    FirstLine,
    LastLine,
    Comma,
    Criterium,
    LParen,
    RParen,
    NumberOfCriteria,
    Plus,
    Bang,
    All,
    FallbackPolicy,
    Letter,
    PolicyType,
    Name,
    Newline,
    /// Where lexing stopped: the parser reports the lexer's error when it
    /// reaches this token, as FOLIO's lazily driven lexer does.
    Error,
}

impl Kind {
    /// How ANTLR names the kind in "expecting ..." lists.
    pub(crate) fn display_name(self) -> &'static str {
        match self {
            Kind::Eof => "<EOF>",
            Kind::Indent => "INDENT",
            Kind::Dedent => "DEDENT",
            Kind::Priority => "'priority'",
            Kind::Colon => "':'",
            Kind::FirstLine => "'first-line'",
            Kind::LastLine => "'last-line'",
            Kind::Comma => "','",
            Kind::Criterium => "'criterium'",
            Kind::LParen => "'('",
            Kind::RParen => "')'",
            Kind::NumberOfCriteria => "'number-of-criteria'",
            Kind::Plus => "'+'",
            Kind::Bang => "'!'",
            Kind::All => "'all'",
            Kind::FallbackPolicy => "'fallback-policy'",
            Kind::Letter => "CRITERIUM_LETTER",
            Kind::PolicyType => "POLICY_TYPE",
            Kind::Name => "NAME",
            Kind::Newline => "NEWLINE",
            Kind::Error => "<error>",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Token {
    pub(crate) kind: Kind,
    /// Byte range in the text; empty for synthetic tokens.
    pub(crate) start: usize,
    pub(crate) end: usize,
    /// 1-based line.
    pub(crate) line: usize,
    /// 0-based column in characters, as ANTLR counts it.
    pub(crate) col: usize,
    /// For INDENT and DEDENT: the indentation level they lead to.
    pub(crate) level: usize,
    /// True for the NEWLINE the lexer adds before an EOF without a line break.
    pub(crate) synthetic: bool,
}

impl Token {
    /// The token's text as ANTLR shows it in messages (unquoted, unescaped).
    pub(crate) fn text(self, source: &str) -> String {
        match self.kind {
            Kind::Eof => "<EOF>".to_owned(),
            Kind::Indent => format!("INDENT{}", self.level),
            Kind::Dedent => format!("DEDENT{}", self.level),
            Kind::Newline if self.synthetic => "NEWLINE".to_owned(),
            _ => source[self.start..self.end].to_owned(),
        }
    }
}

/// The tokens of `text`, ending with EOF or, after a lexical error, with an
/// [`Kind::Error`] token; the error itself is returned alongside.
pub(crate) fn lex(text: &str) -> (Vec<Token>, Option<Error>) {
    let mut lexer = Lexer {
        text,
        pos: 0,
        line: 1,
        line_start: 0,
        tokens: Vec::new(),
        pending_dent: true,
        indent: 0,
        levels: Vec::new(),
        first_of_line: None,
    };
    let error = lexer.run();
    (lexer.tokens, error)
}

struct Lexer<'t> {
    text: &'t str,
    pos: usize,
    line: usize,
    line_start: usize,
    tokens: Vec<Token>,
    /// True from a line break until the line's first visible token.
    pending_dent: bool,
    /// Spaces seen at the start of the current line.
    indent: usize,
    // Invariant: strictly increasing; empty means level 0.
    levels: Vec<usize>,
    /// Where INDENT and DEDENT tokens of the current line are placed.
    first_of_line: Option<(usize, usize, usize)>,
}

impl Lexer<'_> {
    fn col(&self, pos: usize) -> usize {
        self.text[self.line_start..pos].chars().count()
    }

    fn here(&self) -> (usize, usize, usize) {
        (self.pos, self.line, self.col(self.pos))
    }

    fn mark_first_of_line(&mut self) {
        if self.pending_dent && self.first_of_line.is_none() {
            self.first_of_line = Some(self.here());
        }
    }

    fn run(&mut self) -> Option<Error> {
        let bytes = self.text.as_bytes();
        loop {
            let Some(&c) = bytes.get(self.pos) else {
                self.finish();
                return None;
            };
            let kind = match c {
                b' ' => {
                    self.mark_first_of_line();
                    let n = bytes[self.pos..].iter().take_while(|&&b| b == b' ').count();
                    if self.pending_dent {
                        self.indent += n;
                    }
                    self.pos += n;
                    continue;
                }
                b'#' | b'/' => {
                    self.mark_first_of_line();
                    let n = bytes[self.pos..].iter().take_while(|&&b| b != b'\n' && b != b'\r');
                    self.pos += n.count();
                    continue;
                }
                b'\r' | b'\n' => {
                    let n = if bytes[self.pos..].starts_with(b"\r\n") { 2 } else { 1 };
                    if !self.pending_dent {
                        let (start, line, col) = self.here();
                        self.tokens.push(Token {
                            kind: Kind::Newline,
                            start,
                            end: start + n,
                            line,
                            col,
                            level: 0,
                            synthetic: false,
                        });
                    }
                    self.pos += n;
                    self.line += 1;
                    self.line_start = self.pos;
                    self.pending_dent = true;
                    self.indent = 0;
                    self.first_of_line = None;
                    continue;
                }
                b'\t' => {
                    // FOLIO's lexer action reads its position after the tab
                    // and adds one, so the column is one right of the tab.
                    let (start, line, col) = self.here();
                    self.push_error(start);
                    let message = "Tabulator character is not allowed, use spaces instead.";
                    return Some(Error::new(line, col + 2, start, message));
                }
                b':' => Kind::Colon,
                b',' => Kind::Comma,
                b'(' => Kind::LParen,
                b')' => Kind::RParen,
                b'+' => Kind::Plus,
                b'!' => Kind::Bang,
                c if is_word_byte(c) => {
                    let n = bytes[self.pos..].iter().take_while(|&&b| is_word_byte(b)).count();
                    let kind = classify(&self.text[self.pos..self.pos + n]);
                    self.token(kind, n);
                    continue;
                }
                _ => {
                    // FOLIO's lexer reports this to its console and skips the
                    // character; Quire rejects it (see the README).
                    let (start, line, col) = self.here();
                    let ch = self.text[start..].chars().next().unwrap_or_default();
                    self.push_error(start);
                    let message =
                        format!("token recognition error at: '{}'", escape(&ch.to_string()));
                    return Some(Error::new(line, col + 1, start, message));
                }
            };
            self.token(kind, 1);
        }
    }

    fn push_error(&mut self, start: usize) {
        let (_, line, col) = self.here();
        let end = start;
        let token = Token { kind: Kind::Error, start, end, line, col, level: 0, synthetic: false };
        self.tokens.push(token);
    }

    /// A visible token of `len` bytes at the current position: first the
    /// INDENT or DEDENT tokens its line calls for.
    fn token(&mut self, kind: Kind, len: usize) {
        self.mark_first_of_line();
        self.dents();
        let (start, line, col) = self.here();
        let token = Token { kind, start, end: start + len, line, col, level: 0, synthetic: false };
        self.tokens.push(token);
        self.pos += len;
        self.pending_dent = false;
    }

    fn dents(&mut self) {
        let (start, line, col) = self.first_of_line.unwrap_or_else(|| self.here());
        loop {
            let saved = self.levels.last().copied().unwrap_or(0);
            let (kind, level) = if self.indent > saved {
                self.levels.push(self.indent);
                (Kind::Indent, self.indent)
            } else if self.indent < saved {
                self.levels.pop();
                (Kind::Dedent, self.levels.last().copied().unwrap_or(0))
            } else {
                return;
            };
            let end = start;
            self.tokens.push(Token { kind, start, end, line, col, level, synthetic: false });
        }
    }

    fn finish(&mut self) {
        let (start, line, col) = self.here();
        self.indent = 0;
        if !self.pending_dent {
            self.first_of_line = Some((start, line, col));
            let end = start;
            let newline =
                Token { kind: Kind::Newline, start, end, line, col, level: 0, synthetic: true };
            self.tokens.push(newline);
        }
        self.mark_first_of_line();
        self.dents();
        let eof =
            Token { kind: Kind::Eof, start, end: start, line, col, level: 0, synthetic: false };
        self.tokens.push(eof);
    }
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'-'
}

fn classify(word: &str) -> Kind {
    match word {
        "priority" => Kind::Priority,
        "first-line" => Kind::FirstLine,
        "last-line" => Kind::LastLine,
        "criterium" => Kind::Criterium,
        "number-of-criteria" => Kind::NumberOfCriteria,
        "all" => Kind::All,
        "fallback-policy" => Kind::FallbackPolicy,
        "t" | "a" | "b" | "c" | "s" | "m" | "g" => Kind::Letter,
        "l" | "r" | "n" | "o" | "i" => Kind::PolicyType,
        _ => Kind::Name,
    }
}

/// ANTLR's escaping of token text in messages.
pub(crate) fn escape(text: &str) -> String {
    text.replace('\n', "\\n").replace('\r', "\\r").replace('\t', "\\t")
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};

    use super::*;

    fn check(text: &str, expect: Expect) {
        let (tokens, error) = lex(text);
        let mut out = String::new();
        for token in tokens {
            let shown = match token.kind {
                Kind::Name | Kind::Letter | Kind::PolicyType => token.text(text),
                Kind::Newline if !token.synthetic => "NL".to_owned(),
                Kind::Indent | Kind::Dedent => token.text(text),
                kind => kind.display_name().trim_matches('\'').to_owned(),
            };
            out.push_str(&format!("{}:{}:{} ", token.line, token.col, shown));
        }
        if let Some(error) = error {
            out.push_str(&format!("| {error}"));
        }
        expect.assert_eq(out.trim_end());
    }

    #[test]
    fn words_keywords_and_letters() {
        check(
            "priority: t, s\nm book-1 all a:l x",
            expect![[
                "1:0:priority 1:8:: 1:10:t 1:11:, 1:13:s 1:14:NL 2:0:m 2:2:book-1 2:9:all 2:13:a 2:14:: 2:15:l 2:17:x 2:18:NEWLINE 2:18:<EOF>"
            ]],
        );
        check(
            "fallback-policyx (+!)",
            expect!["1:0:fallback-policyx 1:17:( 1:18:+ 1:19:! 1:20:) 1:21:NEWLINE 1:21:<EOF>"],
        );
    }

    #[test]
    fn indentation() {
        check(
            "g a\n  m b\n\n    # comment\n      t c\n  s d\ng e\n",
            expect![[
                "1:0:g 1:2:a 1:3:NL 2:0:INDENT2 2:2:m 2:4:b 2:5:NL 5:0:INDENT6 5:6:t 5:8:c 5:9:NL 6:0:DEDENT2 6:2:s 6:4:d 6:5:NL 7:0:DEDENT0 7:0:g 7:2:e 7:3:NL 8:0:<EOF>"
            ]],
        );
        check(
            "g a\n    m b\n  t c",
            expect![[
                "1:0:g 1:2:a 1:3:NL 2:0:INDENT4 2:4:m 2:6:b 2:7:NL 3:0:DEDENT0 3:0:INDENT2 3:2:t 3:4:c 3:5:NEWLINE 3:5:DEDENT0 3:5:<EOF>"
            ]],
        );
        check(" g a", expect!["1:0:INDENT1 1:1:g 1:3:a 1:4:NEWLINE 1:4:DEDENT0 1:4:<EOF>"]);
        check("\r\n\rg\r\n", expect!["3:0:g 3:1:NL 4:0:<EOF>"]);
        check("", expect!["1:0:<EOF>"]);
    }

    #[test]
    fn errors() {
        check(
            "m a\n  \t m",
            expect![
                "1:0:m 1:2:a 1:3:NL 2:2:<error> | Tabulator character is not allowed, use spaces instead. (line 2, column 4)"
            ],
        );
        check("# a\tb\nm", expect!["2:0:m 2:1:NEWLINE 2:1:<EOF>"]);
        check(
            "m bö",
            expect!["1:0:m 1:2:b 1:3:<error> | token recognition error at: 'ö' (line 1, column 4)"],
        );
    }
}
