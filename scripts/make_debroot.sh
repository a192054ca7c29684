#!/usr/bin/env bash
# Makes the clean Debian 12 root in which tests/install/chroot_install.sh installs callwire's
# Debian packages for real: debootstrap's minimal base, the tools a consumer builds with
# (g++, cmake, make, pkg-config) and nothing of callwire's dependencies, so that the packages'
# Depends must bring them. Those are downloaded now, into the root's apt cache, so the test
# installs with apt and without the network. Called by scripts/setup.sh; does nothing when the
# root is there already. Needs root (debootstrap, chroot) and the network.
#   scripts/make_debroot.sh ROOT
set -euo pipefail

[ $# -eq 1 ] || { echo "usage: $0 ROOT" >&2; exit 2; }
root=$1
marker=$root/.callwire-debroot
[ -f "$marker" ] && exit 0
[ "$(id -u)" = 0 ] || { echo "make_debroot: debootstrap and chroot need root" >&2; exit 1; }

# The mirror this machine's apt uses (deb.debian.org when it names none).
mirror=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n 1)
mirror=${mirror:-http://deb.debian.org/debian}

echo "make_debroot: debootstrap bookworm into $root (a few minutes, once)"
rm -rf "$root"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! debootstrap --variant=minbase --include=g++,cmake,make,pkg-config bookworm "$root" \
       "$mirror" >"$log" 2>&1; then
  tail -n 30 "$log" >&2
  echo "make_debroot: debootstrap failed" >&2
  exit 1
fi
cp /etc/resolv.conf "$root/etc/resolv.conf"
# What libcallwire-dev and libcallwire depend on, fetched but not installed.
chroot "$root" apt-get clean  # debootstrap's own downloads: hundreds of MiB of no further use
chroot "$root" apt-get update -qq
chroot "$root" apt-get install -y -qq --download-only --no-install-recommends \
  libssl-dev zlib1g-dev libsimdjson-dev >/dev/null
touch "$marker"
echo "make_debroot: ready"
