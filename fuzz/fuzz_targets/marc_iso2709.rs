//! Any bytes as an ISO 2709 stream, strict and lenient: reading must not
//! panic, errors must point into the input, and every record read must
//! survive ISO 2709, MARCXML and MARC-in-JSON unchanged.
//!
//! Run: `cd fuzz && cargo +nightly fuzz run marc_iso2709`.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let len = data.len() as u64;
    for result in marc::Reader::new(data) {
        match result {
            Ok(record) => round_trips(&record),
            Err(e) => check_error(&e, len),
        }
    }
    for result in marc::LenientReader::new(data) {
        match result {
            Ok((record, warnings)) => {
                round_trips(&record);
                assert!(warnings.iter().all(|w| w.offset <= len), "{warnings:?}");
            }
            Err(e) => check_error(&e, len),
        }
    }
    match marc::decode(data) {
        Ok(record) => round_trips(&record),
        Err(e) => check_error(&e, len),
    }
});

fn check_error(e: &marc::Error, len: u64) {
    match e {
        marc::Error::Malformed { offset, .. } => assert!(*offset <= len, "{e} (input {len} bytes)"),
        other => panic!("unexpected error kind {other:?}"),
    }
    assert!(!e.to_string().is_empty());
}

fn round_trips(record: &marc::Record) {
    match marc::encode(record) {
        Ok(bytes) => {
            let again = marc::decode(&bytes).expect("encoded record decodes");
            assert_eq!(again.fields(), record.fields());
            assert_eq!(marc::encode(&again).expect("re-encodes"), bytes, "encoding is not stable");
        }
        Err(marc::Error::Unencodable { .. }) => {}
        Err(e) => panic!("encode failed: {e}"),
    }
    let xml = marc::marcxml::to_string(record);
    assert_eq!(&marc::marcxml::from_str(&xml).expect("MARCXML reads back"), record, "{xml}");
    let json = marc::json::to_string(record);
    assert_eq!(&marc::json::from_str(&json).expect("JSON reads back"), record, "{json}");
    let _ = record.to_string();
}
