#!/usr/bin/env bash
# SQLite against PostgreSQL on the same generated tenant, one node each (docs/benchmarks.md,
# row AE):
#   1. `quire generate` of INSTANCES instances into tenant perf on SQLite (unless
#      QUIRE_BENCH_DATA holds one already), then `quire tenant move` of it into a throwaway
#      PostgreSQL cluster (scripts/postgres.sh, durable settings), timed;
#   2. for each store: `quire serve`, then check-out/check-in POSTs at 8 users without
#      think time, and FOLIO's search workload at 20 users, for DURATION each.
# Reports go to target/bench-postgres (QUIRE_BENCH_OUT). Usage:
#   scripts/bench-postgres.sh [INSTANCES] [DURATION]     e.g. scripts/bench-postgres.sh 100000 30s
set -euo pipefail
cd "$(dirname "$0")/.."
instances=${1:-100000}
duration=${2:-30s}
out=${QUIRE_BENCH_OUT:-target/bench-postgres}
port=${QUIRE_BENCH_PORT:-9234}
url=http://127.0.0.1:$port
cargo build --release -q -p quire-cli
quire=target/release/quire
data=${QUIRE_BENCH_DATA:-$(mktemp -d)}
pg_dir=$(mktemp -u -d /tmp/quire-bench-pg.XXXXXX)
node=$(mktemp -d)
server=
cleanup() {
    [ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
    scripts/postgres.sh stop "$pg_dir"
    rm -rf "$node"
    [ -z "${QUIRE_BENCH_DATA:-}" ] && rm -rf "$data"
    return 0
}
trap cleanup EXIT
mkdir -p "$out"
export QUIRE_LOG=warn
if [ ! -d "$data/tenants/perf" ]; then
    $quire tenant create perf --admin-password bench --data-dir "$data" >/dev/null
    $quire generate --tenant perf --instances "$instances" --data-dir "$data"
fi
pg_url=$(scripts/postgres.sh start "$pg_dir" durable)
/usr/bin/time -f "move: %e s wall, %M KB max resident" \
    $quire tenant move perf --from "$data" --to "$pg_url" 2>&1 | tail -3 | tee "$out/move.txt"

instances_in_store() {
    sqlite3 "$data/tenants/perf/quire.sqlite" "SELECT count(*) FROM instances" 2>/dev/null ||
        python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('SELECT count(*) FROM instances').fetchone()[0])" \
            "$data/tenants/perf/quire.sqlite"
}

measure() { # name [serve args]
    local name=$1
    shift
    $quire serve --listen 127.0.0.1:$port "$@" &
    server=$!
    until curl -sf $url/admin/health >/dev/null; do sleep 0.5; done
    # A new node builds its search index from the store: nothing is measured before it
    # finds every instance.
    local token
    token=$(curl -s -XPOST $url/authn/login -H 'X-Okapi-Tenant: perf' \
        -H 'Content-Type: application/json' -d '{"username":"admin","password":"bench"}' |
        sed 's/.*"okapiToken":"\([^"]*\)".*/\1/')
    until [ "$(curl -s -H 'X-Okapi-Tenant: perf' -H "X-Okapi-Token: $token" \
        "$url/search/instances?query=cql.allRecords%3D1&limit=0" |
        grep -o '"totalRecords":[0-9]*' | cut -d: -f2)" = "$(instances_in_store)" ]; do
        sleep 1
    done
    sleep 10
    $quire load cico --url $url --tenant perf --username admin --password bench \
        --users 8 --duration "$duration" --posts-only | tee "$out/$name-cico.txt"
    $quire load search --url $url --tenant perf --username admin --password bench \
        --users 20 --duration "$duration" --skip-missing | tee "$out/$name-search.txt"
    kill "$server"
    wait "$server" 2>/dev/null || true
    server=
}
measure sqlite --data-dir "$data"
measure postgresql --store "$pg_url" --data-dir "$node"
