#!/usr/bin/env bash
# Times FOLIO's PTF bulk-edit jobs with `quire load bulk-edit`: users 1,000 and 2,500,
# items and holdings 1,000 and 10,000 (PTF's rules for each), and the three 10,000-item,
# 10,000-holdings and 2,500-user jobs at once. Each job runs on its own copy of one
# generated tenant, so none finds the records an earlier job changed. Prints one line per
# job: seconds from the upload to COMMITTED, each step's share, FOLIO's duration.
#
#   scripts/bench-bulk-edit.sh [INSTANCES]   (default 50000: 2,500 patrons, ~61,000 items)
set -euo pipefail
cd "$(dirname "$0")/.."
instances=${1:-50000}
port=${QUIRE_BENCH_PORT:-9235}
url=http://127.0.0.1:$port
. scripts/bench-work.sh
export QUIRE_LOG=${QUIRE_LOG:-warn}
$quire tenant create perf --admin-password bench --data-dir "$work/base" > /dev/null
$quire generate --tenant perf --instances "$instances" --data-dir "$work/base" > /dev/null
key=$($quire tenant oai-key perf --user admin --data-dir "$work/base")
serve() { # a fresh copy of the generated tenant, served
    [ -n "$server" ] && { kill $server; wait $server 2>/dev/null || true; }
    rm -rf "$work/data" && cp -r "$work/base" "$work/data"
    $quire serve --data-dir "$work/data" --listen 127.0.0.1:$port &
    server=$!
    until curl -sf $url/admin/health > /dev/null; do sleep 0.2; done
    # A freshly generated tenant's OAI-PMH harvest index first follows its whole change
    # log, writing as it goes; a harvest's first request waits for that, so the job
    # does not share the writer with it (a served tenant has its index).
    curl -sf "$url/oai?verb=ListIdentifiers&metadataPrefix=marc21&apikey=$key" -o /dev/null
}
job() { # entity records
    $quire load bulk-edit --url $url --tenant perf --username admin --password bench \
        --entity "$1" --records "$2" | grep -E "^(bulk edit|FOLIO)"
}
for spec in "USER 1000" "USER 2500" "ITEM 1000" "ITEM 10000" "HOLDINGS_RECORD 1000" "HOLDINGS_RECORD 10000"; do
    serve
    job $spec
done
serve
echo "together: 10,000 items, 10,000 holdings, 2,500 users"
start=$(date +%s.%N)
job ITEM 10000 & a=$!
job HOLDINGS_RECORD 10000 & b=$!
job USER 2500 & c=$!
wait $a $b $c
echo "together: $(echo "$(date +%s.%N) - $start" | bc) s wall"
