//! A library for the crate's unit tests: a tenant with FOLIO's reference data, patron
//! groups and circulation defaults, one instance with a holdings record at the Main
//! Library, and the verbs the desk's tests call, each in its own transaction at a fixed
//! time.
//!
//! The reference records keep FOLIO's ids (`inventory/reference_data/*.json`,
//! `auth` groups, `defaults.rs`), so expectations can name them.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use folio::Actor;
use serde_json::{Value, json};
use store::{Store, Tenant};
use uuid::Uuid;

use crate::model::{Loan, PatronBlockCondition, PatronBlockLimit, Request};
use crate::records::{self, Record};
use crate::{
    CheckInOutcome, CheckInRequest, CheckOutRequest, Error, OverridableBlock, RenewRequest, Result,
    RulesCache,
};

/// Circ Desk 1: a pickup location with a hold shelf of 3 weeks; serves the Main Library.
pub(crate) const DESK_1: &str = "3a40852d-49fd-4df2-a1f9-6e2641a6e91f";
/// Circ Desk 2: a pickup location with a hold shelf of 5 days; does not serve the Main
/// Library.
pub(crate) const DESK_2: &str = "c4c90014-c8c9-4ade-8f24-b5e313319f4b";
/// The Online service point: not a pickup location.
pub(crate) const ONLINE_DESK: &str = "7c5abc9f-f3d7-4856-b8d7-6712462ca007";
/// Location "Main Library", primary service point Circ Desk 1.
pub(crate) const MAIN_LIBRARY: &str = "fcd64ce1-6995-48f0-840e-89ffa2288371";
/// Material types.
pub(crate) const BOOK: &str = "1a54b431-2e4f-452d-9cae-9cee66c9a892";
pub(crate) const DVD: &str = "5ee11d91-f7e8-481d-b079-65d708582ccc";
/// Loan types.
pub(crate) const CAN_CIRCULATE: &str = "2b94c631-fca9-4892-a730-03ee529ffe27";
pub(crate) const READING_ROOM: &str = "2e48e713-17f3-4c13-a9f8-23845bb210a4";
/// Patron groups.
pub(crate) const STAFF: &str = "3684a786-6671-4268-8ed0-9db82ebca60b";
pub(crate) const UNDERGRAD: &str = "bdc2b6d4-5ceb-4a12-ab46-249b9a68473e";

/// The title of the one instance every item belongs to.
pub(crate) const TITLE: &str = "The Left Hand of Darkness";

const TEXT_INSTANCE_TYPE: &str = "6312d172-f0cf-40f6-b27d-9fa8feaf332f";
const FOLIO_HOLDINGS_SOURCE: &str = "f32d531e-df79-46b3-8932-cdd35f7a2264";

/// An instant written as RFC 3339.
pub(crate) fn at(text: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(text).unwrap_or_else(|e| panic!("{text}: {e}")).to_utc()
}

pub(crate) fn uuid(text: &str) -> Uuid {
    Uuid::parse_str(text).unwrap()
}

/// `base` with the members of `extra` set (a `null` member stays `null`).
pub(crate) fn merged(mut base: Value, extra: Value) -> Value {
    for (key, value) in extra.as_object().expect("extra is an object") {
        base[key] = value.clone();
    }
    base
}

/// Circulation rules in the legacy priority, with FOLIO's default policies as the
/// fallback: each of `rules` is (criteria, loan policy id), its other policies the
/// defaults.
pub(crate) fn rules_text(rules: &[(&str, &str)]) -> String {
    let mut text = format!(
        "priority: t, s, c, b, a, m, g\nfallback-policy: l {} {}\n",
        crate::DEFAULT_LOAN_POLICY_ID,
        other_policies(crate::DEFAULT_OVERDUE_FINE_POLICY_ID)
    );
    for (criteria, loan_policy) in rules {
        text.push_str(&format!(
            "{criteria}: l {loan_policy} {}\n",
            other_policies(crate::DEFAULT_OVERDUE_FINE_POLICY_ID)
        ));
    }
    text
}

/// The request, notice, overdue fine (`overdue`) and lost item policies of a rule.
pub(crate) fn other_policies(overdue: &str) -> String {
    format!(
        "r {} n {} o {overdue} i {}",
        crate::DEFAULT_REQUEST_POLICY_ID,
        crate::DEFAULT_NOTICE_POLICY_ID,
        crate::DEFAULT_LOST_ITEM_FEE_POLICY_ID
    )
}

/// A refused transaction's reasons, one a line: the message, FOLIO's code, the
/// parameters, and what overriding it takes. Any other error as it displays.
pub(crate) fn refusals(error: &Error) -> String {
    let Error::Refused(refusals) = error else { return format!("not refused: {error}") };
    let mut out = String::new();
    for refusal in refusals {
        out.push_str(&refusal.message);
        if let Some(code) = refusal.code {
            out.push_str(&format!(" [{code}]"));
        }
        for (key, value) in &refusal.parameters {
            out.push_str(&format!(" {key}={value}"));
        }
        if let Some(o) = refusal.overridable {
            let missing = if o.permission_missing { ", permission missing" } else { "" };
            out.push_str(&format!(" (override: {}{missing})", o.block.name()));
        }
        out.push('\n');
    }
    out
}

/// A loan's dates and what the desk did, one field a line.
pub(crate) fn loan_summary(loan: &Loan) -> String {
    let mut out = format!("status {}\nloanDate {}\n", loan.status().as_str(), loan.loan_date);
    let mut line = |name: &str, value: Option<String>| {
        if let Some(value) = value {
            out.push_str(&format!("{name} {value}\n"));
        }
    };
    line("dueDate", loan.due_date.map(|d| d.to_string()));
    line("returnDate", loan.return_date.map(|d| d.to_string()));
    line("action", loan.action.clone());
    line("actionComment", loan.action_comment.clone());
    line("itemStatus", loan.item_status.clone());
    line("renewalCount", loan.renewal_count.map(|n| n.to_string()));
    line("dueDateChangedByRecall", loan.due_date_changed_by_recall.map(|b| b.to_string()));
    out
}

/// A tenant set up as `quire tenant create` sets one up, plus one instance and holdings.
pub(crate) struct Library {
    _dir: tempfile::TempDir,
    pub(crate) tenant: Arc<Tenant>,
    pub(crate) rules: RulesCache,
    holdings: Uuid,
}

impl Library {
    pub(crate) fn new() -> Library {
        let dir = tempfile::tempdir().unwrap();
        let components = [
            auth::MIGRATIONS,
            inventory::MIGRATIONS,
            crate::MIGRATIONS,
            settings::MIGRATIONS,
            calendar::MIGRATIONS,
        ];
        let store = Store::open(dir.path(), store::testing::options(), &components).unwrap();
        let (tenant, _) = store.create_tenant("diku").unwrap();
        tenant.write(inventory::load_reference_data).unwrap();
        tenant.write(auth::seed_groups).unwrap();
        tenant.write(crate::seed).unwrap();
        let holdings = tenant
            .write(|w| {
                let instance = json!({"source": "FOLIO", "title": TITLE,
                    "instanceTypeId": TEXT_INSTANCE_TYPE});
                let instance: inventory::Instance =
                    inventory::create(w, instance.to_string().as_bytes(), Actor::default())?;
                let holdings = json!({"instanceId": instance.id, "permanentLocationId": MAIN_LIBRARY,
                    "sourceId": FOLIO_HOLDINGS_SOURCE, "callNumber": "PS3562.E42 L4"});
                let holdings: inventory::HoldingsRecord =
                    inventory::create(w, holdings.to_string().as_bytes(), Actor::default())?;
                Ok::<_, inventory::Error>(holdings.id.unwrap())
            })
            .unwrap();
        Library { _dir: dir, tenant, rules: RulesCache::new(), holdings }
    }

    /// Runs `f` in one write transaction; committed when it returns `Ok`.
    pub(crate) fn write<T: Send>(
        &self,
        f: impl FnOnce(&mut store::Writer<'_>) -> Result<T> + Send,
    ) -> Result<T> {
        self.tenant.write(f)
    }

    /// An item of the instance, Available, a book that can circulate, with `extra`'s
    /// members set; returns its id.
    pub(crate) fn item(&self, barcode: &str, extra: Value) -> Uuid {
        let body = merged(
            json!({"holdingsRecordId": self.holdings, "barcode": barcode,
                "status": {"name": "Available"}, "materialTypeId": BOOK,
                "permanentLoanTypeId": CAN_CIRCULATE}),
            extra,
        );
        let item: inventory::Item = self
            .tenant
            .write(|w| inventory::create(w, body.to_string().as_bytes(), Actor::default()))
            .unwrap();
        item.id.unwrap()
    }

    /// An active staff patron named "Reader, `barcode`", with `extra`'s members set;
    /// returns its id.
    pub(crate) fn patron(&self, barcode: &str, extra: Value) -> Uuid {
        let body = merged(
            json!({"username": format!("u-{barcode}"), "barcode": barcode, "active": true,
                "patronGroup": STAFF, "personal": {"lastName": "Reader", "firstName": barcode}}),
            extra,
        );
        let user: auth::User = serde_json::from_value(body).unwrap();
        let user = self.tenant.write(|w| auth::create_user(w, user, None)).unwrap();
        user.id.unwrap()
    }

    /// Stores a circulation record given as JSON.
    pub(crate) fn record<R: Record + Send>(&self, body: Value) -> R {
        let record: R = serde_json::from_value(body).unwrap();
        self.write(|w| records::create(w, record, Actor::default())).unwrap()
    }

    /// Replaces the circulation rules.
    pub(crate) fn rules(&self, text: &str) {
        self.write(|w| crate::put_rules(w, text, Actor::default())).unwrap();
    }

    /// The tenant's time zone, as FOLIO's locale settings give it.
    pub(crate) fn time_zone(&self, zone: &str) {
        let value = json!({"locale": "en-US", "timezone": zone, "currency": "USD"}).to_string();
        let entry = json!({"module": "ORG", "configName": "localeSettings", "enabled": true,
            "value": value});
        let entry: settings::ConfigEntry = serde_json::from_value(entry).unwrap();
        self.tenant.write(|w| settings::create(w, entry, Actor::default())).unwrap();
    }

    pub(crate) fn calendar(&self, body: Value) {
        let calendar: calendar::Calendar = serde_json::from_value(body).unwrap();
        self.tenant.write(|w| calendar::create(w, calendar, Actor::default())).unwrap();
    }

    /// Switches an automated block condition on for `group`: reached at `value`, it blocks
    /// what `blocks` names (`borrowing`, `renewals`, `requests`) with `message`.
    pub(crate) fn automated_block(
        &self,
        condition: &str,
        group: &str,
        value: f64,
        blocks: &[&str],
        message: &str,
    ) {
        let id = uuid(condition);
        let mut stored: PatronBlockCondition = self.get(id);
        stored.block_borrowing = blocks.contains(&"borrowing");
        stored.block_renewals = blocks.contains(&"renewals");
        stored.block_requests = blocks.contains(&"requests");
        stored.message = Some(message.to_string());
        self.write(|w| records::replace(w, id, stored, Actor::default())).unwrap();
        self.record::<PatronBlockLimit>(
            json!({"patronGroupId": group, "conditionId": condition, "value": value}),
        );
    }

    /// `proxy` may borrow for `sponsor`, with `extra`'s members set on the relationship.
    pub(crate) fn proxy(&self, sponsor: Uuid, proxy: Uuid, extra: Value) {
        let body = merged(json!({"userId": sponsor, "proxyUserId": proxy}), extra);
        let relationship: auth::ProxyFor = serde_json::from_value(body).unwrap();
        self.tenant.write(|w| auth::create_proxy(w, relationship, None)).unwrap();
    }

    /// Checks out with `body` at `now`, the caller holding the permissions to override
    /// `may_override`.
    pub(crate) fn check_out_as(
        &self,
        body: Value,
        may_override: &[OverridableBlock],
        now: DateTime<Utc>,
    ) -> Result<Loan> {
        let request: CheckOutRequest = serde_json::from_value(body).unwrap();
        let may = |block| may_override.contains(&block);
        self.write(|w| {
            crate::check_out(w, &self.rules, request, &may, Actor::default(), now).map(|c| c.loan)
        })
    }

    /// Checks `item` out to `user` at Circ Desk 1 at `now`, with `extra`'s members set
    /// in the request; the caller may override nothing.
    pub(crate) fn check_out(
        &self,
        item: &str,
        user: &str,
        extra: Value,
        now: DateTime<Utc>,
    ) -> Result<Loan> {
        let body = merged(
            json!({"itemBarcode": item, "userBarcode": user, "servicePointId": DESK_1}),
            extra,
        );
        self.check_out_as(body, &[], now)
    }

    /// Checks `item` in at `service_point`, returned at `returned`, at `now`.
    pub(crate) fn check_in(
        &self,
        item: &str,
        service_point: &str,
        returned: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<CheckInOutcome> {
        let body = json!({"itemBarcode": item, "servicePointId": service_point,
            "checkInDate": returned.to_rfc3339()});
        let request: CheckInRequest = serde_json::from_value(body).unwrap();
        self.write(|w| crate::check_in(w, request, Actor::default(), now))
    }

    /// Renews with `body` at `now`, the caller holding the permissions to override
    /// `may_override`.
    pub(crate) fn renew_as(
        &self,
        body: Value,
        may_override: &[OverridableBlock],
        now: DateTime<Utc>,
    ) -> Result<Loan> {
        let request: RenewRequest = serde_json::from_value(body).unwrap();
        let may = |block| may_override.contains(&block);
        self.write(|w| crate::renew(w, &self.rules, request, &may, Actor::default(), now))
    }

    /// Places a request of `kind` on `item` for `requester`, to be picked up at Circ
    /// Desk 1, with `extra`'s members set, at `now`.
    pub(crate) fn request(
        &self,
        kind: &str,
        item: Uuid,
        requester: Uuid,
        extra: Value,
        now: DateTime<Utc>,
    ) -> Result<Request> {
        let body = merged(
            json!({"requestType": kind, "requestDate": now.to_rfc3339(), "requesterId": requester,
                "itemId": item, "fulfillmentPreference": "Hold Shelf",
                "pickupServicePointId": DESK_1}),
            extra,
        );
        let request: Request = serde_json::from_value(body).unwrap();
        self.write(|w| crate::create_request(w, &self.rules, request, Actor::default(), now))
    }

    pub(crate) fn get<R: Record + Send>(&self, id: Uuid) -> R {
        self.tenant.read(|r| records::get::<R>(r, id)).unwrap().expect("the record exists").record
    }

    /// The status of the item with this barcode.
    pub(crate) fn item_status(&self, barcode: &str) -> &'static str {
        let item = self.tenant.read(|r| inventory::item_by_barcode(r, barcode)).unwrap().unwrap();
        item.status.name.as_str()
    }

    /// The item with this barcode.
    pub(crate) fn stored_item(&self, barcode: &str) -> inventory::Item {
        self.tenant.read(|r| inventory::item_by_barcode(r, barcode)).unwrap().unwrap().record
    }

    /// Every loan of the tenant, oldest loan date first.
    pub(crate) fn loans(&self) -> Vec<Loan> {
        let page = store::Page { offset: 0, limit: 1000 };
        let (bodies, _) = self.tenant.read(|r| records::list_json::<Loan>(r, None, page)).unwrap();
        let mut loans: Vec<Loan> =
            bodies.iter().map(|b| serde_json::from_str(b).unwrap()).collect();
        loans.sort_by_key(|l| l.loan_date.as_datetime());
        loans
    }

    /// The requests on `item`, open ones in queue order first, then closed ones by
    /// requester, as "position type requester-barcode status" lines.
    pub(crate) fn queue(&self, item: Uuid) -> String {
        let requests: Vec<Request> =
            self.tenant.read(|r| records::find(r, &[("item_id", &item.to_string())])).unwrap();
        let mut lines: Vec<(u32, String)> = requests
            .iter()
            .map(|request| {
                let requester = self
                    .tenant
                    .read(|r| auth::get_user(r, request.requester_id))
                    .unwrap()
                    .and_then(|u| u.record.barcode)
                    .unwrap_or_default();
                let position = request.position.map_or("-".to_string(), |p| p.to_string());
                let line = format!(
                    "{position} {} {requester} {}\n",
                    request.request_type.as_str(),
                    request.status().as_str()
                );
                (request.position.unwrap_or(u32::MAX), line)
            })
            .collect();
        lines.sort();
        lines.into_iter().map(|(_, line)| line).collect()
    }
}
