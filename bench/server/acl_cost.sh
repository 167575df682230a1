#!/bin/bash
# bench/server/acl_cost.sh: what an ACL check costs per request, as callgrind counts it.
# Instructions per request of GET/SET at -P 16 for three users: default (+@all ~* &*),
# "cmds" (-@all +get +set ~* &*: the command bit is checked), "keys" (-@all +get +set ~key:*:
# the command bit and each key's pattern). CG_DIR=dir keeps the callgrind files there (one
# part per user and test, in the order printed).
set -e
BIN=${LAWNKV_SERVER:-build/lawnkv-server}
PORT=47311
W=${CG_DIR:-$(mktemp -d)}
mkdir -p "$W"
valgrind --tool=callgrind --callgrind-out-file=$W/cg.%p $BIN --port $PORT --bind 127.0.0.1 --save '' --appendonly no --logfile $W/log >/dev/null 2>$W/err &
VPID=$!
for i in $(seq 300); do [ "$(redis-cli -p $PORT ping 2>/dev/null)" = PONG ] && break; sleep 0.1; done
redis-cli -p $PORT acl setuser cmds on '>pw' '~*' '&*' -@all +get +set +ping >/dev/null
redis-cli -p $PORT acl setuser keys on '>pw' '~key:*' '&*' -@all +get +set +ping >/dev/null
for user in default cmds keys; do
  auth=(); [ $user != default ] && auth=(--user $user -a pw)
  for t in set get; do
    callgrind_control -z $VPID >/dev/null
    redis-benchmark -p $PORT "${auth[@]}" -n 100000 -r 1000000 -d 16 -c 50 -P 16 -t $t -q >/dev/null 2>&1
    callgrind_control -d $VPID >/dev/null
    f=$(ls -t $W/cg.$VPID* | head -1)
    ir=$(callgrind_annotate $f 2>/dev/null | grep -m1 "PROGRAM TOTALS" | awk '{gsub(",","",$1); print $1}')
    echo "$user $t $((ir / 100000))"
  done
done
kill $VPID; wait $VPID 2>/dev/null || true
