#!/usr/bin/env bash
# scripts/sanitizer-reports.sh LOG...: prints every AddressSanitizer,
# LeakSanitizer, UndefinedBehaviorSanitizer or ThreadSanitizer report found
# in the given server logs, with the lines after it, and exits 1 if there
# was one.
set -u
found=0
for f in "$@"; do
  [ -f "$f" ] || continue
  if grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer)|WARNING: ThreadSanitizer|runtime error:|SUMMARY: (Address|Leak|UndefinedBehavior|Thread)Sanitizer' "$f"; then
    found=1
    echo "sanitizer report in $f:"
    grep -m1 -n -A40 -E 'ERROR: (AddressSanitizer|LeakSanitizer)|WARNING: ThreadSanitizer|runtime error:' "$f"
  fi
done
exit $found
