//! The MARC index of one tenant: what `POST /source-storage/stream/marc-record-identifiers`
//! searches, in memory, derived from the stored records through the change log.
//!
//! Keyed by record ordinal (`u32`, fixed for a record's life and stored with it, so
//! result order is stable across restarts). It holds only MARC bibliographic records
//! with an instance id, the only ones the search returns. Per record: its instance id
//! (16 bytes) and four state bitmaps (indexed, ACTUAL, DELETED, suppressed). Everything
//! else is terms in `terms.rs`, one key per distinct (what, value):
//!
//! | key | records |
//! |---|---|
//! | `L` slot value | leader slice `p_..` (lower-cased, blanks `#`; leader/05 as is) |
//! | `S` tag code value | a subfield value (control field value under code `0`) |
//! | `I` tag 1/2 char | an indicator (blank as `#`) |
//! | `P` tag / `Q` tag code | the field / the subfield is present |
//! | `M` tag code / `M` tag / `N` tag 1/2 | at least two distinct values of that subfield / of the field / of that indicator |
//!
//! The `M`/`N` keys make `not=` exact without scanning: a record has a value other than
//! `v` exactly when it has the field but not `v`, or `v` and a second distinct value.
//! Dates (`NNN.date`) are ranges over the sorted `S` keys of the field, whose first
//! eight characters are the `yyyymmdd` date: the key order is the date order. 005, whose
//! values are nearly all distinct, is also a column of dates by ordinal, tested only for
//! the candidates the rest of the expression leaves (see `Inner::eval`).

use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Mutex, RwLock};

use roaring::RoaringBitmap;
use uuid::Uuid;

use crate::expr::{self, DateOp, Expr, Tag, Term, ValueOp};
use crate::flat::FlatRecord;
use crate::model::State;
use crate::storage::{RECORDS, Result};
use crate::stored;

/// The version of the index layout (it is rebuilt from the store on open, never saved).
pub const INDEX_FORMAT: u32 = 1;

/// A MARC search request (`sourceRecordSearchRequest.json`).
#[derive(Debug, Clone, Default)]
pub struct SearchRequest {
    pub leader_search_expression: Option<String>,
    pub fields_search_expression: Option<String>,
    /// `None`: ACTUAL and DELETED records; `Some(false)`: ACTUAL only; `Some(true)`:
    /// both (FOLIO's rule; its request model defaults an absent `deleted` to false,
    /// which the HTTP layer applies).
    pub deleted: Option<bool>,
    /// `None`: no filter.
    pub suppress_from_discovery: Option<bool>,
    pub offset: u64,
    /// `None`: all.
    pub limit: Option<u64>,
}

/// The wire form of a search request; unknown properties are refused, as FOLIO's
/// schema does.
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct WireRequest {
    leader_search_expression: Option<String>,
    fields_search_expression: Option<String>,
    suppress_from_discovery: Option<bool>,
    // Absent is `false` (FOLIO's default); an explicit null is "no filter".
    #[serde(default = "absent_deleted", deserialize_with = "present_deleted")]
    deleted: Option<bool>,
    offset: Option<u64>,
    limit: Option<u64>,
}

fn absent_deleted() -> Option<bool> {
    Some(false)
}

fn present_deleted<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<bool>, D::Error> {
    <Option<bool> as serde::Deserialize>::deserialize(d)
}

impl SearchRequest {
    /// Parses a request body (400 for malformed JSON, 422 for a wrong shape).
    pub fn decode(body: &[u8]) -> Result<SearchRequest> {
        let wire: WireRequest = crate::records::decode_json(body)?;
        Ok(SearchRequest {
            leader_search_expression: wire.leader_search_expression,
            fields_search_expression: wire.fields_search_expression,
            deleted: wire.deleted,
            suppress_from_discovery: wire.suppress_from_discovery,
            offset: wire.offset.unwrap_or(0),
            limit: wire.limit,
        })
    }
}

/// A MARC search result: instance ids in record-ordinal order, one page of them, and
/// how many distinct instance ids match in all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchResult {
    pub ids: Vec<Uuid>,
    pub total: u64,
}

/// One tenant's MARC index.
pub struct MarcIndex {
    inner: RwLock<Inner>,
    // Invariant: every change-log row up to this sequence number is applied.
    applied: AtomicI64,
    // Serialises catching up, so two callers do not apply one change twice.
    catching_up: Mutex<()>,
}

#[derive(Default)]
struct Inner {
    terms: crate::terms::Terms,
    /// SRS record id → ordinal, for indexed records.
    ords: HashMap<u128, u32>,
    /// Instance id by ordinal; 0 when the ordinal is not indexed.
    instance: Vec<u128>,
    /// How many indexed records carry each instance id, and one of them.
    per_instance: HashMap<u128, (u32, u32)>,
    /// Ordinals whose instance id another indexed record shares: results need
    /// de-duplicating only where they meet this set.
    shared: RoaringBitmap,
    all: RoaringBitmap,
    actual: RoaringBitmap,
    deleted_state: RoaringBitmap,
    suppressed: RoaringBitmap,
    /// The `yyyymmdd` date of each record's first 005 (0: none, or not a date), for
    /// `005.date` without walking a million distinct 005 keys.
    date_column: Vec<u32>,
    /// Records with more than one 005: `005.date` looks at their terms.
    date_multi: RoaringBitmap,
}

/// The tag whose dates `Inner::date_column` holds: 005, the one FOLIO's harvests filter on.
const DATE_COLUMN_TAG: Tag = *b"005";

/// How many change-log rows one catch-up step reads.
const CATCH_UP_BATCH: usize = 10_000;

impl MarcIndex {
    /// Builds the index from every stored record, in one read snapshot, then applies
    /// what changed meanwhile.
    pub fn open(tenant: &store::Tenant) -> Result<MarcIndex> {
        let started = std::time::Instant::now();
        let mut inner = Inner::default();
        let mut builder = crate::build::Builder::default();
        let mut flat = FlatRecord::default();
        let seq = tenant.read(|r| {
            let seq = r.last_seq()?;
            let mut after: Option<String> = None;
            loop {
                let page = r.scan(&RECORDS, after.as_deref(), 5_000)?;
                let Some(last) = page.last() else { break };
                after = Some(last.id.clone());
                for row in &page {
                    if let Some(ord) = inner.add_state(&row.id, &row.body, &mut flat)? {
                        builder.add(ord, &flat);
                    }
                }
            }
            Ok::<_, crate::Error>(seq)
        })?;
        inner.terms = builder.finish();
        tracing::info!(
            tenant = tenant.name(),
            records = inner.all.len(),
            terms = inner.terms.n_terms(),
            bytes = inner.bytes(),
            millis = started.elapsed().as_millis() as u64,
            "MARC index built"
        );
        let index = MarcIndex {
            inner: RwLock::new(inner),
            applied: AtomicI64::new(seq),
            catching_up: Mutex::new(()),
        };
        index.catch_up(tenant)?;
        Ok(index)
    }

    /// The last change-log sequence number applied.
    pub fn applied_seq(&self) -> i64 {
        self.applied.load(Ordering::SeqCst)
    }

    /// Applies every committed change not yet applied. Cheap when there is none (one
    /// read of the last sequence number).
    pub fn catch_up(&self, tenant: &store::Tenant) -> Result<()> {
        let _one = self.catching_up.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            let applied = self.applied_seq();
            let done = tenant.read(|r| {
                let changes = r.changes_since(applied, CATCH_UP_BATCH)?;
                let Some(last) = changes.last().map(|c| c.seq) else {
                    return Ok::<_, crate::Error>(true);
                };
                let ids: BTreeSet<&str> = changes
                    .iter()
                    .filter(|c| c.record_type == RECORDS.record_type)
                    .map(|c| c.record_id.as_str())
                    .collect();
                let ids: Vec<&str> = ids.into_iter().collect();
                let rows = r.get_many(&RECORDS, &ids)?;
                let bodies: HashMap<&str, &str> =
                    rows.iter().map(|row| (row.id.as_str(), row.body.as_str())).collect();
                let mut inner = self.inner.write().unwrap_or_else(|p| p.into_inner());
                for id in &ids {
                    inner.apply(id, bodies.get(id).copied())?;
                }
                self.applied.store(last, Ordering::SeqCst);
                Ok(changes.len() < CATCH_UP_BATCH)
            })?;
            if done {
                return Ok(());
            }
        }
    }

    /// Runs a search. Parses both expressions first, so a bad one is a 400 before any
    /// work.
    pub fn search(&self, request: &SearchRequest) -> Result<SearchResult> {
        let leader = match &request.leader_search_expression {
            Some(e) => Some(expr::parse(e, expr::ExpressionKind::Leader)?),
            None => None,
        };
        let fields = match &request.fields_search_expression {
            Some(e) => Some(expr::parse(e, expr::ExpressionKind::Fields)?),
            None => None,
        };
        if leader.is_none() && fields.is_none() {
            return Err(crate::ExpressionError {
                message:
                    "The 'leaderSearchExpression' and the 'fieldsSearchExpression' are missing"
                        .to_string(),
                offset: 0,
            }
            .into());
        }
        let inner = self.inner.read().unwrap_or_else(|p| p.into_inner());
        let mut hits = match request.deleted {
            Some(false) => inner.actual.clone(),
            None | Some(true) => &inner.actual | &inner.deleted_state,
        };
        match request.suppress_from_discovery {
            Some(true) => hits &= &inner.suppressed,
            Some(false) => hits -= &inner.suppressed,
            None => {}
        }
        for e in [&leader, &fields].into_iter().flatten() {
            if hits.is_empty() {
                break;
            }
            hits &= inner.eval(e, &hits);
        }
        Ok(inner.page(&hits, request.offset, request.limit))
    }

    /// Approximate heap bytes the index holds.
    pub fn bytes(&self) -> usize {
        self.inner.read().unwrap_or_else(|p| p.into_inner()).bytes()
    }

    /// How many records are indexed.
    pub fn len(&self) -> u64 {
        self.inner.read().unwrap_or_else(|p| p.into_inner()).all.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

fn uuid_bits(text: &str) -> u128 {
    Uuid::parse_str(text).map_or(0, |u| u.as_u128())
}

impl Inner {
    fn bytes(&self) -> usize {
        self.terms.bytes()
            + self.ords.capacity() * 24
            + self.instance.capacity() * 16
            + self.date_column.capacity() * 4
            + self.per_instance.capacity() * 24
            + [&self.shared, &self.all, &self.actual, &self.deleted_state, &self.suppressed]
                .iter()
                .map(|b| b.serialized_size())
                .sum::<usize>()
    }

    /// Brings one record up to date: `body` is its stored form, `None` if it is gone.
    fn apply(&mut self, id: &str, body: Option<&str>) -> Result<()> {
        let id_bits = uuid_bits(id);
        if let Some(ord) = self.ords.remove(&id_bits) {
            self.remove(ord);
        }
        let Some(body) = body else { return Ok(()) };
        let mut flat = FlatRecord::default();
        if let Some(ord) = self.add_state(id, body, &mut flat)? {
            self.terms.add(ord, crate::keys::all_keys(&flat));
        }
        Ok(())
    }

    /// Records a stored record's state (everything but its terms) if it belongs in the
    /// index, leaving its MARC in `flat`; its ordinal, or `None` when it does not
    /// belong (not a MARC bib with an instance id, or no MARC).
    fn add_state(&mut self, id: &str, body: &str, flat: &mut FlatRecord) -> Result<Option<u32>> {
        let view = stored::decode_for_index(body)?;
        let Some(instance) = view.instance else { return Ok(None) };
        if !view.read_marc(flat)? {
            return Ok(None);
        }
        let ord = view.ord;
        self.ords.insert(uuid_bits(id), ord);
        let idx = ord as usize;
        if self.instance.len() <= idx {
            self.instance.resize(idx + 1, 0);
            self.date_column.resize(idx + 1, 0);
        }
        let instance = instance.as_u128();
        self.instance[idx] = instance;
        let (count, holder) = self.per_instance.entry(instance).or_insert((0, ord));
        *count += 1;
        if *count >= 2 {
            // `shared` may keep ordinals that stopped sharing: it only decides where
            // results are de-duplicated, so a stale member costs time, not correctness.
            self.shared.insert(*holder);
            self.shared.insert(ord);
        }
        self.all.insert(ord);
        match view.state {
            State::Actual => {
                self.actual.insert(ord);
            }
            State::Deleted => {
                self.deleted_state.insert(ord);
            }
            State::Old | State::Draft => {}
        }
        if view.suppressed {
            self.suppressed.insert(ord);
        }
        let mut dates = flat.fields.iter().filter(|f| f.tag == DATE_COLUMN_TAG);
        if let Some(field) = dates.next() {
            let value = flat.subfields(field).next().map_or(&[][..], |(_, v)| v);
            self.date_column[idx] =
                std::str::from_utf8(value).ok().and_then(expr::parse_date).unwrap_or(0);
            if dates.next().is_some() {
                self.date_multi.insert(ord);
            }
        }
        Ok(Some(ord))
    }

    fn remove(&mut self, ord: u32) {
        let instance = std::mem::take(&mut self.instance[ord as usize]);
        self.date_column[ord as usize] = 0;
        self.date_multi.remove(ord);
        if let Some((count, holder)) = self.per_instance.get_mut(&instance) {
            *count -= 1;
            if *holder == ord {
                // Any other holder will do; one that is still shared is in `shared`.
                *holder = self
                    .shared
                    .iter()
                    .find(|o| *o != ord && self.instance[*o as usize] == instance)
                    .unwrap_or(ord);
            }
            if *count == 0 {
                self.per_instance.remove(&instance);
            }
        }
        self.shared.remove(ord);
        for set in [&mut self.all, &mut self.actual, &mut self.deleted_state, &mut self.suppressed]
        {
            set.remove(ord);
        }
        self.terms.remove(ord);
    }

    /// One page of distinct instance ids in ordinal order, and their number.
    fn page(&self, hits: &RoaringBitmap, offset: u64, limit: Option<u64>) -> SearchResult {
        let limit = limit.unwrap_or(u64::MAX);
        let needs_dedup = !hits.is_disjoint(&self.shared);
        let mut seen = std::collections::HashSet::new();
        let mut ids = Vec::new();
        let mut total = 0u64;
        for ord in hits {
            let instance = self.instance[ord as usize];
            if needs_dedup && self.shared.contains(ord) && !seen.insert(instance) {
                continue;
            }
            if total >= offset && (total - offset) < limit {
                ids.push(Uuid::from_u128(instance));
            }
            total += 1;
            if !needs_dedup && ids.len() as u64 >= limit {
                // The rest only counts.
                total = hits.len();
                break;
            }
        }
        SearchResult { ids, total }
    }

    /// The records among `within` that `e` holds for (possibly with others: callers
    /// intersect). `within` lets a term that can test records one by one (the 005
    /// date column) look only at the candidates left by what was evaluated before it.
    fn eval(&self, e: &Expr, within: &RoaringBitmap) -> RoaringBitmap {
        match e {
            Expr::And(operands) => {
                let mut held = self.eval(&operands[0], within);
                held &= within;
                for operand in &operands[1..] {
                    if held.is_empty() {
                        break;
                    }
                    held &= self.eval(operand, &held);
                }
                held
            }
            Expr::Or(operands) => {
                let mut held = RoaringBitmap::new();
                for operand in operands {
                    held |= self.eval(operand, within);
                }
                held
            }
            Expr::Term(t) => self.term(t, within),
        }
    }

    fn term(&self, term: &Term, within: &RoaringBitmap) -> RoaringBitmap {
        let t = &self.terms;
        match term {
            Term::Leader { slot, value, negate } => {
                let eq = t.get(&key(b'L', &[*slot], value.as_bytes()));
                if *negate { &self.all - &eq } else { eq }
            }
            Term::Subfield { tag, code, op } => {
                let field = key(b'S', &[tag[0], tag[1], tag[2], *code], b"");
                let has = t.get(&key(b'Q', &[tag[0], tag[1], tag[2], *code], b""));
                let multi = t.get(&key(b'M', &[tag[0], tag[1], tag[2], *code], b""));
                self.text_op(op, &[field], has, multi)
            }
            Term::Value { tag, op } => {
                let prefixes: Vec<Vec<u8>> = self
                    .codes(tag)
                    .into_iter()
                    .map(|c| key(b'S', &[tag[0], tag[1], tag[2], c], b""))
                    .collect();
                let has = t.get(&key(b'P', tag, b""));
                let multi = t.get(&key(b'M', tag, b""));
                self.text_op(op, &prefixes, has, multi)
            }
            Term::Indicator { tag, which, op } => {
                let w = b'0' + which;
                let prefix = key(b'I', &[tag[0], tag[1], tag[2], w], b"");
                match op {
                    ValueOp::Present | ValueOp::Absent => {
                        let mut out = RoaringBitmap::new();
                        t.scan(&prefix, &prefix, None, |k, p| {
                            let blank = &k[prefix.len()..] == b"#";
                            if blank == (*op == ValueOp::Absent) {
                                out |= p;
                            }
                        });
                        out
                    }
                    _ => {
                        let has = t.get(&key(b'P', tag, b""));
                        let multi = t.get(&key(b'N', &[tag[0], tag[1], tag[2], w], b""));
                        self.text_op(op, &[prefix], has, multi)
                    }
                }
            }
            Term::Position { tag, start, len, value, negate } => {
                let mut out = RoaringBitmap::new();
                let prefix = key(b'S', tag, b"");
                t.scan(&prefix, &prefix, None, |k, p| {
                    let text = String::from_utf8_lossy(&k[prefix.len() + 1..]);
                    let slice: String = text.chars().skip(*start).take(*len).collect();
                    if (slice == *value) != *negate {
                        out |= p;
                    }
                });
                out
            }
            Term::Date { tag, op } if *tag == DATE_COLUMN_TAG => {
                let hit = |ord: u32| {
                    let date = self.date_column[ord as usize];
                    date != 0 && date_holds(*op, date)
                };
                // `collect` (roaring's `extend`) rather than `from_sorted_iter`, whose
                // append rescans a dense container for its maximum on every value.
                let mut out: RoaringBitmap = if within.len() < self.all.len() / 8 {
                    within
                        .iter()
                        .filter(|o| (*o as usize) < self.date_column.len() && hit(*o))
                        .collect()
                } else {
                    let dates = self.date_column.iter().enumerate();
                    dates
                        .filter(|(_, d)| **d != 0 && date_holds(*op, **d))
                        .map(|(o, _)| o as u32)
                        .collect()
                };
                if !self.date_multi.is_disjoint(within) {
                    out |= self.date_terms(tag, *op) & &self.date_multi;
                }
                out
            }
            Term::Date { tag, op } => self.date_terms(tag, *op),
        }
    }

    /// `NNN.date` over the terms: walks the date range of the sorted value keys.
    fn date_terms(&self, tag: &Tag, op: DateOp) -> RoaringBitmap {
        let t = &self.terms;
        let mut out = RoaringBitmap::new();
        for code in self.codes(tag) {
            let prefix = key(b'S', &[tag[0], tag[1], tag[2], code], b"");
            let at = |date: u32| [prefix.as_slice(), format!("{date:08}").as_bytes()].concat();
            let (from, to) = match op {
                DateOp::Eq(d) => (at(d), Some(at(d + 1))),
                DateOp::From(d) => (at(d), None),
                DateOp::To(d) => (prefix.clone(), Some(at(d + 1))),
                DateOp::Between(a, b) => (at(a), Some(at(b + 1))),
                DateOp::NotEq(_) => (prefix.clone(), None),
            };
            t.scan(&prefix, &from, to.as_deref(), |k, p| {
                let text = std::str::from_utf8(&k[prefix.len()..]).unwrap_or("");
                let Some(date) = expr::parse_date(text) else { return };
                if date_holds(op, date) {
                    out |= p;
                }
            });
        }
        out
    }

    /// `=`, `not=`, `^=`, `is` over the values under `prefixes`; `has` are the records
    /// with any such value, `multi` those with two distinct ones.
    fn text_op(
        &self,
        op: &ValueOp,
        prefixes: &[Vec<u8>],
        has: RoaringBitmap,
        multi: RoaringBitmap,
    ) -> RoaringBitmap {
        let t = &self.terms;
        let eq = |v: &str| {
            let mut out = RoaringBitmap::new();
            for p in prefixes {
                out |= t.get(&[p.as_slice(), v.as_bytes()].concat());
            }
            out
        };
        match op {
            ValueOp::Eq(v) => eq(v),
            ValueOp::Prefix(v) => {
                let mut out = RoaringBitmap::new();
                for p in prefixes {
                    let start = [p.as_slice(), v.as_bytes()].concat();
                    out |= t.union(&start, &start, None);
                }
                out
            }
            ValueOp::NotEq(v) => {
                let eq = eq(v);
                (&has - &eq) | (eq & multi)
            }
            ValueOp::Present => has,
            ValueOp::Absent => &self.all - &has,
        }
    }

    /// The subfield codes seen with `tag` (`0` for a control field).
    fn codes(&self, tag: &Tag) -> Vec<u8> {
        let prefix = key(b'Q', tag, b"");
        let mut codes = BTreeSet::new();
        self.terms.scan(&prefix, &prefix, None, |k, _| {
            if let Some(c) = k.get(prefix.len()) {
                codes.insert(*c);
            }
        });
        codes.into_iter().collect()
    }
}

fn key(kind: u8, head: &[u8], value: &[u8]) -> Vec<u8> {
    let mut k = Vec::with_capacity(1 + head.len() + value.len());
    k.push(kind);
    k.extend_from_slice(head);
    k.extend_from_slice(value);
    k
}

fn date_holds(op: DateOp, date: u32) -> bool {
    match op {
        DateOp::Eq(d) => date == d,
        DateOp::NotEq(d) => date != d,
        DateOp::From(d) => date >= d,
        DateOp::To(d) => date <= d,
        DateOp::Between(a, b) => a <= date && date <= b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Stores bibs with these 005 values (one 005 field per value), builds the index,
    /// and returns the hrid numbers `fields` (with `p_05 = 'c'`) finds.
    fn check(records: &[&[&str]], fields: &str, expected: &[usize]) {
        let dir = tempfile::tempdir().unwrap();
        let store = store::Store::open(dir.path(), store::testing::options(), &[crate::MIGRATIONS])
            .unwrap();
        let (tenant, _) = store.create_tenant("t").unwrap();
        let bibs = |records: &[&[&str]]| -> Vec<crate::NewBib> {
            let tag = |t: &str| marc::Tag::new(t).unwrap();
            records
                .iter()
                .enumerate()
                .map(|(i, dates)| {
                    let leader = marc::Leader::new("00000cam a2200000 a 4500").unwrap();
                    let mut marc = marc::Record::new(leader);
                    for date in *dates {
                        marc.push(marc::Field::control(tag("005"), *date).unwrap());
                    }
                    crate::NewBib {
                        id: None,
                        marc,
                        instance_id: Uuid::from_u128(i as u128 + 1),
                        instance_hrid: format!("in{i}"),
                        snapshot_id: Uuid::nil(),
                        suppress_discovery: false,
                        state: State::Actual,
                    }
                })
                .collect()
        };
        // Half stored before the index is built, half after (the incremental path).
        let (before, after) = records.split_at(records.len() / 2);
        let mut all = bibs(records);
        let later = all.split_off(before.len());
        tenant
            .write(|w| {
                let snapshot_id = crate::ensure_generated_snapshot(w)?;
                crate::put_marc_bibs(w, all.into_iter().map(|b| crate::NewBib { snapshot_id, ..b }))
            })
            .unwrap();
        let index = MarcIndex::open(&tenant).unwrap();
        assert_eq!(after.len(), later.len());
        tenant
            .write(|w| {
                let snapshot_id = crate::ensure_generated_snapshot(w)?;
                crate::put_marc_bibs(
                    w,
                    later.into_iter().map(|b| crate::NewBib { snapshot_id, ..b }),
                )
            })
            .unwrap();
        index.catch_up(&tenant).unwrap();
        let request = SearchRequest {
            leader_search_expression: Some("p_05 = 'c'".into()),
            fields_search_expression: Some(fields.into()),
            ..Default::default()
        };
        // On a small stack, so the largest expressions accepted show they fit.
        let found = limits::on_test_stack(move || index.search(&request).unwrap().ids);
        let found: Vec<usize> = found.iter().map(|id| id.as_u128() as usize - 1).collect();
        assert_eq!(found, expected, "{fields}");
    }

    #[test]
    fn the_largest_expressions_accepted_run_on_a_small_stack() {
        let records: &[&[&str]] = &[&["20210315120000.0"], &["20220101000000.0"], &["x"]];
        let both = "005.value ^= '202'";
        let deepest = (0..limits::MAX_DEPTH).fold(both.to_string(), |inner, level| {
            let op = if level % 2 == 0 { "or" } else { "and" };
            format!("{both} {op} 005.date from '20200101' {op} ({inner})")
        });
        check(records, &deepest, &[0, 1]);
        for op in [" or ", " and "] {
            let widest = vec![both; limits::MAX_TERMS].join(op);
            check(records, &widest, &[0, 1]);
        }
    }

    #[test]
    fn dates_of_005_from_the_column_and_the_terms() {
        let records: &[&[&str]] = &[
            &["20141107001016.0"],
            &["20150101000000.0"],
            &[],
            &["not a date"],
            &["20141107", "20200202"],
            &["20160606101010.0"],
            &["20200202", "20141107"],
            &["19991231"],
            // Sixteen more without 005, so a narrowed `and` tests candidates only.
            &[],
            &[],
            &[],
            &[],
            &[],
            &[],
            &[],
            &[],
            &[],
            &[],
            &[],
            &[],
            &[],
            &[],
            &[],
            &[],
        ];
        check(records, "005.date = '20141107'", &[0, 4, 6]);
        check(records, "005.date not= '20141107'", &[1, 4, 5, 6, 7]);
        check(records, "005.date from '20160101'", &[4, 5, 6]);
        check(records, "005.date to '20141231'", &[0, 4, 6, 7]);
        check(records, "005.date in '20150101-20160606'", &[1, 5]);
        let absent: Vec<usize> = [1, 2, 5].into_iter().chain(8..24).collect();
        check(records, "005.date in '20150101-20160606' or 005.value is 'absent'", &absent);
        check(records, "005.value is 'present' and 005.date to '20000101'", &[7]);
        // Candidates only: the right side sees the left side's two or one records.
        check(records, "005.date = '20200202' and 005.date = '20141107'", &[4, 6]);
        check(records, "005.date = '20200202' and 005.date not= '20200202'", &[4, 6]);
        check(records, "005.date = '19991231' and 005.date from '20000101'", &[]);
        check(records, "005.date = '19991231' and 005.date to '20000101'", &[7]);
    }
}
