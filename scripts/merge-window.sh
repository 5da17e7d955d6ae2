#!/bin/bash
# Search load on a tenant before and while its own reindexed generation is merged.
#
#   scripts/merge-window.sh QUIRE_BINARY DATA_DIR TENANT [PORT]
#
# Serves DATA_DIR, runs `quire load search` (20 users, 30 s) on TENANT, starts a full
# reindex of TENANT through the API, waits until the new generation serves and its
# merge has begun (`"compacting": true`), runs the same load again, then waits for the
# merge to end and prints the status. The tenant's login is admin/bench, as
# `quire generate` leaves it in docs/benchmarks.md.
set -euo pipefail
BIN=$1 DATA=$2 TENANT=$3 PORT=${4:-9240}
URL=http://127.0.0.1:$PORT
"$BIN" serve --data-dir "$DATA" --listen "127.0.0.1:$PORT" >/tmp/merge-window-serve.log 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null; wait $SERVER 2>/dev/null || true' EXIT
for _ in $(seq 1 300); do curl -sf "$URL/admin/health" >/dev/null && break; sleep 1; done

load() {
  "$BIN" load search --url "$URL" --tenant "$TENANT" --username admin --password bench \
    --users 20 --duration 30s --skip-missing 2>&1 | grep -E "^All requests|^GET .*\*1randomword +\|"
}
status() {
  curl -s -H "x-okapi-tenant: $TENANT" -H "x-okapi-token: $TOKEN" \
    "$URL/search/index/instance-records/reindex/status"
}

echo "== before the reindex"
load
TOKEN=$(curl -s -D - -o /dev/null -H "x-okapi-tenant: $TENANT" -H 'content-type: application/json' \
  -d '{"username":"admin","password":"bench"}' "$URL/authn/login" |
  awk -F': ' 'tolower($1)=="x-okapi-token"{print $2}' | tr -d '\r')
curl -s -X POST -H "x-okapi-tenant: $TENANT" -H "x-okapi-token: $TOKEN" \
  -H 'content-type: application/json' -d '{}' -o /dev/null -w "reindex: HTTP %{http_code}\n" \
  "$URL/search/index/instance-records/reindex/full"
# A small tenant may merge before this sees it; the script is for large ones.
for _ in $(seq 1 1800); do status | grep -q '"compacting":true' && break; sleep 1; done
echo "== while the reindexed generation is merged"
load
status; echo
until status | grep -q '"compacting":false'; do sleep 2; done
echo "== after the merge"
status; echo
