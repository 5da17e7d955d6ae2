//! Parser for CQL 1.2 with cql-java's reading of it.
//!
//! Owns: the grammar and the places where cql-java departs from the letter
//! of the spec (multi-word terms, inherited index and relation, relations
//! recognised by position, where prefix assignments may appear). Does not
//! own: tokens (`lexer`) or output (`xcql`).
//!
//! The grammar, as cql-java implements it:
//!
//! ```text
//! query   ::= clause (boolean modifier* clause)*      (ends at `)`, `sortBy` or the end)
//! clause  ::= '(' query ')'
//!           | '>' [name '='] identifier query         (scope: the rest of this query)
//!           | symbol (word | string)*                  (a term of one or more words)
//!           | symbol relation modifier* clause         (index and relation for `clause`)
//! top     ::= query ['sortBy' (symbol modifier*)+]
//! ```
//!
//! The parser keeps its own stack of open queries instead of recursing, so
//! no input can exhaust the thread's stack. It refuses queries over Quire's
//! query limits (`limits`: bytes, search clauses, nesting levels), which also
//! bounds the trees it builds ([`MAX_DEPTH`]) for those who walk them.

use crate::ast::{
    BooleanOp, Modifier, Node, Prefix, Query, Relation, SERVER_CHOICE, SearchClause, SortKey,
};
use crate::error::{ParseError, Result};
use crate::lexer::{Kind, Lexer, Token};

/// The deepest tree [`parse`] builds: a boolean or a prefix assignment adds a
/// level to the tree (a chain `a or b or c` is three deep). It follows from
/// the query limits: a path from the root passes at most one boolean per
/// search clause but the last, and one prefix assignment per nesting level.
///
/// It keeps recursive walks of a [`Node`] (the XCQL writer and reader,
/// derived `Drop`, `Clone`, `PartialEq` and `Debug`) well within a 2 MiB
/// thread stack, even in debug builds. Translators should recurse by
/// [`Node::operands`] instead, which goes only as deep as the nesting levels.
pub const MAX_DEPTH: usize = limits::MAX_TERMS + limits::MAX_DEPTH;

/// Parses one CQL query.
///
/// Never panics; every malformed input, including one over the query limits
/// (`limits`: longer than 64 KiB, more than 1,000 search clauses, nesting more
/// than 32 levels of parentheses, prefix scopes or booleans as
/// [`Node::operands`] takes them apart), is a [`ParseError`] with the byte
/// offset of the offending token.
pub fn parse(input: &str) -> Result<Query> {
    if let Err(exceeded) = limits::check_bytes(input) {
        let mut at = limits::MAX_BYTES;
        while !input.is_char_boundary(at) {
            at -= 1;
        }
        return Err(ParseError::over(at, exceeded));
    }
    let mut p = Parser::new(input)?;
    let server_choice = Scope { index: SERVER_CHOICE.to_owned(), relation: Relation::new("=") };
    let mut stack = vec![Open { scope: server_choice, closer: Closer::Top, left: None }];
    let mut n_clauses = 0;
    loop {
        // Parse one search clause in the scope of the innermost open query.
        // `(` and `>` open a new query first.
        let mut scope: Option<Scope> = None;
        let clause = loop {
            let current = scope.as_ref().unwrap_or_else(|| &stack[stack.len() - 1].scope);
            let closer = match p.tok.kind {
                Kind::LParen => {
                    p.check(limits::check_depth(stack.len()))?;
                    p.advance()?;
                    Closer::Paren
                }
                Kind::Gt => {
                    p.check(limits::check_depth(stack.len()))?;
                    Closer::Prefix(p.prefix_assignment()?)
                }
                _ => {
                    let start = p.tok.start;
                    match p.words(current)? {
                        Words::Clause(clause) => {
                            n_clauses += 1;
                            limits::check_terms(n_clauses)
                                .map_err(|e| ParseError::over(start, e))?;
                            break clause;
                        }
                        Words::Scope(inner) => {
                            scope = Some(inner);
                            continue;
                        }
                    }
                }
            };
            let scope = match scope.take() {
                Some(scope) => scope,
                None => stack[stack.len() - 1].scope.clone(),
            };
            stack.push(Open { scope, closer, left: None });
        };

        // Fold the clause into the open queries: join it to a pending
        // boolean, then either read the next boolean or close queries.
        let mut done = (Node::Search(clause), Measure { depth: 1, level: 0 });
        loop {
            let open = stack.last_mut().expect("the top-level query stays open until returned");
            if let Some(pending) = open.left.take() {
                let measure = Measure::join(&pending, &done);
                if let Err(exceeded) = limits::check_depth(measure.level) {
                    return Err(ParseError::over(pending.at, exceeded));
                }
                let Pending { left, op, modifiers, .. } = pending;
                done = (
                    Node::Boolean {
                        op,
                        modifiers,
                        left: Box::new(left.0),
                        right: Box::new(done.0),
                    },
                    measure,
                );
            }
            let op = match p.tok.kind {
                Kind::And => BooleanOp::And,
                Kind::Or => BooleanOp::Or,
                Kind::Not => BooleanOp::Not,
                Kind::Prox => BooleanOp::Prox,
                Kind::Eof | Kind::RParen | Kind::Sortby => {
                    let closer = stack.pop().expect("checked above").closer;
                    match closer {
                        Closer::Top => return p.finish(done.0),
                        Closer::Paren => p.expect(Kind::RParen)?,
                        Closer::Prefix(prefix) => {
                            let measure = Measure { depth: done.1.depth + 1, ..done.1 };
                            done = (Node::Prefixed { prefix, node: Box::new(done.0) }, measure);
                        }
                    }
                    continue;
                }
                _ => return Err(p.unexpected("boolean")),
            };
            let at = p.tok.start;
            p.advance()?;
            let modifiers = p.modifiers()?;
            open.left = Some(Pending { left: done, at, op, modifiers });
            break;
        }
    }
}

/// How deep a subtree is: as a tree, and in nesting levels as
/// [`Node::operands`] takes booleans apart (a search clause is level 0, a
/// boolean one more than its deepest operand).
#[derive(Clone, Copy)]
struct Measure {
    depth: usize,
    level: usize,
}

impl Measure {
    /// The measure of `left op right`.
    fn join(pending: &Pending, right: &(Node, Measure)) -> Measure {
        let op = pending.op;
        // An operand that is a boolean of the same operator is taken apart, so
        // its own operands are the ones a level down.
        let operand_level = |(node, measure): &(Node, Measure), side_flattens: bool| match node {
            Node::Boolean { op: inner, .. } if side_flattens && *inner == op => measure.level - 1,
            _ => measure.level,
        };
        let level =
            operand_level(&pending.left, true).max(operand_level(right, op != BooleanOp::Not)) + 1;
        Measure { depth: pending.left.1.depth.max(right.1.depth) + 1, level }
    }
}

/// A left operand waiting for the right one.
struct Pending {
    left: (Node, Measure),
    /// Byte offset of the boolean.
    at: usize,
    op: BooleanOp,
    modifiers: Vec<Modifier>,
}

/// The index and relation a bare term gets.
#[derive(Clone)]
struct Scope {
    index: String,
    relation: Relation,
}

/// A query being parsed, not yet closed.
struct Open {
    /// For the clauses of this query that have no index and relation.
    scope: Scope,
    closer: Closer,
    /// The clauses so far and the boolean after them.
    left: Option<Pending>,
}

/// How an open query ends, and what happens to it then.
enum Closer {
    /// The whole query: `sortBy` may follow.
    Top,
    /// A parenthesised query: `)` must follow.
    Paren,
    /// The scope of a prefix assignment: ends with the enclosing query.
    Prefix(Prefix),
}

/// What a run of words turned out to be.
enum Words {
    Clause(SearchClause),
    /// `index relation`: the index and relation for the clause that follows.
    Scope(Scope),
}

struct Parser<'a> {
    lexer: Lexer<'a>,
    /// The current (not yet consumed) token.
    tok: Token<'a>,
}

impl<'a> Parser<'a> {
    fn new(input: &'a str) -> Result<Self> {
        let mut lexer = Lexer::new(input);
        let tok = lexer.next_token()?;
        Ok(Self { lexer, tok })
    }

    fn advance(&mut self) -> Result<()> {
        self.tok = self.lexer.next_token()?;
        Ok(())
    }

    fn error(&self, message: impl Into<String>) -> ParseError {
        ParseError::new(self.tok.start, message)
    }

    /// "expected X, got Y" for the current token.
    #[cold]
    fn unexpected(&self, expected: &str) -> ParseError {
        self.error(format!("expected {expected}, got {}", self.tok.describe()))
    }

    fn expect(&mut self, kind: Kind) -> Result<()> {
        if self.tok.kind != kind {
            return Err(self.unexpected(kind.describe()));
        }
        self.advance()
    }

    /// A query limit's verdict, as an error at the current token.
    fn check(&self, verdict: std::result::Result<(), limits::Exceeded>) -> Result<()> {
        verdict.map_err(|exceeded| ParseError::over(self.tok.start, exceeded))
    }

    /// A word, a string or a keyword: what may stand for an index, a term, a
    /// prefix, a sort key or a modifier value.
    fn symbol(&mut self, expected: &str) -> Result<&'a str> {
        if matches!(self.tok.kind, Kind::Word | Kind::Str) || self.tok.kind.is_keyword() {
            let text = self.tok.text;
            self.advance()?;
            return Ok(text);
        }
        Err(self.unexpected(expected))
    }

    /// After the top-level query: its `sortBy` keys, then the end.
    fn finish(&mut self, root: Node) -> Result<Query> {
        let mut sort_keys = Vec::new();
        if self.tok.kind == Kind::Sortby {
            self.advance()?;
            while self.tok.kind != Kind::Eof {
                let index = self.symbol("sort index")?.to_owned();
                let modifiers = self.modifiers()?;
                sort_keys.push(SortKey { index, modifiers });
            }
            if sort_keys.is_empty() {
                return Err(self.error("no sort keys"));
            }
        }
        if self.tok.kind != Kind::Eof {
            return Err(self.error(format!("junk after end: {}", self.tok.describe())));
        }
        Ok(Query { root, sort_keys })
    }

    /// `/name`, `/name op value`, repeated.
    fn modifiers(&mut self) -> Result<Vec<Modifier>> {
        let mut modifiers = Vec::new();
        while self.tok.kind == Kind::Slash {
            self.advance()?;
            if self.tok.kind != Kind::Word {
                return Err(self.unexpected("modifier"));
            }
            let name = self.tok.text.to_lowercase();
            self.advance()?;
            let mut modifier = Modifier::flag(name);
            if let Some(comparison) = self.tok.kind.comparison() {
                self.advance()?;
                modifier.comparison = Some(comparison.to_owned());
                modifier.value = Some(self.symbol("modifier value")?.to_owned());
            }
            modifiers.push(modifier);
        }
        Ok(modifiers)
    }

    /// A term (one or more words and strings) searched in `scope`, or an
    /// index and relation with its modifiers, the scope of what follows.
    fn words(&mut self, scope: &Scope) -> Result<Words> {
        let first = self.symbol("index or term")?;
        // Consecutive words and strings form one term. Only the token right
        // after the first can be a word relation (`title any x`); later ones
        // are part of the term (`a b any c`).
        let mut joined: Option<String> = None;
        while matches!(self.tok.kind, Kind::Word | Kind::Str)
            && (joined.is_some() || !self.at_relation())
        {
            let term = joined.get_or_insert_with(|| first.to_owned());
            term.push(' ');
            term.push_str(self.tok.text);
            self.advance()?;
        }
        if !self.at_relation() {
            let term = joined.unwrap_or_else(|| first.to_owned());
            let clause =
                SearchClause { index: scope.index.clone(), relation: scope.relation.clone(), term };
            return Ok(Words::Clause(clause));
        }
        let base = self.tok.kind.comparison().unwrap_or(self.tok.text);
        if joined.is_some() {
            return Err(self.error(format!("unexpected relation '{base}'")));
        }
        self.advance()?;
        let modifiers = self.modifiers()?;
        let relation = Relation { base: base.to_owned(), modifiers };
        Ok(Words::Scope(Scope { index: first.to_owned(), relation }))
    }

    /// `>name=identifier` or `>identifier`.
    fn prefix_assignment(&mut self) -> Result<Prefix> {
        self.expect(Kind::Gt)?;
        let first = self.symbol("prefix-name")?;
        if self.tok.kind == Kind::Eq {
            self.advance()?;
            let uri = self.symbol("prefix-identifier")?;
            return Ok(Prefix { name: Some(first.to_owned()), uri: uri.to_owned() });
        }
        Ok(Prefix { name: None, uri: first.to_owned() })
    }

    /// Whether the current token can be a relation: a comparison symbol, a
    /// word containing `.` (a context-set relation such as `cql.exact`), or
    /// one of CQL 1.2's word relations.
    fn at_relation(&self) -> bool {
        match self.tok.kind {
            Kind::Word => {
                let word = self.tok.text;
                word.contains('.')
                    || ["any", "all", "within", "encloses", "adj"]
                        .iter()
                        .any(|relation| java_eq_ignore_case(word, relation))
            }
            kind => kind.comparison().is_some(),
        }
    }
}

/// Java's `String.equalsIgnoreCase` against an ASCII lower-case word:
/// characters match when equal, when their upper cases are equal, or when the
/// lower cases of those are. Besides ASCII case, this lets the dotless `ı`
/// match `i` and the long `ſ` match `s`, as they do in cql-java
/// (`wıthın` is a relation there).
fn java_eq_ignore_case(word: &str, lower_ascii: &str) -> bool {
    word.len() <= 2 * lower_ascii.len()
        && word.chars().count() == lower_ascii.len()
        && word.chars().zip(lower_ascii.chars()).all(|(a, b)| {
            let upper = simple_upper(a);
            a == b || upper == b.to_ascii_uppercase() || simple_lower(upper) == b
        })
}

/// Java's single-character `Character.toUpperCase`, close enough for
/// comparing with ASCII: a mapping to several characters counts as none.
fn simple_upper(c: char) -> char {
    let mut upper = c.to_uppercase();
    match (upper.next(), upper.next()) {
        (Some(u), None) => u,
        _ => c,
    }
}

fn simple_lower(c: char) -> char {
    let mut lower = c.to_lowercase();
    match (lower.next(), lower.next()) {
        (Some(l), None) => l,
        _ => c,
    }
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};

    use super::*;

    /// Parses and prints the tree compactly, or the error.
    fn check(input: &str, expect: Expect) {
        let actual = match parse(input) {
            Ok(query) => {
                let mut out = String::new();
                render(&query.root, &mut out);
                for key in &query.sort_keys {
                    out.push_str(&format!(" sortBy[{}{}]", key.index, mods(&key.modifiers)));
                }
                out
            }
            Err(e) => format!("error: {e}"),
        };
        expect.assert_eq(&actual);
    }

    fn mods(modifiers: &[Modifier]) -> String {
        let mut out = String::new();
        for m in modifiers {
            out.push('/');
            out.push_str(&m.name);
            if let (Some(c), Some(v)) = (&m.comparison, &m.value) {
                out.push_str(&format!("{c}{v}"));
            }
        }
        out
    }

    fn render(node: &Node, out: &mut String) {
        match node {
            Node::Search(c) => {
                let r = &c.relation;
                out.push_str(&format!(
                    "[{} {}{} {:?}]",
                    c.index,
                    r.base,
                    mods(&r.modifiers),
                    c.term
                ));
            }
            Node::Boolean { op, modifiers, left, right } => {
                out.push('(');
                render(left, out);
                out.push_str(&format!(" {}{} ", op.as_str(), mods(modifiers)));
                render(right, out);
                out.push(')');
            }
            Node::Prefixed { prefix, node } => {
                out.push_str(&format!(
                    ">{}={:?} ",
                    prefix.name.as_deref().unwrap_or(""),
                    prefix.uri
                ));
                render(node, out);
            }
        }
    }

    #[test]
    fn search_clauses() {
        check("cat", expect![[r#"[cql.serverChoice = "cat"]"#]]);
        check(r#"title = "fish""#, expect![[r#"[title = "fish"]"#]]);
        check("title Any fish", expect![[r#"[title Any "fish"]"#]]);
        check("dc.title cql.exact fish", expect![[r#"[dc.title cql.exact "fish"]"#]]);
        check("a within b", expect![[r#"[a within "b"]"#]]);
        check("a ENCLOSES b", expect![[r#"[a ENCLOSES "b"]"#]]);
        check("a adj b", expect![[r#"[a adj "b"]"#]]);
        check("a exact b", expect![[r#"[cql.serverChoice = "a exact b"]"#]]);
        check(r#""a b" == "c""#, expect![[r#"[a b == "c"]"#]]);
        check("and = or", expect![[r#"[and = "or"]"#]]);
    }

    #[test]
    fn multi_word_terms() {
        check("keyword == random 2words", expect![[r#"[keyword == "random 2words"]"#]]);
        check(r#"a "b c" d"#, expect![[r#"[cql.serverChoice = "a b c d"]"#]]);
        check("a b any c", expect![[r#"[cql.serverChoice = "a b any c"]"#]]);
        check("all contains any", expect![[r#"[cql.serverChoice = "all contains any"]"#]]);
        check("a b = c", expect!["error: unexpected relation '=' (at byte 4)"]);
        check("a b", expect![[r#"[cql.serverChoice = "a b"]"#]]);
    }

    #[test]
    fn relations_chain_and_are_inherited() {
        check("field == (a OR b)", expect![[r#"([field == "a"] or [field == "b"])"#]]);
        check(
            "title = (a or (b and c)) or d",
            expect![[
                r#"(([title = "a"] or ([title = "b"] and [title = "c"])) or [cql.serverChoice = "d"])"#
            ]],
        );
        // A second relation starts over with a new index, as in cql-java.
        check("subjects <> subjects all \"personal\"", expect![[r#"[subjects all "personal"]"#]]);
        check("a = b = c", expect![[r#"[b = "c"]"#]]);
        check("a = (b = c)", expect![[r#"[b = "c"]"#]]);
    }

    #[test]
    fn booleans() {
        check(
            "a or b and c not d prox e",
            expect![[
                r#"(((([cql.serverChoice = "a"] or [cql.serverChoice = "b"]) and [cql.serverChoice = "c"]) not [cql.serverChoice = "d"]) prox [cql.serverChoice = "e"])"#
            ]],
        );
        check(
            "a AND/rel.SumOfScores b",
            expect![[r#"([cql.serverChoice = "a"] and/rel.sumofscores [cql.serverChoice = "b"])"#]],
        );
        check(
            "a prox/distance<=3/unit=word/ordered b",
            expect![[
                r#"([cql.serverChoice = "a"] prox/distance<=3/unit=word/ordered [cql.serverChoice = "b"])"#
            ]],
        );
        check(
            "fred and any",
            expect![[r#"([cql.serverChoice = "fred"] and [cql.serverChoice = "any"])"#]],
        );
        check(
            "a and and",
            expect![[r#"([cql.serverChoice = "a"] and [cql.serverChoice = "and"])"#]],
        );
    }

    #[test]
    fn relation_modifiers() {
        check(
            r#"dc.title =/rel.algorithm=CORI/Stem/x<>"a b" squid"#,
            expect![[r#"[dc.title =/rel.algorithm=CORI/stem/x<>a b "squid"]"#]],
        );
        check("a =/x=and b", expect![[r#"[a =/x=and "b"]"#]]);
        check(
            r#"a =/"x" b"#,
            expect![[r#"error: expected modifier, got string: "x" (at byte 4)"#]],
        );
        check("a =/and b", expect!["error: expected modifier, got and (at byte 4)"]);
        check("a =/x= b", expect!["error: expected index or term, got EOF (at byte 8)"]);
    }

    #[test]
    fn prefixes() {
        check(
            r#">dc="http://x" >"y" dc.title=a sortby b"#,
            expect![[r#">dc="http://x" >="y" [dc.title = "a"] sortBy[b]"#]],
        );
        check(
            r#""fish" and > illegal="urn:x" "chips" or c"#,
            expect![[
                r#"([cql.serverChoice = "fish"] and >illegal="urn:x" ([cql.serverChoice = "chips"] or [cql.serverChoice = "c"]))"#
            ]],
        );
        check("x = >a=b c", expect![[r#">a="b" [x = "c"]"#]]);
        check("b=(>dc=x c) sortby d", expect![[r#">dc="x" [b = "c"] sortBy[d]"#]]);
        check(
            "> illegal=\"urn:missingQuery\"",
            expect!["error: expected index or term, got EOF (at byte 28)"],
        );
        check(">", expect!["error: expected prefix-name, got EOF (at byte 1)"]);
        check(">a=", expect!["error: expected prefix-identifier, got EOF (at byte 3)"]);
    }

    #[test]
    fn sorting() {
        check(
            "a sortby dc.title/sort.respectCase/sort.missingValue=1970 b",
            expect![[
                r#"[cql.serverChoice = "a"] sortBy[dc.title/sort.respectcase/sort.missingvalue=1970] sortBy[b]"#
            ]],
        );
        check(
            "Sortby Sortby Sortby Sortby",
            expect![[r#"[cql.serverChoice = "Sortby"] sortBy[Sortby] sortBy[Sortby]"#]],
        );
        check("a sortby", expect!["error: no sort keys (at byte 8)"]);
        check("a sortby (", expect!["error: expected sort index, got '(' (at byte 9)"]);
        check("(a sortby b)", expect!["error: expected ')', got sortby (at byte 3)"]);
    }

    #[test]
    fn errors() {
        check("", expect!["error: expected index or term, got EOF (at byte 0)"]);
        check("cat or", expect!["error: expected index or term, got EOF (at byte 6)"]);
        check("()", expect!["error: expected index or term, got ')' (at byte 1)"]);
        check("(a", expect!["error: expected ')', got EOF (at byte 2)"]);
        check("ndex any fish)", expect!["error: junk after end: ')' (at byte 13)"]);
        check("(a) b", expect!["error: expected boolean, got word: 'b' (at byte 4)"]);
        check("a (b)", expect!["error: expected boolean, got '(' (at byte 2)"]);
        check("a = ", expect!["error: expected index or term, got EOF (at byte 4)"]);
        check("a = b all", expect!["error: expected index or term, got EOF (at byte 9)"]);
        check(r#"a "b"#, expect!["error: unterminated string (at byte 2)"]);
    }

    #[test]
    fn java_case_folding_of_word_relations() {
        check("a wıthın b", expect![[r#"[a wıthın "b"]"#]]);
        check("a encloſes b", expect![[r#"[a encloſes "b"]"#]]);
        check("a ALL b", expect![[r#"[a ALL "b"]"#]]);
        check("a alll b", expect![[r#"[cql.serverChoice = "a alll b"]"#]]);
    }

    #[test]
    fn queries_over_the_limits_are_refused() {
        let nested = |n: usize| format!("{}a{}", "(".repeat(n), ")".repeat(n));
        assert!(parse(&nested(limits::MAX_DEPTH)).is_ok());
        check(
            &nested(limits::MAX_DEPTH + 1),
            expect![
                "error: Query is nested too deeply: at most 32 levels are allowed (at byte 32)"
            ],
        );
        let prefixed = |n: usize| ">a=b ".repeat(n) + "c";
        assert!(parse(&prefixed(limits::MAX_DEPTH)).is_ok());
        check(
            &prefixed(limits::MAX_DEPTH + 1),
            expect![
                "error: Query is nested too deeply: at most 32 levels are allowed (at byte 160)"
            ],
        );
        // Operators that change without parentheses nest too: `a or b and c` is
        // `(a or b) and c`.
        let alternating = |n: usize| {
            let mut query = "a".to_string();
            for i in 0..n {
                query.push_str(if i % 2 == 0 { " or a" } else { " and a" });
            }
            query
        };
        assert!(parse(&alternating(limits::MAX_DEPTH)).is_ok());
        check(
            &alternating(limits::MAX_DEPTH + 1),
            expect![
                "error: Query is nested too deeply: at most 32 levels are allowed (at byte 178)"
            ],
        );
        // However long, a chain of one operator is one level.
        let chain = |n: usize, op: &str| vec!["a"; n].join(op);
        for op in [" or ", " and ", " not "] {
            assert!(parse(&chain(limits::MAX_TERMS, op)).is_ok());
        }
        check(
            &chain(limits::MAX_TERMS + 1, " or "),
            expect!["error: Query has too many terms: at most 1000 are allowed (at byte 5000)"],
        );
        check(
            &format!("title={}", "w ".repeat(limits::MAX_BYTES)),
            expect![
                "error: Query is too long: 131078 bytes, at most 65536 are allowed (at byte 65536)"
            ],
        );
        let long = format!("ab={}", "é".repeat(limits::MAX_BYTES / 2));
        assert_eq!(parse(&long).unwrap_err().offset, limits::MAX_BYTES - 1);
    }

    /// The measure the limit is checked on is the one `Node::operands` takes apart.
    #[test]
    fn nesting_levels_are_operand_levels() {
        fn level(node: &Node) -> usize {
            match node.operands() {
                None => 0,
                Some((_, operands)) => 1 + operands.iter().map(|n| level(n)).max().unwrap_or(0),
            }
        }
        for (query, expected) in [
            ("a", 0),
            ("a or b or c or d", 1),
            ("a or (b or c) or (d or e)", 1),
            ("a not b not c", 1),
            ("a not (b not c)", 2),
            ("a and b or c", 2),
            ("(a or b) and (c or (d and e))", 3),
            (">p=u a or >q=v (b or c)", 2),
            ("a or (b and (c or (d and e)))", 4),
        ] {
            assert_eq!(level(&parse(query).unwrap().root), expected, "{query}");
        }
    }

    #[test]
    fn the_largest_tree_accepted_can_be_walked() {
        // 32 nested prefix scopes, then a chain of 1,000 clauses: the deepest tree.
        let query = ">a=b ".repeat(limits::MAX_DEPTH) + &vec!["a"; limits::MAX_TERMS].join(" or ");
        let query = parse(&query).unwrap();
        let copy = query.clone();
        assert_eq!(copy, query);
        assert!(format!("{query:?}").len() > MAX_DEPTH);
        let xcql = query.to_xcql();
        // The XCQL reader, a test oracle and no request's path, recurses twice a tree
        // level with large frames: it gets a main thread's stack.
        let reread = std::thread::Builder::new()
            .stack_size(8 << 20)
            .spawn(move || crate::parse_xcql(&xcql))
            .unwrap()
            .join()
            .unwrap();
        assert_eq!(reread.unwrap(), query);
    }
}
