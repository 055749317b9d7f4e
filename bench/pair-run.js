// Two commands at once on core 1 (taskset), several rounds: the ratio of their http_reqs rates
// (each gets about half the core, and a busy machine slows both alike; bench/same-core.js is the
// same for load runs; a load run's report is read too). $S in a command is the seconds of each run. Against a server already up:
//   node bench/pair-run.js 'main=deno run -A ../main/src/cli.js run -q -d $Ss -e URL=http://127.0.0.1:8089/ bench/scripts/rate.js' 'new=deno run -A src/cli.js run -q -d $Ss -e URL=...' ROUNDS SECONDS
// Two trees' scripted machinery alone, in process, without a server (bench/script-overhead.js,
// whose CPU µs a request is compared then: the ratio is the second's CPU over the first's):
//   node bench/pair-run.js 'main=env ONLY=scripted node ../main/bench/script-overhead.js bench/scripts/rate.js $S' 'new=env ONLY=scripted node bench/script-overhead.js bench/scripts/rate.js $S' 6 4
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
      // bench/script-overhead.js's CPU a request, a scripted run's http_reqs, or a load run's
      // report (Effective rps).
      const cpu = /scripted: \d+ requests, ([\d.]+) µs CPU each/.exec(out);
      const m = /http_reqs\.*: (\d+)\s+([\d.]+)\/s/.exec(out) || /Effective rps: *()([\d.]+)/.exec(out);
      resolve(cpu ? { cpu: Number(cpu[1]) } : { rate: m ? Number(m[2]) : NaN });
      if (!m && !cpu) console.error(out.slice(-500));
    });
  });
}
const ratios = [];
for (let r = 0; r < ROUNDS; r++) {
  const [ra, rb] = await Promise.all([run(a[1]), run(b[1])]);
  const show = (x) => (x.cpu !== undefined ? `${x.cpu.toFixed(2)} µs` : `${x.rate.toFixed(0)}/s`);
  // CPU beside CPU, rate beside rate; one of each (a run that failed) is NaN.
  ratios.push(ra.cpu !== undefined ? rb.cpu / ra.cpu : rb.rate / ra.rate);
  console.log(`round ${r}: ${a[0]} ${show(ra)} ${b[0]} ${show(rb)} ${b[0]}/${a[0]} ${ratios.at(-1).toFixed(3)}  load ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
}
console.log(`median ${b[0]}/${a[0]} ${median(ratios).toFixed(3)} over ${ROUNDS} rounds`);
