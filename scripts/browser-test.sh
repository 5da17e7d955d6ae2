#!/usr/bin/env bash
# The staff web page's tests in real headless Chromium: `quire demo` (the debug build) on
# a free port with INSTANCES generated instances, then the Node tests under
# crates/web/browser/tests, driven by Playwright (playwright-core from the npm registry,
# with Debian's chromium; installed here when missing). Screenshots of each step are
# kept under target/browser-screenshots.
#
#   scripts/browser-test.sh [INSTANCES] [TEST_FILE...]   (300, every test file)
set -euo pipefail
cd "$(dirname "$0")/.."
started=$(date +%s)
phase() { echo "browser-test: $1 ($(($(date +%s) - started)) s)"; }
instances=${1:-300}
shift || true

if ! command -v chromium >/dev/null; then
    sudo=; [ "$(id -u)" -eq 0 ] || sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >/dev/null
fi
# npm ci empties node_modules first: only when the lock file is newer than the install.
(cd crates/web/browser && { [ node_modules/.package-lock.json -nt package-lock.json ] ||
    npm ci --no-audit --no-fund --loglevel=error >/dev/null; })
# The debug build: the one the test suite built (QUIRE_BIN, set by scripts/test.sh), or
# built here.
quire=${QUIRE_BIN:-}
[ -n "$quire" ] || { cargo build -q -p quire-cli; quire=$PWD/target/debug/quire; }
phase "chromium, playwright-core and quire ready"

work=$(mktemp -d)
server=
finish() {
    status=$?
    if [ -n "$server" ]; then
        kill "$server" 2>/dev/null || true
        wait "$server" 2>/dev/null || true
    fi
    if [ $status -ne 0 ] && [ -s "$work/server.log" ]; then
        echo "browser-test: the server's last log lines:" >&2
        tail -n 20 "$work/server.log" >&2
    fi
    rm -rf "$work"
    echo "browser-test: $([ $status -eq 0 ] && echo passed || echo FAILED) in $(($(date +%s) - started)) s"
}
trap finish EXIT

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
url=http://127.0.0.1:$port
QUIRE_LOG=${QUIRE_LOG:-warn} "$quire" demo --instances "$instances" \
    --data-dir "$work/data" --listen 127.0.0.1:$port >"$work/server.log" 2>&1 &
server=$!
for _ in $(seq 1 600); do
    curl -sf $url/admin/health >/dev/null && break
    kill -0 $server 2>/dev/null || { echo "browser-test: the demo exited" >&2; exit 1; }
    sleep 0.25
done
curl -sf $url/admin/health >/dev/null || { echo "browser-test: the demo did not start" >&2; exit 1; }
phase "demo serving on $url"

shots=$PWD/target/browser-screenshots
rm -rf "$shots"
files=("$@")
[ ${#files[@]} -gt 0 ] || files=(tests/)
# One test file at a time: they share the demo tenant, and the machine has two cores.
(cd crates/web/browser && QUIRE_URL=$url QUIRE_SCREENSHOTS=$shots \
    node --test --test-concurrency=1 --test-reporter=spec "${files[@]}")
phase "screenshots in target/browser-screenshots"
