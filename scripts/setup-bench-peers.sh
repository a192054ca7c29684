#!/usr/bin/env bash
# Installs the Debian packages `make bench-peers` needs on top of scripts/setup.sh: the binary
# RPC peers (gRPC, Thrift, Cap'n Proto), libjsonrpccpp and matplotlib for the plots.
# Idempotent and quiet when all is there.
set -euo pipefail

packages=(
  libgrpc++-dev protobuf-compiler-grpc       # gRPC C++ and its code generator plugin
  libprotobuf-dev protobuf-compiler          # protoc and the protobuf runtime
  libthrift-dev thrift-compiler              # Apache Thrift C++
  libcapnp-dev capnproto                     # Cap'n Proto RPC (EzRpc) and capnp compile
  libjsonrpccpp-dev libjsonrpccpp-tools      # the paper's JSON-RPC peer and its stub generator
  python3-matplotlib                         # the plots
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "setup-bench-peers: installing ${missing[*]}" >&2
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
# A fresh machine may have no package lists yet; refresh them once when an install fails.
if ! $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; then
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
