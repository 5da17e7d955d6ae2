//! The requests OAI-PMH 2.0 allows and the errors it names: a request's arguments are
//! checked here, before anything is read, with the messages FOLIO's mod-oai-pmh gives.
//!
//! Owns: the verbs and their arguments (required, optional, exclusive), datestamps and
//! their granularities, identifiers (`oai:<host>:<tenant>/<instance id>`). Does not own
//! what the records are (`index`) or how answers are written (`xml`).

use chrono::{DateTime, NaiveDate, NaiveDateTime, Utc};
use uuid::Uuid;

use crate::token::Token;

/// The six verbs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verb {
    Identify,
    ListMetadataFormats,
    ListSets,
    ListIdentifiers,
    ListRecords,
    GetRecord,
}

impl Verb {
    pub fn as_str(self) -> &'static str {
        match self {
            Verb::Identify => "Identify",
            Verb::ListMetadataFormats => "ListMetadataFormats",
            Verb::ListSets => "ListSets",
            Verb::ListIdentifiers => "ListIdentifiers",
            Verb::ListRecords => "ListRecords",
            Verb::GetRecord => "GetRecord",
        }
    }

    fn parse(s: &str) -> Option<Verb> {
        [
            Verb::Identify,
            Verb::ListMetadataFormats,
            Verb::ListSets,
            Verb::ListIdentifiers,
            Verb::ListRecords,
            Verb::GetRecord,
        ]
        .into_iter()
        .find(|v| v.as_str() == s)
    }

    /// The arguments it may take besides `verb`.
    fn allowed(self) -> &'static [&'static str] {
        match self {
            Verb::Identify => &[],
            Verb::ListMetadataFormats => &["identifier"],
            Verb::ListSets => &["resumptionToken"],
            Verb::ListIdentifiers | Verb::ListRecords => {
                &["metadataPrefix", "from", "until", "set", "resumptionToken"]
            }
            Verb::GetRecord => &["identifier", "metadataPrefix"],
        }
    }
}

/// The metadata formats served.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Marc21,
    Marc21WithHoldings,
    OaiDc,
}

impl Format {
    pub const ALL: [Format; 3] = [Format::OaiDc, Format::Marc21, Format::Marc21WithHoldings];

    pub fn prefix(self) -> &'static str {
        match self {
            Format::Marc21 => "marc21",
            Format::Marc21WithHoldings => "marc21_withholdings",
            Format::OaiDc => "oai_dc",
        }
    }

    pub fn parse(prefix: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|f| f.prefix() == prefix)
    }

    pub fn schema(self) -> &'static str {
        match self {
            Format::Marc21 | Format::Marc21WithHoldings => {
                "http://www.loc.gov/standards/marcxml/schema/MARC21slim.xsd"
            }
            Format::OaiDc => marc::dc::SCHEMA,
        }
    }

    pub fn namespace(self) -> &'static str {
        match self {
            Format::Marc21 | Format::Marc21WithHoldings => marc::marcxml::NAMESPACE,
            Format::OaiDc => marc::dc::NAMESPACE,
        }
    }
}

/// OAI-PMH's error codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Code {
    BadArgument,
    BadResumptionToken,
    BadVerb,
    CannotDisseminateFormat,
    IdDoesNotExist,
    NoRecordsMatch,
    NoMetadataFormats,
    NoSetHierarchy,
}

impl Code {
    pub fn as_str(self) -> &'static str {
        match self {
            Code::BadArgument => "badArgument",
            Code::BadResumptionToken => "badResumptionToken",
            Code::BadVerb => "badVerb",
            Code::CannotDisseminateFormat => "cannotDisseminateFormat",
            Code::IdDoesNotExist => "idDoesNotExist",
            Code::NoRecordsMatch => "noRecordsMatch",
            Code::NoMetadataFormats => "noMetadataFormats",
            Code::NoSetHierarchy => "noSetHierarchy",
        }
    }

    /// The HTTP status FOLIO answers with when its `errorsProcessing` setting asks for
    /// statuses other than 200.
    pub fn http_status(self) -> u16 {
        match self {
            Code::BadArgument | Code::BadResumptionToken | Code::BadVerb => 400,
            Code::IdDoesNotExist | Code::NoRecordsMatch | Code::NoMetadataFormats => 404,
            Code::NoSetHierarchy => 404,
            Code::CannotDisseminateFormat => 422,
        }
    }
}

/// One error of a response: its code and message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OaiError {
    pub code: Code,
    pub message: String,
}

impl OaiError {
    pub fn new(code: Code, message: impl Into<String>) -> OaiError {
        OaiError { code, message: message.into() }
    }

    pub(crate) fn no_records() -> OaiError {
        OaiError::new(Code::NoRecordsMatch, "There is no any record found matching search criteria")
    }

    pub(crate) fn bad_token(verb: Verb) -> OaiError {
        OaiError::new(
            Code::BadResumptionToken,
            format!("Verb '{}', argument resumptionToken is invalid", verb.as_str()),
        )
    }

    pub(crate) fn expired_token() -> OaiError {
        OaiError::new(
            Code::BadResumptionToken,
            "The value of the resumptionToken argument is expired",
        )
    }

    pub(crate) fn unknown_id() -> OaiError {
        OaiError::new(Code::IdDoesNotExist, "No matching identifier in repository.")
    }

    fn cannot_disseminate(prefix: &str) -> OaiError {
        OaiError::new(
            Code::CannotDisseminateFormat,
            format!(
                "The value '{prefix}' of the metadataPrefix argument is not supported by the repository"
            ),
        )
    }
}

/// A checked request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Request {
    Identify,
    ListMetadataFormats {
        identifier: Option<Uuid>,
    },
    ListSets,
    /// `ListIdentifiers` (`records` false) or `ListRecords`.
    List {
        records: bool,
        from: List,
    },
    GetRecord {
        identifier: Uuid,
        format: Format,
    },
}

/// Where a list starts: a first request's arguments, or a resumption token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum List {
    First(Selection),
    Resume(Token),
}

/// What a list harvests: a format, a datestamp range (UTC seconds, both inclusive; the
/// end is fixed by the first request) and a set spec.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Selection {
    pub format: Format,
    pub from: Option<i64>,
    pub until: Option<i64>,
    pub set: Option<String>,
}

/// A request's arguments, as given: a verb may be missing, an argument may repeat.
pub type Args = [(String, String)];

/// The arguments a response echoes in its `<request>` element: none for a bad verb or
/// argument, as the protocol asks.
pub(crate) fn echoed(args: &Args, result: &Result<Request, OaiError>) -> Vec<(String, String)> {
    match result {
        Err(e) if matches!(e.code, Code::BadVerb | Code::BadArgument) => Vec::new(),
        _ => args.iter().filter(|(k, _)| !k.is_empty()).cloned().collect(),
    }
}

/// Checks a request's arguments. `tenant` is the tenant asked (an identifier names it;
/// a token is bound to it); `now` the time of the request, in UTC seconds.
pub(crate) fn parse(args: &Args, tenant: &str, now: i64) -> Result<Request, OaiError> {
    let verbs: Vec<&str> =
        args.iter().filter(|(k, _)| k == "verb").map(|(_, v)| v.as_str()).collect();
    let verb = match verbs.as_slice() {
        [one] => Verb::parse(one).ok_or_else(|| bad_verb(one))?,
        [] => return Err(bad_verb("")),
        [first, ..] => {
            return Err(OaiError::new(
                Code::BadVerb,
                format!("Verb '{first}' is repeated: a request names one verb"),
            ));
        }
    };
    let mut given: Vec<(&str, &str)> = Vec::new();
    for (key, value) in args.iter().filter(|(k, _)| k != "verb") {
        if !verb.allowed().contains(&key.as_str()) {
            return Err(OaiError::new(
                Code::BadArgument,
                format!("Verb '{}', illegal argument: {key}", verb.as_str()),
            ));
        }
        if given.iter().any(|(k, _)| k == key) {
            return Err(OaiError::new(
                Code::BadArgument,
                format!("Verb '{}', argument '{key}' is repeated", verb.as_str()),
            ));
        }
        given.push((key, value));
    }
    let get = |name: &str| given.iter().find(|(k, _)| *k == name).map(|(_, v)| *v);
    if let Some(token) = get("resumptionToken") {
        if given.len() > 1 {
            return Err(OaiError::new(
                Code::BadArgument,
                format!(
                    "Verb '{}', argument 'resumptionToken' is exclusive, no others may be specified with it",
                    verb.as_str()
                ),
            ));
        }
        let token = match verb {
            // The only set is `all`, answered in one response: ListSets gives no token.
            Verb::ListSets => return Err(OaiError::bad_token(verb)),
            _ => Token::decode(token, tenant, now, verb)?,
        };
        return Ok(Request::List { records: verb == Verb::ListRecords, from: List::Resume(token) });
    }
    match verb {
        Verb::Identify => Ok(Request::Identify),
        Verb::ListSets => Ok(Request::ListSets),
        Verb::ListMetadataFormats => {
            let identifier = get("identifier").map(|id| instance_id(id, tenant)).transpose()?;
            Ok(Request::ListMetadataFormats { identifier })
        }
        Verb::GetRecord => {
            let (Some(identifier), Some(prefix)) = (get("identifier"), get("metadataPrefix"))
            else {
                let missing: Vec<&str> = ["identifier", "metadataPrefix"]
                    .into_iter()
                    .filter(|name| get(name).is_none())
                    .collect();
                return Err(missing_arguments(&missing));
            };
            let identifier = instance_id(identifier, tenant)?;
            let format =
                Format::parse(prefix).ok_or_else(|| OaiError::cannot_disseminate(prefix))?;
            Ok(Request::GetRecord { identifier, format })
        }
        Verb::ListIdentifiers | Verb::ListRecords => {
            let prefix =
                get("metadataPrefix").ok_or_else(|| missing_arguments(&["metadataPrefix"]))?;
            let from = get("from").map(|v| Datestamp::parse("from", v)).transpose()?;
            let until = get("until").map(|v| Datestamp::parse("until", v)).transpose()?;
            if let (Some(from), Some(until)) = (from, until) {
                if from.day != until.day {
                    return Err(OaiError::new(
                        Code::BadArgument,
                        format!(
                            "Verb '{}', arguments 'from' and 'until' have different granularities",
                            verb.as_str()
                        ),
                    ));
                }
                if from.seconds > until.seconds {
                    return Err(OaiError::new(
                        Code::BadArgument,
                        format!("Verb '{}', argument 'from' is after 'until'", verb.as_str()),
                    ));
                }
            }
            let set = get("set").map(str::to_string);
            if let Some(set) = &set
                && !valid_spec(set)
            {
                return Err(OaiError::new(
                    Code::BadArgument,
                    format!("Verb '{}', argument 'set' is not a set spec: {set}", verb.as_str()),
                ));
            }
            let format =
                Format::parse(prefix).ok_or_else(|| OaiError::cannot_disseminate(prefix))?;
            let selection = Selection {
                format,
                from: from.map(|d| d.seconds),
                // A day includes its last second.
                until: until.map(|d| if d.day { d.seconds + 86_399 } else { d.seconds }),
                set,
            };
            Ok(Request::List { records: verb == Verb::ListRecords, from: List::First(selection) })
        }
    }
}

fn bad_verb(verb: &str) -> OaiError {
    OaiError::new(Code::BadVerb, format!("Bad verb. Verb '{verb}' is not implemented"))
}

fn missing_arguments(names: &[&str]) -> OaiError {
    OaiError::new(Code::BadArgument, format!("Missing required parameters: {}", names.join(", ")))
}

/// A set spec as the schema allows it.
pub(crate) fn valid_spec(spec: &str) -> bool {
    !spec.is_empty()
        && spec.split(':').all(|part| {
            !part.is_empty()
                && part.chars().all(|c| c.is_ascii_alphanumeric() || "-_.!~*'()".contains(c))
        })
}

/// A `from` or `until` argument.
#[derive(Debug, Clone, Copy)]
struct Datestamp {
    seconds: i64,
    /// Day granularity (`YYYY-MM-DD`), else seconds.
    day: bool,
}

impl Datestamp {
    fn parse(name: &str, value: &str) -> Result<Datestamp, OaiError> {
        let bad = || {
            OaiError::new(
                Code::BadArgument,
                format!("Bad datestamp format for '{name}={value}' argument."),
            )
        };
        if value.len() == 10 {
            let day = NaiveDate::parse_from_str(value, "%Y-%m-%d").map_err(|_| bad())?;
            let start = day.and_hms_opt(0, 0, 0).ok_or_else(bad)?;
            return Ok(Datestamp { seconds: start.and_utc().timestamp(), day: true });
        }
        let time = NaiveDateTime::parse_from_str(value, "%Y-%m-%dT%H:%M:%SZ").map_err(|_| bad())?;
        Ok(Datestamp { seconds: time.and_utc().timestamp(), day: false })
    }
}

/// UTC seconds as a datestamp of second granularity.
pub fn datestamp(seconds: i64) -> String {
    DateTime::<Utc>::from_timestamp(seconds, 0)
        .unwrap_or_default()
        .format("%Y-%m-%dT%H:%M:%SZ")
        .to_string()
}

/// The identifier of an instance: `oai:<host>:<tenant>/<id>`.
pub fn identifier(host: &str, tenant: &str, id: Uuid) -> String {
    format!("oai:{host}:{tenant}/{id}")
}

/// The instance an identifier names; it must be of this tenant.
fn instance_id(identifier: &str, tenant: &str) -> Result<Uuid, OaiError> {
    let invalid = || OaiError::new(Code::BadArgument, "Identifier has invalid structure.");
    let rest = identifier.strip_prefix("oai:").ok_or_else(invalid)?;
    let (_host, rest) = rest.split_once(':').ok_or_else(invalid)?;
    let (named, id) = rest.rsplit_once('/').ok_or_else(invalid)?;
    let id = Uuid::parse_str(id).map_err(|_| invalid())?;
    if named != tenant {
        return Err(OaiError::unknown_id());
    }
    Ok(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    fn error(pairs: &[(&str, &str)]) -> OaiError {
        parse(&args(pairs), "diku", 1_800_000_000).unwrap_err()
    }

    #[test]
    fn verbs_and_their_arguments_are_checked() {
        assert_eq!(error(&[]).code, Code::BadVerb);
        assert_eq!(error(&[("verb", "junk")]).message, "Bad verb. Verb 'junk' is not implemented");
        assert_eq!(error(&[("verb", "Identify"), ("verb", "Identify")]).code, Code::BadVerb);
        let e = error(&[("verb", "Identify"), ("set", "all")]);
        assert_eq!(
            (e.code, e.message.as_str()),
            (Code::BadArgument, "Verb 'Identify', illegal argument: set")
        );
        assert_eq!(
            error(&[("verb", "ListRecords")]).message,
            "Missing required parameters: metadataPrefix"
        );
        assert_eq!(
            error(&[("verb", "GetRecord")]).message,
            "Missing required parameters: identifier, metadataPrefix"
        );
        let e = error(&[
            ("verb", "ListRecords"),
            ("metadataPrefix", "marc21"),
            ("metadataPrefix", "oai_dc"),
        ]);
        assert_eq!(e.code, Code::BadArgument);
        let e = error(&[("verb", "ListRecords"), ("metadataPrefix", "mods")]);
        assert_eq!(e.code, Code::CannotDisseminateFormat);
        let e =
            error(&[("verb", "ListRecords"), ("resumptionToken", "x"), ("until", "2020-01-01")]);
        assert_eq!(e.code, Code::BadArgument);
        assert_eq!(
            error(&[("verb", "ListRecords"), ("resumptionToken", "junk")]).code,
            Code::BadResumptionToken
        );
        assert_eq!(
            error(&[("verb", "ListSets"), ("resumptionToken", "junk")]).code,
            Code::BadResumptionToken
        );
    }

    #[test]
    fn datestamps_have_one_granularity_and_an_order() {
        let list = |from: &str, until: &str| {
            parse(
                &args(&[
                    ("verb", "ListIdentifiers"),
                    ("metadataPrefix", "marc21"),
                    ("from", from),
                    ("until", until),
                ]),
                "diku",
                0,
            )
        };
        assert_eq!(
            list("junk", "2002-02-06").unwrap_err().message,
            "Bad datestamp format for 'from=junk' argument."
        );
        assert_eq!(list("2002-02-05", "2002-02-06T05:35:00Z").unwrap_err().code, Code::BadArgument);
        assert_eq!(list("2002-02-07", "2002-02-06").unwrap_err().code, Code::BadArgument);
        assert_eq!(
            list("2002-02-05T00:00:00.5Z", "2002-02-06T00:00:00Z").unwrap_err().code,
            Code::BadArgument
        );
        let Ok(Request::List { from: List::First(s), .. }) = list("2002-02-05", "2002-02-05")
        else {
            panic!("a day is a range")
        };
        assert_eq!(s.until.unwrap() - s.from.unwrap(), 86_399);
        assert_eq!(datestamp(s.from.unwrap()), "2002-02-05T00:00:00Z");
    }

    #[test]
    fn identifiers_name_a_tenant_and_an_instance() {
        let id = Uuid::from_u128(7);
        let get = |identifier: &str| {
            parse(
                &args(&[
                    ("verb", "GetRecord"),
                    ("metadataPrefix", "marc21"),
                    ("identifier", identifier),
                ]),
                "diku",
                0,
            )
        };
        assert_eq!(
            get(&identifier("folio.example.org", "diku", id)).unwrap(),
            Request::GetRecord { identifier: id, format: Format::Marc21 }
        );
        assert_eq!(get("invalid\"id").unwrap_err().message, "Identifier has invalid structure.");
        assert_eq!(get(&identifier("h", "other", id)).unwrap_err().code, Code::IdDoesNotExist);
    }
}
