// The regimes in one interleaved run (run it through bench/regimes.sh, which installs the tools
// and raises the open-file limit):
//   ka   keep-alive, 10 connections                wrk = 1.00
//   cpr  new connection per request                ab = 1.00 (10 at once)
//   10k  keep-alive, 10 000 connections            wrk = 1.00, and RSS per connection
//   tls  https keep-alive, 10 connections, TLS 1.3 wrk = 1.00; loadtest with --ca and --insecure, and
//        the bare loop on each runtime's TLS (bench/bare-keepalive.js with a CA file)
//   big  keep-alive, 10 connections, 1 MiB bodies  wrk = 1.00
//   h2c  HTTP/2 by prior knowledge, 10 connections × 10 streams   h2load -c 10 -m 10 = 1.00
//   h2   HTTP/2 over TLS 1.3 (ALPN), 10 connections × 10 streams  h2load = 1.00 (loadtest --ca)
//        h2c and h2 have each runtime's bare loop (bench/bare-h2.js) as the ceiling of its row
//   script  bench/scripts/rate.js, 10 VUs looping http.get: each runtime's `loadtest run` beside
//           k6 (k6 = 1.00), and beside the runtime's declared run of the same load (-c 10 -k): the
//           declared run's CPU a request over the script's (issue 65's "at most 1.2 × a declared
//           one's CPU" is ≥ 0.83 here); and the runtime's floor of it: bench/bare-keepalive.js
//           with LOOP=script beside its plain loop, and LOOP=k6 (the same, with what k6/http
//           gives the script of each response: its bytes kept, a Response and a Request)
//   vus5k   bench/scripts/memory.js, 5000 VUs (get, check, sleep 1) for 15 s: peak RSS, k6 = 1.00
//   feed    --feed of a CSV and of an NDJSON of about 38 MB each (-n 2000 -c 1 --cores 1, a
//           templated URL): the peak RSS beyond the same run's without a feed, × the file's size
// Each tool is pinned to core 1 and nginx (one worker, bench/nginx-regimes.conf) to core 0. In the
// rate regimes (ka to h2, and script) a row runs two at once on core 1 (runPair): beside its reference, then
// beside its runtime's bare loop, each tool against its own nginx (two, both on core 0), and each
// ratio is taken within the pair (CPU a request, below): two tools sharing one core at once share
// a slow moment of the shared machine alike, where tools taking turns did not (a row moved by up
// to 1.5 × between rounds; in pairs, a ratio by ±2 %). A reference row runs only beside the
// others; a pair's req/s are those of half a core. The other regimes run one tool at a time.
// Each figure in the table is the median over rounds.
//
// Environment: ROUNDS (3), SECONDS_PER_RUN (5), REGIMES (ka,cpr,10k,tls,big,h2c,h2,script,vus5k,feed), TOOLS (a regular
// expression on the row names, e.g. 'wrk|ab|deno'), CONNS (10000) for the big regime, whose runs
// last BIG_SECONDS (4 × SECONDS_PER_RUN: every tool's rate counts its own opening of the
// connections, which takes loadtest and the bare loops about 1 s at their bounded pace and wrk,
// which opens them all at once, less; a longer run keeps that from deciding the ratio),
// AUTOCANNON (a command for autocannon when it is not installed), BASE (another checkout, say
// the code before a change: each loadtest row gets a twin named '… @base' run from it in the
// same rounds, paired as its row is), PORT (8089) for nginx A (PORT + 1 its TLS server, PORT + 2
// its h2c, PORT + 3 its stub_status; nginx B ten ports above), K6 (/tmp/k6v2/k6: k6 v2.2.0, built by ../shared/k6-build.sh; without
// it the script regimes have no reference row). The TLS certificate and the 1 MiB file are made for the run
// (openssl, in a temporary folder).
//
// CPU µs per request: in the rate regimes (ka to h2, and script), the CPU of the tool's
// processes (/proc's schedstat, bench/process-cpu.js) over the requests its nginx served (stub_status) in the steady window, from
// 30 % to 90 % of its run; in the others user+sys (/usr/bin/time) over its requests, start-up
// included. A rate regime's "× reference" and "× own bare loop" are the other tool's CPU a
// request over this one's within their pair: its pace on the same CPU, which on a core of its
// own is its rate. RSS per connection is (RSS at 10 000 − RSS at 10) / 9 990 in KiB: each RSS is the
// median of samples of the tool process's VmRSS taken every 100 ms over the last 40 % of its run,
// when every connection is open ('opened in' says when the last one had its first response).

import { spawn, execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync, mkdtempSync, mkdirSync, existsSync, rmSync, chmodSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuOf, requestsIn } from './process-cpu.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const BIN = join(ROOT, 'node_modules/.bin');
const ROUNDS = Number(process.env.ROUNDS || 3);
const SECONDS = Number(process.env.SECONDS_PER_RUN || 5);
const REGIMES = (process.env.REGIMES || 'ka,cpr,10k,tls,big,h2c,h2,script,vus5k,feed').split(',');
const K6 = process.env.K6 || '/tmp/k6v2/k6';
const TOOLS = process.env.TOOLS ? new RegExp(process.env.TOOLS) : null;
const BIG = Number(process.env.CONNS || 10000);
const BIG_SECONDS = Number(process.env.BIG_SECONDS || 4 * SECONDS);
// A scripted run's start (modules, the transform) and its JIT's first seconds, slower when it
// shares its core, reach into a 5 s run's steady window: its runs are three times as long.
const SCRIPT_SECONDS = 3 * SECONDS;
const BASE = process.env.BASE || null;
const PORT = Number(process.env.PORT || 8089);
const PORT_B = PORT + 10;
const WHERE = `127.0.0.1:${PORT}`;
const URL = `http://${WHERE}/`;
const TLS_URL = `https://127.0.0.1:${PORT + 1}/`;
const BIG_URL = `${URL}big`;
const H2C_URL = `http://127.0.0.1:${PORT + 2}/`;
const BIG_BODY = 1024 * 1024;
const FEED_FILES = ['users.csv', 'users.ndjson'];
const TMP = mkdtempSync(join(tmpdir(), 'regimes-'));

const RUNTIMES = {
  node: ['node'],
  bun: [join(BIN, 'bun')],
  deno: [join(BIN, 'deno'), 'run', '-A'],
};

function autocannon() {
  if (process.env.AUTOCANNON) return process.env.AUTOCANNON.split(' ');
  const local = join(BIN, 'autocannon');
  if (existsSync(local)) return [local];
  try {
    execFileSync('npx', ['--no-install', 'autocannon', '--version'], { stdio: 'ignore' });
    return ['npx', '--no-install', 'autocannon'];
  } catch {
    return null;
  }
}

// A row: name, regime, the command, how to read its output, its reference row and ceiling row.
function rows() {
  const out = [];
  const secs = (conns) => (conns === BIG ? BIG_SECONDS : SECONDS);
  const ours = (rt, socket, conns, keepAlive, seconds = secs(conns)) => {
    const cmd = [...RUNTIMES[rt], join(ROOT, 'src/cli.js'), URL, '-c', String(conns), '-t', String(seconds), '--json'];
    if (keepAlive) cmd.push('-k');
    if (socket) cmd.push('--socket', socket);
    return cmd;
  };
  const bare = (file, rt, api, conns) => [...RUNTIMES[rt], join(ROOT, 'bench', file), WHERE, String(conns), String(secs(conns)), api];
  // Our adapters and the bare loop each is measured against: the runtime's native API, and
  // node:net on it.
  // node's TCP handle (--socket wrap) has a bare keep-alive loop; a connection per request is
  // set against node:net's bare loop.
  const adapters = [
    ['node', null, 'tcp_wrap', 'wrap'],
    ['node', 'node', 'node:net', 'node'],
    ['bun', null, 'Bun.connect', 'native'],
    ['bun', 'node', 'node:net', 'node'],
    ['deno', null, 'Deno.connect', 'native'],
    ['deno', 'node', 'node:net', 'node'],
  ];
  const ac = autocannon();
  for (const [regime, conns, keepAlive, ref, bareFile] of [
    ['ka', 10, true, 'wrk', 'bare-keepalive.js'],
    ['cpr', 10, false, 'ab', 'bare-connect.js'],
    ['10k', BIG, true, 'wrk', 'bare-keepalive.js'],
  ]) {
    if (!REGIMES.includes(regime)) continue;
    if (ref === 'wrk') out.push({ regime, name: 'wrk', cmd: ['wrk', '-t1', `-c${conns}`, `-d${secs(conns)}s`, URL], read: readWrk });
    else out.push({ regime, name: 'ab', cmd: ['ab', '-c', String(conns), '-t', String(SECONDS), '-n', '100000000', URL], read: readAb });
    for (const [rt, socket, api, bareApi] of adapters) {
      const wrapConnect = bareApi === 'wrap' && bareFile === 'bare-connect.js';
      const ceiling = wrapConnect ? `bare ${rt} node:net` : `bare ${rt} ${api}`;
      if (!wrapConnect) out.push({ regime, name: ceiling, cmd: bare(bareFile, rt, bareApi, conns), read: readJson });
      out.push({ regime, name: `loadtest ${rt} ${api}`, cmd: ours(rt, socket, conns, keepAlive), read: readOurs, ceiling });
      if (BASE) out.push({ regime, name: `loadtest ${rt} ${api} @base`, cmd: ours(rt, socket, conns, keepAlive).map((a) => (a === join(ROOT, 'src/cli.js') ? join(BASE, 'src/cli.js') : a)), read: readOurs, ceiling });
    }
    if (regime === 'ka' && ac) out.push({ regime, name: 'autocannon', cmd: [...ac, '-c', '10', '-d', String(SECONDS), '-j', URL], read: readAutocannon });
  }
  // https and 1 MiB bodies: each runtime's own adapter (its TLS: node:tls, Bun.connect tls,
  // Deno.connectTls) beside wrk; https once trusting the CA (--ca) and once not checking
  // (--insecure: on deno the CLI restarts with --unsafely-ignore-certificate-errors).
  const withUrl = (cmd, url) => cmd.map((a) => (a === URL ? url : a));
  // The ceiling: the runtime's own TLS API in bench/bare-keepalive.js (a CA file makes it https).
  if (REGIMES.includes('tls')) {
    out.push({ regime: 'tls', name: 'wrk', cmd: ['wrk', '-t1', '-c10', `-d${SECONDS}s`, TLS_URL], read: readWrk });
    for (const rt of ['node', 'bun', 'deno']) {
      const ceiling = `bare ${rt} tls`;
      const bareTls = [...RUNTIMES[rt], join(ROOT, 'bench/bare-keepalive.js'), `127.0.0.1:${PORT + 1}`, '10', String(SECONDS), 'native', '2', join(TMP, 'ca.pem')];
      out.push({ regime: 'tls', name: ceiling, cmd: bareTls, read: readJson });
      out.push({ regime: 'tls', name: `loadtest ${rt} --ca`, cmd: [...withUrl(ours(rt, null, 10, true), TLS_URL), '--ca', join(TMP, 'ca.pem')], read: readOurs, ceiling });
      out.push({ regime: 'tls', name: `loadtest ${rt} --insecure`, cmd: [...withUrl(ours(rt, null, 10, true), TLS_URL), '--insecure'], read: readOurs, ceiling });
    }
  }
  // HTTP/2: h2load's -c 10 -m 10 (10 connections, 10 streams each) against loadtest --http2
  // --streams 10 -c 10, each runtime on its own adapter. The ceiling: the runtime's own socket
  // API (its TLS with a CA file) in bench/bare-h2.js, the same 10 × 10 with a minimal frame reader.
  for (const [regime, url, port] of [['h2c', H2C_URL, PORT + 2], ['h2', TLS_URL, PORT + 1]]) {
    if (!REGIMES.includes(regime)) continue;
    out.push({ regime, name: 'h2load', cmd: ['h2load', '-c', '10', '-m', '10', '-t', '1', '-D', String(SECONDS), url], read: readH2load });
    const ca = regime === 'h2' ? [join(TMP, 'ca.pem')] : [];
    for (const rt of ['node', 'bun', 'deno']) {
      const ceiling = `bare ${rt} ${regime}`;
      out.push({ regime, name: ceiling, cmd: [...RUNTIMES[rt], join(ROOT, 'bench/bare-h2.js'), `127.0.0.1:${port}`, '10', String(SECONDS), 'native', '10', ...ca], read: readJson });
      const cmd = [...withUrl(ours(rt, null, 10, true), url), '--http2', '--streams', '10'];
      if (regime === 'h2') cmd.push('--ca', join(TMP, 'ca.pem'));
      out.push({ regime, name: `loadtest ${rt}`, cmd, read: readOurs, ceiling });
      if (BASE) out.push({ regime, name: `loadtest ${rt} @base`, cmd: cmd.map((a) => (a === join(ROOT, 'src/cli.js') ? join(BASE, 'src/cli.js') : a)), read: readOurs, ceiling });
    }
  }
  // k6 scripts: k6 and `loadtest run` on each runtime, each beside k6 and beside its runtime's
  // declared run of the same load (which runs only beside it).
  const script = (rt, file, extra) => [...RUNTIMES[rt], join(ROOT, 'src/cli.js'), 'run', '-q', ...extra, '-e', `URL=${URL}`, join(ROOT, 'bench/scripts', file)];
  const k6 = (file, extra) => [K6, 'run', '-q', '--no-usage-report', ...extra, '-e', `URL=${URL}`, join(ROOT, 'bench/scripts', file)];
  if (REGIMES.includes('script')) {
    const during = (s) => ['-d', `${s}s`];
    if (existsSync(K6)) out.push({ regime: 'script', name: 'k6', cmd: k6('rate.js', during(SCRIPT_SECONDS)), read: readSummary });
    else console.log(`no k6 at ${K6} (K6=…): the script regime has no reference row`);
    for (const rt of ['node', 'bun', 'deno']) {
      out.push({ regime: 'script', name: `declared ${rt}`, cmd: ours(rt, null, 10, true, SCRIPT_SECONDS), read: readOurs, onlyBeside: true });
      out.push({ regime: 'script', name: `loadtest ${rt}`, cmd: script(rt, 'rate.js', during(SCRIPT_SECONDS)), read: readSummary, ceiling: `declared ${rt}` });
      // The runtime's floor of a scripted request: bench/bare-keepalive.js's LOOP=script beside its
      // plain loop, on the API our adapter uses (what of the script's ratio the runtime takes).
      const loop = [...RUNTIMES[rt], join(ROOT, 'bench/bare-keepalive.js'), WHERE, '10', String(SCRIPT_SECONDS), rt === 'node' ? 'wrap' : 'native'];
      out.push({ regime: 'script', name: `bare ${rt}`, cmd: loop, read: readJson, onlyBeside: true });
      out.push({ regime: 'script', name: `bare script ${rt}`, cmd: ['env', 'LOOP=script', ...loop], read: readJson, ceiling: `bare ${rt}` });
      // And with what k6/http gives the script of each response besides (its bytes kept, a
      // Response and a Request): LOOP=k6.
      out.push({ regime: 'script', name: `bare k6 ${rt}`, cmd: ['env', 'LOOP=k6', ...loop], read: readJson, ceiling: `bare ${rt}` });
    }
  }
  if (REGIMES.includes('vus5k')) {
    if (existsSync(K6)) out.push({ regime: 'vus5k', name: 'k6', cmd: k6('memory.js', []), read: readSummary });
    else console.log(`no k6 at ${K6} (K6=…): the vus5k regime has no reference row`);
    for (const rt of ['node', 'bun', 'deno']) out.push({ regime: 'vus5k', name: `loadtest ${rt}`, cmd: script(rt, 'memory.js', []), read: readSummary });
  }
  // A feed's memory: each runtime without a feed (the reference), then with the CSV and the NDJSON.
  if (REGIMES.includes('feed')) {
    const fed = (rt, feed) => {
      const cmd = [...RUNTIMES[rt], join(ROOT, 'src/cli.js'), '-n', '2000', '-c', '1', '--cores', '1', '--json'];
      return feed ? [...cmd, `${URL}u/{{id}}?n={{name}}`, '--feed', join(TMP, feed)] : [...cmd, `${URL}u/1?n=user1`];
    };
    for (const rt of ['node', 'bun', 'deno']) {
      out.push({ regime: 'feed', name: `no feed ${rt}`, cmd: fed(rt, null), read: readOurs });
      for (const file of FEED_FILES) out.push({ regime: 'feed', name: `loadtest ${rt} ${file}`, cmd: fed(rt, file), read: readOurs, file, ref: `no feed ${rt}` });
    }
  }
  if (REGIMES.includes('big')) {
    out.push({ regime: 'big', name: 'wrk', cmd: ['wrk', '-t1', '-c10', `-d${SECONDS}s`, BIG_URL], read: readWrk });
    for (const rt of ['node', 'bun', 'deno']) out.push({ regime: 'big', name: `loadtest ${rt}`, cmd: withUrl(ours(rt, null, 10, true), BIG_URL), read: readOurs });
  }
  for (const r of out) {
    r.ref ??= r.regime === 'cpr' ? 'ab' : r.regime === 'h2c' || r.regime === 'h2' ? 'h2load' : r.regime === 'script' || r.regime === 'vus5k' ? 'k6' : 'wrk';
    // 5000 VUs: what is compared is the peak memory, not the rate (each VU sleeps 1 s).
    r.refKey = r.regime === 'vus5k' ? 'maxRssKb' : 'rps';
    r.seconds = r.regime === '10k' ? BIG_SECONDS : r.regime === 'vus5k' ? 15 : r.regime === 'script' ? SCRIPT_SECONDS : SECONDS;
  }
  const refs = new Set(out.map((r) => `${r.regime} ${r.ref}`));
  return { rows: TOOLS ? out.filter((r) => TOOLS.test(r.name) || refs.has(`${r.regime} ${r.name}`)) : out, autocannon: ac };
}

function readWrk(text) {
  const m = /(\d+) requests in ([\d.]+)(m?s)/.exec(text);
  if (!m) return null;
  // wrk counts every response; only the 200s are comparable with ours.
  const bad = /Non-2xx or 3xx responses: (\d+)/.exec(text);
  const errors = bad ? Number(bad[1]) : 0;
  return { requests: Number(m[1]) - errors, seconds: Number(m[2]) / (m[3] === 'ms' ? 1000 : 1), errors };
}

function readH2load(text) {
  const done = /requests: \d+ total, \d+ started, \d+ done, (\d+) succeeded/.exec(text);
  const secs = /finished in ([\d.]+)s/.exec(text);
  const ok = /status codes: (\d+) 2xx/.exec(text);
  if (!done || !secs) return null;
  const requests = ok ? Number(ok[1]) : Number(done[1]);
  return { requests, seconds: Number(secs[1]), errors: Number(done[1]) - requests };
}

// k6's end-of-test summary (and ours, the same): http_reqs' count and rate.
function readSummary(text) {
  const m = /http_reqs\.*: (\d+)\s+([\d.]+)\/s/.exec(text);
  if (!m) return null;
  const failed = /http_req_failed\.*: [\d.]+% (\d+) out of/.exec(text);
  return { requests: Number(m[1]), seconds: Number(m[1]) / Number(m[2]), errors: failed ? Number(failed[1]) : 0 };
}

function readAb(text) {
  const n = /Complete requests:\s+(\d+)/.exec(text);
  const t = /Time taken for tests:\s+([\d.]+)/.exec(text);
  const failed = /Failed requests:\s+(\d+)/.exec(text);
  if (!n || !t) return null;
  return { requests: Number(n[1]) - Number(failed ? failed[1] : 0), seconds: Number(t[1]) };
}

function readJson(text) {
  const line = text.split('\n').find((l) => l.startsWith('{"tool"'));
  if (!line) return null;
  const j = JSON.parse(line);
  return { requests: j.requests, seconds: j.seconds, connectMs: j.connectMs };
}

function readOurs(text) {
  const start = text.indexOf('{');
  if (start < 0) return null;
  const j = JSON.parse(text.slice(start));
  const errors = j.totalRequests - (j.statusCodes[200] || 0);
  return { requests: j.statusCodes[200] || 0, seconds: j.totalTimeSeconds, connectMs: j.connectMs, errors };
}

function readAutocannon(text) {
  const start = text.indexOf('{');
  if (start < 0) return null;
  const j = JSON.parse(text.slice(start));
  return { requests: j.requests.total, seconds: j.duration };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function rssKb(pid) {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

// The tool under /usr/bin/time and taskset (taskset execs it; time forks it).
function childOf(pid) {
  try {
    const kids = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
    return kids.length ? Number(kids[0]) : null;
  } catch {
    return null;
  }
}

const median = (xs) => {
  const s = xs.filter((x) => x !== null && Number.isFinite(x)).sort((a, b) => a - b);
  if (s.length === 0) return null;
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

// The regimes whose rows run two at once (runPair): each beside its reference and its bare loop.
const PAIRED = new Set(['ka', 'cpr', '10k', 'tls', 'big', 'h2c', 'h2', 'script']);

let runs = 0; // each run's own files, as a pair's run at once

// The requests an nginx has served, from its stub_status server.
async function served(statusPort) {
  try {
    return requestsIn(await (await fetch(`http://127.0.0.1:${statusPort}/`)).text());
  } catch {
    return null;
  }
}

async function runOne(row, seconds = row.seconds, cmd = row.cmd, statusPort = null) {
  const timeFile = join(TMP, `time-${++runs}`);
  const outFile = join(TMP, `out-${runs}`);
  const child = spawn('/usr/bin/time', ['-f', '%U %S %M', '-o', timeFile, 'taskset', '-c', '1', ...cmd], {
    stdio: ['ignore', 'pipe', 'pipe'],
    cwd: ROOT,
  });
  let text = '';
  child.stdout.on('data', (d) => (text += d));
  child.stderr.on('data', (d) => (text += d));
  const exited = new Promise((r) => child.on('close', r));
  const samples = [];
  // The steady window (with statusPort): the tool's CPU and its own nginx's count of requests at
  // 30 % and at 90 % of its run, when its start, its connections' opening and its end are outside.
  const window = [];
  const started = Date.now();
  let done = false;
  exited.then(() => (done = true));
  // Deadline: a tool that hangs is killed rather than stalling the whole table.
  const killAt = started + (seconds + 30) * 1000;
  while (!done) {
    await sleep(100);
    const elapsed = (Date.now() - started) / 1000;
    const pid = childOf(child.pid);
    if (elapsed > seconds * 0.6 && elapsed < seconds * 0.97 && pid) samples.push(rssKb(pid));
    if (statusPort !== null && pid && window.length < 2 && elapsed >= seconds * (window.length ? 0.9 : 0.3)) {
      const cpu = cpuOf(pid) / 1e9;
      window.push({ at: Date.now(), cpu, requests: await served(statusPort) });
    }
    if (Date.now() > killAt) child.kill('SIGKILL');
  }
  writeFileSync(outFile, text);
  let read = null;
  try {
    read = row.read(text);
  } catch {
    read = null;
  }
  let cpu = null;
  let maxRssKb = null;
  try {
    const [u, s, m] = readFileSync(timeFile, 'utf8').trim().split('\n').pop().split(' ').map(Number);
    cpu = u + s;
    maxRssKb = m;
  } catch {
    // no time file: the tool did not run
  }
  if (!read || !read.requests) {
    const tail = text.trim().split('\n').slice(-3).join(' | ');
    console.error(`  ${row.regime} ${row.name}: no result (${tail.slice(0, 300)})`);
    return null;
  }
  return {
    requests: read.requests,
    cpu,
    rps: read.requests / read.seconds,
    cpuUs: cpu !== null ? (cpu * 1e6) / read.requests : null,
    rssKb: median(samples),
    maxRssKb,
    connectMs: read.connectMs,
    errors: read.errors || 0,
    ...steady(window),
  };
}

// A request's CPU and the rate within the steady window.
function steady(window) {
  if (window.length < 2 || window[0].requests === null || window[1].requests === null) return { steadyUs: null, steadyRps: null };
  const [a, b] = window;
  const requests = b.requests - a.requests;
  if (requests <= 0) return { steadyUs: null, steadyRps: null };
  return { steadyUs: ((b.cpu - a.cpu) * 1e6) / requests, steadyRps: (requests * 1000) / (b.at - a.at) };
}

// A CA and a server certificate for 127.0.0.1 signed by it (ECDSA P-256, as most sites now
// serve), and the 1 MiB file.
function makeFiles() {
  // nginx's workers run as nobody when started as root: they must be able to read the file.
  chmodSync(TMP, 0o755);
  writeFileSync(join(TMP, 'big.bin'), Buffer.alloc(BIG_BODY, 'x'), { mode: 0o644 });
  if (REGIMES.includes('feed')) makeFeeds();
  // Always: nginx-regimes.conf's TLS server needs them to start, whatever regimes run.
  const ssl = (...args) => execFileSync('openssl', args, { cwd: TMP, stdio: ['ignore', 'ignore', 'pipe'] });
  const key = (name, cn) => ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', `${name}-key.pem`, '-subj', `/CN=${cn}`];
  ssl('req', '-x509', ...key('ca', 'regimes CA'), '-out', 'ca.pem', '-days', '2');
  ssl('req', ...key('server', '127.0.0.1'), '-out', 'server.csr');
  writeFileSync(join(TMP, 'server.ext'), 'basicConstraints=CA:FALSE\nsubjectAltName=IP:127.0.0.1\n');
  ssl('x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca-key.pem', '-CAcreateserial', '-days', '2', '-extfile', 'server.ext', '-out', 'server.pem');
}

// bench/feed-memory.js's rows with a text column: 560 000 of them in the CSV, 61 % as many in the
// NDJSON (its keys repeat), about 38 MB each.
function makeFeeds() {
  const row = (i) => [i, `user${i}`, `user${i}@example.com`, `t${(i * 2654435761) % 4294967296}`, `Lorem ipsum ${i}`];
  const lines = ['id,name,email,token,note'];
  for (let i = 0; i < 560000; i++) lines.push(row(i).join(','));
  writeFileSync(join(TMP, 'users.csv'), lines.join('\n') + '\n');
  lines.length = 0;
  for (let i = 0; i < 341600; i++) {
    const [id, name, email, token, note] = row(i);
    lines.push(JSON.stringify({ id, name, email, token, note }));
  }
  writeFileSync(join(TMP, 'users.ndjson'), lines.join('\n') + '\n');
}

// Two nginx, each one worker on core 0 (bench/nginx-regimes.conf): the tools of a pair run at
// once (runPair), each against its own (A on PORT, PORT + 1, PORT + 2; B ten ports above), so
// that at 10 000 connections neither worker holds more descriptors than the hard limit allows.
function startNginx() {
  makeFiles();
  const servers = [];
  for (const [name, port] of [['a', PORT], ['b', PORT_B]]) {
    const dir = join(TMP, name);
    mkdirSync(dir);
    const conf = readFileSync(join(ROOT, 'bench/nginx-regimes.conf'), 'utf8')
      .replace('127.0.0.1:8089', `127.0.0.1:${port}`)
      .replace('127.0.0.1:8090', `127.0.0.1:${port + 1}`)
      .replace('127.0.0.1:8091', `127.0.0.1:${port + 2}`)
      .replace('127.0.0.1:8092', `127.0.0.1:${port + 3}`)
      .replaceAll('TMP/', `${TMP}/`);
    writeFileSync(join(dir, 'nginx.conf'), conf);
    const nginx = spawn('taskset', ['-c', '0', 'nginx', '-c', join(dir, 'nginx.conf'), '-p', dir + '/'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    nginx.stderr.on('data', (d) => (err += d));
    servers.push({ nginx, err: () => err });
  }
  return { stop: () => servers.forEach((s) => s.nginx.kill('SIGTERM')), errors: () => servers.map((s) => s.err()).join('') };
}

// `cmd` aimed at nginx B instead of A.
const onB = (cmd) => cmd.map((a) => a.replace(/127\.0\.0\.1:(\d+)/g, (m, p) => (Number(p) - PORT >= 0 && Number(p) - PORT <= 2 ? `127.0.0.1:${Number(p) + 10}` : m)));

// Two rows at once on core 1, each against its own nginx (which gets B alternates by round).
function runPair(a, b, round) {
  const [onA, onOther] = round % 2 ? [(c) => c, onB] : [onB, (c) => c];
  const status = (on) => (on === onB ? PORT_B : PORT) + 3;
  // A pair's figures are its steady window's: the rates of two tools on one core, each a request's CPU.
  const steadily = (r) => r && { ...r, rps: r.steadyRps, cpuUs: r.steadyUs };
  return Promise.all([runOne(a, a.seconds, onA(a.cmd), status(onA)), runOne(b, b.seconds, onOther(b.cmd), status(onOther))]).then((rs) => rs.map(steadily));
}

async function up(url) {
  for (let i = 0; i < 50; i++) {
    try {
      const r = await fetch(url);
      await r.text();
      if (r.status === 200) return true;
    } catch {
      // not yet
    }
    await sleep(100);
  }
  return false;
}

function fmt(x, digits = 0) {
  if (x === null || x === undefined || !Number.isFinite(x)) return '–';
  return x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }).replace(/,/g, ' ');
}

async function main() {
  const { rows: list, autocannon: ac } = rows();
  const { stop, errors } = startNginx();
  process.on('SIGINT', () => {
    stop();
    process.exit(130);
  });
  if (!(await up(URL)) || !(await up(`http://127.0.0.1:${PORT_B}/`))) {
    console.error(`nginx did not start: ${errors()}`);
    stop();
    process.exit(1);
  }
  const versions = {
    node: process.version,
    bun: execFileSync(join(BIN, 'bun'), ['--version']).toString().trim(),
    deno: execFileSync(join(BIN, 'deno'), ['--version']).toString().split('\n')[0].split(' ')[1],
  };
  console.log(`${ROUNDS} rounds of ${SECONDS} s runs (${BIG_SECONDS} s with ${BIG} connections), ${list.length} runs a round; node ${versions.node}, bun ${versions.bun}, deno ${versions.deno}; nginx 1 worker on core 0, each tool on core 1`);
  if (!ac) console.log('autocannon: not installed (node_modules/.bin, npx --no-install): no autocannon row (AUTOCANNON="npx --yes autocannon@8" to add one)');
  const loads = [];
  const results = list.map(() => []);
  for (let round = 1; round <= ROUNDS; round++) {
    loads.push(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
    console.error(`round ${round}/${ROUNDS}`);
    const show = (i, r) => {
      if (r) console.error(`  ${list[i].regime.padEnd(3)} ${list[i].name.padEnd(26)} ${fmt(r.rps).padStart(9)} req/s ${fmt(r.cpuUs, 2).padStart(7)} µs/req  ${fmt(r.rssKb)} kB${r.connectMs ? `  opened in ${r.connectMs} ms` : ''}${r.errors ? `  ${r.errors} errors` : ''}${r.refRatio ? `  × ref ${fmt(r.refRatio, 3)}` : ''}${r.ceilingRatio ? `  × bare ${fmt(r.ceilingRatio, 3)}` : ''}`);
    };
    for (let i = 0; i < list.length; i++) {
      const row = list[i];
      if (PAIRED.has(row.regime)) {
        // Beside its reference, then beside its own bare loop (each ratio taken within its pair); a
        // reference row runs only beside the others. The row's own figures are from the first pair.
        if (row.name === row.ref || row.onlyBeside) continue;
        const at = (name) => list.findIndex((x) => x.regime === row.regime && x.name === name);
        const beside = async (j) => {
          const [other, mine] = await runPair(list[j], row, round);
          results[j].push(other && { ...other, refRatio: null, ceilingRatio: null });
          show(j, other);
          return [mine, other && mine && other.cpuUs && mine.cpuUs ? other.cpuUs / mine.cpuUs : null];
        };
        const [mine, refRatio] = await beside(at(row.ref));
        const c = row.ceiling ? at(row.ceiling) : -1;
        let ceilingRatio = null;
        if (c >= 0) {
          await sleep(row.regime === '10k' ? 2000 : 300);
          [, ceilingRatio] = await beside(c);
        }
        const r = mine && { ...mine, refRatio, ceilingRatio };
        results[i].push(r);
        show(i, r);
      } else {
        const r = await runOne(row);
        results[i].push(r);
        show(i, r);
      }
      // Connections the last tool left in TIME_WAIT and nginx's closing ones settle first.
      await sleep(row.regime === '10k' ? 2000 : 300);
    }
  }
  stop();
  loads.push(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);

  const index = new Map(list.map((r, i) => [`${r.regime} ${r.name}`, i]));
  const ratioTo = (i, other, key = 'rps') => {
    const j = index.get(`${list[i].regime} ${other}`);
    if (j === undefined) return null;
    return median(results[i].map((r, k) => (r && results[j][k] ? r[key] / results[j][k][key] : null)));
  };
  // A feed's row: its peak RSS beyond its runtime's run without a feed, × the file's size.
  const beyondFile = (i) => {
    const j = index.get(`feed ${list[i].ref}`);
    const size = statSync(join(TMP, list[i].file)).size / 1024;
    return median(results[i].map((r, k) => (r && results[j][k] ? (r.maxRssKb - results[j][k].maxRssKb) / size : null)));
  };
  const rss10 = (name) => {
    const j = index.get(`ka ${name}`);
    return j === undefined ? null : median(results[j].map((r) => r && r.rssKb));
  };
  const title = {
    ka: 'keep-alive, 10 connections',
    cpr: 'new connection per request, 10 at once',
    '10k': `keep-alive, ${fmt(BIG)} connections`,
    tls: 'https keep-alive, 10 connections (TLS 1.3)',
    big: 'keep-alive, 10 connections, 1 MiB bodies',
    h2c: 'HTTP/2 h2c, 10 connections × 10 streams',
    h2: 'HTTP/2 h2 (TLS 1.3), 10 connections × 10 streams',
    script: 'a k6 script, 10 VUs (× own: the declared run\'s CPU a request ÷ the script\'s)',
    vus5k: 'a k6 script, 5000 VUs (× k6: peak RSS)',
    feed: 'a 38 MB feed (× reference: peak RSS beyond the run without it, × the file)',
  };
  console.log('');
  console.log(`| regime | tool | req/s (median, min–max) | × reference (wrk, ab, h2load) | × own bare loop | CPU µs/req | RSS (MB) | RSS per connection (KiB) | opened in (ms) |`);
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (let i = 0; i < list.length; i++) {
    const row = list[i];
    const ok = results[i].filter(Boolean);
    if (ok.length === 0) {
      console.log(`| ${title[row.regime]} | ${row.name} | failed | | | | | | |`);
      continue;
    }
    const rps = ok.map((r) => r.rps).filter((x) => x !== null);
    const rss = median(ok.map((r) => (row.regime === 'vus5k' || row.regime === 'feed' ? r.maxRssKb : r.rssKb)));
    let perConn = null;
    if (row.regime === '10k') {
      const small = rss10(row.name);
      if (small !== null && rss !== null) perConn = (rss - small) / (BIG - 10);
    }
    // A rate regime's ratios are each round's, taken within its pairs (runPair).
    const paired = ok[0].refRatio !== undefined;
    const ref = row.name === row.ref ? 1 : paired ? median(ok.map((r) => r.refRatio)) : row.file ? beyondFile(i) : ratioTo(i, row.ref, row.refKey);
    const ceiling = paired ? median(ok.map((r) => r.ceilingRatio)) : row.ceiling ? ratioTo(i, row.ceiling, row.ceilingKey) : null;
    // A tool that never had every connection answered reports no opening time (-1 or 0).
    const opened = median(ok.map((r) => (r.connectMs > 0 ? r.connectMs : null)));
    const errs = ok.reduce((a, r) => a + r.errors, 0);
    console.log(
      `| ${title[row.regime]} | ${row.name}${errs ? ` (${errs} errors)` : ''} | ${fmt(median(rps))} (${fmt(Math.min(...rps))}–${fmt(Math.max(...rps))}) | ${fmt(ref, 2)} | ${fmt(ceiling, 2)} | ${fmt(median(ok.map((r) => r.cpuUs)), 2)} | ${fmt(rss === null ? null : rss / 1024, 1)} | ${fmt(perConn, 2)} | ${row.regime === '10k' ? fmt(opened) : ''} |`,
    );
  }
  console.log('');
  console.log(`Load average (1 min) at each round's start and at the end: ${loads.join(', ')} (2 cores; above ~0.3 means other work shared them).`);
  rmSync(TMP, { recursive: true, force: true });
}

await main();
