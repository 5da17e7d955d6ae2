//! Bringing Quire's XCQL and YAZ's XCQL to one canonical form.
//!
//! Each step here undoes one known, documented *representation* difference
//! (see crates/cql/README.md, "Differences from YAZ"); none changes what a
//! query means:
//!
//! 0. Malformed output: YAZ sometimes leaves `<prefixes>` unclosed (a YAZ
//!    bug); the missing end tag is added.
//! 1. Indentation: YAZ indents a sort key's `<modifiers>` two spaces deeper.
//!    Both sides are read as element trees, so whitespace drops out.
//! 2. Multi-word terms: YAZ writes one `<term>` a word; cql-java (and Quire)
//!    one `<term>` with the words joined by spaces. YAZ's are joined.
//! 3. Modifier order: YAZ lists modifiers last first. YAZ's are reversed.
//! 4. Modifier names: cql-java lower-cases them, YAZ keeps them as typed.
//!    YAZ's are lower-cased.
//! 5. Keywords used as words (`AND = x`, `x sortBy SortBy`): YAZ writes them
//!    in lower case, cql-java as typed. On both sides, every space-separated
//!    word of every text that spells a keyword is lower-cased.
//! 6. Prefix assignments: cql-java lists them verbatim on the element they
//!    scope; YAZ resolves them into the indexes (`>dc=x dc.title` becomes
//!    index `title` with identifier `x`) and drops those that resolve
//!    nothing. Quire's side is resolved the way YAZ resolves it
//!    (`cql_apply_prefix` in YAZ's `src/cqlutil.c`).
//! 7. Sort keys: YAZ keeps only the first and the last of three or more keys
//!    (a YAZ bug: its `sortSpec` rule links each new key to the first). Quire's
//!    middle keys are dropped before comparing; the regression corpus checks
//!    them against cql-java.

/// Step 0: YAZ leaves `<prefixes>` unclosed when a clause's relation
/// resolved a prefix but its index did not (`prefixes()` in YAZ's
/// `src/xcqlutil.c` closes the element only when it opened it for the
/// index). The missing `</prefixes>` goes before the clause's `<index>`.
fn close_prefixes(xml: &str) -> String {
    let mut out = String::with_capacity(xml.len());
    let mut open = false;
    for line in xml.lines() {
        match line.trim() {
            "<prefixes>" => open = true,
            "</prefixes>" => open = false,
            trimmed if open && trimmed.starts_with("<index>") => {
                out.push_str("</prefixes>\n");
                open = false;
            }
            _ => {}
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// An XML element with its direct text and children.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Element {
    pub(crate) name: String,
    pub(crate) text: String,
    pub(crate) children: Vec<Element>,
}

impl Element {
    fn leaf(name: &str, text: &str) -> Self {
        Self { name: name.into(), text: text.into(), children: Vec::new() }
    }

    fn child(&self, name: &str) -> Option<&Element> {
        self.children.iter().find(|c| c.name == name)
    }

    /// Indented text, for readable diffs.
    pub(crate) fn render(&self) -> String {
        let mut out = String::new();
        self.render_into(0, &mut out);
        out
    }

    fn render_into(&self, level: usize, out: &mut String) {
        out.push_str(&"  ".repeat(level));
        if self.children.is_empty() {
            out.push_str(&format!("<{}>{}</{}>\n", self.name, self.text, self.name));
        } else {
            out.push_str(&format!("<{}>\n", self.name));
            for child in &self.children {
                child.render_into(level + 1, out);
            }
            out.push_str(&"  ".repeat(level));
            out.push_str(&format!("</{}>\n", self.name));
        }
    }
}

/// Reads XCQL as both writers produce it: tags and text, entities `&lt;`
/// `&gt;` `&amp;`. Whitespace-only text in elements with children is
/// dropped; leaves keep their text exactly.
pub(crate) fn read(xml: &str) -> Element {
    let mut stack: Vec<Element> = vec![Element::leaf("#document", "")];
    let mut rest = xml;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix("</") {
            let end = after.find('>').expect("closed tag");
            let element = stack.pop().unwrap();
            assert_eq!(element.name, &after[..end], "mismatched tag in\n{xml}");
            stack.last_mut().unwrap().children.push(element);
            rest = &after[end + 1..];
        } else if let Some(after) = rest.strip_prefix('<') {
            let end = after.find('>').expect("closed tag");
            stack.push(Element::leaf(&after[..end], ""));
            rest = &after[end + 1..];
        } else {
            let end = rest.find('<').unwrap_or(rest.len());
            let text = &rest[..end];
            let parent = stack.last_mut().unwrap();
            if text.contains('&') {
                parent.text.push_str(
                    &text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&"),
                );
            } else {
                parent.text.push_str(text);
            }
            rest = &rest[end..];
        }
    }
    let mut document = stack.pop().unwrap();
    assert!(stack.is_empty() && document.children.len() == 1, "one root element in\n{xml}");
    let mut root = document.children.pop().unwrap();
    drop_layout_text(&mut root);
    root
}

fn drop_layout_text(element: &mut Element) {
    if !element.children.is_empty() {
        assert!(element.text.trim().is_empty(), "text {:?} in <{}>", element.text, element.name);
        element.text.clear();
        element.children.iter_mut().for_each(drop_layout_text);
    }
}

/// YAZ's XCQL in canonical form (steps 2 to 5, after step 0).
pub(crate) fn yaz(xml: &str) -> Element {
    let mut root = read(&close_prefixes(xml));
    canon_yaz(&mut root);
    lower_keywords(&mut root);
    root
}

fn canon_yaz(element: &mut Element) {
    if element.name == "searchClause" {
        let terms: Vec<String> =
            element.children.iter().filter(|c| c.name == "term").map(|c| c.text.clone()).collect();
        if terms.len() > 1 {
            let first = element.children.iter().position(|c| c.name == "term").unwrap();
            element.children.retain(|c| c.name != "term");
            element.children.insert(first, Element::leaf("term", &terms.join(" ")));
        }
    }
    if element.name == "modifiers" {
        element.children.reverse();
    }
    if element.name == "modifier" {
        for child in &mut element.children {
            if child.name == "type" {
                child.text = child.text.to_lowercase();
            }
        }
    }
    element.children.iter_mut().for_each(canon_yaz);
}

/// Quire's XCQL in canonical form (steps 5 to 7).
pub(crate) fn quire(xml: &str) -> Element {
    let mut root = read(xml);
    resolve_prefixes(&mut root, &mut Vec::new());
    if let Some(keys) = root.children.iter_mut().find(|c| c.name == "sortKeys") {
        let n_keys = keys.children.len();
        if n_keys > 2 {
            keys.children.drain(1..n_keys - 1);
        }
    }
    lower_keywords(&mut root);
    root
}

fn lower_keywords(element: &mut Element) {
    if element.children.is_empty() {
        let words: Vec<String> = element
            .text
            .split(' ')
            .map(|word| {
                let keyword = ["and", "or", "not", "prox", "sortby"]
                    .iter()
                    .any(|k| word.eq_ignore_ascii_case(k));
                if keyword { word.to_ascii_lowercase() } else { word.to_owned() }
            })
            .collect();
        element.text = words.join(" ");
    }
    element.children.iter_mut().for_each(lower_keywords);
}

/// A prefix assignment in scope: name (none for the default) and URI.
type Assignment = (Option<String>, String);

/// Applies the prefixes in scope to every search clause the way YAZ does:
/// innermost assignment first, each of the index, the relation and every
/// relation modifier resolved at most once.
fn resolve_prefixes(element: &mut Element, scope: &mut Vec<Assignment>) {
    let scope_len = scope.len();
    if let Some(at) = element.children.iter().position(|c| c.name == "prefixes") {
        let prefixes = element.children.remove(at);
        for prefix in prefixes.children {
            let name = prefix.child("name").map(|n| n.text.clone());
            let uri = prefix.child("identifier").expect("identifier").text.clone();
            scope.push((name, uri));
        }
    }
    match element.name.as_str() {
        "searchClause" => resolve_clause(element, scope),
        "triple" => {
            for child in &mut element.children {
                if child.name == "leftOperand" || child.name == "rightOperand" {
                    resolve_prefixes(&mut child.children[0], scope);
                }
            }
        }
        other => panic!("unexpected <{other}>"),
    }
    scope.truncate(scope_len);
}

/// YAZ's `cql_apply_prefix` test: a named prefix matches a dotted name whose
/// part before the first dot equals it (ASCII case-insensitively); the
/// default prefix matches undotted names. Returns the name after the match.
fn resolve<'n>(name: &'n str, prefix: Option<&str>) -> Option<&'n str> {
    match (prefix, name.find('.')) {
        (Some(prefix), Some(dot))
            if dot == prefix.len() && name[..dot].eq_ignore_ascii_case(prefix) =>
        {
            Some(&name[dot + 1..])
        }
        (None, None) => Some(name),
        _ => None,
    }
}

fn resolve_clause(clause: &mut Element, scope: &[Assignment]) {
    let mut index_uri = None;
    let mut relation_uri = None;
    for child in &mut clause.children {
        match child.name.as_str() {
            "index" => {
                let found = scope.iter().rev().find_map(|(name, uri)| {
                    resolve(&child.text, name.as_deref()).map(|rest| (rest.to_owned(), uri.clone()))
                });
                if let Some((rest, uri)) = found {
                    child.text = rest;
                    index_uri = Some(uri);
                }
            }
            "relation" => {
                for part in &mut child.children {
                    match part.name.as_str() {
                        "value" => {
                            let found =
                                scope.iter().rev().filter(|(name, _)| name.is_some()).find_map(
                                    |(name, uri)| {
                                        resolve(&part.text, name.as_deref())
                                            .map(|rest| (rest.to_owned(), uri.clone()))
                                    },
                                );
                            if let Some((rest, uri)) = found {
                                part.text = format!("rel.{rest}");
                                relation_uri = Some(uri);
                            }
                        }
                        "modifiers" => {
                            for modifier in &mut part.children {
                                let name = &mut modifier.children[0];
                                let found = scope
                                    .iter()
                                    .rev()
                                    .filter(|(prefix, _)| prefix.is_some())
                                    .find_map(|(prefix, _)| resolve(&name.text, prefix.as_deref()));
                                if let Some(rest) = found {
                                    name.text = rest.to_owned();
                                }
                            }
                        }
                        _ => {}
                    }
                }
                if let Some(uri) = &relation_uri {
                    child.children.insert(1, Element::leaf("identifier", uri));
                }
            }
            _ => {}
        }
    }
    let mut prefixes = Vec::new();
    if let Some(uri) = index_uri {
        prefixes.push(Element {
            name: "prefix".into(),
            text: String::new(),
            children: vec![Element::leaf("identifier", &uri)],
        });
    }
    if let Some(uri) = relation_uri {
        prefixes.push(Element {
            name: "prefix".into(),
            text: String::new(),
            children: vec![Element::leaf("name", "rel"), Element::leaf("identifier", &uri)],
        });
    }
    if !prefixes.is_empty() {
        clause.children.insert(
            0,
            Element { name: "prefixes".into(), text: String::new(), children: prefixes },
        );
    }
}
