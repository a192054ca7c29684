#!/usr/bin/env bash
# A program built below C++20 gets one error, naming C++20 and the flag, and no cascade after
# it (include/callwire/export.hpp). With each compiler given (g++, clang++ where installed).
#   tests/install/check_cxx_standard.sh INCLUDE_DIR COMPILER...
set -euo pipefail
include=$1
shift
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '#include <callwire/client.hpp>\n#include <callwire/server.hpp>\nint main() {}\n' \
  >"$work/old.cpp"
failed=0
for cxx in "$@"; do
  command -v "$cxx" >/dev/null || { echo "$cxx: not installed, skipped"; continue; }
  for std in c++14 c++17; do
    if "$cxx" -std=$std -fsyntax-only -I"$include" "$work/old.cpp" 2>"$work/out"; then
      echo "FAIL: $cxx -std=$std compiled a callwire program"
      failed=1
      continue
    fi
    errors=$(grep -c "error:" "$work/out" || true)
    if [[ $errors -ne 1 ]] || ! grep -q "needs C++20: compile with -std=c++20" "$work/out"; then
      echo "FAIL: $cxx -std=$std printed $errors errors, not the one naming C++20:"
      head -20 "$work/out"
      failed=1
    else
      echo "$cxx -std=$std: one error: $(grep "error:" "$work/out" | head -1)"
    fi
  done
done
exit $failed
