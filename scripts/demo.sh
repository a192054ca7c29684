#!/usr/bin/env bash
# Encodes sample calls from their JSON form to XML-RPC with the callwire command, decodes them
# back, and checks that the round trip gives the same JSON. Then starts `callwire serve` on a
# free loopback port, calls sample.add with `callwire call` and with Python's xmlrpc.client,
# lists the methods with `callwire list`, and stops the server. Exits non-zero if any step fails;
# never leaves the server running.
# Usage: scripts/demo.sh path/to/callwire
set -euo pipefail

bin=${1:?usage: scripts/demo.sh path/to/callwire}
if [ ! -x "$bin" ]; then
  echo "demo: $bin is not an executable; build first (make build)" >&2
  exit 2
fi

heading() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
[ -t 1 ] || heading() { printf '\n== %s\n' "$*"; }

failed=0

# round_trip TITLE JSON: JSON is in the compact form `callwire decode` prints.
round_trip() {
  local title=$1 json=$2 xml back
  heading "$title: the JSON form"
  echo "$json"
  heading "$title: callwire encode"
  xml=$(printf '%s\n' "$json" | "$bin" encode)
  echo "$xml"
  heading "$title: callwire decode"
  back=$(printf '%s\n' "$xml" | "$bin" decode)
  echo "$back"
  heading "$title: callwire decode --pretty"
  printf '%s\n' "$xml" | "$bin" decode --pretty
  if [ "$back" == "$json" ]; then
    heading "$title: round trip OK (the same JSON came back)"
  else
    heading "$title: round trip FAILED"
    diff <(echo "$json") <(echo "$back") || true
    failed=1
  fi
}

round_trip "sample.add" '{"methodName":"sample.add","params":[5,3]}'

# Every type: struct, int, i8, double, string, dateTime, base64, nil, boolean, array, and a
# struct whose one member's name starts with '$' (written with the $struct wrapper).
rich='{"methodName":"inventory.update","params":[{"sku":"A-1 \"blue\"","count":7,'
rich+='"total":{"$i8":8589934592},"price":19.99,'
rich+='"updated":{"$dateTime":"20240229T23:59:58.250Z"},"photo":{"$base64":"aGVsbG8sIHdvcmxk"},'
rich+='"note":null,"active":true,"tags":["red","grün",[]],"meta":{"$struct":{"$ref":"#/1"}}},'
rich+='{"$i8":-1}]}'
round_trip "inventory.update (every type)" "$rich"

heading "A refused document: exit status 1, the fault on stderr"
set +e
printf '<methodCall><methodName>x</methodName>' | "$bin" decode
status=$?
set -e
echo "exit status $status"
[ "$status" -eq 1 ] || failed=1

# --- A live server: callwire serve, then callwire call, Python's xmlrpc.client, callwire list.

server_pid=""
tmp=$(mktemp -d)

# stop_server: SIGTERM, then wait at most 10 s (a watchdog kills a server that hangs).
# Sets server_status to the exit status.
stop_server() {
  local watchdog
  kill -TERM "$server_pid" 2>/dev/null || true
  (sleep 10 && kill -KILL "$server_pid" 2>/dev/null) &
  watchdog=$!
  server_status=0
  wait "$server_pid" || server_status=$?
  kill "$watchdog" 2>/dev/null || true
  wait "$watchdog" 2>/dev/null || true
  server_pid=""
}

cleanup() {
  [ -n "$server_pid" ] && stop_server
  rm -rf "$tmp"
}
trap cleanup EXIT

die() {
  heading "demo FAILED: $*"
  if [ -s "$tmp/serve.err" ]; then
    echo "server stderr:"
    cat "$tmp/serve.err"
  fi
  exit 1
}

heading "callwire serve --listen 127.0.0.1:0"
# A coprocess, so its first line (flushed at once) can be read with a deadline.
coproc SERVER { exec "$bin" serve --listen 127.0.0.1:0 --threads 1 2>"$tmp/serve.err"; }
server_pid=$SERVER_PID
line=""
read -r -t 10 line <&"${SERVER[0]}" || die "no 'listening on URL' line from the server in 10 s"
echo "$line"
case "$line" in
  "listening on http://127.0.0.1:"*) url=${line#listening on } ;;
  *) die "unexpected first line from the server: $line" ;;
esac

heading "callwire call $url sample.add i/5 i/3"
answer=$("$bin" call --timeout 10 "$url" sample.add i/5 i/3) || die "callwire call failed"
echo "$answer"
[ "$answer" == "8" ] || die "callwire call answered '$answer', wanted 8"

heading "Python: xmlrpc.client.ServerProxy(url).sample.add(5, 3)"
answer=$(python3 -c '
import socket, sys, xmlrpc.client
socket.setdefaulttimeout(10)
print(xmlrpc.client.ServerProxy(sys.argv[1]).sample.add(5, 3))
' "$url") || die "Python's xmlrpc.client failed"
echo "$answer"
[ "$answer" == "8" ] || die "Python's call answered '$answer', wanted 8"

heading "callwire list $url"
"$bin" list --timeout 10 "$url" >"$tmp/list.out" || die "callwire list failed"
cat "$tmp/list.out"
grep -qx 'sample.add(int, int) -> int' "$tmp/list.out" || die "callwire list does not show sample.add"

heading "Stopping the server (SIGTERM)"
stop_server
echo "exit status $server_status"
[ "$server_status" -eq 0 ] || die "the server exited with status $server_status"

if [ "$failed" -ne 0 ]; then
  heading "demo FAILED"
  exit 1
fi
heading "demo OK"
