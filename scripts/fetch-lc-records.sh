#!/usr/bin/env bash
# Fetches the 250,000 Library of Congress bibliographic records (MARC 21, ISO 2709, UTF-8)
# that PyPI's pymarc==5.4.0 source distribution carries, checks their SHA-256, and prints
# the path of the file. Cached under ${QUIRE_CACHE:-~/.cache/quire}.
set -euo pipefail
cache=${QUIRE_CACHE:-$HOME/.cache/quire}
file=$cache/BooksAll.2016.part01.utf8
expected=dfdcdad30e0e0a82b0aec831c1a08b61c6199eb8ee0d71ff7953213f20eb0e47
mkdir -p "$cache"
if [ ! -f "$file" ] || [ "$(sha256sum "$file" | cut -d' ' -f1)" != "$expected" ]; then
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    echo "fetch-lc-records: downloading pymarc==5.4.0's source distribution from PyPI" >&2
    python3 -m pip download --quiet pymarc==5.4.0 --no-deps --no-binary :all: -d "$tmp" >&2
    archive=$(ls "$tmp"/pymarc-5.4.0.tar.gz)
    member=$(tar -tzf "$archive" | grep 'BooksAll.2016.part01.utf8$' | head -1)
    [ -n "$member" ] || { echo "fetch-lc-records: BooksAll.2016.part01.utf8 is not in $archive" >&2; exit 1; }
    tar -xzf "$archive" -C "$tmp" "$member"
    actual=$(sha256sum "$tmp/$member" | cut -d' ' -f1)
    if [ "$actual" != "$expected" ]; then
        echo "fetch-lc-records: checksum mismatch: got $actual, expected $expected" >&2
        exit 1
    fi
    mv "$tmp/$member" "$file"
fi
echo "$file"
