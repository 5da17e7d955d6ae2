#!/usr/bin/env bash
# Search before and after the desk wears the instance index (docs/benchmarks.md, row
# AB): a generated tenant of INSTANCES instances, served; `quire load search` at 20
# users for DURATION, once to warm the caches and once on the merged index; then
# `quire load cico --posts-only` at 8 users for CICO (each check-out and check-in
# re-indexes its instance); search again at once (the worn index, while the follower
# catches up); again once the writes' pause has let the follower fold the small
# segments into one (two seconds after the last write, once caught up); and again once
# it has rebuilt the index (ten seconds' pause, then a reindex at background priority).
# Prints each phase's "All requests" line, the index's segments and deleted documents,
# and the follower's catch-up and fold times (QUIRE_LOG). Reports go to
# target/bench-search-wear (QUIRE_BENCH_OUT).
#
#   scripts/bench-search-wear.sh [INSTANCES] [DURATION] [CICO]   (100000 15s 30s)
set -euo pipefail
cd "$(dirname "$0")/.."
instances=${1:-100000}
duration=${2:-15s}
cico=${3:-30s}
out=${QUIRE_BENCH_OUT:-target/bench-search-wear}
port=${QUIRE_BENCH_PORT:-9237}
url=http://127.0.0.1:$port
. scripts/bench-work.sh
mkdir -p "$out"
export QUIRE_LOG=${QUIRE_LOG:-warn,search=info}
scripts/fetch-lc-records.sh >/dev/null || echo "no LC records: instances will be FOLIO-sourced only" >&2
$quire tenant create perf --admin-password bench --data-dir "$work/data" >/dev/null
$quire generate --tenant perf --instances "$instances" --data-dir "$work/data" > "$out/generate.txt"
$quire serve --data-dir "$work/data" --listen 127.0.0.1:$port &
server=$!
until curl -sf $url/admin/health >/dev/null; do sleep 0.5; done
token=$(curl -sf -D - -o /dev/null -H 'x-okapi-tenant: perf' -H 'content-type: application/json' \
    -d '{"username":"admin","password":"bench"}' $url/authn/login |
    awk -F': ' 'tolower($1) == "x-okapi-token" {print $2}' | tr -d '\r')
status() {
    curl -sf -H 'x-okapi-tenant: perf' -H "x-okapi-token: $token" \
        $url/search/index/instance-records/reindex/status |
        python3 -c 'import json, sys; s = json.load(sys.stdin)[0]; print("segments %d, deleted documents %d, generation %s" % (s["segments"], s["deletedDocuments"], s["generation"]))'
}
search() { # phase
    $quire load search --url $url --tenant perf --username admin --password bench \
        --users 20 --duration "$duration" --skip-missing --json "$out/$1.json" > "$out/$1.txt"
    echo "$1: $(status)"
    grep -E "^All requests" "$out/$1.txt"
}
# The server's other followers (MARC, harvest) apply the generated tenant's log after a
# start: wait until it stands idle (under a tenth of a second of CPU in two seconds).
settle() {
    local before after
    while true; do
        before=$(awk '{print $14 + $15}' /proc/$server/stat)
        sleep 2
        after=$(awk '{print $14 + $15}' /proc/$server/stat)
        (( after - before < 10 )) && return
    done
}
settle
search warmup
search merged
$quire load cico --url $url --tenant perf --username admin --password bench \
    --users 8 --duration "$cico" --posts-only > "$out/cico.txt"
grep -E "^POST" "$out/cico.txt"
search worn
ended=$(date +%s)
# Folded: the largest segment and one more (or one, should the rebuild come first).
until now=$(status) && [[ $now =~ ^segments\ [12], ]]; do sleep 0.5; done
echo "folded $(( $(date +%s) - ended )) s after the worn phase ended"
search folded
until now=$(status) && [[ $now == "segments 1,"* ]]; do sleep 1; done
echo "rebuilt $(( $(date +%s) - ended )) s after the worn phase ended"
search rebuilt
