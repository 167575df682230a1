#!/usr/bin/env bash
# Runs every test suite of `make test` and closes with one line
# "tests: N passed, M failed" counting suites. Run from the repository root
# after the binaries are built.
set -u
cd "$(dirname "$0")/.."

passed=0
failed=0
failures=()
suite() {
  local name=$1; shift
  echo "=== $name"
  if "$@"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    failures+=("$name")
  fi
}

suite unit build/unit-tests
suite integration build/integration-tests
suite compat build/compat-tests
for t in tests/tools/*.sh; do
  [ -e "$t" ] && suite "tools/$(basename "$t" .sh)" bash "$t"
done

[ ${#failures[@]} -gt 0 ] && echo "failed suites: ${failures[*]}"
echo "tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
