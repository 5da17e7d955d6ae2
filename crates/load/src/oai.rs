//! The `oai` scenario's harvest: a full `ListRecords` through the edge API, one page
//! after another as a harvester pages, timing each page. FOLIO's PTF harvested 7.8
//! million records in 19 hours at 100 records a page; the CLI runs `cico` idle, then
//! again during a harvest, and compares.

use std::time::Instant;

use anyhow::Context;

/// What a harvest did.
#[derive(Debug, Clone, Default)]
pub struct Harvest {
    pub records: u64,
    pub deleted: u64,
    pub pages: u64,
    pub seconds: f64,
    /// Each page's time, in milliseconds.
    pub page_ms: Vec<f64>,
    pub bytes: u64,
}

/// Harvests every record of `prefix` from `url` (the server) with the edge API `key`.
pub async fn harvest(
    client: &reqwest::Client,
    url: &str,
    key: &str,
    prefix: &str,
) -> anyhow::Result<Harvest> {
    let started = Instant::now();
    let mut out = Harvest::default();
    let mut query = format!("verb=ListRecords&metadataPrefix={prefix}");
    loop {
        let page_started = Instant::now();
        let body = client
            .get(format!("{url}/oai?{query}&apikey={key}"))
            .send()
            .await?
            .error_for_status()?
            .text()
            .await?;
        out.page_ms.push(page_started.elapsed().as_secs_f64() * 1000.0);
        out.pages += 1;
        out.bytes += body.len() as u64;
        if let Some(error) = body.find("<error code=") {
            anyhow::bail!("page {}: {}", out.pages, &body[error..body.len().min(error + 200)]);
        }
        out.records += body.matches("<record>").count() as u64;
        out.deleted += body.matches("<header status=\"deleted\">").count() as u64;
        match resumption_token(&body) {
            Some(token) if !token.is_empty() => {
                query = format!("verb=ListRecords&resumptionToken={token}");
            }
            _ => break,
        }
    }
    out.seconds = started.elapsed().as_secs_f64();
    Ok(out)
}

/// The resumption token's text of an OAI-PMH list response; empty for the last page's,
/// `None` without the element.
pub fn resumption_token(xml: &str) -> Option<String> {
    let start = xml.find("<resumptionToken")?;
    let rest = &xml[start..];
    let open_end = rest.find('>')?;
    if rest[..open_end].ends_with('/') {
        return Some(String::new());
    }
    let end = rest.find("</resumptionToken>").context("an unclosed token").ok()?;
    Some(rest[open_end + 1..end].to_string())
}

/// The `q`-quantile (0 to 1) of `values`, by nearest rank.
pub fn quantile(values: &[f64], q: f64) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}
