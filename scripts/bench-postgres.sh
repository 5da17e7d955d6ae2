#!/usr/bin/env bash
# SQLite against PostgreSQL on the same generated tenant (docs/benchmarks.md, row AE):
#   1. `quire generate` of INSTANCES instances into tenant perf on SQLite (unless
#      QUIRE_BENCH_DATA holds one already), then `quire tenant move` of it into a throwaway
#      PostgreSQL cluster (scripts/postgres.sh, durable settings), timed, and straight
#      back into a second data directory: the three copies' per-table row counts and
#      checksums must agree (the round trip);
#   2. for each store, one node: `quire serve` (its search index built and merged), then
#      check-out/check-in POSTs at 8 users without think time, FOLIO's search workload at
#      20 users, for DURATION each, a full OAI-PMH harvest, each with the server's CPU
#      seconds per request; then, the server stopped, an import of IMPORT Library of
#      Congress records (`quire import`);
#   3. on PostgreSQL, two nodes: CICO and search again, half the users on each node.
# Reports go to target/bench-postgres (QUIRE_BENCH_OUT). Usage:
#   scripts/bench-postgres.sh [INSTANCES] [DURATION] [IMPORT]   e.g. scripts/bench-postgres.sh 1000000 30s 10000
set -euo pipefail
cd "$(dirname "$0")/.."
instances=${1:-100000}
duration=${2:-30s}
import_records=${3:-10000}
out=${QUIRE_BENCH_OUT:-target/bench-postgres}
port=${QUIRE_BENCH_PORT:-9234}
url=http://127.0.0.1:$port
port2=$((port + 1))
url2=http://127.0.0.1:$port2
lc=$(scripts/fetch-lc-records.sh)
cargo build --release -q -p quire-cli
quire=target/release/quire
data=${QUIRE_BENCH_DATA:-$(mktemp -d)}
pg_dir=$(mktemp -u -d /tmp/quire-bench-pg.XXXXXX)
node=$(mktemp -d)
node2=$(mktemp -d)
back=$(mktemp -d)
server=
server2=
sampler=
cleanup() {
    [ -n "$sampler" ] && kill "$sampler" 2>/dev/null
    [ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
    [ -n "$server2" ] && kill "$server2" 2>/dev/null && wait "$server2" 2>/dev/null
    scripts/postgres.sh stop "$pg_dir"
    rm -rf "$node" "$node2" "$back"
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
ask() { # store sql: the one value the tenant's database answers (a data directory or a URL)
    case $1 in
    postgresql://*) psql "$1" -Atc "SET search_path TO perf_quire; $2" | tail -1 ;;
    *) python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])" \
        "$1/tenants/perf/quire.sqlite" "$2" ;;
    esac
}

start() { # url pid-variable store [serve args]: serves, and waits for the node's search index
    local at=$1 var=$2 store=$3
    shift 3
    $quire serve --listen "${at#http://}" "$@" &
    printf -v "$var" %s $!
    until curl -sf "$at/admin/health" >/dev/null; do sleep 0.5; done
    # A new node builds its search index from the store: nothing is measured before it
    # finds every instance.
    local token
    token=$(curl -s -XPOST "$at/authn/login" -H 'X-Okapi-Tenant: perf' \
        -H 'Content-Type: application/json' -d '{"username":"admin","password":"bench"}' |
        sed 's/.*"okapiToken":"\([^"]*\)".*/\1/')
    until [ "$(curl -s -H 'X-Okapi-Tenant: perf' -H "X-Okapi-Token: $token" \
        "$at/search/instances?query=cql.allRecords%3D1&limit=0" |
        grep -o '"totalRecords":[0-9]*' | cut -d: -f2)" = "$(ask "$store" "SELECT count(*) FROM instances")" ]; do
        sleep 1
    done
    # Then its merge of that build into one segment, at background priority: a node
    # measured during it would pay for a merge the other store's node made long before.
    until curl -s -H 'X-Okapi-Tenant: perf' -H "X-Okapi-Token: $token" \
        "$at/search/index/instance-records/reindex/status" | grep -q '"compacting":false'; do
        sleep 1
    done
}

stop() { # stops the node whose pid is in $server
    kill "$server"
    wait "$server" 2>/dev/null || true
    server=
}

cpu_of() { # pid...: their user and system CPU seconds so far, together
    local pid
    for pid in "$@"; do cat "/proc/$pid/stat"; done |
        awk -v hz="$(getconf CLK_TCK)" '{ t += $14 + $15 } END { printf "%.2f", t / hz }'
}

pg_cpu() { # PostgreSQL's CPU seconds so far: the postmaster, its live backends, and those ended
    local pm
    pm=$(head -1 "$pg_dir/data/postmaster.pid")
    { cat "/proc/$pm/stat"; for c in $(pgrep -P "$pm"); do cat "/proc/$c/stat" 2>/dev/null; done; } |
        awk -v hz="$(getconf CLK_TCK)" -v pm="$pm" \
            '{ t += $14 + $15; if ($1 == pm) t += $16 + $17 } END { printf "%.2f", t / hz }'
}

seconds=$(echo "$duration" | sed -E 's/^([0-9.]+)s$/\1/; s/^([0-9.]+)m$/\1*60/' | bc)

sample() { # file pid...: from now until `unsample`, every half second, "time node-cpu postgresql-cpu"
    local file=$1
    shift
    rm -f "$file"
    while true; do
        echo "$(date +%s.%N) $(cpu_of "$@") $(pg_cpu)" >> "$file"
        sleep 0.5
    done &
    sampler=$!
}

unsample() {
    kill $sampler
    wait $sampler 2>/dev/null || true
    sampler=
}

measured() { # name report pid... -- load arguments: runs the load, then its CPU per request
    local name=$1 report=$2 pids=()
    shift 2
    while [ "$1" != -- ]; do pids+=("$1"); shift; done
    shift
    sample "$out/$name.cpu" "${pids[@]}"
    $quire load "$@" > "$report"
    unsample
    grep -hE '^All requests' "$report" | sed "s/^/$name: /"
    per_request "$name" "$out/$name.cpu" "$report"
}

per_request() { # name samples report...: the server's and PostgreSQL's CPU per request
    local name=$1 samples=$2 requests
    shift 2
    requests=$(grep -hE '^All requests' "$@" | awk -F'|' '{ gsub(/ /, "", $2); n += $2 } END { print n }')
    # Only the last DURATION seconds are the measured run: the load first fetches its
    # items, patrons and loans through the server.
    awk -v n="$name" -v r="$requests" -v d="$seconds" '
        { t[NR] = $1; c[NR] = $2; p[NR] = $3 }
        END {
            i = NR; while (i > 1 && t[NR] - t[i - 1] <= d) i--;
            if (i > 1) i--;
            printf "%s: %d requests; CPU a request: node %.0f us, PostgreSQL %.0f us (the last %.1f s)\n",
                n, r, (c[NR] - c[i]) * 1e6 / r, (p[NR] - p[i]) * 1e6 / r, t[NR] - t[i]
        }' "$samples" | tee -a "$out/cpu.txt"
}

wait_for_oai() { # store: until the harvest index has applied the whole change log
    local behind="SELECT (SELECT COALESCE(MAX(seq), 0) FROM change_log)
        - COALESCE((SELECT value FROM sequences WHERE name = 'oai_applied_seq'), 0)"
    until [ "$(ask "$1" "$behind")" -le 0 ]; do sleep 2; done
}

# The harvest index is built once per tenant from its change log (on SQLite, in about
# two minutes for a million instances); it is built before the move, which copies it.
start $url server "$data" --data-dir "$data"
wait_for_oai "$data"
stop

python3 scripts/cut-records.py "$lc" "$import_records" "$node/records.mrc"
pg_url=$(scripts/postgres.sh start "$pg_dir" durable)
/usr/bin/time -f "move: %e s wall, %M KB max resident" \
    $quire tenant move perf --from "$data" --to "$pg_url" > "$out/move.txt" 2>&1
tail -2 "$out/move.txt"
/usr/bin/time -f "move back: %e s wall, %M KB max resident" \
    $quire tenant move perf --from "$pg_url" --to "$back" > "$out/move-back.txt" 2>&1
tail -2 "$out/move-back.txt"
# Each move prints every table's rows and checksum as it checked them on both sides.
if diff <(grep ' checksum ' "$out/move.txt") <(grep ' checksum ' "$out/move-back.txt") \
    > "$out/round-trip-diff.txt"; then
    echo "round trip: $(grep -c ' checksum ' "$out/move.txt") tables, equal row counts and checksums" |
        tee "$out/round-trip.txt"
else
    echo "round trip: the tables differ" | tee "$out/round-trip.txt"
    cat "$out/round-trip-diff.txt"
    exit 1
fi
rm -rf "$back"

measure() { # name store [serve args]
    local name=$1 store=$2
    shift 2
    start $url server "$store" "$@"
    sleep 10
    measured "$name cico" "$out/$name-cico.txt" $server -- cico --url $url --tenant perf \
        --username admin --password bench --users 8 --duration "$duration" --posts-only
    measured "$name search" "$out/$name-search.txt" $server -- search --url $url --tenant perf \
        --username admin --password bench --users 20 --duration "$duration" --skip-missing
    local key
    key=$($quire tenant oai-key perf --user admin "$@")
    # The harvest index follows the desk's changes first; the harvest starts after.
    wait_for_oai "$store"
    local before pg_before
    before=$(cpu_of $server)
    pg_before=$(pg_cpu)
    $quire load oai --url $url --tenant perf --username admin --password bench \
        --oai-key "$key" --harvest-only > "$out/$name-oai.txt"
    grep -iE 'records/s' "$out/$name-oai.txt" | head -3 | sed "s/^/$name oai: /"
    awk -v n="$name" -v a="$(cpu_of $server)" -v b="$before" -v pa="$(pg_cpu)" -v pb="$pg_before" \
        'BEGIN { printf "%s oai harvest: CPU node %.1f s, PostgreSQL %.1f s\n", n, a - b, pa - pb }' |
        tee -a "$out/cpu.txt"
    stop
    # The import alone, through the command line (the default create profile).
    /usr/bin/time -f "%e" -o "$out/$name-import-seconds.txt" \
        $quire import "$node/records.mrc" --tenant perf "$@" > "$out/$name-import.txt"
    grep -q COMMITTED "$out/$name-import.txt" || { cat "$out/$name-import.txt"; exit 1; }
    awk -v n="$import_records" -v s="$(tail -1 "$out/$name-import-seconds.txt")" -v name="$name" \
        'BEGIN { printf "%s import: %d records in %.1f s, %.0f records/s\n", name, n, s, n / s }' |
        tee -a "$out/cpu.txt"
}
: > "$out/cpu.txt"
measure sqlite "$data" --data-dir "$data"
# `quire serve` reads a SQLite tenant's database once at its start, so the desk finds its
# pages in memory; PostgreSQL's files get the same (9 GB at 1M, some seconds). Without
# it a check-out's read of its instance, made under the tenant's lock, averaged 112 µs
# (now and then 2.7 ms from the disk), against 26 µs once the files had been read.
find "$pg_dir/data/base" -type f -exec cat {} + > /dev/null
measure postgresql "$pg_url" --store "$pg_url" --data-dir "$node"

# Two nodes on the one database, each with its own index; half the users on each.
start $url server "$pg_url" --store "$pg_url" --data-dir "$node"
start $url2 server2 "$pg_url" --store "$pg_url" --data-dir "$node2"
sleep 10
two() { # scenario users
    local scenario=$1 users=$2
    # Each CICO generator takes its own half of the items, or they race for the same.
    local one=(--skip-missing) other=(--skip-missing)
    [ "$scenario" = cico ] && one=(--posts-only --share 0/2) && other=(--posts-only --share 1/2)
    sample "$out/two-$scenario.cpu" $server $server2
    $quire load "$scenario" --url $url --tenant perf --username admin --password bench \
        --users "$users" --duration "$duration" "${one[@]}" > "$out/two-$scenario-1.txt" &
    local first=$!
    $quire load "$scenario" --url $url2 --tenant perf --username admin --password bench \
        --users "$users" --duration "$duration" "${other[@]}" > "$out/two-$scenario-2.txt"
    wait $first
    unsample
    grep -hE '^All requests' "$out/two-$scenario-1.txt" "$out/two-$scenario-2.txt" |
        sed "s/^/two nodes $scenario: /"
    per_request "two nodes $scenario" "$out/two-$scenario.cpu" "$out/two-$scenario-1.txt" "$out/two-$scenario-2.txt"
}
two cico 4
two search 10
