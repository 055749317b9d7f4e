// k6 v1.3's data_sent and data_received: its VU's dialer counts the bytes of every connection and
// gives them once at the end of each iteration (and of setup() and teardown()), zeros included,
// with the tags the VU has then, not a request's. Their sums are checked against the bytes the
// server itself read and wrote. And k6's test run, which its summary's rates divide by, runs from
// setup()'s start to teardown()'s end; neither counts in iteration_duration.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { mkdtempSync, writeFileSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnScript } from './servers.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));

// Answers every request with a body of its path's length, counting the bytes both ways.
function countingServer() {
  const counts = { read: 0, written: 0, requests: 0 };
  const sockets = new Set();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    let buffered = '';
    socket.on('data', (chunk) => {
      counts.read += chunk.length;
      buffered += chunk.toString('latin1');
      for (;;) {
        const end = buffered.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buffered.slice(0, end);
        const length = Number(/content-length: *(\d+)/i.exec(head)?.[1] || 0);
        if (buffered.length < end + 4 + length) return;
        buffered = buffered.slice(end + 4 + length);
        const body = 'x'.repeat(head.split(' ')[1].length);
        const answer = `HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
        counts.requests++;
        counts.written += answer.length;
        socket.write(answer);
      }
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const close = () => new Promise((done) => {
        for (const s of sockets) s.destroy();
        server.close(() => done());
      });
      resolve({ counts, base: `http://127.0.0.1:${server.address().port}`, close });
    });
  });
}

async function withScript(source, fn) {
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-data-'));
  const server = await countingServer();
  try {
    const path = join(dir, 'test.js');
    writeFileSync(path, source);
    const run = (...args) => spawnScript(CLI, ['run', '-q', '-e', `BASE=${server.base}`, ...args, path], { timeoutMs: 60000 });
    await fn({ run, server, dir });
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const points = (file) =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line))
    .filter((l) => l.type === 'Point');

test('data_sent and data_received: one of each per iteration (setup and teardown too), zeros included, with its tags; their sums are the server\'s bytes', async () => {
  const script = `import http from 'k6/http';
import { group } from 'k6';
import exec from 'k6/execution';
export const options = { tags: { team: 'a' }, scenarios: { one: { executor: 'per-vu-iterations', vus: 2, iterations: 3, tags: { kind: 'x' } } } };
export function setup() { http.get(\`\${__ENV.BASE}/setup\`); }
export default function () {
  exec.vu.tags.mine = 'v' + exec.vu.idInTest;
  if (exec.vu.iterationInScenario === 2) return;
  group('g', () => { http.get(\`\${__ENV.BASE}/in/\${exec.vu.iterationInScenario}\`); });
  http.post(\`\${__ENV.BASE}/post\`, 'hello there');
}
export function teardown() { http.get(\`\${__ENV.BASE}/teardown/long\`); }
`;
  await withScript(script, async ({ run, server, dir }) => {
    const out = join(dir, 'out.json');
    const r = await run('--out', `json=${out}`);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(server.counts.requests, 2 + 2 * 2 * 2);
    const all = points(out);
    const sent = all.filter((p) => p.metric === 'data_sent');
    const received = all.filter((p) => p.metric === 'data_received');
    assert.equal(sent.length, 2 + 6, 'one a setup, a teardown, and each of the 6 iterations');
    assert.equal(received.length, 8);
    const sum = (ps) => ps.reduce((s, p) => s + p.data.value, 0);
    assert.equal(sum(sent), server.counts.read, 'data_sent is what the server read');
    assert.equal(sum(received), server.counts.written, 'data_received is what the server wrote');
    const tagsOf = (p) => JSON.stringify(p.data.tags);
    assert.deepEqual(sent[0].data.tags, { group: '::setup', team: 'a' });
    assert.deepEqual(sent.at(-1).data.tags, { group: '::teardown', team: 'a' });
    assert.ok(sent[0].data.value > 0 && received.at(-1).data.value > received[0].data.value, 'teardown read the longer body');
    const iterations = all.filter((p) => p.metric === 'iterations');
    assert.equal(iterations.length, 6);
    const iterationTags = iterations.map(tagsOf).sort();
    assert.deepEqual(sent.slice(1, -1).map(tagsOf).sort(), iterationTags, 'an iteration\'s tags, not a request\'s');
    assert.deepEqual(received.slice(1, -1).map(tagsOf).sort(), iterationTags);
    for (const p of sent.slice(1, -1)) assert.deepEqual(Object.keys(p.data.tags).sort(), ['group', 'kind', 'mine', 'scenario', 'team']);
    assert.equal(sent.filter((p) => p.data.value === 0).length, 2, 'the iterations that sent nothing say 0');
    assert.equal(received.filter((p) => p.data.value === 0).length, 2);
    // Each iteration's points in k6's order: its bytes, its duration, its count.
    for (let i = 0; i < all.length; i++) {
      if (all[i].metric !== 'iterations') continue;
      assert.deepEqual(all.slice(i - 3, i).map((p) => p.metric), ['data_sent', 'data_received', 'iteration_duration']);
    }
    const durations = all.filter((p) => p.metric === 'iteration_duration');
    assert.deepEqual(durations.map((p) => p.data.tags.group), Array(6).fill(''), 'setup and teardown count in no iteration_duration');
    assert.equal(all.filter((p) => p.metric === 'http_reqs').length, 10);
  });
});

test('the test run, as k6 counts it for its rates, holds setup() and teardown()', async () => {
  const script = `import { sleep } from 'k6';
import exec from 'k6/execution';
export const options = { iterations: 2, vus: 1 };
export function setup() { sleep(0.4); }
export default function () {
  if (exec.instance.currentTestRunDuration < 400) throw new Error('the run began after setup: ' + exec.instance.currentTestRunDuration);
}
export function teardown() { sleep(0.3); }
export function handleSummary(data) { return { stdout: JSON.stringify(data) }; }
`;
  await withScript(script, async ({ run }) => {
    const r = await run();
    assert.equal(r.code, 0, r.stderr);
    const data = JSON.parse(r.stdout);
    assert.equal(data.metrics.iterations.values.count, 2);
    assert.ok(data.state.testRunDurationMs >= 700, `testRunDurationMs ${data.state.testRunDurationMs}`);
    const rate = data.metrics.iterations.values.rate;
    assert.ok(Math.abs(rate - 2 / (data.state.testRunDurationMs / 1000)) < 1e-6 * rate, `rate ${rate}`);
    assert.doesNotMatch(r.stderr, /began after setup/);
  });
});
