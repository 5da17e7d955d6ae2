//! The line filter behind `quire cql`: queries in, XCQL out.
//!
//! Owns: the framing, which is that of the YAZ oracle
//! `shared/tools/cql2xcql.c`, so the two outputs can be diffed line by line.
//! This is the crate's only I/O, and it only touches the reader and writer it
//! is handed.

use std::io::{self, BufRead, Write};

use crate::parser::parse;

/// Reads one query a line from `input` and writes, for each, its XCQL (or a
/// line `ERROR: <message> (at byte N)`) followed by a line `----`.
///
/// Trailing `\n` and `\r` are stripped from each line, as the YAZ oracle
/// does; an empty line is an (empty, hence invalid) query. A line that is not
/// UTF-8 gets an `ERROR:` line too. I/O errors are returned as they come.
///
/// ```
/// # use quire_cql as cql;
/// let mut out = Vec::new();
/// cql::xcql_filter(&b"cat\ncat or\n"[..], &mut out).unwrap();
/// let out = String::from_utf8(out).unwrap();
/// assert!(out.starts_with("<searchClause>\n"));
/// assert!(out.ends_with("----\nERROR: expected index or term, got EOF (at byte 6)\n----\n"));
/// ```
pub fn xcql_filter(mut input: impl BufRead, mut output: impl Write) -> io::Result<()> {
    let mut line = Vec::new();
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        while let Some(b'\n' | b'\r') = line.last() {
            line.pop();
        }
        match std::str::from_utf8(&line) {
            Ok(query) => match parse(query) {
                Ok(query) => output.write_all(query.to_xcql().as_bytes())?,
                Err(e) => writeln!(output, "ERROR: {e}")?,
            },
            Err(e) => writeln!(output, "ERROR: query is not UTF-8 (at byte {})", e.valid_up_to())?,
        }
        output.write_all(b"----\n")?;
    }
    output.flush()
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};

    use super::xcql_filter;

    fn check(input: &[u8], expect: Expect) {
        let mut out = Vec::new();
        xcql_filter(input, &mut out).unwrap();
        expect.assert_eq(&String::from_utf8(out).unwrap());
    }

    #[test]
    fn frames_each_query() {
        check(
            b"cat\r\n\nx \xff\n(",
            expect![[r#"
                <searchClause>
                  <index>cql.serverChoice</index>
                  <relation>
                    <value>=</value>
                  </relation>
                  <term>cat</term>
                </searchClause>
                ----
                ERROR: expected index or term, got EOF (at byte 0)
                ----
                ERROR: query is not UTF-8 (at byte 2)
                ----
                ERROR: expected index or term, got EOF (at byte 1)
                ----
            "#]],
        );
    }
}
