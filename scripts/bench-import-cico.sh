#!/usr/bin/env bash
# Check-in/check-out beside a MARC import, as FOLIO's PTF paired them: a tenant of
# INSTANCES generated instances (patrons, loans and policies included), served; then
# `quire load import`, which runs cico with 8 users idle for DURATION, then again while
# the first RECORDS Library of Congress records import through the web client's API, and
# prints the check-out and check-in POSTs' p95 side by side with the import's time. Runs
# twice: with PTF's think time (FOLIO's model) and with 100 ms between requests (more
# samples). Reports in target/bench-import-cico.
#
#   scripts/bench-import-cico.sh [INSTANCES] [RECORDS] [DURATION]   (100000 100000 15s)
set -euo pipefail
cd "$(dirname "$0")/.."
instances=${1:-100000}
records=${2:-100000}
duration=${3:-15s}
out=${QUIRE_BENCH_OUT:-target/bench-import-cico}
port=${QUIRE_BENCH_PORT:-9234}
url=http://127.0.0.1:$port
lc=$(scripts/fetch-lc-records.sh)
. scripts/bench-work.sh
mkdir -p "$out"
export QUIRE_LOG=${QUIRE_LOG:-warn}
python3 scripts/cut-records.py "$lc" "$records" "$work/records.mrc"
$quire tenant create perf --admin-password bench --data-dir "$work/data" >/dev/null
$quire generate --tenant perf --instances "$instances" --data-dir "$work/data" | tee "$out/generate.txt"
key=$($quire tenant oai-key perf --user admin --data-dir "$work/data")
$quire serve --data-dir "$work/data" --listen 127.0.0.1:$port &
server=$!
until curl -sf $url/admin/health >/dev/null; do sleep 0.5; done
# The OAI-PMH harvest index follows the freshly generated tenant's whole change log
# first; a harvest's first request waits for that, so the idle run does not share the
# cores with it.
curl -sf "$url/oai?verb=ListIdentifiers&metadataPrefix=marc21&apikey=$key" -o /dev/null
load() { # name [extra args]
    local name=$1
    shift
    $quire load import --url $url --tenant perf --username admin --password bench \
        --users 8 --duration "$duration" --file "$work/records.mrc" --json "$out/$name.json" "$@" \
        | tee "$out/$name.txt" | grep -E "POST|import:"
}
load think-time-ptf --folio-think-time
load think-time-100ms --think-time-ms 100
