// `loadtest run -`: the script on stdin, as `k6 run -` (k6 v2.2.0) reads it: its imports and
// requires resolved from / (the script is the file /-), its open() from the current folder,
// TypeScript when it does not parse as JavaScript, its text in --new-machine-readable-summary's
// document; --cores's children run it too; --on refuses it in one line (its shards cannot read
// this stdin).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnScript } from './servers.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));

function folder() {
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-stdin-'));
  writeFileSync(join(dir, 'lib.js'), "export const v = 'lib';\n");
  writeFileSync(join(dir, 'data.txt'), 'hello\n');
  return dir;
}

const run = (dir, input, ...args) => spawnScript(CLI, ['run', '-q', '--summary-mode', 'disabled', ...args, '-'], { cwd: dir, input, timeoutMs: 60000 });

test('a script on stdin runs, its imports resolved from / and its open() from the current folder, as k6 run - (was: missing the script, exit 2)', async () => {
  const dir = folder();
  try {
    // `.${dir}/lib.js`: from /, the folder's lib.js (k6 v2.2.0 logs 'lib hello').
    const script = `import http from 'k6/http';\nimport { v } from '.${dir}/lib.js';\nconst { v: w } = require('${dir}/lib.js');\nconst d = open('./data.txt');\nexport default function () { console.log(v, w, d.trim(), typeof http.get); }\n`;
    const r = await run(dir, script, '--iterations', '1');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /msg="lib lib hello function"/);
    // './lib.js' is /lib.js, as in k6 (107: "couldn't be found on local disk").
    const missing = await run(dir, "import { v } from './lib.js';\nexport default function () {}\n", '--iterations', '1');
    assert.equal(missing.code, 107, missing.stderr);
    assert.match(missing.stderr, /^loadtest run: -:1:19: cannot read \/lib\.js \(ENOENT\)\n$/);
    assert.deepEqual(readdirSync(dir).sort(), ['data.txt', 'lib.js'], 'no transformed file left');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a script on stdin is TypeScript when it does not parse as JavaScript (k6 v1.4, #5246); its exception names it -', async () => {
  const dir = folder();
  try {
    const text = "interface User { name: string }\nconst u: User = { name: 'ts' };\nexport default function (): void { console.log(u.name); }\n";
    const ts = await run(dir, text, '--iterations', '1', '--summary-mode', 'compact', '--new-machine-readable-summary', '--summary-export', 'summary.json');
    assert.equal(ts.code, 0, ts.stderr);
    assert.match(ts.stderr, /msg=ts /);
    // As k6 v2.2.0's: the summary holds the script's text, as read from stdin.
    assert.equal(JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')).config.script, text);
    const thrown = await run(dir, "throw new Error('boom');\nexport default function () {}\n", '--iterations', '1');
    assert.equal(thrown.code, 107, thrown.stderr);
    assert.match(thrown.stderr, /boom at -:1:\d+\n/); // bun names the column of Error, node and deno of new
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('--cores 2 runs a script on stdin in both children, open() from the current folder', async () => {
  const dir = folder();
  try {
    const r = await run(dir, "const d = open('./data.txt');\nexport const options = { vus: 2, iterations: 4 };\nexport default function () { console.log(d.trim()); }\n", '--cores', '2');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr.match(/msg=hello /g).length, 4, r.stderr);
    assert.deepEqual(readdirSync(dir).sort(), ['data.txt', 'lib.js']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('--on with a script on stdin is one line, exit 2: its shards cannot read this stdin', async () => {
  const dir = folder();
  try {
    const r = await run(dir, 'export default function () {}\n', '--on', 'swarm', '--shards', '2');
    assert.equal(r.code, 2);
    assert.equal(r.stderr, 'loadtest run: --on: the shards cannot read this stdin: give the script as a file (loadtest run --on ... script.js)\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
