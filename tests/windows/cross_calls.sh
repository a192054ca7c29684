#!/usr/bin/env bash
# Calls between a Windows program and a Linux one on loopback (make windows runs it): callwire.exe
# under Wine serves Linux's callwire and Python's xmlrpc.client, and calls Linux's `callwire
# serve`; over HTTP and over HTTPS with a certificate each side verifies. Prints one line per
# check; exits 1 if any failed.
#
# Usage: cross_calls.sh WINDOWS_BUILD_DIR LINUX_CALLWIRE   (WINEPREFIX set, as make windows does)
set -u
windows_exe="$1/tools/callwire.exe"
linux_exe="$2"
wine=/usr/lib/wine/wine64
work=$(mktemp -d)
pids=()
failed=0

finish() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
  wait 2>/dev/null
  rm -rf "$work"
}
trap finish EXIT

# A certificate for 127.0.0.1, trusted by both sides through --ca-file.
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1 \
  -addext subjectAltName=IP:127.0.0.1 -keyout "$work/key.pem" -out "$work/cert.pem" \
  2>/dev/null || { echo "cross_calls: openssl could not make a certificate"; exit 1; }
win_path() { $wine winepath -w "$1" 2>/dev/null | tr -d '\r'; }
win_cert=$(win_path "$work/cert.pem")
win_key=$(win_path "$work/key.pem")

# Starts a server (its command line after the name), waits for its first URL, prints it.
start_server() {
  local name=$1 out="$work/$1.out"
  shift
  "$@" --listen 127.0.0.1:0 >"$out" 2>"$work/$name.err" &
  pids+=($!)
  for _ in $(seq 1 100); do
    url=$(grep -o -m1 'https\?://[^ ]*' "$out" 2>/dev/null | tr -d '\r')
    if [ -n "$url" ]; then
      echo "$url"
      return 0
    fi
    sleep 0.1
  done
  echo "cross_calls: $name did not start: $(cat "$work/$name.err")" >&2
  return 1
}

# check NAME EXPECTED COMMAND...: the command's output (CR dropped) must be EXPECTED.
check() {
  local name=$1 expected=$2
  shift 2
  local got
  got=$(timeout 60 "$@" 2>&1 | tr -d '\r')
  if [ "$got" = "$expected" ]; then
    echo "ok    $name"
  else
    echo "FAIL  $name: expected '$expected', got '$got'"
    failed=1
  fi
}

win_http=$(start_server windows-http $wine "$windows_exe" serve) || exit 1
win_https=$(start_server windows-https $wine "$windows_exe" serve \
  --tls-cert "$win_cert" --tls-key "$win_key") || exit 1
linux_http=$(start_server linux-http "$linux_exe" serve) || exit 1
linux_https=$(start_server linux-https "$linux_exe" serve \
  --tls-cert "$work/cert.pem" --tls-key "$work/key.pem") || exit 1

big=$(head -c 20000 /dev/zero | tr '\0' 'w')  # an answer in several TCP segments
check "Linux callwire -> Windows server, HTTP" 42 "$linux_exe" call "$win_http" sample.add i/20 i/22
check "Linux callwire -> Windows server, 20 kB (its MD5)" "$(printf '["%s"]\n' "$big" | md5sum)" \
  bash -c '"$0" call "$1" echo "s/$2" | md5sum' "$linux_exe" "$win_http" "$big"
check "Linux callwire -> Windows server, HTTPS" 42 \
  "$linux_exe" call --ca-file "$work/cert.pem" "$win_https" sample.add i/40 i/2
check "Linux callwire -> Windows server, HTTPS, unverified refused" \
  "callwire: TLS error" bash -c '"$0" call "$1" sample.add i/1 i/1 2>&1 | cut -d: -f1-2' \
  "$linux_exe" "$win_https"
check "Python xmlrpc.client -> Windows server" 11 \
  python3 -c "import sys, xmlrpc.client as x; print(x.ServerProxy(sys.argv[1]).sample.add(5, 6))" \
  "$win_http"
check "Windows callwire.exe -> Linux server, HTTP" 42 \
  $wine "$windows_exe" call "$linux_http" sample.add i/21 i/21
check "Windows callwire.exe -> Linux server, HTTPS" 42 \
  $wine "$windows_exe" call --ca-file "$win_cert" "$linux_https" sample.add i/2 i/40
check "Windows callwire.exe -> Linux server, JSON-RPC" 42 \
  $wine "$windows_exe" call "jsonrpc+$linux_http" sample.add 30 12
check "Linux callwire -> Windows server, JSON-RPC" 42 \
  "$linux_exe" call "jsonrpc+$win_http" sample.add 12 30
check "Windows callwire.exe -> Windows server, HTTPS" 42 \
  $wine "$windows_exe" call --ca-file "$win_cert" "$win_https" sample.add i/0 i/42
check "Windows callwire.exe list -> Linux server" sample.add \
  bash -c '"$0" "$1" list "$2" | grep -o -m1 "^sample\.add"' $wine "$windows_exe" "$linux_http"
check "Windows callwire.exe: a Unix socket is refused, saying why" \
  "Unix-domain sockets are not supported on this system" \
  bash -c '"$0" "$1" call unix:C:/x.sock sample.add 2>&1 | grep -o "Unix-domain sockets are not supported on this system"' \
  $wine "$windows_exe"
for listener in "--inetd http" "--listen systemd:" "--listen fd:3"; do
  check "Windows callwire.exe serve $listener: refused, saying why" \
    "Windows passes no sockets between processes" \
    bash -c '"$0" "$1" serve $2 </dev/null 2>&1 | grep -o "Windows passes no sockets between processes"' \
    $wine "$windows_exe" "$listener"
done
exit $failed
