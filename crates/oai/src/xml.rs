//! Writing OAI-PMH responses: text appended to a `String`, element by element, never a
//! document tree. Owns the envelope (`OAI-PMH`, `responseDate`, `request`), errors,
//! headers and the resumption token element.

use crate::protocol::{OaiError, datestamp};

const OAI_NAMESPACE: &str = "http://www.openarchives.org/OAI/2.0/";

/// Starts a response: declaration, root element, `responseDate` and the `request`
/// element echoing `args` around `base_url`.
pub(crate) fn start(out: &mut String, now: i64, base_url: &str, args: &[(String, String)]) {
    out.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<OAI-PMH xmlns=\"");
    out.push_str(OAI_NAMESPACE);
    out.push_str(
        "\" xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" \
         xsi:schemaLocation=\"http://www.openarchives.org/OAI/2.0/ \
         http://www.openarchives.org/OAI/2.0/OAI-PMH.xsd\">\n",
    );
    element(out, "responseDate", &datestamp(now));
    out.push_str("<request");
    for (key, value) in args {
        out.push(' ');
        out.push_str(key);
        out.push_str("=\"");
        escape(out, value);
        out.push('"');
    }
    out.push('>');
    escape(out, base_url);
    out.push_str("</request>\n");
}

pub(crate) fn end(out: &mut String) {
    out.push_str("</OAI-PMH>\n");
}

pub(crate) fn errors(out: &mut String, errors: &[OaiError]) {
    for error in errors {
        out.push_str("<error code=\"");
        out.push_str(error.code.as_str());
        out.push_str("\">");
        escape(out, &error.message);
        out.push_str("</error>\n");
    }
}

/// `<name>text</name>` and a line end.
pub(crate) fn element(out: &mut String, name: &str, text: &str) {
    out.push('<');
    out.push_str(name);
    out.push('>');
    escape(out, text);
    out.push_str("</");
    out.push_str(name);
    out.push_str(">\n");
}

/// A record's header.
pub(crate) fn header(
    out: &mut String,
    identifier: &str,
    seconds: i64,
    deleted: bool,
    sets: &[&str],
) {
    out.push_str(if deleted { "<header status=\"deleted\">\n" } else { "<header>\n" });
    element(out, "identifier", identifier);
    element(out, "datestamp", &datestamp(seconds));
    for set in sets {
        element(out, "setSpec", set);
    }
    out.push_str("</header>\n");
}

/// The resumption token element: `token` empty on the list's last page.
pub(crate) fn resumption_token(
    out: &mut String,
    token: &str,
    cursor: u64,
    total: Option<u64>,
    expires: Option<i64>,
) {
    out.push_str("<resumptionToken");
    if let Some(expires) = expires {
        out.push_str(" expirationDate=\"");
        out.push_str(&datestamp(expires));
        out.push('"');
    }
    if let Some(total) = total {
        out.push_str(&format!(" completeListSize=\"{total}\""));
    }
    out.push_str(&format!(" cursor=\"{cursor}\">"));
    escape(out, token);
    out.push_str("</resumptionToken>\n");
}

/// Escapes text and (double-quoted) attribute values alike.
pub(crate) fn escape(out: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            // Attributes are written in double quotes; an apostrophe stays itself.
            '"' => out.push_str("&quot;"),
            // XML 1.0 cannot carry other control characters; a hostile argument may.
            c if (c as u32) < 0x20 && !matches!(c, '\t' | '\n' | '\r') => out.push('\u{FFFD}'),
            '\u{FFFE}' | '\u{FFFF}' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
}
