#!/usr/bin/env bash
# Times POST /user-import of 10,000 users on a release build: created, then updated.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p quire-cli
Q=target/release/quire
DIR=$(mktemp -d)
PORT=9251
$Q tenant create ui --admin-password pw --data-dir "$DIR" > /dev/null
$Q serve --data-dir "$DIR" --listen 127.0.0.1:$PORT > "$DIR/serve.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER; rm -rf "$DIR"' EXIT
until curl -sf localhost:$PORT/admin/health > /dev/null; do sleep 0.2; done
TOKEN=$(curl -s -XPOST localhost:$PORT/authn/login -H 'X-Okapi-Tenant: ui' -H 'Content-Type: application/json' \
  -d '{"username":"admin","password":"pw"}' | sed 's/.*"okapiToken":"\([^"]*\)".*/\1/')
for run in a b; do
  python3 - "$run" > "$DIR/users-$run.json" <<'PY'
import json, sys
run = sys.argv[1]
users = [{"username": f"u{n}", "externalSystemId": f"x{n}", "barcode": f"b{n}", "active": True,
          "patronGroup": "undergrad", "personal": {"lastName": f"Reader {n}", "firstName": run,
          "email": f"u{n}@example.edu"}} for n in range(10000)]
print(json.dumps({"users": users, "totalRecords": len(users), "sourceType": "campus"}))
PY
  curl -s -o "$DIR/out-$run.json" -w "run $run: %{http_code} %{time_total}s\n" -XPOST localhost:$PORT/user-import \
    -H 'X-Okapi-Tenant: ui' -H "X-Okapi-Token: $TOKEN" -H 'Content-Type: application/json' --data-binary @"$DIR/users-$run.json"
  python3 -c "import json,sys; r=json.load(open('$DIR/out-$run.json')); print({k: r[k] for k in ('message','createdRecords','updatedRecords','failedRecords')})"
done
