//! The XCQL writer: the query as the XML cql-java's `toXCQL()` prints.
//!
//! Owns: the layout (two spaces an indentation level, one element a line,
//! a trailing newline) and where prefixes and sort keys go: on the first
//! `searchClause` or `triple` under them, in the order written, outer
//! prefixes first. Does not own: a general XML writer; only `<`, `>` and `&`
//! need escaping in XCQL text.
//!
//! Two deliberate departures from cql-java, both invisible in its corpus:
//! booleans are written in lower case (cql-java echoes `AND` as typed), and
//! prefix names and identifiers are escaped like all other text (cql-java
//! writes them raw, producing malformed XML for `>x="a<b"`).

use crate::ast::{Modifier, Node, Prefix, Query, Relation, SortKey};

impl Query {
    /// The query as XCQL, byte-identical to cql-java's output for the same
    /// query (see the module docs of `xcql` for two documented exceptions).
    pub fn to_xcql(&self) -> String {
        let mut writer = Writer { out: String::with_capacity(256) };
        writer.node(&self.root, 0, &self.sort_keys);
        writer.out
    }
}

struct Writer {
    out: String,
}

impl Writer {
    fn indent(&mut self, level: usize) {
        for _ in 0..level {
            self.out.push_str("  ");
        }
    }

    fn line(&mut self, level: usize, text: &str) {
        self.indent(level);
        self.out.push_str(text);
        self.out.push('\n');
    }

    /// `<tag>escaped text</tag>` on one line.
    fn element(&mut self, level: usize, tag: &str, text: &str) {
        self.indent(level);
        self.out.push('<');
        self.out.push_str(tag);
        self.out.push('>');
        self.escaped(text);
        self.out.push_str("</");
        self.out.push_str(tag);
        self.out.push_str(">\n");
    }

    fn escaped(&mut self, text: &str) {
        let mut rest = text;
        while let Some(i) = rest.find(['<', '>', '&']) {
            self.out.push_str(&rest[..i]);
            self.out.push_str(match rest.as_bytes()[i] {
                b'<' => "&lt;",
                b'>' => "&gt;",
                _ => "&amp;",
            });
            rest = &rest[i + 1..];
        }
        self.out.push_str(rest);
    }

    /// A subtree at `level`. Prefix assignments directly above a clause or
    /// triple are gathered and written inside it; `sort_keys` are written
    /// there too (only the root passes any).
    fn node(&mut self, node: &Node, level: usize, sort_keys: &[SortKey]) {
        let mut prefixes: Vec<&Prefix> = Vec::new();
        let mut node = node;
        while let Node::Prefixed { prefix, node: inner } = node {
            prefixes.push(prefix);
            node = inner;
        }
        match node {
            Node::Search(clause) => {
                self.line(level, "<searchClause>");
                self.prefixes(level + 1, &prefixes);
                self.element(level + 1, "index", &clause.index);
                self.relation(level + 1, &clause.relation);
                self.element(level + 1, "term", &clause.term);
                self.sort_keys(level + 1, sort_keys);
                self.line(level, "</searchClause>");
            }
            Node::Boolean { op, modifiers, left, right } => {
                self.line(level, "<triple>");
                self.prefixes(level + 1, &prefixes);
                self.line(level + 1, "<boolean>");
                self.element(level + 2, "value", op.as_str());
                self.modifiers(level + 2, modifiers);
                self.line(level + 1, "</boolean>");
                self.line(level + 1, "<leftOperand>");
                self.node(left, level + 2, &[]);
                self.line(level + 1, "</leftOperand>");
                self.line(level + 1, "<rightOperand>");
                self.node(right, level + 2, &[]);
                self.line(level + 1, "</rightOperand>");
                self.sort_keys(level + 1, sort_keys);
                self.line(level, "</triple>");
            }
            Node::Prefixed { .. } => unreachable!("prefix assignments were unwrapped above"),
        }
    }

    fn prefixes(&mut self, level: usize, prefixes: &[&Prefix]) {
        if prefixes.is_empty() {
            return;
        }
        self.line(level, "<prefixes>");
        for prefix in prefixes {
            self.line(level + 1, "<prefix>");
            if let Some(name) = &prefix.name {
                self.element(level + 2, "name", name);
            }
            self.element(level + 2, "identifier", &prefix.uri);
            self.line(level + 1, "</prefix>");
        }
        self.line(level, "</prefixes>");
    }

    fn relation(&mut self, level: usize, relation: &Relation) {
        self.line(level, "<relation>");
        self.element(level + 1, "value", &relation.base);
        self.modifiers(level + 1, &relation.modifiers);
        self.line(level, "</relation>");
    }

    fn modifiers(&mut self, level: usize, modifiers: &[Modifier]) {
        if modifiers.is_empty() {
            return;
        }
        self.line(level, "<modifiers>");
        for modifier in modifiers {
            self.line(level + 1, "<modifier>");
            self.element(level + 2, "type", &modifier.name);
            if let (Some(comparison), Some(value)) = (&modifier.comparison, &modifier.value) {
                self.element(level + 2, "comparison", comparison);
                self.element(level + 2, "value", value);
            }
            self.line(level + 1, "</modifier>");
        }
        self.line(level, "</modifiers>");
    }

    fn sort_keys(&mut self, level: usize, keys: &[SortKey]) {
        if keys.is_empty() {
            return;
        }
        self.line(level, "<sortKeys>");
        for key in keys {
            self.line(level + 1, "<key>");
            self.element(level + 2, "index", &key.index);
            self.modifiers(level + 2, &key.modifiers);
            self.line(level + 1, "</key>");
        }
        self.line(level, "</sortKeys>");
    }
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};

    fn check(input: &str, expect: Expect) {
        let actual = match crate::parse(input) {
            Ok(query) => query.to_xcql(),
            Err(e) => format!("error: {e}"),
        };
        expect.assert_eq(&actual);
    }

    #[test]
    fn escapes_text() {
        check(
            r#"> p="<&>" "a<b" </x="&" "c>d&e""#,
            expect![[r#"
                <searchClause>
                  <prefixes>
                    <prefix>
                      <name>p</name>
                      <identifier>&lt;&amp;&gt;</identifier>
                    </prefix>
                  </prefixes>
                  <index>a&lt;b</index>
                  <relation>
                    <value>&lt;</value>
                    <modifiers>
                      <modifier>
                        <type>x</type>
                        <comparison>=</comparison>
                        <value>&amp;</value>
                      </modifier>
                    </modifiers>
                  </relation>
                  <term>c&gt;d&amp;e</term>
                </searchClause>
            "#]],
        );
    }

    #[test]
    fn booleans_are_lower_case() {
        check(
            "a AND/X b",
            expect![[r#"
            <triple>
              <boolean>
                <value>and</value>
                <modifiers>
                  <modifier>
                    <type>x</type>
                  </modifier>
                </modifiers>
              </boolean>
              <leftOperand>
                <searchClause>
                  <index>cql.serverChoice</index>
                  <relation>
                    <value>=</value>
                  </relation>
                  <term>a</term>
                </searchClause>
              </leftOperand>
              <rightOperand>
                <searchClause>
                  <index>cql.serverChoice</index>
                  <relation>
                    <value>=</value>
                  </relation>
                  <term>b</term>
                </searchClause>
              </rightOperand>
            </triple>
        "#]],
        );
    }

    #[test]
    fn prefixes_gather_and_sort_keys_go_to_the_first_element() {
        check(
            r#">a=x >"y" (>b=z c or d) sortby e/x"#,
            expect![[r#"
            <triple>
              <prefixes>
                <prefix>
                  <name>a</name>
                  <identifier>x</identifier>
                </prefix>
                <prefix>
                  <identifier>y</identifier>
                </prefix>
                <prefix>
                  <name>b</name>
                  <identifier>z</identifier>
                </prefix>
              </prefixes>
              <boolean>
                <value>or</value>
              </boolean>
              <leftOperand>
                <searchClause>
                  <index>cql.serverChoice</index>
                  <relation>
                    <value>=</value>
                  </relation>
                  <term>c</term>
                </searchClause>
              </leftOperand>
              <rightOperand>
                <searchClause>
                  <index>cql.serverChoice</index>
                  <relation>
                    <value>=</value>
                  </relation>
                  <term>d</term>
                </searchClause>
              </rightOperand>
              <sortKeys>
                <key>
                  <index>e</index>
                  <modifiers>
                    <modifier>
                      <type>x</type>
                    </modifier>
                  </modifiers>
                </key>
              </sortKeys>
            </triple>
        "#]],
        );
    }
}
