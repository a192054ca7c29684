#!/usr/bin/env bash
# Runs the examples the way a user would and checks what they print: ctest examples.run.
#
#   examples/run_examples.sh BUILD_DIR      (BUILD_DIR: the build's examples/ directory)
#
# Servers listen on port 0 and are found by their "listening on URL" line, read with a
# deadline; every client runs under `timeout`; the servers are always stopped (trap), and a
# server that does not stop on SIGTERM/SIGINT within its deadline is a failure.
set -euo pipefail

if [[ $# -ne 1 ]]; then
  echo "usage: $0 BUILD_DIR" >&2
  exit 2
fi
bin=$1/cpp
cbin=$1/c
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/callwire-examples.XXXXXX")
pids=()

cleanup() {
  for pid in "${pids[@]}"; do
    kill -KILL "$pid" 2>/dev/null || true
  done
  rm -rf "$work"
}
trap cleanup EXIT

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# start_server NAME PROGRAM ARGS...: starts it in the background, its output in $work/NAME.out,
# and sets $url from its "listening on URL" line (10 s at most).
start_server() {
  local name=$1
  shift
  # Created here: the background job opens them only when it gets to run.
  : >"$work/$name.out"
  "$@" >"$work/$name.out" 2>"$work/$name.err" &
  local pid=$!
  pids+=("$pid")
  eval "${name}_pid=$pid"
  local deadline=$((SECONDS + 10))
  url=
  while [[ -z $url ]]; do
    url=$(sed -n 's/^listening on //p' "$work/$name.out")
    [[ -n $url ]] && break
    if ! kill -0 "$pid" 2>/dev/null; then
      cat "$work/$name.err" >&2
      fail "$name exited before listening"
    fi
    ((SECONDS < deadline)) || fail "$name printed no 'listening on' line within 10 s"
    sleep 0.05
  done
  echo "$name: listening on $url"
}

# stop_server NAME SIGNAL: sends it and expects a clean exit (status 0, "stopped") within 15 s.
stop_server() {
  local name=$1 signal=$2 pid_var="${1}_pid"
  local pid=${!pid_var}
  kill "-$signal" "$pid"
  local deadline=$((SECONDS + 15))
  while kill -0 "$pid" 2>/dev/null; do
    ((SECONDS < deadline)) || fail "$name did not stop within 15 s of SIG$signal"
    sleep 0.05
  done
  local status=0
  wait "$pid" || status=$?
  ((status == 0)) || fail "$name exited with status $status after SIG$signal"
  grep -qx stopped "$work/$name.out" || fail "$name did not print 'stopped'"
  echo "$name: stopped on SIG$signal"
}

# run NAME EXPECTED_STATUS PROGRAM ARGS...: runs a client (30 s at most), its output in
# $work/NAME.out and .err, and checks its exit status (0, or "nonzero").
run() {
  local name=$1 expected=$2
  shift 2
  local status=0
  timeout 30 "$@" >"$work/$name.out" 2>"$work/$name.err" || status=$?
  ((status != 124)) || fail "$name timed out"
  if [[ $expected == nonzero ]]; then
    ((status != 0)) || fail "$name succeeded where it should have failed"
    [[ -s $work/$name.err ]] || fail "$name failed without saying why"
  elif ((status != expected)); then
    cat "$work/$name.err" >&2
    fail "$name exited with status $status, expected $expected"
  fi
  echo "$name: ok"
}

# expect_output NAME EXPECTED: the client's whole standard output.
expect_output() {
  local got
  got=$(cat "$work/$1.out")
  if [[ $got != "$2" ]]; then
    printf 'expected:\n%s\ngot:\n%s\n' "$2" "$got" >&2
    fail "$1 printed something else"
  fi
}

# ---- sample_add_server and its clients -----------------------------------------------------
start_server plain "$bin/sample_add_server" --listen 127.0.0.1:0
plain_url=$url

run sample_add_client 0 "$bin/sample_add_client" "$plain_url"
expect_output sample_add_client 8

run async_client 0 "$bin/async_client" "$plain_url" 200
expect_output async_client "200 calls, all correct"

run multicall_client 0 "$bin/multicall_client" "$plain_url"
expect_output multicall_client "sample.add: 3
sample.add: 42
sample.add: fault -32602: sample.add: parameter 2 must be int, got string
no.such.method: fault -32601: unknown method 'no.such.method'"

run introspection_dump 0 "$bin/introspection_dump" "$plain_url"
for line in "sample.add" "  signature: int sample.add(int, int)" "  help: Adds two integers." \
            "system.listMethods" "  signature: array system.methodSignature(string)"; do
  grep -qxF -- "$line" "$work/introspection_dump.out" ||
    fail "introspection_dump did not print '$line'"
done

# The C clients against the C++ server.
run c_sample_add_client 0 "$cbin/sample_add_client" "$plain_url"
expect_output c_sample_add_client 8
run c_async_client 0 "$cbin/async_client" "$plain_url" 300
expect_output c_async_client "300 calls, all correct"

stop_server plain TERM
# With the server gone, the clients fail and say why.
run sample_add_client_refused nonzero "$bin/sample_add_client" "$plain_url"
run c_sample_add_client_refused nonzero "$cbin/sample_add_client" "$plain_url"
grep -q "Connection refused" "$work/c_sample_add_client_refused.err" ||
  fail "the C client did not say why: $(cat "$work/c_sample_add_client_refused.err")"

# ---- orders_server: user structs declared in one line ---------------------------------------
start_server orders "$bin/orders_server" --listen 127.0.0.1:0
run orders_client 0 "$bin/orders_client" "$url"
expect_output orders_client "order 1 (fragile):
  2 x tea at 3.50
  4 x cups at 1.25
total 12.00
no order 99"
# The command line tool (built beside the examples) shows the structs' shapes.
tool=$1/../tools/callwire
if [[ -x $tool ]]; then
  run orders_list 0 "$tool" list "$url"
  grep -qxF "    Result: Order {id: int, items: [Item {sku: string, qty: int, price: double}], note?: string}" \
    "$work/orders_list.out" || fail "callwire list did not spell out shop.get_order's result"
fi
stop_server orders TERM

# ---- the C sample_add_server, with both languages' clients ------------------------------------
start_server c_plain "$cbin/sample_add_server" --listen 127.0.0.1:0
run c_server_cpp_client 0 "$bin/sample_add_client" "$url"
expect_output c_server_cpp_client 8
run c_server_c_client 0 "$cbin/sample_add_client" "$url"
expect_output c_server_c_client 8
run c_server_async 0 "$cbin/async_client" "$url" 200
expect_output c_server_async "200 calls, all correct"
run c_server_introspection 0 "$bin/introspection_dump" "$url"
grep -qxF -- "  signature: int sample.add(int, int)" "$work/c_server_introspection.out" ||
  fail "the C server's signature did not show in introspection"
run c_server_multicall 0 "$bin/multicall_client" "$url"
grep -qxF -- "sample.add: fault -32602: sample.add: parameter 2 must be int, got string" \
  "$work/c_server_multicall.out" || fail "the C server did not check its signature"
stop_server c_plain INT

# ---- the packet stream: the inetd servers, run per connection by examples/inetd.py ----------
for server in cpp c; do
  [[ $server == cpp ]] && dir=$bin || dir=$cbin
  start_server "inetd_$server" python3 "$here/inetd.py" "$dir/pstream_inetd_server"
  [[ $url == pstream://127.0.0.1:* ]] || fail "inetd.py does not give a pstream URL: $url"
  run "pstream_client_${server}_server" 0 "$bin/pstream_client" "$url"
  expect_output "pstream_client_${server}_server" 12
  run "c_pstream_client_${server}_server" 0 "$cbin/pstream_client" "$url"
  expect_output "c_pstream_client_${server}_server" 12
  # socketexec's way: the client is handed the connected socket on standard input.
  for client in "$bin" "$cbin"; do
    name="stdin_pstream_client_$(basename "$(dirname "$client/x")")_${server}_server"
    run "$name" 0 python3 -c 'import os, socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
os.dup2(s.fileno(), 0)
os.execv(sys.argv[2], [sys.argv[2], "-"])' "${url##*:}" "$client/pstream_client"
    expect_output "$name" 12
  done
  # Each connection's server exited 0 when its client closed: stop_server checks inetd.py's
  # status, which says so.
  stop_server "inetd_$server" TERM
done
# Standard input that is no socket: the server says so and fails.
run pstream_inetd_server_no_socket nonzero "$bin/pstream_inetd_server" </dev/null
run c_pstream_inetd_server_no_socket nonzero "$cbin/pstream_inetd_server" </dev/null
grep -q "not a stream socket" "$work/c_pstream_inetd_server_no_socket.err" ||
  fail "the C inetd server did not say why: $(cat "$work/c_pstream_inetd_server_no_socket.err")"

# ---- auth_tls_server with a throwaway certificate --------------------------------------------
command -v openssl >/dev/null || fail "openssl is needed for the TLS example (scripts/setup.sh installs it)"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 \
  -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 \
  -keyout "$work/key.pem" -out "$work/cert.pem" 2>"$work/openssl.err" ||
  { cat "$work/openssl.err" >&2; fail "openssl req"; }
password=$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')

start_server tls "$bin/auth_tls_server" --listen 127.0.0.1:0 \
  --cert "$work/cert.pem" --key "$work/key.pem" --user alice --password "$password"
tls_url=$url
[[ $tls_url == https://* ]] || fail "auth_tls_server does not listen on https: $tls_url"

run auth_tls_client "0" "$bin/auth_tls_client" "$tls_url" \
  --ca-file "$work/cert.pem" --user alice --password "$password"
expect_output auth_tls_client "user alice
8"

# A wrong password is refused with 401.
run auth_tls_client_wrong_password nonzero "$bin/auth_tls_client" "$tls_url" \
  --ca-file "$work/cert.pem" --user alice --password "not-$password"
grep -q 401 "$work/auth_tls_client_wrong_password.err" ||
  fail "a wrong password was not refused with 401: $(cat "$work/auth_tls_client_wrong_password.err")"

# Without our CA file the certificate does not verify: no call gets through.
run auth_tls_client_untrusted nonzero "$bin/auth_tls_client" "$tls_url" \
  --user alice --password "$password"
grep -q "certificate verify failed" "$work/auth_tls_client_untrusted.err" ||
  fail "an untrusted certificate failed otherwise: $(cat "$work/auth_tls_client_untrusted.err")"

# The C client against the C++ server, then the C server against both clients.
run c_auth_tls_client 0 "$cbin/auth_tls_client" "$tls_url" \
  --ca-file "$work/cert.pem" --user alice --password "$password"
expect_output c_auth_tls_client "user alice
8"
stop_server tls INT

start_server c_tls "$cbin/auth_tls_server" --listen 127.0.0.1:0 \
  --cert "$work/cert.pem" --key "$work/key.pem" --user alice --password "$password"
[[ $url == https://* ]] || fail "the C auth_tls_server does not listen on https: $url"
run c_tls_cpp_client 0 "$bin/auth_tls_client" "$url" \
  --ca-file "$work/cert.pem" --user alice --password "$password"
expect_output c_tls_cpp_client "user alice
8"
run c_tls_c_client_wrong_password nonzero "$cbin/auth_tls_client" "$url" \
  --ca-file "$work/cert.pem" --user alice --password "not-$password"
grep -q "HTTP 401" "$work/c_tls_c_client_wrong_password.err" ||
  fail "the C server did not refuse a wrong password with 401"
run c_tls_c_client_untrusted nonzero "$cbin/auth_tls_client" "$url" \
  --user alice --password "$password"
grep -q "certificate verify failed" "$work/c_tls_c_client_untrusted.err" ||
  fail "the C client accepted an untrusted certificate: $(cat "$work/c_tls_c_client_untrusted.err")"
stop_server c_tls TERM

# ---- host-loop mode: a server and a client in one thread, in poll(), libevent's, GLib's loop -
for loop in poll libevent glib; do
  if [[ ! -x $cbin/host_loop_$loop ]]; then
    echo "c_host_loop_$loop: not built (its library is not installed), skipped"
    continue
  fi
  run "c_host_loop_$loop" 0 "$cbin/host_loop_$loop" 300
  expect_output "c_host_loop_$loop" "300 calls, all correct"
done

echo "examples: all passed"
