#!/usr/bin/env bash
# Times MARC create imports of FOLIO's PTF sizes (5,000, 25,000, 50,000 and 100,000
# records) from the Library of Congress records of PyPI's pymarc==5.4.0, each into a
# fresh data directory with `quire import` (FOLIO's default create profile: instance and
# SRS record per MARC record, every instance searchable when the job ends). Prints one
# line per size: seconds end to end, records per second, peak resident memory.
#
#   scripts/bench-import.sh [SIZES...]        (default: 5000 25000 50000 100000)
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=("${@:-5000 25000 50000 100000}")
read -r -a sizes <<< "${sizes[*]}"
records=$(scripts/fetch-lc-records.sh)
cargo build --release --quiet -p quire-cli
quire=$PWD/target/release/quire
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for n in "${sizes[@]}"; do
    python3 scripts/cut-records.py "$records" "$n" "$work/$n.mrc"
    dir="$work/data-$n"
    QUIRE_LOG=warn "$quire" tenant create bench --admin-password bench --data-dir "$dir" > /dev/null
    /usr/bin/time -f '%e %M' -o "$work/time" \
        env QUIRE_LOG=warn "$quire" import "$work/$n.mrc" --tenant bench --data-dir "$dir" > "$work/out"
    read -r secs kb < "$work/time"
    grep -q COMMITTED "$work/out" || { cat "$work/out"; exit 1; }
    awk -v n="$n" -v s="$secs" -v kb="$kb" \
        'BEGIN { printf "%7d records: %6.1f s, %6.0f records/s, peak RSS %4.0f MiB\n", n, s, n / s, kb / 1024 }'
    rm -rf "$dir"
done
