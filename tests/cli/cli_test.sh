#!/usr/bin/env bash
# End-to-end test of the `callwire` command: exit codes, stdout and stderr formats.
# Usage: cli_test.sh path/to/callwire
set -uo pipefail

bin=${1:?usage: cli_test.sh path/to/callwire}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# run ARGS... [< input]: sets $out, $err and $rc.
run() {
  "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  out=$(cat "$tmp/out")
  err=$(cat "$tmp/err")
}

expect_rc() {  # expect_rc WANT WHAT
  [ "$rc" -eq "$1" ] || fail "$2: exit $rc, wanted $1 (stderr: $err)"
}

expect_eq() {  # expect_eq GOT WANT WHAT
  [ "$1" == "$2" ] || fail "$3: got [$1], wanted [$2]"
}

expect_match() {  # expect_match TEXT REGEX WHAT
  [[ "$1" =~ $2 ]] || fail "$3: [$1] does not match /$2/"
}

# --- decode a valid call, from a file and from standard input
cat >"$tmp/call.xml" <<'EOF'
<?xml version="1.0"?>
<methodCall>
  <methodName>sample.add</methodName>
  <params>
    <param><value><int>5</int></value></param>
    <param><value><i4>3</i4></value></param>
  </params>
</methodCall>
EOF
want='{"methodName":"sample.add","params":[5,3]}'
run decode "$tmp/call.xml"
expect_rc 0 "decode FILE"
expect_eq "$out" "$want" "decode FILE"
expect_eq "$err" "" "decode FILE stderr"
run decode - <"$tmp/call.xml"
expect_rc 0 "decode -"
expect_eq "$out" "$want" "decode -"
run decode <"$tmp/call.xml"
expect_rc 0 "decode (stdin)"
expect_eq "$out" "$want" "decode (stdin)"
[ "$(tail -c 1 "$tmp/out" | od -An -c | tr -d ' ')" == '\n' ] || fail "decode: no final newline"

# --- decode a response and a fault
printf '<methodResponse><params><param><value><i8>8589934592</i8></value></param></params></methodResponse>' >"$tmp/response.xml"
run decode "$tmp/response.xml"
expect_rc 0 "decode response"
expect_eq "$out" '{"result":{"$i8":8589934592}}' "decode response"
cat >"$tmp/fault.xml" <<'EOF'
<methodResponse><fault><value><struct>
  <member><name>faultCode</name><value><int>4</int></value></member>
  <member><name>faultString</name><value><string>Too many parameters.</string></value></member>
</struct></value></fault></methodResponse>
EOF
run decode "$tmp/fault.xml"
expect_rc 0 "decode fault"
expect_eq "$out" '{"fault":{"faultCode":4,"faultString":"Too many parameters."}}' "decode fault"

# --- decode --pretty
run decode --pretty "$tmp/call.xml"
expect_rc 0 "decode --pretty"
expect_eq "$out" $'{\n  "methodName": "sample.add",\n  "params": [\n    5,\n    3\n  ]\n}' \
  "decode --pretty"

# --- encode, and back
echo "$want" >"$tmp/call.json"
run encode "$tmp/call.json"
expect_rc 0 "encode"
expect_match "$out" '<methodName>sample\.add</methodName>' "encode"
expect_match "$out" '<int>5</int>.*<int>3</int>' "encode"
echo "$out" >"$tmp/encoded.xml"
run decode "$tmp/encoded.xml"
expect_eq "$out" "$want" "encode then decode"

# --- encode: dialects
echo '{"result":[{"$i8":1},null]}' >"$tmp/i8.json"
run encode "$tmp/i8.json"
expect_rc 0 "encode --dialect (default)"
expect_match "$out" '<i8>1</i8>' "encode default dialect"
expect_match "$out" '<nil/>' "encode default dialect"
run encode --dialect apache "$tmp/i8.json"
expect_rc 0 "encode --dialect apache"
expect_match "$out" '<ex:i8>1</ex:i8>' "encode --dialect apache"
expect_match "$out" 'xmlns:ex=' "encode --dialect apache"
run encode --dialect i8 - <"$tmp/i8.json"
expect_rc 0 "encode --dialect i8 -"
expect_match "$out" '<i8>1</i8>' "encode --dialect i8"

# --- refused documents: exit 1, `fault CODE: message` on stderr, nothing on stdout
printf '<methodCall><methodName>x</methodName>' >"$tmp/malformed.xml"
run decode "$tmp/malformed.xml"
expect_rc 1 "decode malformed"
expect_match "$err" '^fault -32700: .+' "decode malformed stderr"
expect_eq "$out" "" "decode malformed stdout"
[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "decode malformed: stderr is not one line: $err"

printf '<methodCall><methodName>x</methodName></methodCall>' >"$tmp/small.xml"
run decode --max-size 10 "$tmp/small.xml"
expect_rc 1 "decode --max-size"
expect_match "$err" '^fault -32600: .*limit' "decode --max-size stderr"
run decode --max-size 1KiB "$tmp/small.xml"
expect_rc 0 "decode --max-size 1KiB"

echo '{"methodName":"x","params":[1,]}' >"$tmp/bad.json"
run encode "$tmp/bad.json"
expect_rc 1 "encode bad JSON"
expect_match "$err" '^fault -32700: invalid JSON at line 1, column 31' "encode bad JSON stderr"
echo '{"methodName":"x","params":[3000000000]}' >"$tmp/big.json"
run encode "$tmp/big.json"
expect_rc 1 "encode int out of range"
expect_match "$err" '^fault -32600: .*\{"\$i8": 3000000000\}' "encode int out of range stderr"

# --- usage and I/O errors: exit 2
run decode "$tmp/does-not-exist.xml"
expect_rc 2 "decode missing file"
expect_match "$err" 'cannot open .*does-not-exist\.xml' "decode missing file stderr"
run encode "$tmp/does-not-exist.json"
expect_rc 2 "encode missing file"
run decode "$tmp"
expect_rc 2 "decode a directory"
run
expect_rc 2 "no subcommand"
run frobnicate
expect_rc 2 "unknown subcommand"
run encode --dialect xmlrpc-c "$tmp/call.json"
expect_rc 2 "bad dialect"
run decode --max-size -1 "$tmp/call.xml"
expect_rc 2 "negative --max-size"
run decode "$tmp/call.xml" "$tmp/call.xml"
expect_rc 2 "two files"

# --- help and version: exit 0
run --version
expect_rc 0 "--version"
expect_match "$out" '^callwire [0-9]+\.[0-9]+\.[0-9]+' "--version"
run --help
expect_rc 0 "--help"
expect_match "$out" 'decode' "--help"

# --- call against `callwire serve` on a free port, XML-RPC and JSON-RPC
# The server's first line is its URL; reading it from a FIFO waits exactly until it is up.
mkfifo "$tmp/listening"
"$bin" serve --listen 127.0.0.1:0 --threads 1 --cors-allow-origin https://app.example \
  --cors-max-age 600 --max-requests-per-connection 100 >"$tmp/listening" 2>"$tmp/serve.err" &
server_pid=$!
exec 3<"$tmp/listening"
read -r -t 30 _ _ url <&3 || fail "serve: no 'listening on URL' line"
run call "$url" sample.add i/2 i/3
expect_rc 0 "call XML-RPC"
expect_eq "$out" "5" "call XML-RPC"
run call --json-rpc "$url" sample.add 2 3
expect_rc 0 "call --json-rpc"
expect_eq "$out" "5" "call --json-rpc"
run call "jsonrpc+$url" echo '"t\u00e9"' '[1,{"a":null}]' 1.5 2147483648 true
expect_rc 0 "call jsonrpc+URL"
expect_eq "$out" '["té",[1,{"a":null}],1.5,2147483648,true]' "call jsonrpc+URL: plain JSON out"
run call --json-rpc "$url" sample.add 2 hello
expect_rc 2 "call --json-rpc: a bare word is no JSON"
expect_match "$err" "parameter 2 \(hello\): not a JSON value" "call --json-rpc: bad param"
run call --json-rpc "$url" sample.add 2 '"x"'
expect_rc 1 "call --json-rpc: fault"
expect_match "$err" '^fault -32602: ' "call --json-rpc: fault on stderr"
run call --json-rpc "$url" no.such.method
expect_rc 1 "call --json-rpc: unknown method"
expect_match "$err" '^fault -32601: ' "call --json-rpc: unknown method"
run call --json-rpc --notify "$url" sample.add 1 1
expect_rc 0 "call --json-rpc --notify"
expect_eq "$out" "" "call --json-rpc --notify prints nothing"
run call --notify "$url" sample.add i/1 i/1
expect_rc 0 "call --notify (XML-RPC)"
# Parameters by name: JSON-RPC's "params" object (a method without names takes it as its one
# struct), XML-RPC's one struct.
run call --json-rpc --named "$url" validator1.easyStructTest '{"moe":1,"larry":2,"curly":3}'
expect_rc 0 "call --json-rpc --named"
expect_eq "$out" "6" "call --json-rpc --named"
run call --named "$url" validator1.easyStructTest 'struct/{moe:i/1,larry:i/2,curly:i/4}'
expect_rc 0 "call --named (XML-RPC)"
expect_eq "$out" "7" "call --named (XML-RPC)"
run call --json-rpc --named "$url" sample.add 1 2
expect_rc 2 "call --named with two PARAMs"
expect_match "$err" "--named takes one PARAM, a struct" "call --named: one struct"
run call --json-rpc --named --notify "$url" sample.add '{}'
expect_rc 2 "--named with --notify"
run call --json-rpc --pretty "jsonrpc+$url" echo '{"a":[1,{}],"b":"x,y:[z]"}' '[]'
expect_rc 0 "--pretty with --json-rpc"
expect_eq "$out" $'[\n  {\n    "a": [\n      1,\n      {}\n    ],\n    "b": "x,y:[z]"\n  },\n  []\n]' \
  "--pretty with --json-rpc: plain JSON indented"
# Parameters from a file (@FILE) and from standard input (-), each less its final line break.
printf 'struct/{moe:i/1,larry:i/2,curly:i/3}\n' >"$tmp/param.txt"
run call "$url" validator1.easyStructTest "@$tmp/param.txt"
expect_rc 0 "call @FILE"
expect_eq "$out" "6" "call @FILE"
printf '[40, 2]\n' | "$bin" call --json-rpc "$url" echo - '"after"' >"$tmp/out" 2>"$tmp/err"
rc=$?
expect_rc 0 "call - (standard input)"
expect_eq "$(cat "$tmp/out")" '[[40,2],"after"]' "call - (standard input)"
run call "$url" echo - - </dev/null
expect_rc 2 "call - twice"
expect_match "$err" "parameter 2 \(-\): standard input was read already" "call - twice"
run call "$url" echo "@$tmp/no-such-file"
expect_rc 2 "call @FILE missing"
expect_match "$err" "parameter 1 \(@.*no-such-file\): cannot read .*No such file" "call @FILE missing"
# A bare number goes as a string, as in xmlrpc-c; call says so once, and how to send a number.
run call "$url" echo 5 2.5 s/7
expect_rc 0 "call with a bare number"
expect_eq "$out" '["5","2.5","7"]' "call with a bare number: strings"
expect_eq "$err" 'callwire: note: parameter 1, 5, is sent as the string "5" (write i/5 for an int, s/5 to keep the string and this note quiet)' \
  "call with a bare number: the note"
run call "$url" echo i/5 s/5 five
expect_eq "$err" "" "call with no bare number: no note"
# --cors-allow-origin and --cors-max-age: a browser's preflight, answered.
cors=$(python3 -c '
import sys, urllib.request
r = urllib.request.urlopen(urllib.request.Request(sys.argv[1], method="OPTIONS",
    headers={"Origin": "https://app.example", "Access-Control-Request-Method": "POST"}))
print(r.status, r.headers["Access-Control-Allow-Origin"], r.headers["Access-Control-Max-Age"])
' "$url" 2>&1)
expect_eq "$cors" "200 https://app.example 600" "serve --cors-allow-origin: the preflight"
# The same as a browser sends it, by curl: the preflight with the header fields the page
# will send, then the call itself, whose answer must carry Access-Control-Allow-Origin too.
command -v curl >/dev/null || fail "curl is missing (scripts/setup.sh installs it)"
preflight=$(curl -s -i -X OPTIONS -H "Origin: https://app.example" \
  -H "Access-Control-Request-Method: POST" \
  -H "Access-Control-Request-Headers: content-type" "$url" | tr -d '\r')
expect_match "$preflight" "^HTTP/1.1 200" "curl preflight: status"
expect_match "$preflight" $'\n''[Aa]ccess-[Cc]ontrol-[Aa]llow-[Oo]rigin: https://app.example' \
  "curl preflight: Allow-Origin"
expect_match "$preflight" $'\n''[Aa]ccess-[Cc]ontrol-[Aa]llow-[Mm]ethods: [^'$'\n'']*POST' \
  "curl preflight: Allow-Methods"
expect_match "$preflight" $'\n''[Aa]ccess-[Cc]ontrol-[Aa]llow-[Hh]eaders: [^'$'\n'']*[Cc]ontent-[Tt]ype' \
  "curl preflight: Allow-Headers"
answer=$(curl -s -i -H "Origin: https://app.example" -H "Content-Type: text/xml" \
  --data '<?xml version="1.0"?><methodCall><methodName>sample.add</methodName><params><param><value><int>2</int></value></param><param><value><int>3</int></value></param></params></methodCall>' \
  "$url" | tr -d '\r')
expect_match "$answer" $'\n''[Aa]ccess-[Cc]ontrol-[Aa]llow-[Oo]rigin: https://app.example' \
  "curl call with Origin: Allow-Origin"
expect_match "$answer" "<int>5</int>" "curl call with Origin: the result"
kill "$server_pid"
wait "$server_pid" 2>/dev/null
exec 3<&-

# --- call over newline-delimited JSON-RPC: `serve --jsonl`, `call jsonl://...`
mkfifo "$tmp/listening-jsonl"
"$bin" serve --listen 127.0.0.1:0 --jsonl 127.0.0.1:0 --threads 1 \
  >"$tmp/listening-jsonl" 2>"$tmp/serve-jsonl.err" &
jsonl_pid=$!
exec 3<"$tmp/listening-jsonl"
read -r -t 30 _ _ _ <&3 || fail "serve --jsonl: no first 'listening on URL' line"
read -r -t 30 _ _ jsonl_url <&3 || fail "serve --jsonl: no 'listening on jsonl://' line"
[[ $jsonl_url == jsonl://127.0.0.1:* ]] || fail "serve --jsonl: not a jsonl URL: $jsonl_url"
run call "$jsonl_url" sample.add 2 3
expect_rc 0 "call jsonl://"
expect_eq "$out" "5" "call jsonl://: JSON-RPC without --json-rpc"
run call --notify "$jsonl_url" sample.add 1 1
expect_rc 0 "call --notify jsonl://: no line is awaited"
expect_eq "$out" "" "call --notify jsonl:// prints nothing"
run call --header 'X-A: 1' "$jsonl_url" sample.add 2 3
expect_rc 2 "call jsonl:// --header"
expect_match "$err" "header fields and credentials cannot travel over JSON lines" \
  "call jsonl:// --header: why"
kill "$jsonl_pid"
wait "$jsonl_pid" 2>/dev/null
exec 3<&-

# --- --authorization and --user-agent reach the server as given: a one-request Python server
# writes the header fields it received and answers 1.
python3 -c '
import http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers["Content-Length"]))
        with open(sys.argv[1], "w") as f:
            f.write("%s\n%s\n%s\n%s\n" % (self.headers["Authorization"], self.headers["User-Agent"],
                                        self.headers["X-Request-Id"], self.headers["X-Tenant"]))
        body = b"<methodResponse><params><param><value><int>1</int></value></param></params></methodResponse>"
        self.send_response(200)
        self.send_header("Content-Type", "text/xml")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a): pass
s = http.server.HTTPServer(("127.0.0.1", 0), H)
print(s.server_port, flush=True)
s.handle_request()
' "$tmp/headers" >"$tmp/py_port" &
py_pid=$!
for _ in $(seq 100); do [ -s "$tmp/py_port" ] && break; sleep 0.1; done
run call --authorization "Bearer t0k3n" --user-agent "cli-test/1" --header "X-Request-Id: 42" \
  --header "X-Tenant:acme " "http://127.0.0.1:$(cat "$tmp/py_port")/RPC2" any.method
expect_rc 0 "call --authorization --user-agent --header"
wait "$py_pid" 2>/dev/null
expect_eq "$(cat "$tmp/headers" 2>/dev/null)" "Bearer t0k3n
cli-test/1
42
acme" "--authorization, --user-agent and --header sent"
run call --header "no colon" http://127.0.0.1:9/RPC2 any.method
expect_rc 2 "--header without a colon"
expect_match "$err" "--header no colon: write it as 'Name: value'" "--header without a colon"

# --- Ctrl-C during a call: the call ends at once and the command exits 130. The server
# accepts and never answers. SIGINT goes only once the call has connected: a background job
# of a script starts with SIGINT ignored, so one sent before the command installs its handler
# (a slow start under the sanitizers) would be lost.
python3 -c '
import socket, sys, time
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen()
print(s.getsockname()[1], flush=True)
c, _ = s.accept()
open(sys.argv[1], "w").close()
time.sleep(20)
' "$tmp/silent_accepted" >"$tmp/silent_port" &
silent_pid=$!
for _ in $(seq 100); do [ -s "$tmp/silent_port" ] && break; sleep 0.1; done
"$bin" call --timeout 20 "http://127.0.0.1:$(cat "$tmp/silent_port")/RPC2" any.method \
  >"$tmp/out" 2>"$tmp/err" &
call_pid=$!
for _ in $(seq 100); do [ -e "$tmp/silent_accepted" ] && break; sleep 0.1; done
start=$SECONDS
kill -INT "$call_pid"
wait "$call_pid"
rc=$?
err=$(cat "$tmp/err")
expect_rc 130 "call interrupted by SIGINT"
expect_eq "$err" "callwire: interrupted" "call interrupted by SIGINT: stderr"
((SECONDS - start <= 3)) || fail "call interrupted by SIGINT: took $((SECONDS - start)) s"
kill "$silent_pid" 2>/dev/null
wait "$silent_pid" 2>/dev/null

# --- TLS: CAs from hashed directories (openssl rehash), the minimum version, cipher lists,
# and a refused client certificate in the server's log.
if command -v openssl >/dev/null; then
  mkdir -p "$tmp/tls/cas" "$tmp/tls/empty"
  for who in server alice mallory; do
    san="DNS:localhost,IP:127.0.0.1"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
      -subj "/CN=$who" -addext "subjectAltName=$san" -keyout "$tmp/tls/$who.key" \
      -out "$tmp/tls/$who.pem" >/dev/null 2>&1 || fail "openssl req ($who)"
  done
  cp "$tmp/tls/server.pem" "$tmp/tls/alice.pem" "$tmp/tls/cas/"
  openssl rehash "$tmp/tls/cas" >/dev/null 2>&1 || fail "openssl rehash"
  mkfifo "$tmp/tls/listening"
  "$bin" serve --listen 127.0.0.1:0 --threads 1 --tls-cert "$tmp/tls/server.pem" \
    --tls-key "$tmp/tls/server.key" --tls-client-ca-dir "$tmp/tls/cas" --tls-min-version 1.3 \
    --tls-ciphersuites TLS_AES_256_GCM_SHA384 >"$tmp/tls/listening" 2>"$tmp/tls/serve.err" &
  tls_pid=$!
  exec 4<"$tmp/tls/listening"
  read -r -t 30 _ _ tls_url <&4 || fail "serve --tls-client-ca-dir: no 'listening on URL' line"
  mutual=(--cert "$tmp/tls/alice.pem" --key "$tmp/tls/alice.key")
  run call --ca-dir "$tmp/tls/cas" "${mutual[@]}" "$tls_url" sample.add i/2 i/3
  expect_rc 0 "call --ca-dir (and --tls-client-ca-dir on the server)"
  expect_eq "$out" "5" "call --ca-dir"
  run call --ca-dir "$tmp/tls/empty" "${mutual[@]}" "$tls_url" sample.add i/2 i/3
  expect_rc 2 "call --ca-dir without the server's CA"
  expect_match "$err" "certificate verify failed" "call --ca-dir without the server's CA"
  run call --ca-dir "$tmp/tls/cas" "${mutual[@]}" --tls-ciphersuites TLS_CHACHA20_POLY1305_SHA256 \
    "$tls_url" sample.add i/2 i/3
  expect_rc 2 "call --tls-ciphersuites with none in common"
  expect_match "$err" "TLS error" "call --tls-ciphersuites with none in common"
  run call --ca-dir "$tmp/tls/cas" --tls-ciphers NOPE "$tls_url" sample.add i/2 i/3
  expect_rc 2 "call --tls-ciphers NOPE"
  expect_match "$err" "NOPE" "call --tls-ciphers NOPE"
  run call --ca-dir "$tmp/tls/cas" --tls-min-version 1.1 "$tls_url" sample.add i/2 i/3
  [ "$rc" -ne 0 ] || fail "call --tls-min-version 1.1 was accepted"
  run call --ca-dir "$tmp/tls/cas" --cert "$tmp/tls/mallory.pem" --key "$tmp/tls/mallory.key" \
    "$tls_url" sample.add i/2 i/3
  expect_rc 2 "call with a client certificate the server does not trust"
  for _ in $(seq 50); do grep -q "TLS handshake failed" "$tmp/tls/serve.err" && break; sleep 0.1; done
  expect_match "$(cat "$tmp/tls/serve.err")" "127\.0\.0\.1:[0-9]+: TLS handshake failed: .*self-signed certificate" \
    "serve logs a refused client certificate"
  run call --ca-dir "$tmp/tls/cas" "${mutual[@]}" "$tls_url" sample.add i/4 i/3
  expect_eq "$out" "7" "serve keeps serving after a refusal"
  kill "$tls_pid"
  wait "$tls_pid" 2>/dev/null
  exec 4<&-
  # SIGHUP reloads the certificate: new connections get the one now in the files.
  cp "$tmp/tls/server.pem" "$tmp/tls/served.pem"
  cp "$tmp/tls/server.key" "$tmp/tls/served.key"
  mkfifo "$tmp/tls/reload-listening"
  "$bin" serve --listen 127.0.0.1:0 --threads 1 --tls-cert "$tmp/tls/served.pem" \
    --tls-key "$tmp/tls/served.key" >"$tmp/tls/reload-listening" 2>"$tmp/tls/reload.err" &
  reload_pid=$!
  exec 5<"$tmp/tls/reload-listening"
  read -r -t 30 _ _ reload_url <&5 || fail "serve (reload): no 'listening on URL' line"
  run call --ca-file "$tmp/tls/server.pem" "$reload_url" sample.add i/1 i/1
  expect_eq "$out" "2" "serve --tls-cert before SIGHUP"
  cp "$tmp/tls/mallory.pem" "$tmp/tls/served.pem"
  cp "$tmp/tls/mallory.key" "$tmp/tls/served.key"
  kill -HUP "$reload_pid"
  for _ in $(seq 50); do grep -q "reloaded" "$tmp/tls/reload.err" && break; sleep 0.1; done
  expect_eq "$(cat "$tmp/tls/reload.err")" "callwire: SIGHUP: TLS certificate reloaded" \
    "serve reloads its certificate on SIGHUP"
  run call --ca-file "$tmp/tls/mallory.pem" "$reload_url" sample.add i/2 i/2
  expect_eq "$out" "4" "serve after SIGHUP: the new certificate"
  run call --ca-file "$tmp/tls/server.pem" "$reload_url" sample.add i/2 i/2
  expect_rc 2 "serve after SIGHUP: the old certificate is gone"
  kill "$reload_pid"
  wait "$reload_pid"
  rc=$?
  expect_rc 0 "serve after SIGHUP stops cleanly"
  exec 5<&-
  run serve --listen 127.0.0.1:0 --tls-cert "$tmp/tls/server.pem" --tls-key "$tmp/tls/server.key" \
    --tls-ciphers "ECDHE+AESGCM:TYPO"
  expect_rc 2 "serve --tls-ciphers with an entry that selects nothing"
  expect_match "$err" "TYPO" "serve --tls-ciphers names the bad entry"
else
  fail "the openssl program is missing (scripts/setup.sh installs it)"
fi
# --- --proxy and --proxy-from-env: a two-request Python "proxy" writes the request line and
# the Proxy-Authorization it received and answers 1 itself.
python3 -c '
import http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers["Content-Length"]))
        with open(sys.argv[1], "a") as f:
            f.write("%s %s\n" % (self.requestline, self.headers["Proxy-Authorization"]))
        body = b"<methodResponse><params><param><value><int>1</int></value></param></params></methodResponse>"
        self.send_response(200)
        self.send_header("Content-Type", "text/xml")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a): pass
s = http.server.HTTPServer(("127.0.0.1", 0), H)
print(s.server_port, flush=True)
s.handle_request()
s.handle_request()
' "$tmp/proxied" >"$tmp/proxy_port" &
proxy_pid=$!
for _ in $(seq 100); do [ -s "$tmp/proxy_port" ] && break; sleep 0.1; done
proxy="127.0.0.1:$(cat "$tmp/proxy_port")"
run call --proxy "http://al%40ice:pw@$proxy" http://origin.invalid:8080/RPC2 any.method
expect_rc 0 "call --proxy"
expect_eq "$out" "1" "call --proxy: the answer"
# The environment is read only with --proxy-from-env: without it the call goes straight to
# port 1 (refused); with it, to the proxy. Upper-case HTTP_PROXY is never read (curl's rule).
http_proxy="http://$proxy" run call http://127.0.0.1:1/RPC2 any.method
expect_rc 2 "http_proxy without --proxy-from-env"
expect_match "$err" "cannot connect" "http_proxy without --proxy-from-env"
http_proxy= HTTP_PROXY="http://$proxy" run call --proxy-from-env http://127.0.0.1:1/RPC2 any.method
expect_rc 2 "HTTP_PROXY is ignored"
http_proxy="http://$proxy" no_proxy="" run call --proxy-from-env http://127.0.0.1:1/RPC2 any.method
expect_rc 0 "call --proxy-from-env"
wait "$proxy_pid" 2>/dev/null
expect_eq "$(cat "$tmp/proxied" 2>/dev/null)" "POST http://origin.invalid:8080/RPC2 HTTP/1.1 Basic YWxAaWNlOnB3
POST http://127.0.0.1:1/RPC2 HTTP/1.1 None" "--proxy and --proxy-from-env: absolute form, credentials"
# A proxy that is not http://, or one for a URL that cannot be proxied: refused at once.
run call --proxy socks5://127.0.0.1:1080 http://127.0.0.1:1/RPC2 any.method
expect_rc 2 "call --proxy socks5://"
expect_match "$err" "invalid argument.*http:// only" "call --proxy socks5://"
run call --proxy "http://$proxy" scgi://127.0.0.1:1 any.method
expect_rc 2 "call --proxy with scgi://"
expect_match "$err" "invalid argument" "call --proxy with scgi://"
# A proxy that is down is named.
run call --proxy http://127.0.0.1:1 http://127.0.0.1:2/RPC2 any.method
expect_rc 2 "call --proxy (down)"
expect_match "$err" "cannot connect: proxy 127.0.0.1:1: " "call --proxy (down)"

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)" >&2
  exit 1
fi
echo "cli: all checks passed"
