#!/usr/bin/env bash
# Domain events to Kafka (docs/benchmarks.md, row AC). A one-node broker
# (`scripts/kafka.sh serve`) and a tenant of INSTANCES generated instances, served; then:
#   1. CICO at 20 users without think time for DURATION, with publishing off and on,
#      three times each in turn, each on its own copy of the tenant (off: never published, as
#      the embedded default): the check-out and check-in POSTs' p95 side by side, and
#      with publishing on the publish lag (commit to the brokers' acknowledgement) from
#      /admin/health;
#   2. the first RECORDS Library of Congress records imported through the server, with
#      publishing off and on: the import's time, and the publish lag during it;
#   3. a replay of every event since the import began, once the search and harvest
#      indexes have applied the import and the search index has been rebuilt: the
#      publish rate, events per second.
# QUIRE_BENCH_DATA may name a data directory holding tenant perf (admin/bench) to copy
# instead of generating one; QUIRE_BENCH_ROUNDS the CICO rounds (3). Reports in
# target/bench-events.
#
#   scripts/bench-events.sh [INSTANCES] [RECORDS] [DURATION]   (100000 100000 60s)
set -euo pipefail
cd "$(dirname "$0")/.."
instances=${1:-100000}
records=${2:-100000}
duration=${3:-60s}
out=${QUIRE_BENCH_OUT:-target/bench-events}
port=${QUIRE_BENCH_PORT:-9238}
kafka_port=${QUIRE_BENCH_KAFKA_PORT:-19492}
url=http://127.0.0.1:$port
lc=$(scripts/fetch-lc-records.sh)
. scripts/bench-work.sh
kafka=
trap '[ -n "$server" ] && kill $server 2>/dev/null; [ -n "$kafka" ] && kill $kafka 2>/dev/null; rm -rf "$work"' EXIT
mkdir -p "$out"
export QUIRE_LOG=${QUIRE_LOG:-warn}

# At niceness 10, as the publisher: the broker stands in for one on a machine of its own,
# as Kafka runs in production; on these two cores it would otherwise take its share from
# the desk.
nice -n 10 scripts/kafka.sh serve "$work/kafka" "$kafka_port" >"$work/kafka.log" 2>&1 &
kafka=$!
python3 scripts/cut-records.py "$lc" "$records" "$work/records.mrc"
if [ -n "${QUIRE_BENCH_DATA:-}" ]; then
    cp -r "$QUIRE_BENCH_DATA" "$work/on"
else
    $quire tenant create perf --admin-password bench --data-dir "$work/on" >/dev/null
    $quire generate --tenant perf --instances "$instances" --data-dir "$work/on" | tee "$out/generate.txt"
fi
cp -r "$work/on" "$work/off"
until grep -q "Kafka Server started" "$work/kafka.log"; do sleep 0.5; done

start() { # on|off
    local flags=()
    [ "$1" = on ] && flags=(--kafka 127.0.0.1:$kafka_port --kafka-env bench)
    $quire serve --data-dir "$work/$1" --listen 127.0.0.1:$port "${flags[@]}" &
    server=$!
    until curl -sf $url/admin/health >/dev/null; do sleep 0.2; done
}
stop() {
    kill $server
    wait $server || true
    server=
}
events() { # field of /admin/health's events.tenants.perf
    curl -sf $url/admin/health | python3 -c "import json, sys; print(json.load(sys.stdin)['events']['tenants']['perf']$1)"
}
caught_up() {
    until [ "$(events "['lagChanges']")" = 0 ]; do sleep 0.1; done
}
cico() { # name
    $quire load cico --url $url --tenant perf --username admin --password bench \
        --users 20 --duration "$duration" --json "$out/$1.json" | tee "$out/$1.txt" | grep -E "POST"
}

for round in $(seq "${QUIRE_BENCH_ROUNDS:-3}"); do
    echo "== CICO, publishing off ($round)"
    start off
    cico cico-off-$round
    stop
    echo "== CICO, publishing on ($round)"
    start on
    cico cico-on-$round
    caught_up
    echo "publish lag: $(events "['lagMs']")" | tee "$out/cico-on-$round-lag.txt"
    stop
done

import_records() {
    /usr/bin/time -f "%e s" $quire import "$work/records.mrc" --tenant perf --url $url \
        --username admin --password bench | tail -3
}
echo "== import of $records records, publishing off"
start off
import_records | tee "$out/import-off.txt"
stop
echo "== import of $records records, publishing on"
start on
caught_up
from=$(( $(events "['head']") + 1 ))
import_records | tee "$out/import-on.txt"
caught_up
echo "publish lag: $(events "['lagMs']"), events: $(events "['events']")" | tee "$out/import-lag.txt"

# The publisher's own rate: the replay starts once the derived state has settled, as it
# is made at a lower priority on the same cores: the search index has applied the
# import and been rebuilt (the import wore it), and the harvest index has applied it.
settled() {
    curl -sf $url/admin/health | python3 -c "
import json, sys
t = json.load(sys.stdin)['replicas']['perf']
i = t['indexes']
print(i['lag'] == 0 and not i['reindexing'] and not i['worn'] and t['harvest']['lag'] == 0)"
}
until [ "$(settled)" = True ]; do
    sleep 1
done
echo "== replay from $from"
before=$(events "['events']")
t0=$(date +%s.%N)
curl -sf -X POST "$url/admin/events/replay?tenant=perf&from=$from" >/dev/null
sleep 0.2
caught_up
t1=$(date +%s.%N)
after=$(events "['events']")
python3 -c "n = $after - $before; s = $t1 - $t0; print(f'replayed {n} events in {s:.1f} s: {n / s:,.0f} events/s')" \
    | tee "$out/replay.txt"
stop
