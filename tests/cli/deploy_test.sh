#!/usr/bin/env bash
# `callwire serve` as deployments run it (docs/deploying.md): several processes on one port
# (--reuse-port), socket activation by systemd's protocol (systemd-socket-activate, --listen
# systemd:), a connection on standard input (--inetd), the health endpoint, deploy/'s units.
# Usage: deploy_test.sh path/to/callwire
set -uo pipefail

bin=$(realpath "${1:?usage: deploy_test.sh path/to/callwire}")
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

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)" >&2
  exit 1
fi
echo "deploy: all checks passed"
