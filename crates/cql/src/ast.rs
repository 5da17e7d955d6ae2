//! The parsed query: what the search and storage layers translate.
//!
//! Owns: the shape of a query and its invariants. Does not own: meaning. No
//! index or relation is checked against a schema here; `title any/stem x`
//! and `foo.bar cql.xyz x` are both well-formed queries.

/// The index a bare term (`cat`) searches, as cql-java names it.
pub const SERVER_CHOICE: &str = "cql.serverChoice";

/// A whole query: the search tree and the `sortBy` keys that follow it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Query {
    pub root: Node,
    /// Keys in the order written; empty when there is no `sortBy`.
    pub sort_keys: Vec<SortKey>,
}

/// A node of the search tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Node {
    Search(SearchClause),
    /// `left op right`. Booleans have equal precedence and associate to the
    /// left, so `a or b and c` is `(a or b) and c`.
    Boolean {
        op: BooleanOp,
        modifiers: Vec<Modifier>,
        left: Box<Node>,
        right: Box<Node>,
    },
    /// `>name="uri" node`: a prefix assignment scoping over `node`.
    ///
    /// cql-java's scoping is kept: the assignment covers the rest of the
    /// query at its level, up to the closing parenthesis or the end, so
    /// `a and >dc="x" b or c` is `a and (>dc="x" (b or c))`. Top-level
    /// assignments wrap the root; `sortBy` keys live on [`Query`] regardless.
    /// Prefixes are recorded, not resolved: indexes keep their prefix
    /// (`dc.title` stays `dc.title`).
    Prefixed {
        prefix: Prefix,
        node: Box<Node>,
    },
}

impl Node {
    /// The node inside the prefix assignments around it.
    pub fn unprefixed(&self) -> &Node {
        let mut node = self;
        while let Node::Prefixed { node: inner, .. } = node {
            node = inner;
        }
        node
    }

    /// A boolean's operator and its operands, with the booleans of the same operator
    /// right below it taken apart too: both sides of `and` and `or`, which associate,
    /// and the left side of `not`, so `a not b not c` is `not` over `[a, b, c]` (`a`
    /// without `b` and without `c`). An operand under a prefix assignment stays whole.
    /// `None` for anything but a boolean (prefix assignments around it are looked
    /// through).
    ///
    /// Translators that recurse on these operands only go as deep as the query's
    /// nesting levels, which the parser bounds (`limits::MAX_DEPTH`), however long
    /// its chains: `a or b or ... or z` is one level.
    pub fn operands(&self) -> Option<(BooleanOp, Vec<&Node>)> {
        let node = self.unprefixed();
        let Node::Boolean { op, .. } = node else { return None };
        let op = *op;
        let mut operands = Vec::new();
        // Right sides are pushed before left ones, so operands come out in order.
        let mut stack = vec![(node, true)];
        while let Some((node, flattens)) = stack.pop() {
            match node {
                Node::Boolean { op: inner, left, right, .. } if flattens && *inner == op => {
                    stack.push((right, op != BooleanOp::Not));
                    stack.push((left, true));
                }
                _ => operands.push(node),
            }
        }
        Some((op, operands))
    }
}

/// `index relation term`. Bare terms get index [`SERVER_CHOICE`] and
/// relation `=`; a parenthesised group after a relation (`title == (a or
/// b)`) hands both to every clause inside it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchClause {
    /// As written (quotes removed), e.g. `dc.title`.
    pub index: String,
    pub relation: Relation,
    /// The term as written, quotes removed, backslash escapes kept: the query
    /// `"a \"b\" c\*"` has the term `a \"b\" c\*`. Consecutive unquoted words
    /// or strings are joined with one space, as cql-java does (`keyword ==
    /// random 2words` has the term `random 2words`).
    pub term: String,
}

/// A relation and its modifiers, e.g. `any/stem` or `=/rel.algorithm=cori`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Relation {
    /// As written: `=`, `==`, `<>`, `<`, `>`, `<=`, `>=`, or a word such as
    /// `all`, `Any`, `cql.exact`. Words keep their case, as in cql-java;
    /// compare with [`Relation::kind`] or `eq_ignore_ascii_case`.
    pub base: String,
    pub modifiers: Vec<Modifier>,
}

/// `/name`, or `/name op value`, after a relation, a boolean or a sort key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Modifier {
    /// Lower-cased, as cql-java does (`/sort.respectCase` is
    /// `sort.respectcase`).
    pub name: String,
    /// One of `=`, `==`, `<>`, `<`, `>`, `<=`, `>=`.
    // Invariant: `comparison.is_some() == value.is_some()`.
    pub comparison: Option<String>,
    /// As written, quotes removed, escapes kept.
    pub value: Option<String>,
}

/// The four CQL booleans. They are case-insensitive in queries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BooleanOp {
    And,
    Or,
    Not,
    Prox,
}

/// One `sortBy` key: an index and its modifiers, e.g.
/// `title/sort.descending`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SortKey {
    /// As written, quotes removed.
    pub index: String,
    pub modifiers: Vec<Modifier>,
}

/// A prefix assignment: `>dc="http://purl.org/dc/elements/1.1/"` has the
/// name `dc`; `>"http://..."` (the default context set) has none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prefix {
    pub name: Option<String>,
    pub uri: String,
}

/// The relations CQL 1.2 defines, for matching without string compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RelationKind {
    /// `=`
    Eq,
    /// `==`
    Exact,
    /// `<>`
    NotEq,
    /// `<`
    Lt,
    /// `>`
    Gt,
    /// `<=`
    Le,
    /// `>=`
    Ge,
    Adj,
    All,
    Any,
    Within,
    Encloses,
    /// Anything else, e.g. a context-set relation such as `cql.exact`.
    Other,
}

impl BooleanOp {
    /// The lower-case keyword: `and`, `or`, `not` or `prox`.
    pub fn as_str(self) -> &'static str {
        match self {
            BooleanOp::And => "and",
            BooleanOp::Or => "or",
            BooleanOp::Not => "not",
            BooleanOp::Prox => "prox",
        }
    }
}

impl Relation {
    /// A relation without modifiers.
    pub fn new(base: impl Into<String>) -> Self {
        Self { base: base.into(), modifiers: Vec::new() }
    }

    /// Which CQL relation this is; word relations match case-insensitively.
    pub fn kind(&self) -> RelationKind {
        let base = self.base.as_str();
        let words = [
            ("adj", RelationKind::Adj),
            ("all", RelationKind::All),
            ("any", RelationKind::Any),
            ("within", RelationKind::Within),
            ("encloses", RelationKind::Encloses),
        ];
        match base {
            "=" => RelationKind::Eq,
            "==" => RelationKind::Exact,
            "<>" => RelationKind::NotEq,
            "<" => RelationKind::Lt,
            ">" => RelationKind::Gt,
            "<=" => RelationKind::Le,
            ">=" => RelationKind::Ge,
            _ => words
                .iter()
                .find(|(word, _)| base.eq_ignore_ascii_case(word))
                .map_or(RelationKind::Other, |&(_, kind)| kind),
        }
    }

    /// The first modifier with this (lower-case) name.
    pub fn modifier(&self, name: &str) -> Option<&Modifier> {
        self.modifiers.iter().find(|m| m.name == name)
    }
}

impl Modifier {
    /// `/name`, a modifier without a value.
    pub fn flag(name: impl Into<String>) -> Self {
        Self { name: name.into(), comparison: None, value: None }
    }
}

impl SearchClause {
    /// Whether this is a bare term (`cat`), searching [`SERVER_CHOICE`].
    pub fn is_server_choice(&self) -> bool {
        self.index.eq_ignore_ascii_case(SERVER_CHOICE)
    }
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};

    use super::Relation;

    fn check(bases: &[&str], expect: Expect) {
        let kinds: Vec<String> =
            bases.iter().map(|base| format!("{base} {:?}", Relation::new(*base).kind())).collect();
        expect.assert_eq(&kinds.join("\n"));
    }

    #[test]
    fn relation_kinds() {
        check(
            &[
                "=",
                "==",
                "<>",
                "<",
                ">",
                "<=",
                ">=",
                "adj",
                "ALL",
                "Any",
                "within",
                "ENCLOSES",
                "cql.exact",
                "exact",
            ],
            expect![[r#"
                = Eq
                == Exact
                <> NotEq
                < Lt
                > Gt
                <= Le
                >= Ge
                adj Adj
                ALL All
                Any Any
                within Within
                ENCLOSES Encloses
                cql.exact Other
                exact Other"#]],
        );
    }
}
