//! Policy lookup against a 200-rule file shaped like a large FOLIO tenant's:
//! UUIDs everywhere, patron-group sections with nested material-type and
//! loan-type lines, location rules, negations and `all`. Reports time per
//! lookup over a mix of 100 items (the "thrpt" line gives lookups per
//! second), and the worst case, an item only the fallback matches, which
//! scans every rule.
//!
//! Run: `cargo bench -p quire-circ-rules --bench lookup`.

use circ_rules::{Criteria, PolicyKind, Rules};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

fn uuid(kind: u32, n: u32) -> String {
    format!("{kind:08x}-{n:04x}-4b5e-a7bd-064b8d177231")
}

fn policies(n: u32) -> String {
    let p = |kind: u32| uuid(0xf000 + kind, n % 40);
    format!("l {} r {} n {} o {} i {}", p(1), p(2), p(3), p(4), p(5))
}

/// About 200 rules: 20 patron-group sections of 8 lines, plus location and
/// loan-type rules at the top level.
fn rules_text() -> String {
    let mut text = String::from("priority: t, s, c, b, a, m, g\n");
    text.push_str(&format!("fallback-policy: {}\n", policies(0)));
    let mut n = 1;
    for group in 0..20 {
        text.push_str(&format!("# Section {group}\ng {}: {}\n", uuid(1, group), policies(n)));
        n += 1;
        for material in 0..3 {
            let m = group * 3 + material;
            text.push_str(&format!("    m {} {}: {}\n", uuid(2, m), uuid(2, m + 100), policies(n)));
            n += 1;
            text.push_str(&format!("        t {}: {}\n", uuid(3, m % 7), policies(n)));
            n += 1;
        }
        text.push_str(&format!("    t !{} !{}: {}\n", uuid(3, 0), uuid(3, 1), policies(n)));
        n += 1;
    }
    for location in 0..30 {
        text.push_str(&format!("s {} + m all: {}\n", uuid(4, location), policies(n)));
        n += 1;
    }
    for library in 0..10 {
        text.push_str(&format!(
            "c {} + t {}: {}\n",
            uuid(5, library),
            uuid(3, library % 7),
            policies(n)
        ));
        n += 1;
    }
    text
}

fn items() -> Vec<[String; 7]> {
    (0..100u32)
        .map(|i| {
            [
                uuid(1, i % 25),
                uuid(2, (i * 7) % 70),
                uuid(3, i % 9),
                uuid(6, i % 3),
                uuid(7, i % 5),
                uuid(5, i % 12),
                uuid(4, (i * 3) % 40),
            ]
        })
        .collect()
}

fn criteria(v: &[String; 7]) -> Criteria<'_> {
    Criteria {
        patron_group: &v[0],
        material_type: &v[1],
        loan_type: &v[2],
        institution: &v[3],
        campus: &v[4],
        library: &v[5],
        location: &v[6],
    }
}

fn bench_lookup(c: &mut Criterion) {
    let text = rules_text();
    let rules = Rules::compile(&text).expect("the bench rules compile");
    let n_rules = rules.policy_references().count() / 5;
    assert!((190..=220).contains(&n_rules), "{n_rules} rules");
    let items = items();
    let mix: Vec<Criteria<'_>> = items.iter().map(criteria).collect();

    let mut group = c.benchmark_group("circ-rules");
    group.throughput(Throughput::Elements(mix.len() as u64));
    group.bench_with_input(
        BenchmarkId::new("lookup", format!("{n_rules}-rules-100-items")),
        &mix,
        |b, mix| {
            b.iter(|| {
                for item in mix {
                    std::hint::black_box(
                        rules.lookup(PolicyKind::Loan, std::hint::black_box(item)),
                    );
                }
            });
        },
    );
    group.bench_with_input(
        BenchmarkId::new("lookup_all", format!("{n_rules}-rules-100-items")),
        &mix,
        |b, mix| {
            b.iter(|| {
                for item in mix {
                    std::hint::black_box(
                        rules.lookup_all(PolicyKind::Loan, std::hint::black_box(item)),
                    );
                }
            });
        },
    );
    group.throughput(Throughput::Elements(1));
    let nothing = ["x", "x", "x", "x", "x", "x", "x"].map(String::from);
    let nothing = criteria(&nothing);
    assert_eq!(rules.lookup(PolicyKind::Loan, &nothing).line, 2, "only the fallback matches");
    group.bench_function("lookup/fallback-only", |b| {
        b.iter(|| {
            std::hint::black_box(rules.lookup(PolicyKind::Loan, std::hint::black_box(&nothing)))
        });
    });
    group.bench_function("compile", |b| {
        b.iter(|| Rules::compile(std::hint::black_box(&text)).unwrap())
    });
    group.finish();
}

criterion_group!(benches, bench_lookup);
criterion_main!(benches);
