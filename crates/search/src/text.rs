//! Text analysis: FOLIO's analysers and normalisers, reproduced without ICU.
//!
//! Owns how a value becomes index terms and how a query term becomes the same terms:
//! the folding of case and diacritics (`keyword_icu`, `icu_folding`), the word splitting
//! of mod-search's `source_analyzer` (ICU word boundaries, then `word_delimiter_graph`
//! with `catenate_words`, after the `" & "` → `" and "` character filter), the
//! whitespace analyser of `identifiers.value`, and the English stems of `multilang`
//! fields. Does not own which field uses which analyser (the field registry) or how
//! terms become queries (`query`).
//!
//! Deviations from ICU, kept small on purpose: word boundaries follow UAX #29's rules
//! for Latin, Greek, Cyrillic and digits (letters joined by `'` `’` `.` `:`, digits by
//! `.` `,` `;` `'`, anything by `_`); scripts without spaces (CJK, Thai) are split per
//! character run rather than by dictionary.

use std::borrow::Cow;
use std::cell::RefCell;

use rustc_hash::FxHashMap;
use tantivy::tokenizer::{Token, TokenStream, Tokenizer};
use unicode_normalization::char::{decompose_compatible, is_combining_mark};

/// English stopwords of Lucene's `EnglishAnalyzer`, which FOLIO's `multilang` fields
/// use through their `eng` sub-field.
const ENGLISH_STOPWORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it",
    "no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "there", "these",
    "they", "this", "to", "was", "will", "with",
];

/// Longest whole value kept in a `plain` copy: longer values are cut (on a character
/// boundary). Lucene refuses terms over 32 KiB; notes are the only values this long.
pub(crate) const MAX_PLAIN_BYTES: usize = 2048;

/// Lowercases and strips diacritics the way ICU folding does for Latin text:
/// `Déjà Vu` → `deja vu`, `Straße` → `strasse`, `Øre` → `ore`.
pub(crate) fn fold(text: &str) -> Cow<'_, str> {
    if text.bytes().all(|b| b.is_ascii() && !b.is_ascii_uppercase()) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    fold_into(text, &mut out);
    Cow::Owned(out)
}

pub(crate) fn fold_into(text: &str, out: &mut String) {
    if text.is_ascii() {
        let start = out.len();
        out.push_str(text);
        out[start..].make_ascii_lowercase();
        return;
    }
    for c in text.chars() {
        if c.is_ascii() {
            out.push(c.to_ascii_lowercase());
            continue;
        }
        if let Some(s) = special_fold(c) {
            out.push_str(s);
            continue;
        }
        for lower in c.to_lowercase() {
            decompose_compatible(lower, |d| {
                if !is_combining_mark(d) {
                    for l in d.to_lowercase() {
                        out.push(l);
                    }
                }
            });
        }
    }
}

/// Letters ICU folds that Unicode decomposition leaves alone, and the typographic
/// quotes it maps to ASCII.
fn special_fold(c: char) -> Option<&'static str> {
    Some(match c {
        'ß' | 'ẞ' => "ss",
        'æ' | 'Æ' => "ae",
        'œ' | 'Œ' => "oe",
        'ø' | 'Ø' => "o",
        'đ' | 'Đ' | 'ð' | 'Ð' => "d",
        'ł' | 'Ł' => "l",
        'þ' | 'Þ' => "th",
        'ı' => "i",
        'ħ' | 'Ħ' => "h",
        'ŧ' | 'Ŧ' => "t",
        '\u{2018}' | '\u{2019}' | '\u{02BC}' => "'",
        '\u{201C}' | '\u{201D}' => "\"",
        _ => return None,
    })
}

/// FOLIO's `keyword_icu` normaliser: the whole value trimmed, lowercased and folded,
/// cut at [`MAX_PLAIN_BYTES`].
pub(crate) fn plain(value: &str) -> String {
    let mut out = fold(value.trim()).into_owned();
    truncate(&mut out, MAX_PLAIN_BYTES);
    out
}

/// FOLIO's `keyword_lowercase` normaliser: trimmed and lowercased, accents kept.
pub(crate) fn lowercase(value: &str) -> String {
    let mut out = value.trim().to_lowercase();
    truncate(&mut out, MAX_PLAIN_BYTES);
    out
}

pub(crate) fn truncate(s: &mut String, max: usize) {
    if s.len() > max {
        let mut end = max;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        s.truncate(end);
    }
}

/// The value reversed by characters: a suffix pattern on the value is a prefix
/// pattern on this.
pub(crate) fn reversed(value: &str) -> String {
    value.chars().rev().collect()
}

/// One word of text as the source analyser sees it: its word-delimiter parts (folded),
/// and the parts' letters run together when the word has two or more letter parts
/// (`pang'ok` → parts `pang`, `ok`; catenated `pangok`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Word {
    pub(crate) parts: Vec<String>,
    pub(crate) catenated: Option<String>,
}

/// Splits text into words the way `source_analyzer` does.
pub(crate) fn words(text: &str) -> Vec<Word> {
    let mut out = Vec::new();
    let mut buf = WordBuf::default();
    each_word(text, &mut buf, |word| {
        out.push(Word {
            parts: word.parts().iter().map(|p| p.to_string()).collect(),
            catenated: word.catenated().map(str::to_string),
        });
    });
    out
}

/// The analysis of one word, in buffers reused from word to word: indexing runs this
/// for every word of every record, and fresh strings per part cost more than the
/// splitting itself.
#[derive(Debug, Clone, Default)]
pub(crate) struct WordBuf {
    /// Folded parts; the first `len` are this word's.
    parts: Vec<String>,
    /// Whether each part is letters (not digits).
    alpha: Vec<bool>,
    len: usize,
    catenated: String,
    has_catenated: bool,
}

impl WordBuf {
    pub(crate) fn parts(&self) -> &[String] {
        &self.parts[..self.len]
    }

    pub(crate) fn catenated(&self) -> Option<&str> {
        self.has_catenated.then_some(self.catenated.as_str())
    }

    fn push_part(&mut self, raw: &str, alpha: bool) {
        if raw.is_empty() {
            return;
        }
        if self.len == self.parts.len() {
            self.parts.push(String::new());
            self.alpha.push(false);
        }
        let part = &mut self.parts[self.len];
        part.clear();
        fold_into(raw, part);
        // A part that folds to nothing (a combining mark split off its letter, as in
        // `Lohle-\u{301}Tart`) is no part: kept, it would make the catenation equal a
        // part, the same term at a later and then an earlier position, which the index
        // cannot record.
        if part.is_empty() {
            return;
        }
        self.alpha[self.len] = alpha;
        self.len += 1;
    }
}

/// Calls `f` with each word of `text` as the source analyser splits it.
pub(crate) fn each_word(text: &str, buf: &mut WordBuf, mut f: impl FnMut(&WordBuf)) {
    let text = replace_ampersand(text);
    each_raw_word(&text, |raw| {
        delimit(raw, buf);
        if buf.len > 0 {
            f(buf);
        }
    });
}

/// The whitespace analyser: split on whitespace, lowercase and fold each piece.
pub(crate) fn whitespace_words(text: &str) -> Vec<String> {
    text.split_whitespace().map(|w| fold(w).into_owned()).collect()
}

/// The English stem of a folded word, when it differs from the word.
pub(crate) fn stem(word: &str) -> Option<String> {
    with_stem(word, str::to_string)
}

/// `f` of the English stem of a folded word, when the stem differs from the word: the
/// analysers' form of [`stem`], which lends the stem instead of allocating it.
///
/// Each thread remembers the stems it has computed: a catalogue's words repeat (titles,
/// subjects, notes), and a lookup costs a fraction of running the Snowball rules again.
pub(crate) fn with_stem<R>(word: &str, f: impl FnOnce(&str) -> R) -> Option<R> {
    /// Entries kept per thread before the memory is emptied and filled again.
    const CACHE_CAPACITY: usize = 1 << 16;
    thread_local! {
        static STEMMER: frostem::Stemmer = frostem::Stemmer::new(frostem::Algorithm::English);
        static CACHE: RefCell<FxHashMap<Box<str>, Option<Box<str>>>> = RefCell::default();
    }
    if word.len() < 3 || !word.bytes().all(|b| b.is_ascii_lowercase()) {
        return None;
    }
    CACHE.with_borrow_mut(|cache| {
        if let Some(stemmed) = cache.get(word) {
            return stemmed.as_deref().map(f);
        }
        let stemmed: Option<Box<str>> = STEMMER.with(|s| match s.stem(word) {
            Cow::Borrowed(same) if same == word => None,
            Cow::Owned(stemmed) if stemmed != word => Some(stemmed.into()),
            _ => None,
        });
        if cache.len() >= CACHE_CAPACITY {
            cache.clear();
        }
        let out = stemmed.as_deref().map(f);
        cache.insert(word.into(), stemmed);
        out
    })
}

pub(crate) fn is_stopword(word: &str) -> bool {
    ENGLISH_STOPWORDS.binary_search(&word).is_ok()
}

fn replace_ampersand(text: &str) -> Cow<'_, str> {
    if text.contains(" & ") {
        Cow::Owned(text.replace(" & ", " and "))
    } else {
        Cow::Borrowed(text)
    }
}

/// Word boundaries after UAX #29 for alphabetic scripts and digits: calls `f` with
/// each word, a slice of `text`.
fn each_raw_word<'t>(text: &'t str, mut f: impl FnMut(&'t str)) {
    let mut chars = text.char_indices().peekable();
    while let Some((start, first)) = chars.next() {
        if !is_word_char(first) {
            continue;
        }
        let mut last = first;
        let mut end = start + first.len_utf8();
        while let Some(&(at, next)) = chars.peek() {
            if is_word_char(next) {
                chars.next();
                (last, end) = (next, at + next.len_utf8());
                continue;
            }
            // A joiner between two word characters keeps the word going.
            let after_at = at + next.len_utf8();
            match text[after_at..].chars().next() {
                Some(after) if is_word_char(after) && joins(last, next, after) => {
                    chars.next();
                    chars.next();
                    (last, end) = (after, after_at + after.len_utf8());
                }
                _ => break,
            }
        }
        f(&text[start..end]);
    }
}

/// Whether `joiner` between the word characters `before` and `after` joins them into
/// one word.
fn joins(before: char, joiner: char, after: char) -> bool {
    let letters = before.is_alphabetic() && after.is_alphabetic();
    let digits = before.is_numeric() && after.is_numeric();
    match joiner {
        '_' => true,
        '\'' | '\u{2019}' => letters || digits,
        '.' => letters || digits,
        ':' => letters,
        ',' | ';' => digits,
        _ => false,
    }
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || is_combining_mark(c)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Lower,
    Upper,
    Digit,
    Other,
}

fn class(c: char) -> Class {
    if c.is_numeric() {
        Class::Digit
    } else if c.is_uppercase() {
        Class::Upper
    } else if c.is_alphabetic() || is_combining_mark(c) {
        Class::Lower
    } else {
        Class::Other
    }
}

/// `word_delimiter_graph` with `catenate_words`: split on non-alphanumerics, on a
/// lower-to-upper case change and between letters and digits; drop a trailing English
/// possessive `'s`; run two or more consecutive letter parts together. The parts go
/// to `buf`, folded.
fn delimit(word: &str, buf: &mut WordBuf) {
    buf.len = 0;
    buf.has_catenated = false;
    // The current part is `word[from..at]`, all of class `prev`.
    let mut from = 0;
    let mut prev = Class::Other;
    let mut end = word.len();
    for (at, c) in word.char_indices() {
        let cls = class(c);
        if cls == Class::Other {
            // A possessive `'s` at the end of the word is dropped, as WDG does.
            if (c == '\'' || c == '\u{2019}') && matches!(&word[at + c.len_utf8()..], "s" | "S") {
                end = at;
                break;
            }
            buf.push_part(&word[from..at], prev != Class::Digit);
            from = at + c.len_utf8();
            prev = Class::Other;
            continue;
        }
        let boundary = match (prev, cls) {
            (Class::Lower, Class::Upper) => true,
            (Class::Digit, Class::Lower | Class::Upper) => true,
            (Class::Lower | Class::Upper, Class::Digit) => true,
            // `ABCdef`: WDG splits "ABC" + "def"? It keeps "ABCdef" as "AB" "Cdef"; the
            // difference only matters for acronyms followed by words and is ignored.
            _ => false,
        };
        if boundary {
            buf.push_part(&word[from..at], prev != Class::Digit);
            from = at;
        }
        prev = cls;
    }
    buf.push_part(&word[from..end], prev != Class::Digit);

    // Catenate the first run of two or more letter parts, which for ordinary words is
    // the whole word (`pang'ok`, `testCirculationNote`, `item_accession_number`).
    let mut run = 0..0;
    for i in 0..buf.len {
        if buf.alpha[i] {
            run.end = i + 1;
        } else {
            if run.len() >= 2 {
                break;
            }
            run = i + 1..i + 1;
        }
    }
    if run.len() >= 2 {
        buf.catenated.clear();
        for part in &buf.parts[run] {
            buf.catenated.push_str(part);
        }
        buf.has_catenated = true;
    }
}

/// Registers Quire's analysers on an index under the names the schema uses.
pub(crate) fn register(index: &tantivy::Index) {
    let manager = index.tokenizers();
    manager.register(TEXT, Analyzer::new(Kind::Text));
    manager.register(STEMMED, Analyzer::new(Kind::Stemmed));
    manager.register(WHITESPACE, Analyzer::new(Kind::Whitespace));
}

/// A value of a stemmed field as a record not in English is indexed: its tokens as the
/// plain text analyser makes them, with no English stems (mod-search writes its English
/// sub-fields only for records whose languages include English).
pub(crate) fn unstemmed(value: &str) -> tantivy::tokenizer::PreTokenizedString {
    thread_local! {
        static ANALYZER: RefCell<Analyzer> = RefCell::new(Analyzer::new(Kind::Text));
    }
    let tokens = ANALYZER.with(|analyzer| {
        let mut analyzer = analyzer.borrow_mut();
        let mut stream = analyzer.token_stream(value);
        let mut tokens = Vec::new();
        while stream.advance() {
            tokens.push(stream.token().clone());
        }
        tokens
    });
    tantivy::tokenizer::PreTokenizedString { text: value.to_string(), tokens }
}

pub(crate) const TEXT: &str = "quire_text";
pub(crate) const STEMMED: &str = "quire_stemmed";
pub(crate) const WHITESPACE: &str = "quire_whitespace";

#[derive(Clone, Copy, Debug)]
pub(crate) enum Kind {
    Text,
    Stemmed,
    Whitespace,
}

/// The analysers as tantivy tokenizers. Each computes a value's tokens up front into a
/// buffer it keeps, so indexing allocates no token per value once warmed up.
#[derive(Clone, Debug)]
pub(crate) struct Analyzer {
    kind: Kind,
    tokens: TokenBuf,
    word: WordBuf,
}

impl Analyzer {
    pub(crate) fn new(kind: Kind) -> Analyzer {
        Analyzer { kind, tokens: TokenBuf::default(), word: WordBuf::default() }
    }
}

/// Tokens kept from value to value; the first `len` are the current value's.
#[derive(Clone, Debug, Default)]
struct TokenBuf {
    tokens: Vec<Token>,
    len: usize,
}

impl TokenBuf {
    fn push(&mut self, position: usize, text: &str) {
        if self.len == self.tokens.len() {
            self.tokens.push(Token::default());
        }
        let token = &mut self.tokens[self.len];
        token.position = position;
        token.position_length = 1;
        token.text.clear();
        token.text.push_str(text);
        self.len += 1;
    }
}

pub(crate) struct Tokens<'a> {
    tokens: &'a mut [Token],
    idx: usize,
}

impl Tokenizer for Analyzer {
    type TokenStream<'a> = Tokens<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> Tokens<'a> {
        let Analyzer { kind, tokens, word } = self;
        tokens.len = 0;
        match kind {
            Kind::Text | Kind::Stemmed => {
                let stemmed = matches!(kind, Kind::Stemmed);
                let mut position = 0;
                each_word(text, word, |word| {
                    let first = position;
                    for part in word.parts() {
                        if stemmed {
                            with_stem(part, |s| tokens.push(position, s));
                        }
                        tokens.push(position, part);
                        position += 1;
                    }
                    if let Some(cat) = word.catenated() {
                        if stemmed {
                            with_stem(cat, |s| tokens.push(first, s));
                        }
                        tokens.push(first, cat);
                    }
                });
            }
            Kind::Whitespace => {
                for (position, word) in text.split_whitespace().enumerate() {
                    let folded = fold(word);
                    tokens.push(position, &folded);
                }
            }
        }
        Tokens { tokens: &mut tokens.tokens[..tokens.len], idx: usize::MAX }
    }
}

impl TokenStream for Tokens<'_> {
    fn advance(&mut self) -> bool {
        self.idx = self.idx.wrapping_add(1);
        self.idx < self.tokens.len()
    }

    fn token(&self) -> &Token {
        &self.tokens[self.idx]
    }

    fn token_mut(&mut self) -> &mut Token {
        &mut self.tokens[self.idx]
    }
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};

    use super::{Analyzer, Kind, fold, words};
    use tantivy::tokenizer::{TokenStream, Tokenizer};

    fn check(text: &str, expect: Expect) {
        let mut analyzer = Analyzer::new(Kind::Stemmed);
        let mut stream = analyzer.token_stream(text);
        let mut out = Vec::new();
        while stream.advance() {
            let t = stream.token();
            out.push(format!("{}:{}", t.position, t.text));
        }
        expect.assert_eq(&out.join(" "));
    }

    #[test]
    fn source_analyzer() {
        check("Déjà Vu", expect![["0:deja 1:vu"]]);
        check(
            "Pang'ok bangk'asyurangsŭ",
            expect![["0:pang 1:ok 0:pangok 2:bangk 3:asyurangsu 2:bangkasyurangsu"]],
        );
        check(
            "A sem\\ntic web primer :0747-0850 & wolves",
            expect![["0:a 1:sem 2:ntic 3:web 4:primer 5:0747 6:0850 7:and 8:wolv 8:wolves"]],
        );
        check(
            "testCirculationNote",
            expect![[
                "0:test 1:circul 1:circulation 2:note 0:testcirculationnot 0:testcirculationnote"
            ]],
        );
        check("Holding's v2.0 047144250X", expect!["0:hold 0:holding 1:v 2:2 3:0 4:047144250 5:x"]);
        check(
            "item_accession_number",
            expect![
                "0:item 1:access 1:accession 2:number 0:itemaccessionnumb 0:itemaccessionnumber"
            ],
        );
        check("Straße, ØRE; 1,000.5", expect!["0:strass 0:strasse 1:ore 2:1 3:000 4:5"]);
        // A combining mark cut off its letter by a hyphen (a generated contributor).
        check("Lohle-\u{301}Tart, Louis.", expect!["0:lohl 0:lohle 1:tart 2:loui 2:louis"]);
    }

    #[test]
    fn folding_and_grams() {
        assert_eq!(fold("ASYURANGSŬ"), "asyurangsu");
        assert_eq!(fold("plain ascii"), "plain ascii");
        assert_eq!(words("").len(), 0);
    }
}
