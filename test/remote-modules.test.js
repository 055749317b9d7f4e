// Remote modules in scripts (runtimes/scripts/load.js): `import ... from 'https://...'` as k6
// resolves it, fetched from a local HTTPS server whose certificate each runtime is told to trust
// (NODE_EXTRA_CA_CERTS on node and bun, DENO_CERT on deno), in the shapes jslib.k6.io serves
// (an ES module with a relative import of its own, a UMD bundle), kept in the cache so that the
// next run needs no network; a host that cannot be reached is one line at the import.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import { mkdtempSync, writeFileSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnScript } from './servers.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));
const pem = (name) => readFileSync(new URL(`./tls/${name}.pem`, import.meta.url), 'utf8');
const CA = fileURLToPath(new URL('./tls/ca.pem', import.meta.url));

// Our own small modules, in the shapes of jslib's (whose files are AGPL: not copied here).
const MODULES = {
  '/k6-utils/1.4.0/index.js': "import { pick } from './lib/pick.js';\nexport function randomIntBetween(a, b) { return a; }\nexport function randomItem(xs) { return pick(xs); }\n",
  '/k6-utils/1.4.0/lib/pick.js': 'export function pick(xs) { return xs[0]; }\n',
  '/papaparse/5.1.1/index.js': `(function (root, factory) {
  if (typeof define === 'function' && define.amd) define([], factory)
  else if (typeof module === 'object' && typeof exports !== 'undefined') module.exports = factory()
  else root.Papa = factory()
})(this, function () {
  return { parse: (text) => ({ data: text.trim().split('\\n').map((l) => l.split(',')) }) }
})
`,
};

function moduleServer() {
  const asked = [];
  const server = https.createServer({ key: pem('server-key'), cert: pem('server') }, (req, res) => {
    asked.push(req.url);
    const body = MODULES[req.url];
    res.writeHead(body ? 200 : 404, { 'content-type': 'application/javascript' }).end(body || 'not here');
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ port: server.address().port, asked, close: () => new Promise((r) => server.close(r)) })));
}

test('https:// imports: fetched once with their own relative imports, run as k6 runs them, then from the cache with the server gone; an unreachable one is one line at its import', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-remote-'));
  const server = await moduleServer();
  try {
    const env = { NODE_EXTRA_CA_CERTS: CA, DENO_CERT: CA, LOADTEST_CACHE: join(dir, 'cache') };
    const script = join(dir, 'remote.js');
    writeFileSync(script, `import { randomIntBetween, randomItem } from 'https://localhost:${server.port}/k6-utils/1.4.0/index.js'
import papaparse from 'https://localhost:${server.port}/papaparse/5.1.1/index.js'
const rows = papaparse.parse('a,1\\nb,2').data
export const options = { iterations: 2 }
export default function () {
  console.log(randomIntBetween(3, 9), randomItem(['x', 'y']), rows.length)
}
`);
    const run = () => spawnScript(CLI, ['run', '-q', script], { env, timeoutMs: 60000 });
    const first = await run();
    assert.equal(first.code, 0, first.stderr);
    assert.deepEqual([...first.stderr.matchAll(/msg="([^"]*)"/g)].map((m) => m[1]), ['3 x 2', '3 x 2']);
    assert.deepEqual(server.asked.sort(), Object.keys(MODULES).sort(), 'each module fetched once');
    await server.close();
    const again = await run();
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual([...again.stderr.matchAll(/msg="([^"]*)"/g)].map((m) => m[1]), ['3 x 2', '3 x 2']);
    // The cache holds the modules as fetched; the transformed ones are gone with the run.
    assert.equal(readdirSync(join(dir, 'cache', 'modules')).filter((f) => f.endsWith('.js')).length, 3);
    assert.deepEqual(readdirSync(join(dir, 'cache', 'modules')).filter((f) => f.includes('.loadtest-')), []);

    const unreachable = join(dir, 'unreachable.js');
    writeFileSync(unreachable, `import http from 'k6/http'\nimport { x } from 'https://localhost:${server.port}/gone.js'\nexport default function () {}\n`);
    const gone = await spawnScript(CLI, ['run', '-q', unreachable], { env, timeoutMs: 60000 });
    assert.equal(gone.code, 107);
    assert.match(gone.stderr, new RegExp(`^loadtest run: ${unreachable.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:2:19: cannot load https://localhost:${server.port}/gone\\.js: \\S.*\\n$`));
  } finally {
    await server.close().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  }
});

test('require() of https:// modules, as a bundle that keeps jslib out requires them (k6 loads them too): an ES module and a UMD one; and of a local ES module', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-remote-require-'));
  const server = await moduleServer();
  try {
    const env = { NODE_EXTRA_CA_CERTS: CA, DENO_CERT: CA, LOADTEST_CACHE: join(dir, 'cache') };
    writeFileSync(join(dir, 'esm.js'), 'export function twice(x) { return 2 * x }\n');
    const script = join(dir, 'bundle.js');
    writeFileSync(script, `var utils = require("https://localhost:${server.port}/k6-utils/1.4.0/index.js");
var papa = require("https://localhost:${server.port}/papaparse/5.1.1/index.js");
var local = require("./esm.js");
exports.options = { iterations: 1 };
exports.default = function () { console.log(utils.randomIntBetween(3, 9), utils.randomItem(['x']), papa.parse('a,1\\nb,2').data.length, local.twice(4)); };
`);
    const r = await spawnScript(CLI, ['run', '-q', script], { env, timeoutMs: 60000 });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual([...r.stderr.matchAll(/msg="([^"]*)"/g)].map((m) => m[1]), ['3 x 2 8']);
  } finally {
    await server.close().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  }
});
