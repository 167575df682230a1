#!/usr/bin/env bash
# tls-replication yes: a lawnkv replica's link to its primary over TLS, on a
# throwaway CA made at test time (lib/test_certs.bash), with client
# certificates required (tls-auth-clients yes on the primary):
# - of a lawnkv primary and of a redis-server 7.0.15 primary (Debian's build
#   has TLS), each reached on its tls-port: a full sync (2,000 keys and a
#   3 MB value) and then the stream (writes made after the sync); the
#   replica announces its tls-port to the primary (INFO's slave0 port);
#   the first replica presents tls-client-cert-file, the second has none
#   and presents tls-cert-file (a certificate for client use), as Redis;
# - a primary whose certificate another CA signed is refused (the replica
#   logs OpenSSL's reason, master_link_status stays down);
# - a replica presenting a certificate of another CA is refused by the
#   primary.
# LAWNKV_SERVER=redis-server runs the same checks with Redis as the replica.
set -euo pipefail
cd "$(dirname "$0")/../.."
source tests/tools/lib/server.bash
source tests/tools/lib/test_certs.bash

certs=$(mktemp -d)
trap 'stop_all; rm -rf "$certs"' EXIT
gen_test_certs "$certs" || fail "could not make the test certificates"
redis=/usr/bin/redis-server
[ -x "$redis" ] || fail "redis-server is not installed"

# launch BIN NAME TLS ARGS...: starts BIN on a free plain port (and, TLS=tls,
# a free TLS port with the server's certificate; TLS=none: none) with ARGS,
# retrying on other ports if it exits during start-up; sets port, tport and
# log. Each server has a directory of its own (a replica writes the
# primary's snapshot there). Polls PING on the plain port, with a 10 s
# deadline.
launch() {
  local bin=$1 name=$2 tls=$3 pid dir
  shift 3
  dir=$(mktemp -d -p "$certs" "$name.XXXX")
  for _ in 1 2 3 4 5; do
    port=$(free_port)
    tport=0
    [ "$tls" = tls ] && tport=$(free_port)
    log="$log_dir/tools-tls_replication-$name-$port.log"
    "$bin" --port "$port" --tls-port "$tport" --bind 127.0.0.1 --save "" --appendonly no --dir "$dir" \
      --repl-diskless-sync-delay 0 \
      --tls-cert-file "$certs/server.crt" --tls-key-file "$certs/server.key" \
      --tls-ca-cert-file "$certs/ca.crt" "$@" >"$log" 2>&1 &
    pid=$!
    pids+=("$pid")
    for _ in $(seq 1 200); do
      kill -0 "$pid" 2>/dev/null || break
      [ "$(redis-cli -p "$port" ping 2>/dev/null)" = PONG ] && return 0
      sleep 0.05
    done
    kill -0 "$pid" 2>/dev/null && fail "$bin did not answer PING on port $port within 10 s"
    wait "$pid" 2>/dev/null || true
    unset 'pids[-1]'
  done
  fail "$bin did not start (see $log)"
}

# wait_for DESCRIPTION COMMAND...: polls COMMAND until it succeeds, 20 s at most.
wait_for() {
  local what=$1
  shift
  for _ in $(seq 1 400); do
    "$@" && return 0
    sleep 0.05
  done
  fail "$what: not within 20 s"
}
field() {  # field PORT NAME: NAME's value in INFO replication
  redis-cli -p "$1" info replication | tr -d '\r' | sed -n "s/^$2://p"
}
link_up() { [ "$(field "$1" master_link_status)" = up ] && [ "$(field "$1" master_sync_in_progress)" = 0 ]; }
same_dbsize() { [ "$(redis-cli -p "$1" dbsize)" = "$(redis-cli -p "$2" dbsize)" ]; }
streamed() { [ "$(redis-cli -p "$1" get counter)" = 100 ] && [ "$(redis-cli -p "$1" exists key:1)" = 0 ]; }

big=$(head -c 2250000 /dev/urandom | base64 -w0)

# replicate PRIMARY_BIN NAME REPLICA_ARGS...: a primary with tls-auth-clients
# yes, a data set, then a replica of it over TLS; full sync, then the stream.
replicate() {
  local primary_bin=$1 name=$2
  shift 2
  launch "$primary_bin" "primary-$name" tls --tls-auth-clients yes
  local pport=$port ptport=$tport plog=$log
  for i in $(seq 1 2000); do printf 'SET key:%d value-%d\n' "$i" "$i"; done |
    redis-cli -p "$pport" --pipe >/dev/null || fail "loading the primary"
  printf '%s' "$big" | redis-cli -p "$pport" -x set big >/dev/null

  launch "$server" "replica-$name" tls --tls-replication yes "$@"
  local rport=$port rtport=$tport
  redis-cli -p "$rport" replicaof 127.0.0.1 "$ptport" >/dev/null
  wait_for "the replica of $name over TLS in sync" link_up "$rport"
  wait_for "the replica of $name has the primary's keys" same_dbsize "$pport" "$rport"
  [ "$(redis-cli -p "$rport" get key:1234)" = value-1234 ] || fail "key:1234 on the replica of $name"
  [ "$(redis-cli -p "$rport" get big | sha1sum)" = "$(redis-cli -p "$pport" get big | sha1sum)" ] ||
    fail "the 3 MB value on the replica of $name"
  echo "$name primary: full sync over TLS ($(redis-cli -p "$rport" dbsize) keys)"

  for _ in $(seq 1 100); do echo "INCR counter"; done | redis-cli -p "$pport" --pipe >/dev/null
  redis-cli -p "$pport" del key:1 >/dev/null
  wait_for "the stream from $name over TLS" streamed "$rport"
  same_dbsize "$pport" "$rport" || fail "the replica of $name after the stream"
  local announced
  announced=$(field "$pport" slave0 | sed -n 's/.*,port=\([0-9]*\),.*/\1/p')
  [ "$announced" = "$rtport" ] || fail "the replica of $name announced port '$announced', want its tls-port $rtport"
  echo "$name primary: the stream over TLS; the replica announced its tls-port"
  log=$plog
}

replicate "$server" lawnkv --tls-client-cert-file "$certs/client.crt" --tls-client-key-file "$certs/client.key"
replicate "$redis" redis --tls-cert-file "$certs/client.crt" --tls-key-file "$certs/client.key"

# refused REPLICA_PORT WHY: the link stays down and the replica's log says
# WHY (a pattern) within 10 s.
refused() {
  local rport=$1 why=$2 rlog=$log
  for _ in $(seq 1 200); do
    grep -q "$why" "$rlog" && break
    sleep 0.05
  done
  grep -q "$why" "$rlog" || fail "the replica did not log '$why'"
  [ "$(field "$rport" master_link_status)" = down ] || fail "the link is up"
  [ "$(redis-cli -p "$rport" dbsize)" = 0 ] || fail "the replica took data over a refused link"
}

launch "$server" primary-refusing tls --tls-auth-clients yes
pport=$port
ptport=$tport
redis-cli -p "$pport" set k v >/dev/null
launch "$server" replica-wrong-ca none --tls-replication yes --tls-ca-cert-file "$certs/other-ca.crt"
redis-cli -p "$port" replicaof 127.0.0.1 "$ptport" >/dev/null
if [ "$reference" = 1 ]; then refused "$port" "certificate verify failed"; else
  refused "$port" "Error condition on socket for SYNC: .*certificate verify failed"; fi
echo "a primary whose certificate the replica's CA did not sign: refused, logged"

launch "$server" replica-stranger none --tls-replication yes \
  --tls-client-cert-file "$certs/stranger.crt" --tls-client-key-file "$certs/stranger.key"
redis-cli -p "$port" replicaof 127.0.0.1 "$ptport" >/dev/null
refused "$port" "alert"
echo "a replica presenting another CA's certificate: refused by the primary"
echo "tls_replication: all checks passed"
