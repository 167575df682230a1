#!/usr/bin/env bash
# Runs each libFuzzer harness of build-asan/fuzz/ (make sanitize-build) for
# FUZZ_SECONDS (default 60), one after the other.
#   FUZZ_SECONDS=3600    how long each harness runs
#   FUZZ_JOBS=2          parallel fuzzing processes per harness (libFuzzer -fork)
#   FUZZ_ONLY=command    only the harnesses whose name contains this
# Each starts from its committed corpus, tests/fuzz/corpus/<harness>/ (read
# only), and from what earlier runs found, build-asan/fuzz-corpus/<harness>/
# (not committed), where the new inputs go. A crash, a sanitizer report or a
# broken invariant stops that harness and leaves the input in
# build-asan/fuzz-crashes/<harness>-crash-<sha1> (or -leak-, -timeout-,
# -oom-); the log of each run is build-asan/fuzz-logs/<harness>.log.
# Exits 1 if any harness failed.
set -uo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-60}
jobs=${FUZZ_JOBS:-1}
only=${FUZZ_ONLY:-}
san=build-asan
export ASAN_OPTIONS=halt_on_error=1:detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
symbolizer=/usr/lib/llvm-14/bin/llvm-symbolizer
[ -x "$symbolizer" ] && export ASAN_SYMBOLIZER_PATH=$symbolizer
mkdir -p "$san/fuzz-crashes" "$san/fuzz-logs"

failed=()
for f in "$san"/fuzz/*_fuzz; do
  [ -x "$f" ] || continue
  h=$(basename "$f" _fuzz)
  [ -n "$only" ] && [[ $h != *"$only"* ]] && continue
  mkdir -p "$san/fuzz-corpus/$h"
  log=$san/fuzz-logs/$h.log
  extra=()
  [ "$jobs" -gt 1 ] && extra=(-fork="$jobs" -ignore_crashes=0)
  echo "=== fuzz $h for $seconds s ($jobs job(s)), log $log"
  "$f" -max_total_time="$seconds" -print_final_stats=1 -timeout=10 -rss_limit_mb=4096 \
    -artifact_prefix="$san/fuzz-crashes/$h-" "${extra[@]}" \
    "$san/fuzz-corpus/$h" "tests/fuzz/corpus/$h" >"$log" 2>&1
  status=$?
  grep -E '^stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb)' "$log" | sed 's/^/  /'
  grep -E '#[0-9]+ *(DONE|INITED)' "$log" | tail -n 1 | sed 's/^/  /'
  if [ "$status" -ne 0 ]; then
    failed+=("$h")
    echo "  FAILED (status $status): the report:"
    grep -m1 -A30 -E 'ERROR: |runtime error:|_fuzz: |deadly signal' "$log" | sed 's/^/    /'
    ls -1 "$san/fuzz-crashes/$h-"* 2>/dev/null | sed 's/^/  input: /'
  fi
done
[ ${#failed[@]} -gt 0 ] && { echo "fuzz: failed: ${failed[*]}"; exit 1; }
echo "fuzz: no failure"
