#!/usr/bin/env bash
# Runs every libFuzzer driver found in DIR for SECONDS seconds each, on a copy of its seed
# corpus (tests/fuzz/corpus is never modified), with its dictionary:
#   seeds: tests/fuzz/corpus/<driver>/ when it exists, else the XML-RPC documents at the top
#          of tests/fuzz/corpus (files only, not the other drivers' folders);
#   dict:  tests/fuzz/<driver>.dict when it exists, else tests/fuzz/xmlrpc.dict.
#
#   tests/fuzz/run.sh build/fuzz/tests/fuzz 60                      # every driver
#   tests/fuzz/run.sh build/fuzz/tests/fuzz 60 http_response_fuzz   # only those named
#   tests/fuzz/run.sh --merge build/fuzz/tests/fuzz 600             # make fuzz-long
#
# With --merge, what a run found that adds coverage is merged (libFuzzer's -merge=1, which
# keeps the smallest inputs that reach the same coverage) into tests/fuzz/corpus/<driver>/,
# created for a driver that had none, so long runs grow the seeds the short CI runs start
# from. Each driver's figures (seconds, executions, corpus before and after) are printed.
#
# The drivers run FUZZ_JOBS at a time (default: the number of cores).
#
# Fails when a driver fails, printing the input that made it fail. Crash inputs are kept in
# DIR/artifacts/<driver>/; each one belongs in tests/corpus once the bug is fixed.
set -uo pipefail

merge=0
if [ "${1:-}" = "--merge" ]; then
  merge=1
  shift
fi
if [ $# -lt 2 ]; then
  echo "usage: $0 [--merge] DIR SECONDS [DRIVER...]" >&2
  exit 2
fi
dir=$1
seconds=$2
shift 2
only=" $* "
here=$(cd "$(dirname "$0")" && pwd)
corpus_root="$here/corpus"
xml_dict="$here/xmlrpc.dict"

fuzzers=()
for f in "$dir"/*_fuzz; do
  [ -f "$f" ] && [ -x "$f" ] || continue
  if [ "$only" != "  " ] && [[ "$only" != *" $(basename "$f") "* ]]; then
    continue
  fi
  fuzzers+=("$f")
done
if [ ${#fuzzers[@]} -eq 0 ]; then
  echo "run.sh: no *_fuzz binary in $dir" >&2
  exit 1
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/callwire-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT

# UBSan recovers by default; make it stop on the first report so libFuzzer sees a crash.
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
export ASAN_OPTIONS="detect_leaks=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"

# One driver: its report goes to $work/<driver>.report, its exit status to .status.
run_one() {
  local fuzzer=$1 name corpus artifacts dict log status before
  name=$(basename "$fuzzer")
  corpus="$work/$name"
  artifacts="$(cd "$dir" && pwd)/artifacts/$name"
  mkdir -p "$corpus" "$artifacts"
  if [ -d "$corpus_root/$name" ]; then
    cp -R "$corpus_root/$name"/. "$corpus"/
  elif [ -d "$corpus_root" ]; then
    find "$corpus_root" -maxdepth 1 -type f -exec cp {} "$corpus"/ \;
  fi
  dict="$xml_dict"
  if [ -f "$here/$name.dict" ]; then
    dict="$here/$name.dict"
  fi
  log="$work/$name.log"
  echo "== $name: ${seconds}s, $(ls "$corpus" | wc -l) seeds, $(basename "$dict")"
  "$fuzzer" -max_total_time="$seconds" -dict="$dict" -timeout=5 -rss_limit_mb=2048 \
    -max_len=16384 -print_final_stats=1 -artifact_prefix="$artifacts/" "$corpus" >"$log" 2>&1
  status=$?
  grep -E '^(#[0-9]+.*DONE|stat::number_of_executed_units|stat::peak_rss_mb)' "$log" || true
  if [ $merge -eq 1 ] && [ $status -eq 0 ]; then
    before=$(find "$corpus_root/$name" -type f 2>/dev/null | wc -l)
    mkdir -p "$corpus_root/$name"
    # A driver that started from the shared XML seeds keeps them: they are in $corpus too.
    "$fuzzer" -merge=1 -timeout=5 -rss_limit_mb=2048 -max_len=16384 \
      "$corpus_root/$name" "$corpus" >"$work/$name.merge.log" 2>&1 || {
      echo "== $name: merge failed"
      tail -n 20 "$work/$name.merge.log"
      status=1
    }
    echo "== $name: corpus/$name/ $before -> $(find "$corpus_root/$name" -type f | wc -l) inputs"
  fi
  if [ $status -ne 0 ]; then
    echo "== $name FAILED (exit $status)"
    # The failure report, then the input that caused it.
    grep -v -E '^#[0-9]+' "$log" | tail -n 60
    for input in $(grep -o -E "Test unit written to [^ ]+" "$log" | sed 's/Test unit written to //'); do
      echo "== crash input: $input"
      echo "   reproduce:   $fuzzer $input"
    done
    cp "$log" "$artifacts/"
  fi
  echo "$status" >"$work/$name.status"
}

# Each driver is single-threaded, so FUZZ_JOBS (the cores by default) run at once;
# their reports are printed in order once all are done.
jobs_at_once=${FUZZ_JOBS:-$(nproc)}
running=0
for fuzzer in "${fuzzers[@]}"; do
  if [ "$running" -ge "$jobs_at_once" ]; then
    wait -n
    running=$((running - 1))
  fi
  run_one "$fuzzer" >"$work/$(basename "$fuzzer").report" 2>&1 &
  running=$((running + 1))
done
wait

failed=0
for fuzzer in "${fuzzers[@]}"; do
  name=$(basename "$fuzzer")
  cat "$work/$name.report"
  [ "$(cat "$work/$name.status" 2>/dev/null)" = 0 ] || failed=1
done
exit $failed
