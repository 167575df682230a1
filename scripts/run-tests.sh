#!/usr/bin/env bash
# Runs the test suites of `make test` and closes with one line
# "tests: N passed, M failed" counting suites. Run from the repository root
# after the binaries are built (build/ and, for the sanitizer suites,
# build-asan/: make sanitize-build).
#   scripts/run-tests.sh            every suite
#   scripts/run-tests.sh plain      build/: unit, integration, compat, tools,
#                                   then integration and compat again with
#                                   io-threads 4 (LAWNKV_IO_THREADS)
#   scripts/run-tests.sh check      the fast subset (make check): the layers,
#                                   then build/'s unit, integration and compat
#   scripts/run-tests.sh sanitize   build-asan/: unit, integration (build/'s
#                                   tests against build-asan/'s server), compat
#                                   (against redis-server), a mixed load, TLS
#                                   (tests/tools/tls.sh, tls_replication.sh), and
#                                   each fuzz harness over its corpus
#   scripts/run-tests.sh tsan       build-tsan/ (make tsan-build): the I/O
#                                   thread tests against the ThreadSanitizer
#                                   server
# Each suite's wall time is printed after it.
set -u
cd "$(dirname "$0")/.."
group=${1:-all}

passed=0
failed=0
failures=()
# Files a server writes where it runs (the tests' working directory, the
# repository root) when a test gives it no --dir of its own: every server
# started after would load them. They are removed after each suite, and the
# suite that left one fails.
stray_files() { ls -d dump.rdb appendonly.aof appendonlydir 2>/dev/null; }
suite() {
  local name=$1; shift
  echo "=== $name"
  local start=$SECONDS stray ok=1
  "$@" || ok=0
  stray=$(stray_files)
  if [ -n "$stray" ]; then
    echo "$name left in the repository root (a server without a --dir of its own): $stray"
    rm -rf $stray
    ok=0
  fi
  if [ "$ok" = 1 ]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    failures+=("$name")
  fi
  echo "=== $name: $((SECONDS - start)) s"
}

if [ "$group" = all ] || [ "$group" = plain ] || [ "$group" = check ]; then
  # The include graph: no folder includes one above it, no file cycles.
  suite layers python3 scripts/check-layers.py
  suite unit build/unit-tests
  suite integration build/integration-tests
  suite compat build/compat-tests
fi

if [ "$group" = all ] || [ "$group" = plain ]; then
  for t in tests/tools/*.sh; do
    [ -e "$t" ] && suite "tools/$(basename "$t" .sh)" bash "$t"
  done
fi

if [ "$group" = all ] || [ "$group" = plain ]; then
  # The same suites with every server they start reading, parsing and
  # writing on I/O threads (--io-threads 4 --io-threads-do-reads yes).
  suite integration/io-threads-4 env LAWNKV_IO_THREADS=4 build/integration-tests
  suite compat/io-threads-4 env LAWNKV_IO_THREADS=4 build/compat-tests
  suite tools/tls/io-threads-4 env LAWNKV_IO_THREADS=4 bash tests/tools/tls.sh
fi

if [ "$group" = all ] || [ "$group" = tsan ]; then
  # Any data race ends the server with a report in its log
  # (build-tsan/test-logs), which fails the suite.
  tsan_suite() {
    rm -rf build-tsan/test-logs
    local status=0
    TSAN_OPTIONS=halt_on_error=1:exitcode=66 LAWNKV_SERVER=build-tsan/lawnkv-server \
      LAWNKV_TEST_LOGS=build-tsan/test-logs build/integration-tests -tc='io-threads*' || status=1
    scripts/sanitizer-reports.sh build-tsan/test-logs/*.log || status=1
    return $status
  }
  suite tsan/io-threads tsan_suite
fi

if [ "$group" = all ] || [ "$group" = sanitize ]; then
  # Any report stops the process with a non-zero status; leaks are reported
  # at exit.
  export ASAN_OPTIONS=halt_on_error=1:detect_leaks=1:abort_on_error=0
  export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
  symbolizer=/usr/lib/llvm-14/bin/llvm-symbolizer
  [ -x "$symbolizer" ] && export ASAN_SYMBOLIZER_PATH=$symbolizer
  san=build-asan
  # The servers the integration and compat tests start log to
  # build-asan/test-logs: a server that a report stopped (or that reported
  # at exit) fails the suite even where the test itself did not notice.
  with_server_logs() {
    rm -rf "$san/test-logs"
    local status=0
    "$@" || status=1
    scripts/sanitizer-reports.sh "$san"/test-logs/*.log || status=1
    return $status
  }
  suite asan/unit "$san/unit-tests"
  # build/'s integration tests (clients in their own processes) against
  # the sanitized server (a tenth of the stream pipeline's entries: that
  # server is several times slower).
  suite asan/integration with_server_logs env LAWNKV_SERVER="$san/lawnkv-server" \
    LAWNKV_TEST_LOGS="$san/test-logs" LAWNKV_STREAM_ENTRIES=100000 build/integration-tests
  suite asan/compat with_server_logs "$san/compat-tests"
  suite asan/load scripts/sanitize-load.sh "$san/lawnkv-server"
  # TLS against the sanitizer server (handshakes that fail or stall,
  # garbage, 5 MB each way, certificate rotation; replicas over TLS): its
  # logs go to build/test-logs/tools-tls-*.log and tools-tls_replication-*.log.
  tls_suite() {
    rm -f build/test-logs/tools-tls-*.log build/test-logs/tools-tls_replication-*.log
    local status=0
    LAWNKV_SERVER="$san/lawnkv-server" bash tests/tools/tls.sh || status=1
    LAWNKV_SERVER="$san/lawnkv-server" bash tests/tools/tls_replication.sh || status=1
    scripts/sanitizer-reports.sh build/test-logs/tools-tls-*.log build/test-logs/tools-tls_replication-*.log || status=1
    return $status
  }
  suite asan/tls tls_suite
  for f in "$san"/fuzz/*_fuzz; do
    [ -x "$f" ] || continue
    h=$(basename "$f" _fuzz)
    mkdir -p "$san/fuzz-crashes"
    suite "fuzz/$h" "$f" -runs=0 -artifact_prefix="$san/fuzz-crashes/" "tests/fuzz/corpus/$h"
  done
fi

[ ${#failures[@]} -gt 0 ] && echo "failed suites: ${failures[*]}"
echo "tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
