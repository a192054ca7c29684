#!/usr/bin/env bash
# Prepares the Windows cross-build (x86_64-w64-mingw32): Debian's MinGW-w64 compilers (the
# POSIX-threads variant: std::thread and std::mutex need it), Wine to run the tests, MinGW zlib,
# then OpenSSL and simdjson cross-built from Debian's own source packages into
#   ${CALLWIRE_CACHE:-~/.cache/callwire}/mingw-w64/deps-openssl_<ver>-simdjson_<ver>/
# and a Wine prefix beside it (wine/). Prints that deps prefix as its last line on stdout (all
# else goes to stderr or to mingw-w64/setup.log), for cmake/mingw-w64.cmake's
# CALLWIRE_MINGW_PREFIX. Idempotent and quiet when all is there; a new source version is built
# into a new prefix. Time on 2 cores: cold (packages, sources, builds, Wine prefix) 2 to 3.5 min
# (measured 2m09s; 3m14s once on a busier machine); warm 0.25 s, with no network.
set -euo pipefail

RECIPE=1  # bump when the build steps below change, so that existing prefixes are rebuilt
repo=$(cd "$(dirname "$0")/.." && pwd)
cache=${CALLWIRE_CACHE:-$HOME/.cache/callwire}/mingw-w64
triple=x86_64-w64-mingw32
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive

mkdir -p "$cache"
log=$cache/setup.log
# Two runs at once (make -j) would build into the same directories: the second waits.
exec 9>"$cache/.lock"
flock 9
: >"$log"

# Runs a command with its output in the log; on failure shows the log's end and stops.
quiet() {
  if ! "$@" >>"$log" 2>&1; then
    echo "setup-windows: failed: $*" >&2
    tail -n 30 "$log" >&2
    exit 1
  fi
}

# Only the x86-64 compilers of the POSIX-threads variant: the mingw-w64 metapackage would add
# the i686 ones and the win32-threads variant (18 more packages). Debian 12's wine64 has no
# command of its own on PATH (only /usr/lib/wine/wine64); wine brings /usr/bin/wine.
packages=(
  g++-mingw-w64-x86-64-posix gcc-mingw-w64-x86-64-posix  # x86_64-w64-mingw32-g++-posix
  libz-mingw-w64-dev                                     # zlib for MinGW
  wine64 wine                                            # the tests run under Wine
  cmake ninja-build make perl                            # the builds below
  dpkg-dev                                               # apt-get source unpacks with dpkg-source
)
# shellcheck source=lib/install_packages.sh
source "$repo/scripts/lib/install_packages.sh"
INSTALL_LOG=$log install_packages setup-windows "${packages[@]}" || {
  echo "setup-windows: failed to install packages" >&2
  tail -n 30 "$log" >&2
  exit 1
}

# OpenSSL's Configure calls x86_64-w64-mingw32-gcc, which is an alternative: make it the POSIX
# one (it is the only one here, but a machine with the win32 variant may have chosen that).
for tool in gcc g++; do
  want=/usr/bin/$triple-$tool-posix
  if [ "$(update-alternatives --query "$triple-$tool" 2>/dev/null | sed -n 's/^Value: //p')" \
       != "$want" ]; then
    quiet $sudo update-alternatives --set "$triple-$tool" "$want"
  fi
done

# Debian's source packages need deb-src entries: if apt knows no source of openssl, add them in
# a file of our own, copied from the machine's own Debian entries (same mirror and suites).
if [ -z "$(apt-cache showsrc --only-source openssl 2>/dev/null)" ]; then
  echo "setup-windows: adding deb-src entries, then apt-get update" >&2
  src_sources=/etc/apt/sources.list.d/callwire-deb-src.sources
  src_list=/etc/apt/sources.list.d/callwire-deb-src.list
  # deb822 files (Debian 12's default debian.sources), then one-line entries.
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -e "$f" ] && [ "$f" != "$src_sources" ] && grep -q 'debian-archive-keyring' "$f" || continue
    sed 's/^Types:.*/Types: deb-src/' "$f"; echo
  done | $sudo tee "$src_sources" >/dev/null
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -e "$f" ] && [ "$f" != "$src_list" ] || continue
    sed -n 's/^deb \(.*debian.* bookworm.*\)/deb-src \1/p' "$f"
  done | sort -u | $sudo tee "$src_list" >/dev/null
  [ -s "$src_sources" ] || $sudo rm -f "$src_sources"
  [ -s "$src_list" ] || $sudo rm -f "$src_list"
  quiet $sudo apt-get update -qq
fi

# Which source versions to build. The newest one apt knows (bookworm, -updates or -security)
# whose files the mirror serves: a mirror may list a security update's source yet not serve its
# .dsc (seen: 404 for openssl 3.0.22-1~deb12u2). Decided again, by downloading into src/, only
# when apt's list of versions changes; otherwise read from sources.txt, with no network.
versions_newest_first() {
  apt-cache showsrc --only-source "$1" | sed -n 's/^Version: //p' |
    perl -MDpkg::Version -ne 'chomp; push @v, $_;
      END { print "$_\n" for sort { version_compare($b, $a) } @v }'
}
fetch_source() {  # prints the version fetched into $cache/src/<package>_<version>/
  local v dir
  for v in $(versions_newest_first "$1"); do
    dir=$cache/src/$1_$v
    rm -rf "$dir" && mkdir -p "$dir"
    if (cd "$dir" && apt-get source --download-only -qq "$1=$v" >>"$log" 2>&1); then
      echo "$v"
      return
    fi
    rm -rf "$dir"
    echo "setup-windows: the source of $1 $v could not be fetched; trying an older one" >&2
  done
  echo "setup-windows: no source of $1 could be fetched (see $log)" >&2
  exit 1
}
available="openssl $(versions_newest_first openssl | xargs) simdjson $(versions_newest_first simdjson | xargs)"
openssl_v="" simdjson_v=""
read -r openssl_v simdjson_v < <(sed -n 2p "$cache/sources.txt" 2>/dev/null) || true
if [ "$(sed -n 1p "$cache/sources.txt" 2>/dev/null)" != "$available" ] ||
   [ ! -d "$cache/src/openssl_$openssl_v" ] || [ ! -d "$cache/src/simdjson_$simdjson_v" ]; then
  rm -rf "$cache/src"
  openssl_v=$(fetch_source openssl)
  simdjson_v=$(fetch_source simdjson)
  printf '%s\n%s %s\n' "$available" "$openssl_v" "$simdjson_v" >"$cache/sources.txt"
fi

prefix=$cache/deps-openssl_${openssl_v//:/_}-simdjson_${simdjson_v//:/_}
stamp=$prefix/.done
if [ "$(cat "$stamp" 2>/dev/null)" != "recipe $RECIPE" ]; then
  echo "setup-windows: building OpenSSL $openssl_v and simdjson $simdjson_v for $triple" \
       "(about 2 minutes; log: $log)" >&2
  work=$cache/work
  rm -rf "$work" "$prefix"
  mkdir -p "$work"
  # dpkg-source checks the files against the .dsc and applies Debian's patches.
  for p in "openssl_$openssl_v" "simdjson_$simdjson_v"; do
    quiet dpkg-source -x "$cache/src/$p/${p/_*:/_}.dsc" "$work/${p%%_*}"
  done

  # OpenSSL: static libraries only (the .exe files need no DLL of it), without its tests;
  # --libdir=lib because the mingw64 target would say lib64. build_sw and install_sw skip the
  # manual pages.
  (cd "$work/openssl" &&
   quiet ./Configure mingw64 --cross-compile-prefix=$triple- no-shared no-tests \
     --prefix="$prefix" --libdir=lib &&
   quiet make -j"$(nproc)" build_sw &&
   quiet make install_sw)

  # simdjson: the library only, static, with this repository's toolchain file.
  quiet cmake -S "$work/simdjson" -B "$work/simdjson-build" -G Ninja \
    -DCMAKE_TOOLCHAIN_FILE="$repo/cmake/mingw-w64.cmake" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_INSTALL_PREFIX="$prefix" -DSIMDJSON_DEVELOPER_MODE=OFF -DBUILD_SHARED_LIBS=OFF
  quiet cmake --build "$work/simdjson-build" -j "$(nproc)"
  quiet cmake --install "$work/simdjson-build"

  rm -rf "$work"
  echo "recipe $RECIPE" >"$stamp"  # last: a build that stopped half-way is redone
fi

# A Wine prefix made once, headless: no Mono or Gecko (their installers would ask in a window),
# no debug chatter. Wine makes a prefix on first use anyway, but that takes ~10 s inside a test.
wineprefix=$cache/wine
if [ ! -e "$wineprefix/.done" ]; then
  echo "setup-windows: making the Wine prefix $wineprefix" >&2
  export WINEPREFIX=$wineprefix WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
  quiet /usr/lib/wine/wine64 wineboot --init
  quiet /usr/lib/wine/wineserver64 -w  # wait until the prefix is written
  touch "$wineprefix/.done"
fi

echo "$prefix"
