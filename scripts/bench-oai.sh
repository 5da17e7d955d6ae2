#!/usr/bin/env bash
# OAI-PMH harvest speed (FOLIO's PTF harvested 7.8M records in 19 h 8 min at 100 a page):
# a tenant of INSTANCES generated instances with holdings and items, served; the time
# its harvest index takes to build from the change log (the first request waits for it);
# then `quire load oai`: a full marc21_withholdings harvest alone, pages of 100, with
# the server's resident memory sampled every half second; then cico with 8 users idle
# and during a second harvest (100 ms think time); search (8 users) idle and during a
# third. Reports in target/bench-oai.
#
#   scripts/bench-oai.sh [INSTANCES] [DURATION]   (1000000 15s)
set -euo pipefail
cd "$(dirname "$0")/.."
instances=${1:-1000000}
duration=${2:-15s}
out=${QUIRE_BENCH_OUT:-target/bench-oai}
port=${QUIRE_BENCH_PORT:-9236}
url=http://127.0.0.1:$port
cargo build --release -q -p quire-cli
quire=$PWD/target/release/quire
work=$(mktemp -d)
server=
sampler=
trap '[ -n "$sampler" ] && kill $sampler 2>/dev/null; [ -n "$server" ] && kill $server 2>/dev/null; rm -rf "$work"' EXIT
mkdir -p "$out"
export QUIRE_LOG=${QUIRE_LOG:-warn}
$quire tenant create perf --admin-password bench --data-dir "$work/data" >/dev/null
$quire generate --tenant perf --instances "$instances" --data-dir "$work/data" | tee "$out/generate.txt"
key=$($quire tenant oai-key perf --user admin --data-dir "$work/data")
$quire serve --data-dir "$work/data" --listen 127.0.0.1:$port &
server=$!
until curl -sf $url/admin/health >/dev/null; do sleep 0.5; done
started=$(date +%s.%N)
curl -sf "$url/oai?verb=ListIdentifiers&metadataPrefix=marc21&apikey=$key" -o /dev/null
awk -v a="$started" -v b="$(date +%s.%N)" \
    'BEGIN { printf "harvest index ready in %.1f s (built from the change log)\n", b - a }' | tee "$out/index.txt"
# Resident memory (anonymous, and all) of the server every half second.
( while kill -0 $server 2>/dev/null; do
    awk '/^RssAnon|^VmRSS/ {printf "%s %s ", $1, $2} END {print ""}' /proc/$server/status
    sleep 0.5
  done ) > "$out/memory.txt" &
sampler=$!
$quire load oai --url $url --tenant perf --username admin --password bench \
    --oai-key "$key" --harvest-only | tee "$out/harvest.txt"
kill $sampler; sampler=
awk '{ for (i = 1; i < NF; i += 2) if ($i == "RssAnon:") a[NR] = $(i+1) }
     END { n = length(a); if (n == 0) exit;
           printf "server RssAnon during the harvest: first %d MiB, last %d MiB, max ", a[1]/1024, a[n]/1024;
           m = 0; for (k in a) if (a[k] > m) m = a[k]; printf "%d MiB (%d samples)\n", m/1024, n }' \
    "$out/memory.txt" | tee "$out/memory-summary.txt"
$quire load oai --url $url --tenant perf --username admin --password bench \
    --oai-key "$key" --users 8 --duration "$duration" --think-time-ms 100 \
    | tee "$out/cico.txt" | grep -E "POST|harvest"
# Search (FOLIO's search workload, 8 users) idle, then during a third harvest.
search() { # name
    $quire load search --url $url --tenant perf --username admin --password bench \
        --users 8 --duration "$duration" --skip-missing > "$out/search-$1.txt"
    grep -E "^All requests" "$out/search-$1.txt" | head -1 | sed "s/^/search $1: /"
}
search idle
$quire load oai --url $url --tenant perf --username admin --password bench \
    --oai-key "$key" --harvest-only > "$out/harvest-beside-search.txt" &
harvester=$!
search during-harvest
wait $harvester
grep harvest "$out/harvest-beside-search.txt"
