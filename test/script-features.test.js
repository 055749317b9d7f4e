// k6 v2.2's handleSummaryTimeout and feature flags (--features, K6_FEATURES, the config file's
// features; freeze-env, merge-run-tags, native-histograms), each checked beside k6 v2.2.0 on
// the same script: its lines, what is printed and written, __ENV, the run's tags and exit codes.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnScript, inTurn } from './servers.js';
import { timeoutMessage } from '../src/script/scenarios/duration.js';
import { featuresText, resolveFeatures } from '../src/commands/run-features.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));
// None of the test's own environment reaches a case unless the case sets it.
const CLEAN = { K6_FEATURES: undefined, K6_PROMETHEUS_RW_TREND_AS_NATIVE_HISTOGRAM: undefined, K6_TAGS: undefined, K6_HANDLE_SUMMARY_TIMEOUT: undefined };

// Runs `source` with `args` (DIR: the script's folder, where `files` are written); resolves to
// { code, stdout, stderr, logs (console.log's), k6 (k6's log lines, without their time), read(name) }.
async function run(source, args = [], env = {}, files = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-features-'));
  try {
    const path = join(dir, 'test.js');
    writeFileSync(path, source);
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    const r = await spawnScript(CLI, ['run', '-q', ...args.map((a) => a.replace('DIR', dir)), path], { timeoutMs: 60000, env: { ...CLEAN, ...env } });
    const logs = [...r.stderr.matchAll(/level=info msg=(?:"((?:[^"\\]|\\.)*)"|(\S+)) source=console/g)].map((m) => (m[2] !== undefined ? m[2] : JSON.parse(`"${m[1]}"`)));
    const k6 = r.stderr.split('\n').filter((l) => l.startsWith('time=') && !l.endsWith('source=console')).map((l) => l.replace(/^time="[^"]*" /, ''));
    const kept = Object.fromEntries(['out.txt', 'export.json', 'out.json'].map((name) => [name, existsSync(join(dir, name)) ? readFileSync(join(dir, name), 'utf8') : null]));
    return { ...r, logs, k6, kept };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const TIMED_OUT = (s) => `level=error msg="failed to handle the end-of-test summary" error="handleSummary() execution timed out after ${s} seconds"`;

test("k6's timeout line: its seconds as Go's %.f rounds them, a half to the even one", () => {
  assert.deepEqual([2500, 1500, 500, 400, 120000, 0].map((ms) => timeoutMessage('handleSummary', ms)), ['2', '2', '0', '0', '120', '0'].map((s) => `handleSummary() execution timed out after ${s} seconds`));
});

test('handleSummary() past handleSummaryTimeout: k6 v2.2\'s line, nothing printed or written (no summary, no --summary-export), the run\'s exit code', async () => {
  const busy = "export const options = { iterations: 1, handleSummaryTimeout: '200ms' };\nexport default function () {}\nexport function handleSummary() { const t = Date.now(); while (Date.now() - t < 600) {} return { stdout: 'custom\\n', [`${__ENV.DIR}/out.txt`]: 'x' }; }\n";
  const waits = "import { sleep } from 'k6';\nexport const options = { iterations: 1, thresholds: { iterations: ['count>5'] } };\nexport default function () {}\nexport async function handleSummary() { await new Promise((r) => setTimeout(r, 60000)); return { stdout: 'custom\\n' }; }\n";
  const sleeps = "import { sleep } from 'k6';\nexport const options = { iterations: 1, handleSummaryTimeout: '2.5s' };\nexport default function () {}\nexport function handleSummary() { sleep(30); return { stdout: 'custom\\n' }; }\n";
  const [a, b, c] = await inTurn(
    [
      // A synchronous loop cannot be cut here; one that ends past the time is taken as k6 cuts it.
      [busy, ['-e', 'DIR=DIR', '--summary-export', 'DIR/export.json']],
      // An async handleSummary and its timer: raced, and k6's default of 120 s from the variable.
      [waits, [], { K6_HANDLE_SUMMARY_TIMEOUT: '1s' }],
      [sleeps],
    ],
    ([source, args, env]) => run(source, args, env),
  );
  assert.deepEqual([a.code, a.stdout, a.k6, a.kept['out.txt'], a.kept['export.json']], [0, '', [TIMED_OUT(0)], null, null], a.stderr);
  assert.doesNotMatch(a.stderr, /unknown fields/);
  assert.deepEqual([b.code, b.stdout, b.k6], [99, '', [TIMED_OUT(1)]], b.stderr);
  assert.match(b.stderr, /thresholds on metrics 'iterations' have been crossed/);
  assert.deepEqual([c.code, c.stdout, c.k6], [0, '', [TIMED_OUT(2)]], c.stderr);
});

test('handleSummary() in its time: its result once its timers have run (as k6 reads it), and handleSummaryTimeout in exec.test.options', async () => {
  const r = await run("import exec from 'k6/execution';\nexport const options = { iterations: 1, handleSummaryTimeout: '1500ms' };\nexport default function () { console.log(exec.test.options.handleSummaryTimeout); }\nexport function handleSummary() { const out = { stdout: 'before\\n' }; setTimeout(() => { out.stdout = 'after\\n'; }, 50); return out; }\n");
  assert.deepEqual([r.code, r.stdout, r.logs, r.k6], [0, 'after\n', ['1.5s'], []], r.stderr);
  assert.doesNotMatch(r.stderr, /unknown fields/);
  const bad = await run('export default function () {}\n', [], { K6_HANDLE_SUMMARY_TIMEOUT: 'abc' });
  assert.equal(bad.code, 104);
  assert.equal(bad.stderr, "loadtest run: K6_HANDLE_SUMMARY_TIMEOUT: 'abc' is not a duration (30s, 1m30s, 500ms)\n");
});

// Logs exec.vu.tags (sorted), __ENV.K6_FEATURES and whether __ENV is frozen.
const TAGS = "import exec from 'k6/execution';\nexport const options = { iterations: 1, tags: { a: 'script', b: 'script' } };\nexport default function () { const t = exec.vu.tags; console.log(JSON.stringify(Object.fromEntries(Object.keys(t).sort().map((k) => [k, t[k]]))), String(__ENV.K6_FEATURES), Object.isFrozen(__ENV)); }\n";
const ON = (f) => `level=info msg="Experimental feature enabled" feature=${f} lifecycle=experimental`;
const UNKNOWN = (f, source) => `level=error msg="Unknown feature flag" feature=${f} outcome=unknown source=${source}`;
const tagsOf = (r) => JSON.parse(r.logs[0].split(' ')[0]);

test('--features (repeated, commas), K6_FEATURES and the config file: one surface wins whole, k6\'s lines, an unknown name said and the run goes on', async () => {
  const files = { 'conf.json': JSON.stringify({ features: ['freeze-env', 'bogus2'] }) };
  const [cli, env, alias, file, fileUnder, none] = await inTurn(
    [
      [['--features', 'native-histograms,bogus', '--features', ' merge-run-tags', '--tag', 'b=cli'], { K6_FEATURES: 'freeze-env' }],
      [[], { K6_FEATURES: ' freeze-env, bogus ,freeze-env' }],
      [['-e', 'K6_FEATURES=merge-run-tags'], { K6_PROMETHEUS_RW_TREND_AS_NATIVE_HISTOGRAM: 'true' }],
      [['-c', 'DIR/conf.json']],
      [['-c', 'DIR/conf.json'], { K6_FEATURES: '' }],
      [[], { K6_FEATURES: 'bogus' }],
    ],
    ([args, env]) => run(TAGS, args, env, files),
  );
  assert.deepEqual(cli.k6, [ON('native-histograms'), UNKNOWN('bogus', 'cli'), ON('merge-run-tags')], cli.stderr);
  assert.deepEqual(cli.logs, ['{"a":"script","b":"cli","group":"","k6_feature_merge_run_tags":"true","k6_feature_native_histograms":"true","scenario":"default"} merge-run-tags,native-histograms false']);
  assert.deepEqual(env.k6, [ON('freeze-env'), UNKNOWN('bogus', 'env')]);
  assert.deepEqual(env.logs, ['{"a":"script","b":"script","group":"","k6_feature_freeze_env":"true","scenario":"default"} freeze-env true']);
  assert.deepEqual(alias.k6, ['level=warning msg="Legacy env var detected, use --features or K6_FEATURES instead" env=K6_PROMETHEUS_RW_TREND_AS_NATIVE_HISTOGRAM feature=native-histograms lifecycle=deprecated_alias source=env_legacy_alias', ON('native-histograms'), ON('merge-run-tags')]);
  assert.equal(alias.logs[0].split(' ')[1], 'merge-run-tags,native-histograms');
  assert.deepEqual(file.k6, [ON('freeze-env'), UNKNOWN('bogus2', 'json')]);
  assert.deepEqual([fileUnder.k6, fileUnder.logs[0].split(' ').slice(1)], [[], ['undefined', 'false']]);
  assert.deepEqual([none.code, none.k6, none.logs[0].split(' ').slice(1)], [0, [UNKNOWN('bogus', 'env')], ['undefined', 'false']]);
  for (const r of [cli, env, alias, file, fileUnder, none]) assert.equal(r.code, 0, r.stderr);
});

test('a feature flag tags every sample k6_feature_<name>=true over the run\'s own tags (K6_FEATURES=native-histograms dropped the script\'s)', async () => {
  const r = await run(TAGS, ['--out', 'json=DIR/out.json'], { K6_FEATURES: 'native-histograms' });
  assert.deepEqual(tagsOf(r), { a: 'script', b: 'script', group: '', k6_feature_native_histograms: 'true', scenario: 'default' });
  const points = r.kept['out.json'].trim().split('\n').map((l) => JSON.parse(l)).filter((l) => l.type === 'Point' && l.metric === 'iterations');
  assert.equal(points.length, 1);
  assert.equal(points[0].data.tags.k6_feature_native_histograms, 'true');
  assert.equal(points[0].data.tags.a, 'script');
});

test("merge-run-tags: every tier's tags key by key (file, script, K6_TAGS, --tag), where without it a tier's replace the lower's", async () => {
  const files = { 'conf.json': JSON.stringify({ tags: { c: 'file', b: 'file' } }) };
  const [merged, plain] = await inTurn([['--features', 'merge-run-tags'], []], (extra) => run(TAGS, ['-c', 'DIR/conf.json', ...extra, '--tag', 'b=cli'], { K6_TAGS: 'd:env' }, files));
  assert.deepEqual(tagsOf(merged), { a: 'script', b: 'cli', c: 'file', d: 'env', group: '', k6_feature_merge_run_tags: 'true', scenario: 'default' });
  assert.deepEqual(tagsOf(plain), { b: 'cli', group: '', scenario: 'default' });
});

test('freeze-env: __ENV frozen, in the init code and a scenario\'s too; a write throws in a module, as k6 v2.2', async () => {
  const source = "const initFrozen = Object.isFrozen(__ENV);\nexport const options = { scenarios: { s: { executor: 'shared-iterations', env: { A: '1' } } } };\nexport default function () { for (const f of [() => { __ENV.FOO = 'x'; }, () => { __ENV.A = 'x'; }, () => { delete __ENV.A; }]) { try { f(); console.log('no error'); } catch (e) { console.log(e.name); } } console.log(initFrozen, Object.isFrozen(__ENV), __ENV.A, String(__ENV.FOO)); }\n";
  const [frozen, free] = await inTurn([['--features', 'freeze-env'], []], (args) => run(source, args));
  assert.deepEqual(frozen.logs, ['TypeError', 'TypeError', 'TypeError', 'true true 1 undefined'], frozen.stderr);
  assert.deepEqual(free.logs, ['no error', 'no error', 'no error', 'false false undefined x']);
});

test("features in a script's options: k6's warning, not taken; a config file's that is no list of strings: exit 104", async () => {
  const [opts, bad] = await inTurn(
    [
      [TAGS.replace("iterations: 1,", "iterations: 1, features: ['freeze-env'],"), []],
      [TAGS, ['-c', 'DIR/conf.json']],
    ],
    ([source, args]) => run(source, args, {}, { 'conf.json': '{"features":"freeze-env"}' }),
  );
  assert.equal(opts.code, 0, opts.stderr);
  assert.deepEqual(opts.stderr.split('\n').filter((l) => l.startsWith('loadtest run:')), ['loadtest run: Feature flags in script options are not supported; use --features, K6_FEATURES, or the JSON config']);
  assert.equal(opts.logs[0].split(' ')[2], 'false');
  assert.equal(bad.code, 104);
  assert.equal(bad.stderr, 'loadtest run: --config: options.features: json: cannot unmarshal string into Go struct field Options.features of type []string\n');
});

test('resolveFeatures: an old variable that is not Go\'s true or false is refused; --features alone reads neither variable', () => {
  const env = (vars) => (name) => vars[name];
  assert.throws(() => resolveFeatures({ env: env({ K6_PROMETHEUS_RW_TREND_AS_NATIVE_HISTOGRAM: 'yes' }) }), /'K6_PROMETHEUS_RW_TREND_AS_NATIVE_HISTOGRAM' is not a valid boolean value: 'yes'/);
  assert.deepEqual(resolveFeatures({ cli: [''], env: env({ K6_PROMETHEUS_RW_TREND_AS_NATIVE_HISTOGRAM: 'yes', K6_FEATURES: 'freeze-env' }) }), { active: [], lines: [] });
  assert.deepEqual(resolveFeatures({ env: env({ K6_PROMETHEUS_RW_TREND_AS_NATIVE_HISTOGRAM: 'false' }), config: { features: ['freeze-env'] } }).active, ['freeze-env']);
});

test('loadtest features [--json]: the flags as k6 features lists them', async () => {
  assert.equal(
    featuresText(false),
    'FEATURE             LIFECYCLE      DESCRIPTION\nfreeze-env          Experimental   Freeze __ENV object to prevent modifications from JS code\nmerge-run-tags      Experimental   Merge run tags across config layers instead of replacing\nnative-histograms   Experimental   Use native histograms for trend metrics\n',
  );
  const r = await spawnScript(CLI, ['features', '--json'], { timeoutMs: 60000 });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout)[1], { feature: 'merge-run-tags', lifecycle: 'Experimental', description: 'Merge run tags across config layers instead of replacing' });
});
