//! Any text as a circulation rules file: compiling must not panic; an error points into
//! the text with a line and column; compiled rules answer a lookup. Deep indentation is
//! what the query limits bound.
//!
//! Run: `cd fuzz && cargo +nightly fuzz run circ_rules -- -max_len=8192`.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match circ_rules::Rules::compile(text) {
        Ok(rules) => {
            let criteria = circ_rules::Criteria {
                patron_group: "g",
                material_type: "m",
                loan_type: "t",
                institution: "a",
                campus: "b",
                library: "c",
                location: "s",
            };
            for kind in circ_rules::PolicyKind::ALL {
                let found = rules.lookup(kind, &criteria);
                assert!(!found.policy_id.is_empty());
                assert!(!rules.lookup_all(kind, &criteria).is_empty());
            }
            for reference in rules.policy_references() {
                let _ = reference.not_found();
            }
        }
        Err(e) => {
            assert!(e.offset <= text.len() && text.is_char_boundary(e.offset), "{text:?}: {e:?}");
            assert!(e.line >= 1 && !e.message.is_empty(), "{e:?}");
        }
    }
});
