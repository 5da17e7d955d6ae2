#!/bin/bash
# A full reindex of one tenant through a server's API, on an otherwise idle server.
#
#   scripts/reindex-api.sh QUIRE_BINARY DATA_DIR TENANT [PORT]
#
# Serves DATA_DIR, waits until the prewarm of TENANT's database has ended (DROP=1 empties
# the page cache before the start, as root), then 10 s more, starts
# `POST /search/index/instance-records/reindex/full`, waits for the merge after the swap
# to end and prints the status's `lastReindex` figures: `seconds` until the new
# generation served, `compactionSeconds` of merging after that. For large tenants: a
# build of one segment has no merge to wait for, and this would wait on. The tenant's
# login is admin/bench, as `quire generate` leaves it in docs/benchmarks.md.
set -euo pipefail
BIN=$1 DATA=$2 TENANT=$3 PORT=${4:-9241}
URL=http://127.0.0.1:$PORT
LOG=$(mktemp)
[ "${DROP:-}" = 1 ] && { sync; echo 3 > /proc/sys/vm/drop_caches; }
QUIRE_LOG=info "$BIN" serve --data-dir "$DATA" --listen "127.0.0.1:$PORT" >"$LOG" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null; wait $SERVER 2>/dev/null || true; rm -f "$LOG"' EXIT
for _ in $(seq 1 300); do curl -sf "$URL/admin/health" >/dev/null && break; sleep 1; done
for _ in $(seq 1 900); do grep -q "database prewarmed.*$TENANT/quire.sqlite" "$LOG" && break; sleep 1; done
echo "prewarm: $(grep "database prewarmed.*$TENANT/quire.sqlite" "$LOG" | sed 's/\x1b\[[0-9;]*m//g' | grep -o 'elapsed_ms=[0-9]*')"
sleep 10
TOKEN=$(curl -s -D - -o /dev/null -H "x-okapi-tenant: $TENANT" -H 'content-type: application/json' \
  -d '{"username":"admin","password":"bench"}' "$URL/authn/login" |
  awk -F': ' 'tolower($1)=="x-okapi-token"{print $2}' | tr -d '\r')
status() {
  curl -s -H "x-okapi-tenant: $TENANT" -H "x-okapi-token: $TOKEN" \
    "$URL/search/index/instance-records/reindex/status"
}
curl -s -X POST -H "x-okapi-tenant: $TENANT" -H "x-okapi-token: $TOKEN" \
  -H 'content-type: application/json' -d '{}' -o /dev/null -w "reindex: HTTP %{http_code}\n" \
  "$URL/search/index/instance-records/reindex/full"
finished() { local s; s=$(status); grep -q '"compactionSeconds":[0-9]' <<<"$s" && grep -q '"compacting":false' <<<"$s"; }
until finished; do sleep 2; done
status | grep -o '"compactionSeconds":[0-9.]*,"instances":[0-9]*,"replayed":[0-9]*,"seconds":[0-9.]*'
