// k6's event loop in a script: an iteration ends once the timers and requests it started have
// settled, whatever order a callback does its work in (the k6 corpus's timers.js checks the
// rest beside k6 v1.3.0).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rawServer, spawnScript, ok } from './servers.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));

test('an interval that clears itself and then makes a request: the iteration waits for the request', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-timers-'));
  // Answered 300 ms late: long past the interval's turn (a CI run on deno lost such a request
  // when the iteration ended as the interval was cleared, before its request was counted).
  const server = await rawServer(({ socket }) => setTimeout(() => socket.write(ok()), 300));
  try {
    const path = join(dir, 'test.js');
    writeFileSync(path, `import http from 'k6/http';
import { check } from 'k6';
export const options = { iterations: 2, vus: 1 };
export default function () {
  const id = setInterval(() => {
    clearInterval(id);
    check(http.get(__ENV.BASE), { 'late 200': (r) => r.status === 200 });
  }, 5);
}
export function handleSummary(data) { return { stdout: JSON.stringify(data.metrics) }; }
`);
    const r = await spawnScript(CLI, ['run', '-q', '-e', `BASE=${server.url}`, path], { timeoutMs: 60000 });
    assert.equal(r.code, 0, r.stderr);
    const metrics = JSON.parse(r.stdout);
    assert.equal(metrics.checks.values.passes, 2, 'each iteration checked its response');
    assert.equal(metrics.http_reqs.values.count, 2);
    assert.ok(metrics.iteration_duration.values.min >= 300, `an iteration of ${metrics.iteration_duration.values.min} ms ended before its request`);
    assert.equal(server.requests, 2);
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
