// Modules of a script that import each other (runtimes/scripts/load.js, src/script/transform/
// live-bindings.js): as k6 v2.2.0 runs them, ES modules' cycle semantics (the module imported
// back has its functions, its other names throw until its body has run, and are read live
// after), and CommonJS's (a require that closes a cycle gives the exports made so far).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnScript } from './servers.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));

async function run(files, entry) {
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-cycles-'));
  try {
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    const r = await spawnScript(CLI, ['run', '-q', '--iterations', '1', join(dir, entry)], { timeoutMs: 60000 });
    // The lines of VU 1, whose init code runs once (VU 0's runs too, for setup()).
    const msgs = [...r.stderr.matchAll(/msg="([^"]*)"/g)].map((m) => m[1]);
    return { ...r, msgs };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('ES modules that import each other: the entry imported back (as k6 v2.2.0 logs it)', async () => {
  const r = await run(
    {
      'a.js': `import { b, useA } from './b.js';
export const a = 'A';
export function fa() { return 'fa'; }
export default function () { console.log(\`b=\${b} useA=\${useA()}\`); }
`,
      'b.js': `import { a, fa } from './a.js';
import * as ns from './a.js';
export const b = 'B';
console.log(\`in b: fa=\${typeof fa} \${fa()}\`);
let early;
try { early = a; } catch (e) { early = e.name; }
console.log(\`in b: a early=\${early}\`);
export function useA() { const fa = () => 'shadowed'; return a + fa() + ns.a + ({ a }).a; }
`,
    },
    'a.js',
  );
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(r.msgs.slice(-3), ['in b: fa=function fa', 'in b: a early=ReferenceError', 'b=B useA=AshadowedAA']);
});

test('ES modules that import each other below the entry, with a default export and a name set after its function', async () => {
  const r = await run(
    {
      'main.js': `import { hello } from './x.js';
export default function () { console.log(hello()); }
`,
      'x.js': `import y, { later } from './y.js';
export const name = 'x';
export function hello() { return \`\${name} \${y()} \${later}\`; }
`,
      'y.js': `import { name, hello } from './x.js';
export let later = 'unset';
export default function y() { return \`y sees \${name} and \${typeof hello}\`; }
later = 'set';
`,
    },
    'main.js',
  );
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(r.msgs, ['x y sees x and function set']);
});

test('CommonJS requires that close a cycle give the exports made so far (as k6 v2.2.0)', async () => {
  const r = await run(
    {
      'main.js': "const a = require('./a.js');\nconsole.log(`main: a.done=${a.done} b.done=${a.b.done}`);\nmodule.exports.default = function () {};\n",
      'a.js': "exports.done = false;\nconst b = require('./b.js');\nconsole.log(`in a, b.done = ${b.done}`);\nexports.b = b;\nexports.done = true;\n",
      'b.js': "exports.done = false;\nconst a = require('./a.js');\nconsole.log(`in b, a.done = ${a.done}`);\nexports.done = true;\n",
    },
    'main.js',
  );
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(r.msgs.slice(-3), ['in b, a.done = false', 'in a, b.done = true', 'main: a.done=true b.done=true']);
});
