#!/usr/bin/env bash
# Encodes sample calls from their JSON form to XML-RPC with the callwire command, decodes them
# back, and checks that the round trip gives the same JSON. Exits non-zero if it does not.
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
rich+='"total":{"$i8":8589934592},"price":{"$double":19.99},'
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

if [ "$failed" -ne 0 ]; then
  heading "demo FAILED"
  exit 1
fi
heading "demo OK"
