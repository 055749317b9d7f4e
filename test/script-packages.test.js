// npm packages in k6 scripts (beyond k6, grafana/k6#475): a bare specifier resolves from the
// script's own node_modules as the runtime resolves it (runtimes/scripts/resolve-package.js),
// the package's files transformed as the script's are, a factory per VU. The packages here are
// made in a temporary folder: no network, no install.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { mkdtempSync, mkdirSync, writeFileSync, symlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnScript } from './servers.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));
const DENO = typeof globalThis.Deno !== 'undefined';

function writeTree(root, files) {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), typeof text === 'string' ? text : JSON.stringify(text));
  }
}

const PACKAGES = {
  // ES module and CommonJS builds behind conditions, a subpath, a pattern, an imports map.
  'node_modules/dual/package.json': {
    name: 'dual',
    type: 'module',
    exports: { '.': { import: './esm/index.js', require: './cjs/index.cjs' }, './sub': './esm/sub.js', './feature/*': './esm/features/*.js', './package.json': './package.json' },
    imports: { '#own': './esm/own.js' },
  },
  'node_modules/dual/esm/index.js': "import { join } from 'node:path';\nimport { own } from '#own';\nlet n = 0;\nexport const kind = 'import';\nexport function next() { return ++n; }\nexport const joined = join('a', 'b') + own;\n",
  'node_modules/dual/esm/own.js': "export const own = '!';\n",
  'node_modules/dual/esm/sub.js': "export default 'sub';\n",
  'node_modules/dual/esm/features/x.js': "export const feature = 'x';\n",
  'node_modules/dual/cjs/index.cjs': "exports.kind = 'require';\n",
  // CommonJS as npm has it: main, paths without extensions, JSON, a builtin, __dirname, `this`,
  // an optional dependency that is not installed.
  'node_modules/cjs-lib/package.json': { name: 'cjs-lib', main: 'lib/index' },
  'node_modules/cjs-lib/lib/index.js': `const util = require('./util');
const data = require('../data.json');
const { EventEmitter } = require('events');
let optional;
try { require('not-installed-anywhere'); } catch (e) { optional = e.code; }
module.exports = { twice: util.twice, version: data.version, emitter: typeof EventEmitter, dir: require('path').basename(__dirname), self: this === module.exports, optional };
`,
  'node_modules/cjs-lib/lib/util.js': 'exports.twice = (x) => x * 2;\n',
  'node_modules/cjs-lib/data.json': { version: '1.2.3' },
  // A scoped package with neither main nor exports: its index.js.
  'node_modules/@scope/tool/package.json': { name: '@scope/tool' },
  'node_modules/@scope/tool/index.js': "module.exports = function tool() { return 'tool'; };\n",
};

test('npm packages: exports conditions, subpaths, patterns, imports, main, CommonJS with JSON and builtins, from a node_modules above the script; each VU its own instance', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-packages-'));
  try {
    writeTree(dir, {
      ...PACKAGES,
      'tests/helper.js': "const lib = require('cjs-lib');\nconst dual = require('dual');\nmodule.exports = { lib, kind: dual.kind };\n",
      'tests/script.js': `import { kind, next, joined } from 'dual';
import sub from 'dual/sub';
import { feature } from 'dual/feature/x';
import tool from '@scope/tool';
import helper from './helper.js';
const first = next();
export const options = { vus: 2, iterations: 2 };
export default function () {
  const l = helper.lib;
  console.log(\`vu=\${__VU} first=\${first} \${kind} \${joined} \${sub} \${feature} \${tool()} \${helper.kind} \${l.twice(21)} \${l.version} \${l.emitter} \${l.dir} \${l.self} \${l.optional}\`);
}
`,
    });
    const r = await spawnScript(CLI, ['run', '-q', join(dir, 'tests/script.js')], { timeoutMs: 60000 });
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stderr.split('\n').filter((l) => l.includes('msg="vu='));
    assert.equal(lines.length, 2, r.stderr);
    for (const line of lines) assert.match(line, /first=1 import a[/\\]b! sub x tool require 42 1\.2\.3 function lib true MODULE_NOT_FOUND"/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('npm packages: a name that resolves nowhere, or a subpath the package does not export, is one line at its import, exit 107 (k6: 107); required, when the require runs, in k6\'s words', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-packages-'));
  try {
    writeTree(dir, {
      ...PACKAGES,
      'missing.js': "import http from 'k6/http';\nimport x from 'lodash-not-here';\nexport default function () {}\n",
      'hidden.js': "import x from 'dual/esm/own.js';\nexport default function () {}\n",
      'required.js': "const x = require('nope-nope');\nmodule.exports.default = function () {};\n",
    });
    for (const [file, place, why] of [
      ['missing.js', ':2:15:', /cannot import 'lodash-not-here': cannot find package 'lodash-not-here'/],
      ['hidden.js', ':1:15:', /'dual\/esm\/own\.js' is not exported by .*package\.json/],
    ]) {
      const r = await spawnScript(CLI, ['run', '-q', join(dir, file)], { timeoutMs: 60000 });
      assert.equal(r.code, 107, r.stderr);
      const text = r.stderr.trim();
      assert.equal(text.split('\n').length, 1, text);
      assert.ok(text.includes(`${join(dir, file)}${place}`), text);
      assert.match(text, why);
    }
    // As k6 resolves a require: when it runs (one in a branch never taken does not stop the script).
    const r = await spawnScript(CLI, ['run', '-q', join(dir, 'required.js')], { timeoutMs: 60000 });
    assert.equal(r.code, 107, r.stderr);
    assert.equal(r.stderr, 'loadtest run: the init context of VU 0 failed: The moduleSpecifier "nope-nope" couldn\'t be recognised as something k6 supports. at required.js:1:18\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("npm: and jsr: specifiers are Deno's: refused in one line on node and bun", { skip: DENO && 'Deno resolves them itself (and would fetch them)' }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-packages-'));
  try {
    writeFileSync(join(dir, 'npm.js'), "import _ from 'npm:lodash';\nexport default function () {}\n");
    const r = await spawnScript(CLI, ['run', '-q', join(dir, 'npm.js')], { timeoutMs: 60000 });
    assert.equal(r.code, 107, r.stderr);
    assert.match(r.stderr.trim(), /npm\.js:1:15: 'npm:lodash' is a Deno specifier: on (node|bun), npm install the package and import it by its name$/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a package's own I/O runs on the runtime's modules: node:net from setup(), its timers the runtime's", async () => {
  const server = net.createServer((socket) => socket.on('data', (d) => socket.end(`pong ${d}`)));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-packages-'));
  try {
    writeTree(dir, {
      'node_modules/tiny-client/package.json': { name: 'tiny-client', main: 'index.js' },
      // A client that keeps an idle timer, as a database pool does: it must not hold an iteration.
      'node_modules/tiny-client/index.js': `const net = require('node:net');
exports.ask = (port, text) => new Promise((resolve, reject) => {
  const s = net.connect(port, '127.0.0.1', () => s.write(text));
  let got = '';
  s.on('data', (d) => { got += d; });
  s.on('end', () => { const idle = setTimeout(() => {}, 60000); idle.unref?.(); resolve(got); });
  s.on('error', reject);
});
`,
      'script.js': `import { ask } from 'tiny-client';
export const options = { iterations: 1 };
export async function setup() { return { answer: await ask(${server.address().port}, 'ping') }; }
export default function (data) { console.log(\`answer=\${data.answer}\`); }
`,
    });
    const r = await spawnScript(CLI, ['run', '-q', join(dir, 'script.js')], { timeoutMs: 60000 });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /answer=pong ping/);
  } finally {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a package installed in the repository (picocolors, mri), linked into a node_modules beside the script', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-packages-'));
  try {
    mkdirSync(join(dir, 'node_modules'));
    for (const name of ['picocolors', 'mri']) symlinkSync(fileURLToPath(new URL(`../node_modules/${name}`, import.meta.url)), join(dir, 'node_modules', name), 'dir');
    writeFileSync(join(dir, 'script.js'), `import pc from 'picocolors';
import mri from 'mri';
const args = mri(['--vus', '3', 'x']);
export default function () { console.log(\`\${pc.createColors(false).red('plain')} \${args.vus} \${args._[0]}\`); }
`);
    const r = await spawnScript(CLI, ['run', '-q', join(dir, 'script.js')], { timeoutMs: 60000 });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /msg="plain 3 x"/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
