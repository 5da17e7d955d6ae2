#!/usr/bin/env bash
# Runs Quire's whole test suite from a clean checkout: lints, every crate's tests, and the
# CQL differential test against Index Data's YAZ parser (installing libyaz-dev if missing),
# an OAI-PMH harvest with Sickle whose responses are checked against the schemas, and the
# store-backed tests again on a throwaway PostgreSQL cluster (scripts/postgres.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== rustfmt"
cargo fmt --all -- --check

echo "== clippy"
cargo clippy --workspace --all-targets --locked -- -D warnings

echo "== tests"
cargo test --workspace --locked

echo "== CQL differential test against YAZ"
bash scripts/cql-differential.sh

echo "== MARC codecs against yaz-marcdump"
bash scripts/marc-yaz-compare.sh

echo "== OAI-PMH harvest with sickle"
bash scripts/oai-harvest-test.sh

echo "== the store-backed tests on PostgreSQL"
# Under /tmp: the cluster runs as the postgres account, which must reach it.
pg_dir="$(mktemp -u -d /tmp/quire-pg.XXXXXX)"
trap 'scripts/postgres.sh stop "$pg_dir"' EXIT
pg_url="$(scripts/postgres.sh start "$pg_dir")"
# Every crate whose tests open a store; of the command-line tests (quire-cli), which
# start the binary on a data directory, only those of tests/postgres.rs.
QUIRE_TEST_POSTGRES="$pg_url" cargo test --locked \
    -p quire-store -p quire-auth -p quire-inventory -p quire-srs -p quire-settings \
    -p quire-calendar -p quire-circ -p quire-search -p quire-mapping -p quire-profiles \
    -p quire-import -p quire-oai -p quire-bulk -p quire-events -p quire-runtime \
    -p quire-generate -p quire-server
# The binary on PostgreSQL: --store and `quire tenant move`.
QUIRE_TEST_POSTGRES="$pg_url" cargo test --locked -p quire-cli --test postgres
scripts/postgres.sh stop "$pg_dir"
trap - EXIT
