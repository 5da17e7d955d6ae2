//! The circulation desk's paths: check-out, renewal, check-in on time, late and
//! elsewhere, holds and recalls, every refusal with FOLIO's message, the rules, and
//! concurrent check-outs of one item.

use axum::http::StatusCode;
use serde_json::{Value, json};

use crate::{
    instances::urlencode,
    support::{Client, Response, TestApp},
};

pub(crate) const DESK_1: &str = "3a40852d-49fd-4df2-a1f9-6e2641a6e91f";
const DESK_2: &str = "c4c90014-c8c9-4ade-8f24-b5e313319f4b";
const BOOK: &str = "1a54b431-2e4f-452d-9cae-9cee66c9a892";

pub(crate) struct Desk<'a> {
    pub(crate) c: Client<'a>,
    pub(crate) holdings: Value,
    group: String,
}

impl<'a> Desk<'a> {
    pub(crate) async fn new(app: &'a TestApp) -> Desk<'a> {
        let c = Client::admin(app, "diku").await;
        let holdings = c.create_holdings().await;
        let groups = c.get("/groups?limit=10").await;
        assert_eq!(groups.status, StatusCode::OK, "{}", groups.text);
        let group = groups.body["usergroups"][0]["id"].as_str().unwrap().to_string();
        Desk { c, holdings, group }
    }

    pub(crate) async fn item(&self, barcode: &str) -> Value {
        let body = self.c.item_json(&self.holdings["id"], barcode).await;
        let r = self.c.post("/item-storage/items", &body).await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
        r.body
    }

    pub(crate) async fn patron(&self, barcode: &str, extra: Value) -> Value {
        let mut body = json!({"username": format!("u-{barcode}"), "barcode": barcode, "active": true,
            "patronGroup": self.group, "personal": {"lastName": format!("Reader {barcode}"), "firstName": "Ann"}});
        for (k, v) in extra.as_object().unwrap() {
            body[k] = v.clone();
        }
        let r = self.c.post("/users", &body).await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
        r.body
    }

    pub(crate) async fn check_out(&self, item: &str, user: &str, extra: Value) -> Response {
        let mut body = json!({"itemBarcode": item, "userBarcode": user, "servicePointId": DESK_1});
        for (k, v) in extra.as_object().unwrap() {
            body[k] = v.clone();
        }
        self.c.post("/circulation/check-out-by-barcode", &body).await
    }

    pub(crate) async fn check_in(&self, item: &str, sp: &str) -> Response {
        let body = json!({"itemBarcode": item, "servicePointId": sp,
            "checkInDate": chrono::Utc::now().to_rfc3339()});
        self.c.post("/circulation/check-in-by-barcode", &body).await
    }

    async fn item_status(&self, item: &Value) -> String {
        let r = self.c.get(&format!("/item-storage/items/{}", item["id"].as_str().unwrap())).await;
        r.body["status"]["name"].as_str().unwrap().to_string()
    }

    /// A loan policy that lends nothing; returns its id.
    async fn reference_policy(&self) -> String {
        let body = json!({"name": "Reference", "loanable": false, "renewable": false});
        let r = self.c.post("/loan-policy-storage/loan-policies", &body).await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
        r.body["id"].as_str().unwrap().to_string()
    }

    async fn put_rules(&self, rules: &str) {
        let r = self.c.put("/circulation/rules", &json!({"rulesAsText": rules})).await;
        assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
    }

    /// A staff member `clerk` who holds only `permissions`, logged in.
    async fn clerk(&self, app: &'a TestApp, permissions: &[&str]) -> Client<'a> {
        let body = json!({"username": "clerk", "active": true, "personal": {"lastName": "Clerk"}});
        let r = self.c.post("/users", &body).await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
        let id = r.body["id"].as_str().unwrap().to_string();
        let credentials = json!({"userId": id, "username": "clerk", "password": "pw"});
        assert_eq!(
            self.c.post("/authn/credentials", &credentials).await.status,
            StatusCode::CREATED
        );
        let perms = json!({"userId": id, "permissions": permissions});
        assert_eq!(self.c.post("/perms/users", &perms).await.status, StatusCode::CREATED);
        Client { app, tenant: "diku".into(), token: app.login_as("diku", "clerk", "pw").await }
    }

    pub(crate) async fn request(&self, kind: &str, item: &Value, requester: &Value) -> Response {
        let body = json!({"requestType": kind, "requestDate": chrono::Utc::now().to_rfc3339(),
            "requesterId": requester["id"], "itemId": item["id"],
            "fulfillmentPreference": "Hold Shelf", "pickupServicePointId": DESK_1});
        self.c.post("/circulation/requests", &body).await
    }
}

/// The default request, notice, overdue fine and lost item policies, as a rule's tail.
fn default_policies_but_loan() -> String {
    format!(
        "r {} n {} o {} i {}",
        circ::DEFAULT_REQUEST_POLICY_ID,
        circ::DEFAULT_NOTICE_POLICY_ID,
        circ::DEFAULT_OVERDUE_FINE_POLICY_ID,
        circ::DEFAULT_LOST_ITEM_FEE_POLICY_ID
    )
}

/// A check-out at the first desk with `overrideBlocks`.
fn with_overrides(item: &str, user: &str, overrides: Value) -> Value {
    json!({"itemBarcode": item, "userBarcode": user, "servicePointId": DESK_1,
        "overrideBlocks": overrides})
}

fn messages(r: &Response) -> Vec<String> {
    r.body["errors"]
        .as_array()
        .unwrap_or_else(|| panic!("no errors in {}", r.text))
        .iter()
        .map(|e| e["message"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn check_out_renew_hold_and_check_in() {
    let app = TestApp::new();
    let desk = Desk::new(&app).await;
    let item = desk.item("CO-1").await;
    desk.patron("P-1", json!({})).await;
    let p2 = desk.patron("P-2", json!({})).await;

    // Check out: 201 with the loan, due 60 days out at the end of the day (the default
    // policy), the item Checked out.
    let r = desk.check_out("CO-1", "P-1", json!({})).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let loan = r.body.clone();
    assert_eq!(loan["status"]["name"], "Open");
    assert_eq!(loan["action"], "checkedout");
    assert_eq!(loan["item"]["barcode"], "CO-1");
    assert_eq!(loan["item"]["title"], "Holdings test");
    assert_eq!(loan["borrower"]["barcode"], "P-1");
    assert_eq!(loan["loanPolicy"]["name"], "Example Loan Policy");
    assert_eq!(loan["feesAndFines"].to_string(), r#"{"amountRemainingToPay":0.0}"#);
    assert!(
        loan["dueDate"].as_str().unwrap().ends_with("T23:59:59.000+00:00"),
        "{}",
        loan["dueDate"]
    );
    let location = r.headers["location"].to_str().unwrap().to_string();
    assert_eq!(location, format!("/circulation/loans/{}", loan["id"].as_str().unwrap()));
    assert_eq!(desk.item_status(&item).await, "Checked out");

    // The same item again, to another patron: both of FOLIO's reasons, nothing written.
    let r = desk.check_out("CO-1", "P-2", json!({})).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.text);
    assert_eq!(
        messages(&r),
        ["Item is already checked out", "Cannot check out item that already has an open loan"]
    );
    assert_eq!(r.body["errors"][1]["code"], "ITEM_HAS_OPEN_LOAN");

    // Renew: the default policy renews from the due date for 30 more days.
    let r = desk
        .c
        .post(
            "/circulation/renew-by-barcode",
            &json!({"itemBarcode": "CO-1", "userBarcode": "P-1"}),
        )
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.body["renewalCount"], 1);
    assert_eq!(r.body["action"], "renewed");
    assert!(r.body["dueDate"].as_str().unwrap() > loan["dueDate"].as_str().unwrap());
    let r = desk
        .c
        .post(
            "/circulation/renew-by-barcode",
            &json!({"itemBarcode": "CO-1", "userBarcode": "P-2"}),
        )
        .await;
    assert_eq!(messages(&r), ["Cannot renew item checked out to different user"]);

    // A hold by another patron: first in the queue, and renewals stop.
    let r = desk.request("Hold", &item, &p2).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let hold = r.body.clone();
    assert_eq!(hold["position"], 1);
    assert_eq!(hold["status"], "Open - Not yet filled");
    let r = desk
        .c
        .post(
            "/circulation/renew-by-barcode",
            &json!({"itemBarcode": "CO-1", "userBarcode": "P-1"}),
        )
        .await;
    assert_eq!(
        messages(&r),
        [
            "Items with this loan policy cannot be renewed when there is an active, pending hold request"
        ]
    );
    // The same patron cannot hold it twice.
    let r = desk.request("Hold", &item, &p2).await;
    assert_eq!(messages(&r), ["This requester already has an open request for this item"]);

    // Check in at the pickup desk: loan closed, the hold awaits pickup, so does the item.
    let r = desk.check_in("CO-1", DESK_1).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.body["loan"]["status"]["name"], "Closed");
    assert_eq!(r.body["loan"]["action"], "checkedin");
    assert_eq!(r.body["item"]["status"]["name"], "Awaiting pickup");
    // The staff slip context says for whom: the hold slip's requester and request.
    let slip = &r.body["staffSlipContext"];
    assert_eq!(slip["requester"]["barcode"], "P-2", "{slip}");
    assert_eq!(slip["requester"]["lastName"], "Reader P-2");
    assert_eq!(slip["requester"]["preferredFirstName"], "Ann");
    assert_eq!(slip["request"]["requestID"], hold["id"]);
    assert_eq!(slip["request"]["servicePointPickup"], "Circ Desk 1");
    assert!(slip["request"]["holdShelfExpirationDate"].is_string(), "{slip}");
    assert_eq!(slip["item"]["barcode"], "CO-1");
    assert_eq!(slip["item"]["status"], "Awaiting pickup");
    assert_eq!(slip["item"]["fromServicePoint"], "Circ Desk 1");
    assert!(slip["item"].get("toServicePoint").is_none(), "{slip}");
    let hold_path = format!("/circulation/requests/{}", hold["id"].as_str().unwrap());
    assert_eq!(desk.c.get(&hold_path).await.body["status"], "Open - Awaiting pickup");

    // Someone else cannot take it; the requester can, which fills the request.
    let r = desk.check_out("CO-1", "P-1", json!({})).await;
    assert_eq!(
        messages(&r),
        [
            "Holdings test (Barcode: CO-1) cannot be checked out to user Reader P-1, Ann because it has been requested by another patron"
        ]
    );
    let r = desk.check_out("CO-1", "P-2", json!({})).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let filled = desk.c.get(&hold_path).await.body;
    assert_eq!(filled["status"], "Closed - Filled");
    assert!(filled.get("position").is_none(), "{filled}");

    // Loans by the desk's queries.
    let q = urlencode(&format!("(userId=={} and status.name<>Closed)", p2["id"].as_str().unwrap()));
    let r = desk.c.get(&format!("/circulation/loans?query={q}&limit=1")).await;
    assert_eq!(r.body["totalRecords"], 1, "{}", r.text);
    let q = urlencode(&format!("itemId=={}", item["id"].as_str().unwrap()));
    assert_eq!(desk.c.get(&format!("/loan-storage/loans?query={q}")).await.body["totalRecords"], 2);
}

#[tokio::test]
async fn late_return_fine_transit_and_recall() {
    let app = TestApp::new();
    let desk = Desk::new(&app).await;
    desk.item("L-1").await;
    let recalled = desk.item("R-1").await;
    let p1 = desk.patron("P-1", json!({})).await;
    let p2 = desk.patron("P-2", json!({})).await;

    // A fine policy of 1.00 a day up to 10.00, chosen by the fallback rule.
    let r = desk
        .c
        .post(
            "/overdue-fines-policies",
            &json!({"name": "Daily", "countClosed": true, "maxOverdueFine": 10.0,
                "overdueFine": {"quantity": 1.0, "intervalId": "day"}}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let fine_policy = r.body["id"].as_str().unwrap().to_string();
    let rules = format!(
        "priority: t, s, c, b, a, m, g\nfallback-policy: l {} r {} n {} o {fine_policy} i {}\n",
        circ::DEFAULT_LOAN_POLICY_ID,
        circ::DEFAULT_REQUEST_POLICY_ID,
        circ::DEFAULT_NOTICE_POLICY_ID,
        circ::DEFAULT_LOST_ITEM_FEE_POLICY_ID
    );
    let r = desk.c.put("/circulation/rules", &json!({"rulesAsText": rules})).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);

    // Lent 90 days ago for 60 days: a month late, past the 7-day grace period, so
    // the fine reaches its cap.
    let ninety_days_ago = (chrono::Utc::now() - chrono::Duration::days(90)).to_rfc3339();
    let r = desk.check_out("L-1", "P-1", json!({"loanDate": ninety_days_ago})).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    // Checked in at a desk that does not serve the item's location: In transit home.
    let r = desk.check_in("L-1", DESK_2).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.body["item"]["status"]["name"], "In transit");
    assert_eq!(r.body["item"]["inTransitDestinationServicePointId"], DESK_1);
    // The transit slip names both desks; no request is served.
    let slip = &r.body["staffSlipContext"];
    assert_eq!(slip["item"]["fromServicePoint"], "Circ Desk 2", "{slip}");
    assert_eq!(slip["item"]["toServicePoint"], "Circ Desk 1");
    assert!(slip.get("requester").is_none() && slip.get("request").is_none(), "{slip}");
    assert_eq!(r.body["loan"]["feesAndFines"]["amountRemainingToPay"], 10.0);
    let q = urlencode(&format!("(userId=={} and status.name<>Closed)", p1["id"].as_str().unwrap()));
    let accounts = desk.c.get(&format!("/accounts?query={q}")).await.body;
    assert_eq!(accounts["totalRecords"], 1, "{accounts}");
    assert_eq!(accounts["accounts"][0]["feeFineType"], "Overdue fine");
    assert_eq!(accounts["accounts"][0]["amount"], 10.0);
    // Arriving home makes it Available.
    let r = desk.check_in("L-1", DESK_1).await;
    assert_eq!(r.body["item"]["status"]["name"], "Available");
    assert!(r.body.get("loan").is_none());

    // A recall cuts a fresh 60-day loan to the 30-day minimum guaranteed period.
    let r = desk.check_out("R-1", "P-1", json!({})).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let loan = r.body.clone();
    let r = desk.request("Recall", &recalled, &p2).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let loan_path = format!("/circulation/loans/{}", loan["id"].as_str().unwrap());
    let after = desk.c.get(&loan_path).await.body;
    assert_eq!(after["dueDateChangedByRecall"], true);
    let due = chrono::DateTime::parse_from_rfc3339(after["dueDate"].as_str().unwrap()).unwrap();
    let loaned = chrono::DateTime::parse_from_rfc3339(loan["loanDate"].as_str().unwrap()).unwrap();
    assert_eq!((due - loaned).num_days(), 30);
    let r = desk
        .c
        .post("/circulation/renew-by-barcode", &json!({"itemBarcode": "R-1", "userBarcode": "P-1"}))
        .await;
    assert_eq!(messages(&r), ["items cannot be renewed when there is an active recall request"]);
    // A page is for available items only.
    let r = desk.request("Page", &recalled, &p2).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.text);
}

#[tokio::test]
async fn refusals_name_every_reason_and_change_nothing() {
    let app = TestApp::new();
    let desk = Desk::new(&app).await;
    let item = desk.item("V-1").await;
    let blocked = desk.patron("P-BLOCKED", json!({})).await;
    desk.patron("P-OLD", json!({"active": false})).await;
    desk.patron("P-EXPIRED", json!({"expirationDate": "2020-01-01T00:00:00.000+00:00"})).await;

    let r = desk.check_out("NO-SUCH-ITEM", "NO-SUCH-USER", json!({})).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(
        messages(&r),
        [
            "Could not find user with matching barcode",
            "No item with barcode NO-SUCH-ITEM could be found"
        ]
    );
    assert_eq!(r.body["errors"][0]["parameters"][0]["key"], "userBarcode");

    let r = desk
        .c
        .post(
            "/circulation/check-out-by-barcode",
            &json!({"itemBarcode": "V-1", "userBarcode": "P-OLD"}),
        )
        .await;
    assert_eq!(
        messages(&r),
        ["Check out must be performed at a service point", "Cannot check out to inactive user"]
    );
    let r = desk.check_out("V-1", "P-EXPIRED", json!({})).await;
    assert_eq!(messages(&r), ["Cannot check out to inactive user"]);

    let block = json!({"userId": blocked["id"], "desc": "Damaged a book", "borrowing": true});
    assert_eq!(desk.c.post("/manualblocks", &block).await.status, StatusCode::CREATED);
    let r = desk.check_out("V-1", "P-BLOCKED", json!({})).await;
    assert_eq!(messages(&r), ["Patron blocked from borrowing"]);
    assert_eq!(r.body["errors"][0]["parameters"][0]["value"], "Damaged a book");

    // A policy that lends nothing, for books only, by a rule on the material type.
    let reference = desk.reference_policy().await;
    let others = default_policies_but_loan();
    desk.put_rules(&format!(
        "priority: t, s, c, b, a, m, g\nfallback-policy: l {} {others}\nm {BOOK}: l {reference} {others}\n",
        circ::DEFAULT_LOAN_POLICY_ID
    ))
    .await;
    desk.patron("P-OK", json!({})).await;
    let r = desk.check_out("V-1", "P-OK", json!({})).await;
    assert_eq!(messages(&r), ["Item is not loanable"]);
    assert_eq!(r.body["errors"][0]["code"], "ITEM_NOT_LOANABLE");
    // The lookup endpoint agrees, and says the rule tested the material type.
    let location = desk.holdings["permanentLocationId"].as_str().unwrap();
    let loan_type = item["permanentLoanTypeId"].as_str().unwrap();
    let r = desk
        .c
        .get(&format!(
            "/circulation/rules/loan-policy?item_type_id={BOOK}&loan_type_id={loan_type}&patron_type_id={}&location_id={location}",
            desk.group
        ))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.body["loanPolicyId"], reference.as_str());
    assert_eq!(r.body["appliedRuleConditions"]["materialTypeMatch"], true);

    // Nothing was written by any refusal.
    assert_eq!(desk.item_status(&item).await, "Available");
    assert_eq!(desk.c.count("/loan-storage/loans").await, 0);

    // Rules that do not compile, or name a missing policy, are refused with a position.
    let r = desk
        .c
        .put(
            "/circulation/rules",
            &json!({"rulesAsText": "priority: t, s, c, b, a, m, g\nm book: l x\n"}),
        )
        .await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.text);
    assert!(r.body["line"].as_u64().is_some() && r.body["message"].is_string(), "{}", r.text);
    let missing = format!(
        "priority: t, s, c, b, a, m, g\nfallback-policy: l 00000000-0000-4000-8000-000000000000 {others}\n"
    );
    let r = desk.c.put("/circulation/rules", &json!({"rulesAsText": missing})).await;
    assert_eq!(r.body["message"], "The policy l does not exist", "{}", r.text);
    assert_eq!(r.body["line"], 2);
    let r = desk.c.get("/circulation/rules").await;
    assert!(r.body["rulesAsText"].as_str().unwrap().contains(&reference), "the old rules stand");

    // Check-in needs its fields and a known barcode.
    let r = desk.c.post("/circulation/check-in-by-barcode", &json!({})).await;
    assert_eq!(
        messages(&r),
        [
            "Checkin request must have an item barcode",
            "Checkin request must have a service point id",
            "Checkin request must have an check in date"
        ]
    );
    let r = desk.check_in("NOPE", DESK_1).await;
    assert_eq!(messages(&r), ["No item with barcode NOPE exists"]);
    let r = desk.c.post_raw("/circulation/check-out-by-barcode", b"{not json".to_vec()).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn blocks_are_overridden_with_permission_comment_and_due_date() {
    let app = TestApp::new();
    let desk = Desk::new(&app).await;
    let item = desk.item("O-1").await;
    let patron = desk.patron("P-O", json!({})).await;
    let block = json!({"userId": patron["id"], "desc": "Lost a book", "borrowing": true});
    assert_eq!(desk.c.post("/manualblocks", &block).await.status, StatusCode::CREATED);

    // The refusal says the block can be overridden and the admin may do it.
    let r = desk.check_out("O-1", "P-O", json!({})).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.text);
    assert_eq!(r.body["errors"][0]["code"], "USER_IS_BLOCKED_MANUALLY");
    assert_eq!(
        r.body["errors"][0]["overridableBlock"],
        json!({"name": "patronBlock", "missingPermissions": []})
    );

    // A clerk who may check out but not override.
    let clerk = desk.clerk(&app, &["circulation.check-out-by-barcode.post"]).await;
    let body = |overrides: Value| with_overrides("O-1", "P-O", overrides);
    let r = clerk.post("/circulation/check-out-by-barcode", &body(json!({}))).await;
    assert_eq!(
        r.body["errors"][0]["overridableBlock"]["missingPermissions"],
        json!(["circulation.override-patron-block.post"]),
        "{}",
        r.text
    );
    let r = clerk
        .post(
            "/circulation/check-out-by-barcode",
            &body(json!({"patronBlock": {}, "comment": "ok"})),
        )
        .await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.text);
    assert_eq!(messages(&r), ["Insufficient override permissions"]);
    assert_eq!(r.body["errors"][0]["code"], "INSUFFICIENT_OVERRIDE_PERMISSIONS");
    assert_eq!(r.body["errors"][0]["overridableBlock"]["name"], "patronBlock");

    // With the permission, an override still needs its comment.
    let r =
        desk.c.post("/circulation/check-out-by-barcode", &body(json!({"patronBlock": {}}))).await;
    assert_eq!(messages(&r), ["Override should be performed with the comment specified"]);
    assert_eq!(desk.item_status(&item).await, "Available");
    assert_eq!(desk.c.count("/loan-storage/loans").await, 0);

    let overridden =
        json!({"patronBlock": {}, "comment": "Block lifted by the head of circulation"});
    let r = desk.c.post("/circulation/check-out-by-barcode", &body(overridden)).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    assert_eq!(r.body["action"], "checkedOutThroughOverride");
    assert_eq!(r.body["actionComment"], "Block lifted by the head of circulation");
    assert_eq!(desk.item_status(&item).await, "Checked out");

    // Lending what the policy does not lend takes the due date staff give.
    let reference = desk.reference_policy().await;
    let others = default_policies_but_loan();
    desk.put_rules(&format!(
        "priority: t, s, c, b, a, m, g\nfallback-policy: l {reference} {others}\n"
    ))
    .await;
    desk.item("O-2").await;
    desk.patron("P-R", json!({})).await;
    let body = |overrides: Value| with_overrides("O-2", "P-R", overrides);
    let r = desk.c.post("/circulation/check-out-by-barcode", &body(json!({}))).await;
    assert_eq!(
        r.body["errors"][0]["overridableBlock"]["name"], "itemNotLoanableBlock",
        "{}",
        r.text
    );
    let r = desk
        .c
        .post(
            "/circulation/check-out-by-barcode",
            &body(json!({"itemNotLoanableBlock": {}, "comment": "for the exhibition"})),
        )
        .await;
    assert_eq!(messages(&r), ["Override should be performed with due date specified"]);
    let past =
        json!({"itemNotLoanableBlock": {"dueDate": "2020-01-01T00:00:00.000Z"}, "comment": "x"});
    let r = desk.c.post("/circulation/check-out-by-barcode", &body(past)).await;
    assert_eq!(messages(&r), ["Due date should be later than loan date"]);
    let due = (chrono::Utc::now() + chrono::Duration::days(3))
        .format("%Y-%m-%dT%H:%M:%S%.3fZ")
        .to_string();
    let ok = json!({"itemNotLoanableBlock": {"dueDate": due}, "comment": "for the exhibition"});
    let r = desk.c.post("/circulation/check-out-by-barcode", &body(ok)).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    assert_eq!(r.body["action"], "checkedOutThroughOverride");
    let given = chrono::DateTime::parse_from_rfc3339(&due).unwrap();
    let set = chrono::DateTime::parse_from_rfc3339(r.body["dueDate"].as_str().unwrap()).unwrap();
    assert_eq!(set, given);
    assert_eq!(r.body["loanPolicyId"], reference.as_str());
}

#[tokio::test]
async fn renewal_blocks_are_overridden_with_permission_comment_and_due_date() {
    let app = TestApp::new();
    let desk = Desk::new(&app).await;
    // A three-week loan, renewable once, from the current due date.
    let r = desk
        .c
        .post(
            "/loan-policy-storage/loan-policies",
            &json!({"name": "Once", "loanable": true, "renewable": true,
                "loansPolicy": {"profileId": "Rolling", "period": {"duration": 3, "intervalId": "Weeks"}},
                "renewalsPolicy": {"numberAllowed": 1, "renewFromId": "CURRENT_DUE_DATE"}}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let once = r.body["id"].as_str().unwrap().to_string();
    let others = default_policies_but_loan();
    desk.put_rules(&format!("priority: t, s, c, b, a, m, g\nfallback-policy: l {once} {others}\n"))
        .await;
    desk.item("RO-1").await;
    desk.patron("P-RO", json!({})).await;
    assert_eq!(desk.check_out("RO-1", "P-RO", json!({})).await.status, StatusCode::CREATED);
    let renew = |overrides: Option<Value>| {
        let mut body = json!({"itemBarcode": "RO-1", "userBarcode": "P-RO"});
        if let Some(o) = overrides {
            body["overrideBlocks"] = o;
        }
        body
    };
    let r = desk.c.post("/circulation/renew-by-barcode", &renew(None)).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let first_due = r.body["dueDate"].as_str().unwrap().to_string();

    // The limit is reached: the refusal names the renewal block, which the admin may override.
    let r = desk.c.post("/circulation/renew-by-barcode", &renew(None)).await;
    assert_eq!(messages(&r), ["loan at maximum renewal number"]);
    assert_eq!(
        r.body["errors"][0]["overridableBlock"],
        json!({"name": "renewalBlock", "missingPermissions": []})
    );

    // Without a comment, or without the permission, nothing changes.
    let r = desk
        .c
        .post("/circulation/renew-by-barcode", &renew(Some(json!({"renewalBlock": {}}))))
        .await;
    assert_eq!(messages(&r), ["Override renewal request must have a comment"]);
    assert_eq!(r.body["errors"][0]["code"], "OVERRIDE_RENEWAL_COMMENT_REQUIRED");
    let clerk = desk.clerk(&app, &["circulation.renew-by-barcode.post"]).await;
    let overridden = json!({"renewalBlock": {}, "comment": "Thesis deadline"});
    let r = clerk.post("/circulation/renew-by-barcode", &renew(Some(overridden.clone()))).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.text);
    assert_eq!(messages(&r), ["Insufficient override permissions"]);
    assert_eq!(
        r.body["errors"][0]["overridableBlock"],
        json!({"name": "renewalBlock", "missingPermissions": ["circulation.override-renewal-block.post"]})
    );
    let loans = desk.c.get("/loan-storage/loans?query=status.name%3D%3DOpen").await;
    assert_eq!(loans.body["loans"][0]["renewalCount"], 1);
    assert_eq!(loans.body["loans"][0]["dueDate"], first_due.as_str());

    // Overridden: three more weeks from the current due date, marked with the comment.
    let r = desk.c.post("/circulation/renew-by-barcode", &renew(Some(overridden))).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.body["action"], "renewedThroughOverride");
    assert_eq!(r.body["actionComment"], "Thesis deadline");
    assert_eq!(r.body["renewalCount"], 2);
    let due = |v: &Value| chrono::DateTime::parse_from_rfc3339(v.as_str().unwrap()).unwrap();
    assert_eq!(due(&r.body["dueDate"]) - due(&json!(first_due)), chrono::Duration::weeks(3));

    // A policy that no longer renews: staff must give the due date.
    let r = desk
        .c
        .post("/loan-policy-storage/loan-policies", &json!({"name": "Frozen", "loanable": true,
            "renewable": false, "loansPolicy": {"profileId": "Rolling", "period": {"duration": 3, "intervalId": "Weeks"}}}))
        .await;
    let frozen = r.body["id"].as_str().unwrap().to_string();
    desk.put_rules(&format!(
        "priority: t, s, c, b, a, m, g\nfallback-policy: l {frozen} {others}\n"
    ))
    .await;
    let r = desk.c.post("/circulation/renew-by-barcode", &renew(None)).await;
    assert_eq!(messages(&r), ["loan is not renewable"]);
    assert_eq!(r.body["errors"][0]["overridableBlock"]["name"], "renewalDueDateRequiredBlock");
    let no_date = json!({"renewalDueDateRequiredBlock": {}, "comment": "Exhibition"});
    let r = desk.c.post("/circulation/renew-by-barcode", &renew(Some(no_date))).await;
    assert_eq!(messages(&r), ["New due date must be specified when due date calculation fails"]);
    assert_eq!(r.body["errors"][0]["code"], "OVERRIDE_RENEWAL_DUE_DATE_REQUIRED");
    let current = desk.c.get("/loan-storage/loans?query=status.name%3D%3DOpen").await.body["loans"]
        [0]["dueDate"]
        .clone();
    let earlier = (due(&current) - chrono::Duration::days(1)).to_rfc3339();
    let r = desk
        .c
        .post(
            "/circulation/renew-by-barcode",
            &renew(Some(
                json!({"renewalDueDateRequiredBlock": {"dueDate": earlier}, "comment": "x"}),
            )),
        )
        .await;
    assert_eq!(messages(&r), ["renewal would not change the due date"]);
    let later = (due(&current) + chrono::Duration::days(10)).to_rfc3339();
    let r = desk
        .c
        .post(
            "/circulation/renew-by-barcode",
            &renew(Some(
                json!({"renewalDueDateRequiredBlock": {"dueDate": later}, "comment": "Exhibition"}),
            )),
        )
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(due(&r.body["dueDate"]), due(&json!(later)));
    assert_eq!(r.body["renewalCount"], 3);
    assert_eq!(r.body["loanPolicyId"], frozen.as_str());

    // An override is for a renewal that is refused: a renewable loan is not one.
    desk.put_rules(&format!(
        "priority: t, s, c, b, a, m, g\nfallback-policy: l {} {others}\n",
        circ::DEFAULT_LOAN_POLICY_ID
    ))
    .await;
    let r = desk
        .c
        .post(
            "/circulation/renew-by-barcode",
            &renew(Some(json!({"renewalBlock": {}, "comment": "x"}))),
        )
        .await;
    assert_eq!(
        r.body["errors"][0]["code"], "OVERRIDE_RENEWAL_NOT_ALLOWED_FOR_CURRENT_LOAN",
        "{}",
        r.text
    );
    // A plain renewal then clears the override's comment.
    let r = desk.c.post("/circulation/renew-by-barcode", &renew(None)).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.body["action"], "renewed");
    assert!(r.body.get("actionComment").is_none_or(Value::is_null), "{}", r.text);
}

#[tokio::test]
async fn concurrent_check_outs_of_one_item_make_one_loan() {
    let app = TestApp::new();
    let desk = Desk::new(&app).await;
    let item = desk.item("HOT-1").await;
    for n in 0..16 {
        desk.patron(&format!("C-{n}"), json!({})).await;
    }
    let attempts = (0..16).map(|n| {
        let desk = &desk;
        async move { desk.check_out("HOT-1", &format!("C-{n}"), json!({})).await.status }
    });
    let statuses = futures_util::future::join_all(attempts).await;
    let created = statuses.iter().filter(|s| **s == StatusCode::CREATED).count();
    let refused = statuses.iter().filter(|s| **s == StatusCode::UNPROCESSABLE_ENTITY).count();
    assert_eq!((created, refused), (1, 15), "{statuses:?}");
    let q = urlencode(&format!("(itemId=={} and status.name==Open)", item["id"].as_str().unwrap()));
    assert_eq!(desk.c.get(&format!("/loan-storage/loans?query={q}")).await.body["totalRecords"], 1);
}

/// A service point's calendar and the tenant's time zone decide where a due date that
/// falls on a closed day moves to; mod-calendar's API answers the desk's questions.
#[tokio::test]
async fn closed_library_due_dates_follow_the_calendar_in_the_tenant_zone() {
    let app = TestApp::new();
    let desk = Desk::new(&app).await;
    desk.item("C-1").await;
    desk.patron("P-1", json!({})).await;
    let locale = json!({"module": "ORG", "configName": "localeSettings",
        "value": "{\"locale\":\"en-US\",\"timezone\":\"America/New_York\",\"currency\":\"USD\"}"});
    let r = desk.c.post("/configurations/entries", &locale).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let weekdays: Vec<Value> = ["MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY"]
        .iter()
        .map(|d| json!({"startDay": d, "startTime": "09:00", "endDay": d, "endTime": "17:59"}))
        .collect();
    let term = json!({"name": "2026", "startDate": "2026-01-01", "endDate": "2026-12-31",
        "assignments": [DESK_1], "normalHours": weekdays, "exceptions": []});
    let r = desk.c.post("/calendar/calendars", &term).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    assert_eq!(r.body["normalHours"][0]["calendarId"], r.body["id"]);

    // The calendar API: Saturday 7 March sits between Friday and Monday.
    let r =
        desk.c.get(&format!("/calendar/dates/{DESK_1}/surrounding-openings?date=2026-03-07")).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let dates: Vec<&str> = r.body["openings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["date"].as_str().unwrap())
        .collect();
    assert_eq!(dates, ["2026-03-06", "2026-03-07", "2026-03-09"]);
    assert_eq!(r.body["openings"][1]["open"], false);
    assert_eq!(
        r.body["openings"][2]["openings"][0],
        json!({"startTime": "09:00:00", "endTime": "17:59:00"})
    );
    let r = desk
        .c
        .get(&format!(
            "/calendar/dates/{DESK_1}/all-openings?startDate=2026-03-02&endDate=2026-03-08"
        ))
        .await;
    assert_eq!(r.body["totalRecords"], 5, "{}", r.text);
    // Overlapping another calendar on the same desk, or nameless: mod-calendar's errors.
    let r = desk
        .c
        .post(
            "/calendar/calendars",
            &json!({"name": "Summer", "startDate": "2026-06-01",
        "endDate": "2026-08-31", "assignments": [DESK_1], "normalHours": [], "exceptions": []}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CONFLICT, "{}", r.text);
    assert_eq!(r.body["errors"][0]["code"], "calendarDateOverlap");
    assert_eq!(r.body["errors"][0]["data"]["conflictingServicePointIds"], json!([DESK_1]));
    let r = desk
        .c
        .post(
            "/calendar/calendars",
            &json!({"name": "", "startDate": "2027-01-01",
        "endDate": "2027-08-31", "assignments": [DESK_1], "normalHours": [], "exceptions": []}),
        )
        .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.text);
    assert_eq!(r.body["errors"][0]["code"], "calendarNoName");

    // A one-day loan from Friday 6 March falls due on Saturday: moved to the end of
    // Monday, New York time (daylight saving has begun: 03:59:59 UTC on Tuesday).
    let r = desk
        .c
        .post(
            "/loan-policy-storage/loan-policies",
            &json!({"name": "Overnight", "loanable": true, "renewable": false, "loansPolicy": {
                "profileId": "Rolling", "period": {"duration": 1, "intervalId": "Days"},
                "closedLibraryDueDateManagementId": "END_OF_THE_NEXT_OPEN_DAY"}}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let rules = format!(
        "priority: t, s, c, b, a, m, g\nfallback-policy: l {} r {} n {} o {} i {}\n",
        r.body["id"].as_str().unwrap(),
        circ::DEFAULT_REQUEST_POLICY_ID,
        circ::DEFAULT_NOTICE_POLICY_ID,
        circ::DEFAULT_OVERDUE_FINE_POLICY_ID,
        circ::DEFAULT_LOST_ITEM_FEE_POLICY_ID
    );
    let r = desk.c.put("/circulation/rules", &json!({"rulesAsText": rules})).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
    let r = desk.check_out("C-1", "P-1", json!({"loanDate": "2026-03-06T15:00:00Z"})).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let due = chrono::DateTime::parse_from_rfc3339(r.body["dueDate"].as_str().unwrap()).unwrap();
    assert_eq!(due.to_utc().to_rfc3339(), "2026-03-10T03:59:59+00:00");
}

#[tokio::test]
async fn loan_actions_change_due_dates_claims_losses_and_missing_items() {
    let app = TestApp::new();
    let desk = Desk::new(&app).await;
    // The default lost item policy charges a set cost and a processing fee.
    let policy_path = format!("/lost-item-fees-policies/{}", circ::DEFAULT_LOST_ITEM_FEE_POLICY_ID);
    let mut policy = desk.c.get(&policy_path).await.body;
    policy["chargeAmountItem"] = json!({"chargeType": "anotherCost", "amount": 25.0});
    policy["lostItemProcessingFee"] = json!(5.0);
    policy["chargeAmountItemPatron"] = json!(true);
    assert_eq!(desk.c.put(&policy_path, &policy).await.status, StatusCode::NO_CONTENT);
    let claimed = desk.item("LA-1").await;
    let lost = desk.item("LA-2").await;
    let patron = desk.patron("LA-P", json!({})).await;
    let loan_of = |r: Response| r.body["id"].as_str().unwrap().to_string();
    let claimed_loan = loan_of(desk.check_out("LA-1", "LA-P", json!({})).await);
    let lost_loan = loan_of(desk.check_out("LA-2", "LA-P", json!({})).await);
    let act = |loan: &str, action: &str, body: Value| {
        let path = format!("/circulation/loans/{loan}/{action}");
        let c = &desk.c;
        async move { c.post(&path, &body).await }
    };
    let refusal = |r: &Response| {
        assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.text);
        r.error()
    };

    // A new due date, given or refused.
    let r = act(&claimed_loan, "change-due-date", json!({})).await;
    assert_eq!(refusal(&r).0, "A new due date is required in order to change the due date");
    let r = act(&claimed_loan, "change-due-date", json!({"dueDate": "2030-01-31T23:59:59Z"})).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
    let loan = desk.c.get(&format!("/circulation/loans/{claimed_loan}")).await.body;
    assert_eq!(loan["dueDate"], "2030-01-31T23:59:59.000+00:00");

    // The patron says they returned it: the item is claimed returned, and counted.
    let r = act(&claimed_loan, "claim-item-returned", json!({"comment": "in the drop box"})).await;
    assert_eq!(refusal(&r).0, "Item claimed returned date is a required field");
    let claim = json!({"itemClaimedReturnedDateTime": "2026-03-05T10:00:00Z",
        "comment": "in the drop box"});
    let r = act(&claimed_loan, "claim-item-returned", claim).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
    assert_eq!(desk.item_status(&claimed).await, "Claimed returned");
    let count_query = format!(
        "userId=={} and status.name<>Closed and action==claimedReturned",
        patron["id"].as_str().unwrap()
    );
    let count_path = format!("/circulation/loans?limit=0&query={}", urlencode(&count_query));
    assert_eq!(desk.c.get(&count_path).await.body["totalRecords"], 1);
    let r = act(&claimed_loan, "change-due-date", json!({"dueDate": "2030-02-28T23:59:59Z"})).await;
    let (message, parameters) = refusal(&r);
    assert_eq!(message, "item is Claimed returned");
    assert_eq!(parameters, vec![("itemId".to_string(), claimed["id"].as_str().unwrap().into())]);

    // Not found after all: the loan closes and the item is missing.
    let r = act(&claimed_loan, "declare-claimed-returned-item-as-missing", json!({})).await;
    assert_eq!(refusal(&r).0, "Comment is a required field");
    let r = act(
        &claimed_loan,
        "declare-claimed-returned-item-as-missing",
        json!({"comment": "searched twice"}),
    )
    .await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
    assert_eq!(desk.item_status(&claimed).await, "Missing");
    let loan = desk.c.get(&format!("/loan-storage/loans/{claimed_loan}")).await.body;
    assert_eq!(
        (&loan["status"]["name"], &loan["action"]),
        (&json!("Closed"), &json!("markedMissing"))
    );
    let r = act(
        &claimed_loan,
        "claim-item-returned",
        json!({"itemClaimedReturnedDateTime":
        "2026-03-06T10:00:00Z"}),
    )
    .await;
    assert_eq!(refusal(&r).0, "Loan is closed");

    // Declared lost: the policy's fees are charged, once.
    let r = act(&lost_loan, "declare-item-lost", json!({"comment": "patron lost it"})).await;
    assert_eq!(refusal(&r).0, "A service point is required for item to be declared lost");
    let declare = json!({"comment": "patron lost it", "servicePointId": DESK_1,
        "declaredLostDateTime": "2026-03-07T10:00:00Z"});
    let r = act(&lost_loan, "declare-item-lost", declare.clone()).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
    assert_eq!(desk.item_status(&lost).await, "Declared lost");
    let loan = desk.c.get(&format!("/circulation/loans/{lost_loan}")).await.body;
    assert_eq!(loan["action"], "declaredLost");
    assert_eq!(loan["declaredLostDate"], "2026-03-07T10:00:00.000+00:00");
    assert_eq!(loan["feesAndFines"]["amountRemainingToPay"], 30.0);
    let accounts = desk.c.get(&format!("/accounts?query=loanId=={lost_loan}")).await.body;
    let mut fees: Vec<(String, f64)> = accounts["accounts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| (a["feeFineType"].as_str().unwrap().to_string(), a["amount"].as_f64().unwrap()))
        .collect();
    fees.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(
        fees,
        vec![("Lost item fee".to_string(), 25.0), ("Lost item processing fee".to_string(), 5.0)]
    );
    let r = act(&lost_loan, "declare-item-lost", declare).await;
    assert_eq!(refusal(&r).0, "The item is already declared lost");
    let r = act(&lost_loan, "renounce", json!({})).await;
    assert_eq!(r.status, StatusCode::NOT_FOUND, "{}", r.text);
}
