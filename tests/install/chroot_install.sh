#!/usr/bin/env bash
# Installs callwire's Debian packages for real in a clean Debian 12 root (scripts/make_debroot.sh):
# `apt-get install ./*.deb` inside it, which must pull the packages' dependencies from their
# Depends alone (the root has none of them), run their triggers (ldconfig), and leave a system
# where the consumers of tests/install build with no path given (CMake's find_package and
# pkg-config, C++ and C, shared and static) and run. Then purges them, which must leave none of
# their files behind. Called by tests/install/run.sh BUILD deb with the packages it checked.
#   tests/install/chroot_install.sh DEB_DIR ROOT VERSION SOVERSION
set -euo pipefail

[ $# -eq 4 ] || { echo "usage: $0 DEB_DIR ROOT VERSION SOVERSION" >&2; exit 2; }
debs=$1 root=$2 version=$3 soversion=$4
here=$(cd "$(dirname "$0")" && pwd)
fail() { echo "chroot install test: FAIL: $*" >&2; exit 1; }
step() { echo "== $*"; }
[ "$(id -u)" = 0 ] || fail "chroot needs root"
[ -f "$root/.callwire-debroot" ] || fail "no clean root at $root: run scripts/setup.sh"

in_root() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }
# Runs a command in the root quietly, shows its output only when it fails.
quiet_in_root() {
  local log
  log=$(mktemp)
  if ! in_root "$@" >"$log" 2>&1; then
    cat "$log" >&2
    rm -f "$log"
    fail "$*"
  fi
  rm -f "$log"
}
packages=(libcallwire$soversion libcallwire-dev)
[ -n "$(find "$debs" -maxdepth 1 -name 'callwire_*.deb')" ] && packages+=(callwire)
# Back to the clean root whatever happened: our packages and what they pulled in purged.
purge() {
  in_root apt-get purge -y -qq --autoremove "${packages[@]}" >/dev/null 2>&1 || true
  rm -rf "$root/tmp/callwire-debs" "$root/tmp/callwire-consumer"
}
trap purge EXIT
purge

step "apt-get install the packages in $root"
mkdir -p "$root/tmp/callwire-debs"
cp "$debs"/*.deb "$root/tmp/callwire-debs/"
# (The dependencies come from the root's apt cache, filled by make_debroot.sh. Not
# --no-download: apt 2.6 then refuses local .deb paths, "Pathname to install is not absolute".)
quiet_in_root sh -c 'apt-get install -y -qq --no-install-recommends /tmp/callwire-debs/*.deb'
for p in "${packages[@]}"; do
  [ "$(in_root dpkg-query -W -f '${Status} ${Version}' "$p")" = "install ok installed $version" ] \
    || fail "$p is not installed at $version"
done
# Captured first: `cmd | grep -q` fails under pipefail when grep stops reading early (the
# writer then dies of SIGPIPE).
grep -q "libcallwire.so.$soversion " <<<"$(in_root ldconfig -p)" \
  || fail "ldconfig does not know libcallwire.so.$soversion"
if [[ " ${packages[*]} " == *" callwire "* ]]; then
  [ "$(in_root callwire --version)" = "callwire $version" ] || fail "callwire --version"
  [ -f "$root/usr/share/man/man1/callwire.1.gz" ] || fail "no callwire.1.gz"
fi

step "consumers built against the system's callwire alone"
mkdir -p "$root/tmp/callwire-consumer"
cp -r "$here/cmake" "$here/pkgconfig" "$here/sample_add.cpp" "$here/sample_add.c" \
  "$root/tmp/callwire-consumer/"
for linkage in shared static; do
  target=callwire::callwire static=0
  [ $linkage = static ] && target=callwire::callwire_static static=1
  dir=/tmp/callwire-consumer/cmake-$linkage
  quiet_in_root cmake -S /tmp/callwire-consumer/cmake -B "$dir" -DCMAKE_BUILD_TYPE=Release \
    -DCALLWIRE_TARGET=$target
  quiet_in_root cmake --build "$dir"
  quiet_in_root "$dir/sample_add"
  quiet_in_root "$dir/sample_add_c"
  dir=/tmp/callwire-consumer/pkgconfig-$linkage
  mkdir -p "$root$dir"
  quiet_in_root make -C "$dir" -f /tmp/callwire-consumer/pkgconfig/Makefile STATIC=$static
  quiet_in_root "$dir/sample_add"
  quiet_in_root "$dir/sample_add_c"
  # The shared builds must load the installed library, found by the loader's own paths (/lib
  # is /usr/lib on Debian 12).
  if [ $linkage = shared ]; then
    grep -Eq "libcallwire.so.$soversion => (/usr)?/lib/" <<<"$(in_root ldd "$dir/sample_add")" \
      || fail "$dir/sample_add does not load the system's libcallwire.so.$soversion"
  fi
done

step "apt-get purge leaves nothing of the packages"
files=()
for deb in "$debs"/*.deb; do
  while IFS= read -r f; do files+=("$f"); done < <(dpkg-deb -c "$deb" | awk '$1 !~ /^d/ {print $6}' | sed 's|^\./|/|')
done
quiet_in_root apt-get purge -y -qq --autoremove "${packages[@]}"
for f in "${files[@]}"; do
  [ -e "$root$f" ] || [ -L "$root$f" ] && fail "$f is still there after the purge"
done
for p in "${packages[@]}" libssl-dev libsimdjson-dev; do
  in_root dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -q "ok installed" \
    && fail "$p is still installed after the purge"
done
echo "chroot install test passed: ${#packages[@]} packages, ${#files[@]} files"
