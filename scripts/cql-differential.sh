#!/usr/bin/env bash
# Differential test of Quire's CQL parser (crates/cql) against Index Data's YAZ
# CQL parser: builds the YAZ oracle (shared/tools/cql2xcql.c, installing the
# Debian package libyaz-dev if it is missing), then runs
# crates/cql/tests/differential with QUIRE_YAZ_ORACLE pointing at it.
#
# Environment (all optional):
#   QUIRE_SHARED            the shared reference directory (default: ../shared next to the repo)
#   QUIRE_CQL_DIFF_QUERIES  random queries to compare (default 100000)
#   QUIRE_CQL_DIFF_SEED     seed of the random queries (default 1)
#   CARGO_TARGET_DIR        as usual for cargo
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
shared=${QUIRE_SHARED:-$repo/../shared}
oracle_source=$shared/tools/cql2xcql.c
[ -f "$oracle_source" ] || { echo "cql-differential: $oracle_source not found (set QUIRE_SHARED)" >&2; exit 1; }

if ! dpkg -s libyaz-dev >/dev/null 2>&1; then
    echo "cql-differential: installing libyaz-dev" >&2
    sudo=""
    [ "$(id -u)" = 0 ] || sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq libyaz-dev >/dev/null
fi

build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT
cc -O2 -o "$build/cql2xcql" "$oracle_source" -lyaz

# Release mode: the 150,000 comparisons take seconds instead of a minute.
cd "$repo"
QUIRE_YAZ_ORACLE="$build/cql2xcql" cargo test --release --locked -p quire-cql --test differential
