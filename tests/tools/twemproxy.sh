#!/usr/bin/env bash
# lawnkv behind twemproxy (Debian's nutcracker): three instances sharded with
# fnv1a_64 + ketama; a fourth with requirepass behind a pool with redis_auth
# (nutcracker sends AUTH), and the first again behind a pool with redis_db
# (nutcracker sends SELECT at connect).
# Through the proxy: SET/GET/DEL/UNLINK/TOUCH/INCR.../EXPIRE/PEXPIRE/
# EXPIREAT/PEXPIREAT/TTL/PTTL/SETEX/PSETEX/MGET/MSET, EXISTS of one key
# (nutcracker 0.5.0 miscounts a multi-key EXISTS over several servers, with
# Redis too), a 1 MB value and a 1,000-command pipeline; each key on exactly
# one instance, every instance used; PX 100 keys
# disappear after DEBUG ADVANCE-TIME on every instance; nutcracker's stats
# and log show no server error. The checks are
# tests/tools/clients/twemproxy_check.py; then redis-benchmark through the
# proxy.
cd "$(dirname "$0")/../.."
source tests/tools/lib/server.bash

python=/usr/bin/python3
nutcracker=$(command -v nutcracker || echo /usr/sbin/nutcracker)
[ -x "$nutcracker" ] || fail "nutcracker is not installed (scripts/install-deps.sh test)"
"$python" -c 'import redis' 2>/dev/null ||
  fail "$python cannot import redis: install python3-redis (scripts/install-deps.sh test)"
export LAWNKV_REFERENCE=$reference

password=tw-secret
db=3
for _ in 1 2 3; do start_server --enable-debug-command yes; done
start_server --enable-debug-command yes --requirepass "$password"
auth_port=${ports[3]}
echo "servers on ports ${ports[*]} (pids ${pids[*]})"

tmp=$(mktemp -d)
trap 'stop_all; rm -rf "$tmp"' EXIT

# Starts nutcracker with the three pools on free ports; retries if it exits
# during start-up (a port was taken meanwhile). Polls PING on the first pool,
# which nutcracker answers itself once it listens.
start_nutcracker() {
  local pid
  for _ in 1 2 3 4 5; do
    proxy_port=$(free_port); auth_proxy_port=$(free_port); db_proxy_port=$(free_port)
    stats_port=$(free_port)
    [ "$(printf '%s\n' "$proxy_port" "$auth_proxy_port" "$db_proxy_port" "$stats_port" | sort -u | wc -l)" = 4 ] ||
      continue
    cat >"$tmp/nutcracker.yml" <<YML
tw:
  listen: 127.0.0.1:$proxy_port
  hash: fnv1a_64
  distribution: ketama
  redis: true
  timeout: 5000
  auto_eject_hosts: false
  servers:
   - 127.0.0.1:${ports[0]}:1 server1
   - 127.0.0.1:${ports[1]}:1 server2
   - 127.0.0.1:${ports[2]}:1 server3
twauth:
  listen: 127.0.0.1:$auth_proxy_port
  hash: fnv1a_64
  distribution: ketama
  redis: true
  timeout: 5000
  redis_auth: $password
  servers:
   - 127.0.0.1:$auth_port:1 a1
twdb:
  listen: 127.0.0.1:$db_proxy_port
  hash: fnv1a_64
  distribution: ketama
  redis: true
  timeout: 5000
  redis_db: $db
  servers:
   - 127.0.0.1:${ports[0]}:1 d1
YML
    "$nutcracker" -t -c "$tmp/nutcracker.yml" >/dev/null 2>&1 ||
      fail "nutcracker -t rejects the config:\n$("$nutcracker" -t -c "$tmp/nutcracker.yml" 2>&1)"
    log="$log_dir/tools-twemproxy-nutcracker-$proxy_port.log"
    "$nutcracker" -c "$tmp/nutcracker.yml" -s "$stats_port" -a 127.0.0.1 -i 100 -v 6 \
      -p "$tmp/nutcracker.pid" -o "$log" &
    pid=$!
    pids+=("$pid")
    for _ in $(seq 1 200); do
      kill -0 "$pid" 2>/dev/null || break
      [ "$(redis-cli -p "$proxy_port" ping 2>/dev/null)" = PONG ] && return 0
      sleep 0.05
    done
    kill -0 "$pid" 2>/dev/null && fail "nutcracker did not answer PING on port $proxy_port within 10 s"
    wait "$pid" 2>/dev/null || true
    unset 'pids[-1]'
  done
  fail "nutcracker did not start (see $log)"
}

start_nutcracker
echo "$("$nutcracker" -V 2>&1 | head -n 1 | awk '{print $NF}') on port $proxy_port (pools twauth on $auth_proxy_port, twdb on $db_proxy_port, stats on $stats_port; pid ${pids[-1]})"

timeout 60 "$python" tests/tools/clients/twemproxy_check.py "$proxy_port" "$stats_port" \
  "${ports[0]},${ports[1]},${ports[2]}" "$auth_proxy_port" "$auth_port" "$password" "$db_proxy_port" "$db" ||
  fail "twemproxy (see the FAIL lines above)"

# redis-benchmark through the proxy, pipelined (-P 16): SET, GET, INCR and
# MSET (fragmented over the instances), and SET ... EX over random keys. It
# warns that it cannot read CONFIG, which nutcracker does not forward.
for args in "-t set,get,incr,mset" "-r 10000 set key:__rand_int__ v EX 100"; do
  # shellcheck disable=SC2086
  out=$(timeout 60 redis-benchmark -p "$proxy_port" -q -n 20000 -c 20 -P 16 $args 2>&1 | tr '\r' '\n') ||
    fail "redis-benchmark $args through nutcracker exited non-zero:\n$out"
  bad=$(printf '%s\n' "$out" | grep -iE 'error|warning|refused|closed|timeout' |
    grep -v 'WARNING: Could not fetch server CONFIG' || true)
  [ -z "$bad" ] || fail "redis-benchmark $args through nutcracker:\n$bad"
  printf '%s\n' "$out" | grep 'requests per second' | sed 's/^ */  /'
done

# At -v 6 nutcracker logs a reply it cannot parse ("parsed bad rsp"), a
# request it refuses, and a failed SELECT or AUTH at connect.
bad=$(grep -iE 'parsed bad|failed|error|timed out|eject' "$log" || true)
[ -z "$bad" ] || fail "nutcracker's log reports problems:\n$bad"
echo "twemproxy: all checks passed"
