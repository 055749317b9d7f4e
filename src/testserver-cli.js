#!/usr/bin/env node
// testserver-loadtest [--delay ms] [--error 5xx] [--percent yy] [port]: loadtest 8's test server.

import mri from 'mri';
import { startServer } from './index.js';
import { number } from './options.js';
import { argv, exit, onInterrupt, readFile } from '../runtimes/index.js';

function fail(message) {
  console.error(`testserver-loadtest: ${message}`);
  exit(2);
}

let bad = null;
const args = mri(argv(), {
  string: ['delay', 'error', 'percent', 'cores', 'host', 'cert', 'key'],
  boolean: ['quiet', 'help'],
  alias: { delay: [], error: [], percent: [], cores: [], host: [], cert: [], key: [], quiet: [], help: ['h'] },
  unknown: (flag) => (bad = flag),
});
if (bad) fail(`unknown option '${bad}'`);
if (args.help) {
  console.log('Usage: testserver-loadtest [--delay ms] [--error 5xx] [--percent yy] [--host H] [--cert F --key F] [--quiet] [port]');
  exit(0);
}
try {
  const options = {
    port: number('port', args._[0], { integer: true, fallback: 7357 }),
    delay: number('--delay', args.delay, { fallback: 0 }),
    error: number('--error', args.error, { integer: true, min: 100, fallback: 0 }),
    percent: number('--percent', args.percent, { fallback: 0 }),
    host: args.host || undefined,
    quiet: Boolean(args.quiet),
  };
  if (Boolean(args.cert) !== Boolean(args.key)) fail('--cert and --key go together (https)');
  if (args.cert) {
    options.cert = await readFile(args.cert).catch((e) => fail(`cannot read --cert '${args.cert}' (${e.code})`));
    options.key = await readFile(args.key).catch((e) => fail(`cannot read --key '${args.key}' (${e.code})`));
  }
  const cores = number('--cores', args.cores, { integer: true, min: 1, fallback: 1 });
  if (cores !== 1) fail('--cores: the test server runs on one core for now');
  const server = await startServer(options);
  onInterrupt(async () => {
    await server.close();
    console.log(`Served ${server.requests} requests (${server.errors} errors)${server.messages ? ` and echoed ${server.messages} WebSocket messages` : ''}.`);
    exit(0);
  });
} catch (err) {
  fail(err.message);
}
