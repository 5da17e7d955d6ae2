//! MARC holdings (MFHD) → holdings record.

use super::{Builder, entity, name, to};
use crate::rules::{Condition, Mapping, Rule, Rules};

pub(crate) fn holdings() -> Rules {
    let mut b = Builder::default();
    b.single("001", Mapping { rules: Some(Vec::new()), ..to("hrid", "") });
    // The holdings type comes from leader byte 6.
    let from_leader = Condition {
        functions: "set_holdings_type_id".into(),
        parameter: None,
        value: None,
        leader: true,
    };
    b.single(
        "001",
        Mapping {
            rules: Some(vec![Rule { conditions: vec![from_leader], ..Rule::default() }]),
            ..to("holdingsTypeId", "")
        },
    );
    b.entity("035", entity(vec![to("formerIds", "a")]).per_subfield());
    for (tag, subfields, kind) in [
        ("561", "au3568", "Provenance"),
        ("562", "abcde3568", "Copy note"),
        ("563", "au3568", "Binding"),
        ("583", "abcdefhijklnouxz23568", "Action note"),
    ] {
        let staff_only = to("notes.staffOnly", subfields).constant("false");
        b.entity(
            tag,
            entity(vec![
                to("notes.holdingsNoteTypeId", subfields)
                    .joined()
                    .with_param("set_holdings_note_type_id", name(kind)),
                to("notes.note", subfields).joined().delimited(" ; ", subfields).with("trim"),
                if tag == "583" { staff_only } else { staff_only.joined() },
            ]),
        );
    }
    b.entity(
        "852",
        entity(vec![
            to("callNumberTypeId", "b").with("set_call_number_type_id"),
            to("permanentLocationId", "b").with("set_permanent_location_id"),
            to("callNumber", "hi").joined().delimited(" ", "hi"),
            to("callNumberPrefix", "k"),
            to("shelvingTitle", "l"),
            to("callNumberSuffix", "m"),
            to("copyNumber", "t"),
        ]),
    );
    let part = |target: &str, code: &str| to(target, code).with("remove_ending_punc, trim");
    b.entity(
        "856",
        entity(vec![
            to("electronicAccess.relationshipId", "3yuz")
                .joined()
                .with("set_electronic_access_relations_id"),
            part("electronicAccess.uri", "u"),
            part("electronicAccess.linkText", "y"),
            part("electronicAccess.materialsSpecification", "3"),
            part("electronicAccess.publicNote", "z"),
        ]),
    );
    for (tag, list) in [
        ("866", "holdingsStatements"),
        ("867", "holdingsStatementsForSupplements"),
        ("868", "holdingsStatementsForIndexes"),
    ] {
        b.entity(
            tag,
            entity(vec![
                part(&format!("{list}.statement"), "a"),
                part(&format!("{list}.note"), "z"),
                part(&format!("{list}.staffNote"), "x"),
            ]),
        );
    }
    b.0
}
