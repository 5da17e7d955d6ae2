#!/usr/bin/env bash
# Times the staff page in headless Chromium (crates/web/browser/bench.mjs) against the
# release build serving DATA_DIR: the first load, a logged-in search's first load, each
# search from the box and typing, over SEARCHES words taken from the tenant's titles.
#
#   scripts/bench-web.sh DATA_DIR TENANT USER PASSWORD [SEARCHES]   (100)
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 4 ] || { echo "usage: $0 DATA_DIR TENANT USER PASSWORD [SEARCHES]" >&2; exit 2; }
data=$1 tenant=$2 user=$3 password=$4 searches=${5:-100}

cargo build --release -q -p quire-cli
(cd crates/web/browser && { [ node_modules/.package-lock.json -nt package-lock.json ] ||
    npm ci --no-audit --no-fund --loglevel=error >/dev/null; })
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
url=http://127.0.0.1:$port
QUIRE_LOG=warn target/release/quire serve --data-dir "$data" --listen 127.0.0.1:$port &
server=$!
trap 'kill $server 2>/dev/null || true; wait $server 2>/dev/null || true' EXIT
for _ in $(seq 1 2400); do
    curl -sf $url/admin/health >/dev/null && break
    sleep 0.25
done
# A login opens the tenant; then wait until its index follows its change log, so the
# searches meet a settled index.
curl -sf -o /dev/null -XPOST $url/authn/login -H "X-Okapi-Tenant: $tenant" \
    -H 'Content-Type: application/json' -d "{\"username\":\"$user\",\"password\":\"$password\"}"
until curl -s $url/admin/health | python3 -c "import json,sys; r=json.load(sys.stdin)['replicas'].get('$tenant',{}); sys.exit(0 if r.get('indexes',{}).get('lag',1)==0 else 1)"; do
    sleep 1
done
(cd crates/web/browser && QUIRE_URL=$url QUIRE_TENANT=$tenant QUIRE_USER=$user \
    QUIRE_PASSWORD=$password node bench.mjs "$searches")
