// Two commands at once on core 1 (taskset), several rounds: the ratio of their http_reqs rates
// (each gets about half the core, and a busy machine slows both alike; bench/same-core.js is the
// same for load runs; a load run's report is read too). $S in a command is the seconds of each run. Against a server already up:
//   node bench/pair-run.js 'main=deno run -A ../main/src/cli.js run -q -d $Ss -e URL=http://127.0.0.1:8089/ bench/scripts/rate.js' 'new=deno run -A src/cli.js run -q -d $Ss -e URL=...' ROUNDS SECONDS
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
const [a, b] = [process.argv[2], process.argv[3]].map((v) => { const i = v.indexOf('='); return [v.slice(0, i), v.slice(i + 1)]; });
const ROUNDS = +(process.argv[4] || 5), SECONDS = +(process.argv[5] || 10);
const median = (xs) => { const s = [...xs].sort((x, y) => x - y); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
function run(cmd) {
  return new Promise((resolve) => {
    const full = cmd.replaceAll('$S', String(SECONDS));
    const child = spawn('sh', ['-c', `exec taskset -c 1 ${full}`], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('close', () => {
      // A scripted run's http_reqs, or a load run's report (Effective rps).
      const m = /http_reqs\.*: (\d+)\s+([\d.]+)\/s/.exec(out) || /Effective rps: *()([\d.]+)/.exec(out);
      resolve(m ? Number(m[2]) : NaN);
      if (!m) console.error(out.slice(-500));
    });
  });
}
const ratios = [];
for (let r = 0; r < ROUNDS; r++) {
  const [ra, rb] = await Promise.all([run(a[1]), run(b[1])]);
  ratios.push(rb / ra);
  console.log(`round ${r}: ${a[0]} ${ra.toFixed(0)}/s ${b[0]} ${rb.toFixed(0)}/s ${b[0]}/${a[0]} ${(rb / ra).toFixed(3)}  load ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
}
console.log(`median ${b[0]}/${a[0]} ${median(ratios).toFixed(3)} over ${ROUNDS} rounds`);
