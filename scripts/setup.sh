#!/usr/bin/env bash
# Installs the Debian packages the project needs. With --demo, only what building the library,
# the command and the examples and running `make demo` needs (a compiler, CMake, Ninja, zlib,
# OpenSSL, simdjson, CLI11, Python 3). Otherwise the whole test lab too, and any packages named
# as arguments (scripts/setup-bench-peers.sh passes the benchmark peers'), then the npm packages
# of the interop tests into build/node (CALLWIRE_NODE_PREFIX elsewhere; CMake's
# CALLWIRE_NODE_MODULES points the tests at it). Idempotent and quiet when all is there.
# (`make test` also makes the install test's clean Debian root: scripts/make_debroot.sh.)
set -euo pipefail

demo_only=false
if [ "${1:-}" = "--demo" ]; then
  demo_only=true
  shift
fi

JAYSON_VERSION=4.3.0  # interop tests: Node's JSON-RPC peer (5.x needs Node 20; Debian 12 has 18)
repo=$(cd "$(dirname "$0")/.." && pwd)
node_prefix=${CALLWIRE_NODE_PREFIX:-$repo/build/node}

demo_packages=(
  cmake ninja-build g++ pkg-config python3
  libssl-dev zlib1g-dev                # TLS, gzip
  libsimdjson-dev                      # JSON reading (the command's JSON form, JSON-RPC)
  libcli11-dev                         # the callwire command's parser
)
packages=(
  "${demo_packages[@]}"
  clang libclang-rt-14-dev             # libFuzzer and the sanitizers' runtimes
  clang-19 libc++-19-dev libc++abi-19-dev  # make libcxx: macOS's standard library, built on Linux
  libgtest-dev libgmock-dev            # unit tests
  libbenchmark-dev                     # make bench
  libexpat1-dev                        # differential test of the reader; a bench peer
  libxml2-dev                          # a bench peer
  libxmlrpc-core-c3-dev                # xmlrpc-c: the bench peer, and later interop
  curl python3-pytest                  # interop tests: raw HTTP, Python's xmlrpc
  libxmlrpc-c++8-dev xmlrpc-api-utils  # interop tests against xmlrpc-c's client and server
  openssl                              # interop tests: a certificate made at test time
  wrk nginx-light                      # make bench: load generator, the fixed-body floor
  lighttpd                             # interop tests: a web server running the CGI examples
  tinyproxy                            # client tests: an HTTP proxy (absolute-form, CONNECT, auth)
  libevent-dev libglib2.0-dev          # host-loop tests and examples: libevent's and GLib's loops
  haproxy                              # interop tests: callwire backends behind HAProxy
  prometheus                           # server tests: promtool checks the metrics page
  python3-jsonrpclib-pelix             # interop tests: a Python JSON-RPC client library
  python3-websockets                   # interop tests: a Python WebSocket client and server
  chromium                             # interop tests: a page calls over WebSocket (headless)
  libjsonrpccpp-dev libjsoncpp-dev     # interop tests: libjsonrpccpp's HttpClient (and a bench peer)
  golang-go golang-github-kolo-xmlrpc-dev  # interop tests: Go's kolo/xmlrpc client
  linux-perf strace                    # make bench: system calls per call (strace if perf fails)
  valgrind                             # bench/instructions_per_call.py: callgrind's counts per call
  doxygen                              # make docs: the API reference from the headers
  clang-format-14                      # style.format: every C and C++ file as .clang-format says
  dpkg-dev file groff-base             # make deb (dpkg-shlibdeps, file); the man page checked by groff
  debootstrap                          # the install test's clean Debian root
  lintian                              # install.deb: Debian's checks on the packages
  systemd                              # CLI test: systemd-socket-activate, systemd-analyze verify (deploy/)
  "$@"
)
# Debian's nodejs and npm, unless a Node.js with npm is there already (NodeSource's nodejs
# carries npm itself and conflicts with Debian's npm package).
command -v npm >/dev/null || packages+=(nodejs npm)
if $demo_only; then
  packages=("${demo_packages[@]}")
fi

# shellcheck source=lib/install_packages.sh
source "$repo/scripts/lib/install_packages.sh"
install_packages setup "${packages[@]}"

$demo_only && exit 0

# jayson, at its pinned version, as the current user (no sudo: the prefix is the project's).
# An npm that cannot reach its registry fails here, and so does the setup.
installed=$(node -p "require('$node_prefix/node_modules/jayson/package.json').version" \
            2>/dev/null || true)
if [ "$installed" != "$JAYSON_VERSION" ]; then
  echo "setup: installing jayson@$JAYSON_VERSION into $node_prefix" >&2
  mkdir -p "$node_prefix"
  if ! npm install --prefix "$node_prefix" --save-exact --no-audit --no-fund --loglevel=error \
       "jayson@$JAYSON_VERSION" >/dev/null; then
    echo "setup: npm could not install jayson@$JAYSON_VERSION (is the npm registry reachable?)" >&2
    exit 1
  fi
fi
