#!/usr/bin/env bash
# make windows' test emulator: runs a Windows program under Wine (wine64 and its arguments
# follow). Once, in CI under load, Wine failed to start a test at all: no byte written and over
# in under 5 ms, long before any Windows program could have run; later, under more load, such a
# launch took 30 ms. Every test here writes as it runs (GoogleTest's filter note first, the C
# tests' line per check), so a failed run that ends within a second having written nothing is
# taken for such a launch failure and tried once more, saying so; a test that ran, whatever it
# did, is not. Nothing of the program's own, that is: twice, in 30 ms, a test's process lost
# its connection to the wineserver and Wine wrote only "wine client error:0: recvmsg:
# Connection reset by peer".
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for attempt in 1 2; do
  start=$(date +%s%N)
  "$@" >"$out" 2>&1
  status=$?
  elapsed_ms=$((($(date +%s%N) - start) / 1000000))
  program_wrote=$(grep -v -e '^wine client error' -e '^[[:space:]]*$' "$out" | head -c 1)
  if [ "$status" -eq 0 ] || [ -n "$program_wrote" ] || [ "$elapsed_ms" -ge 1000 ] ||
    [ "$attempt" -eq 2 ]; then
    cat "$out"
    exit "$status"
  fi
  echo "wine-test.sh: Wine did not run the program (status $status in $elapsed_ms ms$([ -s "$out" ] &&
    echo ", only: $(head -c 200 "$out")")); again" >&2
done
