// Browser VUs at scale beside k6: bench/browser/loop.js (VUs looping a page's load and a click) for
// 30 s with 5 and 10 VUs, by k6 and by loadtest on node, bun and deno: the iterations, and the peak
// RSS of the whole process tree (the tool and every Chromium process it started), sampled from
// /proc every 200 ms.
//   node bench/browser-scale.js path/to/k6 [VUS...] [--tools k6,node,bun,deno] [--duration 30s]

import { spawn } from 'node:child_process';
import { readFileSync, readdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const K6 = args[0];
if (!K6) throw new Error('usage: node bench/browser-scale.js path/to/k6 [VUS...]');
const flag = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const TOOLS = flag('--tools', 'k6,node,bun,deno').split(',');
const DURATION = flag('--duration', '30s');
const VUS = args.slice(1).filter((a, i, all) => /^\d+$/.test(a) && !['--tools', '--duration'].includes(all[i - 1]));
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = `${ROOT}node_modules/.bin`;

/** Every process below `pid`, and itself. */
function tree(pid) {
  const children = new Map();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid).push(Number(d));
    } catch {}
  }
  const all = [];
  const walk = (p) => {
    all.push(p);
    for (const c of children.get(p) || []) walk(c);
  };
  walk(pid);
  return all;
}

const rssOf = (pid) => {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) * 1024;
  } catch {
    return 0;
  }
};

function measure(cmd, argv, dir) {
  return new Promise((resolve) => {
    const env = { ...process.env, K6_NO_USAGE_REPORT: 'true', K6_BROWSER_EXECUTABLE_PATH: '/usr/bin/chromium', K6_BROWSER_ARGS: 'no-sandbox', NO_COLOR: '1' };
    const child = spawn(cmd, argv, { env, cwd: dir });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    let peak = 0;
    const timer = setInterval(() => {
      const total = tree(child.pid).reduce((s, p) => s + rssOf(p), 0);
      if (total > peak) peak = total;
    }, 200);
    child.on('exit', (code) => {
      clearInterval(timer);
      const iterations = /iterations\.*: (\d+)/.exec(out);
      resolve({ code, iterations: iterations ? Number(iterations[1]) : null, peakMB: Math.round(peak / 1048576), tail: code === 0 ? '' : out.slice(-300) });
    });
  });
}

const site = spawn('node', [`${ROOT}bench/browser/site.js`], { stdio: ['ignore', 'pipe', 'inherit'] });
const base = await new Promise((resolve) => createInterface({ input: site.stdout }).once('line', resolve));
const script = `${ROOT}bench/browser/loop.js`;
const commands = {
  k6: [K6, ['run', '-q']],
  node: [process.execPath, [`${ROOT}src/cli.js`, 'run', '-q']],
  bun: [`${BIN}/bun`, [`${ROOT}src/cli.js`, 'run', '-q']],
  deno: [`${BIN}/deno`, ['run', '-A', `${ROOT}src/cli.js`, 'run', '-q']],
};
const dir = mkdtempSync(join(tmpdir(), 'browser-scale-'));
console.log('VUs | tool | iterations | peak RSS of the process tree (MB)');
try {
  for (const vus of VUS.length ? VUS : ['5', '10']) {
    for (const tool of TOOLS) {
      const [cmd, prefix] = commands[tool];
      const r = await measure(cmd, [...prefix, '-e', `BASE=${base}`, '-e', `VUS=${vus}`, '-e', `DURATION=${DURATION}`, script], dir);
      console.log(`${vus} | ${tool} | ${r.iterations} | ${r.peakMB}${r.code === 0 ? '' : ` (exit ${r.code}: ${r.tail.replace(/\s+/g, ' ')})`}`);
    }
  }
} finally {
  site.kill();
  rmSync(dir, { recursive: true, force: true });
}
