#!/usr/bin/env bash
# protected-mode as Redis 7.0: with protected-mode yes and no password for
# the default user, a client that is not on loopback gets the DENIED error
# and is closed; a loopback client is served; with a password (requirepass)
# or protected-mode no the other client is served (NOAUTH / PONG). The
# other client reaches the server through this host's first non-loopback
# IPv4 address; without one the script says so and passes.
# LAWNKV_SERVER=redis-server runs the same checks against Redis 7.0.
set -euo pipefail
cd "$(dirname "$0")/../.."
source tests/tools/lib/server.bash

addr=$(hostname -I 2>/dev/null | tr ' ' '\n' | grep -E '^[0-9]+\.' | grep -v '^127\.' | head -n 1 || true)
if [ -z "$addr" ]; then
  echo "protected-mode: no non-loopback IPv4 address here, nothing to check"
  exit 0
fi

# start_server binds 127.0.0.1; a later --bind wins (the last line of a
# directive counts).
start_server --bind "127.0.0.1 $addr"
echo "server on port $port, also on $addr"
remote() { timeout 10 redis-cli -h "$addr" -p "$port" "$@" 2>&1 || true; }

got=$(remote ping)
[[ "$got" == "DENIED "*"running in protected mode because protected mode is enabled and no password is set for the default user."* ]] ||
  fail "a non-loopback client without a password: '$got'"
[ "$(redis-cli -p "$port" ping)" = PONG ] || fail "a loopback client in protected mode"
echo "protected-mode yes, no password: the other host is refused, loopback served"

redis-cli -p "$port" config set requirepass pw >/dev/null
got=$(remote ping)
[[ "$got" == NOAUTH* ]] || fail "with requirepass, the other host should get NOAUTH: '$got'"
[ "$(remote -a pw --no-auth-warning ping)" = PONG ] || fail "with requirepass, AUTH from the other host"
redis-cli -p "$port" -a pw --no-auth-warning config set requirepass "" >/dev/null
[[ "$(remote ping)" == DENIED* ]] || fail "protected again once the password is gone"
redis-cli -p "$port" config set protected-mode no >/dev/null
[ "$(remote ping)" = PONG ] || fail "protected-mode no: the other host is served"
echo "protected-mode: a password or protected-mode no lets the other host in"
echo "protected-mode: all checks passed"
