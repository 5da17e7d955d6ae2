//! How inventory's models decode: FOLIO's field paths and messages for each record type,
//! through the one decode (`folio::decode`).

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};
    use serde::de::DeserializeOwned;

    use crate::model::{HoldingsRecord, Instance, Item};
    use crate::reference::RefKind;
    use folio::decode;

    fn check<T: DeserializeOwned>(body: &str, expect: Expect) {
        let actual = match decode::<T>(body.as_bytes()) {
            Ok(_) => "ok".to_owned(),
            Err(e) => format!("{e:?}"),
        };
        expect.assert_eq(&actual);
    }

    /// A valid instance with `extra` spliced in after the required fields.
    fn instance(extra: &str) -> String {
        format!(
            r#"{{"source": "FOLIO", "title": "Linked data",
                "instanceTypeId": "6312d172-f0cf-40f6-b27d-9fa8feaf332f"{extra}}}"#
        )
    }

    #[test]
    fn instance_errors() {
        check::<Instance>(&instance(""), expect!["ok"]);
        check::<Instance>(
            r#"{"source": "FOLIO", "instanceTypeId": "6312d172-f0cf-40f6-b27d-9fa8feaf332f"}"#,
            expect![[r#"Invalid { field: "title", message: "must not be null", value: None }"#]],
        );
        check::<Instance>(
            r#"{"source": "FOLIO", "title": null,
                "instanceTypeId": "6312d172-f0cf-40f6-b27d-9fa8feaf332f"}"#,
            expect![[r#"Invalid { field: "title", message: "must not be null", value: None }"#]],
        );
        check::<Instance>(
            &instance(r#", "foo": {"bar": 1}"#),
            expect![[
                r#"Invalid { field: "foo", message: "Unrecognized field \"foo\"", value: Some("{\"bar\":1}") }"#
            ]],
        );
        check::<Instance>(
            &instance(
                r#", "identifiers": [
                    {"value": "9781617290398", "identifierTypeId": "8261054f-be78-422d-bd51-4ed9f33c3422"},
                    {"value": "(OCoLC)852161519"}]"#,
            ),
            expect![[
                r#"Invalid { field: "identifiers[1].identifierTypeId", message: "must not be null", value: None }"#
            ]],
        );
        check::<Instance>(
            &instance(
                r#", "contributors": [{"name": "Wood, David",
                    "contributorNameTypeId": "2b94c631-fca9-4892-a730-03ee529ffe2a", "role": "x"}]"#,
            ),
            expect![[
                r#"Invalid { field: "contributors[0].role", message: "Unrecognized field \"role\"", value: Some("x") }"#
            ]],
        );
        check::<Instance>(
            r#"{"source": "FOLIO", "title": "t", "instanceTypeId": "6312d172-f0cf-40f6"}"#,
            expect![[
                r#"Invalid { field: "instanceTypeId", message: "UUID parsing failed: invalid group count: expected 5, found 3", value: Some("6312d172-f0cf-40f6") }"#
            ]],
        );
        check::<Instance>(
            &instance(r#", "languages": "eng""#),
            expect![[
                r#"Invalid { field: "languages", message: "invalid type: string \"eng\", expected a sequence", value: Some("eng") }"#
            ]],
        );
        check::<Instance>(
            &instance(r#", "discoverySuppress": "yes""#),
            expect![[
                r#"Invalid { field: "discoverySuppress", message: "invalid type: string \"yes\", expected a boolean", value: Some("yes") }"#
            ]],
        );
        check::<Instance>(
            &instance(r#", "dates": {"date1": "20141""#),
            expect![[
                r#"Malformed { message: "EOF while parsing an object", line: 2, column: 101 }"#
            ]],
        );
        check::<Instance>(
            &instance(r#", "dates": {"date1": "20141"}"#),
            expect![[
                r#"Invalid { field: "dates.date1", message: "size must be between 0 and 4", value: Some("20141") }"#
            ]],
        );
        check::<Instance>(
            &instance(r#", "sourceRecordFormat": "MARC""#),
            expect![[
                r#"Invalid { field: "sourceRecordFormat", message: "unknown variant `MARC`, expected `MARC-JSON`", value: Some("MARC") }"#
            ]],
        );
        check::<Instance>(
            &instance(r#", "metadata": {"createdDate": "soon"}"#),
            expect![[
                r#"Invalid { field: "metadata.createdDate", message: "invalid date-time \"soon\"", value: Some("soon") }"#
            ]],
        );
        check::<Instance>(
            &instance(r#", "title": "again""#),
            expect![[
                r#"Invalid { field: "title", message: "Duplicate field \"title\"", value: Some("again") }"#
            ]],
        );
        check::<Instance>(
            &instance(r#", "notes": [null]"#),
            expect![[r#"Invalid { field: "notes[0]", message: "must not be null", value: None }"#]],
        );
    }

    #[test]
    fn malformed_bodies() {
        check::<Instance>(
            "",
            expect![[r#"Malformed { message: "EOF while parsing a value", line: 1, column: 0 }"#]],
        );
        check::<Instance>(
            "   \n",
            expect![[r#"Malformed { message: "EOF while parsing a value", line: 2, column: 0 }"#]],
        );
        check::<Instance>(
            "not json",
            expect![[r#"Malformed { message: "expected ident", line: 1, column: 2 }"#]],
        );
        check::<Instance>(
            r#"{"title": "Linked data""#,
            expect![[
                r#"Malformed { message: "EOF while parsing an object", line: 1, column: 23 }"#
            ]],
        );
        check::<Instance>(
            &format!("{} {{}}", instance("")),
            expect![[r#"Malformed { message: "trailing characters", line: 2, column: 75 }"#]],
        );
        // An unknown field before the syntax error: still malformed, not 422.
        check::<Instance>(
            "{\"foo\": 1,\n \"title\": }",
            expect![[r#"Malformed { message: "expected value", line: 2, column: 11 }"#]],
        );
    }

    #[test]
    fn not_an_object() {
        check::<Instance>(
            "[]",
            expect![[
                r#"Invalid { field: "", message: "must be a JSON object", value: Some("[]") }"#
            ]],
        );
        check::<Instance>(
            r#"["FOLIO", "Linked data"]"#,
            expect![[
                r#"Invalid { field: "", message: "must be a JSON object", value: Some("[\"FOLIO\",\"Linked data\"]") }"#
            ]],
        );
        check::<Instance>(
            r#""Linked data""#,
            expect![[
                r#"Invalid { field: "", message: "must be a JSON object", value: Some("Linked data") }"#
            ]],
        );
        check::<Instance>(
            "null",
            expect![[r#"Invalid { field: "", message: "must be a JSON object", value: None }"#]],
        );
    }

    const HOLDINGS: &str = r#""sourceId": "f32d531e-df79-46b3-8932-cdd35f7a2264",
        "instanceId": "b99b2c50-72e2-49b6-8fa1-0ebb97b27125""#;

    #[test]
    fn holdings_errors() {
        let holdings = |extra: &str| format!("{{{HOLDINGS}{extra}}}");
        check::<HoldingsRecord>(
            &holdings(r#", "permanentLocationId": "fcd64ce1-6995-48f0-840e-89ffa2288371""#),
            expect!["ok"],
        );
        check::<HoldingsRecord>(
            &holdings(""),
            expect![[
                r#"Invalid { field: "permanentLocationId", message: "must not be null", value: None }"#
            ]],
        );
        check::<HoldingsRecord>(
            &holdings(
                r#", "permanentLocationId": "fcd64ce1-6995-48f0-840e-89ffa2288371",
                   "statisticalCodeIds": ["b5968c9e-cddc-4576-99e3-8e60aed8b0dd", "nope"]"#,
            ),
            expect![[
                r#"Invalid { field: "statisticalCodeIds[1]", message: "UUID parsing failed: invalid character: found `n` at 0", value: Some("nope") }"#
            ]],
        );
        check::<HoldingsRecord>(
            &holdings(
                r#", "permanentLocationId": "fcd64ce1-6995-48f0-840e-89ffa2288371",
                   "holdingsStatements": [{"statement": "v.1", "public": true}]"#,
            ),
            expect![[
                r#"Invalid { field: "holdingsStatements[0].public", message: "Unrecognized field \"public\"", value: Some("true") }"#
            ]],
        );
        check::<HoldingsRecord>(
            &holdings(
                r#", "permanentLocationId": "fcd64ce1-6995-48f0-840e-89ffa2288371",
                   "receivingHistory": {"entries": [{"enumeration": 1}]}"#,
            ),
            expect![[
                r#"Invalid { field: "receivingHistory.entries[0].enumeration", message: "invalid type: integer `1`, expected a string", value: Some("1") }"#
            ]],
        );
    }

    /// A valid item body with `status` as given and `extra` spliced in.
    fn item(status: &str, extra: &str) -> String {
        format!(
            r#"{{"holdingsRecordId": "fb223b29-66ec-4127-b0db-b4e1756399d6",
                "materialTypeId": "1a54b431-2e4f-452d-9cae-9cee66c9a892",
                "permanentLoanTypeId": "2b94c631-fca9-4892-a730-03ee529ffe27"
                {status}{extra}}}"#
        )
    }

    #[test]
    fn item_errors() {
        check::<Item>(&item(r#", "status": {"name": "Available"}"#, ""), expect!["ok"]);
        check::<Item>(
            &item("", ""),
            expect![[r#"Invalid { field: "status", message: "must not be null", value: None }"#]],
        );
        check::<Item>(
            &item(r#", "status": {}"#, ""),
            expect![[
                r#"Invalid { field: "status.name", message: "must not be null", value: None }"#
            ]],
        );
        check::<Item>(
            &item(r#", "status": {"name": "Lost"}"#, ""),
            expect![[
                r#"Invalid { field: "status.name", message: "unknown variant `Lost`, expected one of `Aged to lost`, `Available`, `Awaiting pickup`, `Awaiting delivery`, `Checked out`, `Claimed returned`, `Declared lost`, `In process`, `In process (non-requestable)`, `In transit`, `Intellectual item`, `Long missing`, `Lost and paid`, `Missing`, `On order`, `Paged`, `Restricted`, `Order closed`, `Unavailable`, `Unknown`, `Withdrawn`", value: Some("Lost") }"#
            ]],
        );
        check::<Item>(
            &item(r#", "status": {"name": "Available", "date": "yesterday"}"#, ""),
            expect![[
                r#"Invalid { field: "status.date", message: "invalid date-time \"yesterday\"", value: Some("yesterday") }"#
            ]],
        );
        check::<Item>(
            &item(
                r#", "status": {"name": "Available"}"#,
                r#", "circulationNotes": [{"noteType": "Check in"}, {"noteType": "Renew"}]"#,
            ),
            expect![[
                r#"Invalid { field: "circulationNotes[1].noteType", message: "unknown variant `Renew`, expected `Check in` or `Check out`", value: Some("Renew") }"#
            ]],
        );
        check::<Item>(
            &item(r#", "status": {"name": "Available"}"#, r#", "copyNumber": 2"#),
            expect![[
                r#"Invalid { field: "copyNumber", message: "invalid type: integer `2`, expected a string", value: Some("2") }"#
            ]],
        );
    }

    #[test]
    fn reference_errors() {
        let check_ref = |kind: RefKind, body: &str, expect: Expect| {
            let actual = match kind.decode(body.as_bytes()) {
                Ok(record) => format!("ok {}", record.name()),
                Err(e) => format!("{e:?}"),
            };
            expect.assert_eq(&actual);
        };
        check_ref(RefKind::MaterialType, r#"{"name": "book"}"#, expect!["ok book"]);
        check_ref(
            RefKind::MaterialType,
            r#"{"source": "local"}"#,
            expect![[r#"Invalid { field: "name", message: "must not be null", value: None }"#]],
        );
        check_ref(
            RefKind::MaterialType,
            r#"{"name": "book", "code": "bk"}"#,
            expect![[
                r#"Invalid { field: "code", message: "Unrecognized field \"code\"", value: Some("bk") }"#
            ]],
        );
        check_ref(
            RefKind::MaterialType,
            r#"{"id": "not-a-uuid", "name": "book"}"#,
            expect![[
                r#"Invalid { field: "id", message: "UUID parsing failed: invalid character: found `n` at 0", value: Some("not-a-uuid") }"#
            ]],
        );
        check_ref(
            RefKind::InstanceType,
            r#"{"name": "text", "code": "txt"}"#,
            expect![[r#"Invalid { field: "source", message: "must not be null", value: None }"#]],
        );
        check_ref(
            RefKind::ServicePoint,
            r#"{"name": "Desk", "code": "d", "discoveryDisplayName": "Desk",
                "holdShelfExpiryPeriod": {"duration": 3, "intervalId": "Fortnights"}}"#,
            expect![[
                r#"Invalid { field: "holdShelfExpiryPeriod.intervalId", message: "unknown variant `Fortnights`, expected one of `Minutes`, `Hours`, `Days`, `Weeks`, `Months`", value: Some("Fortnights") }"#
            ]],
        );
        check_ref(
            RefKind::Location,
            r#"{"name": "Stacks", "code": "S",
                "institutionId": "40ee00ca-a518-4b49-be01-0638d0a4ac57",
                "campusId": "62cf76b7-cca5-4d33-9217-edf42ce1a848",
                "libraryId": "5d78803e-ca04-4b4a-aeae-2c63b924518b"}"#,
            expect![[
                r#"Invalid { field: "primaryServicePoint", message: "must not be null", value: None }"#
            ]],
        );
    }
}
