//! Rewrites that remove a documented YAZ/cql-java difference from a query
//! without changing what cql-java (and Quire) make of it. When Quire and YAZ
//! disagree on a query, the disagreement counts as explained only if YAZ, given
//! the rewritten query, agrees with Quire's reading of the original.
//!
//! The rewrites need to know where cql-java's parser is in the grammar, so
//! this module tracks just enough of it over a token list of its own.

/// A token with its byte range in the query.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Word,
    Str,
    Boolean,
    Sortby,
    Comparison,
    Gt,
    LParen,
    RParen,
    Slash,
}

#[derive(Debug, Clone, Copy)]
struct Token {
    kind: Kind,
    start: usize,
    end: usize,
}

/// cql-java's lexer, reduced to what the walkers below need. `None` for
/// queries it rejects (unterminated strings).
fn tokens(query: &str) -> Option<Vec<Token>> {
    let bytes = query.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let start = i;
        let kind = match bytes[i] {
            b' ' | b'\t' | b'\r' | b'\n' => {
                i += 1;
                continue;
            }
            b'(' => Kind::LParen,
            b')' => Kind::RParen,
            b'/' => Kind::Slash,
            b'<' | b'>' | b'=' => {
                let two = bytes.get(i + 1).is_some_and(|&next| {
                    matches!(
                        (bytes[i], next),
                        (b'=', b'=') | (b'<', b'=') | (b'>', b'=') | (b'<', b'>')
                    )
                });
                if two {
                    i += 1;
                    Kind::Comparison
                } else if bytes[i] == b'>' {
                    Kind::Gt
                } else {
                    Kind::Comparison
                }
            }
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                if i >= bytes.len() {
                    return None;
                }
                Kind::Str
            }
            _ => {
                while i + 1 < bytes.len() && !b"()/<>= \t\r\n".contains(&bytes[i + 1]) {
                    i += 1;
                }
                let word = &query[start..=i];
                match word.to_ascii_lowercase().as_str() {
                    "and" | "or" | "not" | "prox" => Kind::Boolean,
                    "sortby" => Kind::Sortby,
                    _ => Kind::Word,
                }
            }
        };
        i += 1;
        out.push(Token { kind, start, end: i });
    }
    Some(out)
}

fn relation_like(word: &str) -> bool {
    word.contains('.')
        || ["any", "all", "adj", "within", "encloses"].iter().any(|r| word.eq_ignore_ascii_case(r))
}

/// What the walk found: positions of interest.
#[derive(Default)]
struct Walk {
    /// Words at the third or later position of a multi-word term.
    late_relation_words: Vec<Token>,
    /// `>` tokens not at the start of the query or of a parenthesised query,
    /// with the byte offset where their scope ends.
    misplaced_prefixes: Vec<(usize, usize)>,
}

/// Follows cql-java's parser over the tokens (for queries it accepts).
fn walk(query: &str, tokens: &[Token]) -> Walk {
    let mut found = Walk::default();
    let mut i = 0;
    // Whether a search clause may start here, and whether that is the start
    // of a (parenthesised) query, where YAZ allows prefix assignments too.
    let mut clause_start = true;
    let mut query_start = true;
    // Open parentheses, and the misplaced prefixes whose scope they close.
    let mut open: Vec<Vec<usize>> = vec![Vec::new()];
    let text = |t: &Token| &query[t.start..t.end];
    let skip_modifiers = |mut i: usize| {
        while tokens.get(i).is_some_and(|t| t.kind == Kind::Slash) {
            i += 2;
            if tokens.get(i).is_some_and(|t| matches!(t.kind, Kind::Comparison | Kind::Gt)) {
                i += 2;
            }
        }
        i
    };
    while i < tokens.len() {
        let token = tokens[i];
        match token.kind {
            Kind::LParen if clause_start => {
                open.push(Vec::new());
                query_start = true;
                i += 1;
            }
            Kind::Gt if clause_start => {
                if !query_start {
                    found.misplaced_prefixes.push((token.start, usize::MAX));
                    open.last_mut().unwrap().push(found.misplaced_prefixes.len() - 1);
                }
                i += 2;
                if tokens.get(i).is_some_and(|t| t.kind == Kind::Comparison && text(t) == "=") {
                    i += 2;
                }
                query_start = true;
            }
            Kind::RParen => {
                for prefix in open.pop().unwrap_or_default() {
                    found.misplaced_prefixes[prefix].1 = token.start;
                }
                clause_start = false;
                query_start = false;
                i += 1;
            }
            Kind::Boolean if !clause_start => {
                i = skip_modifiers(i + 1);
                clause_start = true;
                query_start = false;
            }
            Kind::Sortby if !clause_start => {
                for prefix in open.drain(..).flatten() {
                    found.misplaced_prefixes[prefix].1 = token.start;
                }
                break;
            }
            _ if clause_start => {
                // The first symbol of a clause, then the run of words.
                i += 1;
                let mut n_run = 1;
                while let Some(next) =
                    tokens.get(i).filter(|t| matches!(t.kind, Kind::Word | Kind::Str))
                {
                    if n_run == 1 && next.kind == Kind::Word && relation_like(text(next)) {
                        break;
                    }
                    if n_run >= 2 && next.kind == Kind::Word && relation_like(text(next)) {
                        found.late_relation_words.push(*next);
                    }
                    n_run += 1;
                    i += 1;
                }
                let relation = tokens.get(i).filter(|t| {
                    t.kind == Kind::Comparison
                        || t.kind == Kind::Gt
                        || (t.kind == Kind::Word && n_run == 1)
                });
                if relation.is_some() && n_run == 1 {
                    i = skip_modifiers(i + 1);
                    clause_start = true;
                } else {
                    clause_start = false;
                }
                query_start = false;
            }
            _ => i += 1,
        }
    }
    for prefix in open.drain(..).flatten() {
        if found.misplaced_prefixes[prefix].1 == usize::MAX {
            found.misplaced_prefixes[prefix].1 = query.len();
        }
    }
    for (_, end) in &mut found.misplaced_prefixes {
        if *end == usize::MAX {
            *end = query.len();
        }
    }
    found
}

/// Documented difference "late relation words": quotes relation-like words
/// at the third or later position of a multi-word term (cql-java reads
/// `"any"` and `any` there alike; YAZ only accepts the quoted one).
pub(crate) fn quote_late_relation_words(query: &str) -> Option<String> {
    let tokens = tokens(query)?;
    let found = walk(query, &tokens).late_relation_words;
    if found.is_empty() || found.iter().any(|t| query[t.start..t.end].contains(['"', '\\'])) {
        return None;
    }
    let mut out = query.to_owned();
    for token in found.iter().rev() {
        out.insert(token.end, '"');
        out.insert(token.start, '"');
    }
    Some(out)
}

/// Documented difference "prefix placement": wraps a prefix assignment that
/// follows a boolean or a relation, with the rest of its query, in
/// parentheses (cql-java's scope for it; YAZ accepts assignments only at the
/// start of a query or parenthesised query).
pub(crate) fn parenthesise_prefixes(query: &str) -> Option<String> {
    let tokens = tokens(query)?;
    let found = walk(query, &tokens).misplaced_prefixes;
    if found.is_empty() {
        return None;
    }
    let mut inserts: Vec<(usize, char)> = Vec::new();
    for (start, end) in found {
        inserts.push((start, '('));
        inserts.push((end, ')'));
    }
    // Insert from the back; at one offset, closers go after openers.
    inserts.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)));
    let mut out = query.to_owned();
    for (at, c) in inserts {
        out.insert(at, c);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::{parenthesise_prefixes, quote_late_relation_words};

    #[test]
    fn rewrites() {
        assert_eq!(
            quote_late_relation_words("keyword all Curious among any").as_deref(),
            Some(r#"keyword all Curious among "any""#)
        );
        assert_eq!(
            quote_late_relation_words("a b c.d e all").as_deref(),
            Some(r#"a b "c.d" e "all""#)
        );
        assert_eq!(quote_late_relation_words("title any fish"), None);
        assert_eq!(
            parenthesise_prefixes(r#""fish" and > x="u" "chips" or c"#).as_deref(),
            Some(r#""fish" and (> x="u" "chips" or c)"#)
        );
        assert_eq!(
            parenthesise_prefixes("x = >a=b c sortby d").as_deref(),
            Some("x = (>a=b c )sortby d")
        );
        assert_eq!(
            parenthesise_prefixes("(a or >p=q b) and c").as_deref(),
            Some("(a or (>p=q b)) and c")
        );
        assert_eq!(parenthesise_prefixes(">a=b c"), None);
    }
}
