# Sourced by the test scripts that run a server of their own (oai-harvest-test.sh,
# browser-test.sh): the debug binary, a work directory removed at exit, a server on a
# free port, and at exit the server stopped, its log's tail shown if the script failed,
# and the verdict with the time taken.
#
# Set `name` (the script's name in messages) before sourcing. Then: `quire`, `work`,
# `phase MESSAGE`, and `serve ARGS...`, which sets `url`.
started=$(date +%s)
phase() { echo "$name: $1 ($(($(date +%s) - started)) s)"; }
export QUIRE_LOG=${QUIRE_LOG:-warn}

# The debug build: the one the test suite built (QUIRE_BIN, set by scripts/test.sh), or
# built here.
quire=${QUIRE_BIN:-}
[ -n "$quire" ] || { cargo build -q -p quire-cli; quire=$PWD/target/debug/quire; }

work=$(mktemp -d)
server=
finish() {
    status=$?
    if [ -n "$server" ]; then
        kill "$server" 2>/dev/null || true
        wait "$server" 2>/dev/null || true
    fi
    if [ $status -ne 0 ] && [ -s "$work/server.log" ]; then
        echo "$name: the server's last log lines:" >&2
        tail -n 20 "$work/server.log" >&2
    fi
    rm -rf "$work"
    echo "$name: $([ $status -eq 0 ] && echo passed || echo FAILED) in $(($(date +%s) - started)) s"
}
trap finish EXIT

# `$quire ARGS... --listen 127.0.0.1:PORT` on a free port, its output in
# $work/server.log; returns once /admin/health answers, with `url` set.
serve() {
    local port
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    url=http://127.0.0.1:$port
    "$quire" "$@" --listen 127.0.0.1:$port >"$work/server.log" 2>&1 &
    server=$!
    for _ in $(seq 1 600); do
        curl -sf $url/admin/health >/dev/null && return
        kill -0 $server 2>/dev/null || { echo "$name: the server exited" >&2; exit 1; }
        sleep 0.25
    done
    echo "$name: the server did not start" >&2
    exit 1
}
