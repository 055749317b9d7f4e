#!/usr/bin/env node
// testserver-loadtest [--delay ms] [--error 5xx] [--percent yy] [--size B] [--impl I] [--cores N] [port]:
// loadtest 8's test server, on this runtime's own server.

import mri from 'mri';
import { startServer } from '../index.js';
import { number } from '../run/options.js';
import { argv, exit, onInterrupt, readFile, availableCores } from '../../runtimes/index.js';
import { canShare } from '../../runtimes/test-server/server.js';

const USAGE = 'Usage: testserver-loadtest [--delay ms] [--error 5xx] [--percent yy] [--size bytes] [--impl native|node] [--cores N] [--host H] [--cert F --key F] [--http2] [--quiet] [port]';

function fail(message) {
  console.error(`testserver-loadtest: ${message}`);
  exit(2);
}

let bad = null;
const args = mri(argv(), {
  string: ['delay', 'error', 'percent', 'size', 'impl', 'cores', 'host', 'cert', 'key'],
  boolean: ['quiet', 'help', 'http2'],
  alias: { delay: [], error: [], percent: [], size: [], impl: [], cores: [], host: [], cert: [], key: [], quiet: [], http2: [], help: ['h'] },
  unknown: (flag) => (bad = flag),
});
if (bad) fail(`unknown option '${bad}'`);
if (args.help) {
  console.log(USAGE);
  exit(0);
}
try {
  const impl = args.impl === undefined ? 'native' : args.impl;
  if (impl !== 'native' && impl !== 'node') fail(`--impl must be native or node, got '${impl}'`);
  const options = {
    port: number('port', args._[0], { integer: true, fallback: 7357 }),
    delay: number('--delay', args.delay, { fallback: 0 }),
    error: number('--error', args.error, { integer: true, min: 100, fallback: 0 }),
    percent: number('--percent', args.percent, { fallback: 0 }),
    size: number('--size', args.size, { integer: true, fallback: undefined }),
    impl,
    // Half the machine's cores, as loadtest 8's test server since 6.3 (one where the server
    // cannot share its port: node:http on bun).
    // (HTTP/2, node:http2, runs on one process.)
    cores: number('--cores', args.cores, { integer: true, min: 1, fallback: canShare(impl) && !args.http2 ? Math.max(1, Math.floor(availableCores() / 2)) : 1 }),
    host: args.host || undefined,
    quiet: Boolean(args.quiet),
    http2: Boolean(args.http2),
  };
  if (Boolean(args.cert) !== Boolean(args.key)) fail('--cert and --key go together (https)');
  if (args.cert) {
    options.cert = await readFile(args.cert).catch((e) => fail(`cannot read --cert '${args.cert}' (${e.code})`));
    options.key = await readFile(args.key).catch((e) => fail(`cannot read --key '${args.key}' (${e.code})`));
  }
  const server = await startServer(options);
  let stopping = false;
  onInterrupt(async () => {
    if (stopping) return;
    stopping = true;
    await server.close();
    const each = server.processes ? ` on ${server.processes.length} processes: ${server.processes.map((p) => p.requests).join(' + ')}` : '';
    const echoed = server.messages ? ` and echoed ${server.messages} WebSocket messages` : '';
    console.log(`Served ${server.requests} requests (${server.errors} errors)${echoed}${each}.`);
    exit(0);
  });
} catch (err) {
  fail(err.message.replace(/^could not start test server: /, ''));
}
