# Sourced by the bench scripts that make and serve a tenant of their own, from the
# repository root: builds the release binary ($quire) and makes a work directory
# ($work); at exit, stops the server whose pid the script put in $server and, once it
# has ended, removes the directory (a server still running finds its files gone).
cargo build --release -q -p quire-cli
quire=$PWD/target/release/quire
work=$(mktemp -d)
server=
trap '[ -n "$server" ] && kill $server 2>/dev/null && wait $server 2>/dev/null; rm -rf "$work"' EXIT
