#!/usr/bin/env bash
# The house style, checked by the machine: every C and C++ file in the repository (but the
# guides' programs, below) is as clang-format-14 writes it under .clang-format (Google style,
# 100 columns). Prints each file that is not and the command that fixes them all.
set -euo pipefail
root=${1:?usage: check_format.sh SOURCE_DIR}
cd "$root"
format=$(command -v clang-format-14 || true)
[ -n "$format" ] || { echo "clang-format-14 is missing (scripts/setup.sh installs it)"; exit 1; }
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files '*.c' '*.h' '*.cpp' '*.hpp')
else
  mapfile -t files < <(find include src tools tests examples bench -name '*.[ch]' -o -name '*.[ch]pp')
fi
# The guides' programs (docs/tutorial/, docs/migrating/) are laid out for reading: the guides
# quote them line for line (tests/docs/check_snippets.py), so they keep their hand layout.
mapfile -t files < <(printf '%s\n' "${files[@]}" | grep -v '^docs/')
bad=()
for f in "${files[@]}"; do
  "$format" --dry-run --Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
if [ "${#bad[@]}" -ne 0 ]; then
  printf 'not formatted: %s\n' "${bad[@]}"
  echo "fix: clang-format-14 -i ${bad[*]}"
  exit 1
fi
echo "${#files[@]} files formatted as .clang-format says"
