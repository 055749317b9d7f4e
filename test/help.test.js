// --help and -V: the help lists every flag the parser accepts (taken from the tables cli.js parses
// with, so that a flag added without a line of help fails here), grouped, each with its default;
// -V names the version, the runtime and the socket adapter a run would use.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { readFileSync } from 'node:fs';
import { spawnScript } from './servers.js';
import { STRINGS, LONG_STRINGS, BOOLEANS, LONG_BOOLEANS } from '../src/commands/flags.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));
const PACKAGE = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

const show = (r) => `exit ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`;

const GROUPS = ['Load:', 'Requests:', 'Output:', 'gRPC (grpc:// and grpcs:// URLs; -m, -H, -C, -T do not apply):', 'TLS (https, wss and grpcs URLs):', 'Multi-core and many machines:', 'Compatibility with loadtest 8:'];

/** The help's entries by group: { group: [entry text with its continuation lines] }. */
function entries(help) {
  const groups = {};
  let group = null;
  for (const line of help.split('\n')) {
    if (/^\S.*:$/.test(line)) groups[(group = line)] = [];
    else if (!line.trim()) group = null;
    else if (group && /^ {2}(-\w, |\s{4})--/.test(line)) groups[group].push(line);
    else if (group && /^ {20,}/.test(line)) groups[group][groups[group].length - 1] += `\n${line}`;
  }
  return groups;
}

test('--help: exit 0, every flag the parser accepts, short and long together, within 100 columns', async () => {
  const r = await spawnScript(CLI, ['--help']);
  assert.equal(r.code, 0, show(r));
  assert.equal(r.stderr, '');
  const help = r.stdout;
  assert.ok(help.startsWith('Usage: loadtest [options] URL\n'), help);
  assert.match(help, /^ +loadtest merge a\.json b\.json \.\.\. \[--json\]/m);
  const longs = [...Object.values(STRINGS), ...LONG_STRINGS, ...Object.values(BOOLEANS), ...LONG_BOOLEANS];
  assert.ok(longs.length >= 30, `the tables: ${longs.join(' ')}`);
  for (const long of longs) assert.match(help, new RegExp(`--${long}\\b`), `--${long} is missing from --help`);
  for (const [short, long] of Object.entries({ ...STRINGS, ...BOOLEANS })) {
    assert.ok(help.includes(`-${short}, --${long}`), `-${short}, --${long} is missing from --help`);
  }
  // The flags others add (output, thresholds, shards) are listed too.
  for (const flag of ['--json', '--json-file F', '--hdr-log F', '--threshold T', '--shard i/n', '--start-at MS']) {
    assert.ok(help.includes(flag), `${flag} is missing from --help`);
  }
  for (const line of help.split('\n')) assert.ok(line.length <= 100, `longer than 100 columns: ${line}`);
});

test('--help: grouped, and every flag outside the compatibility group says its default', async () => {
  const r = await spawnScript(CLI, ['-h']);
  assert.equal(r.code, 0, show(r));
  const groups = entries(r.stdout);
  assert.deepEqual(Object.keys(groups).filter((g) => GROUPS.includes(g)), GROUPS);
  for (const group of GROUPS.slice(0, -1)) {
    assert.ok(groups[group].length >= 3 || group.startsWith('TLS'), `${group} ${groups[group]}`);
    for (const entry of groups[group]) assert.match(entry, /\(default\b/, `${group} no default in:\n${entry}`);
  }
  const all = Object.values(groups).flat().join('\n');
  assert.ok(all.includes('--maxRequests') && all.includes('--cores') && all.includes('--agent'), all);
});

// What each runtime uses by default, and its version as it reports it.
function thisRuntime() {
  if (globalThis.Bun) return { name: 'bun', version: globalThis.Bun.version, socket: 'Bun.connect' };
  if (globalThis.Deno) return { name: 'deno', version: globalThis.Deno.version.deno, socket: 'Deno.connect' };
  return { name: 'node', version: globalThis.process.versions.node, socket: 'tcp_wrap' };
}

test('-V: the version, this runtime and its own socket adapter; LOADTEST_SOCKET=node and --socket node change the adapter', async () => {
  const { name, version, socket } = thisRuntime();
  const [own, env, flag] = await Promise.all([
    spawnScript(CLI, ['-V'], { env: { LOADTEST_SOCKET: '' } }),
    spawnScript(CLI, ['--version'], { env: { LOADTEST_SOCKET: 'node' } }),
    spawnScript(CLI, ['-V', '--socket', 'node'], { env: { LOADTEST_SOCKET: '' } }),
  ]);
  for (const r of [own, env, flag]) {
    assert.equal(r.code, 0, show(r));
    assert.equal(r.stderr, '');
  }
  assert.equal(own.stdout, `loadtest ${PACKAGE.version} (${name} ${version}, socket ${socket})\n`);
  assert.equal(env.stdout, `loadtest ${PACKAGE.version} (${name} ${version}, socket node:net)\n`);
  assert.equal(flag.stdout, env.stdout);
});

test('-V with a socket adapter this runtime lacks: one line, exit 2', async () => {
  const other = thisRuntime().name === 'bun' ? 'deno' : 'bun';
  const r = await spawnScript(CLI, ['-V', '--socket', other]);
  assert.equal(r.code, 2, show(r));
  assert.equal(r.stdout, '');
  assert.match(r.stderr, new RegExp(`^loadtest: socket adapter '${other}' needs the ${other} runtime[^\\n]*\\n$`));
});
