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
// the others `URL -c 10 EXTRA -t SECONDS --json --quiet`. Each rate is over the tool's own run:
// the one that starts later (our CLI restarts once on Deno) runs alone at the end as long as the
// other did at the start. Prints each round and the median of the second's rate over the first's.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
const URL = process.env.URL || 'http://127.0.0.1:8089/';
const SECONDS = +(process.env.SECONDS || 10), ROUNDS = +(process.env.ROUNDS || 5);
const vs = process.env.VARIANTS.split(';').map((v) => { const i = v.indexOf('='); return [v.slice(0, i), v.slice(i + 1).split(' ')]; });
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
function run(cmd) {
  const bare = cmd.some((a) => /bare-/.test(a));
  const where = new globalThis.URL(URL).host;
  const extra = process.env.EXTRA ? process.env.EXTRA.split(' ') : [];
  const args = bare ? [...cmd, where, '10', String(SECONDS)] : [...cmd, URL, '-c', '10', ...extra, '-t', String(SECONDS), '--json', '--quiet'];
  return new Promise((resolve) => {
    const child = spawn('taskset', ['-c', '1', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('close', () => {
      const j = JSON.parse(out.slice(out.indexOf('{'), out.lastIndexOf('}') + 1));
      const n = j.totalRequests ?? j.requests;
      resolve({ rps: n / (j.elapsedSeconds ?? j.seconds), errors: (j.totalErrors || 0) + (j.failed || 0) });
    });
  });
}
console.log(`load ${load()}; ${vs.map((v) => v[0]).join(' and ')} at once on core 1, ${SECONDS} s, ${ROUNDS} rounds`);
const ratios = [];
for (let r = 0; r < ROUNDS; r++) {
  const [a, b] = await Promise.all(vs.map(([, cmd]) => run(cmd)));
  ratios.push(b.rps / a.rps);
  console.log(`${vs[0][0]} ${a.rps.toFixed(0)} req/s, ${vs[1][0]} ${b.rps.toFixed(0)} req/s (errors ${a.errors}/${b.errors}): ${vs[1][0]} / ${vs[0][0]} = ${(b.rps / a.rps).toFixed(3)}`);
  await new Promise((res) => setTimeout(res, 500));
}
console.log(`median ${vs[1][0]} / ${vs[0][0]} = ${median(ratios).toFixed(3)} (${ratios.map((x) => x.toFixed(3)).join(', ')}); load ${load()}`);
