//! The grammar of circulation rules: turns tokens into the priority line,
//! the fallback policies and one flat rule per policy-bearing line, each
//! with the conditions it inherits from its parent lines. It owns syntax
//! and FOLIO's structural checks; it does not rank rules or look them up
//! (that is `rules.rs`).
//!
//! The parser follows mod-circulation's ANTLR grammar (`CirculationRules.g4`)
//! and its tree walker (`Text2Drools.java`) in two ways that matter to users:
//!
//! - Syntax errors stop at the first one, and are reported before any of
//!   the structural errors ("Policy missing", "Duplicate letter s", ...),
//!   which are reported in document order, because FOLIO parses the whole
//!   file before it walks the tree.
//! - Messages use ANTLR's wording (`mismatched input 'X' expecting ...`,
//!   `extraneous input ...`, `missing ':' at ...`, `no viable alternative at
//!   input ...`) at the offending token, or FOLIO's own text where the
//!   grammar or walker has one.

use crate::error::{Error, Result};
use crate::lexer::{Kind, Token, escape, lex};
use crate::rules::{Field, PolicyKind};

/// How rules that match the same item are ranked, as FOLIO's priority line
/// says. FOLIO ranks by (`first`, `second`, line order), most significant
/// first; `Regulation::None` contributes nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Priority {
    pub(crate) first: Regulation,
    pub(crate) second: Regulation,
    /// `last-line`: the later line wins ties; `first-line`: the earlier.
    pub(crate) last_line: bool,
    /// Rank of each criterion type from `criterium(...)` or the legacy
    /// letter list: 7 for the first letter down to 1; 0 when not given.
    pub(crate) ranks: [u8; Field::COUNT],
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Regulation {
    None,
    Criterium,
    NumberOfCriteria,
}

/// One criterium of a line: a criterion type and the names it accepts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Condition<'t> {
    pub(crate) field: Field,
    pub(crate) selector: Selector<'t>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Selector<'t> {
    /// `all`: any value, but the criterion still counts for priority.
    All,
    /// `m book dvd`: any of the names.
    AnyOf(Vec<&'t str>),
    /// `m !book !dvd`: none of the names.
    NoneOf(Vec<&'t str>),
}

/// A policy name as written, with where FOLIO reports errors about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PolicyName<'t> {
    pub(crate) name: &'t str,
}

/// A line that names policies (or the fallback-policy line), flattened:
/// `conditions` holds its parent lines' criteria first, then its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RawRule<'t> {
    /// 1-based line of the `:` that starts the policies.
    pub(crate) line: usize,
    /// 0-based column and byte offset of that `:`.
    pub(crate) colon_col: usize,
    pub(crate) colon_offset: usize,
    pub(crate) conditions: Vec<Condition<'t>>,
    /// One policy per kind, indexed by `PolicyKind as usize`.
    pub(crate) policies: [PolicyName<'t>; PolicyKind::COUNT],
    pub(crate) is_fallback: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Parsed<'t> {
    pub(crate) priority: Priority,
    /// Rules and the fallback, in document order.
    pub(crate) rules: Vec<RawRule<'t>>,
}

const STRUCTURE_LETTERS: [char; PolicyKind::COUNT] = ['l', 'r', 'n', 'o', 'i'];

pub(crate) fn parse(text: &str) -> Result<Parsed<'_>> {
    let (tokens, lex_error) = lex(text);
    let mut parser = Parser {
        text,
        tokens,
        lex_error,
        pos: 0,
        structure_error: None,
        ranks: [0; Field::COUNT],
        rules: Vec::new(),
        parents: Vec::new(),
    };
    let priority = parser.file()?;
    match parser.structure_error {
        Some(error) => Err(error),
        None => Ok(Parsed { priority, rules: parser.rules }),
    }
}

struct Parser<'t> {
    text: &'t str,
    // Invariant: ends with an EOF or an Error token.
    tokens: Vec<Token>,
    lex_error: Option<Error>,
    pos: usize,
    /// The first error of FOLIO's tree walk, reported if the syntax is fine.
    structure_error: Option<Error>,
    ranks: [u8; Field::COUNT],
    rules: Vec<RawRule<'t>>,
    /// Criteria of the enclosing lines of the statement being parsed.
    parents: Vec<Vec<Condition<'t>>>,
}

impl<'t> Parser<'t> {
    fn peek(&self, k: usize) -> Result<Token> {
        let token = self.tokens[(self.pos + k).min(self.tokens.len() - 1)];
        if token.kind == Kind::Error {
            return Err(self.lex_error.clone().expect("an Error token comes with its error"));
        }
        Ok(token)
    }

    fn la(&self, k: usize) -> Result<Kind> {
        Ok(self.peek(k)?.kind)
    }

    fn bump(&mut self) -> Result<Token> {
        let token = self.peek(0)?;
        self.pos += 1;
        Ok(token)
    }

    fn text_of(&self, token: Token) -> &'t str {
        &self.text[token.start..token.end]
    }

    /// An error reported through ANTLR's error listener: 1-based column.
    fn error_at(&self, token: Token, message: impl Into<String>) -> Error {
        Error::new(token.line, token.col + 1, token.start, message)
    }

    fn quoted(&self, token: Token) -> String {
        format!("'{}'", escape(&token.text(self.text)))
    }

    fn structure(&mut self, error: Error) {
        if self.structure_error.is_none() {
            self.structure_error = Some(error);
        }
    }

    /// ANTLR's `sync` before a loop or block: the current token is not one
    /// of `expected`. At a loop's first iteration the token is "extraneous"
    /// only if the next one would fit; after an iteration it always is.
    fn sync_error(&self, expected: &[Kind], after_iteration: bool) -> Result<Error> {
        let token = self.peek(0)?;
        let next = self.la(1)?;
        let what =
            if after_iteration || expected.contains(&next) { "extraneous" } else { "mismatched" };
        let message =
            format!("{what} input {} expecting {}", self.quoted(token), expecting(expected));
        Ok(self.error_at(token, message))
    }

    /// ANTLR's `match` of one token, with its single-token deletion and
    /// insertion reports; `follow` is what may come right after `kind`.
    fn expect(&mut self, kind: Kind, follow: &[Kind]) -> Result<Token> {
        let token = self.peek(0)?;
        if token.kind == kind {
            return self.bump();
        }
        let message = if self.la(1)? == kind {
            format!("extraneous input {} expecting {}", self.quoted(token), expecting(&[kind]))
        } else if follow.contains(&token.kind) {
            format!("missing {} at {}", kind.display_name(), self.quoted(token))
        } else {
            format!("mismatched input {} expecting {}", self.quoted(token), expecting(&[kind]))
        };
        Err(self.error_at(token, message))
    }

    /// ANTLR's failed prediction: the text from the decision's first token
    /// to the token where no alternative was left.
    fn no_viable(&self, start: Token, offending: Token) -> Error {
        let real = !matches!(offending.kind, Kind::Eof | Kind::Indent | Kind::Dedent)
            && !offending.synthetic;
        let mut input = self.text[start.start.min(offending.start)..offending.start].to_owned();
        if real {
            input.push_str(&self.text[offending.start..offending.end]);
        } else {
            input.push_str(&offending.text(self.text));
        }
        self.error_at(offending, format!("no viable alternative at input '{}'", escape(&input)))
    }

    fn file(&mut self) -> Result<Priority> {
        let mut newlines = false;
        while self.la(0)? != Kind::Priority {
            if self.la(0)? != Kind::Newline {
                return Err(self.sync_error(&[Kind::Priority, Kind::Newline], newlines)?);
            }
            self.bump()?;
            newlines = true;
        }
        let start = self.peek(0)?;
        if self.la(1)? != Kind::Colon {
            return Err(self.no_viable(start, self.peek(1)?));
        }
        match self.la(2)? {
            Kind::FirstLine => self.first_line_file(),
            Kind::LastLine | Kind::Criterium | Kind::NumberOfCriteria | Kind::Letter => {
                self.bump()?;
                self.bump()?;
                let priority = self.priority()?;
                let mut newlines = false;
                while self.la(0)? != Kind::FallbackPolicy {
                    if self.la(0)? != Kind::Newline {
                        let expected = [Kind::FallbackPolicy, Kind::Newline];
                        return Err(self.sync_error(&expected, newlines)?);
                    }
                    self.bump()?;
                    newlines = true;
                }
                self.fallback_policy()?;
                self.statements(&[Kind::Eof, Kind::Letter, Kind::Newline])?;
                self.bump()?;
                Ok(priority)
            }
            _ => Err(self.no_viable(start, self.peek(2)?)),
        }
    }

    /// `priority: first-line`: the rules come first, the fallback-policy
    /// line last.
    fn first_line_file(&mut self) -> Result<Priority> {
        for _ in 0..3 {
            self.bump()?;
        }
        self.statements(&[Kind::FallbackPolicy, Kind::Letter, Kind::Newline])?;
        self.fallback_policy()?;
        let token = self.peek(0)?;
        if token.kind == Kind::Letter {
            let message =
                "For 'priority: first-line' the fallback-policy must be after the last rule.";
            return Err(self.error_at(token, message));
        }
        self.expect(Kind::Eof, &[])?;
        Ok(Priority {
            first: Regulation::None,
            second: Regulation::None,
            last_line: false,
            ranks: self.ranks,
        })
    }

    /// `( NEWLINE | statement )*` up to the first kind in `stop` (which
    /// lists the loop's exit token first).
    fn statements(&mut self, expected: &[Kind]) -> Result<()> {
        let mut iterated = false;
        loop {
            match self.la(0)? {
                Kind::Newline => {
                    self.bump()?;
                }
                Kind::Letter => self.statement()?,
                kind if kind == expected[0] => return Ok(()),
                _ => return Err(self.sync_error(expected, iterated)?),
            }
            iterated = true;
        }
    }

    fn priority(&mut self) -> Result<Priority> {
        let start = self.peek(0)?;
        let (first, second, last_line) = match start.kind {
            Kind::LastLine => {
                self.bump()?;
                (Regulation::None, Regulation::None, true)
            }
            Kind::Letter => {
                self.letters(None)?;
                (Regulation::Criterium, Regulation::NumberOfCriteria, true)
            }
            _ => {
                // FOLIO predicts two or three regulations by reading up to
                // the token after the first comma, so errors there are
                // prediction failures.
                let one = self.regulation(Some(start))?;
                if self.la(0)? != Kind::Comma {
                    return Err(self.no_viable(start, self.peek(0)?));
                }
                self.bump()?;
                match self.la(0)? {
                    Kind::FirstLine | Kind::LastLine => {
                        let last_line = self.bump()?.kind == Kind::LastLine;
                        (Regulation::None, one, last_line)
                    }
                    Kind::Criterium | Kind::NumberOfCriteria => {
                        let second_start = self.peek(0)?;
                        let two = self.regulation(None)?;
                        self.expect(Kind::Comma, &[Kind::FirstLine, Kind::LastLine])?;
                        let last_line = self.line_regulation()?;
                        if one == two {
                            let error = self.error_at(second_start, "Duplicate priority type");
                            self.structure(error);
                        }
                        (one, two, last_line)
                    }
                    _ => return Err(self.no_viable(start, self.peek(0)?)),
                }
            }
        };
        Ok(Priority { first, second, last_line, ranks: self.ranks })
    }

    fn line_regulation(&mut self) -> Result<bool> {
        let token = self.peek(0)?;
        match token.kind {
            Kind::FirstLine | Kind::LastLine => Ok(self.bump()?.kind == Kind::LastLine),
            _ => Err(self.no_viable(token, token)),
        }
    }

    /// `criterium(...)` or `number-of-criteria`; `predicting` is the start
    /// of the enclosing prediction, if any.
    fn regulation(&mut self, predicting: Option<Token>) -> Result<Regulation> {
        let token = self.peek(0)?;
        match token.kind {
            Kind::NumberOfCriteria => {
                self.bump()?;
                Ok(Regulation::NumberOfCriteria)
            }
            Kind::Criterium => {
                self.bump()?;
                self.want(Kind::LParen, &[Kind::Letter], predicting)?;
                self.letters(predicting)?;
                self.want(Kind::RParen, &[Kind::Comma], predicting)?;
                Ok(Regulation::Criterium)
            }
            _ => Err(self.no_viable(predicting.unwrap_or(token), token)),
        }
    }

    fn want(&mut self, kind: Kind, follow: &[Kind], predicting: Option<Token>) -> Result<Token> {
        match predicting {
            Some(start) if self.la(0)? != kind => Err(self.no_viable(start, self.peek(0)?)),
            _ => self.expect(kind, follow),
        }
    }

    /// The seven criterion letters of a priority, commas optional.
    fn letters(&mut self, predicting: Option<Token>) -> Result<()> {
        let first = self.want(Kind::Letter, &[], predicting)?;
        let mut letters = vec![first];
        loop {
            match (self.la(0)?, self.la(1)?) {
                (Kind::Letter, _) => letters.push(self.bump()?),
                (Kind::Comma, Kind::Letter) => {
                    self.bump()?;
                    letters.push(self.bump()?);
                }
                _ => break,
            }
        }
        if letters.len() != Field::COUNT {
            let message = if letters.len() < Field::COUNT {
                format!("7 letters expected, found only {}", letters.len())
            } else {
                format!("Only 7 letters expected, found {}", letters.len())
            };
            let error = self.error_at(first, message);
            self.structure(error);
            return Ok(());
        }
        // FOLIO keeps one rank table for the whole priority line, so a second
        // `criterium(...)` fails as "Duplicate letter", not as a duplicate
        // priority type.
        for (i, &letter) in letters.iter().enumerate() {
            let field = Field::from_letter(self.text_of(letter)).expect("a criterion letter");
            if self.ranks[field as usize] != 0 {
                let message = format!("Duplicate letter {}", self.text_of(letter));
                let error = self.error_at(letter, message);
                self.structure(error);
                return Ok(());
            }
            self.ranks[field as usize] = (Field::COUNT - i) as u8;
        }
        Ok(())
    }

    fn fallback_policy(&mut self) -> Result<()> {
        let keyword = self.bump()?;
        let token = self.peek(0)?;
        match token.kind {
            Kind::Colon => {}
            Kind::Newline => {
                self.bump()?;
                return Err(self.error_at(self.peek(0)?, "Policy missing"));
            }
            _ => return Err(self.no_viable(token, token)),
        }
        let (colon, policies) = self.policies(None)?;
        self.expect(Kind::Newline, &[])?;
        for (kind, letter) in STRUCTURE_LETTERS.iter().enumerate() {
            let count = policies.iter().filter(|(k, _)| *k == kind).count();
            let message = match count {
                1 => continue,
                0 => format!("Must have a fallback policy of type {letter}"),
                _ => format!("Only one fallback policy of type {letter} is allowed"),
            };
            // FOLIO reports these at the 0-based column of the keyword.
            let error = Error::new(keyword.line, keyword.col, keyword.start, message);
            self.structure(error);
            return Ok(());
        }
        self.push_rule(colon, &policies, Vec::new(), true);
        Ok(())
    }

    /// `: l name r name ...`, returning the colon and (kind index, name).
    #[allow(clippy::type_complexity)]
    fn policies(&mut self, predicting: Option<Token>) -> Result<(Token, Vec<(usize, &'t str)>)> {
        let colon = self.bump()?;
        let mut policies = Vec::new();
        let token = self.peek(0)?;
        if token.kind != Kind::PolicyType {
            return Err(match predicting {
                Some(start) if token.kind != Kind::Newline => self.no_viable(start, token),
                _ => self.error_at(token, "Policy missing after ':'"),
            });
        }
        while self.la(0)? == Kind::PolicyType {
            let letter = self.bump()?;
            let kind = STRUCTURE_LETTERS
                .iter()
                .position(|l| self.text_of(letter).starts_with(*l))
                .expect("a policy letter");
            let token = self.peek(0)?;
            if token.kind != Kind::Name {
                return Err(match predicting {
                    Some(start) if !matches!(token.kind, Kind::Newline | Kind::PolicyType) => {
                        self.no_viable(start, token)
                    }
                    _ => self.error_at(token, "Name missing."),
                });
            }
            self.bump()?;
            policies.push((kind, self.text_of(token)));
        }
        Ok((colon, policies))
    }

    fn push_rule(
        &mut self,
        colon: Token,
        policies: &[(usize, &'t str)],
        conditions: Vec<Condition<'t>>,
        is_fallback: bool,
    ) {
        let name = |kind: usize| {
            let name = policies.iter().find(|(k, _)| *k == kind).map(|(_, n)| *n);
            PolicyName { name: name.expect("every kind was checked") }
        };
        self.rules.push(RawRule {
            line: colon.line,
            colon_col: colon.col,
            colon_offset: colon.start,
            conditions,
            policies: [name(0), name(1), name(2), name(3), name(4)],
            is_fallback,
        });
    }

    /// One line and, if the next lines are indented, its children.
    fn statement(&mut self) -> Result<()> {
        let start = self.peek(0)?;
        let mut own = Vec::new();
        loop {
            own.push(self.criterium(start)?);
            if self.la(0)? != Kind::Plus {
                break;
            }
            self.bump()?;
            if self.la(0)? != Kind::Letter {
                return Err(self.no_viable(start, self.peek(0)?));
            }
        }
        let policies =
            if self.la(0)? == Kind::Colon { Some(self.policies(Some(start))?) } else { None };
        if self.la(0)? != Kind::Newline {
            return Err(self.no_viable(start, self.peek(0)?));
        }
        self.bump()?;
        let block = self.la(0)? == Kind::Indent;

        match policies {
            None if !block => {
                let error = self.error_at(start, "Policy missing");
                self.structure(error);
            }
            None => {}
            Some((colon, policies)) => {
                let mut complete = true;
                for (kind, letter) in STRUCTURE_LETTERS.iter().enumerate() {
                    let count = policies.iter().filter(|(k, _)| *k == kind).count();
                    let message = match count {
                        1 => continue,
                        0 => format!("Must contain one of each policy type, missing type {letter}"),
                        _ => format!("Only one policy of type {letter} allowed"),
                    };
                    // FOLIO reports these at the 0-based column of the colon.
                    let error = Error::new(colon.line, colon.col, colon.start, message);
                    self.structure(error);
                    complete = false;
                    break;
                }
                if complete {
                    let conditions =
                        self.parents.iter().flatten().chain(&own).cloned().collect::<Vec<_>>();
                    self.push_rule(colon, &policies, conditions, false);
                }
            }
        }

        if block {
            // A child line's level: a top-level line is level 1. This bounds the
            // recursion, one call per level, and the criteria each rule copies.
            if limits::check_depth(self.parents.len() + 2).is_err() {
                let message = format!(
                    "Rules are nested too deeply: at most {} levels of indentation are allowed",
                    limits::MAX_DEPTH
                );
                return Err(self.error_at(self.peek(1)?, message));
            }
            self.bump()?;
            self.parents.push(own);
            if self.la(0)? != Kind::Letter {
                return Err(self.sync_error(&[Kind::Letter], false)?);
            }
            loop {
                self.statement()?;
                match self.la(0)? {
                    Kind::Letter => {}
                    Kind::Dedent => break,
                    _ => return Err(self.sync_error(&[Kind::Dedent, Kind::Letter], true)?),
                }
            }
            self.bump()?;
            self.parents.pop();
        }
        Ok(())
    }

    fn criterium(&mut self, start: Token) -> Result<Condition<'t>> {
        let letter = self.bump()?;
        let field = Field::from_letter(self.text_of(letter)).expect("a criterion letter");
        let follow = [Kind::Plus, Kind::Colon, Kind::Newline];
        let misplaced_bang = "A '!' must precede each name or no name.";
        let token = self.peek(0)?;
        let selector = match token.kind {
            Kind::All => {
                self.bump()?;
                Selector::All
            }
            Kind::Name => {
                let mut names = Vec::new();
                while self.la(0)? == Kind::Name {
                    let name = self.bump()?;
                    names.push(self.text_of(name));
                }
                if self.la(0)? == Kind::Bang {
                    self.bump()?;
                    return Err(self.error_at(self.peek(0)?, misplaced_bang));
                }
                Selector::AnyOf(names)
            }
            Kind::Bang => {
                let mut names = Vec::new();
                while self.la(0)? == Kind::Bang {
                    self.bump()?;
                    if self.la(0)? != Kind::Name {
                        return Err(self.no_viable(start, self.peek(0)?));
                    }
                    let name = self.bump()?;
                    names.push(self.text_of(name));
                }
                if self.la(0)? == Kind::Name {
                    self.bump()?;
                    return Err(self.error_at(self.peek(0)?, misplaced_bang));
                }
                Selector::NoneOf(names)
            }
            kind if follow.contains(&kind) => return Err(self.error_at(token, "Name missing.")),
            _ => return Err(self.no_viable(start, token)),
        };
        Ok(Condition { field, selector })
    }
}

/// ANTLR's rendering of an expected-token set.
fn expecting(kinds: &[Kind]) -> String {
    let mut kinds = kinds.to_vec();
    kinds.sort_by_key(|k| *k as u8);
    match kinds.as_slice() {
        [one] => one.display_name().to_owned(),
        _ => {
            format!("{{{}}}", kinds.iter().map(|k| k.display_name()).collect::<Vec<_>>().join(", "))
        }
    }
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};

    use crate::Rules;

    const HEADER: &str = "priority: last-line\nfallback-policy: l no-loan r no-hold n basic-notice o overdue i lost-item\n";
    const POLICIES: &str = "l policy-a r no-hold n basic-notice o overdue i lost-item";

    /// Compiles `text` and shows the rules best first (line, priority key,
    /// conditions, policies) or the error as `line:column message`.
    fn check(text: &str, expect: Expect) {
        let out = match Rules::compile(text) {
            Ok(rules) => rules.dump(),
            Err(e) => format!("{}:{} {}", e.line, e.column, e.message),
        };
        expect.assert_eq(&out);
    }

    #[test]
    fn constructs() {
        // Several names (any of), negation (none of), `all`, `+`, location
        // letters, comments in both styles, blank lines, CRLF and a missing
        // final line break.
        check(
            &format!(
                "# Section\r\npriority: last-line\r\n\r\nfallback-policy: {POLICIES}\n/ comment\nm book dvd + g !staff !faculty: {POLICIES} # trailing\ns all + a i1 + b c1 + c l1:{POLICIES}\n  \n    # indented comment\ng x\n    t rare\n        m map: {POLICIES}"
            ),
            expect![[r#"
                L12 [0 0 12] g x + t rare + m map: l policy-a r no-hold n basic-notice o overdue i lost-item
                L7 [0 0 7] a i1 + b c1 + c l1 + s all: l policy-a r no-hold n basic-notice o overdue i lost-item
                L6 [0 0 6] m book dvd + g !staff !faculty: l policy-a r no-hold n basic-notice o overdue i lost-item
                L4 [0 0 4] fallback: l policy-a r no-hold n basic-notice o overdue i lost-item
            "#]],
        );
        // Policies in any order; no space around the colon; several spaces.
        check(
            "priority   :   first-line\nm book:r hold n notice o overdue l two-week i lost\nfallback-policy :l p1 r p2 n p3 o p4 i p5",
            expect![[r#"
                L2 [0 0 -2] m book: l two-week r hold n notice o overdue i lost
                L3 [0 0 -3] fallback: l p1 r p2 n p3 o p4 i p5
            "#]],
        );
    }

    #[test]
    fn priority_lines() {
        let rules = format!("fallback-policy: {POLICIES}\ng grp + m mat + s loc: {POLICIES}\n");
        // Legacy seven letters (commas optional): criterium, number-of-criteria, last-line.
        check(
            &format!("priority: t, s c, b a m g\n{rules}"),
            expect![[r#"
                L3 [6 3 3] g grp + m mat + s loc: l policy-a r no-hold n basic-notice o overdue i lost-item
                L2 [0 0 2] fallback: l policy-a r no-hold n basic-notice o overdue i lost-item
            "#]],
        );
        check(
            &format!(
                "priority: number-of-criteria, criterium(g, m, t, a, b, c, s), first-line\n{rules}"
            ),
            expect![[r#"
                L3 [3 7 -3] g grp + m mat + s loc: l policy-a r no-hold n basic-notice o overdue i lost-item
                L2 [0 0 -2] fallback: l policy-a r no-hold n basic-notice o overdue i lost-item
            "#]],
        );
        check(
            &format!("priority: criterium (m t g a b c s), last-line\n{rules}"),
            expect![[r#"
                L3 [0 7 3] g grp + m mat + s loc: l policy-a r no-hold n basic-notice o overdue i lost-item
                L2 [0 0 2] fallback: l policy-a r no-hold n basic-notice o overdue i lost-item
            "#]],
        );
        check(
            &format!("priority: number-of-criteria, last-line\n{rules}"),
            expect![[r#"
                L3 [0 3 3] g grp + m mat + s loc: l policy-a r no-hold n basic-notice o overdue i lost-item
                L2 [0 0 2] fallback: l policy-a r no-hold n basic-notice o overdue i lost-item
            "#]],
        );
    }

    #[test]
    fn lexical_errors() {
        check(
            &format!("{HEADER}  \t m book: {POLICIES}"),
            expect!["3:4 Tabulator character is not allowed, use spaces instead."],
        );
        check("\t", expect!["1:2 Tabulator character is not allowed, use spaces instead."]);
        check(
            &format!("{HEADER}m bo_ok: {POLICIES}"),
            expect!["3:5 token recognition error at: '_'"],
        );
        // A syntax error before the tab is reported first.
        check(
            "foo bar\n\tm",
            expect!["1:1 mismatched input 'foo' expecting {'priority', NEWLINE}"],
        );
        // Tabs in comments are fine.
        check(
            &format!("{HEADER}#\tx"),
            expect![[r#"
                L2 [0 0 2] fallback: l no-loan r no-hold n basic-notice o overdue i lost-item
            "#]],
        );
    }

    #[test]
    fn file_structure_errors() {
        check(
            &format!("fallback-policy: {POLICIES}"),
            expect!["1:1 mismatched input 'fallback-policy' expecting {'priority', NEWLINE}"],
        );
        check("foo", expect!["1:1 extraneous input 'foo' expecting {'priority', NEWLINE}"]);
        check(
            &format!("! fallback-policy: {POLICIES}"),
            expect!["1:1 mismatched input '!' expecting {'priority', NEWLINE}"],
        );
        check(
            &format!("  priority: last-line\nfallback-policy: {POLICIES}"),
            expect!["1:1 extraneous input 'INDENT2' expecting {'priority', NEWLINE}"],
        );
        check(
            &format!("priority: last-line\nm book: {POLICIES}"),
            expect!["2:1 extraneous input 'm' expecting {'fallback-policy', NEWLINE}"],
        );
        check(
            &format!("priority: first-line\nm book: {POLICIES}"),
            expect![
                "2:66 extraneous input '<EOF>' expecting {'fallback-policy', CRITERIUM_LETTER, NEWLINE}"
            ],
        );
        check(
            &format!("priority: first-line\nfallback-policy: {POLICIES}\nm book: {POLICIES}"),
            expect![
                "3:1 For 'priority: first-line' the fallback-policy must be after the last rule."
            ],
        );
        check(
            &format!("{HEADER}m book\n  fallback-policy: {POLICIES}"),
            expect!["4:3 mismatched input 'fallback-policy' expecting CRITERIUM_LETTER"],
        );
        check(
            &format!("{HEADER}m book: {POLICIES}\nfallback-policy: {POLICIES}"),
            expect![
                "4:1 extraneous input 'fallback-policy' expecting {<EOF>, CRITERIUM_LETTER, NEWLINE}"
            ],
        );
        // An unknown criterion letter is just a name where a letter belongs.
        check(
            &format!("{HEADER}x book: {POLICIES}"),
            expect!["3:1 mismatched input 'x' expecting {<EOF>, CRITERIUM_LETTER, NEWLINE}"],
        );
    }

    #[test]
    fn priority_errors() {
        let fallback = format!("fallback-policy: {POLICIES}");
        check(
            &format!("priority: t g m a b c\n{fallback}"),
            expect!["1:11 7 letters expected, found only 6"],
        );
        check(
            &format!("priority: t g m a b c s s\n{fallback}"),
            expect!["1:11 Only 7 letters expected, found 8"],
        );
        check(&format!("priority: t g m a b s s\n{fallback}"), expect!["1:23 Duplicate letter s"]);
        check(
            &format!("priority: number-of-criteria, number-of-criteria, last-line\n{fallback}"),
            expect!["1:31 Duplicate priority type"],
        );
        // One rank table for the whole line: the second list repeats letters.
        check(
            &format!(
                "priority: criterium(t s c b a m g), criterium(g m a b c s t), last-line\n{fallback}"
            ),
            expect!["1:47 Duplicate letter g"],
        );
        check(
            &format!("priority: foo\n{fallback}"),
            expect!["1:11 no viable alternative at input 'priority: foo'"],
        );
        check(
            &format!("priority last-line\n{fallback}"),
            expect!["1:10 no viable alternative at input 'priority last-line'"],
        );
        check(
            &format!("priority: criterium(t, s, c, b, a, m, g)\n{fallback}"),
            expect![[r#"1:41 no viable alternative at input 'criterium(t, s, c, b, a, m, g)\n'"#]],
        );
        check(
            &format!(
                "priority: number-of-criteria, criterium t s c b a m g), last-line\n{fallback}"
            ),
            expect!["1:41 missing '(' at 't'"],
        );
        check(
            &format!("priority: number-of-criteria, middle-line\n{fallback}"),
            expect!["1:31 no viable alternative at input 'number-of-criteria, middle-line'"],
        );
    }

    #[test]
    fn rule_errors() {
        check(&format!("{HEADER}m: {POLICIES}"), expect!["3:2 Name missing."]);
        // The letters `tabcsmg` and `lrnoi` and the keywords are never names.
        check(
            &format!("{HEADER}m a: {POLICIES}"),
            expect!["3:3 no viable alternative at input 'm a'"],
        );
        check(
            &format!("{HEADER}m all-books: l all r x n x o x i x"),
            expect!["3:16 no viable alternative at input 'm all-books: l all'"],
        );
        check(
            &format!("{HEADER}m book + : {POLICIES}"),
            expect!["3:10 no viable alternative at input 'm book + :'"],
        );
        check(
            &format!("{HEADER}m book t rare: {POLICIES}"),
            expect!["3:8 no viable alternative at input 'm book t'"],
        );
        check(
            &format!("{HEADER}m book l x"),
            expect!["3:8 no viable alternative at input 'm book l'"],
        );
        check(&format!("{HEADER}m book:"), expect!["3:8 Policy missing after ':'"]);
        check(&format!("{HEADER}m book: l"), expect!["3:10 Name missing."]);
        check(
            &format!("{HEADER}m book: l x y"),
            expect!["3:13 no viable alternative at input 'm book: l x y'"],
        );
        check(&format!("{HEADER}g visitor\n   m book"), expect!["4:4 Policy missing"]);
        check(
            &format!("{HEADER}m book dvd !cd: {POLICIES}"),
            expect!["3:13 A '!' must precede each name or no name."],
        );
        check(
            &format!("{HEADER}m !book dvd: {POLICIES}"),
            expect!["3:12 A '!' must precede each name or no name."],
        );
        check(
            &format!("{HEADER}m !: {POLICIES}"),
            expect!["3:4 no viable alternative at input 'm !:'"],
        );
        check(
            &format!("{HEADER}m all book: {POLICIES}"),
            expect!["3:7 no viable alternative at input 'm all book'"],
        );
        // Every policy kind exactly once: 0-based column of the colon.
        check(
            &format!(
                "{HEADER}m book: l policy-a l policy-b r no-hold n basic-notice o overdue i lost-item"
            ),
            expect!["3:6 Only one policy of type l allowed"],
        );
        check(
            &format!(
                "{HEADER}m book: l policy-a r no-hold n basic-notice o overdue o overdue-1 i lost-item"
            ),
            expect!["3:6 Only one policy of type o allowed"],
        );
        check(
            &format!(
                "{HEADER}m book: l policy-a r no-hold n basic-notice o overdue i lost-item i lost-item-1"
            ),
            expect!["3:6 Only one policy of type i allowed"],
        );
        check(
            &format!("{HEADER}m book: l no-loan n basic-notice o overdue i lost-item"),
            expect!["3:6 Must contain one of each policy type, missing type r"],
        );
        check(
            &format!("{HEADER}m book: l no-loan r basic-request n basic-notice i lost-item"),
            expect!["3:6 Must contain one of each policy type, missing type o"],
        );
        check(
            &format!("{HEADER}m book: l no-loan r basic-request n basic-notice o overdue"),
            expect!["3:6 Must contain one of each policy type, missing type i"],
        );
        // A parent line's policies are not inherited: a child names all five.
        check(
            &format!("{HEADER}m book: {POLICIES}\n  g staff: l long-loan"),
            expect!["4:9 Must contain one of each policy type, missing type r"],
        );
        // Structural errors come in document order, after syntax errors.
        check(
            &format!("{HEADER}m book: l x\ng staff\nt rare: {POLICIES}"),
            expect!["3:6 Must contain one of each policy type, missing type r"],
        );
        check(
            &format!("{HEADER}m book: l x\ng staff\nt rare {POLICIES}"),
            expect!["5:8 no viable alternative at input 't rare l'"],
        );
    }

    #[test]
    fn fallback_errors() {
        check("priority: t, s, c, b, a, m, g\nfallback-policy", expect!["2:16 Policy missing"]);
        check(
            "priority: last-line\nfallback-policy\nm a: l p1 r p2 n p3 o p4 i p5",
            expect!["3:1 Policy missing"],
        );
        check(
            "priority: last-line\nfallback-policy: l no-loan r no-hold o overdue i lost-item\n",
            expect!["2:0 Must have a fallback policy of type n"],
        );
        check(
            "priority: last-line\nfallback-policy: l no-loan r no-hold n basic-notice r no-hold o overdue i lost-item",
            expect!["2:0 Only one fallback policy of type r is allowed"],
        );
        check("priority: last-line\nfallback-policy: x", expect!["2:18 Policy missing after ':'"]);
        check(
            "priority: last-line\nfallback-policy: l p1 r p2 n p3 o p4 i p5 f",
            expect!["2:43 extraneous input 'f' expecting NEWLINE"],
        );
        check(
            "priority: last-line\nfallback-policy l",
            expect!["2:17 no viable alternative at input 'l'"],
        );
    }

    #[test]
    fn indentation_errors() {
        // Back to a level that was never opened.
        check(
            &format!("{HEADER}g grp\n    m mat: {POLICIES}\n  t lt: {POLICIES}"),
            expect!["5:1 extraneous input 'INDENT2' expecting {<EOF>, CRITERIUM_LETTER, NEWLINE}"],
        );
        // A first rule indented under nothing.
        check(
            &format!("{HEADER}  m mat: {POLICIES}"),
            expect!["3:1 extraneous input 'INDENT2' expecting {<EOF>, CRITERIUM_LETTER, NEWLINE}"],
        );
        // Deeper and back out by several levels at once is fine.
        check(
            &format!("{HEADER}g grp\n  m mat\n      t lt: {POLICIES}\ns loc: {POLICIES}"),
            expect![[r#"
                L6 [0 0 6] s loc: l policy-a r no-hold n basic-notice o overdue i lost-item
                L5 [0 0 5] g grp + m mat + t lt: l policy-a r no-hold n basic-notice o overdue i lost-item
                L2 [0 0 2] fallback: l no-loan r no-hold n basic-notice o overdue i lost-item
            "#]],
        );
    }
    #[test]
    fn nesting_is_bounded() {
        let nested = |levels: usize| {
            let mut text = HEADER.to_string();
            for level in 0..levels {
                text.push_str(&format!("{}g grp{level}\n", " ".repeat(level)));
            }
            text.push_str(&format!("{}m mat: {POLICIES}", " ".repeat(levels)));
            text
        };
        // The rule line is one level below the `levels` lines above it. The deepest
        // rules accepted compile within a small stack.
        let deepest = nested(limits::MAX_DEPTH - 1);
        assert!(limits::on_test_stack(move || Rules::compile(&deepest).is_ok()));
        check(
            &nested(limits::MAX_DEPTH),
            expect![
                "35:33 Rules are nested too deeply: at most 32 levels of indentation are allowed"
            ],
        );
        check(
            &nested(1000),
            expect![
                "35:33 Rules are nested too deeply: at most 32 levels of indentation are allowed"
            ],
        );
    }
}
