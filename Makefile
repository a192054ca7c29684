# The project's commands. Each one installs what is missing first (scripts/setup.sh).
#   make demo      encode and decode sample calls; serve, call (callwire and Python), list.
#                  Installs and builds only what that needs (the library, the command, the
#                  examples): no test lab
#   make build     the library, the command, the examples and the tests (the whole test lab)
#   make test      build and run every test (ctest)
#   make sanitize  every test under ASan+UBSan in a portable build (POSIX fallbacks and
#                  poll(2): docs/porting.md), the threaded ones under TSan (native, epoll)
#   make fuzz      each libFuzzer driver for FUZZ_SECONDS seconds
#   make fuzz-long each driver for FUZZ_LONG_SECONDS (600); what adds coverage is merged
#                  into tests/fuzz/corpus/<driver>/ (commit it)
#   make bench     the codec benchmarks, then the network ones (round trip, wrk); writes
#                  bench/RESULTS.md
#   make bench-peers  callwire beside gRPC, Thrift, Cap'n Proto, xmlrpc-c, Python and
#                  libjsonrpccpp on the seeds' benchmarks; writes bench/PEERS.md, bench/plots/
#   make docs      the API reference from the public headers (Doxygen): build/docs/html
JOBS ?= $(shell nproc)
FUZZ_SECONDS ?= 60
FUZZ_LONG_SECONDS ?= 600
CMAKE_FLAGS ?=
# Debian's python3-matplotlib belongs to /usr/bin/python3; a pyenv or virtualenv python3 that
# comes first on PATH may not have it.
PYTHON3 ?= $(shell test -x /usr/bin/python3 && echo /usr/bin/python3 || echo python3)

.PHONY: all setup setup-demo build demo test sanitize libcxx windows fuzz-build fuzz fuzz-long bench bench-peers deb docs clean

all: build

setup:
	@bash scripts/setup.sh

setup-demo:
	@bash scripts/setup.sh --demo

build: setup
	@cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCALLWIRE_TESTS=ON \
	  -DCALLWIRE_WERROR=ON \
	  $(CMAKE_FLAGS) >/dev/null
	@cmake --build build/release -j $(JOBS)

# A tree configured already (by `make build` or `make test`) keeps its tests; a new one is made
# without them, so the test lab's packages are never needed.
demo: setup-demo
	@cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  $(if $(wildcard build/release/CMakeCache.txt),,-DCALLWIRE_TESTS=OFF) $(CMAKE_FLAGS) >/dev/null
	@cmake --build build/release -j $(JOBS) --target callwire_cli callwire_manpage examples
	@bash scripts/demo.sh build/release/tools/callwire

# The install test's clean Debian root (debootstrap, once; root or sudo): tests/install/.
DEBROOT ?= build/debroot
SUDO := $(shell test "$$(id -u)" -eq 0 || echo sudo)

test: build
	@$(SUDO) bash scripts/make_debroot.sh $(DEBROOT)
	@CALLWIRE_DEBROOT=$(abspath $(DEBROOT)) ctest --test-dir build/release --output-on-failure -j $(JOBS) --timeout 300

sanitize: setup
	@cmake -S . -B build/asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_COMPILER=clang++ \
	  -DCMAKE_C_COMPILER=clang -DCALLWIRE_SANITIZE=address,undefined -DCALLWIRE_WERROR=ON \
	  -DCALLWIRE_PORTABLE=ON $(CMAKE_FLAGS) >/dev/null
	@cmake --build build/asan -j $(JOBS)
	@ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --test-dir build/asan --output-on-failure -j $(JOBS) --timeout 600
	@cmake -S . -B build/tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
	  -DCMAKE_C_COMPILER=clang -DCALLWIRE_SANITIZE=thread -DCALLWIRE_TOOLS=OFF $(CMAKE_FLAGS) >/dev/null
	@cmake --build build/tsan -j $(JOBS) --target http_e2e_test server_test dispatch_test protocol_test capi_rpc_test client_e2e_test
	@TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" \
	  ctest --test-dir build/tsan --output-on-failure -j $(JOBS) --timeout 600 -R '^((e2e|server|dispatch|protocol)\..*|capi\.rpc|client\.(Pipeline|Probe|AdoptedClient|ResponseHead|Cancel|NameLookup|Failover|JsonLinesClient|WebSocketClient)\..*)$$'

# clang 19 with libc++ (macOS's standard library), warnings as errors, unoptimized (the fastest
# to build): the library, the command, the examples and every test that links no C++ library
# built for libstdc++ (docs/porting.md). Install and style tests are make test's.
libcxx: setup
	@cmake -S . -B build/libcxx -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_COMPILER=clang++-19 \
	  -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_FLAGS=-stdlib=libc++ -DCALLWIRE_WERROR=ON \
	  $(CMAKE_FLAGS) >/dev/null
	@cmake --build build/libcxx -j $(JOBS)
	@ctest --test-dir build/libcxx --output-on-failure -j $(JOBS) --timeout 300 -E '^(install|style)\.'

# Windows x86-64, cross-built with MinGW-w64 (scripts/setup-windows.sh: the compilers, Wine,
# OpenSSL and simdjson from Debian's sources, cached in ~/.cache/callwire): the library, its
# tests and callwire.exe, the tests run under Wine; then calls between callwire.exe and Linux's
# callwire (built by `build`) and Python, over HTTP and HTTPS. A lasting wineserver, started
# first, spares each test Wine's 3 s shutdown.
windows: build
	@prefix=$$(bash scripts/setup-windows.sh) && \
	cmake -S . -B build/windows -G Ninja -DCMAKE_TOOLCHAIN_FILE=cmake/mingw-w64.cmake \
	  -DCALLWIRE_MINGW_PREFIX="$$prefix" -DCMAKE_BUILD_TYPE=Release -DCALLWIRE_WERROR=ON \
	  -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" `# at -O3 g++ 12 warns falsely (-Wrestrict)` \
	  -DCALLWIRE_TOOLS=ON -DCALLWIRE_EXAMPLES=OFF $(CMAKE_FLAGS) >/dev/null && \
	cmake --build build/windows -j $(JOBS) && \
	export WINEPREFIX="$$(dirname "$$prefix")/wine" WINEDEBUG=-all && \
	{ /usr/lib/wine/wineserver64 -p 2>/dev/null; /usr/lib/wine/wine64 wineboot >/dev/null 2>&1; \
	  ctest --test-dir build/windows --output-on-failure -j $(JOBS) --timeout 300; \
	  status=$$?; \
	  bash tests/windows/cross_calls.sh build/windows build/release/tools/callwire || status=1; \
	  /usr/lib/wine/wineserver64 -k; exit $$status; }

fuzz-build: setup
	@cmake -S . -B build/fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
	  -DCMAKE_C_COMPILER=clang -DCALLWIRE_FUZZ=ON -DCALLWIRE_TESTS=OFF -DCALLWIRE_TOOLS=OFF >/dev/null
	@cmake --build build/fuzz -j $(JOBS)

fuzz: fuzz-build
	@bash tests/fuzz/run.sh build/fuzz/tests/fuzz $(FUZZ_SECONDS)

fuzz-long: fuzz-build
	@bash tests/fuzz/run.sh --merge build/fuzz/tests/fuzz $(FUZZ_LONG_SECONDS)

bench: setup
	@cmake -S . -B build/bench -G Ninja -DCMAKE_BUILD_TYPE=Release -DCALLWIRE_BENCH=ON \
	  -DCALLWIRE_TESTS=OFF >/dev/null
	@cmake --build build/bench -j $(JOBS)
	@python3 bench/run.py build/bench
	@python3 bench/net_run.py build/bench

# The peers' packages come from their own script, so `make bench` and the rest never need them.
bench-peers: setup
	@bash scripts/setup-bench-peers.sh
	@cmake -S . -B build/bench-peers -G Ninja -DCMAKE_BUILD_TYPE=Release -DCALLWIRE_BENCH_PEERS=ON \
	  -DCALLWIRE_BENCH=ON -DCALLWIRE_TESTS=OFF -DCALLWIRE_EXAMPLES=OFF >/dev/null
	@cmake --build build/bench-peers -j $(JOBS)
	@$(PYTHON3) bench/peers_run.py build/bench-peers $(PEERS_ARGS)

# The Debian packages (cmake/package.cmake) from a Release tree installed under /usr:
# build/deb/packages/*.deb.
deb: setup
	@cmake -S . -B build/deb -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr \
	  -DCALLWIRE_TESTS=OFF -DCALLWIRE_EXAMPLES=OFF $(CMAKE_FLAGS) >/dev/null
	@cmake --build build/deb -j $(JOBS)
	@cd build/deb && cpack -G DEB
	@ls -1 build/deb/packages/*.deb

# Doxyfile plus the version from CMakeLists.txt; warnings go to build/docs/warnings.log.
docs: setup
	@mkdir -p build/docs
	@{ cat Doxyfile; sed -n 's/^project(callwire VERSION \([0-9.]*\).*/PROJECT_NUMBER = \1/p' CMakeLists.txt; } \
	  | doxygen -
	@echo "docs: $(CURDIR)/build/docs/html/index.html ($$(wc -l < build/docs/warnings.log) warning lines in build/docs/warnings.log)"

clean:
	rm -rf build
