// k6/data's SharedArray as k6 v1.3.0 gives it: read like an array, never written (k6's own
// TypeError), and refused with k6's words (GoErrors) for an empty name, a second argument that
// is no function and a function that returns no array. Found with colleagues' probes of public
// scripts' SharedArray patterns (papaparse rows, a JSON file's users) beside k6.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnScript } from './servers.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));

test("SharedArray: an array to read, immutable with k6's TypeError, its elements frozen; k6's errors for a bad name, function or value", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-shared-'));
  try {
    const path = join(dir, 'test.js');
    writeFileSync(
      path,
      `import { SharedArray } from 'k6/data';
const a = new SharedArray('x', () => [{ n: 1, u: undefined }, 2, 'three', [4]]);
const errors = [['', () => [1]], ['y', () => ({ notArray: 1 })], ['z', 5]].map(([name, fn]) => { try { new SharedArray(name, fn); return 'made'; } catch (e) { return String(e); } });
export default function () {
  console.log(a.length, Array.isArray(a), JSON.stringify(a), a[10], JSON.stringify(a.map((x) => typeof x)), JSON.stringify(a.slice(1, 3)), [...a].length);
  for (const write of [() => { a[1] = 9; }, () => a.push(1), () => { a.length = 0; }, () => { a[0].n = 5; }]) {
    try { write(); console.log('written'); } catch (e) { console.log(e.name, e.name === 'TypeError' && e.message.startsWith('SharedArray') ? e.message : ''); }
  }
  for (const e of errors) console.log(e);
}
`,
    );
    const r = await spawnScript(CLI, ['run', '-q', '--iterations', '1', path], { timeoutMs: 60000 });
    assert.equal(r.code, 0, r.stderr);
    const lines = [...r.stderr.matchAll(/msg=(?:"((?:[^"\\]|\\.)*)"|(\S*)) source=console/g)].map((m) => (m[2] !== undefined ? m[2] : JSON.parse(`"${m[1]}"`)));
    // k6 v1.3.0's lines (but the engine's words for a frozen element's property).
    assert.deepEqual(lines, [
      '4 true [{"n":1},2,"three",[4]] undefined ["object","number","string","object"] [2,"three"] 4',
      'TypeError SharedArray is immutable',
      'TypeError SharedArray is immutable',
      'TypeError SharedArray is immutable',
      'TypeError ',
      "GoError: empty name provided to SharedArray's constructor",
      'GoError: only arrays can be made into SharedArray',
      "GoError: a function is expected as the second argument of SharedArray's constructor",
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
