#!/usr/bin/env bash
# A throwaway PostgreSQL cluster on loopback, for the tests and benchmarks that run Quire
# on PostgreSQL. Debian's PostgreSQL 15 is installed when missing.
#
#   scripts/postgres.sh start DIR [durable]
#                                   initdb a cluster in DIR (which must not exist), start it
#                                   on a free port, and print its URL (the only stdout
#                                   line): postgresql://quire@127.0.0.1:PORT/quire.
#                                   Tests run without fsync; `durable` (benchmarks) keeps
#                                   fsync and full-page writes, with asynchronous commit:
#                                   a crash of Quire loses nothing, a power loss may lose
#                                   the last commits, as SQLite's `synchronous=NORMAL`
#   scripts/postgres.sh stop DIR    stop that cluster and remove DIR
#
# The cluster trusts loopback connections (it is a test cluster: nothing but this machine
# reaches it) and its superuser is `quire`. PostgreSQL refuses to run as root, so under
# root the cluster belongs to the `postgres` account the package creates.
set -euo pipefail

usage() {
    echo "usage: $0 start DIR [durable] | stop DIR" >&2
    exit 2
}

bin_dir() {
    local dir
    for dir in /usr/lib/postgresql/*/bin; do
        if [[ -x "$dir/initdb" ]]; then
            echo "$dir"
            return
        fi
    done
    return 1
}

install() {
    if bin_dir >/dev/null; then
        return
    fi
    echo "installing PostgreSQL from Debian's packages" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2
    apt-get install -y -qq postgresql >&2
}

# Runs a command as the cluster's owner.
as_owner() {
    if [[ "$(id -u)" == 0 ]]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

start() {
    local dir="$1" durable="${2:-}"
    [[ ! -e "$dir" ]] || { echo "$dir exists" >&2; exit 1; }
    install
    local bin port
    bin="$(bin_dir)"
    port="$(free_port)"
    mkdir -p "$dir"
    if [[ "$(id -u)" == 0 ]]; then
        chown postgres: "$dir"
    fi
    as_owner "$bin/initdb" -D "$dir/data" -U quire -A trust -E UTF8 --locale=C.UTF-8 --no-sync >"$dir/initdb.log" 2>&1 \
        || { cat "$dir/initdb.log" >&2; exit 1; }
    # Room for several nodes' pools, and the socket kept inside DIR.
    cat >>"$dir/data/postgresql.conf" <<EOF
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$dir'
max_connections = 300
synchronous_commit = off
EOF
    if [[ "$durable" == durable ]]; then
        printf "shared_buffers = 2GB\nmax_wal_size = 8GB\n" >>"$dir/data/postgresql.conf"
    else
        # A test cluster: the tests kill Quire, never PostgreSQL.
        printf "fsync = off\nfull_page_writes = off\nshared_buffers = 256MB\n" >>"$dir/data/postgresql.conf"
    fi
    as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 start >/dev/null \
        || { cat "$dir/server.log" >&2; exit 1; }
    # The C locale, as the README asks of a production database: citext then folds ASCII
    # only, as SQLite's NOCASE does, and without wide-character conversions.
    as_owner "$bin/createdb" -h 127.0.0.1 -p "$port" -U quire --template=template0 --encoding=UTF8 --locale=C quire
    echo "postgresql://quire@127.0.0.1:$port/quire"
}

stop() {
    local dir="$1" bin
    bin="$(bin_dir)"
    if [[ -f "$dir/data/postmaster.pid" ]]; then
        as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null || true
    fi
    rm -rf "$dir"
}

[[ $# -ge 2 && $# -le 3 ]] || usage
case "$1" in
    start) start "$2" "${3:-}" ;;
    stop) stop "$2" ;;
    *) usage ;;
esac
