// k6's systemTags option (--system-tags, K6_SYSTEM_TAGS): a run's samples carry only the system
// tags it names, as k6 v2.2.0's do. The tag keys of each metric's samples below are those k6
// v2.2.0 wrote with --out json for the same scripts against the same server: a name the script
// gives stays (it is its tag), the url tag is the URL once name is left out, vu and iter are
// metadata (--out json's "metadata", csv's last column, exec.vu.metrics.metadata), and what is
// left out is neither in a sub-metric (a threshold on it sees no sample) nor in the summary (no
// checks without check, no groups without group).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, readFileSync, rmSync } from 'node:fs';
import { readFileSync as readPem } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rawServer, spawnScript, ok } from './servers.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));
const pem = (name) => readPem(new URL(`./tls/${name}.pem`, import.meta.url), 'utf8');

// 200 for any path but /404, which answers 404.
const answer = ({ socket }, { path }) => socket.write(path === '/404' ? 'HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n' : ok());

/**
 * Runs `source` against a server (its URL in __ENV.BASE) with --out json and csv; resolves to
 * the exit code, stderr, the summary export, the CSV's lines and { metric → [{ tags, metadata }] }.
 */
async function run(source, { args = [], env = {}, tls = false } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-system-tags-'));
  const server = await rawServer(answer, tls ? { tls: { key: pem('server-key'), cert: pem('server') } } : {});
  try {
    const path = join(dir, 'test.js');
    writeFileSync(path, source);
    const out = (name) => join(dir, name);
    const r = await spawnScript(CLI, ['run', '-q', '-e', `BASE=${server.url.replace(/\/$/, '')}`, '--out', `json=${out('out.json')}`, '--out', `csv=${out('out.csv')}`, '--summary-export', out('summary.json'), ...args, path], { timeoutMs: 60000, env });
    const read = (name) => {
      try {
        return readFileSync(out(name), 'utf8');
      } catch {
        return '';
      }
    };
    const samples = {};
    const submetrics = {};
    for (const line of read('out.json').split('\n').filter(Boolean)) {
      const j = JSON.parse(line);
      if (j.type === 'Metric') submetrics[j.metric] = (j.data.submetrics || []).map((s) => s.name);
      else (samples[j.metric] ||= []).push({ tags: j.data.tags, metadata: j.data.metadata });
    }
    const summary = read('summary.json');
    return { code: r.code, stderr: r.stderr, stdout: r.stdout, samples, submetrics, csv: read('out.csv').split('\n').filter(Boolean), summary: summary ? JSON.parse(summary) : null, port: server.port };
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

// Each distinct set of tag keys (sorted, joined) of a metric's samples.
const keySets = (samples) => [...new Set(samples.map((s) => Object.keys(s.tags).sort().join(',')))].sort();

const SCRIPT = (options) => `import http from 'k6/http';
import { check, group } from 'k6';
export const options = ${JSON.stringify({ iterations: 1, ...options })};
export default function () {
  const r = http.get(__ENV.BASE + '/ok');
  check(r, { ok: (x) => x.status === 200 });
  http.get(http.url\`\${__ENV.BASE}/\${404}\`);
  http.get(__ENV.BASE + '/named', { tags: { name: 'named', mine: 'x' } });
  group('g1', () => check(1, { inner: () => true }));
  http.get('http://127.0.0.1:1/refused');
}
`;

test("systemTags: ['status', 'method']: a request's samples carry those two, a check's and an iteration's none, the script's tags stay; no http_req_duration{expected_response:true}", async () => {
  const r = await run(SCRIPT({ systemTags: ['status', 'method'] }));
  assert.equal(r.code, 0, r.stderr);
  // k6 v2.2.0: method,status on each request (status 0 for the refused one), mine,name kept.
  assert.deepEqual(keySets(r.samples.http_reqs), ['method,mine,name,status', 'method,status']);
  assert.deepEqual(r.samples.http_reqs.map((s) => s.tags.status).sort(), ['0', '200', '200', '404']);
  assert.deepEqual(keySets(r.samples.http_req_failed), ['method,mine,name,status', 'method,status']);
  for (const m of ['checks', 'iterations', 'iteration_duration', 'group_duration', 'data_sent']) assert.deepEqual(keySets(r.samples[m]), [''], m);
  assert.ok(r.samples.http_reqs.every((s) => s.metadata === undefined));
  assert.deepEqual(r.submetrics.http_req_duration, []);
  assert.ok(!('http_req_duration{expected_response:true}' in r.summary.metrics));
  // The CSV: a column for each of them, the script's tags in extra_tags.
  assert.equal(r.csv[0], 'metric_name,timestamp,metric_value,method,status,extra_tags,metadata');
  assert.ok(r.csv.some((l) => /^http_reqs,\d+,1\.000000,GET,200,mine=x&name=named,$/.test(l)), r.csv.join('\n'));
});

test("systemTags: [] leaves every sample with the script's tags only; ['url'] without name: the url tag is the URL, not http.url's name, and a name the script gives is both", async () => {
  let r = await run(SCRIPT({ systemTags: [] }));
  assert.equal(r.code, 0, r.stderr);
  for (const [m, samples] of Object.entries(r.samples)) assert.deepEqual(keySets(samples).filter((k) => k !== 'mine,name'), [''], m);
  assert.equal(r.csv[0], 'metric_name,timestamp,metric_value,extra_tags,metadata');

  r = await run(SCRIPT({ systemTags: ['url'] }));
  assert.equal(r.code, 0, r.stderr);
  const base = `http://127.0.0.1:${r.port}`;
  assert.deepEqual(r.samples.http_reqs.map((s) => JSON.stringify(s.tags)).sort(), [
    JSON.stringify({ mine: 'x', name: 'named', url: 'named' }),
    JSON.stringify({ url: `${base}/404` }),
    JSON.stringify({ url: `${base}/ok` }),
    JSON.stringify({ url: 'http://127.0.0.1:1/refused' }),
  ].sort());
});

test("http.url's name under a name tag of options.tags: the options' name, as k6's (a name the run's tags give is the script's)", async () => {
  const r = await run(`import http from 'k6/http';
export const options = { iterations: 1, tags: { name: 'fromopts' } };
export default function () { http.get(http.url\`\${__ENV.BASE}/\${404}\`); }
`);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(r.samples.http_reqs.map((s) => [s.tags.name, s.tags.url]), [['fromopts', 'fromopts']]);
});

test("vu and iter are metadata: --out json's and csv's, exec.vu.metrics.metadata's with the script's own, never a tag nor in exec.vu.tags; exec.test.options.systemTags as k6 gives it", async () => {
  const r = await run(`import http from 'k6/http';
import exec from 'k6/execution';
export const options = { scenarios: { each: { executor: 'per-vu-iterations', vus: 2, iterations: 2 } }, systemTags: ['vu', 'iter', 'status'] };
export function setup() { http.get(__ENV.BASE + '/setup'); }
export default function () {
  exec.vu.metrics.metadata.trace = 't' + exec.vu.idInTest;
  if (exec.vu.idInTest === 1 && exec.vu.iterationInScenario === 0) console.log(JSON.stringify({ tags: Object.keys(exec.vu.tags), metadata: { ...exec.vu.metrics.metadata }, option: exec.test.options.systemTags }));
  http.get(__ENV.BASE + '/ok');
}
`);
  assert.equal(r.code, 0, r.stderr);
  const logged = JSON.parse(JSON.parse(`"${/msg="(.*)" source=console/.exec(r.stderr)[1]}"`));
  assert.deepEqual(logged.tags, []);
  assert.deepEqual(logged.metadata, { trace: 't1', vu: '1', iter: '0' });
  // exec.test.options gives the option back as k6's: the names sorted.
  assert.deepEqual(logged.option, ['iter', 'status', 'vu']);
  const reqs = r.samples.http_reqs;
  assert.deepEqual(keySets(reqs), ['status']);
  // setup()'s request: iter 0 and no vu, as k6's; the iterations' each its VU's and its own.
  assert.deepEqual(reqs.map((s) => JSON.stringify(s.metadata)).sort(), [
    '{"iter":"0"}',
    '{"iter":"0","trace":"t1","vu":"1"}',
    '{"iter":"0","trace":"t2","vu":"2"}',
    '{"iter":"1","trace":"t1","vu":"1"}',
    '{"iter":"1","trace":"t2","vu":"2"}',
  ].sort());
  assert.equal(r.csv[0], 'metric_name,timestamp,metric_value,status,extra_tags,metadata');
  assert.ok(r.csv.some((l) => /^http_reqs,\d+,1\.000000,200,,iter=1&trace=t2&vu=2$/.test(l)), r.csv.join('\n'));
});

test("a threshold on a sub-metric by a tag left out sees no sample; without check the summary lists no check, without group --summary-export has no group", async () => {
  const source = (systemTags) => `import http from 'k6/http';
import { check, group } from 'k6';
export const options = { iterations: 2, systemTags: ${JSON.stringify(systemTags)}, thresholds: { 'http_reqs{status:200}': ['count>0'] } };
export default function () {
  check(http.get(__ENV.BASE + '/ok'), { 'is ok': (x) => x.status === 200 });
  group('g1', () => check(1, { inner: () => true }));
}
`;
  let r = await run(source(['method', 'group']));
  assert.equal(r.code, 99, r.stderr);
  assert.match(r.stderr, /thresholds on metrics 'http_reqs\{status:200\}' have been crossed/);
  assert.equal(r.summary.metrics['http_reqs{status:200}'].count, 0);
  assert.equal(r.summary.metrics.checks.passes, 4);
  // No check tag: the groups, none of their checks; and no check under the summary's totals.
  assert.deepEqual(Object.keys(r.summary.root_group.groups), ['g1']);
  assert.deepEqual(Object.keys(r.summary.root_group.checks), []);
  assert.deepEqual(Object.keys(r.summary.root_group.groups.g1.checks), []);
  assert.doesNotMatch(r.stdout, /✓ is ok/);

  r = await run(source(['status', 'check']));
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.summary.metrics['http_reqs{status:200}'].count, 2);
  assert.deepEqual(r.summary.root_group.groups, {});
  assert.deepEqual(r.summary.root_group.checks, {});
  assert.match(r.stdout, /✓ is ok/);
});

test("--system-tags over K6_SYSTEM_TAGS over the script's; K6_SYSTEM_TAGS= and --system-tags= keep none; a name k6 does not know warned of and left out; a list that is not one refused (104)", async () => {
  const source = `import http from 'k6/http';
export const options = { iterations: 1, systemTags: ['url'] };
export default function () { http.get(__ENV.BASE + '/ok'); }
`;
  const keys = (r) => keySets(r.samples.http_reqs);
  assert.deepEqual(keys(await run(source, { env: { K6_SYSTEM_TAGS: ' status , proto,' } })), ['proto,status']);
  assert.deepEqual(keys(await run(source, { args: ['--system-tags', 'method', '--system-tags', 'status'], env: { K6_SYSTEM_TAGS: 'proto' } })), ['method,status']);
  assert.deepEqual(keys(await run(source, { env: { K6_SYSTEM_TAGS: '' } })), ['']);
  assert.deepEqual(keys(await run(source, { args: ['--system-tags='] })), ['']);
  const r = await run(source, { args: ['--system-tags', 'Status,bogus,method'] });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(keys(r), ['method']);
  assert.match(r.stderr, /systemTags: 'Status', 'bogus' are not one of k6's system tags .*: left out, as k6 leaves them out/);
  const bad = await run(source.replace("['url']", "'url'"));
  assert.equal(bad.code, 104);
  assert.match(bad.stderr, /systemTags: a list of system tag names .*, not "url"/);
});

test("an HTTPS request's samples carry tls_version, as k6's default set has it; ocsp_status and ip where systemTags names them", async () => {
  const source = (options) => `import http from 'k6/http';
export const options = ${JSON.stringify({ iterations: 1, ...options })};
export default function () { http.get(__ENV.BASE + '/ok'); }
`;
  // insecureSkipTLSVerify: the test's certificate; and on Deno node:tls, which tells the version.
  let r = await run(source({ insecureSkipTLSVerify: true }), { tls: true });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.samples.http_reqs[0].tags.tls_version, 'tls1.3');
  r = await run(source({ insecureSkipTLSVerify: true, systemTags: ['tls_version', 'ocsp_status', 'ip'] }), { tls: true });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(r.samples.http_reqs[0].tags, { ip: '127.0.0.1', ocsp_status: 'unknown', tls_version: 'tls1.3' });
});
