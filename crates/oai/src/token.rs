//! Resumption tokens: stateless and self-describing, so a harvest goes on after a
//! restart or on another node. A token holds where the list stands as a keyset position
//! (the last datestamp and instance id sent), with the list's selection and its end
//! (`until`, fixed by the first request): a record that stays put is sent once, and
//! one changed meanwhile moves past `until`, to the next incremental harvest.
//!
//! Form: base64url, unpadded, of `key=value` pairs joined by `&`.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use uuid::Uuid;

use crate::protocol::{Format, OaiError, Selection, Verb};

/// How long a token may be used, as FOLIO's: a day.
pub(crate) const LIFETIME_SECONDS: i64 = 24 * 3600;

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Token {
    pub tenant: String,
    pub selection: Selection,
    /// The last record sent: its datestamp and instance id.
    pub after: (i64, Uuid),
    /// How many records the list sent before this page.
    pub cursor: u64,
    /// The list's size, when the first page counted it.
    pub total: Option<u64>,
    /// UTC seconds after which the token is refused.
    pub expires: i64,
}

impl Token {
    pub(crate) fn encode(&self) -> String {
        let s = &self.selection;
        let mut text = format!(
            "t={}&m={}&a={}&i={}&c={}&e={}",
            self.tenant,
            s.format.prefix(),
            self.after.0,
            self.after.1,
            self.cursor,
            self.expires
        );
        let mut push = |key: &str, value: Option<String>| {
            if let Some(value) = value {
                text.push_str(&format!("&{key}={value}"));
            }
        };
        push("f", s.from.map(|v| v.to_string()));
        push("u", s.until.map(|v| v.to_string()));
        push("s", s.set.clone());
        push("n", self.total.map(|v| v.to_string()));
        let sum = checksum(&text);
        text.push_str(&format!("&h={sum:016x}"));
        URL_SAFE_NO_PAD.encode(text)
    }

    /// Reads a token given to `tenant` at `now`.
    pub(crate) fn decode(
        text: &str,
        tenant: &str,
        now: i64,
        verb: Verb,
    ) -> Result<Token, OaiError> {
        let bad = || OaiError::bad_token(verb);
        let bytes = URL_SAFE_NO_PAD.decode(text.trim_end_matches('=')).map_err(|_| bad())?;
        let text = String::from_utf8(bytes).map_err(|_| bad())?;
        // A token cut short or edited reads as junk, not as another position.
        let (text, sum) = text.rsplit_once("&h=").ok_or_else(bad)?;
        if u64::from_str_radix(sum, 16).ok() != Some(checksum(text)) {
            return Err(bad());
        }
        let mut fields = std::collections::HashMap::new();
        for pair in text.split('&') {
            let (key, value) = pair.split_once('=').ok_or_else(bad)?;
            if fields.insert(key, value).is_some() {
                return Err(bad());
            }
        }
        let get = |key: &str| fields.get(key).copied().ok_or_else(bad);
        let number = |key: &str| get(key)?.parse::<i64>().map_err(|_| bad());
        let optional =
            |key: &str| fields.get(key).map(|v| v.parse::<i64>().map_err(|_| bad())).transpose();
        if get("t")? != tenant {
            return Err(bad());
        }
        let token = Token {
            tenant: tenant.to_string(),
            selection: Selection {
                format: Format::parse(get("m")?).ok_or_else(bad)?,
                from: optional("f")?,
                until: optional("u")?,
                set: fields.get("s").map(|s| s.to_string()),
            },
            after: (number("a")?, Uuid::parse_str(get("i")?).map_err(|_| bad())?),
            cursor: u64::try_from(number("c")?).map_err(|_| bad())?,
            total: optional("n")?.map(|n| u64::try_from(n).map_err(|_| bad())).transpose()?,
            expires: number("e")?,
        };
        if token.expires < now {
            return Err(OaiError::expired_token());
        }
        Ok(token)
    }
}

/// FNV-1a, 64 bits: a check that a token came back whole, stable across builds and
/// nodes (std's hasher promises neither). Not a signature: a token grants nothing the
/// request could not ask for itself.
fn checksum(text: &str) -> u64 {
    text.bytes()
        .fold(0xcbf2_9ce4_8422_2325, |hash, b| (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Code;

    fn token() -> Token {
        Token {
            tenant: "diku".into(),
            selection: Selection {
                format: Format::Marc21WithHoldings,
                from: None,
                until: Some(1_700_000_000),
                set: Some("all".into()),
            },
            after: (1_699_999_000, Uuid::from_u128(42)),
            cursor: 100,
            total: Some(1234),
            expires: 1_700_086_400,
        }
    }

    #[test]
    fn a_token_reads_back_as_written() {
        let t = token();
        let text = t.encode();
        assert!(text.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_'));
        assert_eq!(Token::decode(&text, "diku", 1_700_000_001, Verb::ListRecords).unwrap(), t);
    }

    #[test]
    fn junk_other_tenants_and_old_tokens_are_refused() {
        let text = token().encode();
        let decode = |text: &str, tenant: &str, now: i64| {
            Token::decode(text, tenant, now, Verb::ListRecords).unwrap_err()
        };
        assert_eq!(
            decode("junk", "diku", 0).message,
            "Verb 'ListRecords', argument resumptionToken is invalid"
        );
        assert_eq!(decode(&text, "other", 0).code, Code::BadResumptionToken);
        assert_eq!(decode(&text[..text.len() - 4], "diku", 0).code, Code::BadResumptionToken);
        let expired = decode(&text, "diku", 1_700_086_401);
        assert_eq!(expired.message, "The value of the resumptionToken argument is expired");
    }
}
