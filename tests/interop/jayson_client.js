// jayson's HTTP client (npm jayson, pinned and installed by scripts/setup.sh, found through
// NODE_PATH) against a JSON-RPC server: the peer test_jayson.py points at `callwire serve`.
//
// Usage: node jayson_client.js URL
//
// Runs the steps below one after the other and prints one line per step, "NAME JSON", JSON being
// {"request": what jayson sent, "response": what it handed back (null for none)}, or
// {"request": ..., "failure": {"message", "code"}} when jayson reported an error (a transport
// error or an HTTP status). test_jayson.py checks the lines. Every exchange is bounded by the
// HTTP client's timeout.
//
// jayson serialises every request with JSON.stringify, so it cannot send malformed JSON (-32700):
// that is left to the raw peer in test_json_rpc.py. Its raw mode (a request object handed over
// as is) sends the invalid requests.
'use strict';

const jayson = require('jayson');

const TIMEOUT_MS = 10000;
const url = new URL(process.argv[2]);
const client = jayson.Client.http({
  hostname: url.hostname, port: url.port, path: url.pathname, timeout: TIMEOUT_MS,
});

// client.request(...) builds a request without sending it when given no callback.
const build = (method, params, id) => client.request(method, params, id);

function send(...args) {
  return new Promise((resolve) => {
    const request = client.request(...args, (err, response) => {
      if (err) resolve({request, failure: {message: err.message, code: err.code}});
      else resolve({request, response: response === undefined ? null : response});
    });
  });
}

const everything = ['caf\u00e9 \u2603', 42, -7, 1.5, true, false, null, [1, [2]], {a: {b: []}}];

const steps = [
  ['add', () => send('sample.add', [2, 3], 1)],
  ['id_zero', () => send('sample.add', [1, 1], 0)],
  ['id_string', () => send('echo', everything, 'abc')],
  ['id_generated', () => send('sample.add', [20, 22])],  // jayson's default id: a UUID
  ['id_null', () => send({jsonrpc: '2.0', method: 'sample.add', params: [1, 2], id: null})],
  ['named', () => send('validator1.easyStructTest', {moe: 1, larry: 2, curly: 3}, 2)],
  ['not_found', () => send('no.such.method', [], 3)],
  ['bad_params_type', () => send('sample.add', ['x', 1], 4)],
  ['bad_params_count', () => send('sample.add', [1], 5)],
  ['invalid_method', () => send({jsonrpc: '2.0', method: 5, id: 6})],
  ['invalid_version', () => send({jsonrpc: '1.0', method: 'echo', id: 7})],
  ['invalid_params', () => send({jsonrpc: '2.0', method: 'echo', params: 1, id: 8})],
  ['notification', () => send('sample.add', [1, 2], null)],
  ['notification_not_found', () => send('no.such.method', [], null)],
  ['batch', () => send([
    build('sample.add', [1, 2], 1),
    build('sample.add', [7, 7], null),
    build('echo', ['two'], 'two'),
    build('no.such.method', [], 3),
    {jsonrpc: '2.0', method: 5, id: 4},
  ])],
  ['batch_notifications', () => send([build('sample.add', [1, 2], null), build('echo', [], null)])],
  ['after', () => send('sample.add', [40, 2], 9)],
];

(async () => {
  for (const [name, step] of steps) {
    process.stdout.write(`${name} ${JSON.stringify(await step())}\n`);
  }
})().catch((err) => {
  process.stderr.write(`jayson_client: ${err.stack}\n`);
  process.exit(1);
});
