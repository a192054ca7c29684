#!/usr/bin/env bash
# `make demo` on a fresh Debian 12 machine: in the clean root of scripts/make_debroot.sh (a
# minimal Debian with g++, cmake and make), from a copy of the tree, it must install what it
# needs with apt, build, and pass; then this says how many packages it installed, and checks
# that none of the test lab came with them. The root is put back as it was (what the demo
# installed purged, the copy removed), whatever happens.
#   tests/install/demo_in_clean_root.sh REPO ROOT
set -euo pipefail

[ $# -eq 2 ] || { echo "usage: $0 REPO ROOT" >&2; exit 2; }
repo=$1 root=${CALLWIRE_DEBROOT:-$2}
fail() { echo "demo in a clean root: FAIL: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || fail "chroot needs root"
[ -f "$root/.callwire-debroot" ] || fail "no clean root at $root: run scripts/make_debroot.sh"

in_root() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }
installed() { in_root dpkg-query -W -f '${db:Status-Abbrev} ${Package}\n' | awk '$1 == "ii" {print $2}' | sort; }

before=$(mktemp)
after=$(mktemp)
log=$(mktemp)
restore() {
  comm -13 "$before" <(installed) >"$after" || true
  if [ -s "$after" ]; then
    # shellcheck disable=SC2046
    in_root apt-get purge -y -qq --autoremove $(cat "$after") >/dev/null 2>&1 || true
  fi
  rm -rf "$root/tmp/callwire-demo"
  rm -f "$before" "$after" "$log"
}
installed >"$before"
trap restore EXIT

# The tracked files as they are now (a clean clone in CI).
mkdir -p "$root/tmp/callwire-demo"
git -C "$repo" ls-files -z | tar -C "$repo" --null -T - -cf - | tar -C "$root/tmp/callwire-demo" -xf -

# Built unoptimized: that shortens the longest part of this test (the build) and changes
# nothing it checks (what setup installs, that the tree builds and the demo passes).
echo "== make demo in $root (apt installs what it needs)"
if ! in_root make -C /tmp/callwire-demo demo CMAKE_FLAGS=-DCMAKE_BUILD_TYPE=Debug >"$log" 2>&1; then
  tail -n 40 "$log" >&2
  fail "make demo"
fi
grep -q "== demo OK" "$log" || { tail -n 20 "$log" >&2; fail "the demo did not say it passed"; }

comm -13 "$before" <(installed) >"$after"
count=$(wc -l <"$after")
echo "make demo installed $count packages: $(tr '\n' ' ' <"$after")"
# None of the test lab: its peers, servers and toolchains belong to `make test` alone.
for lab in npm nodejs golang-go haproxy prometheus lintian debootstrap nginx-light lighttpd \
           libgtest-dev clang libxmlrpc-core-c3-dev tinyproxy; do
  grep -qx "$lab" "$after" && fail "make demo installed $lab, which only the tests need"
done
echo "demo in a clean root: OK"
