#!/usr/bin/env bash
# Installs every Debian package the project needs, and any packages named as arguments
# (scripts/setup-bench-peers.sh passes the benchmark peers'). Idempotent and quiet when all
# is there.
set -euo pipefail

packages=(
  cmake ninja-build g++ pkg-config python3
  clang libclang-rt-14-dev             # libFuzzer and the sanitizers' runtimes
  libgtest-dev libgmock-dev            # unit tests
  libbenchmark-dev                     # make bench
  libexpat1-dev                        # differential test of the reader; a bench peer
  libxml2-dev                          # a bench peer
  libxmlrpc-core-c3-dev                # xmlrpc-c: the bench peer, and later interop
  libcli11-dev                         # the callwire command's parser
  libsimdjson-dev                      # JSON reading (the command's JSON form, JSON-RPC)
  libssl-dev zlib1g-dev                # TLS, gzip
  curl python3-pytest                  # interop tests: raw HTTP, Python's xmlrpc
  libxmlrpc-c++8-dev xmlrpc-api-utils  # interop tests against xmlrpc-c's client and server
  openssl                              # interop tests: a certificate made at test time
  wrk nginx-light                      # make bench: load generator, the fixed-body floor
  lighttpd                             # interop tests: a web server running the CGI examples
  python3-jsonrpclib-pelix             # interop tests: a Python JSON-RPC client library
  libjsonrpccpp-dev libjsoncpp-dev     # interop tests: libjsonrpccpp's HttpClient (and a bench peer)
  linux-perf strace                    # make bench: system calls per call (strace if perf fails)
  doxygen                              # make docs: the API reference from the headers
  dpkg-dev file groff-base             # make deb (dpkg-shlibdeps, file); the man page checked by groff
  lintian                              # install.deb: Debian's checks on the packages
  "$@"
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "setup: installing ${missing[*]}" >&2
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
# A fresh machine may have no package lists yet; refresh them once when an install fails.
if ! $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; then
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
