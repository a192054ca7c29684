#!/usr/bin/env bash
# Installs the Debian packages `make bench-peers` needs on top of scripts/setup.sh's: the binary
# RPC peers (gRPC, Thrift, Cap'n Proto), libjsonrpccpp, matplotlib for the plots and h2load (gRPC
# under load).
# Idempotent and quiet when all is there.
set -euo pipefail

exec bash "$(dirname "$0")/setup.sh" \
  libgrpc++-dev protobuf-compiler-grpc  `# gRPC C++ and its code generator plugin` \
  libprotobuf-dev protobuf-compiler     `# protoc and the protobuf runtime` \
  libthrift-dev thrift-compiler         `# Apache Thrift C++` \
  libcapnp-dev capnproto                `# Cap'n Proto RPC (EzRpc) and capnp compile` \
  libjsonrpccpp-dev libjsonrpccpp-tools `# the paper's JSON-RPC peer and its stub generator` \
  python3-matplotlib                    `# the plots` \
  nghttp2-client                        `# h2load: gRPC under load (experiment 5)`
