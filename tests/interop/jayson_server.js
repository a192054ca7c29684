// jayson's HTTP server (npm jayson, pinned and installed by scripts/setup.sh, found through
// NODE_PATH): the JSON-RPC peer test_jayson.py points `callwire call --json-rpc` at.
//
// Usage: node jayson_server.js
//
// Listens on 127.0.0.1, port 0, and prints "listening on http://127.0.0.1:PORT/" once it does
// (as `callwire serve` prints its URL; conftest.ServerProcess reads it). Exits 0 on SIGTERM.
//
//   add(a, b)  a + b; -32602 unless both are integers
//   echo(...)  its parameters back as an array
//   fail()     error 42 "the answer is no" with data {"asked": its parameters}
//   types()    an object holding every JSON type
//   note(...)  records its parameters (sent as a notification); notes() returns them all
'use strict';

const jayson = require('jayson');

const notes = [];
const server = new jayson.Server({
  add(args, callback) {
    if (!Array.isArray(args) || args.length !== 2 || !args.every(Number.isInteger)) {
      callback(server.error(jayson.Server.errors.INVALID_PARAMS, 'add takes two integers'));
      return;
    }
    callback(null, args[0] + args[1]);
  },
  echo(args, callback) {
    callback(null, args);
  },
  fail(args, callback) {
    callback(server.error(42, 'the answer is no', {asked: args}));
  },
  types(args, callback) {
    callback(null, {
      string: 'caf\u00e9 \u2603 "quoted" \\ \n', integer: 42, negative: -7,
      big: Number.MAX_SAFE_INTEGER, double: 1.5, true: true, false: false, null: null,
      array: [1, 'two', []], object: {nested: {}},
    });
  },
  note(args, callback) {
    notes.push(args);
    callback();
  },
  notes(args, callback) {
    callback(null, notes);
  },
});

const http = server.http();
http.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening on http://127.0.0.1:${http.address().port}/\n`);
});
process.on('SIGTERM', () => process.exit(0));
