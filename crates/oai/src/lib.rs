//! OAI-PMH 2.0 as FOLIO serves it (mod-oai-pmh behind edge-oai-pmh): the six verbs, the
//! `marc21`, `marc21_withholdings` and `oai_dc` formats, persistent deletions and
//! stateless resumption tokens.
//!
//! - `protocol`: a request's arguments checked, with FOLIO's messages.
//! - `token`: resumption tokens, a keyset position in (datestamp, id) order.
//! - `index`: the harvest index, each instance's datestamp and deletion, derived from
//!   the change log.
//! - `metadata`: a record's MARC and Dublin Core.
//! - `xml`: the response, written as text.
//! - `keys`: the edge API's keys.
//! - `follower`: a thread keeping the index up with the change log.
//!
//! [`prepare`] checks one request and brings the index up to the change log as far as
//! it needs; [`respond`] then reads one page in one read transaction and writes it.
//!
//! Invariants: every record that exists unchanged through a harvest appears in it once
//! (keyset pages over a fixed `until`); a deleted instance is a deleted header for ever
//! after; every response is one well-formed document, errors included.

mod follower;
mod index;
mod keys;
mod metadata;
mod protocol;
mod sets;
mod settings;
mod token;
mod xml;

use uuid::Uuid;

pub use crate::follower::Follower;
pub use crate::index::{MIGRATIONS, catch_up};
pub use crate::keys::{ApiKey, is_issued, issue};
pub use crate::sets::{Members, Set};
pub use crate::settings::{Setting, repository};

/// `/oai-pmh/sets`.
pub mod set_definitions {
    pub use crate::sets::{create, delete, get, list, replace};
}

/// `/oai-pmh/configuration-settings`.
pub mod configuration {
    pub use crate::settings::{create, delete, get, list, replace};
}
pub use crate::protocol::{Args, Code, Format, OaiError, Verb, datestamp, identifier};

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Store(#[from] store::Error),
    #[error(transparent)]
    Srs(#[from] srs::Error),
    #[error("corrupt harvest data: {0}")]
    Corrupt(String),
    #[error("Configuration setting with id '{0}' was not found")]
    NotFound(Uuid),
    #[error("{message}")]
    Invalid { field: String, message: String },
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The repository's settings: FOLIO's OAI-PMH configuration.
#[derive(Debug, Clone)]
pub struct Repository {
    pub name: String,
    /// The URL harvesters use; its host names the records (`oai:<host>:...`).
    pub base_url: String,
    pub admin_emails: Vec<String>,
    /// Records per page, 1 to 500.
    pub page_size: usize,
    /// Suppressed records are harvested with 999 ff $t 1 (true), or left out.
    pub include_suppressed: bool,
    /// Errors answer with HTTP 200 (true, as the protocol recommends) or with
    /// FOLIO's statuses per error code.
    pub errors_as_200: bool,
    /// Deleted records are harvested as deleted headers (`persistent`), or left out
    /// (FOLIO's `deletedRecordsSupport` `no`).
    pub keeps_deleted: bool,
    /// FOLIO's `enableOaiService`: off, every request is answered 503.
    pub enabled: bool,
}

impl Repository {
    pub fn new(base_url: &str) -> Repository {
        Repository {
            name: "Quire OAI-PMH repository".into(),
            base_url: base_url.to_string(),
            admin_emails: vec!["oai-pmh@quire.invalid".into()],
            page_size: 100,
            include_suppressed: true,
            errors_as_200: true,
            keeps_deleted: true,
            enabled: true,
        }
    }

    /// The host of the base URL, without a port (as FOLIO's identifiers have it, and
    /// as an identifier's `:`-separated parts need it).
    pub fn host(&self) -> &str {
        let rest = self.base_url.split_once("://").map_or(self.base_url.as_str(), |(_, r)| r);
        let authority = rest.split(['/', '?']).next().unwrap_or(rest);
        let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
        match host.rsplit_once(':') {
            Some((name, port)) if port.chars().all(|c| c.is_ascii_digit()) => name,
            _ => host,
        }
    }
}

/// Every row of one of this crate's small tables (sets, settings), as `T`.
fn all_rows<T: serde::de::DeserializeOwned>(
    r: &store::Reader<'_>,
    table: &store::RecordTable,
) -> Result<Vec<T>> {
    let mut out = Vec::new();
    let mut after: Option<String> = None;
    loop {
        let page = r.scan(table, after.as_deref(), 100)?;
        let Some(last) = page.last() else { break };
        after = Some(last.id.clone());
        for row in &page {
            let value = serde_json::from_str(&row.body)
                .map_err(|e| Error::Corrupt(format!("{} {}: {e}", table.table, row.id)))?;
            out.push(value);
        }
    }
    Ok(out)
}

/// One response: an HTTP status and the XML document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Response {
    pub status: u16,
    pub body: String,
}

/// One OAI-PMH request, checked, with the harvest index brought up to what it reads.
///
/// Preparing may write the harvest index (a harvest's first page fixes its end); the
/// page itself is only read. The two are apart so a server can prepare at ordinary
/// priority, as the desk's writes run, and build pages at a lower one: a harvest then
/// never holds the writer from a lowered thread.
pub struct Prepared {
    request: Result<protocol::Request, OaiError>,
    echoed: Vec<(String, String)>,
    now: i64,
}

/// Checks a request of `tenant` (named `tenant_name` in identifiers and tokens), asked
/// at `now` (UTC seconds), and applies the change log to the harvest index as far as
/// the answer needs: a harvest's first request up to `now`, which ends the harvest; a
/// single record's up to the last change; later pages nothing.
pub fn prepare(
    tenant: &store::Tenant,
    tenant_name: &str,
    args: &Args,
    now: i64,
) -> Result<Prepared> {
    let request = protocol::parse(args, tenant_name, now);
    let echoed = protocol::echoed(args, &request);
    match &request {
        Ok(protocol::Request::List { from: protocol::List::First(_), .. }) => {
            index::catch_up(tenant, Some(now))?;
        }
        // A page after the first reads up to the harvest's end, which the first
        // request's catch-up covered: nothing to apply.
        Ok(protocol::Request::List { .. }) => {}
        Ok(
            protocol::Request::GetRecord { .. }
            | protocol::Request::ListMetadataFormats { identifier: Some(_) },
        ) => {
            index::catch_up(tenant, None)?;
        }
        _ => {}
    }
    Ok(Prepared { request, echoed, now })
}

/// Answers a prepared request of `tenant` (named `tenant_name`) in one read
/// transaction; `members` runs a set's query.
pub fn respond(
    tenant: &store::Tenant,
    tenant_name: &str,
    repository: &Repository,
    prepared: &Prepared,
    members: &dyn Members,
) -> Result<Response> {
    let Prepared { request, echoed, now } = prepared;
    let mut out = String::with_capacity(8 << 10);
    xml::start(&mut out, *now, &repository.base_url, echoed);
    let answered = match request {
        Err(e) => Err(e.clone()),
        Ok(request) => {
            tenant.read(|r| answer(r, tenant_name, repository, request, *now, members, &mut out))?
        }
    };
    let status = match &answered {
        Ok(()) => 200,
        Err(e) => {
            xml::errors(&mut out, std::slice::from_ref(e));
            if repository.errors_as_200 { 200 } else { e.code.http_status() }
        }
    };
    xml::end(&mut out);
    Ok(Response { status, body: out })
}

/// Writes a request's answer after the envelope, or says which error it is.
fn answer(
    r: &store::Reader<'_>,
    tenant: &str,
    repository: &Repository,
    request: &protocol::Request,
    now: i64,
    members: &dyn Members,
    out: &mut String,
) -> Result<Result<(), OaiError>> {
    use protocol::Request;
    match request {
        Request::Identify => identify(repository, tenant, out),
        Request::ListSets => {
            out.push_str("<ListSets>\n<set>\n");
            xml::element(out, "setSpec", "all");
            xml::element(out, "setName", "All records");
            out.push_str("</set>\n");
            for set in sets::list(r)? {
                out.push_str("<set>\n");
                xml::element(out, "setSpec", &set.set_spec);
                xml::element(out, "setName", &set.name);
                out.push_str("</set>\n");
            }
            out.push_str("</ListSets>\n");
        }
        Request::ListMetadataFormats { identifier } => {
            if let Some(id) = identifier
                && index::get(r, *id)?.is_none()
            {
                return Ok(Err(OaiError::unknown_id()));
            }
            out.push_str("<ListMetadataFormats>\n");
            for format in Format::ALL {
                out.push_str("<metadataFormat>\n");
                xml::element(out, "metadataPrefix", format.prefix());
                xml::element(out, "schema", format.schema());
                xml::element(out, "metadataNamespace", format.namespace());
                out.push_str("</metadataFormat>\n");
            }
            out.push_str("</ListMetadataFormats>\n");
        }
        Request::GetRecord { identifier, format } => {
            let Some(entry) = index::get(r, *identifier)? else {
                return Ok(Err(OaiError::unknown_id()));
            };
            let hidden = if entry.deleted {
                !repository.keeps_deleted
            } else {
                entry.suppressed && !repository.include_suppressed
            };
            if hidden {
                return Ok(Err(OaiError::unknown_id()));
            }
            let mut sources = metadata::Sources::read(r, &[entry.id], *format)?;
            let mut body = String::new();
            record(
                r,
                &mut sources,
                tenant,
                repository,
                &entry,
                *format,
                true,
                &["all"],
                &mut body,
            )?;
            out.push_str("<GetRecord>\n");
            out.push_str(&body);
            out.push_str("</GetRecord>\n");
        }
        Request::List { records, from } => {
            return list(r, tenant, repository, *records, from, now, members, out);
        }
    }
    Ok(Ok(()))
}

fn identify(repository: &Repository, tenant: &str, out: &mut String) {
    out.push_str("<Identify>\n");
    xml::element(out, "repositoryName", &repository.name);
    xml::element(out, "baseURL", &repository.base_url);
    xml::element(out, "protocolVersion", "2.0");
    for email in &repository.admin_emails {
        xml::element(out, "adminEmail", email);
    }
    xml::element(out, "earliestDatestamp", "1970-01-01T00:00:00Z");
    xml::element(out, "deletedRecord", if repository.keeps_deleted { "persistent" } else { "no" });
    xml::element(out, "granularity", "YYYY-MM-DDThh:mm:ssZ");
    xml::element(out, "compression", "gzip");
    xml::element(out, "compression", "deflate");
    // The oai-identifier scheme wants a domain name (with a dot) as the repository id.
    let host = repository.host();
    if host.contains('.') && !host.chars().all(|c| c.is_ascii_digit() || c == '.') {
        out.push_str(
            "<description>\n<oai-identifier xmlns=\"http://www.openarchives.org/OAI/2.0/oai-identifier\" \
             xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" \
             xsi:schemaLocation=\"http://www.openarchives.org/OAI/2.0/oai-identifier \
             http://www.openarchives.org/OAI/2.0/oai-identifier.xsd\">\n",
        );
        xml::element(out, "scheme", "oai");
        xml::element(out, "repositoryIdentifier", host);
        xml::element(out, "delimiter", ":");
        xml::element(out, "sampleIdentifier", &identifier(host, tenant, Uuid::nil()));
        out.push_str("</oai-identifier>\n</description>\n");
    }
    out.push_str("</Identify>\n");
}

/// One record of a list or GetRecord: its header and, unless deleted or `records` is
/// false, its metadata. An instance whose records are gone is written deleted.
#[allow(clippy::too_many_arguments)]
fn record(
    r: &store::Reader<'_>,
    sources: &mut metadata::Sources,
    tenant: &str,
    repository: &Repository,
    entry: &index::Entry,
    format: Format,
    records: bool,
    sets: &[&str],
    out: &mut String,
) -> Result<()> {
    let id = identifier(repository.host(), tenant, entry.id);
    let mut body = String::new();
    let mut deleted = entry.deleted;
    if records && !deleted {
        let mark = repository.include_suppressed.then_some(entry.suppressed);
        deleted = !metadata::write(r, sources, entry.id, format, mark, &mut body)?;
    }
    if records {
        out.push_str("<record>\n");
    }
    xml::header(out, &id, entry.datestamp, deleted, sets);
    if records {
        if !deleted {
            out.push_str(&body);
        }
        out.push_str("</record>\n");
    }
    Ok(())
}

/// A page of ListIdentifiers or ListRecords.
#[allow(clippy::too_many_arguments)]
fn list(
    r: &store::Reader<'_>,
    tenant: &str,
    repository: &Repository,
    records: bool,
    from: &protocol::List,
    now: i64,
    members: &dyn Members,
    out: &mut String,
) -> Result<Result<(), OaiError>> {
    let (selection, after, cursor, total) = match from {
        protocol::List::First(selection) => {
            let mut selection = selection.clone();
            // The list ends where it stood when the harvest began (`index::catch_up`
            // stamped later changes from this second on).
            selection.until = Some(selection.until.unwrap_or(now).min(now));
            let from = selection.from.unwrap_or(i64::MIN);
            (selection, (from, Uuid::nil()), 0, None)
        }
        protocol::List::Resume(token) => {
            (token.selection.clone(), token.after, token.cursor, token.total)
        }
    };
    // A set of the library's own: its members, as its query finds them now.
    let set = match selection.set.as_deref() {
        None | Some("all") => None,
        Some(spec) => match sets::by_spec(r, spec)? {
            None => return Ok(Err(OaiError::no_records())),
            Some(set) => match members.members(&set.query) {
                Ok(ids) => Some((set.set_spec, ids)),
                Err(message) => {
                    tracing::warn!(set = spec, %message, "a set's query cannot be run");
                    return Ok(Err(OaiError::no_records()));
                }
            },
        },
    };
    let until = selection.until.unwrap_or(now);
    let from = selection.from.unwrap_or(i64::MIN);
    let size = repository.page_size.clamp(1, 500);
    let mut page = Vec::with_capacity(size);
    let mut position = after;
    let mut more = false;
    // Suppressed records left out can leave a page short: read on until it is full.
    loop {
        let entries = index::page(r, position, until, size + 1 - page.len())?;
        let exhausted = entries.len() < size + 1 - page.len();
        for entry in entries {
            if page.len() == size {
                more = true;
                break;
            }
            position = (entry.datestamp, entry.id);
            if entry.datestamp < from {
                continue;
            }
            if entry.suppressed && !entry.deleted && !repository.include_suppressed {
                continue;
            }
            if entry.deleted && !repository.keeps_deleted {
                continue;
            }
            if let Some((_, ids)) = &set
                && !entry.deleted
                && !ids.contains(&entry.id)
            {
                continue;
            }
            page.push(entry);
        }
        if more || exhausted {
            break;
        }
    }
    if page.is_empty() && cursor == 0 {
        return Ok(Err(OaiError::no_records()));
    }
    let total = match total {
        Some(total) => Some(total),
        None if more
            && set.is_none()
            && repository.include_suppressed
            && repository.keeps_deleted =>
        {
            Some(index::count(r, from.max(0), until)?)
        }
        None => None,
    };
    let verb = if records { "ListRecords" } else { "ListIdentifiers" };
    out.push('<');
    out.push_str(verb);
    out.push_str(">\n");
    let shown: Vec<Uuid> = page.iter().filter(|e| records && !e.deleted).map(|e| e.id).collect();
    let mut sources = metadata::Sources::read(r, &shown, selection.format)?;
    let specs: Vec<&str> = match &set {
        Some((spec, _)) => vec!["all", spec.as_str()],
        None => vec!["all"],
    };
    for entry in &page {
        record(r, &mut sources, tenant, repository, entry, selection.format, records, &specs, out)?;
    }
    let sent = cursor + page.len() as u64;
    if more {
        let last = page.last().map_or(position, |e| (e.datestamp, e.id));
        let token = token::Token {
            tenant: tenant.to_string(),
            selection,
            after: last,
            cursor: sent,
            total,
            expires: now + token::LIFETIME_SECONDS,
        };
        xml::resumption_token(out, &token.encode(), cursor, total, Some(token.expires));
    } else if cursor > 0 {
        xml::resumption_token(out, "", cursor, total, None);
    }
    out.push_str("</");
    out.push_str(verb);
    out.push_str(">\n");
    Ok(Ok(()))
}

#[cfg(test)]
mod tests {
    use super::Repository;

    #[test]
    fn identifiers_take_the_host_without_its_port() {
        let host = |url: &str| Repository::new(url).host().to_string();
        assert_eq!(host("http://127.0.0.1:9130/oai"), "127.0.0.1");
        assert_eq!(host("https://user@folio.example.org/oai/KEY"), "folio.example.org");
        assert_eq!(host("http://localhost"), "localhost");
    }
}
