//! Reading a term's masking characters and escapes.
//!
//! Owns: the CQL masking rules (`*` any run of characters, `?` one character,
//! `^` an anchor, `\` escapes the next character). Does not own: what a
//! search engine does with them. mod-search, for instance, routes every term
//! containing `*` to a wildcard query, escaped or not; a translator wanting
//! that reads [`SearchClause::term`] directly.

use crate::ast::SearchClause;

/// A piece of a term: literal text or an unescaped masking character.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TermPart {
    /// Characters to match as they are, escapes removed.
    // Invariant: never empty, and never next to another `Literal`.
    Literal(String),
    /// An unescaped `*`: zero or more characters.
    MaskAny,
    /// An unescaped `?`: exactly one character.
    MaskOne,
    /// An unescaped `^`: the start or end of the value.
    Anchor,
}

impl SearchClause {
    /// The term with backslash escapes removed (`a\*b\\` becomes `a*b\`).
    /// A lone backslash at the end (possible in an unquoted word) stays.
    ///
    /// This loses the difference between `*` and `\*`; use
    /// [`SearchClause::term_parts`] where that matters.
    pub fn term_unescaped(&self) -> String {
        let mut out = String::with_capacity(self.term.len());
        let mut chars = self.term.chars();
        while let Some(c) = chars.next() {
            match c {
                '\\' => out.push(chars.next().unwrap_or('\\')),
                c => out.push(c),
            }
        }
        out
    }

    /// The term split into literal text and masking characters.
    ///
    /// ```
    /// # use quire_cql as cql;
    /// use cql::TermPart;
    ///
    /// let query = cql::parse(r#"title = "^war\*s?""#).unwrap();
    /// let cql::Node::Search(clause) = &query.root else { unreachable!() };
    /// assert_eq!(
    ///     clause.term_parts(),
    ///     [TermPart::Anchor, TermPart::Literal("war*s".into()), TermPart::MaskOne],
    /// );
    /// ```
    pub fn term_parts(&self) -> Vec<TermPart> {
        let mut parts = Vec::new();
        let mut literal = String::new();
        let mut chars = self.term.chars();
        while let Some(c) = chars.next() {
            let mask = match c {
                '*' => TermPart::MaskAny,
                '?' => TermPart::MaskOne,
                '^' => TermPart::Anchor,
                '\\' => {
                    literal.push(chars.next().unwrap_or('\\'));
                    continue;
                }
                c => {
                    literal.push(c);
                    continue;
                }
            };
            if !literal.is_empty() {
                parts.push(TermPart::Literal(std::mem::take(&mut literal)));
            }
            parts.push(mask);
        }
        if !literal.is_empty() {
            parts.push(TermPart::Literal(literal));
        }
        parts
    }

    /// Whether the term has an unescaped `*` or `?`.
    pub fn has_masking(&self) -> bool {
        let mut chars = self.term.chars();
        while let Some(c) = chars.next() {
            match c {
                '*' | '?' => return true,
                '\\' => {
                    chars.next();
                }
                _ => {}
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};

    use crate::ast::{Relation, SearchClause};

    fn check(term: &str, expect: Expect) {
        let clause =
            SearchClause { index: "x".into(), relation: Relation::new("="), term: term.into() };
        let actual = format!(
            "unescaped: {}\nmasking: {}\nparts: {:?}",
            clause.term_unescaped(),
            clause.has_masking(),
            clause.term_parts()
        );
        expect.assert_eq(&actual);
    }

    #[test]
    fn plain() {
        check(
            "war and peace",
            expect![[r#"
            unescaped: war and peace
            masking: false
            parts: [Literal("war and peace")]"#]],
        );
        check(
            "",
            expect![[r#"
            unescaped: 
            masking: false
            parts: []"#]],
        );
    }

    #[test]
    fn masks_and_escapes() {
        check(
            r"te\rm\*\?\^",
            expect![[r#"
            unescaped: term*?^
            masking: false
            parts: [Literal("term*?^")]"#]],
        );
        check(
            r"^*foo?bar*^",
            expect![[r#"
            unescaped: ^*foo?bar*^
            masking: true
            parts: [Anchor, MaskAny, Literal("foo"), MaskOne, Literal("bar"), MaskAny, Anchor]"#]],
        );
        check(
            r#"say \"hi\" \\*"#,
            expect![[r#"
            unescaped: say "hi" \*
            masking: true
            parts: [Literal("say \"hi\" \\"), MaskAny]"#]],
        );
        check(
            r"trailing\",
            expect![[r#"
            unescaped: trailing\
            masking: false
            parts: [Literal("trailing\\")]"#]],
        );
        check(
            r"é\ü*",
            expect![[r#"
            unescaped: éü*
            masking: true
            parts: [Literal("éü"), MaskAny]"#]],
        );
    }
}
