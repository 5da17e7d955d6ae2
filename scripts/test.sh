#!/usr/bin/env bash
# Runs Quire's whole test suite from a clean checkout: lints, every crate's tests, and the
# CQL differential test against Index Data's YAZ parser (installing libyaz-dev if missing),
# and an OAI-PMH harvest with Sickle whose responses are checked against the schemas.
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
