#!/usr/bin/env bash
# Reruns every system benchmark of docs/benchmarks.md on one generated data set:
#   1. `quire generate` of INSTANCES instances (tenant perf: MARC-derived records,
#      holdings, items, authorities, users) and INSTANCES/4 more (tenant other);
#   2. `quire serve`, then `quire load` for each scenario that exists:
#      search (1 and 20 users), search-under-reindex (20 users on perf while other
#      reindexes), marc-search (2 users, as FOLIO's test), marc-search again after
#      20,000 DELETE /source-storage/records/{id} (FOLIO's test 3), export-ids;
#   3. the server's resident memory.
# Reports (text, JSON, HTML) go to target/bench-all (QUIRE_BENCH_OUT). Usage:
#   scripts/bench-all.sh [INSTANCES] [DURATION]        e.g. scripts/bench-all.sh 1000000 60s
set -euo pipefail
cd "$(dirname "$0")/.."
instances=${1:-1000000}
duration=${2:-60s}
out=${QUIRE_BENCH_OUT:-target/bench-all}
port=${QUIRE_BENCH_PORT:-9232}
url=http://127.0.0.1:$port
cargo build --release -q -p quire-cli
quire=target/release/quire
scripts/fetch-lc-records.sh >/dev/null || echo "no LC records: instances will be FOLIO-sourced only" >&2
data=${QUIRE_BENCH_DATA:-$(mktemp -d)}
server=
trap '[ -n "$server" ] && kill $server 2>/dev/null; [ -z "${QUIRE_BENCH_DATA:-}" ] && rm -rf "$data"' EXIT
mkdir -p "$out"
echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB; $(uname -sr)" | tee "$out/machine.txt"
for tenant in perf other; do
    $quire tenant create $tenant --admin-password bench --data-dir "$data" >/dev/null
done
export QUIRE_LOG=warn
/usr/bin/time -f "%e s wall, %M KB max resident" $quire generate --tenant perf --instances "$instances" \
    --data-dir "$data" 2>&1 | tee "$out/generate.txt"
$quire generate --tenant other --instances $((instances / 4)) --seed 2 --data-dir "$data" \
    2>&1 | tee "$out/generate-other.txt"

$quire serve --data-dir "$data" --listen 127.0.0.1:$port &
server=$!
until curl -sf $url/admin/health >/dev/null; do sleep 0.5; done
run() { # scenario users name [extra args]
    local scenario=$1 users=$2 name=$3
    shift 3
    $quire load "$scenario" --url $url --tenant perf --username admin --password bench \
        --users "$users" --duration "$duration" --skip-missing "$@" \
        --json "$out/$name.json" --html "$out/$name.html" | tee "$out/$name.txt"
}
run search 1 search-1
run search 20 search-20
run search-under-reindex 20 search-under-reindex-20 --reindex-tenant other
python3 scripts/bench-helper.py status $url other | tee "$out/reindex-other.txt"
run marc-search 2 marc-search-2
python3 scripts/bench-helper.py delete-srs $url perf 20000 | tee "$out/srs-deletes.txt"
run marc-search 2 marc-search-2-after-deletes
run export-ids 1 export-ids-1
echo "server resident memory: $(ps -o rss= -p $server | awk '{printf "%.0f MiB", $1/1024}')" | tee "$out/memory.txt"
