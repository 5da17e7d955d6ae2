#!/usr/bin/env bash
# Reruns the check-in/check-out benchmarks of docs/benchmarks.md (FOLIO's CICO test):
#   1. `quire generate` of INSTANCES instances into tenant perf (patrons, policies, rules,
#      open loans and requests included), unless QUIRE_BENCH_DATA holds one already;
#   2. `quire serve`, then `quire load cico`:
#      - 8, 20 and 25 virtual users with PTF's think time (FOLIO's model), started over a
#        ramp-up of RAMP_UP (default 30s) rather than all at once;
#      - 8, 20 and 25 virtual users without think time (the desk at full speed);
#      - the bare POSTs with 8 users and no think time (saturation);
#      - with LONG set (e.g. LONG=30m), a long run at 20 users without think time
#        whose report shows the server's resident memory over the run.
# Reports (text, JSON, HTML) go to target/bench-cico (QUIRE_BENCH_OUT). Usage:
#   scripts/bench-cico.sh [INSTANCES] [DURATION]        e.g. scripts/bench-cico.sh 1000000 120s
set -euo pipefail
cd "$(dirname "$0")/.."
instances=${1:-1000000}
duration=${2:-120s}
out=${QUIRE_BENCH_OUT:-target/bench-cico}
port=${QUIRE_BENCH_PORT:-9233}
url=http://127.0.0.1:$port
cargo build --release -q -p quire-cli
quire=target/release/quire
data=${QUIRE_BENCH_DATA:-$(mktemp -d)}
server=
trap '[ -n "$server" ] && kill $server 2>/dev/null; [ -z "${QUIRE_BENCH_DATA:-}" ] && rm -rf "$data"' EXIT
mkdir -p "$out"
echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB; $(uname -sr)" | tee "$out/machine.txt"
export QUIRE_LOG=warn
if [ ! -d "$data/perf" ] && [ ! -d "$data/tenants/perf" ]; then
    scripts/fetch-lc-records.sh >/dev/null || echo "no LC records: instances will be FOLIO-sourced only" >&2
    $quire tenant create perf --admin-password bench --data-dir "$data" >/dev/null
    /usr/bin/time -f "%e s wall, %M KB max resident" $quire generate --tenant perf \
        --instances "$instances" --data-dir "$data" 2>&1 | tee "$out/generate.txt"
fi
$quire serve --data-dir "$data" --listen 127.0.0.1:$port &
server=$!
until curl -sf $url/admin/health >/dev/null; do sleep 0.5; done
run() { # name users duration [extra args]
    local name=$1 users=$2 length=$3
    shift 3
    $quire load cico --url $url --tenant perf --username admin --password bench \
        --users "$users" --duration "$length" "$@" \
        --json "$out/$name.json" --html "$out/$name.html" | tee "$out/$name.txt"
}
for users in 8 20 25; do
    run cico-$users-ptf-think $users "$duration" --folio-think-time --ramp-up "${RAMP_UP:-30s}"
done
for users in 8 20 25; do
    run cico-$users $users "$duration"
done
run cico-posts-8 8 "$duration" --posts-only
if [ -n "${LONG:-}" ]; then
    run cico-long-20 20 "$LONG"
fi
