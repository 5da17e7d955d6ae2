//! Proxy relationships, FOLIO's `/proxiesfor` (mod-users' `proxyfor.json`): a proxy user
//! who may borrow for a sponsor (`userId`).
//!
//! A (sponsor, proxy) pair is recorded once. What it does not own: whether a check-out
//! by a proxy is allowed (circulation's, through [`proxies_for`]).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use store::{ColumnValue, FieldKind, Page, QueryField, Reader, RecordTable, StoredRecord, Writer};
use uuid::Uuid;

use folio::{Actor, Metadata, Record, Timestamp};

use crate::{Error, Result};

pub(crate) const PROXIES: RecordTable = RecordTable {
    table: "proxies_for",
    record_type: "proxyfor",
    cached: false,
    columns: &["user_id", "proxy_user_id"],
};

/// A proxy relationship. FOLIO's schema forbids other properties, so this type does too.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProxyFor {
    /// The sponsor: the user the proxy acts for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user_id: Option<Uuid>,
    /// The user acting as proxy.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proxy_user_id: Option<Uuid>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<Uuid>,
    /// `Yes` or `No`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_for_sponsor: Option<String>,
    /// Deprecated by FOLIO; kept as sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub created_date: Option<String>,
    /// `Proxy` or `Sponsor`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub notifications_to: Option<String>,
    /// `Proxy` or `Sponsor`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub accrue_to: Option<String>,
    /// `Active` or `Inactive`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expiration_date: Option<Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

impl ProxyFor {
    /// Whether the relationship holds at `now`, as mod-circulation decides: no status or
    /// status `Active` (any case), and not expired.
    pub fn is_active_at(&self, now: DateTime<Utc>) -> bool {
        self.status.as_deref().is_none_or(|s| s.eq_ignore_ascii_case("active"))
            && self.expiration_date.is_none_or(|expires| expires.as_datetime() > now)
    }
}

const FIELDS: &[QueryField] = &[
    QueryField { index: "id", column: "id", kind: FieldKind::Text },
    QueryField { index: "userId", column: "user_id", kind: FieldKind::Text },
    QueryField { index: "proxyUserId", column: "proxy_user_id", kind: FieldKind::Text },
];

impl Record for ProxyFor {
    const TABLE: RecordTable = PROXIES;
    const NAME: &'static str = "Proxy relationship";
    const QUERY: &'static [QueryField] = FIELDS;

    folio::id_and_metadata!();
    fn columns(&self) -> Vec<ColumnValue> {
        vec![
            self.user_id.map(|u| u.to_string()).into(),
            self.proxy_user_id.map(|u| u.to_string()).into(),
        ]
    }
}

/// Reads a request body into a proxy relationship.
pub fn decode_proxy(bytes: &[u8]) -> Result<ProxyFor> {
    crate::json::decode(bytes)
}

/// Stores a new relationship; refuses a second one for the same sponsor and proxy.
pub fn create_proxy(
    writer: &mut Writer<'_>,
    proxy: ProxyFor,
    actor: Option<Uuid>,
) -> Result<ProxyFor> {
    if pair_taken(writer, &proxy, None)? {
        return Err(Error::ProxyExists { id: proxy.id });
    }
    folio::record::create(writer, proxy, Actor { user_id: actor })
        .map_err(|e| Error::from_record(e, Error::from))
}

/// Replaces the relationship with this id. Unlike mod-users, which checks only on
/// create, it refuses to make a duplicate here too: circulation reads one relationship
/// per pair.
pub fn update_proxy(
    writer: &mut Writer<'_>,
    id: Uuid,
    mut proxy: ProxyFor,
    actor: Option<Uuid>,
) -> Result<ProxyFor> {
    folio::record::claim_id(&mut proxy, id).map_err(|e| Error::from_record(e, Error::from))?;
    if !writer.exists(&PROXIES, &id.to_string())? {
        return Err(not_found(id));
    }
    if pair_taken(writer, &proxy, Some(id))? {
        return Err(Error::ProxyExists { id: Some(id) });
    }
    folio::record::replace(writer, id, proxy, Actor { user_id: actor })
        .map_err(|e| Error::from_record(e, Error::from))
}

/// Deletes a relationship.
pub fn delete_proxy(writer: &mut Writer<'_>, id: Uuid) -> Result<()> {
    folio::record::delete::<ProxyFor>(writer, id).map_err(|e| Error::from_record(e, Error::from))
}

/// The relationship with this id.
pub fn get_proxy(reader: &Reader<'_>, id: Uuid) -> Result<Option<folio::Stored<ProxyFor>>> {
    folio::record::get(reader, id).map_err(|e| Error::from_record(e, Error::from))
}

/// The relationship in which `proxy_user_id` acts for `user_id`, whether or not it is
/// active now (see [`ProxyFor::is_active_at`]).
pub fn proxies_for(
    reader: &Reader<'_>,
    user_id: Uuid,
    proxy_user_id: Uuid,
) -> Result<Option<ProxyFor>> {
    for record in reader.find_by(&PROXIES, "user_id", &user_id.to_string())? {
        let proxy = parse(&record)?;
        if proxy.proxy_user_id == Some(proxy_user_id) {
            return Ok(Some(proxy));
        }
    }
    Ok(None)
}

/// Relationships matching a CQL query (`id`, `userId`, `proxyUserId`), one page of their
/// JSON bodies, and the total.
pub fn list_proxies(
    reader: &Reader<'_>,
    cql: Option<&str>,
    page: Page,
) -> Result<(Vec<String>, u64)> {
    folio::record::list_json::<ProxyFor>(reader, cql, page)
        .map_err(|e| Error::from_record(e, Error::from))
}

/// Whether another relationship (not `except`) has this one's sponsor and proxy.
fn pair_taken(reader: &Reader<'_>, proxy: &ProxyFor, except: Option<Uuid>) -> Result<bool> {
    let (Some(user_id), Some(proxy_user_id)) = (proxy.user_id, proxy.proxy_user_id) else {
        return Ok(false);
    };
    Ok(proxies_for(reader, user_id, proxy_user_id)?
        .is_some_and(|existing| existing.id.is_none_or(|id| Some(id) != except)))
}

fn not_found(id: Uuid) -> Error {
    Error::NotFound { record: "Proxy relationship", id: id.to_string() }
}

fn parse(record: &StoredRecord) -> Result<ProxyFor> {
    serde_json::from_str(&record.body)
        .map_err(|e| Error::Corrupt(format!("proxy relationship {}: {e}", record.id)))
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;
    use expect_test::expect;

    use super::*;

    fn check(json: &str, expect: expect_test::Expect) {
        let now = Utc.with_ymd_and_hms(2025, 6, 1, 12, 0, 0).unwrap();
        let actual = match decode_proxy(json.as_bytes()) {
            Ok(proxy) => format!("{}", proxy.is_active_at(now)),
            Err(e) => format!("error: {e}"),
        };
        expect.assert_eq(&actual);
    }

    #[test]
    fn active_unless_inactive_or_expired() {
        check("{}", expect!["true"]);
        check(r#"{"status":"Active","expirationDate":"2025-07-01"}"#, expect!["true"]);
        check(r#"{"status":"active"}"#, expect!["true"]);
        check(r#"{"status":"Inactive"}"#, expect!["false"]);
        check(r#"{"status":"Active","expirationDate":"2025-05-31"}"#, expect!["false"]);
        check(r#"{"sponsor":"x"}"#, expect![[r#"error: sponsor: Unrecognized field "sponsor""#]]);
    }
}
