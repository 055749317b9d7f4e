// loadtest run --cores 2: a k6 script's VUs, iterations and rates shared by two child processes
// so that the run is the same run: counts exact at the server, setup() and teardown() once, VU
// ids and iterationInTest unique across the children, checks, custom metrics, thresholds and
// handleSummary on the merged figures; an abort in one child stops them all.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rawServer, spawnScript, startScript, dashboardEvents, scrapeUntil, ok } from './servers.js';
import { ONE_RUNTIME } from './scope.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));

async function withScript(source, fn) {
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-script-cores-'));
  const server = await rawServer(({ socket }, req) => socket.write(req.path.startsWith('/status/500') ? 'HTTP/1.1 500 X\r\nContent-Length: 0\r\n\r\n' : ok()));
  try {
    const path = join(dir, 'test.js');
    writeFileSync(path, source);
    const base = server.url.replace(/\/$/, '');
    const run = (...args) => spawnScript(CLI, ['run', '-q', '--cores', '2', '-e', `BASE=${base}`, ...args, path], { timeoutMs: 60000 });
    await fn({ run, server, dir, path });
    assert.deepEqual(readdirSync(dir).filter((f) => f.includes('.loadtest-')), [], 'the transformed files are gone');
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const query = (path) => Object.fromEntries(new URL(path, 'http://x').searchParams);

test('--cores 2: shared-iterations made exactly once in all, setup() and teardown() once, VU ids and iterationInTest unique, the figures merged', async () => {
  await withScript(
    `import http from 'k6/http';
import { check, group } from 'k6';
import exec from 'k6/execution';
import { Counter, Trend, Rate } from 'k6/metrics';
const hits = new Counter('hits');
const vuIds = new Trend('vu_ids');
const odd = new Rate('odd');
export const options = {
  scenarios: {
    shared: { executor: 'shared-iterations', vus: 3, iterations: 41 },
    own: { executor: 'per-vu-iterations', vus: 3, iterations: 2, exec: 'own' },
  },
  thresholds: { checks: ['rate==1'], hits: ['count==47'], 'http_reqs{scenario:own}': ['count==6'], odd: ['rate>0'] },
};
export function setup() { return { token: http.post(\`\${__ENV.BASE}/setup\`, 'x').status }; }
export default function (data) {
  const r = http.get(\`\${__ENV.BASE}/shared?vu=\${__VU}&id=\${exec.vu.idInTest}&it=\${exec.scenario.iterationInTest}\`);
  check(r, { 'is 200': (r) => r.status === 200, 'setup data': () => data.token === 200 });
  hits.add(1);
  vuIds.add(__VU);
  odd.add(__VU % 2 === 1);
}
export function own() {
  group('own', () => { http.get(\`\${__ENV.BASE}/own?vu=\${__VU}\`); hits.add(1); });
}
export function teardown(data) { http.post(\`\${__ENV.BASE}/teardown\`, String(data.token)); }
export function handleSummary(data) {
  return { stdout: JSON.stringify({ reqs: data.metrics.http_reqs.values.count, iterations: data.metrics.iterations.values.count, checks: data.metrics.checks.values, hits: data.metrics.hits.values.count, vusMax: data.metrics.vus_max === undefined ? 'none' : data.metrics.vus_max.values.value, groups: data.root_group.groups.map((g) => g.name), thresholds: Object.fromEntries(Object.entries(data.metrics).filter(([, m]) => m.thresholds).map(([k, m]) => [k, Object.values(m.thresholds).every((t) => t.ok)])) }) };
}`,
    async ({ run, server }) => {
      const r = await run();
      assert.equal(r.code, 0, r.stderr);
      const paths = server.paths;
      const shared = paths.filter((p) => p.startsWith('/shared'));
      assert.equal(shared.length, 41, 'each shared iteration once');
      assert.equal(paths.filter((p) => p.startsWith('/own')).length, 6, 'each VU of per-vu-iterations its 2');
      assert.equal(paths.filter((p) => p === '/setup').length, 1);
      assert.equal(paths.filter((p) => p === '/teardown').length, 1);
      assert.equal(server.requests, 49);
      // exec.scenario.iterationInTest: 0 to 40, each once, across both children.
      assert.deepEqual(shared.map((p) => Number(query(p).it)).sort((a, b) => a - b), Array.from({ length: 41 }, (_, i) => i));
      const sharedVUs = new Set(shared.map((p) => query(p).vu));
      const ownVUs = new Set(paths.filter((p) => p.startsWith('/own')).map((p) => query(p).vu));
      assert.equal(sharedVUs.size, 3, `the shared scenario's VUs: ${[...sharedVUs]}`);
      assert.equal(ownVUs.size, 3);
      assert.equal([...sharedVUs].filter((v) => ownVUs.has(v)).length, 0, 'no VU id in both scenarios: unique across the children');
      assert.ok(shared.every((p) => query(p).vu === query(p).id), '__VU is exec.vu.idInTest');
      const summary = JSON.parse(r.stdout);
      // As k6: vus_max is sampled once a second, so a run this short may have none.
      assert.ok(summary.vusMax === 6 || summary.vusMax === 'none', String(summary.vusMax));
      delete summary.vusMax;
      assert.deepEqual(summary, {
        reqs: 49,
        iterations: 47,
        checks: { rate: 1, passes: 82, fails: 0 },
        hits: 47,
        // As k6 v1.3: setup's and teardown's groups only when something was checked or grouped there.
        groups: ['own'],
        thresholds: { checks: true, hits: true, 'http_reqs{scenario:own}': true, odd: true },
      });
    },
  );
});

test('--cores 2: a constant arrival rate starts the same iterations as one process; thresholds on the merged run exit 99; --out json holds every request', async () => {
  await withScript(
    `import http from 'k6/http';
import { check } from 'k6';
export const options = {
  scenarios: { rate: { executor: 'constant-arrival-rate', rate: 30, timeUnit: '1s', duration: '1s', preAllocatedVUs: 4, maxVUs: 10 } },
  // http_req_failed's holds whatever was dropped: a loaded machine that drops iterations ("Insufficient
  // VUs") changes the share of 500s, which once crossed rate<0.5.
  thresholds: { http_req_failed: ['rate<=1'], checks: ['rate==1'] },
};
export default function () {
  check(http.get(\`\${__ENV.BASE}/status/\${__ITER % 3 === 0 ? 500 : 200}\`), { 'is 200': (r) => r.status === 200 });
}`,
    async ({ run, server, dir }) => {
      const out = join(dir, 'out.json');
      const r = await run('--out', `json=${out}`);
      assert.equal(r.code, 99, r.stderr);
      assert.match(r.stderr, /thresholds on metrics 'checks' have been crossed/);
      // The schedule's 31 iterations (one at 0, one each 1/30 s, one at the end as k6's tick at
      // the end mostly comes before its end), split between the children in turn: each started,
      // or dropped when no VU of its child was free (as k6, a loaded machine may drop one).
      const dropped = Number(/dropped_iterations\.+: (\d+)/.exec(r.stdout)?.[1] || 0);
      assert.equal(server.requests + dropped, 31, r.stdout);
      assert.match(r.stdout, new RegExp(`iterations\\.+: ${server.requests} `));
      const lines = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l)).filter((l) => l.type === 'Point');
      assert.equal(lines.filter((l) => l.metric === 'http_reqs').length, server.requests, 'every request once in the shared --out file');
      // The parent's vus and vus_max, once a second while the 1 s scenario runs: both children's
      // VUs (4 made at the start, up to 10), not one child's.
      const gauge = (name) => lines.filter((l) => l.metric === name).map((l) => l.data.value);
      assert.ok(gauge('vus_max').length >= 1 && gauge('vus_max').length === gauge('vus').length, JSON.stringify([gauge('vus'), gauge('vus_max')]));
      assert.ok(gauge('vus_max').every((n) => n >= 4 && n <= 10) && gauge('vus').every((n) => n <= 10), JSON.stringify([gauge('vus'), gauge('vus_max')]));
    },
  );
});

test('--cores 2: test.abort() in one child stops both, with k6\'s exit code 108; an init error is one line and 107', async () => {
  await withScript(
    `import http from 'k6/http';
import exec from 'k6/execution';
export const options = { vus: 2, duration: '30s' };
export default function () {
  http.get(\`\${__ENV.BASE}/x\`);
  if (exec.scenario.iterationInTest >= 20) exec.test.abort('enough');
}`,
    async ({ run, server }) => {
      const r = await run();
      assert.equal(r.code, 108, r.stderr);
      assert.match(r.stderr, /enough/);
      assert.ok(server.requests >= 11 && server.requests < 2000, `${server.requests} requests: stopped long before 30 s`);
    },
  );
  await withScript(
    `import http from 'k6/http';
if (__VU > 0) throw new Error('no init for VU ' + __VU);
export default function () { http.get(\`\${__ENV.BASE}/x\`); }`,
    async ({ run, server }) => {
      const r = await run('-u', '2', '-i', '4');
      assert.equal(r.code, 107, r.stderr);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
      assert.match(r.stderr, /no init for VU/);
      assert.equal(server.requests, 0);
    },
  );
});

// Shards are processes as --cores children are (the tests around it, on every runtime); what
// merge makes of their results is the core's.
test('--shard I/N on three processes then loadtest merge: the shards\' iterations add up exactly, one summary, the thresholds of the whole', { skip: ONE_RUNTIME }, async () => {
  await withScript(
    `import http from 'k6/http';
import { check } from 'k6';
import exec from 'k6/execution';
import { Counter } from 'k6/metrics';
const hits = new Counter('hits');
export const options = {
  scenarios: { shared: { executor: 'shared-iterations', vus: 4, iterations: 50 } },
  thresholds: { hits: ['count==50'], checks: ['rate>=0.9'], 'http_reqs{status:500}': ['count<5'] },
};
export default function () {
  const r = http.get(\`\${__ENV.BASE}/\${exec.scenario.iterationInTest % 10 === 0 ? 'status/500' : 'ok'}?vu=\${__VU}&it=\${exec.scenario.iterationInTest}\`);
  check(r, { 'is 200': (r) => r.status === 200 });
  hits.add(1);
}`,
    async ({ server, dir, path }) => {
      const base = server.url.replace(/\/$/, '');
      const startAt = Date.now() + 3000;
      const shard = (i) => spawnScript(CLI, ['run', '-q', '--shard', `${i}/3`, '--start-at', String(startAt), '--result', join(dir, `s${i}.json`), '-e', `BASE=${base}`, path], { timeoutMs: 60000 });
      const runs = await Promise.all([shard(1), shard(2), shard(3)]);
      // A shard's own thresholds are on its share: hits==50 fails in each.
      runs.forEach((r) => assert.equal(r.code, 99, r.stderr));
      assert.equal(server.requests, 50);
      const its = server.paths.map((p) => Number(query(p).it)).sort((a, b) => a - b);
      assert.deepEqual(its, Array.from({ length: 50 }, (_, i) => i), 'iterationInTest 0 to 49 over the shards');
      assert.equal(new Set(server.paths.map((p) => query(p).vu)).size, 4, 'the 4 VUs, ids unique over the shards');
      const files = [1, 2, 3].map((i) => join(dir, `s${i}.json`));
      const merged = await spawnScript(CLI, ['merge', ...files, '--summary-export', join(dir, 'all.json')]);
      assert.equal(merged.code, 99, merged.stderr);
      assert.match(merged.stdout, /http_reqs\.+: 50 /);
      assert.match(merged.stdout, /\n {4}hits\n {4}✓ 'count==50' count=50\n/);
      assert.match(merged.stdout, /hits\.+: 50 /);
      assert.match(merged.stdout, /\n {4}checks\n {4}✓ 'rate>=0\.9' rate=90\.00%\n/);
      assert.match(merged.stdout, /checks_succeeded\.+: 90\.00% +45 out of 50\n/);
      assert.match(merged.stdout, /\n {4}http_reqs\{status:500\}\n {4}✗ 'count<5' count=5\n/);
      assert.match(merged.stderr, /thresholds on metrics 'http_reqs\{status:500\}' have been crossed/);
      const exported = JSON.parse(readFileSync(join(dir, 'all.json'), 'utf8'));
      assert.equal(exported.metrics.iterations.count, 50);
      assert.equal(exported.root_group.checks['is 200'].passes, 45);
      // Two shards of three: said, and merged as they are; a shard twice, or a load run's result among them, refused.
      const two = await spawnScript(CLI, ['merge', files[0], files[1]]);
      assert.match(two.stderr, /shards 3\/3 missing/);
      const twice = await spawnScript(CLI, ['merge', files[0], files[0]]);
      assert.equal(twice.code, 2);
      assert.match(twice.stderr, /^loadtest merge: shard 1\/3 twice/);
    },
  );
});

test('--shard I/N with --cores 2: each shard shares its share with its children, the whole still exact once merged', async () => {
  await withScript(
    `import http from 'k6/http';
import exec from 'k6/execution';
export const options = { scenarios: { shared: { executor: 'shared-iterations', vus: 5, iterations: 30 } } };
export default function () { http.get(\`\${__ENV.BASE}/x?vu=\${__VU}&it=\${exec.scenario.iterationInTest}\`); }`,
    async ({ run, server, dir }) => {
      const startAt = String(Date.now() + 3000);
      const shards = await Promise.all([1, 2].map((i) => run('--shard', `${i}/2`, '--start-at', startAt, '--result', join(dir, `s${i}.json`))));
      shards.forEach((r) => assert.equal(r.code, 0, r.stderr));
      assert.equal(server.requests, 30);
      const its = server.paths.map((p) => Number(query(p).it)).sort((a, b) => a - b);
      assert.deepEqual(its, Array.from({ length: 30 }, (_, i) => i), 'iterationInTest 0 to 29 over two shards of two children');
      const vus = new Set(server.paths.map((p) => query(p).vu));
      assert.equal(vus.size, 5, `five VUs, each id once: ${[...vus]}`);
      const merged = await spawnScript(CLI, ['merge', join(dir, 's1.json'), join(dir, 's2.json')]);
      assert.equal(merged.code, 0, merged.stderr);
      assert.match(merged.stdout, /http_reqs\.+: 30 /);
      assert.match(merged.stdout, /iterations\.+: 30 /);
    },
  );
});

test('--cores 2 with --dashboard and --metrics: each second merged from both children, adding up to the server\'s count; each child\'s figures served, the run\'s totals once done', async () => {
  await withScript(
    `import http from 'k6/http';
import { sleep } from 'k6';
export const options = { vus: 4, duration: '1500ms' };
export default function () { http.get(\`\${__ENV.BASE}/status/\${__ITER % 5 === 0 ? 500 : 200}\`); sleep(0.02); }`,
    async ({ server, path }) => {
      const base = server.url.replace(/\/$/, '');
      const { child, done, said } = startScript(CLI, ['run', '-q', '--cores', '2', '-e', `BASE=${base}`, '--dashboard', '0', '--metrics', '127.0.0.1:0', '--metrics-linger', '120', path], { timeoutMs: 120000 });
      try {
        const [board, metrics] = await Promise.all([said(/dashboard at (\S+)/), said(/metrics at (\S+)/)]);
        const { text, events } = await dashboardEvents(board);
        const seconds = events.filter((e) => typeof e.second === 'number');
        assert.ok(seconds.length >= 2, text);
        assert.deepEqual(seconds.map((e) => e.second), seconds.map((_, i) => i + 1));
        const last = seconds[seconds.length - 1];
        assert.equal(last.sent, server.requests, 'every request of both children in the merged seconds');
        assert.equal(last.completed, server.requests);
        assert.ok(seconds.some((e) => e.vus > 2), 'the VUs of both children');
        assert.ok(seconds.every((e) => e.vus <= 4 && (e.p50Ms === null || (e.p50Ms > 0 && e.p50Ms <= e.p99Ms))));
        const end = events.find((e) => typeof e.report === 'string');
        assert.equal(end.summary.totalRequests, server.requests);

        // The children's last figures are there once both have said they are done.
        const over = (t) => (t.match(/loadtest_run_done\{[^}]*\} 1/g) || []).length === 2;
        const m = await scrapeUntil(metrics, over, { done });
        assert.ok(over(m), `${server.requests} requests served; the last scrape:\n${m}`);
        const sum = (re) => [...m.matchAll(re)].reduce((a, x) => a + Number(x[1]), 0);
        assert.deepEqual([...new Set([...m.matchAll(/core="(\d+)"/g)].map((x) => x[1]))].sort(), ['0', '1']);
        assert.equal(sum(/loadtest_requests_completed_total\{[^}]*status="(?:200|500)"\} (\d+)/g), server.requests);
        assert.equal(sum(/loadtest_latency_seconds_count\{[^}]*\} (\d+)/g), server.requests);
      } finally {
        globalThis.process.kill(child.pid, 'SIGINT');
        await done;
      }
    },
  );
});
