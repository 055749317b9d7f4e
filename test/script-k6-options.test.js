// How k6 v1.3.0 takes a run's options and ends it, each checked beside k6 on the same script:
// which tier's shape wins (--vus alone keeps the script's scenarios; -d, -i, -s and the K6_*
// variables replace them, with k6's warning), setup()'s data in --summary-export, test.abort()
// in setup(), teardown() and the init code, the iterations a maxDuration drops, the K6_*
// variables and --no-color.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnScript } from './servers.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));

// Runs `source` as a script with `args` before it; `env` adds to (or, undefined, takes from) the
// environment. Resolves to { code, stdout, stderr, logs, dir } (logs: what console.log said).
async function run(source, args = [], env = {}, keep = null) {
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-k6opts-'));
  try {
    const path = join(dir, 'test.js');
    writeFileSync(path, source);
    const inDir = (a) => (typeof a === 'string' ? a.replace('DIR', dir) : a);
    const r = await spawnScript(CLI, ['run', '-q', ...args.map(inDir), path], { timeoutMs: 60000, env: Object.fromEntries(Object.entries(env).map(([k, v]) => [k, inDir(v)])) });
    const logs = [...r.stderr.matchAll(/level=info msg=(?:"((?:[^"\\]|\\.)*)"|(\S+)) source=console/g)].map((m) => (m[2] !== undefined ? m[2] : JSON.parse(`"${m[1]}"`)));
    const kept = keep && existsSync(join(dir, keep)) ? readFileSync(join(dir, keep), 'utf8') : null;
    return { ...r, logs, kept };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const lines = (stderr) => stderr.split('\n').filter((l) => l.startsWith('loadtest run: '));

test('--vus alone overrides the script\'s scenarios with as many iterations, with k6 v2.2\'s warning; -i replaces its scenarios with k6\'s warning', async () => {
  const scenarios = "export const options = { scenarios: { a: { executor: 'per-vu-iterations', vus: 2, iterations: 2 } } };\nexport default function () { console.log(`vu=${__VU}`); }\n";
  // k6 v2.2.0 (v1.3.0 kept the scenario: 4 iterations of VUs 1 and 2): 3 iterations shared by
  // 3 VUs, and its warning.
  let r = await run(scenarios, ['--vus', '3']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.logs.length, 3);
  assert.deepEqual(lines(r.stderr), ['loadtest run: `vus=3` overrides scenarios configuration']);
  // And in the script's own options, with no shape of its own: `vus: 3` alone runs 3 iterations.
  r = await run("export const options = { vus: 3 };\nexport default function () { console.log(`vu=${__VU}`); }\n");
  assert.equal(r.logs.length, 3);
  assert.deepEqual(lines(r.stderr), []);
  // k6 v2.2.0: a shape beside scenarios in the same tier is refused; an empty one said.
  r = await run("export const options = { iterations: 2, scenarios: { a: { executor: 'per-vu-iterations' } } };\nexport default function () {}\n");
  assert.equal(r.code, 104);
  assert.deepEqual(lines(r.stderr), ['loadtest run: using `iterations` and `scenarios` options simultaneously is not allowed']);
  r = await run("export const options = { iterations: 2, stages: [{ duration: '1s', target: 1 }] };\nexport default function () {}\n");
  assert.deepEqual([r.code, lines(r.stderr)], [104, ['loadtest run: using `iterations` and `stages` options simultaneously is not allowed']]);
  r = await run("export const options = { duration: '0s' };\nexport default function () {}\n");
  assert.deepEqual([r.code, lines(r.stderr)], [104, ['loadtest run: `duration` option should be more than 0, for infinite duration use the externally-controlled executor']]);
  // k6 v2.2.0 (lib/executor's minDuration): a duration or maxDuration under a second is refused,
  // from the options or the flags, in Go's form of it.
  r = await run("export const options = { vus: 1, duration: '300ms' };\nexport default function () {}\n");
  assert.deepEqual([r.code, lines(r.stderr)], [104, ["loadtest run: scenario 'default': the duration must be at least 1s, but is 300ms"]]);
  r = await run('export default function () {}\n', ['-i', '2', '-d', '0.5s']);
  assert.deepEqual([r.code, lines(r.stderr)], [104, ["loadtest run: scenario 'default': the maxDuration must be at least 1s, but is 500ms"]]);
  r = await run("export const options = { vus: 2, stages: [] };\nexport default function () { console.log(`vu=${__VU}`); }\n");
  assert.deepEqual([r.code, r.logs, lines(r.stderr)], [0, ['vu=1'], ['loadtest run: `stages` was explicitly set to an empty value, running the script with 1 iteration in 1 VU']]);
  // k6: level=warning msg="\"cli\" level configuration overrode scenarios configuration entirely"
  r = await run(scenarios, ['-i', '2']);
  assert.deepEqual(r.logs, ['vu=1', 'vu=1']);
  assert.deepEqual(lines(r.stderr), ['loadtest run: "cli" level configuration overrode scenarios configuration entirely']);
  // The script's duration kept, its VUs the flag's: three VUs for 1s.
  r = await run("export const options = { vus: 1, duration: '1s' };\nexport default function () { if (__ITER === 0) console.log(`vu=${__VU}`); }\n", ['--vus', '3']);
  assert.deepEqual(r.logs.sort(), ['vu=1', 'vu=2', 'vu=3']);
});

test('--summary-export has setup()\'s data as k6 writes it: an object, a primitive, null; none without a value or setup()', async () => {
  const cases = [['{ foo: \'bar\', n: [1, 2] }', { foo: 'bar', n: [1, 2] }], ['42', 42], ['\'text\'', 'text'], ['null', null], ['undefined', undefined]];
  for (const [value, expected] of cases) {
    const r = await run(`export function setup() { return ${value}; }\nexport default function () {}\n`, ['--summary-export', 'DIR/export.json'], {}, 'export.json');
    assert.equal(r.code, 0, r.stderr);
    const doc = JSON.parse(r.kept);
    assert.equal('setup_data' in doc, expected !== undefined, value);
    assert.deepEqual(doc.setup_data, expected);
  }
  const r = await run('export default function () {}\n', ['--summary-export', 'DIR/export.json'], {}, 'export.json');
  assert.deepEqual(Object.keys(JSON.parse(r.kept)).sort(), ['metrics', 'root_group']);
});

test('exec.test.abort() in setup(): no iteration, no teardown(), the summary and --summary-export still made, k6\'s line and exit 108', async () => {
  const source = `import exec from 'k6/execution';
export const options = { vus: 1, iterations: 1 };
export function setup() { console.log('setup'); exec.test.abort('Application is down'); console.log('after'); }
export default function () { console.log('default'); }
export function teardown() { console.log('teardown'); }
export function handleSummary(data) { console.log('summary ' + JSON.stringify(data.setup_data)); return { stdout: 'SUMMARY\\n' }; }
`;
  // k6 v1.3.0: setup, the summary, then level=error msg="test aborted: Application is down"; 108.
  const r = await run(source, ['--summary-export', 'DIR/export.json'], {}, 'export.json');
  assert.equal(r.code, 108, r.stderr);
  assert.deepEqual(r.logs, ['setup', 'summary undefined']);
  assert.equal(r.stdout, 'SUMMARY\n');
  assert.deepEqual(lines(r.stderr), ['loadtest run: test aborted: Application is down']);
  assert.ok(JSON.parse(r.kept).metrics.data_sent);
});

test('exec.test.abort() in teardown() and in a VU\'s init code: exit 108 with k6\'s line; the first init\'s: no summary', async () => {
  let r = await run("import exec from 'k6/execution';\nexport default function () {}\nexport function teardown() { exec.test.abort('stop in teardown'); }\n", ['--summary-export', 'DIR/export.json'], {}, 'export.json');
  assert.equal(r.code, 108, r.stderr);
  assert.match(r.stdout, /iterations\.+: 1 /);
  assert.deepEqual(lines(r.stderr), ['loadtest run: test aborted: stop in teardown']);
  assert.equal(JSON.parse(r.kept).metrics.iterations.count, 1);
  // k6: no setup() or teardown(), handleSummary() called, exit 108.
  const init = `import exec from 'k6/execution';
export const options = { vus: 2, iterations: 2 };
if (__VU === 2) exec.test.abort('in init of VU 2');
export function setup() { console.log('setup'); }
export default function () { console.log('default'); }
export function teardown() { console.log('teardown'); }
export function handleSummary() { console.log('summary'); return { stdout: 'SUMMARY\\n' }; }
`;
  r = await run(init);
  assert.equal(r.code, 108, r.stderr);
  assert.deepEqual(r.logs, ['summary']);
  assert.deepEqual(lines(r.stderr), ['loadtest run: test aborted: in init of VU 2']);
  // k6: "could not initialize ...: test aborted: in init at ...", no summary, exit 108.
  r = await run("import exec from 'k6/execution';\nexec.test.abort('in init');\nexport default function () {}\n", ['--summary-export', 'DIR/export.json'], {}, 'export.json');
  assert.equal(r.code, 108, r.stderr);
  assert.equal(r.stdout, '');
  assert.equal(r.kept, null);
  assert.deepEqual(lines(r.stderr), ['loadtest run: test aborted: in init']);
});

test('dropped_iterations: what maxDuration leaves of per-vu-iterations (a sample per VU) and shared-iterations (one), with the run\'s tags and the scenario\'s name', async () => {
  const source = `import { sleep } from 'k6';
export const options = {
  tags: { run: 'r1' },
  scenarios: {
    p: { executor: 'per-vu-iterations', vus: 2, iterations: 5, maxDuration: '1s', gracefulStop: '0s', tags: { own: 'x' } },
    s: { executor: 'shared-iterations', vus: 2, iterations: 12, maxDuration: '1s', gracefulStop: '0s', exec: 'other' },
  },
};
export default function () { sleep(0.4); }
export function other() { sleep(0.4); }
`;
  // k6 v1.3.0 (--out json): 2 and 2 for p's VUs (3 of 5 begun each), 6 for s (6 of 12 begun).
  const r = await run(source, ['--out', 'json=DIR/out.json'], {}, 'out.json');
  assert.equal(r.code, 0, r.stderr);
  const points = r.kept.trim().split('\n').map((l) => JSON.parse(l)).filter((l) => l.type === 'Point' && l.metric === 'dropped_iterations');
  assert.deepEqual(points.map((p) => [p.data.value, p.data.tags]), [[2, { run: 'r1', scenario: 'p' }], [2, { run: 'r1', scenario: 'p' }], [6, { run: 'r1', scenario: 's' }]]);
});

test('K6_* variables: over the script\'s options, under the flags; K6_ITERATIONS replaces the scenarios with k6\'s "env" warning, K6_VUS alone overrides them with k6 v2.2\'s', async () => {
  const scenarios = "export const options = { scenarios: { a: { executor: 'per-vu-iterations', vus: 1, iterations: 1 } }, summaryTrendStats: ['avg'] };\nexport default function () { console.log(`vu=${__VU}`); }\nexport function handleSummary(d) { return { stdout: JSON.stringify(d.options.summaryTrendStats) }; }\n";
  // k6 v1.3.0: the warning, then 3 iterations shared by 2 VUs.
  let r = await run(scenarios, [], { K6_VUS: '2', K6_ITERATIONS: '3', K6_SUMMARY_TREND_STATS: 'max,p(99)' });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.logs.length, 3);
  assert.deepEqual(lines(r.stderr), ['loadtest run: "env" level configuration overrode scenarios configuration entirely']);
  assert.equal(r.stdout, '["max","p(99)"]');
  r = await run(scenarios, [], { K6_VUS: '3' });
  assert.equal(r.logs.length, 3);
  assert.deepEqual(lines(r.stderr), ['loadtest run: `vus=3` overrides scenarios configuration']);
  // The flags win: -i over K6_DURATION (whose duration goes), --summary-trend-stats over its variable.
  r = await run(scenarios, ['-i', '2', '--summary-trend-stats', 'min'], { K6_DURATION: '5s', K6_SUMMARY_TREND_STATS: 'max' });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(r.logs, ['vu=1', 'vu=1']);
  assert.equal(r.stdout, '["min"]');
  // k6: envconfig's error, exit 104 (booleans are true or false alone).
  r = await run(scenarios, [], { K6_NO_SETUP: '1' });
  assert.equal(r.code, 104);
  assert.deepEqual(lines(r.stderr), ["loadtest run: K6_NO_SETUP: true or false, not '1'"]);
  r = await run(scenarios, [], { K6_THRESHOLDS: 'http_req_duration:p(95)<200' });
  assert.equal(r.code, 104);
  assert.match(r.stderr, /^loadtest run: K6_THRESHOLDS is not supported by loadtest run \(.+\): unset it\n$/);
  r = await run(scenarios, [], { K6_HOSTS: 'a.test=127.0.0.1' });
  assert.equal(r.code, 0);
  assert.deepEqual(lines(r.stderr), ['loadtest run: K6_HOSTS is ignored, as k6 v1.3 ignores it: give the hosts option']);
});

test('K6_NO_THRESHOLDS, K6_SUMMARY_EXPORT, K6_OUT for their flags; __ENV has the system\'s variables unless --include-system-env-vars=false', async () => {
  const source = "export const options = { iterations: 1, thresholds: { iterations: ['count>5'] } };\nexport default function () { console.log(`FOO=${__ENV.FOO} BAR=${__ENV.BAR}`); }\n";
  let r = await run(source, ['-e', 'BAR=2'], { FOO: '1', K6_NO_THRESHOLDS: 'true', K6_SUMMARY_EXPORT: 'DIR/export.json' }, 'export.json');
  assert.equal(r.code, 0, r.stderr);
  assert.equal(JSON.parse(r.kept).metrics.iterations.count, 1);
  assert.deepEqual(r.logs, ['FOO=1 BAR=2']);
  r = await run(source, ['--include-system-env-vars=false', '-e', 'BAR=2'], { FOO: '1' });
  assert.equal(r.code, 99, r.stderr);
  assert.deepEqual(r.logs, ['FOO=undefined BAR=2']);
  r = await run(source, ['--include-system-env-vars'], { FOO: '1', K6_INCLUDE_SYSTEM_ENV_VARS: 'false', K6_OUT: 'json=DIR/out.json' }, 'out.json');
  assert.deepEqual(r.logs, ['FOO=1 BAR=undefined']);
  assert.match(r.kept, /"metric":"iterations","type":"Point"/);
  r = await run(source, [], { FOO: '1', K6_INCLUDE_SYSTEM_ENV_VARS: 'maybe' });
  assert.equal(r.code, 2);
  assert.deepEqual(lines(r.stderr), ["loadtest run: env var 'K6_INCLUDE_SYSTEM_ENV_VARS' is not a valid boolean value: 'maybe'"]);
});

test('--no-color, NO_COLOR (even empty) and K6_NO_COLOR (not empty) make handleSummary\'s options.noColor true, as k6; the output off a terminal is the same', async () => {
  const source = 'export default function () {}\nexport function handleSummary(d) { return { stdout: String(d.options.noColor) }; }\n';
  // The harness sets NO_COLOR=1 for every run: undefined takes it away.
  const cases = [[[], {}, 'false'], [[], { NO_COLOR: '' }, 'true'], [[], { K6_NO_COLOR: '' }, 'false'], [[], { K6_NO_COLOR: '0' }, 'true'], [['--no-color'], {}, 'true']];
  for (const [args, env, expected] of cases) {
    const r = await run(source, args, { NO_COLOR: undefined, ...env });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, expected, JSON.stringify([args, env]));
  }
  const plain = await run('export default function () {}\n', ['--no-color'], { NO_COLOR: undefined });
  assert.match(plain.stdout, /iterations\.+: 1 /);
  assert.doesNotMatch(plain.stdout, /\x1b/);
});

test("k6's flags of CI scripts: --no-usage-report taken, --summary-time-unit as the option, -v shows console.debug, --compatibility-mode experimental_enhanced taken and base refused", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-flags-'));
  try {
    const path = join(dir, 'test.js');
    writeFileSync(path, `export const options = { iterations: 1 };
import { Trend } from 'k6/metrics';
const t = new Trend('t_time', true);
export default function () { console.debug('dbg', 1); t.add(1500); }
`);
    const run = (...args) => spawnScript(CLI, ['run', '-q', ...args, path], { timeoutMs: 60000 });
    const r = await run('--no-usage-report', '--summary-time-unit=ms', '-v', '--compatibility-mode=experimental_enhanced');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /t_time\.+: avg=1500\.00ms min=1500\.00ms/); // k6 v1.3.0 prints the same
    assert.match(r.stderr, /level=debug msg="dbg 1" source=console/);
    const quiet = await run();
    assert.doesNotMatch(quiet.stderr, /dbg/);
    const base = await run('--compatibility-mode', 'base');
    assert.equal(base.code, 2);
    assert.match(base.stderr, /^loadtest run: --compatibility-mode 'base': extended or experimental_enhanced here/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('externally-controlled, which k6 v2.0 removed, runs as k6 v1 ran it (its VUs for its duration) with a line saying so; k6 v1.3\'s checks of it', async () => {
  const script = (s) => `export const options = { scenarios: { ec: { executor: 'externally-controlled', ${s} } } };\nexport default function () { if (__ITER === 0) console.log(\`vu=\${__VU}\`); }\n`;
  let r = await run(script("vus: 2, maxVUs: 3, duration: '300ms'"));
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(r.logs.sort(), ['vu=1', 'vu=2']);
  assert.deepEqual(lines(r.stderr), ['loadtest run: the externally-controlled executor was removed in k6 v2.0: run as k6 v1 ran it, its VUs looping for its duration (there is no REST API here to scale or pause it)']);
  for (const [given, line] of [
    ["vus: 3, maxVUs: 2, duration: '1s'", 'the number of active VUs (3) must be less than or equal to the number of maxVUs (2)'],
    ['vus: 1', 'the duration must be specified, for infinite duration use 0'],
    ["vus: 1, duration: '1s', gracefulStop: '1s'", 'gracefulStop is not supported by the externally controlled executor'],
  ]) {
    r = await run(script(given));
    assert.equal(r.code, 104, r.stderr);
    assert.deepEqual(lines(r.stderr), [`loadtest run: scenario 'ec': ${line}`]);
  }
});

test('k6 v2\'s checks: a percentile above 100 in a threshold or the trend stats refused in k6\'s words; http.get and http.head given more than a URL and params warned of', async () => {
  let r = await run("export const options = { thresholds: { iteration_duration: ['p(101)<200'] } };\nexport default function () {}\n");
  assert.deepEqual([r.code, lines(r.stderr)], [104, ['loadtest run: failed parsing threshold expression\'s "p(101)<200" left hand side; reason: malformed percentile value, provide a number between 0 and 100']]);
  r = await run("export const options = { summaryTrendStats: ['avg', 'p(101)'] };\nexport default function () {}\n");
  assert.deepEqual([r.code, lines(r.stderr)], [104, ["loadtest run: options.summaryTrendStats: invalid percentile trend stat value 'p(101)', provide a number between 0 and 100"]]);
  r = await run('export default function () {}\n', ['--summary-trend-stats', 'avg,p(100.5)']);
  assert.deepEqual([r.code, lines(r.stderr)], [2, ["loadtest run: --summary-trend-stats: invalid percentile trend stat value 'p(100.5)', provide a number between 0 and 100"]]);
  // k6 v2.0 warns at every call; here once, with a count at the end. The requests go to a port
  // nothing listens on: they fail, which is not what is asked here.
  r = await run(`import http from 'k6/http';
export const options = { iterations: 2 };
export default function () { http.get('http://127.0.0.1:1/', {}, { tags: { a: 'b' } }); http.head('http://127.0.0.1:1/', null, {}, 4); http.post('http://127.0.0.1:1/', null, {}); }
`);
  const warned = lines(r.stderr).filter((l) => /only accepts/.test(l));
  assert.deepEqual(warned, [
    'loadtest run: http.get only accepts a url and a params argument (2 arguments), but 3 were given',
    'loadtest run: http.head only accepts a url and a params argument (2 arguments), but 4 were given',
    'loadtest run: 2 times: http.get only accepts a url and a params argument (2 arguments), but 3 were given',
    'loadtest run: 2 times: http.head only accepts a url and a params argument (2 arguments), but 4 were given',
  ]);
});

test('__ENV is each VU\'s own, as in k6: what one VU writes in it, another does not see; a scenario\'s env over the run\'s', async () => {
  const r = await run(`import { sleep } from 'k6';
export const options = { scenarios: {
  a: { executor: 'per-vu-iterations', vus: 2, iterations: 2 },
  b: { executor: 'per-vu-iterations', vus: 1, iterations: 1, startTime: '1s', env: { S: 'b' } },
} };
export default function () {
  if (__VU === 1 && exec_scenario() === 'a') __ENV.X = 'set';
  sleep(0.2);
  console.log(\`\${exec_scenario()} \${__VU} \${__ITER} \${__ENV.X} \${__ENV.S}\`);
}
function exec_scenario() { return __ENV.S === 'b' ? 'b' : 'a'; }
`, ['-e', 'S=run']);
  assert.equal(r.code, 0, r.stderr);
  // k6 v2.2.0 gives these lines: VU 2 never sees VU 1's X, and scenario b's VU starts anew.
  assert.deepEqual(r.logs.sort(), ['a 1 0 set run', 'a 1 1 set run', 'a 2 0 undefined run', 'a 2 1 undefined run', 'b 3 0 undefined b']);
});

test('k6 v2\'s words for --out experimental-opentelemetry (stable as opentelemetry since k6 v1.4); K6_ADDRESS, a REST API there is not, refused in one line', async () => {
  let r = await run('export default function () {}\n', ['--out', 'experimental-opentelemetry', '--summary-mode', 'disabled'], { K6_OTEL_EXPORTER_PROTOCOL: 'http/protobuf', K6_OTEL_HTTP_EXPORTER_ENDPOINT: '127.0.0.1:1', K6_OTEL_HTTP_EXPORTER_INSECURE: 'true' });
  assert.equal(lines(r.stderr)[0], 'loadtest run: OpenTelemetry output has been graduated as a stable output.You can now use just "opentelemetry" instead of "experimental-opentelemetry". The experimental version will be removed in future versions.');
  r = await run('export default function () {}\n', [], { K6_ADDRESS: '127.0.0.1:6565' });
  assert.deepEqual([r.code, lines(r.stderr)], [104, ['loadtest run: K6_ADDRESS is not supported by loadtest run (there is no REST API here, and k6 v2 serves none without an address): unset it']]);
  r = await run('export default function () {}\n', [], { K6_ADDRESS: '' });
  assert.equal(r.code, 0, r.stderr);
});

test('a duration without a unit is milliseconds in an option or a variable, as k6 v2.2 reads it (types.ParseExtendedDuration); a flag refuses one in Go\'s words', async () => {
  const script = "import exec from 'k6/execution';\nexport const options = { duration: '1500', setupTimeout: '2' };\nexport default function () {}\nexport function teardown() { console.log(exec.test.options.scenarios.default.duration + ' ' + exec.test.options.setupTimeout); }\n";
  // k6 v2.2.0 logs '1.5s 2ms' (this read '1500' as 25 minutes).
  let r = await run(script);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(r.logs, ['1.5s 2ms']);
  r = await run('export default function () {}\n', ['-d', '30']);
  assert.deepEqual([r.code, lines(r.stderr)], [2, ['loadtest run: invalid argument "30" for "-d, --duration" flag: time: missing unit in duration "30"']]);
  r = await run('export default function () {}\n', ['--min-iteration-duration', '5']);
  assert.deepEqual([r.code, lines(r.stderr)], [2, ['loadtest run: invalid argument "5" for "--min-iteration-duration" flag: time: missing unit in duration "5"']]);
});
