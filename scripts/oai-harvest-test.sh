#!/usr/bin/env bash
# OAI-PMH acceptance test with a real harvester: a tenant of INSTANCES generated instances
# (most with SRS MARC records, with holdings and items), served by the debug build, then
# scripts/oai_harvest_test.py harvests it with Sickle in the three formats while another
# thread changes and deletes instances, checks exactly-once delivery, incremental
# harvests, deleted records and the 952s of marc21_withholdings against the API, and
# validates the responses against the OAI-PMH, MARC21slim and oai_dc schemas in
# ../shared/reference/schemas. Sickle and xmlschema are installed from PyPI into a
# virtualenv, target/oai-venv.
#
#   scripts/oai-harvest-test.sh [INSTANCES]   (20000)
#
# Environment (optional): QUIRE_OAI_SEED, the generator's seed (default 1).
set -euo pipefail
cd "$(dirname "$0")/.."
started=$(date +%s)
phase() { echo "oai-harvest-test: $1 ($(($(date +%s) - started)) s)"; }
instances=${1:-20000}
seed=${QUIRE_OAI_SEED:-1}
password=oai-harvest
[ -d ../shared/reference/schemas ] || {
    echo "oai-harvest-test: ../shared/reference/schemas not found (the shared data must sit beside the repository)" >&2
    exit 1
}

# The debug build: the one the test suite built (QUIRE_BIN, set by scripts/test.sh), or
# built here.
quire=${QUIRE_BIN:-}
[ -n "$quire" ] || { cargo build -q -p quire-cli; quire=$PWD/target/debug/quire; }
phase "built"

venv=target/oai-venv
[ -x $venv/bin/python ] || python3 -m venv $venv
$venv/bin/pip install -q --disable-pip-version-check sickle xmlschema
phase "sickle and xmlschema installed"

work=$(mktemp -d)
server=
finish() {
    status=$?
    if [ -n "$server" ]; then
        kill "$server" 2>/dev/null || true
        wait "$server" 2>/dev/null || true
    fi
    if [ $status -ne 0 ] && [ -s "$work/server.log" ]; then
        echo "oai-harvest-test: the server's last log lines:" >&2
        tail -n 20 "$work/server.log" >&2
    fi
    rm -rf "$work"
    echo "oai-harvest-test: $([ $status -eq 0 ] && echo passed || echo FAILED) in $(($(date +%s) - started)) s"
}
trap finish EXIT
export QUIRE_LOG=${QUIRE_LOG:-warn}

$quire tenant create oai --admin-password "$password" --data-dir "$work/data" >/dev/null
$quire generate --tenant oai --instances "$instances" --seed "$seed" --data-dir "$work/data"
key=$($quire tenant oai-key oai --user admin --data-dir "$work/data")
phase "$instances instances generated"

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
url=http://127.0.0.1:$port
$quire serve --data-dir "$work/data" --listen 127.0.0.1:$port 2>"$work/server.log" &
server=$!
for _ in $(seq 1 240); do
    curl -sf $url/admin/health >/dev/null && break
    kill -0 $server 2>/dev/null || { echo "oai-harvest-test: the server exited" >&2; exit 1; }
    sleep 0.25
done
curl -sf $url/admin/health >/dev/null || { echo "oai-harvest-test: the server did not start" >&2; exit 1; }
phase "serving on $url"

$venv/bin/python scripts/oai_harvest_test.py "$url" "$key" oai "$password"
