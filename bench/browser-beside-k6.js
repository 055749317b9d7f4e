// k6's examples/browser scripts beside k6 v2.2.0: each read from a fetched mirror of grafana/k6
// (AGPL: run from the mirror, never copied here), made local (its quickpizza.grafana.com URLs
// pointed at bench/browser/site.js, its jslib.k6.io modules written beside it from a mirror of
// grafana/jslib.k6.io), then run by k6 and by loadtest on node, bun and deno. Compared: the exit code, the checks (passed and failed), the pages the site served,
// the browser_* metric names.
//   node bench/browser-beside-k6.js path/to/k6 [EXAMPLE...]   (e.g. fillform querying)
// Needs Chromium (/usr/bin/chromium); k6 runs with K6_BROWSER_ARGS=no-sandbox as root.

import { spawn, execFileSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import { mkdtempSync, readFileSync, writeFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const K6 = process.argv[2];
if (!K6) throw new Error('usage: node bench/browser-beside-k6.js path/to/k6 [EXAMPLE...]');
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const K6_GIT = process.env.K6_GIT || '/work/.mirror/grafana+k6/repo';
const TAG = process.env.TAG || 'v2.2.0';
const JSLIB_GIT = process.env.JSLIB_GIT || '/work/.mirror/grafana+jslib.k6.io/repo';
const BIN = `${ROOT}node_modules/.bin`;
// The examples that need nothing the site cannot give (another site, a remote browser, a wait of 10 s).
const LOCAL = ['colorscheme', 'dispatch', 'elementstate', 'evaluate', 'fillform', 'framelocator', 'keyboard', 'locator', 'locator_filter', 'locator_pom', 'mouse', 'pageon', 'pageon-request', 'pageon-requestfinished', 'querying', 'screenshot', 'shadowdom', 'touchscreen', 'useragent', 'waitForEvent', 'waitforfunction'];
const wanted = process.argv.slice(3).length ? process.argv.slice(3) : LOCAL;

const site = spawn('node', [`${ROOT}bench/browser/site.js`], { env: { ...process.env, LOG: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
const base = await new Promise((resolve) => createInterface({ input: site.stdout }).once('line', resolve));
let served = [];
createInterface({ input: site.stderr }).on('line', (l) => served.push(l));

const run = (cmd, args, cwd) =>
  new Promise((resolve) => {
    const env = { ...process.env, K6_NO_USAGE_REPORT: 'true', K6_BROWSER_EXECUTABLE_PATH: '/usr/bin/chromium', K6_BROWSER_ARGS: 'no-sandbox', NO_COLOR: '1' };
    const c = spawn(cmd, args, { cwd, env });
    let out = '';
    c.stdout.on('data', (d) => (out += d));
    c.stderr.on('data', (d) => (out += d));
    const timer = setTimeout(() => c.kill('SIGKILL'), 120000);
    c.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });

const tools = {
  k6: (file, dir) => run(K6, ['run', '--summary-export', join(dir, 'k6.json'), file], dir),
  node: (file, dir) => run(process.execPath, [`${ROOT}src/cli.js`, 'run', '--summary-export', join(dir, 'node.json'), file], dir),
  bun: (file, dir) => run(`${BIN}/bun`, [`${ROOT}src/cli.js`, 'run', '--summary-export', join(dir, 'bun.json'), file], dir),
  deno: (file, dir) => run(`${BIN}/deno`, ['run', '-A', `${ROOT}src/cli.js`, 'run', '--summary-export', join(dir, 'deno.json'), file], dir),
};

function shape(dir, tool, result) {
  const file = join(dir, `${tool}.json`);
  const summary = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : { metrics: {} };
  const checks = summary.metrics.checks ? `${summary.metrics.checks.passes}/${summary.metrics.checks.fails}` : '-';
  const names = Object.keys(summary.metrics).filter((n) => n.startsWith('browser_') && !/browser_web_vital_(cls|inp)/.test(n)).sort().join(',');
  const pages = served.filter((l) => !l.includes('/jslib/') && !l.includes('favicon')).join(' ');
  return { exit: result.code, checks, pages, names };
}

let same = 0;
try {
  for (const name of wanted) {
    const source = execFileSync('git', ['--git-dir', K6_GIT, 'show', `${TAG}:examples/browser/${name}.js`], { encoding: 'utf8' });
    const dir = mkdtempSync(join(tmpdir(), `browser-${name}-`));
    // jslib's modules beside the script, from the mirror (both tools import only file: and https:).
    let local = source.replaceAll('https://quickpizza.grafana.com', base).replaceAll('http://quickpizza.grafana.com', base);
    local = local.replace(/https:\/\/jslib\.k6\.io\/([\w.-]+)\/([\d.]+)\/index\.js/g, (_, lib, version) => {
      const file = `jslib-${lib}-${version}.js`;
      writeFileSync(join(dir, file), execFileSync('git', ['--git-dir', JSLIB_GIT, 'show', `HEAD:lib/${lib}/${version}/index.js`]));
      return `./${file}`;
    });
    writeFileSync(join(dir, `${name}.js`), local);
    const shapes = {};
    for (const [tool, go] of Object.entries(tools)) {
      served = [];
      const r = await go(`${name}.js`, dir);
      shapes[tool] = shape(dir, tool, r);
      if (tool !== 'k6' && JSON.stringify(shapes[tool]) !== JSON.stringify(shapes.k6)) shapes[tool].out = r.out.split('\n').filter((l) => /loadtest run|level=(error|warn)|✗/.test(l)).slice(0, 4).join(' | ');
    }
    const ref = JSON.stringify(shapes.k6);
    const differ = ['node', 'bun', 'deno'].filter((t) => JSON.stringify({ ...shapes[t], out: undefined }) !== ref);
    if (differ.length === 0) same++;
    console.log(`${name}: ${differ.length === 0 ? 'as k6' : `differs on ${differ.join(', ')}`}  k6 ${ref}`);
    for (const t of differ) console.log(`  ${t}: ${JSON.stringify(shapes[t])}`);
    rmSync(dir, { recursive: true, force: true });
  }
} finally {
  site.kill();
}
console.log(`${same} of ${wanted.length} examples as k6 on node, bun and deno`);
