#!/usr/bin/env bash
# Installs a built callwire into a temporary prefix and builds and runs two out-of-tree consumers
# against that copy: tests/install/cmake (find_package) and tests/install/pkgconfig (pkg-config),
# each against the shared and the static library. Also checks the installed tree, the shared
# library's SONAME and that it exports only callwire's API, and the command and its man page.
#   tests/install/run.sh BUILD_DIR        (ctest: install.consumers) `cmake --install --prefix`
#   tests/install/run.sh BUILD_DIR deb    (ctest: install.deb) the Debian packages of
#       `make deb` (cpack -G DEB), their fields and contents checked, then unpacked into an
#       empty root as dpkg would install them: the same checks run on that tree; last, they are
#       installed for real with apt in a clean Debian root and used there (chroot_install.sh;
#       the root is scripts/setup.sh's build/debroot, or CALLWIRE_DEBROOT).
# Each consumer is built twice: the C++ program and its C99 twin (sample_add.c).
# CXX and CC pick the consumers' compilers (default c++, cc). Fails with a message on the first error.
set -euo pipefail

[ $# -eq 1 ] || [ $# -eq 2 ] && [ "${2:-deb}" = deb ] \
  || { echo "usage: $0 BUILD_DIR [deb]" >&2; exit 2; }
build_dir=$(cd "$1" && pwd)
mode=${2:-install}
here=$(cd "$(dirname "$0")" && pwd)
export CXX=${CXX:-c++} CC=${CC:-cc}

work=$(mktemp -d "${TMPDIR:-/tmp}/callwire-install.XXXXXX")
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
fail() { echo "install test: FAIL: $*" >&2; exit 1; }
step() { echo "== $*"; }
# Runs a command quietly, shows its output only when it fails.
quiet() {
  local log=$work/log
  if ! "$@" >"$log" 2>&1; then
    cat "$log" >&2
    fail "$*"
  fi
}

# The version is the header's (CMakeLists.txt reads it from there); so is the SONAME: before
# 1.0 it carries the minor version too, since a minor version may change the ABI.
version_part() { sed -n "s/^#define CALLWIRE_VERSION_$1 \([0-9]*\)$/\1/p" "$here/../../include/callwire/version.h"; }
major=$(version_part MAJOR) minor=$(version_part MINOR) patch=$(version_part PATCH)
version=$major.$minor.$patch
soversion=$major
[ "$major" = 0 ] && soversion=$major.$minor
[ -n "$major" ] && [ -n "$minor" ] && [ -n "$patch" ] || fail "no version in include/callwire/version.h"

if [ "$mode" = deb ]; then
  bash "$here/check_debs.sh" "$build_dir" "$work/debs" "$version" "$soversion"
  step "the packages unpacked into $work/root"
  for deb in "$work"/debs/*.deb; do dpkg-deb -x "$deb" "$work/root"; done
  prefix=$work/root/usr
else
  step "cmake --install $build_dir --prefix $prefix"
  quiet cmake --install "$build_dir" --prefix "$prefix"
fi

# The libraries may land in lib/ or lib/<multiarch>/ (GNUInstallDirs): find the config file.
config=$(find "$prefix" -path '*/cmake/callwire/callwireConfig.cmake' | head -n 1)
[ -n "$config" ] || fail "no callwireConfig.cmake under $prefix"
libdir=$(dirname "$(dirname "$(dirname "$config")")")

step "installed files in $libdir and $prefix/include"
for f in "$libdir/libcallwire.so.$version" "$libdir/libcallwire.so.$soversion" "$libdir/libcallwire.so" \
         "$libdir/libcallwire.a" "$libdir/cmake/callwire/callwireConfigVersion.cmake" \
         "$libdir/cmake/callwire/callwireTargets.cmake" \
         "$libdir/cmake/callwire/callwireStaticTargets.cmake" "$libdir/pkgconfig/callwire.pc" \
         "$prefix/include/callwire/server.hpp" "$prefix/include/callwire/client.hpp" \
         "$prefix/include/callwire.h" "$prefix/include/callwire/version.h"; do
  [ -e "$f" ] || fail "missing $f"
done
[ "$(readlink "$libdir/libcallwire.so.$soversion")" = "libcallwire.so.$version" ] \
  || fail "libcallwire.so.$soversion does not point at libcallwire.so.$version"
# Only the public headers: every installed header must come from include/ (none from src/).
while IFS= read -r h; do
  rel=${h#"$prefix/include/"}
  [ -f "$here/../../include/$rel" ] || fail "installed header $rel is not a public header"
done < <(find "$prefix/include" -type f)
# And every public header is installed: callwire.h includes the C API's callwire/c/*.h.
while IFS= read -r rel; do
  [ -f "$prefix/include/$rel" ] || fail "public header $rel is not installed"
done < <(cd "$here/../../include" && find . -type f -name '*.h*' | sed 's|^\./||')

step "SONAME and exported symbols of libcallwire.so"
soname=$(readelf -d "$libdir/libcallwire.so.$version" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
[ "$soname" = "libcallwire.so.$soversion" ] \
  || fail "SONAME is '$soname', expected libcallwire.so.$soversion"
nm -D --defined-only "$libdir/libcallwire.so.$version" | awk '{print $3}' | c++filt >"$work/symbols"
[ -s "$work/symbols" ] || fail "libcallwire.so exports nothing"
# Allowed: callwire's API (C++ callwire::..., C cw_... and callwire_version) and the vague-linkage instantiations of
# the standard library's templates that the compiler emits with default visibility. Not allowed:
# anything else (zlib, OpenSSL, simdjson...), callwire's internal namespaces, pimpl classes.
strip_kind='s/^(typeinfo name for |typeinfo for |vtable for |VTT for |guard variable for )//'
# (c++filt shows a function template instance with its return type first: "void std::...".)
stray=$(sed -E "$strip_kind" "$work/symbols" |
        grep -Ev '^([A-Za-z_][A-Za-z0-9_]*( ?[*&])* )?(callwire::|cw_|callwire_|std::|__gnu_cxx::)' || true)
internal=$(grep -E 'callwire::(detail|http|net|xml::detail)::|Impl\b' "$work/symbols" || true)
if [ -n "$stray" ] || [ -n "$internal" ]; then
  printf '%s\n' "$stray" "$internal" | sed '/^$/d' | head -n 40 >&2
  fail "libcallwire.so exports symbols outside callwire's API (above)"
fi
echo "$(wc -l <"$work/symbols") exported symbols, all callwire's API or std template instances"

# The command and its man page, when the build made them (CALLWIRE_TOOLS).
if [ -x "$build_dir/tools/callwire" ]; then
  step "the callwire command and callwire(1)"
  [ -x "$prefix/bin/callwire" ] || fail "no $prefix/bin/callwire"
  [ "$("$prefix/bin/callwire" --version)" = "callwire $version" ] \
    || fail "callwire --version says '$("$prefix/bin/callwire" --version)', not callwire $version"
  page=$prefix/share/man/man1/callwire.1
  if [ "$mode" = deb ]; then  # compressed in the package, as Debian's policy asks
    [ -f "$page.gz" ] || fail "no $page.gz"
    gzip -dc "$page.gz" >"$work/callwire.1"
    page=$work/callwire.1
  fi
  [ -f "$page" ] || fail "no $page"
  # groff's warnings (-ww) are errors here: a page that renders with complaints is broken.
  warnings=$(groff -man -Tutf8 -ww -z "$page" 2>&1)
  [ -z "$warnings" ] || { echo "$warnings" >&2; fail "groff warns about callwire.1"; }
  # Every subcommand and every option of every subcommand is on the page.
  rendered=$(groff -man -Tascii -P-cbou "$page" 2>/dev/null)
  for sub in decode encode serve call list; do
    grep -q "^   $sub\$" <<<"$rendered" || fail "callwire.1 has no section for $sub"
    for option in $("$prefix/bin/callwire" $sub --help | grep -oE -- '--[a-z][a-z-]*' | sort -u); do
      grep -qF -- "$option" <<<"$rendered" || fail "callwire.1 does not mention $sub $option"
    done
  done
fi

# Checks that a consumer program links (or does not link) libcallwire.so, then runs it.
run_consumer() {
  local exe=$1 linkage=$2 dynamic loaded
  # (Captured first: `cmd | grep -q` fails under pipefail when grep stops reading early.)
  dynamic=$(readelf -d "$exe")
  if grep -q 'NEEDED.*libcallwire\.so' <<<"$dynamic"; then
    [ "$linkage" = shared ] || fail "$exe needs libcallwire.so, expected the static library"
    # It must run against the installed copy, not one from the build tree or the system.
    loaded=$(ldd "$exe")
    grep -q "libcallwire.so.$soversion => $libdir/libcallwire.so.$soversion " <<<"$loaded" \
      || { echo "$loaded" >&2; fail "$exe does not load libcallwire.so.$soversion from $libdir"; }
  else
    [ "$linkage" = static ] || fail "$exe does not need libcallwire.so.$soversion"
  fi
  "$exe" || fail "$exe exited with $?"
}

for linkage in shared static; do
  target=callwire::callwire
  [ $linkage = static ] && target=callwire::callwire_static
  step "find_package consumer against $target"
  dir=$work/cmake-$linkage
  quiet cmake -S "$here/cmake" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_COMPILER="$CXX" -DCMAKE_PREFIX_PATH="$prefix" -DCALLWIRE_TARGET=$target \
    -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
  found=$(sed -n 's/^callwire_DIR:PATH=//p' "$dir/CMakeCache.txt")
  [ "$found" = "$libdir/cmake/callwire" ] || fail "find_package found callwire in '$found'"
  quiet cmake --build "$dir"
  run_consumer "$dir/sample_add" $linkage
  run_consumer "$dir/sample_add_c" $linkage

  step "pkg-config consumer against the $linkage library"
  dir=$work/pkgconfig-$linkage
  mkdir -p "$dir"
  static=0
  [ $linkage = static ] && static=1
  quiet make -C "$dir" -f "$here/pkgconfig/Makefile" STATIC=$static \
    PKG_CONFIG_PATH="$libdir/pkgconfig" CXX="$CXX" CC="$CC"
  # pkg-config adds no run path: the shared one finds the library through LD_LIBRARY_PATH.
  LD_LIBRARY_PATH="$libdir" run_consumer "$dir/sample_add" $linkage
  LD_LIBRARY_PATH="$libdir" run_consumer "$dir/sample_add_c" $linkage
done
# A machine with the shared library but without zlib's, OpenSSL's and simdjson's development files
# (their find_package disabled stands in for their absence): the shared target still works, and
# asking for the static one fails with a message that says why.
step "find_package consumer without zlib, OpenSSL and simdjson development files"
dir=$work/cmake-no-deps
no_deps=(-DCMAKE_DISABLE_FIND_PACKAGE_ZLIB=ON -DCMAKE_DISABLE_FIND_PACKAGE_OpenSSL=ON
         -DCMAKE_DISABLE_FIND_PACKAGE_simdjson=ON)
quiet cmake -S "$here/cmake" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_COMPILER="$CXX" -DCMAKE_PREFIX_PATH="$prefix" -DCALLWIRE_TARGET=callwire::callwire \
  -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF "${no_deps[@]}"
quiet cmake --build "$dir"
run_consumer "$dir/sample_add" shared
if cmake -S "$here/cmake" -B "$work/cmake-no-deps-static" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" \
     -DCMAKE_CXX_COMPILER="$CXX" -DCALLWIRE_TARGET=callwire::callwire_static \
     -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF "${no_deps[@]}" >"$work/no-deps-static.log" 2>&1; then
  fail "the static component was found without zlib, OpenSSL and simdjson"
fi
grep -q "needs zlib, OpenSSL 3 and simdjson" "$work/no-deps-static.log" \
  || { cat "$work/no-deps-static.log" >&2; fail "no reason given for the missing static target"; }

if [ "$mode" = deb ]; then
  bash "$here/chroot_install.sh" "$work/debs" \
    "${CALLWIRE_DEBROOT:-$here/../../build/debroot}" "$version" "$soversion"
fi

step "install test passed"
