#!/usr/bin/env bash
# System benchmark of search: generates N instances (default 100,000) into a fresh data
# directory, starts `quire serve`, and runs `quire load search` with 1 and then 20 virtual
# users, FOLIO's query mix, reports beside FOLIO's figures. Usage:
#   scripts/bench-search.sh [INSTANCES] [DURATION]        e.g. scripts/bench-search.sh 1000000 5m
set -euo pipefail
cd "$(dirname "$0")/.."
instances=${1:-100000}
duration=${2:-60s}
out=${QUIRE_BENCH_OUT:-target/bench-search}
port=${QUIRE_BENCH_PORT:-9231}
cargo build --release -q -p quire-cli
quire=target/release/quire
data=$(mktemp -d)
trap 'kill $server 2>/dev/null || true; rm -rf "$data"' EXIT
mkdir -p "$out"
$quire tenant create perf --admin-password bench --data-dir "$data" >/dev/null
/usr/bin/time -v $quire generate --tenant perf --instances "$instances" --data-dir "$data" 2> "$out/generate.time" | tee "$out/generate.txt"
QUIRE_LOG=warn $quire serve --data-dir "$data" --listen 127.0.0.1:$port &
server=$!
until curl -sf http://127.0.0.1:$port/admin/health >/dev/null; do sleep 0.5; done
for users in 1 20; do
    $quire load search --url http://127.0.0.1:$port --tenant perf --username admin --password bench \
        --users $users --duration "$duration" --skip-missing \
        --json "$out/search-$users.json" --html "$out/search-$users.html" | tee "$out/search-$users.txt"
done
echo "server resident memory: $(ps -o rss= -p $server | awk '{printf "%.0f MiB", $1/1024}')" | tee "$out/memory.txt"
