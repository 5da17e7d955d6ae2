//! Reading XCQL back into a [`Query`]: the inverse of [`Query::to_xcql`].
//!
//! Owns: the check that XCQL output loses nothing (tests and the fuzz target
//! assert `parse_xcql(&q.to_xcql()) == Ok(q)`). Does not own: XML in
//! general. It reads the XCQL vocabulary only, as elements and text with the
//! five predefined entities; attributes, comments, CDATA and namespaces are
//! errors, and so is any element out of place.

use crate::ast::{BooleanOp, Modifier, Node, Prefix, Query, Relation, SearchClause, SortKey};
use crate::error::{ParseError, Result};
use crate::parser::MAX_DEPTH;

/// Parses XCQL as written by [`Query::to_xcql`] (or cql-java) into a query.
///
/// Errors carry the byte offset in `xml` of the element or text at fault.
///
/// ```
/// # use quire_cql as cql;
/// let query = cql::parse("title all (war or peace) sortBy title").unwrap();
/// assert_eq!(cql::parse_xcql(&query.to_xcql()), Ok(query));
/// ```
pub fn parse_xcql(xml: &str) -> Result<Query> {
    let root = read_element_tree(xml)?;
    let mut sort_keys = Vec::new();
    let node = node(&root, &mut Some(&mut sort_keys), 1)?;
    Ok(Query { root: node, sort_keys })
}

/// An XML element: its name, the text directly inside it, its children.
struct Element<'a> {
    name: &'a str,
    text: String,
    children: Vec<Element<'a>>,
    /// Byte offset of the `<` of its start tag.
    start: usize,
}

/// XCQL nests two elements (`triple`, `leftOperand`) a tree level, plus a
/// few for the leaves.
const MAX_ELEMENT_DEPTH: usize = 2 * MAX_DEPTH + 8;

/// Reads the single root element, without recursion.
fn read_element_tree(xml: &str) -> Result<Element<'_>> {
    let mut open: Vec<Element<'_>> = Vec::new();
    let mut pos = 0;
    loop {
        let rest = &xml[pos..];
        let Some(lt) = rest.find('<') else {
            if rest.trim().is_empty() && open.is_empty() {
                return Err(ParseError::new(pos, "expected an XCQL element, got EOF"));
            }
            let message =
                if open.is_empty() { "text after the root element" } else { "unclosed element" };
            return Err(ParseError::new(pos, message));
        };
        if lt > 0 {
            let text = decode(&rest[..lt], pos)?;
            match open.last_mut() {
                Some(parent) => parent.text.push_str(&text),
                None if text.trim().is_empty() => {}
                None => return Err(ParseError::new(pos, "text outside the root element")),
            }
            pos += lt;
            continue;
        }
        let Some(gt) = rest.find('>') else {
            return Err(ParseError::new(pos, "unterminated tag"));
        };
        let tag = &rest[1..gt];
        let start = pos;
        pos += gt + 1;
        if let Some(name) = tag.strip_prefix('/') {
            let element =
                open.pop().ok_or_else(|| ParseError::new(start, "close tag without open tag"))?;
            if element.name != name {
                return Err(ParseError::new(
                    start,
                    format!("expected </{}>, got </{name}>", element.name),
                ));
            }
            match open.last_mut() {
                Some(parent) => parent.children.push(element),
                None if xml[pos..].trim().is_empty() => return Ok(element),
                None => return Err(ParseError::new(pos, "text after the root element")),
            }
        } else {
            if tag.is_empty() || !tag.bytes().all(|b| b.is_ascii_alphabetic()) {
                return Err(ParseError::new(start, format!("unsupported tag <{tag}>")));
            }
            if open.len() >= MAX_ELEMENT_DEPTH {
                return Err(ParseError::new(start, "XCQL nested too deeply"));
            }
            open.push(Element { name: tag, text: String::new(), children: Vec::new(), start });
        }
    }
}

/// Replaces the predefined entities; other `&` sequences are errors.
fn decode(text: &str, offset: usize) -> Result<String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        let after = &rest[amp..];
        let (entity, c) =
            [("&lt;", '<'), ("&gt;", '>'), ("&amp;", '&'), ("&quot;", '"'), ("&apos;", '\'')]
                .into_iter()
                .find(|(entity, _)| after.starts_with(entity))
                .ok_or_else(|| {
                    ParseError::new(offset + (text.len() - rest.len()) + amp, "unsupported entity")
                })?;
        out.push(c);
        rest = &after[entity.len()..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Hands out an element's children in order, checking names.
struct Children<'e, 'a> {
    parent: &'e Element<'a>,
    next: usize,
}

impl<'e, 'a> Children<'e, 'a> {
    fn of(parent: &'e Element<'a>) -> Result<Self> {
        if !parent.text.trim().is_empty() {
            return Err(ParseError::new(
                parent.start,
                format!("unexpected text in <{}>", parent.name),
            ));
        }
        Ok(Self { parent, next: 0 })
    }

    fn optional(&mut self, name: &str) -> Option<&'e Element<'a>> {
        let child = self.parent.children.get(self.next).filter(|child| child.name == name)?;
        self.next += 1;
        Some(child)
    }

    fn required(&mut self, name: &str) -> Result<&'e Element<'a>> {
        self.optional(name).ok_or_else(|| {
            let (offset, got) = match self.parent.children.get(self.next) {
                Some(child) => (child.start, format!("<{}>", child.name)),
                None => (self.parent.start, format!("</{}>", self.parent.name)),
            };
            ParseError::new(
                offset,
                format!("expected <{name}> in <{}>, got {got}", self.parent.name),
            )
        })
    }

    /// The text of a required leaf element.
    fn text(&mut self, name: &str) -> Result<String> {
        let child = self.required(name)?;
        if let Some(grandchild) = child.children.first() {
            return Err(ParseError::new(
                grandchild.start,
                format!("unexpected element in <{name}>"),
            ));
        }
        Ok(child.text.clone())
    }

    fn end(self) -> Result<()> {
        match self.parent.children.get(self.next) {
            None => Ok(()),
            Some(child) => Err(ParseError::new(
                child.start,
                format!("unexpected <{}> in <{}>", child.name, self.parent.name),
            )),
        }
    }
}

/// A `searchClause` or `triple`. Only the root may carry `sortKeys`; they go
/// to `sort_keys`, which is `None` below the root.
fn node(
    element: &Element<'_>,
    sort_keys: &mut Option<&mut Vec<SortKey>>,
    depth: usize,
) -> Result<Node> {
    if depth > MAX_DEPTH {
        return Err(ParseError::new(element.start, "XCQL nested too deeply"));
    }
    let mut children = Children::of(element)?;
    let prefixes = match children.optional("prefixes") {
        Some(prefixes) => prefix_list(prefixes)?,
        None => Vec::new(),
    };
    let inner = match element.name {
        "searchClause" => {
            let index = children.text("index")?;
            let relation = relation(children.required("relation")?)?;
            let term = children.text("term")?;
            Node::Search(SearchClause { index, relation, term })
        }
        "triple" => {
            let (op, modifiers) = boolean(children.required("boolean")?)?;
            let depth = depth + prefixes.len() + 1;
            let left = operand(children.required("leftOperand")?, depth)?;
            let right = operand(children.required("rightOperand")?, depth)?;
            Node::Boolean { op, modifiers, left: Box::new(left), right: Box::new(right) }
        }
        name => {
            let message = format!("expected <searchClause> or <triple>, got <{name}>");
            return Err(ParseError::new(element.start, message));
        }
    };
    if let Some(keys) = children.optional("sortKeys") {
        let Some(sort_keys) = sort_keys.take() else {
            return Err(ParseError::new(keys.start, "<sortKeys> below the root"));
        };
        let mut keys_children = Children::of(keys)?;
        while let Some(key) = keys_children.optional("key") {
            let mut parts = Children::of(key)?;
            let index = parts.text("index")?;
            let modifiers =
                parts.optional("modifiers").map(modifier_list).transpose()?.unwrap_or_default();
            parts.end()?;
            sort_keys.push(SortKey { index, modifiers });
        }
        keys_children.end()?;
    }
    children.end()?;
    Ok(prefixes
        .into_iter()
        .rev()
        .fold(inner, |node, prefix| Node::Prefixed { prefix, node: Box::new(node) }))
}

fn operand(element: &Element<'_>, depth: usize) -> Result<Node> {
    let mut children = Children::of(element)?;
    let inner = children
        .parent
        .children
        .first()
        .ok_or_else(|| ParseError::new(element.start, format!("empty <{}>", element.name)))?;
    children.next = 1;
    children.end()?;
    node(inner, &mut None, depth)
}

fn prefix_list(element: &Element<'_>) -> Result<Vec<Prefix>> {
    let mut children = Children::of(element)?;
    let mut prefixes = Vec::new();
    while let Some(prefix) = children.optional("prefix") {
        let mut parts = Children::of(prefix)?;
        let name = parts.optional("name").map(|name| name.text.clone());
        let uri = parts.text("identifier")?;
        parts.end()?;
        prefixes.push(Prefix { name, uri });
    }
    children.end()?;
    Ok(prefixes)
}

fn relation(element: &Element<'_>) -> Result<Relation> {
    let mut children = Children::of(element)?;
    let base = children.text("value")?;
    let modifiers =
        children.optional("modifiers").map(modifier_list).transpose()?.unwrap_or_default();
    children.end()?;
    Ok(Relation { base, modifiers })
}

fn boolean(element: &Element<'_>) -> Result<(BooleanOp, Vec<Modifier>)> {
    let mut children = Children::of(element)?;
    let value = children.required("value")?;
    let op = match value.text.to_ascii_lowercase().as_str() {
        "and" => BooleanOp::And,
        "or" => BooleanOp::Or,
        "not" => BooleanOp::Not,
        "prox" => BooleanOp::Prox,
        other => return Err(ParseError::new(value.start, format!("unknown boolean {other:?}"))),
    };
    let modifiers =
        children.optional("modifiers").map(modifier_list).transpose()?.unwrap_or_default();
    children.end()?;
    Ok((op, modifiers))
}

fn modifier_list(element: &Element<'_>) -> Result<Vec<Modifier>> {
    let mut children = Children::of(element)?;
    let mut modifiers = Vec::new();
    while let Some(modifier) = children.optional("modifier") {
        let mut parts = Children::of(modifier)?;
        let name = parts.text("type")?;
        let comparison = parts.optional("comparison").map(|c| c.text.clone());
        let value = if comparison.is_some() { Some(parts.text("value")?) } else { None };
        parts.end()?;
        modifiers.push(Modifier { name, comparison, value });
    }
    children.end()?;
    Ok(modifiers)
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};

    use super::parse_xcql;

    fn check_round_trip(cql: &str) {
        let query = crate::parse(cql).unwrap();
        assert_eq!(parse_xcql(&query.to_xcql()), Ok(query), "{cql}");
    }

    fn check_error(xml: &str, expect: Expect) {
        expect.assert_eq(&parse_xcql(xml).unwrap_err().to_string());
    }

    #[test]
    fn round_trips() {
        for cql in [
            "cat",
            r#""" = " ""#,
            r#">dc="<&>" >"x" (>b=y a and/x<"q&" b prox c) sortby d/sort.missingValue="a b" e"#,
            r#"title == (a or "b \"c\"") not/rel.x d sortBy x"#,
            "a = (>p=q b)",
        ] {
            check_round_trip(cql);
        }
    }

    #[test]
    fn errors() {
        check_error("", expect!["expected an XCQL element, got EOF (at byte 0)"]);
        check_error("<searchClause>", expect!["unclosed element (at byte 14)"]);
        check_error(
            "<searchClause></searchClause>",
            expect!["expected <index> in <searchClause>, got </searchClause> (at byte 0)"],
        );
        check_error(
            "<triple x='1'></triple>",
            expect!["unsupported tag <triple x='1'> (at byte 0)"],
        );
        check_error("<a></b>", expect!["expected </a>, got </b> (at byte 3)"]);
        check_error("<term>&nbsp;</term>", expect!["unsupported entity (at byte 6)"]);
        check_error(
            &"<triple><leftOperand>".repeat(100_000),
            expect!["XCQL nested too deeply (at byte 21756)"],
        );
    }
}
