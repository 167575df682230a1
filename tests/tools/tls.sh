#!/usr/bin/env bash
# TLS (tls-port) with Debian's clients, on a throwaway CA made at test time
# (lib/test_certs.bash): redis-cli --tls with and without a client
# certificate under tls-auth-clients yes / optional / no and with a
# certificate of another CA; the plain port beside the TLS one; a short
# redis-benchmark --tls; redis-py ssl=True (clients/tls_check.py: several MB
# each way, a pipeline, pub/sub, bad clients, certificate rotation); ioredis's
# tls option (clients/ioredis_tls.mjs); port 0
# (TLS only) with INFO's tcp_port and CLIENT LIST's laddr.
# LAWNKV_SERVER=redis-server runs the same checks against Redis 7.0;
# LAWNKV_IO_THREADS=4 runs them with I/O threads on.
set -euo pipefail
cd "$(dirname "$0")/../.."
source tests/tools/lib/server.bash
source tests/tools/lib/test_certs.bash

python=/usr/bin/python3
certs=$(mktemp -d)
trap 'stop_all; rm -rf "$certs"' EXIT
gen_test_certs "$certs" || fail "could not make the test certificates"

tls_args=(--tls-cert-file "$certs/server.crt" --tls-key-file "$certs/server.key"
          --tls-ca-cert-file "$certs/ca.crt")
# LAWNKV_IO_THREADS=N: the servers run N - 1 I/O threads (io-threads-do-reads
# yes), as the suites' threaded runs: lawnkv keeps its TLS connections on the
# main thread beside the threaded plain ones.
thread_args=()
if [ -n "${LAWNKV_IO_THREADS:-}" ]; then
  thread_args=(--io-threads "$LAWNKV_IO_THREADS" --io-threads-do-reads yes)
  tls_args+=("${thread_args[@]}")
fi

# tcli [client certificate name|none] command...: redis-cli over TLS
tcli() {
  local who=$1; shift
  local id=()
  [ "$who" != none ] && id=(--cert "$certs/$who.crt" --key "$certs/$who.key")
  timeout 10 redis-cli -p "$tport" --tls --cacert "$certs/ca.crt" "${id[@]}" "$@" 2>&1
}
expect_tls() {  # expect_tls <wanted> <who> <command...>
  local want=$1; shift
  local got
  got=$(tcli "$@") || true
  [ "$got" = "$want" ] || fail "redis-cli --tls as $1 ${*:2}: got '$got', want '$want'"
}
refused() {  # refused <who>: no reply to PING
  local got
  got=$(tcli "$1" ping) || true
  [[ "$got" != *PONG* ]] || fail "a client with certificate '$1' was served: $got"
}

# start_tls_server PLAIN_PORT: starts $server with TLS on a free port (and
# TCP on port PLAIN_PORT, 0: none, "free": a free one), retrying on other
# ports if it exits during start-up (a port taken meanwhile); sets tport
# and port. Polls PING over TLS, with a 10 s deadline.
start_tls_server() {
  local pid
  for _ in 1 2 3 4 5; do
    tport=$(free_port)
    port=$1
    [ "$port" = free ] && port=$(free_port)
    log="$log_dir/tools-tls-$tport.log"
    "$server" --port "$port" --tls-port "$tport" --bind 127.0.0.1 --save "" "${tls_args[@]}" >"$log" 2>&1 &
    pid=$!
    pids+=("$pid")
    for _ in $(seq 1 200); do
      kill -0 "$pid" 2>/dev/null || break
      [ "$(tcli client ping)" = PONG ] && return 0
      sleep 0.05
    done
    kill -0 "$pid" 2>/dev/null && fail "$server did not answer PING over TLS on port $tport within 10 s"
    wait "$pid" 2>/dev/null || true
    unset 'pids[-1]'
  done
  fail "$server did not start with TLS (see $log)"
}

start_tls_server free
echo "server on port $port, TLS on $tport (pid ${pids[-1]})"

expect_tls OK client set k v
expect_tls v client get k
[ "$(redis-cli -p "$port" get k)" = v ] || fail "the plain port beside the TLS one"
refused none
refused stranger
echo "tls-auth-clients yes: a client certificate is required, another CA's is refused"

expect_tls OK client config set tls-auth-clients optional
expect_tls PONG none ping
expect_tls PONG client ping
refused stranger
echo "tls-auth-clients optional: no certificate accepted, a bad one refused"
expect_tls OK client config set tls-auth-clients no
expect_tls PONG stranger ping
expect_tls OK client config set tls-auth-clients yes
refused none

# A short redis-benchmark over TLS, pipelined.
bench=$(timeout 60 redis-benchmark -p "$tport" --tls --cacert "$certs/ca.crt" --cert "$certs/client.crt" \
          --key "$certs/client.key" -t set,get -n 20000 -P 16 -c 4 -q 2>&1) || fail "redis-benchmark --tls: $bench"
bench=$(tr '\r' '\n' <<<"$bench" | grep -E '^ *(SET|GET): [0-9.]+ requests per second' || true)
[ "$(wc -l <<<"$bench")" = 2 ] || fail "redis-benchmark --tls did not finish SET and GET"
echo "redis-benchmark --tls: $(tr '\n' ' ' <<<"$bench")"

timeout 60 "$python" tests/tools/clients/tls_check.py "$tport" "$certs" || fail "redis-py over TLS (see above)"
NODE_CLIENTS_DIR=$(tests/tools/clients/install-node-clients.sh) || fail "installing the node clients"
NODE_CLIENTS_DIR=$NODE_CLIENTS_DIR timeout 60 node tests/tools/clients/ioredis_tls.mjs "$tport" "$certs" ||
  fail "ioredis over TLS (see the FAIL lines above)"
refused none  # the rotations kept tls-auth-clients
expect_tls 'ERR CONFIG SET failed (possibly related to argument '"'"'tls-protocols'"'"') - Unable to update TLS configuration. Check server logs.' \
  client config set tls-protocols TLSv9

# Port 0: TLS only. INFO's tcp_port is the TLS port, as Redis's.
start_tls_server 0
info_port=$(tcli client info server | tr -d '\r' | sed -n 's/^tcp_port://p')
[ "$info_port" = "$tport" ] || fail "INFO tcp_port with port 0: '$info_port', want $tport"
laddr=$(tcli client client list | sed -n 's/.* laddr=\([^ ]*\) .*/\1/p')
[ "${laddr##*:}" = "$tport" ] || fail "CLIENT LIST laddr: '$laddr', want port $tport"
expect_tls "$(printf 'tls-port\n%s' "$tport")" client config get tls-port
expect_tls "$(printf 'port\n0')" client config get port
echo "port 0: TLS only, tcp_port $info_port"

# TLS switched on and off at run time with CONFIG SET, as Redis: tls-port
# needs a context that loads; the files alone are not loaded while TLS is
# off; tls-port 0 closes the listener.
start_server "${thread_args[@]}"
pcli() { redis-cli -p "$port" "$@" 2>&1; }
tport=$(free_port)
no_tls="ERR CONFIG SET failed (possibly related to argument 'tls-port') - Unable to update TLS configuration. Check server logs."
[ "$(pcli config set tls-port "$tport")" = "$no_tls" ] || fail "CONFIG SET tls-port without a certificate"
[ "$(pcli config set tls-cert-file /nonexistent)" = OK ] || fail "tls-cert-file while TLS is off is not loaded"
[ "$(pcli config set tls-cert-file "$certs/server.crt" tls-key-file "$certs/server.key")" = OK ] || fail "the files"
[ "$(pcli config set tls-port "$tport")" = "$no_tls" ] || fail "CONFIG SET tls-port without a CA under tls-auth-clients yes"
# (another port if that one was taken meanwhile)
for _ in 1 2 3 4 5; do
  got=$(pcli config set tls-ca-cert-file "$certs/ca.crt" tls-port "$tport")
  [[ "$got" == *"Unable to listen on this port"* ]] || break
  tport=$(free_port)
done
[ "$got" = OK ] || fail "CONFIG SET tls-port: $got"
expect_tls PONG client ping
[ "$(pcli config set tls-port 0)" = OK ] || fail "CONFIG SET tls-port 0"
refused client
echo "CONFIG SET tls-port: on and off at run time"

echo "tls: all checks passed"
