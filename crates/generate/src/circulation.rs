//! The circulation part of a generated data set: patrons in FOLIO's patron groups, a few
//! loan policies and the circulation rules that choose them, an open loan for every item
//! the generator marks Checked out, and requests as the PTF seed data has them (holds and
//! recalls queued on loaned items, a request waiting on the shelf for each item Awaiting
//! pickup, a page for each Paged item).
//!
//! Loans are dated from the item's status date, like the PTF seed loans (due in 2019),
//! so most are overdue and a check-in of one runs the overdue-fine path.

use std::collections::HashMap;

use anyhow::Context;
use chrono::{DateTime, Duration, Utc};
use circ::PolicyKind;
use inventory::RefKind;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::SeedableRng;
use serde_json::json;
use uuid::Uuid;

use crate::words::{Words, capitalize};

/// Loan policies the generator adds beside the tenant's default one, with fixed ids so a
/// second run finds them.
const FACULTY_POLICY: &str = "6f5f1a43-3c1e-4b2a-9a7e-0c3a5d1b2e01";
const SHORT_POLICY: &str = "6f5f1a43-3c1e-4b2a-9a7e-0c3a5d1b2e02";
const NON_CIRCULATING_POLICY: &str = "6f5f1a43-3c1e-4b2a-9a7e-0c3a5d1b2e03";

/// Patron groups and their shares among generated patrons, in per mille.
const GROUP_SHARES: &[(&str, u32)] =
    &[("undergrad", 550), ("graduate", 200), ("faculty", 100), ("staff", 150)];

/// The share of loaned items with a queue of holds and recalls (PTF seed: 1,482 of 5,158).
const QUEUED_SHARE: f64 = 0.29;

/// An item the generator gave a circulating status, for its loan or request.
#[derive(Debug, Clone)]
pub(crate) struct Circulating {
    pub item: Uuid,
    pub holdings: Uuid,
    pub instance: Uuid,
    pub location: Uuid,
    pub material_type: Uuid,
    pub loan_type: Uuid,
    pub status: &'static str,
    pub since: DateTime<Utc>,
}

/// What the circulation part wrote.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CirculationReport {
    pub users: usize,
    pub open_loans: usize,
    pub overdue_loans: usize,
    pub requests: usize,
    /// Loaned items with at least one hold or recall waiting.
    pub queued_items: usize,
    pub rules_replaced: bool,
}

/// A generated patron who can borrow.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Patron {
    id: Uuid,
    group: Uuid,
}

/// Writes loans and requests for each batch's circulating items.
pub(crate) struct Circulation {
    rng: ChaCha8Rng,
    patrons: Vec<Patron>,
    rules: circ_rules::Rules,
    /// Location → (institution, campus, library, primary service point).
    locations: HashMap<Uuid, (Uuid, Uuid, Uuid, Uuid)>,
    pickup_points: Vec<Uuid>,
    pub report: CirculationReport,
}

impl Circulation {
    /// Adds the patrons, the policies and (unless the library changed them) the rules.
    pub(crate) fn prepare(
        tenant: &store::Tenant,
        seed: u64,
        n_patrons: usize,
    ) -> anyhow::Result<Circulation> {
        let groups: HashMap<String, Uuid> = tenant.read(|r| {
            let (bodies, _) = auth::list_groups(r, None, store::Page { offset: 0, limit: 1000 })?;
            let mut out = HashMap::new();
            for body in bodies {
                let group: auth::PatronGroup = serde_json::from_str(&body)?;
                if let (Some(name), Some(id)) = (group.group, group.id) {
                    out.insert(name, id);
                }
            }
            Ok::<_, anyhow::Error>(out)
        })?;
        let group_id = |name: &str| {
            groups
                .get(name)
                .copied()
                .with_context(|| format!("the tenant has no patron group named {name:?}"))
        };
        let group_shares: Vec<(Uuid, u32)> = GROUP_SHARES
            .iter()
            .map(|(name, share)| Ok((group_id(name)?, *share)))
            .collect::<anyhow::Result<_>>()?;
        let faculty = group_id("faculty")?;

        let (locations, pickup_points, course_reserves, reading_room) = tenant.read(|r| {
            let mut locations = HashMap::new();
            for id in crate::dataset::ids_of(r, RefKind::Location)? {
                let location = inventory::get_location(r, id)?.context("listed location")?;
                locations.insert(
                    id,
                    (
                        location.institution_id,
                        location.campus_id,
                        location.library_id,
                        location.primary_service_point,
                    ),
                );
            }
            let mut pickup = Vec::new();
            for id in crate::dataset::ids_of(r, RefKind::ServicePoint)? {
                let point = inventory::get_service_point(r, id)?.context("listed service point")?;
                if point.pickup_location == Some(true) {
                    pickup.push(id);
                }
            }
            let loan_type = |name| {
                inventory::reference_id_by_name(r, RefKind::LoanType, name)?
                    .with_context(|| format!("the tenant has no loan type {name:?}"))
            };
            Ok::<_, anyhow::Error>((
                locations,
                pickup,
                loan_type("Course reserves")?,
                loan_type("Reading room")?,
            ))
        })?;
        anyhow::ensure!(!pickup_points.is_empty(), "the tenant has no pickup service point");

        let (r, n, o, i) = (
            circ::DEFAULT_REQUEST_POLICY_ID,
            circ::DEFAULT_NOTICE_POLICY_ID,
            circ::DEFAULT_OVERDUE_FINE_POLICY_ID,
            circ::DEFAULT_LOST_ITEM_FEE_POLICY_ID,
        );
        let rest = format!("r {r} n {n} o {o} i {i}");
        let rules_text = format!(
            "priority: number-of-criteria, criterium (t, s, c, b, a, m, g), last-line\n\
             fallback-policy: l {default} {rest}\n\
             # Faculty borrow for a semester.\n\
             g {faculty}: l {FACULTY_POLICY} {rest}\n\
             # Course reserves go out for three days, reading-room copies stay in.\n\
             t {course_reserves}: l {SHORT_POLICY} {rest}\n\
             t {reading_room}: l {NON_CIRCULATING_POLICY} {rest}\n",
            default = circ::DEFAULT_LOAN_POLICY_ID,
        );
        let rules = circ_rules::Rules::compile(&rules_text)
            .map_err(|e| anyhow::anyhow!("generated rules: {e}"))?;

        let words = Words::new();
        let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x5eed_05e5);
        let first = tenant
            .read(|r| auth::list_users(r, None, store::Page { offset: 0, limit: 0 }))?
            .1 as usize;
        let mut report = CirculationReport { users: n_patrons, ..CirculationReport::default() };
        let mut patrons = Vec::with_capacity(n_patrons);
        tenant.write(|w| {
            write_policies(w)?;
            let current = circ::get_rules(w)?.rules_as_text;
            if current.is_empty() || current == default_rules_text() {
                circ::put_rules(w, &rules_text, folio::Actor::default())?;
                report.rules_replaced = true;
            }
            for idx in 0..n_patrons {
                let number = first + idx + 1;
                let id = crate::dataset::uuid(&mut rng);
                let group = weighted_id(&mut rng, &group_shares);
                let active = rng.gen_bool(0.95);
                // Fixed dates keep runs reproducible; active patrons expire years ahead.
                let expires = if active {
                    format!("{}-08-31T23:59:59.000+00:00", rng.gen_range(2030..2034))
                } else {
                    format!("{}-05-31T23:59:59.000+00:00", rng.gen_range(2019..2024))
                };
                let user: auth::User = serde_json::from_value(json!({
                    "id": id,
                    "username": format!("patron{number:07}"),
                    "barcode": format!("P{number:09}"),
                    "active": active,
                    "type": "patron",
                    "patronGroup": group,
                    "expirationDate": expires,
                    "personal": {
                        "lastName": capitalize(words.uniform(&mut rng)),
                        "firstName": capitalize(words.uniform(&mut rng)),
                        "email": format!("patron{number}@example.org"),
                    },
                }))?;
                auth::create_user(w, user, None)?;
                if active {
                    patrons.push(Patron { id, group });
                }
            }
            Ok::<_, anyhow::Error>(())
        })?;
        anyhow::ensure!(patrons.len() >= 2, "too few active patrons for loans and requests");
        Ok(Circulation {
            rng: ChaCha8Rng::seed_from_u64(seed ^ 0xc12c_0001),
            patrons,
            rules,
            locations,
            pickup_points,
            report,
        })
    }

    fn patron(&mut self) -> Patron {
        self.patrons[self.rng.gen_range(0..self.patrons.len())]
    }

    /// Loans and requests for one batch's circulating items, in the batch's transaction.
    pub(crate) fn write(
        &mut self,
        w: &mut store::Writer<'_>,
        items: &[Circulating],
    ) -> anyhow::Result<()> {
        let actor = folio::Actor::default();
        let now = Utc::now();
        for item in items {
            match item.status {
                "Checked out" => {
                    let borrower = self.patron();
                    let &(institution, campus, library, service_point) =
                        self.locations.get(&item.location).context("item location")?;
                    let inputs = circ::RuleInputs {
                        patron_group_id: borrower.group,
                        material_type_id: item.material_type,
                        loan_type_id: item.loan_type,
                        location_id: item.location,
                        institution_id: institution,
                        campus_id: campus,
                        library_id: library,
                    };
                    let policy = |kind| circ::lookup(&self.rules, kind, &inputs);
                    let loan_policy = policy(PolicyKind::Loan)?.policy_id;
                    let days = match loan_policy.to_string().as_str() {
                        FACULTY_POLICY => 112,
                        SHORT_POLICY => 3,
                        _ => 60,
                    };
                    let due = item.since + Duration::days(days);
                    self.report.overdue_loans += (due < now) as usize;
                    let loan: circ::model::Loan = serde_json::from_value(json!({
                        "id": crate::dataset::uuid(&mut self.rng),
                        "userId": borrower.id,
                        "itemId": item.item,
                        "itemEffectiveLocationIdAtCheckOut": item.location,
                        "status": {"name": "Open"},
                        "loanDate": timestamp(item.since),
                        "dueDate": timestamp(due),
                        "action": "checkedout",
                        "itemStatus": "Checked out",
                        "renewalCount": 0,
                        "loanPolicyId": loan_policy,
                        "overdueFinePolicyId": policy(PolicyKind::OverdueFine)?.policy_id,
                        "lostItemPolicyId": policy(PolicyKind::LostItem)?.policy_id,
                        "checkoutServicePointId": service_point,
                        "patronGroupIdAtCheckout": borrower.group,
                    }))?;
                    circ::create(w, loan, actor)?;
                    self.report.open_loans += 1;
                    if self.rng.gen_bool(QUEUED_SHARE) {
                        let n = 1 + self.rng.gen_range(0..4);
                        for position in 1..=n {
                            let kind = if self.rng.gen_bool(0.52) { "Hold" } else { "Recall" };
                            let at = item.since + Duration::hours(self.rng.gen_range(1..24 * 50));
                            self.request(w, item, kind, "Open - Not yet filled", position, at)?;
                        }
                        self.report.queued_items += 1;
                    }
                }
                "Awaiting pickup" => {
                    let at = item.since - Duration::days(self.rng.gen_range(1..10));
                    self.request(w, item, "Hold", "Open - Awaiting pickup", 1, at)?;
                }
                "Paged" => {
                    let at = item.since;
                    self.request(w, item, "Page", "Open - Not yet filled", 1, at)?;
                }
                _ => {}
            }
        }
        Ok(())
    }

    fn request(
        &mut self,
        w: &mut store::Writer<'_>,
        item: &Circulating,
        kind: &str,
        status: &str,
        position: u32,
        at: DateTime<Utc>,
    ) -> anyhow::Result<()> {
        let requester = self.patron();
        let pickup = self.pickup_points[self.rng.gen_range(0..self.pickup_points.len())];
        let mut request = json!({
            "id": crate::dataset::uuid(&mut self.rng),
            "requestType": kind,
            "requestLevel": "Item",
            "requestDate": timestamp(at),
            "requesterId": requester.id,
            "instanceId": item.instance,
            "holdingsRecordId": item.holdings,
            "itemId": item.item,
            "status": status,
            "position": position,
            "fulfillmentPreference": "Hold Shelf",
            "pickupServicePointId": pickup,
        });
        if status == "Open - Awaiting pickup" {
            request["holdShelfExpirationDate"] = json!(timestamp(item.since + Duration::days(10)));
        }
        let request: circ::model::Request = serde_json::from_value(request)?;
        circ::create(w, request, folio::Actor::default())?;
        self.report.requests += 1;
        Ok(())
    }
}

fn timestamp(at: DateTime<Utc>) -> String {
    folio::Timestamp::from(at).to_string()
}

fn weighted_id(rng: &mut impl Rng, table: &[(Uuid, u32)]) -> Uuid {
    let total: u32 = table.iter().map(|(_, w)| w).sum();
    let mut pick = rng.gen_range(0..total);
    for (id, weight) in table {
        if pick < *weight {
            return *id;
        }
        pick -= weight;
    }
    table[0].0
}

/// The rules a new tenant starts with (circ's seed): replaced by the generated ones;
/// rules a library wrote itself are left alone.
fn default_rules_text() -> String {
    format!(
        "priority: number-of-criteria, criterium (t, s, c, b, a, m, g), last-line\n\
         fallback-policy: l {} r {} n {} o {} i {}\n",
        circ::DEFAULT_LOAN_POLICY_ID,
        circ::DEFAULT_REQUEST_POLICY_ID,
        circ::DEFAULT_NOTICE_POLICY_ID,
        circ::DEFAULT_OVERDUE_FINE_POLICY_ID,
        circ::DEFAULT_LOST_ITEM_FEE_POLICY_ID,
    )
}

fn write_policies(w: &mut store::Writer<'_>) -> anyhow::Result<()> {
    let policies = [
        json!({
            "id": FACULTY_POLICY, "name": "Faculty semester loan",
            "description": "16 weeks, renewable twice",
            "loanable": true, "renewable": true,
            "loansPolicy": {"profileId": "Rolling", "period": {"duration": 16, "intervalId": "Weeks"},
                "closedLibraryDueDateManagementId": "CURRENT_DUE_DATE"},
            "renewalsPolicy": {"unlimited": false, "numberAllowed": 2, "renewFromId": "CURRENT_DUE_DATE"},
        }),
        json!({
            "id": SHORT_POLICY, "name": "Course reserve 3-day loan",
            "loanable": true, "renewable": false,
            "loansPolicy": {"profileId": "Rolling", "period": {"duration": 3, "intervalId": "Days"},
                "closedLibraryDueDateManagementId": "CURRENT_DUE_DATE"},
        }),
        json!({
            "id": NON_CIRCULATING_POLICY, "name": "Reading room use only",
            "loanable": false, "renewable": false,
        }),
    ];
    for policy in policies {
        let policy: circ::model::LoanPolicy = serde_json::from_value(policy)?;
        let id = policy.id.context("built-in policy id")?;
        if circ::get::<circ::model::LoanPolicy>(w, id)?.is_none() {
            circ::create(w, policy, folio::Actor::default())?;
        }
    }
    Ok(())
}
