// Two tools at once on the same core (core 1), against a server already running (nginx on
// core 0): the scheduler gives each about half the core, and a busy machine slows both alike, so
// the ratio of their rates is about the inverse ratio of their CPU per request. On a machine
// shared with other work, by turns (bench/interleaved.js) a tool's rate moved ±20 % from run to
// run; two at once, the ratio moved ±3 % within a set of rounds (bench/README.md, "Deno: a
// connection object made again, and the parser's head fast paths").
//
//   VARIANTS='main=deno run -A ../main/src/cli.js;ours=deno run -A src/cli.js' ROUNDS=6 SECONDS=8 \
//   URL=http://127.0.0.1:8089/ EXTRA=-k node bench/same-core.js
//
// A command that names a bench/bare-*.js loop gets that loop's arguments (HOST:PORT 10 SECONDS);
// the others `URL -c 10 EXTRA -t SECONDS --json --quiet`; CONNS for another number than 10. BARE_ARGS follow a bare loop's
// (`native 2 CA.pem`: bench/bare-keepalive.js over TLS). Each rate is over the tool's own run:
// the one that starts later (our CLI restarts once on Deno) runs alone at the end as long as the
// other did at the start. Prints each round and the median of the second's rate over the first's.
import { spawn } from 'node:child_process';
import { readFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
const URL = process.env.URL || 'http://127.0.0.1:8089/';
const SECONDS = +(process.env.SECONDS || 10), ROUNDS = +(process.env.ROUNDS || 5);
const CONNS = process.env.CONNS || '10';
const vs = process.env.VARIANTS.split(';').map((v) => { const i = v.indexOf('='); return [v.slice(0, i), v.slice(i + 1).split(' ')]; });
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
const TIMES = mkdtempSync(join(tmpdir(), 'same-core-'));
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
// Each tool under /usr/bin/time: its CPU (user+sys, the whole run, its start too) a request.
function run(cmd, k) {
  const bare = cmd.some((a) => /bare-/.test(a));
  const where = new globalThis.URL(URL).host;
  const extra = process.env.EXTRA ? process.env.EXTRA.split(' ') : [];
  const bareArgs = process.env.BARE_ARGS ? process.env.BARE_ARGS.split(' ') : [];
  // Ours writes its JSON to a file: through a pipe, the CLI's --json lost what was beyond the
  // pipe's 64-128 KiB when it exited (HTTP/2's histograms).
  const json = join(TIMES, `${k}.json`);
  const args = bare ? [...cmd, where, CONNS, String(SECONDS), ...bareArgs] : [...cmd, URL, '-c', CONNS, ...extra, '-t', String(SECONDS), '--json-file', json, '--quiet'];
  return new Promise((resolve) => {
    const time = join(TIMES, String(k));
    const child = spawn('/usr/bin/time', ['-f', '%U %S', '-o', time, 'taskset', '-c', '1', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stderr.resume();
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (d) => (out += d));
    child.on('close', () => {
      const text = bare ? out : readFileSync(json, 'utf8');
      const j = JSON.parse(text.slice(text.indexOf('{'), text.lastIndexOf('}') + 1));
      const n = j.totalRequests ?? j.requests;
      const [user, sys] = readFileSync(time, 'utf8').trim().split('\n').pop().split(' ').map(Number);
      resolve({ rps: n / (j.elapsedSeconds ?? j.seconds), us: ((user + sys) * 1e6) / n, errors: (j.totalErrors || 0) + (j.failed || 0) });
    });
  });
}
console.log(`load ${load()}; ${vs.map((v) => v[0]).join(' and ')} at once on core 1, ${SECONDS} s, ${ROUNDS} rounds`);
const ratios = [];
const cpus = [[], []];
for (let r = 0; r < ROUNDS; r++) {
  const [a, b] = await Promise.all(vs.map(([, cmd], k) => run(cmd, k)));
  ratios.push(b.rps / a.rps);
  cpus[0].push(a.us);
  cpus[1].push(b.us);
  console.log(`${vs[0][0]} ${a.rps.toFixed(0)} req/s ${a.us.toFixed(1)} µs CPU, ${vs[1][0]} ${b.rps.toFixed(0)} req/s ${b.us.toFixed(1)} µs (errors ${a.errors}/${b.errors}): ${vs[1][0]} / ${vs[0][0]} = ${(b.rps / a.rps).toFixed(3)}`);
  await new Promise((res) => setTimeout(res, 500));
}
console.log(`median ${vs[1][0]} / ${vs[0][0]} = ${median(ratios).toFixed(3)} (${ratios.map((x) => x.toFixed(3)).join(', ')}); load ${load()}`);
console.log(`median CPU a request: ${vs[0][0]} ${median(cpus[0]).toFixed(2)} µs, ${vs[1][0]} ${median(cpus[1]).toFixed(2)} µs`);
