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
instances=${1:-20000}
seed=${QUIRE_OAI_SEED:-1}
password=oai-harvest
[ -d ../shared/reference/schemas ] || {
    echo "oai-harvest-test: ../shared/reference/schemas not found (the shared data must sit beside the repository)" >&2
    exit 1
}

name=oai-harvest-test
source scripts/served-test.sh
phase "built"

venv=target/oai-venv
[ -x $venv/bin/python ] || python3 -m venv $venv
$venv/bin/pip install -q --disable-pip-version-check sickle xmlschema
phase "sickle and xmlschema installed"

$quire tenant create oai --admin-password "$password" --data-dir "$work/data" >/dev/null
$quire generate --tenant oai --instances "$instances" --seed "$seed" --data-dir "$work/data"
key=$($quire tenant oai-key oai --user admin --data-dir "$work/data")
phase "$instances instances generated"

serve serve --data-dir "$work/data"
phase "serving on $url"

$venv/bin/python scripts/oai_harvest_test.py "$url" "$key" oai "$password"
