//! The CQL subset of FOLIO's storage list endpoints (`?query=barcode=="X"`), as SQL.
//!
//! Storage endpoints answer queries on the fields their record type declares
//! ([`QueryField`]): `==` and `=` (equality, `*` as a wildcard), `<>`, the four ordering
//! relations, `and`/`or`/`not`, `cql.allRecords=1` and `sortBy`. A field is an
//! extracted column, indexed where the table is large; a table known to stay small
//! (reference data: hundreds of rows) may also declare an SQL expression over the
//! stored body, which SQLite answers by reading the table. Full-text search is the
//! search crate's business; any other index or relation is refused with an error
//! naming it.

use crate::{QueryError, sql::Dialect};

/// How a column compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldKind {
    /// Case-insensitive text; the column is declared `COLLATE NOCASE`.
    Text,
    /// Case-sensitive text, e.g. item status names, which FOLIO compares exactly.
    Exact,
    /// An integer column.
    Int,
    /// A boolean held as SQLite holds JSON's `true` and `false`: 1 and 0. The CQL term
    /// is `true` or `false`, in any case.
    Bool,
}

/// A CQL index that a list endpoint answers, and the column behind it.
#[derive(Debug, Clone, Copy)]
pub struct QueryField {
    pub index: &'static str,
    /// A column of the table, or an SQL expression over its columns (e.g.
    /// `json_extract(body, '$.pickupLocation')`). Written into the SQL as it is, so it
    /// must be a constant of the program, never input.
    pub column: &'static str,
    pub kind: FieldKind,
}

impl QueryField {
    /// The column, or its expression, in `dialect`'s SQL.
    fn sql(&self, dialect: Dialect) -> &'static str {
        match dialect {
            Dialect::Sqlite => self.column,
            Dialect::Postgres => crate::dialect::postgres_column(self.column, self.kind),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortDirection {
    Ascending,
    Descending,
}

/// A translated query: a `WHERE` clause with `?` placeholders, their values in order,
/// and an `ORDER BY` list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SqlQuery {
    pub(crate) where_clause: String,
    pub(crate) params: Vec<crate::ColumnValue>,
    pub(crate) order_by: String,
}

impl SqlQuery {
    pub(crate) fn all() -> SqlQuery {
        SqlQuery {
            where_clause: "TRUE".to_string(),
            params: Vec::new(),
            order_by: "id".to_string(),
        }
    }
}

pub(crate) fn translate(
    cql_text: &str,
    fields: &[QueryField],
    dialect: Dialect,
) -> Result<SqlQuery, QueryError> {
    let query = cql::parse(cql_text).map_err(|e| QueryError::Syntax(format!("{e}")))?;
    let mut out =
        SqlQuery { where_clause: String::new(), params: Vec::new(), order_by: String::new() };
    node(&query.root, fields, dialect, &mut out)?;
    let mut order = Vec::new();
    for key in &query.sort_keys {
        let field = find_field(fields, &key.index)?;
        let direction =
            if key.modifiers.iter().any(|m| m.name.eq_ignore_ascii_case("sort.descending")) {
                "DESC"
            } else {
                "ASC"
            };
        order.push(format!("{} {direction}", field.sql(dialect)));
    }
    // Ties and unsorted lists come back in id order, so paging is stable.
    order.push("id".to_string());
    out.order_by = order.join(", ");
    Ok(out)
}

fn find_field<'f>(fields: &'f [QueryField], index: &str) -> Result<&'f QueryField, QueryError> {
    fields
        .iter()
        .find(|f| f.index.eq_ignore_ascii_case(index))
        .ok_or_else(|| QueryError::UnsupportedField(index.to_string()))
}

/// Writes `node` as SQL. Chains of one operator are taken apart ([`cql::Node::operands`])
/// and joined as a balanced tree of parenthesised pairs, so neither this recursion (once
/// per nesting level) nor SQLite's expression depth (1,000 at most) grows with a
/// chain's length: `id==(a or b or ...)` with a thousand ids is ten levels deep in SQL.
fn node(
    node: &cql::Node,
    fields: &[QueryField],
    dialect: Dialect,
    out: &mut SqlQuery,
) -> Result<(), QueryError> {
    let (op, operands) = match node {
        cql::Node::Search(clause) => return search_clause(clause, fields, dialect, out),
        cql::Node::Prefixed { .. } => {
            return Err(QueryError::Syntax(
                "prefix assignments are not supported here".to_string(),
            ));
        }
        cql::Node::Boolean { .. } => node.operands().expect("a boolean has operands"),
    };
    let joiner = match op {
        cql::BooleanOp::And => " AND ",
        cql::BooleanOp::Or => " OR ",
        // `a not b not c` is `a AND NOT (b OR c)`.
        cql::BooleanOp::Not => " OR ",
        cql::BooleanOp::Prox => return Err(QueryError::UnsupportedBoolean("prox".to_string())),
    };
    let mut parts = Vec::with_capacity(operands.len());
    for operand in operands {
        let mut part =
            SqlQuery { where_clause: String::new(), params: Vec::new(), order_by: String::new() };
        self::node(operand, fields, dialect, &mut part)?;
        parts.push(part);
    }
    if op == cql::BooleanOp::Not {
        let kept = parts.remove(0);
        out.where_clause.push('(');
        append(out, kept);
        out.where_clause.push_str(" AND NOT ");
        balanced(out, parts, joiner);
        out.where_clause.push(')');
    } else {
        balanced(out, parts, joiner);
    }
    Ok(())
}

/// Joins `parts` pairwise, halves first, so the SQL nests log2(n) deep.
fn balanced(out: &mut SqlQuery, mut parts: Vec<SqlQuery>, joiner: &str) {
    if parts.len() == 1 {
        append(out, parts.pop().expect("one part"));
        return;
    }
    let right = parts.split_off(parts.len() / 2);
    out.where_clause.push('(');
    balanced(out, parts, joiner);
    out.where_clause.push_str(joiner);
    balanced(out, right, joiner);
    out.where_clause.push(')');
}

fn append(out: &mut SqlQuery, part: SqlQuery) {
    out.where_clause.push_str(&part.where_clause);
    out.params.extend(part.params);
}

fn search_clause(
    clause: &cql::SearchClause,
    fields: &[QueryField],
    dialect: Dialect,
    out: &mut SqlQuery,
) -> Result<(), QueryError> {
    let relation = clause.relation.base.to_ascii_lowercase();
    if clause.index.eq_ignore_ascii_case("cql.allRecords") {
        out.where_clause.push_str("TRUE");
        return Ok(());
    }
    let field = find_field(fields, &clause.index)?;
    // No stored text holds a NUL (PostgreSQL's text cannot), so a term with one could
    // match nothing; it is refused the same on both databases.
    if clause.term.contains('\0') {
        return Err(QueryError::InvalidValue {
            field: clause.index.clone(),
            value: clause.term.replace('\0', "\\0"),
            reason: "it contains a NUL character".to_string(),
        });
    }
    let pattern = Pattern::parse(&clause.term);
    let column = field.sql(dialect);
    let value = |text: String| -> Result<crate::ColumnValue, QueryError> {
        match field.kind {
            FieldKind::Text | FieldKind::Exact => Ok(crate::ColumnValue::Text(text)),
            FieldKind::Int => text.trim().parse().map(crate::ColumnValue::Int).map_err(|_| {
                QueryError::InvalidValue {
                    field: clause.index.clone(),
                    value: text.clone(),
                    reason: "not an integer".to_string(),
                }
            }),
            FieldKind::Bool => match text.trim().to_ascii_lowercase().as_str() {
                "true" => Ok(crate::ColumnValue::Int(1)),
                "false" => Ok(crate::ColumnValue::Int(0)),
                _ => Err(QueryError::InvalidValue {
                    field: clause.index.clone(),
                    value: text.clone(),
                    reason: "not true or false".to_string(),
                }),
            },
        }
    };
    match relation.as_str() {
        "==" | "=" => {
            if pattern.literal.is_empty() && !pattern.has_wildcard && relation == "=" {
                // FOLIO: `field=""` matches every record that has the field.
                out.where_clause.push_str(&format!("{column} IS NOT NULL"));
            } else if pattern.has_wildcard && pattern.is_match_all() {
                out.where_clause.push_str(&format!("{column} IS NOT NULL"));
            } else if pattern.has_wildcard {
                // PostgreSQL's LIKE is case-sensitive but on `citext`, as SQLite's GLOB is.
                let (op, text) = match (field.kind, dialect) {
                    (FieldKind::Exact, Dialect::Sqlite) => ("GLOB", pattern.glob.clone()),
                    _ => ("LIKE", pattern.like.clone()),
                };
                let escape = if op == "LIKE" { " ESCAPE '\\'" } else { "" };
                out.where_clause.push_str(&format!("{column} {op} ?{escape}"));
                out.params.push(crate::ColumnValue::Text(text));
            } else {
                out.where_clause.push_str(&format!("{column} = ?"));
                out.params.push(value(pattern.literal.clone())?);
            }
        }
        "<>" => {
            out.where_clause.push_str(&format!("{column} IS DISTINCT FROM ?"));
            out.params.push(value(pattern.literal.clone())?);
        }
        "<" | ">" | "<=" | ">=" => {
            out.where_clause.push_str(&format!("{column} {relation} ?"));
            out.params.push(value(pattern.literal.clone())?);
        }
        _ => {
            return Err(QueryError::UnsupportedRelation {
                field: clause.index.clone(),
                relation: clause.relation.base.clone(),
            });
        }
    }
    Ok(())
}

/// A CQL term split into what it means literally and as SQL patterns.
struct Pattern {
    /// The term with escapes resolved, masking characters taken literally.
    literal: String,
    has_wildcard: bool,
    /// The term as a LIKE pattern, escape character `\`.
    like: String,
    /// The term as a GLOB pattern.
    glob: String,
}

impl Pattern {
    /// Reads CQL masking: an unescaped `*` matches any run of characters and `?` one
    /// character; a backslash takes the next character literally.
    fn parse(term: &str) -> Pattern {
        let mut p = Pattern {
            literal: String::new(),
            has_wildcard: false,
            like: String::new(),
            glob: String::new(),
        };
        let mut chars = term.chars();
        while let Some(c) = chars.next() {
            match c {
                '\\' => {
                    if let Some(next) = chars.next() {
                        p.push_literal(next);
                    }
                }
                '*' => {
                    p.has_wildcard = true;
                    p.like.push('%');
                    p.glob.push('*');
                }
                '?' => {
                    p.has_wildcard = true;
                    p.like.push('_');
                    p.glob.push('?');
                }
                _ => p.push_literal(c),
            }
        }
        p
    }

    fn push_literal(&mut self, c: char) {
        self.literal.push(c);
        if matches!(c, '%' | '_' | '\\') {
            self.like.push('\\');
        }
        self.like.push(c);
        match c {
            '*' | '?' | '[' => {
                self.glob.push('[');
                self.glob.push(c);
                self.glob.push(']');
            }
            _ => self.glob.push(c),
        }
    }

    fn is_match_all(&self) -> bool {
        self.like.chars().all(|c| c == '%')
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIELDS: &[QueryField] = &[
        QueryField { index: "id", column: "id", kind: FieldKind::Text },
        QueryField { index: "barcode", column: "barcode", kind: FieldKind::Text },
        QueryField { index: "status.name", column: "status_name", kind: FieldKind::Exact },
        QueryField { index: "n", column: "n", kind: FieldKind::Int },
        QueryField { index: "open", column: "json_extract(body, '$.open')", kind: FieldKind::Bool },
    ];

    fn check(cql: &str, expect: expect_test::Expect) {
        let actual = match translate(cql, FIELDS, Dialect::Sqlite) {
            Ok(q) => format!("WHERE {} ORDER BY {} {:?}", q.where_clause, q.order_by, q.params),
            Err(e) => format!("error: {e}"),
        };
        expect.assert_eq(&actual);
    }

    #[test]
    fn translates_the_storage_subset() {
        use expect_test::expect;
        check(r#"barcode=="X1""#, expect![[r#"WHERE barcode = ? ORDER BY id [Text("X1")]"#]]);
        check("cql.allRecords=1", expect![[r#"WHERE TRUE ORDER BY id []"#]]);
        check(
            r#"(barcode=="X" OR id=="X") and status.name<>"Checked out""#,
            expect![[
                r#"WHERE ((barcode = ? OR id = ?) AND status_name IS DISTINCT FROM ?) ORDER BY id [Text("X"), Text("X"), Text("Checked out")]"#
            ]],
        );
        check(
            "barcode=ab*",
            expect![[r#"WHERE barcode LIKE ? ESCAPE '\' ORDER BY id [Text("ab%")]"#]],
        );
        check(
            r#"status.name==Avail*"#,
            expect![[r#"WHERE status_name GLOB ? ORDER BY id [Text("Avail*")]"#]],
        );
        check(r#"barcode=="50\%""#, expect![[r#"WHERE barcode = ? ORDER BY id [Text("50%")]"#]]);
        check("barcode=*", expect![[r#"WHERE barcode IS NOT NULL ORDER BY id []"#]]);
        check(
            "n >= 3 sortBy barcode/sort.descending n",
            expect![[r#"WHERE n >= ? ORDER BY barcode DESC, n ASC, id [Int(3)]"#]],
        );
        check("n > x", expect![[r#"error: invalid value 'x' for index 'n': not an integer"#]]);
        check(
            "barcode==\"a\0b\"",
            expect![[
                r#"error: invalid value 'a\0b' for index 'barcode': it contains a NUL character"#
            ]],
        );
        check(
            "title=x",
            expect![[
                r#"error: unsupported index 'title': it is not a searchable field of this endpoint"#
            ]],
        );
        check(
            "barcode all x",
            expect![[r#"error: unsupported relation 'all' on index 'barcode'"#]],
        );
        check("barcode=x prox id=y", expect![[r#"error: unsupported boolean operator 'prox'"#]]);
        check(
            "open==true and open<>FALSE",
            expect![[
                r#"WHERE (json_extract(body, '$.open') = ? AND json_extract(body, '$.open') IS DISTINCT FROM ?) ORDER BY id [Int(1), Int(0)]"#
            ]],
        );
        check(
            "open==yes",
            expect![[r#"error: invalid value 'yes' for index 'open': not true or false"#]],
        );
        check(
            "a not b sortBy title",
            expect![[
                r#"error: unsupported index 'cql.serverChoice': it is not a searchable field of this endpoint"#
            ]],
        );
    }

    /// A boolean field over the stored JSON matches `true` and `false` as SQLite reads
    /// them from JSON; a record without the field equals neither.
    #[test]
    fn booleans_in_the_body_compare_as_json_reads_them() {
        use crate::fixtures::{THINGS, tenant};
        let (_dir, tenant) = tenant();
        tenant
            .write(|w| {
                for (id, body) in
                    [("a", r#"{"open":true}"#), ("b", r#"{"open":false}"#), ("c", "{}")]
                {
                    w.insert(&THINGS, id, 1, body, &[crate::ColumnValue::Null])?;
                }
                Ok::<_, crate::Error>(())
            })
            .unwrap();
        let ids = |query: &str| -> Vec<String> {
            let page = crate::Page { offset: 0, limit: 10 };
            let (records, _) = tenant.read(|r| r.list(&THINGS, FIELDS, Some(query), page)).unwrap();
            records.into_iter().map(|r| r.id).collect()
        };
        assert_eq!(ids("open==true"), ["a"]);
        assert_eq!(ids("open==False"), ["b"]);
        assert_eq!(ids("open<>true"), ["b", "c"]);
    }

    /// The largest queries the limits accept translate and run within a small stack,
    /// and SQLite takes them: its expressions may nest 1,000 deep at most.
    #[test]
    fn the_largest_queries_accepted_run_on_a_small_stack() {
        use crate::fixtures::{THINGS, tenant};
        const PARENT: &[QueryField] =
            &[QueryField { index: "parent", column: "parent", kind: FieldKind::Text }];
        let (_dir, tenant) = tenant();
        tenant
            .write(|w| w.insert(&THINGS, "a", 1, "{}", &[crate::ColumnValue::Text("p7".into())]))
            .unwrap();
        // 32 levels, each a parenthesis and a change of operator.
        let deepest = (0..limits::MAX_DEPTH).fold("parent==p7".to_string(), |inner, level| {
            let op = if level % 2 == 0 { "or" } else { "and" };
            format!("parent==x{level} {op} ({inner})")
        });
        let values = |n: usize| (0..n).map(|i| format!("p{i}")).collect::<Vec<_>>();
        let widest = format!("parent==({})", values(limits::MAX_TERMS).join(" or "));
        let negated = format!("parent==p7 not parent=={}", values(999).join(" not parent=="));
        for (query, expected) in [(deepest, 0), (widest, 1), (negated, 0)] {
            let tenant = tenant.clone();
            let page = crate::Page { offset: 0, limit: 10 };
            let total = limits::on_test_stack(move || {
                tenant.read(|r| r.list(&THINGS, PARENT, Some(&query), page)).unwrap().1
            });
            assert_eq!(total, expected);
        }
    }
}
