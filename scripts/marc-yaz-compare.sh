#!/usr/bin/env bash
# Differential test of Quire's MARC codecs (crates/marc) against Index Data's
# yaz-marcdump: every record of the shared MARC data (ISO 2709 in UTF-8 and
# MARC-8, MARCXML) is written by Quire as MARCXML, ISO 2709 and YAZ's line
# format and compared with yaz-marcdump's output for the same file (after the
# normalisations listed in crates/marc/README.md). Installs the Debian package
# yaz if yaz-marcdump is missing, then runs crates/marc/tests/yaz.rs with
# QUIRE_YAZ_MARCDUMP pointing at it.
#
# Environment (all optional):
#   QUIRE_YAZ_MARCDUMP  the yaz-marcdump to use (default: the one on PATH)
#   CARGO_TARGET_DIR    as usual for cargo
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
data=$repo/../shared/data/marc
[ -d "$data" ] || { echo "marc-yaz-compare: $data not found (the shared data must sit beside the repository)" >&2; exit 1; }

if [ -z "${QUIRE_YAZ_MARCDUMP:-}" ]; then
    if ! command -v yaz-marcdump >/dev/null 2>&1; then
        echo "marc-yaz-compare: installing yaz" >&2
        sudo=""
        [ "$(id -u)" = 0 ] || sudo=sudo
        $sudo apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq yaz >/dev/null
    fi
    QUIRE_YAZ_MARCDUMP=$(command -v yaz-marcdump)
fi
export QUIRE_YAZ_MARCDUMP
echo "marc-yaz-compare: using $QUIRE_YAZ_MARCDUMP ($("$QUIRE_YAZ_MARCDUMP" -V 2>&1 | head -1))" >&2

cd "$repo"
cargo test --locked -p quire-marc --test yaz -- --nocapture
