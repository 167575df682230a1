#!/usr/bin/env bash
# Installs the Debian packages lawnkv needs, and only those that are missing.
#   scripts/install-deps.sh run    build and run the server
#   scripts/install-deps.sh test   also the test clients, the reference redis-server,
#                                  and clang for the sanitizer build and the fuzzers
#   scripts/install-deps.sh bench  also the benchmark tools
set -euo pipefail

want=(g++ make pkg-config libuv1-dev libjemalloc-dev liblua5.1-0-dev lua-cjson-dev lua-bitop-dev libssl-dev)
case "${1:-run}" in
  run) ;;
  # clang with its sanitizer and libFuzzer runtimes, and llvm-symbolizer for
  # the reports: the build-asan/ suites and make fuzz
  # openssl: the TLS test makes its throwaway CA and certificates with it
  test) want+=(libhiredis-dev doctest-dev redis-server redis-tools python3-redis python3-rq nutcracker openssl
               clang libclang-rt-14-dev llvm-14)
        # node and npm from Debian unless a node with npm is already there (NodeSource's
        # nodejs bundles npm and conflicts with Debian's npm package)
        command -v npm >/dev/null 2>&1 || want+=(nodejs npm) ;;
  bench) want+=(libhiredis-dev doctest-dev redis-server redis-tools libbenchmark-dev gnuplot-nox python3) ;;
  *) echo "usage: $0 run|test|bench" >&2; exit 2 ;;
esac

missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "installing: ${missing[*]}"
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
# The packaged redis-server starts a service on 6379; tests never use it, so
# keep it from starting where policy-rc.d is honoured.
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
