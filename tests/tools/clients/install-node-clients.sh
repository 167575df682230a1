#!/usr/bin/env bash
# Installs the pinned node client libraries into build/node-clients/<set>/ and
# prints that directory: the two clients (ioredis, node-redis) and the
# libraries built on them that the real-library suites drive (BullMQ, a job
# queue on Lua scripts and streams; rate-limiter-flexible, on a Lua script). Skips npm when the directory already holds exactly
# these versions (a stamp file), so repeated `make test` runs stay offline.
#
# The newest majors (ioredis 6, node-redis 6) require node >= 20; Debian 12's
# own nodejs is 18.20, where the newest majors that run are ioredis 5 and
# node-redis 5. Both sets are pinned; `node` picks one, or
# LAWNKV_NODE_CLIENTS=5|6 does (to test the other set where node allows it).
set -euo pipefail
cd "$(dirname "$0")/../../.."

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "node and npm are needed (scripts/install-deps.sh test)" >&2
  exit 1
fi

set_major=${LAWNKV_NODE_CLIENTS:-}
if [ -z "$set_major" ]; then
  set_major=5
  [ "$(node -p 'process.versions.node.split(".")[0]')" -ge 20 ] && set_major=6
fi
case "$set_major" in
  6) pkgs=(ioredis@6.0.0 redis@6.3.1) ;;
  5) pkgs=(ioredis@5.11.1 redis@5.12.1) ;;
  *) echo "LAWNKV_NODE_CLIENTS must be 5 or 6" >&2; exit 2 ;;
esac
# Both sets: BullMQ 6 runs on node >= 14.18 with ioredis >= 5 (its peer
# dependency, the set's own ioredis); rate-limiter-flexible has no dependencies.
pkgs+=(bullmq@6.7.0 rate-limiter-flexible@11.4.0)

dir=build/node-clients/v$set_major
stamp="$dir/.installed"
mkdir -p "$dir"
exec 9>"$dir/.lock"
flock 9
if [ "$(cat "$stamp" 2>/dev/null)" != "${pkgs[*]}" ]; then
  rm -f "$stamp"
  echo "npm install ${pkgs[*]} into $dir" >&2
  npm install --prefix "$dir" --no-audit --no-fund --no-save --loglevel=error \
    "${pkgs[@]}" >&2
  printf '%s\n' "${pkgs[*]}" >"$stamp"
fi
echo "$PWD/$dir"
