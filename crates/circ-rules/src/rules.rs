//! Compiled circulation rules and the policy lookup. It owns ranking (the
//! priority line) and matching an item against rules; it does not parse
//! text (`parser.rs`) or know whether a policy id exists (the caller checks
//! [`Rules::policy_references`]).
//!
//! Compiling flattens the rule tree into one list of rules, each with the
//! conjunction of its own and its parents' criteria, sorted by FOLIO's
//! priority once, best first, with the fallback last. A lookup then takes
//! the first rule whose criteria all hold. Names are interned to integers at
//! compile time, so a lookup hashes each item value once and compares
//! integers; it allocates nothing (`lookup_all` allocates its result).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use crate::error::{Error, Result};
use crate::parser::{self, Regulation, Selector};

/// The criterion types, one per letter of the rules language.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Field {
    PatronGroup,
    MaterialType,
    LoanType,
    Institution,
    Campus,
    Library,
    Location,
}

impl Field {
    pub(crate) const COUNT: usize = 7;
    const ALL: [Field; Field::COUNT] = [
        Field::PatronGroup,
        Field::MaterialType,
        Field::LoanType,
        Field::Institution,
        Field::Campus,
        Field::Library,
        Field::Location,
    ];

    pub(crate) fn from_letter(letter: &str) -> Option<Field> {
        Some(match letter {
            "g" => Field::PatronGroup,
            "m" => Field::MaterialType,
            "t" => Field::LoanType,
            "a" => Field::Institution,
            "b" => Field::Campus,
            "c" => Field::Library,
            "s" => Field::Location,
            _ => return None,
        })
    }

    #[cfg(test)]
    fn letter(self) -> char {
        b"gmtabcs"[self as usize] as char
    }

    /// The location letters `a b c s` count as one criterion type for
    /// `number-of-criteria` (FOLIO `Text2Drools.addCriterium`).
    fn specificity_class(self) -> usize {
        (self as usize).min(Field::Institution as usize)
    }
}

/// The five kinds of policy every rule names, in FOLIO's letter order
/// `l r n o i`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PolicyKind {
    /// `l`: loan policy.
    Loan,
    /// `r`: request policy.
    Request,
    /// `n`: patron notice policy.
    Notice,
    /// `o`: overdue fine policy.
    OverdueFine,
    /// `i`: lost item fee policy.
    LostItem,
}

impl PolicyKind {
    pub(crate) const COUNT: usize = 5;
    /// Every kind, in FOLIO's checking order.
    pub const ALL: [PolicyKind; PolicyKind::COUNT] = [
        PolicyKind::Loan,
        PolicyKind::Request,
        PolicyKind::Notice,
        PolicyKind::OverdueFine,
        PolicyKind::LostItem,
    ];

    /// The letter that names the kind in rules text.
    pub fn letter(self) -> char {
        b"lrnoi"[self as usize] as char
    }
}

/// What a lookup matches rules against: the patron's group and the item's
/// types and effective location, as ids (or whatever names the rules use).
///
/// An empty `institution`, `campus` or `library` means the location's
/// hierarchy is unknown: as in FOLIO, which then inserts no such fact, no
/// `a`/`b`/`c` criterion matches it, not even `all` or a negation. The other
/// values are always present; an empty one simply equals no name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Criteria<'a> {
    pub patron_group: &'a str,
    pub material_type: &'a str,
    pub loan_type: &'a str,
    pub institution: &'a str,
    pub campus: &'a str,
    pub library: &'a str,
    pub location: &'a str,
}

impl<'a> Criteria<'a> {
    fn get(&self, field: Field) -> &'a str {
        match field {
            Field::PatronGroup => self.patron_group,
            Field::MaterialType => self.material_type,
            Field::LoanType => self.loan_type,
            Field::Institution => self.institution,
            Field::Campus => self.campus,
            Field::Library => self.library,
            Field::Location => self.location,
        }
    }
}

/// Which criterion types the winning rule (with its parent lines) tests:
/// FOLIO's `appliedRuleConditions` (`materialTypeMatch`, `loanTypeMatch`,
/// `patronGroupMatch`). `all` and negations count. All false for the
/// fallback policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AppliedConditions {
    pub material_type: bool,
    pub loan_type: bool,
    pub patron_group: bool,
}

/// A rule that matched: the policy of the asked kind and where it came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Match<'a> {
    pub policy_id: &'a str,
    /// The 1-based line of the rule's policies (FOLIO's
    /// `circulationRuleLine`); the fallback-policy line for the fallback.
    pub line: usize,
    pub conditions: AppliedConditions,
}

impl Match<'_> {
    /// Whether a loan policy's `itemLimit` applies at all: FOLIO checks it
    /// only when the winning rule tests the material type or the loan type
    /// (`ItemLimitValidator.isLimitReached`).
    pub fn item_limit_applies(&self) -> bool {
        self.conditions.material_type || self.conditions.loan_type
    }

    /// Whether another open loan of the patron, on an item with
    /// `other_material_type` and `other_loan_type`, counts toward the
    /// `itemLimit` when checking out `item`. As in FOLIO, it counts when it
    /// has the same material type as `item` if the rule tests `m`, and the
    /// same loan type if the rule tests `t`, whatever names the rule lists.
    pub fn counts_toward_item_limit(
        &self,
        item: &Criteria<'_>,
        other_material_type: &str,
        other_loan_type: &str,
    ) -> bool {
        (!self.conditions.material_type || item.material_type == other_material_type)
            && (!self.conditions.loan_type || item.loan_type == other_loan_type)
    }
}

/// A policy id named in the rules, with the position FOLIO reports when it
/// does not exist: the line and 0-based column of the `:` before the line's
/// policies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PolicyRef<'a> {
    pub kind: PolicyKind,
    pub policy_id: &'a str,
    pub line: usize,
    pub column: usize,
    /// Byte offset of that `:`.
    pub offset: usize,
}

impl PolicyRef<'_> {
    /// FOLIO's error for a policy id that names no policy of its kind.
    pub fn not_found(&self) -> Error {
        let message = format!("The policy {} does not exist", self.kind.letter());
        Error::new(self.line, self.column, self.offset, message)
    }
}

/// Interned name ids for values no rule names, and for absent values.
const UNKNOWN: u32 = u32::MAX - 1;
const ABSENT: u32 = u32::MAX;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Test {
    // Declared most selective first: a rule's conditions are sorted by this,
    // so a lookup rejects most rules at their first condition.
    AnyOf,
    NoneOf,
    All,
}

/// One criterium of a rule; its names are `ids[start..start + len]` of
/// [`Rules::names`]. Everything a lookup touches lies in two flat arrays
/// rather than a boxed slice per condition, so a scan does not chase
/// pointers (not yet measured on an idle machine: see the README).
#[derive(Debug, Clone, Copy)]
struct Condition {
    test: Test,
    field: Field,
    start: u32,
    len: u32,
}

#[derive(Debug, Clone)]
struct Rule {
    /// This rule's conditions are `conditions[start..end]` of [`Rules`].
    conditions: (u32, u32),
    policies: [Box<str>; PolicyKind::COUNT],
    line: usize,
    colon_col: usize,
    colon_offset: usize,
    applied: AppliedConditions,
    /// FOLIO's salience as (first regulation, second regulation, line
    /// order); larger wins.
    key: (u8, u8, i64),
}

/// Compiled circulation rules: immutable, `Send + Sync`, cheap to query.
#[derive(Debug, Clone)]
pub struct Rules {
    // Invariant: sorted by `key`, best first; the fallback is the last
    // rule and has no conditions, so every lookup matches something.
    rules: Box<[Rule]>,
    conditions: Box<[Condition]>,
    /// Interned names of all conditions, back to back.
    names: Box<[u32]>,
    ids: HashMap<Box<str>, u32, BuildHasherDefault<Fnv>>,
    /// Criterion types some rule tests; the others are not looked up.
    used_fields: [bool; Field::COUNT],
}

impl Rules {
    /// Parses and checks `text` as FOLIO's `PUT /circulation/rules` does
    /// (except for policy existence: see [`Rules::policy_references`]).
    pub fn compile(text: &str) -> Result<Rules> {
        let parsed = parser::parse(text)?;
        let priority = parsed.priority;
        let mut ids: HashMap<Box<str>, u32, BuildHasherDefault<Fnv>> = HashMap::default();
        let mut all_conditions = Vec::new();
        let mut all_names = Vec::new();
        let mut used_fields = [false; Field::COUNT];
        let mut rules = Vec::with_capacity(parsed.rules.len());
        for raw in &parsed.rules {
            let mut applied = AppliedConditions::default();
            let mut classes = [false; Field::COUNT];
            let mut max_rank = 0;
            let mut conditions = Vec::with_capacity(raw.conditions.len());
            for condition in &raw.conditions {
                let field = condition.field;
                used_fields[field as usize] = true;
                classes[field.specificity_class()] = true;
                max_rank = max_rank.max(priority.ranks[field as usize]);
                match field {
                    Field::MaterialType => applied.material_type = true,
                    Field::LoanType => applied.loan_type = true,
                    Field::PatronGroup => applied.patron_group = true,
                    _ => {}
                }
                let (test, names): (_, &[&str]) = match &condition.selector {
                    Selector::All => (Test::All, &[]),
                    Selector::AnyOf(names) => (Test::AnyOf, names),
                    Selector::NoneOf(names) => (Test::NoneOf, names),
                };
                let start = all_names.len() as u32;
                for &name in names {
                    let next = ids.len() as u32;
                    all_names.push(*ids.entry(name.into()).or_insert(next));
                }
                let len = names.len() as u32;
                conditions.push(Condition { test, field, start, len });
            }
            conditions.sort_by_key(|c| c.test);
            let span =
                (all_conditions.len() as u32, (all_conditions.len() + conditions.len()) as u32);
            all_conditions.extend(conditions);
            let n_criteria = classes.iter().filter(|&&c| c).count() as u8;
            let value = |regulation| match regulation {
                // FOLIO gives the fallback rule no criteria at all.
                _ if raw.is_fallback => 0,
                Regulation::None => 0,
                Regulation::Criterium => max_rank,
                Regulation::NumberOfCriteria => n_criteria,
            };
            let line = raw.line as i64;
            let line_key = if priority.last_line { line } else { -line };
            rules.push(Rule {
                conditions: span,
                policies: raw.policies.map(|p| p.name.into()),
                line: raw.line,
                colon_col: raw.colon_col,
                colon_offset: raw.colon_offset,
                applied,
                key: (value(priority.first), value(priority.second), line_key),
            });
        }
        let mut order: Vec<u32> = (0..rules.len() as u32).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(rules[i as usize].key));
        let mut slots: Vec<Option<Rule>> = rules.into_iter().map(Some).collect();
        let rules = order.iter().map(|&i| slots[i as usize].take().expect("each once")).collect();
        Ok(Rules {
            rules,
            conditions: all_conditions.into(),
            names: all_names.into(),
            ids,
            used_fields,
        })
    }

    fn values(&self, item: &Criteria<'_>) -> [u32; Field::COUNT] {
        let mut values = [UNKNOWN; Field::COUNT];
        for field in Field::ALL {
            if !self.used_fields[field as usize] {
                continue;
            }
            let value = item.get(field);
            let hierarchy = matches!(field, Field::Institution | Field::Campus | Field::Library);
            values[field as usize] = if hierarchy && value.is_empty() {
                ABSENT
            } else {
                self.ids.get(value).copied().unwrap_or(UNKNOWN)
            };
        }
        values
    }

    fn matching<'r>(&'r self, item: &Criteria<'_>) -> impl Iterator<Item = &'r Rule> {
        let values = self.values(item);
        self.rules.iter().filter(move |rule| {
            let (start, end) = rule.conditions;
            self.conditions[start as usize..end as usize].iter().all(|c| {
                let value = values[c.field as usize];
                let names = &self.names[c.start as usize..(c.start + c.len) as usize];
                match c.test {
                    Test::All => value != ABSENT,
                    Test::AnyOf => names.contains(&value),
                    Test::NoneOf => value != ABSENT && !names.contains(&value),
                }
            })
        })
    }

    /// The policy of `kind` that applies to `item`: the best matching rule's,
    /// or the fallback policy (FOLIO's `/circulation/rules/loan-policy` etc.).
    pub fn lookup(&self, kind: PolicyKind, item: &Criteria<'_>) -> Match<'_> {
        let rule = self.matching(item).next().expect("the fallback rule always matches");
        rule.to_match(kind)
    }

    /// Every matching rule's policy of `kind`, best first, ending with the
    /// fallback policy (FOLIO's `/circulation/rules/loan-policy-all` etc.).
    pub fn lookup_all(&self, kind: PolicyKind, item: &Criteria<'_>) -> Vec<Match<'_>> {
        self.matching(item).map(|rule| rule.to_match(kind)).collect()
    }

    /// Every policy id the rules name, in document order and, within a line,
    /// in FOLIO's `l r n o i` order, so the first one that does not exist is
    /// the one FOLIO reports ([`PolicyRef::not_found`]).
    pub fn policy_references(&self) -> impl Iterator<Item = PolicyRef<'_>> {
        let mut by_line: Vec<&Rule> = self.rules.iter().collect();
        by_line.sort_by_key(|rule| rule.colon_offset);
        by_line.into_iter().flat_map(|rule| {
            PolicyKind::ALL.into_iter().map(move |kind| PolicyRef {
                kind,
                policy_id: &rule.policies[kind as usize],
                line: rule.line,
                column: rule.colon_col,
                offset: rule.colon_offset,
            })
        })
    }

    /// The compiled rules in priority order, one per line, with each rule's
    /// conditions in the order a lookup tests them, for tests.
    #[cfg(test)]
    pub(crate) fn dump(&self) -> String {
        let mut names = vec![""; self.ids.len()];
        for (name, &id) in &self.ids {
            names[id as usize] = name;
        }
        let mut out = String::new();
        for rule in self.rules.iter() {
            let (start, end) = rule.conditions;
            let conditions = self.conditions[start as usize..end as usize]
                .iter()
                .map(|c| {
                    let ids = &self.names[c.start as usize..(c.start + c.len) as usize];
                    let list = |ids: &[u32], bang: &str| {
                        ids.iter()
                            .map(|&i| format!("{bang}{}", names[i as usize]))
                            .collect::<Vec<_>>()
                            .join(" ")
                    };
                    let test = match c.test {
                        Test::All => "all".to_owned(),
                        Test::AnyOf => list(ids, ""),
                        Test::NoneOf => list(ids, "!"),
                    };
                    format!("{} {test}", c.field.letter())
                })
                .collect::<Vec<_>>()
                .join(" + ");
            let policies = PolicyKind::ALL
                .map(|k| format!("{} {}", k.letter(), rule.policies[k as usize]))
                .join(" ");
            let (a, b, line) = rule.key;
            let conditions = if conditions.is_empty() { "fallback".to_owned() } else { conditions };
            out.push_str(&format!("L{} [{a} {b} {line}] {conditions}: {policies}\n", rule.line));
        }
        out
    }
}

impl Rule {
    fn to_match(&self, kind: PolicyKind) -> Match<'_> {
        Match {
            policy_id: &self.policies[kind as usize],
            line: self.line,
            conditions: self.applied,
        }
    }
}

/// FNV-1a: ids are short and hashed once per lookup, where SipHash's setup
/// cost would dominate; the keys are rule names, not attacker-chosen input
/// that could flood one bucket (and at worst a lookup gets slower).
#[derive(Default)]
pub(crate) struct Fnv(u64);

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut hash = if self.0 == 0 { 0xcbf2_9ce4_8422_2325 } else { self.0 };
        for &b in bytes {
            hash = (hash ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
        self.0 = hash;
    }
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};

    use super::*;

    const INST_1: &str = "3d22d91c-cf1d-11e9-bb65-2a2ae2dbcce4";
    const INST_2: &str = "3d22d91c-cf1d-11e9-bb65-2a2ae2dbcce5";
    const LIB_1: &str = "aa59f830-cfea-11e9-bb65-2a2ae2dbcce4";
    const CAMPUS_1: &str = "692dbd8c-9804-4281-9fd1-8ce601d7c6a3";

    /// Compiles `text` and looks up each item, written as
    /// `group material loan-type institution campus library location`
    /// (`-` for an empty value). Shows the winning loan policy with its
    /// line and applied conditions, then every match best first.
    fn check(text: &str, items: &[&str], expect: Expect) {
        let rules = Rules::compile(text).unwrap_or_else(|e| panic!("{e}"));
        let mut out = String::new();
        for item in items {
            let v: Vec<&str> =
                item.split_whitespace().map(|v| if v == "-" { "" } else { v }).collect();
            let criteria = Criteria {
                patron_group: v[0],
                material_type: v[1],
                loan_type: v[2],
                institution: v[3],
                campus: v[4],
                library: v[5],
                location: v[6],
            };
            let winner = rules.lookup(PolicyKind::Loan, &criteria);
            let all = rules.lookup_all(PolicyKind::Loan, &criteria);
            assert_eq!(all[0], winner);
            let c = winner.conditions;
            let flags = [(c.material_type, 'm'), (c.loan_type, 't'), (c.patron_group, 'g')]
                .iter()
                .map(|&(on, letter)| if on { letter } else { '-' })
                .collect::<String>();
            let all = all.iter().map(|m| format!("{}@{}", m.policy_id, m.line)).collect::<Vec<_>>();
            let short = |s: &'static str, name| item.replace(s, name);
            let item = short(INST_1, "INST_1");
            let item = item
                .replace(INST_2, "INST_2")
                .replace(LIB_1, "LIB_1")
                .replace(CAMPUS_1, "CAMPUS_1");
            let _ = short;
            out.push_str(&format!(
                "{item} => {}@{} {flags} | {}\n",
                winner.policy_id,
                winner.line,
                all.join(" ")
            ));
        }
        expect.assert_eq(&out);
    }

    fn policies(n: &str) -> String {
        format!("l loan-{n} r request-{n} n notice-{n} o overdue-{n} i lost-{n}")
    }

    #[test]
    fn criterium_priority_takes_the_highest_criterion_type() {
        // FOLIO's doc, "Criterium type priority", example a: the only rule
        // with a `t` beats the `g` and `m` rules, whatever their lines.
        let text = format!(
            "priority: criterium(t, s, c, b, a, m, g), number-of-criteria, last-line\nfallback-policy: {}\ng visitor: {}\nt rare: {}\nm book: {}",
            policies("none"),
            policies("a"),
            policies("c"),
            policies("e")
        );
        check(
            &text,
            &["visitor book rare - - - shelf", "visitor book regular - - - shelf"],
            expect![[r#"
                visitor book rare - - - shelf => loan-c@4 -t- | loan-c@4 loan-e@5 loan-a@3 loan-none@2
                visitor book regular - - - shelf => loan-e@5 m-- | loan-e@5 loan-a@3 loan-none@2
            "#]],
        );
    }

    #[test]
    fn indented_lines_inherit_their_parents_criteria() {
        // FOLIO's doc, example b: nested rules rank by the highest criterion
        // type of the line and its parents (b, c, d all reach `t`), then by
        // the number of criterion types (b and d have two), then the later
        // line (d).
        let text = format!(
            "priority: criterium(t, s, c, b, a, m, g), number-of-criteria, last-line\nfallback-policy: {}\ng visitor: {}\n    t rare: {}\nt rare: {}\n    m book: {}\nm book: {}",
            policies("none"),
            policies("a"),
            policies("b"),
            policies("c"),
            policies("d"),
            policies("e")
        );
        check(
            &text,
            &[
                "visitor book rare - - - shelf",
                "visitor dvd rare - - - shelf",
                "staff book rare - - - shelf",
                "staff dvd regular - - - shelf",
            ],
            expect![[r#"
                visitor book rare - - - shelf => loan-d@6 mt- | loan-d@6 loan-b@4 loan-c@5 loan-e@7 loan-a@3 loan-none@2
                visitor dvd rare - - - shelf => loan-b@4 -tg | loan-b@4 loan-c@5 loan-a@3 loan-none@2
                staff book rare - - - shelf => loan-d@6 mt- | loan-d@6 loan-c@5 loan-e@7 loan-none@2
                staff dvd regular - - - shelf => loan-none@2 --- | loan-none@2
            "#]],
        );
    }

    #[test]
    fn number_of_criteria_breaks_ties_and_all_counts() {
        // FOLIO's doc, "Rule specificity priority": with `t` on every rule,
        // two criterion types beat one, and the later of b and d wins. An
        // `all` criterion matches anything yet counts as a criterion type,
        // so the last rule (three types) wins for items at course-reserve.
        let head = format!(
            "priority: criterium(t, s, c, b, a, m, g), number-of-criteria, last-line\nfallback-policy: {}\ng visitor + t rare: {}\nt rare: {}\nt rare + m book: {}\n",
            policies("none"),
            policies("b"),
            policies("c"),
            policies("d")
        );
        check(
            &head,
            &["visitor book rare - - - shelf", "staff dvd rare - - - shelf"],
            expect![[r#"
                visitor book rare - - - shelf => loan-d@5 mt- | loan-d@5 loan-b@3 loan-c@4 loan-none@2
                staff dvd rare - - - shelf => loan-c@4 -t- | loan-c@4 loan-none@2
            "#]],
        );
        let text = format!("{head}g all + t all + s course-reserve: {}", policies("e"));
        check(
            &text,
            &["visitor book rare - - - course-reserve", "staff dvd regular - - - course-reserve"],
            expect![[r#"
                visitor book rare - - - course-reserve => loan-e@6 -tg | loan-e@6 loan-d@5 loan-b@3 loan-c@4 loan-none@2
                staff dvd regular - - - course-reserve => loan-e@6 -tg | loan-e@6 loan-none@2
            "#]],
        );
    }

    #[test]
    fn line_order_decides_last_ties() {
        // FOLIO's doc, "Line number priority": same top type, same count;
        // `last-line` takes the later rule, `first-line` the earlier.
        let rules =
            format!("g visitor + t rare: {}\nt rare + m book: {}", policies("b"), policies("d"));
        let fallback = format!("fallback-policy: {}", policies("none"));
        let item = ["visitor book rare - - - shelf"];
        check(
            &format!(
                "priority: criterium(t, s, c, b, a, m, g), number-of-criteria, last-line\n{fallback}\n{rules}"
            ),
            &item,
            expect![[r#"
                visitor book rare - - - shelf => loan-d@4 mt- | loan-d@4 loan-b@3 loan-none@2
            "#]],
        );
        check(
            &format!(
                "priority: criterium(t, s, c, b, a, m, g), number-of-criteria, first-line\n{fallback}\n{rules}"
            ),
            &item,
            expect![[r#"
                visitor book rare - - - shelf => loan-b@3 -tg | loan-b@3 loan-d@4 loan-none@2
            "#]],
        );
        // `priority: last-line` alone: only the line counts.
        check(
            &format!("priority: last-line\n{fallback}\n{rules}\ng visitor: {}", policies("a")),
            &item,
            expect![[r#"
                visitor book rare - - - shelf => loan-a@5 --g | loan-a@5 loan-d@4 loan-b@3 loan-none@2
            "#]],
        );
        // `priority: first-line` alone puts the fallback after the rules; the
        // parent line without policies is not a rule of its own (FOLIO's
        // Text2DroolsTest.firstLine).
        check(
            &format!(
                "priority: first-line\ng visitor\n  t special-items: {}\nm book: {}\n{fallback}\n\n",
                policies("in-house"),
                policies("b")
            ),
            &[
                "visitor book special-items - - - shelf",
                "undergrad book special-items - - - shelf",
                "undergrad dvd special-items - - - shelf",
            ],
            expect![[r#"
                visitor book special-items - - - shelf => loan-in-house@3 -tg | loan-in-house@3 loan-b@4 loan-none@5
                undergrad book special-items - - - shelf => loan-b@4 m-- | loan-b@4 loan-none@5
                undergrad dvd special-items - - - shelf => loan-none@5 --- | loan-none@5
            "#]],
        );
    }

    #[test]
    fn two_and_three_regulations() {
        // FOLIO's Text2DroolsTest.twoPriorities / threePriorities: a child
        // line (m dvd + g visitor) has two criteria; with criterium first,
        // `m` outranks `g` before counting.
        let rules = format!(
            "fallback-policy: {}\nm book: {}\ng student: {}\nm dvd: {}\n     g visitor: {}",
            policies("none"),
            policies("a"),
            policies("b"),
            policies("c"),
            policies("d")
        );
        let items = [
            "student book regular - - - shelf",
            "student dvd regular - - - shelf",
            "visitor dvd regular - - - shelf",
        ];
        check(
            &format!("priority: number-of-criteria, first-line\n{rules}"),
            &items,
            expect![[r#"
                student book regular - - - shelf => loan-a@3 m-- | loan-a@3 loan-b@4 loan-none@2
                student dvd regular - - - shelf => loan-b@4 --g | loan-b@4 loan-c@5 loan-none@2
                visitor dvd regular - - - shelf => loan-d@6 m-g | loan-d@6 loan-c@5 loan-none@2
            "#]],
        );
        check(
            &format!(
                "priority: criterium(t, s, c, b, a, m, g), number-of-criteria, first-line\n{rules}"
            ),
            &items,
            expect![[r#"
                student book regular - - - shelf => loan-a@3 m-- | loan-a@3 loan-b@4 loan-none@2
                student dvd regular - - - shelf => loan-c@5 m-- | loan-c@5 loan-b@4 loan-none@2
                visitor dvd regular - - - shelf => loan-d@6 m-g | loan-d@6 loan-c@5 loan-none@2
            "#]],
        );
    }

    #[test]
    fn folio_reference_table() {
        // FOLIO's Text2DroolsTest "test1" rules and its table of every
        // matching loan policy per item, best first (legacy priority line;
        // s ranks above a, so the institution rule sits between `t` and `m`).
        let text = [
            "priority: t, s, c, b, a, m, g",
            "fallback-policy: l no-loan r no-hold n basic-notice o overdue i lost-item",
            "m book cd dvd: l policy-a r request-1 n notice-1 o overdue-1 i lost-item-1",
            "m newspaper + g all: l policy-c r request-2 n notice-2 o overdue-2 i lost-item-2",
            "m streaming-subscription: l policy-c r request-3 n notice-3 o overdue-3 i lost-item-3",
            "    g visitor: l in-house r request-4 n notice-4 o overdue-4 i lost-item-4",
            "    g undergrad: l in-house r request-5 n notice-5 o overdue-5 i lost-item-5",
            "m book cd dvd + t special-items: l in-house r request-6 n notice-6 o overdue-6 i lost-item-6",
            "t special-items: l policy-d r request-7 n notice-7 o overdue-7 i lost-item-7",
            "    g visitor alumni: l in-house r request-8 n notice-8 o overdue-8 i lost-item-8",
            &format!("a {INST_1}: l in-university r request-9 n notice-9 o overdue-9 i lost-item-9"),
        ]
        .join("\n");
        let items = [
            format!("foo foo foo {INST_2} c l shelf"),
            format!("undergrad book regular {INST_1} c l shelf"),
            format!("undergrad book special-items {INST_1} c l shelf"),
            format!("visitor book special-items {INST_2} c l shelf"),
            format!("undergrad newspaper regular {INST_1} c l shelf"),
            format!("undergrad newspaper special-items {INST_1} c l shelf"),
            format!("visitor newspaper special-items {INST_1} c l shelf"),
            format!("undergrad dvd special-items {INST_1} c l shelf"),
            format!("alumni map special-items {INST_1} c l shelf"),
            format!("foo foo foo {INST_1} c l shelf"),
        ];
        let items: Vec<&str> = items.iter().map(String::as_str).collect();
        check(
            &text,
            &items,
            expect![[r#"
                foo foo foo INST_2 c l shelf => no-loan@2 --- | no-loan@2
                undergrad book regular INST_1 c l shelf => in-university@11 --- | in-university@11 policy-a@3 no-loan@2
                undergrad book special-items INST_1 c l shelf => in-house@8 mt- | in-house@8 policy-d@9 in-university@11 policy-a@3 no-loan@2
                visitor book special-items INST_2 c l shelf => in-house@10 -tg | in-house@10 in-house@8 policy-d@9 policy-a@3 no-loan@2
                undergrad newspaper regular INST_1 c l shelf => in-university@11 --- | in-university@11 policy-c@4 no-loan@2
                undergrad newspaper special-items INST_1 c l shelf => policy-d@9 -t- | policy-d@9 in-university@11 policy-c@4 no-loan@2
                visitor newspaper special-items INST_1 c l shelf => in-house@10 -tg | in-house@10 policy-d@9 in-university@11 policy-c@4 no-loan@2
                undergrad dvd special-items INST_1 c l shelf => in-house@8 mt- | in-house@8 policy-d@9 in-university@11 policy-a@3 no-loan@2
                alumni map special-items INST_1 c l shelf => in-house@10 -tg | in-house@10 policy-d@9 in-university@11 no-loan@2
                foo foo foo INST_1 c l shelf => in-university@11 --- | in-university@11 no-loan@2
            "#]],
        );
        // Each kind reads its own letter of the same winning rule.
        let rules = Rules::compile(&text).unwrap();
        let item = Criteria {
            patron_group: "visitor",
            material_type: "book",
            loan_type: "special-items",
            institution: INST_2,
            ..Criteria::default()
        };
        let winners = PolicyKind::ALL.map(|kind| rules.lookup(kind, &item).policy_id);
        assert_eq!(winners, ["in-house", "request-8", "notice-8", "overdue-8", "lost-item-8"]);
    }

    #[test]
    fn location_letters() {
        // FOLIO's Text2DroolsTest.shelvingLocationDefaultPriority: with the
        // legacy order s > c > b > a, the most specific location letter in
        // the rule decides, and `t` beats them all.
        let text = [
            "priority: t, s, c, b, a, m, g",
            "fallback-policy: l no-loan r no-hold n basic-notice o overdue i lost-item",
            "s new: l policy-new r no-hold n basic-notice o overdue i lost-item",
            "t special-items: l policy-special r no-hold n basic-notice o overdue i lost-item",
            "m book: l policy-book r no-hold n basic-notice o overdue i lost-item",
            "s stacks: l policy-stacks r no-hold n basic-notice o overdue i lost-item",
            &format!("a {INST_1}: l policy-a r no-hold n basic-notice o overdue i lost-item"),
            &format!("c {LIB_1}: l policy-c r no-hold n basic-notice o overdue i lost-item"),
            &format!("b {CAMPUS_1}: l policy-d r no-hold n basic-notice o overdue i lost-item"),
        ]
        .join("\n");
        let items = [
            format!("student book regular {INST_2} campus-2 lib-2 new"),
            format!("student book regular {INST_2} campus-2 lib-2 open-stacks"),
            format!("student book regular {INST_2} campus-2 lib-2 stacks"),
            format!("student book special-items {INST_2} campus-2 lib-2 new"),
            format!("student book regular {INST_1} campus-2 lib-2 open-stacks"),
            format!("student book regular {INST_1} {CAMPUS_1} {LIB_1} open-stacks"),
            format!("student book regular {INST_2} {CAMPUS_1} lib-2 open-stacks"),
            // An unknown location hierarchy matches no a/b/c criterion.
            "student dvd regular - - - open-stacks".to_owned(),
        ];
        let items: Vec<&str> = items.iter().map(String::as_str).collect();
        check(
            &text,
            &items,
            expect![[r#"
                student book regular INST_2 campus-2 lib-2 new => policy-new@3 --- | policy-new@3 policy-book@5 no-loan@2
                student book regular INST_2 campus-2 lib-2 open-stacks => policy-book@5 m-- | policy-book@5 no-loan@2
                student book regular INST_2 campus-2 lib-2 stacks => policy-stacks@6 --- | policy-stacks@6 policy-book@5 no-loan@2
                student book special-items INST_2 campus-2 lib-2 new => policy-special@4 -t- | policy-special@4 policy-new@3 policy-book@5 no-loan@2
                student book regular INST_1 campus-2 lib-2 open-stacks => policy-a@7 --- | policy-a@7 policy-book@5 no-loan@2
                student book regular INST_1 CAMPUS_1 LIB_1 open-stacks => policy-c@8 --- | policy-c@8 policy-d@9 policy-a@7 policy-book@5 no-loan@2
                student book regular INST_2 CAMPUS_1 lib-2 open-stacks => policy-d@9 --- | policy-d@9 policy-book@5 no-loan@2
                student dvd regular - - - open-stacks => no-loan@2 --- | no-loan@2
            "#]],
        );
        // `all` and negations on the hierarchy need a known value too.
        let text = format!(
            "priority: last-line\nfallback-policy: {}\na all: {}\nb !x: {}",
            policies("none"),
            policies("a"),
            policies("b")
        );
        check(
            &text,
            &["g m t - - - s", "g m t inst - - s", "g m t inst x - s", "g m t inst y - s"],
            expect![[r#"
                g m t - - - s => loan-none@2 --- | loan-none@2
                g m t inst - - s => loan-a@3 --- | loan-a@3 loan-none@2
                g m t inst x - s => loan-a@3 --- | loan-a@3 loan-none@2
                g m t inst y - s => loan-b@4 --- | loan-b@4 loan-a@3 loan-none@2
            "#]],
        );
    }

    #[test]
    fn negation_and_several_names() {
        // FOLIO's Text2DroolsTest.negation: `!dvd !music` matches any other
        // material type; several plain names match any of them.
        let text = format!(
            "priority: last-line\nfallback-policy: {}\nm !dvd !music: {}\ng staff faculty: {}",
            policies("none"),
            policies("a"),
            policies("b")
        );
        check(
            &text,
            &[
                "student dvd regular - - - shelf",
                "student music regular - - - shelf",
                "student newspaper regular - - - shelf",
                "faculty dvd regular - - - shelf",
                "staff book regular - - - shelf",
                "- - - - - - -",
            ],
            expect![[r#"
                student dvd regular - - - shelf => loan-none@2 --- | loan-none@2
                student music regular - - - shelf => loan-none@2 --- | loan-none@2
                student newspaper regular - - - shelf => loan-a@3 m-- | loan-a@3 loan-none@2
                faculty dvd regular - - - shelf => loan-b@4 --g | loan-b@4 loan-none@2
                staff book regular - - - shelf => loan-b@4 --g | loan-b@4 loan-a@3 loan-none@2
                - - - - - - - => loan-a@3 m-- | loan-a@3 loan-none@2
            "#]],
        );
    }

    #[test]
    fn child_lines_override_their_parent() {
        // FOLIO's doc, the indentation hierarchy: a child line's policies win
        // over its parent's for the items both match (same top criterion
        // type, more criteria), and the parent's apply to the rest.
        let text = format!(
            "priority: t, s, c, b, a, m, g\nfallback-policy: {}\ng staff: {}\ng visitor: {}\n    m book: {}\n        t rare: {}\n        t course-reserve: {}\n            s law-department: {}\n            s math-department: {}\n    s new-acquisition: {}",
            policies("none"),
            policies("a"),
            policies("b"),
            policies("c"),
            policies("d"),
            policies("e"),
            policies("f"),
            policies("g"),
            policies("h")
        );
        check(
            &text,
            &[
                "staff book rare - - - law-department",
                "visitor dvd regular - - - new-acquisition",
                "visitor book course-reserve - - - math-department",
                "visitor book course-reserve - - - law-department",
                "visitor book course-reserve - - - stacks",
                "visitor book rare - - - stacks",
                "visitor book regular - - - stacks",
                "visitor globe regular - - - stacks",
            ],
            expect![[r#"
                staff book rare - - - law-department => loan-a@3 --g | loan-a@3 loan-none@2
                visitor dvd regular - - - new-acquisition => loan-h@10 --g | loan-h@10 loan-b@4 loan-none@2
                visitor book course-reserve - - - math-department => loan-g@9 mtg | loan-g@9 loan-e@7 loan-c@5 loan-b@4 loan-none@2
                visitor book course-reserve - - - law-department => loan-f@8 mtg | loan-f@8 loan-e@7 loan-c@5 loan-b@4 loan-none@2
                visitor book course-reserve - - - stacks => loan-e@7 mtg | loan-e@7 loan-c@5 loan-b@4 loan-none@2
                visitor book rare - - - stacks => loan-d@6 mtg | loan-d@6 loan-c@5 loan-b@4 loan-none@2
                visitor book regular - - - stacks => loan-c@5 m-g | loan-c@5 loan-b@4 loan-none@2
                visitor globe regular - - - stacks => loan-b@4 --g | loan-b@4 loan-none@2
            "#]],
        );
    }

    #[test]
    fn item_limit_scope() {
        let text = format!(
            "priority: last-line\nfallback-policy: {}\nm book dvd: {}\ng staff + t all: {}",
            policies("none"),
            policies("m"),
            policies("t")
        );
        let rules = Rules::compile(&text).unwrap();
        let item = |g, m, t| Criteria {
            patron_group: g,
            material_type: m,
            loan_type: t,
            ..Criteria::default()
        };
        let show = |checked_out: Criteria<'_>| {
            let winner = rules.lookup(PolicyKind::Loan, &checked_out);
            let others = [("book", "regular"), ("dvd", "regular"), ("book", "rare")]
                .map(|(m, t)| winner.counts_toward_item_limit(&checked_out, m, t));
            format!(
                "{} applies={} counts={others:?}",
                winner.policy_id,
                winner.item_limit_applies()
            )
        };
        // As in FOLIO, other loans count if they share the checked-out
        // item's material type (rule tests `m`), not any type the rule lists.
        expect!["loan-m applies=true counts=[true, false, true]"]
            .assert_eq(&show(item("x", "book", "regular")));
        expect!["loan-t applies=true counts=[true, true, false]"]
            .assert_eq(&show(item("staff", "book", "regular")));
        expect!["loan-none applies=false counts=[true, true, true]"]
            .assert_eq(&show(item("x", "map", "regular")));
    }

    #[test]
    fn policy_references_in_folio_order() {
        let text = "priority: first-line\nm book: r r1 n n1 o o1 l l1 i i1\n  g staff: l l2 r r2 n n2 o o2 i i2\nfallback-policy: l l0 r r0 n n0 o o0 i i0\n";
        let rules = Rules::compile(text).unwrap();
        let refs: Vec<String> = rules
            .policy_references()
            .map(|r| format!("{}:{} {} {}", r.line, r.column, r.kind.letter(), r.policy_id))
            .collect();
        expect![[r#"
            [
                "2:6 l l1",
                "2:6 r r1",
                "2:6 n n1",
                "2:6 o o1",
                "2:6 i i1",
                "3:9 l l2",
                "3:9 r r2",
                "3:9 n n2",
                "3:9 o o2",
                "3:9 i i2",
                "4:15 l l0",
                "4:15 r r0",
                "4:15 n n0",
                "4:15 o o0",
                "4:15 i i0",
            ]
        "#]]
        .assert_debug_eq(&refs);
        let missing = rules.policy_references().find(|r| r.policy_id == "n2").unwrap().not_found();
        expect!["The policy n does not exist (line 3, column 9)"].assert_eq(&missing.to_string());
        assert_eq!(&text[missing.offset..missing.offset + 1], ":");
    }

    #[test]
    fn rules_are_shareable() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<Rules>();
    }
}
