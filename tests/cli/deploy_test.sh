#!/usr/bin/env bash
# `callwire serve` as deployments run it (docs/deploying.md): several processes on one port
# (--reuse-port), socket activation by systemd's protocol (systemd-socket-activate, --listen
# systemd:), a connection on standard input (--inetd), the health endpoint, deploy/'s units.
# Usage: deploy_test.sh path/to/callwire
set -uo pipefail

bin=$(realpath "${1:?usage: deploy_test.sh path/to/callwire}")
repo=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  rm -rf "$tmp"
}
trap cleanup EXIT
failures=0

fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

expect_eq() {  # expect_eq GOT WANT WHAT
  [ "$1" == "$2" ] || fail "$3: got [$1], wanted [$2]"
}

expect_match() {  # expect_match TEXT REGEX WHAT
  [[ "$1" =~ $2 ]] || fail "$3: [$1] does not match /$2/"
}

# A port free a moment ago: bound to port 0, read back, released.
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# serve NAME ARGS...: starts `callwire serve ARGS` and waits for its "listening on URL" line
# (read from a FIFO: exactly until it is up); sets $url and $pid, stderr in $tmp/NAME.err.
serve() {
  local name=$1
  shift
  mkfifo "$tmp/$name.fifo"
  "$bin" serve "$@" >"$tmp/$name.fifo" 2>"$tmp/$name.err" &
  pid=$!
  pids+=("$pid")
  exec {fd}<"$tmp/$name.fifo"
  url=""
  read -r -t 30 _ _ url <&"$fd" || fail "serve $name: no 'listening on URL' line ($(cat "$tmp/$name.err"))"
  exec {fd}<&-
}

stop() {  # stop PID: SIGTERM, then wait for it
  kill "$1" 2>/dev/null
  wait "$1" 2>/dev/null
}

# --- --reuse-port: two processes on one port both serve; without it the second cannot start
serve first --listen 127.0.0.1:0 --threads 1 --reuse-port --log
first_pid=$pid
first_url=$url
port=${first_url#http://127.0.0.1:}
port=${port%%/*}
serve second --listen "127.0.0.1:$port" --threads 1 --reuse-port --log
second_pid=$pid
expect_eq "$url" "$first_url" "--reuse-port: the second server's URL"
for i in $(seq 1 40); do  # each call a new process, so a new connection
  out=$("$bin" call "$first_url" sample.add "i/$i" i/1 2>&1)
  expect_eq "$out" "$((i + 1))" "--reuse-port: call $i"
done
first_calls=$(grep -c sample.add "$tmp/first.err")
second_calls=$(grep -c sample.add "$tmp/second.err")
expect_eq "$((first_calls + second_calls))" 40 "--reuse-port: calls answered"
# 40 connections all on one of two listeners: once in 2^39.
[ "$first_calls" -gt 0 ] && [ "$second_calls" -gt 0 ] ||
  fail "--reuse-port: one server took every call ($first_calls and $second_calls)"
"$bin" serve --listen "127.0.0.1:$port" --threads 1 >/dev/null 2>"$tmp/third.err"
expect_eq "$?" 2 "without --reuse-port: exit status"
expect_match "$(cat "$tmp/third.err")" "Address already in use" "without --reuse-port: the reason"
# One leaves (SIGTERM): the other takes every newcomer.
stop "$first_pid"
for i in 1 2 3 4 5; do
  out=$("$bin" call "$first_url" sample.add i/1 i/1 2>&1)
  expect_eq "$out" "2" "--reuse-port: call after the first server left"
done
stop "$second_pid"

# --- --health-path: curl, without the credentials calls need; off without the flag
serve health --listen 127.0.0.1:0 --threads 1 --health-path /healthz --user alice --password pw
base=${url%/RPC2}
health=$(curl -s -i "$base/healthz" | tr -d '\r')
expect_match "$health" "^HTTP/1.1 200 OK" "--health-path: GET /healthz"
expect_match "$health" $'\n[Cc]ache-[Cc]ontrol: no-store\n' "--health-path: not cached"
expect_match "$health" $'\n\nok$' "--health-path: the body"
expect_eq "$(curl -s -o /dev/null -w '%{http_code}' -X POST "$base/healthz")" 404 \
  "--health-path: POST to it is no call"
expect_eq "$(curl -s -o /dev/null -w '%{http_code}' "$url")" 405 "--health-path: GET elsewhere"
out=$("$bin" call "$url" sample.add i/1 i/1 2>&1)
expect_match "$out" "401" "--health-path: calls still need credentials"
stop "$pid"
serve nohealth --listen 127.0.0.1:0 --threads 1
expect_eq "$(curl -s -o /dev/null -w '%{http_code}' "${url%/RPC2}/healthz")" 405 \
  "without --health-path: GET /healthz"
stop "$pid"

# --- --metrics-path with --metrics-authorization: what Prometheus scrapes, checked by its own
# promtool; refused without the token; calls keep their own credentials.
command -v promtool >/dev/null || fail "promtool is missing (scripts/setup.sh installs prometheus)"
serve metrics --listen 127.0.0.1:0 --threads 1 --metrics-path /metrics \
  --metrics-authorization "Bearer s3cret" --user alice --password pw
base=${url%/RPC2}
for i in 1 2 3; do "$bin" call --user alice --password pw "$url" sample.add i/1 i/2 >/dev/null; done
"$bin" call --user alice --password pw "$url" sample.add i/1 >/dev/null 2>&1  # a fault: -32602
page=$(curl -s -H "Authorization: Bearer s3cret" "$base/metrics")
expect_match "$page" $'\ncallwire_calls_total\\{method="sample.add"\\} 4\n' "--metrics-path: calls"
expect_match "$page" $'\ncallwire_faults_total\\{method="sample.add"\\} 1\n' "--metrics-path: faults"
expect_match "$page" 'callwire_call_duration_seconds_bucket\{method="sample.add",le="\+Inf"\} 4' \
  "--metrics-path: the latency histogram"
checked=$(printf '%s\n' "$page" | promtool check metrics 2>&1) ||
  fail "promtool check metrics: $checked"
expect_eq "$(curl -s -o /dev/null -w '%{http_code}' "$base/metrics")" 401 \
  "--metrics-path: without the token"
expect_eq "$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer guess" \
  "$base/metrics")" 401 "--metrics-path: a wrong token"
stop "$pid"

# --- socket activation: systemd-socket-activate binds, `callwire serve --listen systemd:` serves
if ! command -v systemd-socket-activate >/dev/null; then
  fail "systemd-socket-activate is missing (package systemd; scripts/setup.sh installs it)"
else
  port=$(free_port)
  mkfifo "$tmp/activate.fifo"
  # It binds, says "Listening on ..." on stderr, and starts the server at the first connection
  # with the socket as descriptor 3 (LISTEN_FDS=1, LISTEN_PID its pid, LISTEN_FDNAMES=rpc).
  systemd-socket-activate -l "127.0.0.1:$port" --fdname=rpc \
    "$bin" serve --listen systemd:rpc --threads 1 >"$tmp/activate.out" 2>"$tmp/activate.fifo" &
  activate_pid=$!
  pids+=("$activate_pid")
  exec {afd}<"$tmp/activate.fifo"
  read -r -t 30 line <&"$afd" || fail "systemd-socket-activate: no 'Listening on' line"
  expect_match "$line" "Listening on 127.0.0.1:$port" "systemd-socket-activate: bound"
  out=$("$bin" call "http://127.0.0.1:$port/RPC2" sample.add i/2 i/3 2>&1)
  expect_eq "$out" "5" "--listen systemd:rpc: a call"
  out=$("$bin" call --json-rpc "http://127.0.0.1:$port/RPC2" sample.add 20 3 2>&1)
  expect_eq "$out" "23" "--listen systemd:rpc: a second call"
  expect_match "$(cat "$tmp/activate.out")" "listening on http://127.0.0.1:$port/RPC2" \
    "--listen systemd:rpc: the URL it prints"
  # The activated server is the process systemd-socket-activate exec'd itself into.
  expect_eq "$(tr '\0' ' ' </proc/$activate_pid/cmdline)" \
    "$bin serve --listen systemd:rpc --threads 1 " "systemd-socket-activate ran the server"
  stop "$activate_pid"
  exec {afd}<&-
  # Two sockets (descriptors 3 and 4), "systemd:" without a name: both served, each URL printed.
  port=$(free_port)
  port2=$(free_port)
  mkfifo "$tmp/activate3.fifo"
  systemd-socket-activate -l "127.0.0.1:$port" -l "127.0.0.1:$port2" \
    "$bin" serve --listen systemd: --threads 1 >"$tmp/activate3.out" 2>"$tmp/activate3.fifo" &
  activate_pid=$!
  pids+=("$activate_pid")
  exec {afd}<"$tmp/activate3.fifo"
  read -r -t 30 line <&"$afd" || fail "systemd-socket-activate (two sockets): no 'Listening on' line"
  read -r -t 30 line <&"$afd" || fail "systemd-socket-activate (two sockets): no second line"
  out=$("$bin" call "http://127.0.0.1:$port2/RPC2" sample.add i/4 i/4 2>&1)
  expect_eq "$out" "8" "--listen systemd: (two sockets): a call on the second"
  out=$("$bin" call "http://127.0.0.1:$port/RPC2" sample.add i/5 i/5 2>&1)
  expect_eq "$out" "10" "--listen systemd: (two sockets): a call on the first"
  expect_eq "$(grep -c '^listening on http://127.0.0.1:' "$tmp/activate3.out")" 2 \
    "--listen systemd: (two sockets): both URLs printed"
  stop "$activate_pid"
  exec {afd}<&-
  # A name nothing was passed under: refused at start with the reason.
  port=$(free_port)
  mkfifo "$tmp/activate2.fifo"
  systemd-socket-activate -l "127.0.0.1:$port" --fdname=other \
    "$bin" serve --listen systemd:rpc >/dev/null 2>"$tmp/activate2.fifo" &
  activate_pid=$!
  pids+=("$activate_pid")
  exec {afd}<"$tmp/activate2.fifo"
  read -r -t 30 line <&"$afd" || fail "systemd-socket-activate: no 'Listening on' line"
  cat <&"$afd" >"$tmp/activate2.err" &  # the rest, until the server exits
  "$bin" call "http://127.0.0.1:$port/RPC2" sample.add i/1 i/1 >/dev/null 2>&1
  wait "$activate_pid"
  expect_eq "$?" 2 "--listen systemd:rpc with no socket named rpc: exit status"
  wait $!  # the reader: the FIFO's writer is gone
  exec {afd}<&-
  expect_match "$(cat "$tmp/activate2.err")" "no listening socket passed by systemd named rpc" \
    "--listen systemd:rpc with no socket named rpc: the reason"

  # --- inetd style: systemd-socket-activate --inetd --accept hands each connection over as
  # standard input and output; `callwire serve --inetd http` serves it and exits.
  port=$(free_port)
  mkfifo "$tmp/inetd.fifo"
  systemd-socket-activate --inetd -a -l "127.0.0.1:$port" \
    "$bin" serve --inetd http >/dev/null 2>"$tmp/inetd.fifo" &
  inetd_pid=$!
  pids+=("$inetd_pid")
  exec {ifd}<"$tmp/inetd.fifo"
  read -r -t 30 line <&"$ifd" || fail "systemd-socket-activate --inetd: no 'Listening on' line"
  for i in 1 2; do  # a process per connection
    out=$("$bin" call "http://127.0.0.1:$port/RPC2" sample.add "i/$i" i/10 2>&1)
    expect_eq "$out" "$((i + 10))" "serve --inetd http under systemd-socket-activate: call $i"
  done
  stop "$inetd_pid"
  exec {ifd}<&-
fi

# --- deploy/'s units: systemd-analyze verify (with ExecStart on the built binary, which it
# checks is executable; --man=no since callwire(1) is not installed here) says nothing, and
# the pair run as systemd would run them (the socket's address and name, the service's
# command) answers a call and the health check.
units="$repo/deploy"
if ! command -v systemd-analyze >/dev/null; then
  fail "systemd-analyze is missing (package systemd; scripts/setup.sh installs it)"
else
  mkdir "$tmp/units"
  sed "s|/usr/bin/callwire|$bin|" "$units/callwire.service" >"$tmp/units/callwire.service"
  cp "$units/callwire.socket" "$tmp/units/"
  verify=$(systemd-analyze verify --man=no "$tmp/units/callwire.socket" \
    "$tmp/units/callwire.service" 2>&1)
  expect_eq "$?:$verify" "0:" "systemd-analyze verify deploy/callwire.{socket,service}"
fi
listen_stream=$(sed -n 's/^ListenStream=//p' "$units/callwire.socket")
fd_name=$(sed -n 's/^FileDescriptorName=//p' "$units/callwire.socket")
exec_start=$(sed -n 's|^ExecStart=/usr/bin/callwire ||p' "$units/callwire.service")
expect_eq "$listen_stream" "127.0.0.1:8080" "callwire.socket: ListenStream"
expect_match "$exec_start" "--listen systemd:$fd_name" "callwire.service takes the socket's name"
if command -v systemd-socket-activate >/dev/null; then
  port=$(free_port)
  mkfifo "$tmp/unit.fifo"
  # shellcheck disable=SC2086 # the unit's arguments, split as systemd splits them (no quotes)
  systemd-socket-activate -l "${listen_stream%:*}:$port" --fdname="$fd_name" \
    "$bin" $exec_start >"$tmp/unit.out" 2>"$tmp/unit.fifo" &
  unit_pid=$!
  pids+=("$unit_pid")
  exec {ufd}<"$tmp/unit.fifo"
  read -r -t 30 line <&"$ufd" || fail "deploy/ units: no 'Listening on' line"
  out=$("$bin" call "http://127.0.0.1:$port/RPC2" sample.add i/40 i/2 2>&1)
  expect_eq "$out" "42" "deploy/ units run as systemd would: a call"
  health=$(curl -s -i "http://127.0.0.1:$port/healthz" | tr -d '\r')
  expect_match "$health" "^HTTP/1.1 200 OK" "deploy/ units: GET /healthz"
  expect_match "$health" $'\n\nok$' "deploy/ units: GET /healthz says ok"
  stop "$unit_pid"
  exec {ufd}<&-
fi

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)" >&2
  exit 1
fi
echo "deploy: all checks passed"
