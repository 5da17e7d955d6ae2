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
name=browser-test
source scripts/served-test.sh
phase "chromium, playwright-core and quire ready"

serve demo --instances "$instances" --data-dir "$work/data"
phase "demo serving on $url"

shots=$PWD/target/browser-screenshots
rm -rf "$shots"
files=("$@")
[ ${#files[@]} -gt 0 ] || files=(tests/)
# One test file at a time: they share the demo tenant, and the machine has two cores.
(cd crates/web/browser && QUIRE_URL=$url QUIRE_SCREENSHOTS=$shots \
    node --test --test-concurrency=1 --test-reporter=spec "${files[@]}")
phase "screenshots in target/browser-screenshots"
