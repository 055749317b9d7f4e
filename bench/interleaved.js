// Interleaved A/B of loadtest commands (two checkouts, two adapters, a flag) against a server
// already running, e.g. nginx from bench/nginx-regimes.conf on core 0. Each run is pinned to
// core 1 under /usr/bin/time; the order alternates round by round; medians at the end, and each
// variant's req/s as a ratio to the first's within a round (a slow moment of a shared machine
// hits both). CPU µs per request is user+sys over the requests; RSS the median of VmRSS samples
// over the last 40 % of a run.
//
//   VARIANTS='base=node ../main/src/cli.js;new=node src/cli.js;wrap=node src/cli.js --socket wrap' \
//   ARGS='-c 10000 -k' ROUNDS=3 SECONDS=12 URL=http://127.0.0.1:8089/ node bench/interleaved.js
//
// A variant whose command names a bench/bare-*.js loop gets that loop's arguments instead
// (HOST:PORT CONNECTIONS SECONDS).

import { spawn } from 'node:child_process';
import { readFileSync, rmSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const URL = process.env.URL || 'http://127.0.0.1:8089/';
const variants = process.env.VARIANTS.split(';').map((v) => {
  const i = v.indexOf('=');
  return [v.slice(0, i), v.slice(i + 1).split(' ')];
});
const ROUNDS = Number(process.env.ROUNDS || 3);
const SECONDS = Number(process.env.SECONDS || 5);
const ARGS = (process.env.ARGS || '-c 10 -k').split(' ');
const TIME_FILE = join(mkdtempSync(join(tmpdir(), 'interleaved-')), 'time');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const median = (xs) => {
  const s = xs.filter((x) => x !== null && Number.isFinite(x)).sort((a, b) => a - b);
  if (s.length === 0) return null;
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

function rssKb(pid) {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]);
  } catch {
    return null;
  }
}

// The tool under /usr/bin/time and taskset (taskset execs it; time forks it).
function childOf(pid) {
  try {
    return Number(readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/)[0]) || null;
  } catch {
    return null;
  }
}

async function runOne(cmd) {
  rmSync(TIME_FILE, { force: true });
  const bare = cmd.some((a) => /bench\/bare-/.test(a));
  const where = new globalThis.URL(URL).host;
  const args = bare ? [...cmd, where, ARGS[ARGS.indexOf('-c') + 1], String(SECONDS)] : [...cmd, URL, ...ARGS, '-t', String(SECONDS), '--json', '--quiet'];
  const child = spawn('/usr/bin/time', ['-f', '%U %S', '-o', TIME_FILE, 'taskset', '-c', '1', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  let done = false;
  child.on('close', () => (done = true));
  const started = Date.now();
  const samples = [];
  while (!done) {
    await sleep(100);
    const elapsed = (Date.now() - started) / 1000;
    if (elapsed > SECONDS * 0.6 && elapsed < SECONDS * 0.97) samples.push(rssKb(childOf(child.pid)));
  }
  const [user, sys] = readFileSync(TIME_FILE, 'utf8').trim().split('\n').pop().split(' ').map(Number);
  const j = JSON.parse(out.slice(out.indexOf('{'), out.lastIndexOf('}') + 1));
  const requests = j.totalRequests ?? j.requests;
  return { rps: requests / (j.elapsedSeconds ?? j.seconds), cpuUs: ((user + sys) * 1e6) / requests, rssKb: median(samples), errors: j.totalErrors || 0 };
}

const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const results = Object.fromEntries(variants.map(([name]) => [name, []]));
console.log(`load average ${load()}; ${ARGS.join(' ')} -t ${SECONDS}; ${ROUNDS} rounds`);
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, cmd] of round % 2 ? [...variants].reverse() : variants) {
    const r = await runOne(cmd);
    results[name].push(r);
    console.log(`${name.padEnd(10)} ${r.rps.toFixed(0).padStart(7)} req/s ${r.cpuUs.toFixed(2).padStart(6)} µs/req  RSS ${r.rssKb} kB  ${r.errors} errors`);
    // Connections the last run left closing settle first.
    await sleep(ARGS.includes('10000') ? 2000 : 300);
  }
}
const first = variants[0][0];
for (const [name] of variants) {
  const ratio = median(results[name].map((r, i) => r.rps / results[first][i].rps));
  const rs = results[name];
  console.log(`median ${name.padEnd(10)} ${median(rs.map((r) => r.rps)).toFixed(0)} req/s (× ${first} ${ratio.toFixed(2)}), ${median(rs.map((r) => r.cpuUs)).toFixed(2)} µs/req, RSS ${median(rs.map((r) => r.rssKb))} kB`);
}
console.log(`load average ${load()}`);
