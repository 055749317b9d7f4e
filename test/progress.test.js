import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { progressLine, progressMode, fractionDone, currentRate, periodicLine, startProgress, CLEAR } from '../src/results/progress.js';
import { runOnCores } from '../src/run/cores.js';
import { runLoadTest } from '../src/index.js';
import { Stats } from '../src/run/stats.js';
import { rawServer, ok, runtimeCommand, spawnScript, until, paced } from './servers.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));
const ESC = '\x1b';

const snap = (over) => ({ sent: 0, completed: 0, failed: 0, elapsedMs: 0, p99Ms: null, ...over });

test('the share done is by requests with -n, by time with -t, the further along with both, unknown with neither', () => {
  const s = snap({ completed: 200, failed: 50, elapsedMs: 5000 });
  assert.equal(fractionDone(s, { maxRequests: 1000 }), 0.25);
  assert.equal(fractionDone(s, { maxSeconds: 10 }), 0.5);
  assert.equal(fractionDone(s, { maxRequests: 1000, maxSeconds: 10 }), 0.5);
  assert.equal(fractionDone(s, { maxRequests: 400, maxSeconds: 10 }), 0.625);
  assert.equal(fractionDone(s, {}), null);
  assert.equal(fractionDone(snap({ completed: 30 }), { maxRequests: 20 }), 1);
});

test('the rate is the last interval\'s, not the average since the start', () => {
  const before = snap({ completed: 8990, failed: 10, elapsedMs: 9000 });
  const now = snap({ completed: 9090, failed: 10, elapsedMs: 10000 });
  assert.equal(currentRate(before, now), 100);
  assert.equal(currentRate(snap({ completed: 10, elapsedMs: 500 }), snap({ completed: 30, elapsedMs: 750 })), 80);
  assert.equal(currentRate(now, now), null);
});

test('the line shows time, a bar filled to the share done, the counters, the current rate and p99', () => {
  const before = snap({ sent: 4010, completed: 4000, elapsedMs: 4000 });
  const now = snap({ sent: 5010, completed: 4998, failed: 2, elapsedMs: 5000, p99Ms: 12.345 });
  const line = progressLine(now, before, { maxSeconds: 10 }, 120);
  assert.match(line, /^5\.0 s \/ 10\.0 s /);
  const bar = line.match(/\[(█*)(░*)\]\s+(\d+)%/);
  assert.ok(bar, line);
  assert.equal(bar[1].length, bar[2].length); // half of the time gone
  assert.equal(bar[3], '50');
  assert.match(line, /sent 5010/);
  assert.match(line, /done 5000/);
  assert.match(line, /\b1000 req\/s/);
  assert.match(line, /errors 2/);
  assert.match(line, /p99 12\.3 ms/);
  assert.ok(line.length <= 117);
  assert.ok(!line.includes(ESC), 'no colour unless asked');
});

test('p99 is left out until a whole second has one, and there is no bar when the end is unknown', () => {
  const line = progressLine(snap({ sent: 10, completed: 10, elapsedMs: 600 }), snap(), {}, 120);
  assert.doesNotMatch(line, /p99/);
  assert.doesNotMatch(line, /\[/);
  assert.match(line, /^0\.6 s  /);
});

test('with -n alone the total time is a guess from the share done', () => {
  const line = progressLine(snap({ completed: 250, elapsedMs: 2000 }), snap(), { maxRequests: 1000 }, 120);
  assert.match(line, /^2\.0 s \/ ~8\.0 s /);
  assert.match(line, / 25%/);
});

test('the line fits the width: the bar goes first, then the lesser counters, and it leaves room for an echoed ^C', () => {
  const before = snap({ sent: 90000, completed: 89990, elapsedMs: 9000 });
  const now = snap({ sent: 100000, completed: 99990, failed: 3, elapsedMs: 10000, p99Ms: 1.5 });
  const limits = { maxRequests: 200000, maxSeconds: 30 };
  assert.match(progressLine(now, before, limits, 120), /\[█/);
  const medium = progressLine(now, before, limits, 80);
  assert.doesNotMatch(medium, /\[/);
  assert.match(medium, /sent 100000/);
  assert.match(medium, /p99 1\.50 ms/);
  assert.ok(medium.length <= 77, medium);
  const small = progressLine(now, before, limits, 60);
  assert.doesNotMatch(small, /sent|p99/);
  assert.match(small, /^10\.0 s \/ ~20\.0 s  done 99993  10003 req\/s  errors 3$/);
  const narrow = progressLine(now, before, limits, 40);
  assert.ok(narrow.length <= 37, narrow);
  assert.match(narrow, /10003 req\/s/);
  assert.ok(progressLine(now, before, limits, 10).length <= 7);
});

test('colour codes only when asked, and the visible width still fits', () => {
  const now = snap({ sent: 10, completed: 10, failed: 1, elapsedMs: 1000, p99Ms: 3 });
  const line = progressLine(now, snap(), { maxSeconds: 2 }, 100, true);
  assert.ok(line.includes(ESC));
  assert.ok(line.replace(/\x1b\[[0-9;]*m/g, '').length <= 97);
});

test('a live line needs a terminal, no CI and no --quiet; otherwise the periodic lines or nothing', () => {
  assert.equal(progressMode({ quiet: false, isTTY: true, ci: '' }), 'live');
  assert.equal(progressMode({ quiet: false, isTTY: true, ci: undefined }), 'live');
  assert.equal(progressMode({ quiet: false, isTTY: true, ci: 'true' }), 'lines');
  assert.equal(progressMode({ quiet: false, isTTY: false }), 'lines');
  assert.equal(progressMode({ quiet: true, isTTY: true }), 'none');
  assert.equal(progressMode({ quiet: true, isTTY: false }), 'none');
});

test('the periodic line is loadtest 8\'s', () => {
  const line = periodicLine(snap({ completed: 480, failed: 20, elapsedMs: 5000 }), { maxRequests: 1000 });
  assert.equal(line, 'Requests: 500 (50%), requests per second: 100, errors: 20, elapsed: 5.0 s');
});

test('on a terminal the line is redrawn with \\r about 4 times a second and erased when stopped', async () => {
  const writes = [];
  let completed = 0;
  const started = Date.now();
  const run = {
    config: { maxSeconds: 2 },
    snapshot: () => snap({ sent: (completed += 100), completed, elapsedMs: Date.now() - started }),
  };
  const at = [];
  const io = { terminal: () => ({ isTTY: true, columns: 100 }), write: (stream, text) => (writes.push([stream, text]), at.push(performance.now())), ci: '', color: false };
  const t0 = performance.now();
  const stop = startProgress(run, { quiet: false, stream: 'stderr' }, io);
  // Three redraws, however long a busy machine takes to give them; then their pace, which a
  // late timer can only slow: the k-th no sooner than k × 250 ms after the start (an interval
  // keeps its cadence, so one late tick may be followed by a sooner one; a timer may fire 1 ms
  // early).
  assert.ok(await until(() => writes.length >= 3, 10000), `${writes.length} writes`);
  stop();
  stop();
  for (let i = 0; i < 3; i++) assert.ok(at[i] - t0 >= (i + 1) * 250 - 5, `redraw ${i + 1} at ${Math.round(at[i] - t0)} ms`);
  assert.ok(writes.every(([stream]) => stream === 'stderr'));
  assert.ok(writes.slice(0, -1).every(([, text]) => text.startsWith(CLEAR) && text.includes('req/s') && !text.includes('\n')));
  assert.deepEqual(writes[writes.length - 1], ['stderr', CLEAR]);
});

test('quiet writes nothing', async () => {
  const writes = [];
  const io = { terminal: () => ({ isTTY: true, columns: 100 }), write: (s, t) => writes.push(t), ci: '', color: false };
  const stop = startProgress({ config: {}, snapshot: () => snap() }, { quiet: true, stream: 'stdout' }, io);
  // An absence: a look longer than a redraw's interval.
  await new Promise((resolve) => setTimeout(resolve, 300));
  stop();
  assert.deepEqual(writes, []);
});

test('with stdout a pipe, the CLI writes no \\r and no escape codes', async (t) => {
  const server = await rawServer(paced());
  t.after(() => server.close());
  const { code, stdout } = await spawnScript(CLI, ['-t', '0.8', '-k', server.url], { env: { CI: '' } });
  assert.equal(code, 0);
  assert.match(stdout, /Completed requests/);
  assert.ok(!stdout.includes('\r'), 'no \\r');
  assert.ok(!stdout.includes(ESC), 'no escape codes');
});

// util-linux's script(1) runs a command on a pseudo-terminal: the CLI sees a TTY on stdout.
const hasScript = spawnSync('script', ['-V'], { encoding: 'utf8' }).status === 0;
const quote = (s) => `'${String(s).replace(/'/g, `'\\''`)}'`;

function onPty(args, env, timeoutMs = 20000) {
  const [command, prefix] = runtimeCommand(CLI);
  const line = [command, ...prefix, ...args].map(quote).join(' ');
  const childEnv = { ...globalThis.process.env, NO_COLOR: '1', ...env };
  delete childEnv.CI;
  if (env.CI) childEnv.CI = env.CI;
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qfec', line, '/dev/null'], { cwd: ROOT, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (text) => (out += text));
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

test('on a terminal the CLI shows the live line, then erases it before the report', { skip: !hasScript && 'script(1) from util-linux is not installed' }, async (t) => {
  const server = await rawServer(paced());
  t.after(() => server.close());
  const { code, out } = await onPty(['-t', '1.5', '-k', server.url], {});
  assert.equal(code, 0, out);
  const report = out.indexOf('Target URL');
  assert.ok(report > 0, out);
  const live = out.slice(0, report);
  assert.match(live, /\r/);
  assert.ok((live.match(/req\/s/g) || []).length >= 3, live);
  assert.ok(live.trimEnd().endsWith(CLEAR), 'the line is erased before the report');
  assert.ok(!out.slice(report).includes('req/s'), 'nothing after the report');
});

test('in CI, even on a terminal, no live line', { skip: !hasScript && 'script(1) from util-linux is not installed' }, async (t) => {
  const server = await rawServer(paced());
  t.after(() => server.close());
  const { code, out } = await onPty(['-t', '1', '-k', server.url], { CI: '1' });
  assert.equal(code, 0, out);
  assert.match(out, /Target URL/);
  assert.ok(!out.includes('req/s'), out);
  assert.ok(!out.includes('\x1b[2K'), out);
});

// A child of runOnCores that answers the protocol with a fixed progress line.
function fakeChild(progress) {
  const listeners = [];
  let exit;
  const exited = new Promise((resolve) => (exit = resolve));
  const emit = (line) => setTimeout(() => listeners.forEach((fn) => fn(line)), 1);
  return {
    send(line) {
      if (line.startsWith('job ')) emit('ready');
      else if (line.startsWith('go ')) emit(progress);
      else if (line === 'stop') {
        emit(`result ${JSON.stringify(new Stats())}`);
        setTimeout(() => exit({ code: 0 }), 10);
      }
    },
    onLine: (fn) => listeners.push(fn),
    exited,
    kill: () => exit({ code: null, signal: 'SIGKILL' }),
    stderrTail: () => '',
  };
}

test('with --cores the snapshot adds up the children\'s counters and takes the largest p99', async () => {
  const lines = ['progress 100 90 3 2.5', 'progress 50 40 1 -', 'progress 70 60 0 7.25'];
  let handle = null;
  let n = 0;
  const done = runOnCores({ url: 'http://127.0.0.1:1/', concurrency: 3, maxSeconds: 5 }, 3, async () => fakeChild(lines[n++]), 'worker.js', {
    onStart: (h) => (handle = h),
  });
  assert.ok(await until(() => handle && handle.snapshot().sent >= 220, 10000), 'the children\'s lines came');
  const s = handle.snapshot();
  handle.stop();
  await done;
  assert.deepEqual([s.sent, s.completed, s.failed, s.p99Ms], [220, 190, 4, 7.25]);
  assert.deepEqual(handle.config, { maxRequests: undefined, maxSeconds: 5 });
});

test('real --cores children report sent, completed and p99 several times a second', async (t) => {
  const server = await rawServer(paced());
  t.after(() => server.close());
  let handle = null;
  const samples = [];
  const sampler = setInterval(() => handle && samples.push(handle.snapshot()), 100);
  try {
    await runLoadTest({ url: server.url, cores: 2, concurrency: 2, maxSeconds: 1.6, agentKeepAlive: true, quiet: true }, { onStart: (h) => (handle = h) });
  } finally {
    clearInterval(sampler);
  }
  const distinct = new Set(samples.map((s) => s.completed)).size;
  assert.ok(distinct >= 5, `${distinct} different counts in ${samples.length} samples`); // once a second would give 2
  const last = samples[samples.length - 1];
  assert.ok(last.sent >= last.completed && last.completed > 0, JSON.stringify(last));
  assert.ok(samples.some((s) => typeof s.p99Ms === 'number' && s.p99Ms > 0), 'a p99 after the first whole second');
});
