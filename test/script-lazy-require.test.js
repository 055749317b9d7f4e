// A require() that does not resolve throws when it is called, as k6 resolves a require
// (src/script/transform/unresolved.js): a UMD build's branch for another platform that the script
// never reaches (PapaParse 5.0.2's require('stream'), stopped at load with exit 107 before npm
// packages; an optional dependency installed nowhere) no longer stops the script as it loads.
// Called, it throws k6 v2.2.0's GoError: in the init code, exit 107 at the require's place (the
// columns are k6's); in an iteration, k6's refusal of any require outside the init stage.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnScript } from './servers.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));

const FILES = {
  'lib.js': "module.exports = {\n  x: 1,\n  stream: function () { return require('stream').Duplex; },\n  decode: function () { return require('iconv-lite-installed-nowhere'); },\n};\n",
  'data.json': '{"a": 1}\n',
  'script.js': `import lib from './lib.js';
function never() { return [require('k6/x/unknown'), require('./missing.js'), require('nopkg'), require('http://127.0.0.1:1/x.js'), require('./data.json'), require('k6/experimental/timers')]; }
let caught = '';
try { require('./missing.js'); } catch (e) { caught = e.name + '|' + String(e).slice(0, 61); }
if (__ENV.AT === 'init') require('nopkg');
export const options = { iterations: 1 };
export default function () {
  console.log('x', lib.x, caught);
  if (__ENV.AT === 'iteration') { require('k6/x/unknown'); console.log('not reached'); }
}
`,
};

async function withFiles(fn) {
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-lazy-require-'));
  try {
    for (const [name, text] of Object.entries(FILES)) writeFileSync(join(dir, name), text);
    await fn((...args) => spawnScript(CLI, ['run', '-q', '--summary-mode', 'disabled', ...args, join(dir, 'script.js')], { timeoutMs: 60000 }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('a require that does not resolve, never called, lets the script run, as k6 (was: exit 107 as it loaded); caught, it is a GoError', async () => {
  await withFiles(async (run) => {
    const r = await run();
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /msg="x 1 GoError\|GoError: The moduleSpecifier \\"\.\/missing\.js\\" couldn't be found" source=console/);
  });
});

test("a require that does not resolve, called in the init code, is k6's error at its place, exit 107; in an iteration, k6's refusal of require there", async () => {
  await withFiles(async (run) => {
    const init = await run('-e', 'AT=init');
    assert.equal(init.code, 107, init.stderr);
    assert.match(init.stderr, /^loadtest run: the init context of VU \d+ failed: The moduleSpecifier "nopkg" couldn't be recognised as something k6 supports\. at script\.js:5:33\n$/);
    const iteration = await run('-e', 'AT=iteration');
    assert.equal(iteration.code, 0, iteration.stderr);
    assert.match(iteration.stderr, /the "require" function is only available in the init stage \(i\.e\. the global scope\), see https:\/\/grafana\.com\/docs\/k6\/latest\/using-k6\/test-lifecycle\/ for more information at script\.js:9:42/);
    assert.doesNotMatch(iteration.stderr, /not reached/);
  });
});
