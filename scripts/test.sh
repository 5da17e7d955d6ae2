#!/usr/bin/env bash
# Runs Quire's whole test suite from a clean checkout: lints, every crate's tests, and the
# CQL differential test against Index Data's YAZ parser (installing libyaz-dev if missing),
# an OAI-PMH harvest with Sickle whose responses are checked against the schemas, the
# staff web page in headless Chromium, and the store-backed tests again on a throwaway
# PostgreSQL cluster (scripts/postgres.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

# The Debian packages the scripts below need, in one apt run rather than one each (each
# script still installs its own when run alone).
missing=()
dpkg -s libyaz-dev >/dev/null 2>&1 || missing+=(libyaz-dev)
command -v yaz-marcdump >/dev/null || missing+=(yaz)
command -v chromium >/dev/null || missing+=(chromium)
compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || missing+=(postgresql)
if [ ${#missing[@]} -gt 0 ]; then
    echo "== installing ${missing[*]} from Debian's packages"
    sudo=; [ "$(id -u)" -eq 0 ] || sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

echo "== rustfmt"
cargo fmt --all -- --check

echo "== clippy"
cargo clippy --workspace --all-targets --locked -- -D warnings

echo "== tests"
cargo test --workspace --locked
# The server binary those tests ran, for the scripts below: `cargo build -p quire-cli`
# would resolve features for that package alone and build most of the workspace again.
export QUIRE_BIN="$PWD/target/debug/quire"

echo "== CQL differential test against YAZ"
bash scripts/cql-differential.sh

echo "== MARC codecs against yaz-marcdump"
bash scripts/marc-yaz-compare.sh

echo "== OAI-PMH harvest with sickle"
bash scripts/oai-harvest-test.sh

echo "== the staff web page in headless Chromium"
bash scripts/browser-test.sh

echo "== the store-backed tests on PostgreSQL"
# Under /tmp: the cluster runs as the postgres account, which must reach it.
pg_dir="$(mktemp -u -d /tmp/quire-pg.XXXXXX)"
trap 'scripts/postgres.sh stop "$pg_dir"; rm -f "$pg_dir.tests"' EXIT
pg_url="$(scripts/postgres.sh start "$pg_dir")"
# The test executables the run above built, run again on PostgreSQL: those of every
# crate whose tests open a store, and of the command-line tests only tests/postgres.rs
# (the others start the binary on a data directory). They are run as cargo runs them,
# from their package's directory; `cargo test -p ...` would resolve features for those
# packages alone and build most of the workspace again.
cargo test --workspace --locked --no-run --message-format=json 2>/dev/null | python3 -c '
import json, sys
crates = {"store", "auth", "inventory", "srs", "settings", "calendar", "circ", "search",
          "mapping", "profiles", "import", "oai", "bulk", "events", "runtime", "generate",
          "server"}
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") != "compiler-artifact" or not m.get("executable"):
        continue
    if not m["profile"]["test"] or m["target"]["kind"] not in (["lib"], ["test"]):
        continue
    crate_dir = m["manifest_path"].rsplit("/", 1)[0]
    crate = crate_dir.rsplit("/", 1)[-1]
    if crate in crates or (crate == "cli" and m["target"]["name"] == "postgres"):
        print(crate_dir + "\t" + m["executable"])
' > "$pg_dir.tests"
[[ $(wc -l < "$pg_dir.tests") -ge 25 ]] || { echo "too few test executables found" >&2; exit 1; }
while IFS=$'\t' read -r crate_dir executable; do
    echo "-- $executable"
    (cd "$crate_dir" && QUIRE_TEST_POSTGRES="$pg_url" "$executable" -q)
done < "$pg_dir.tests"
scripts/postgres.sh stop "$pg_dir"
rm -f "$pg_dir.tests"
trap - EXIT
