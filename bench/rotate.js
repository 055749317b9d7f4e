// Runs commands side by side on a shared, noisy machine: all are started at once, each in its own
// process group, and only one runs at a time, each in turn for SLICE ms (or until it ends) while
// the others are stopped (SIGSTOP, SIGCONT). Whatever the host does over seconds and minutes
// (its speed here has halved within a minute) then falls on every command alike, which runs one
// after the other, seconds apart, do not have: their ratios moved by 0.85 to 1.77 from one round
// to the next. A turn is not free: a command resumed has the caches of the others, and turns of
// 100 ms cost bun's scripted loops 0.07 to 0.09 of their ratio to its declared run (1 s: none
// measurable beside 3 s).
// Pin the commands to one core yourself (taskset); this process sleeps between slices.
//   node bench/rotate.js SLICE_MS 'CMD1' 'CMD2' ...   (each CMD a shell command)
// Exits once every command has, with the first non-zero status among them.
// WATCH=PID WATCH_OUT=FILE: what process PID (the server) did during each command's turns, its
// voluntary context switches (each a sleep: it had answered everything, and the client's next
// write pays for its wake-up) and its CPU ticks, as lines "sleeps ticks" in the commands' order.
// A client that outpaces the server never lets it sleep, and pays for no wake-up.
// COUNT_URL=URL TURNS_OUT=FILE: each turn as a line "command cpu_ns requests": the CPU of the
// command's processes (every thread's, /proc's schedstat: ns, where times are 10 ms ticks) and
// the requests the server counted in it (URL: nginx's stub_status; only one command runs at a
// time). A command's first turns hold its start and its JIT's warm-up, its last its end: what a
// request costs once the run is under way is the CPU of the turns between over their requests.
// cpu_ns is -1 for a turn whose command ended in it.
import { spawn, execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import process from 'node:process';
import { cpuOf, requestsIn } from './process-cpu.js';

const slice = Number(process.argv[2]);
const commands = process.argv.slice(3);
if (!(slice > 0) || commands.length === 0) {
  console.error("usage: node bench/rotate.js SLICE_MS 'CMD1' 'CMD2' ...");
  process.exit(2);
}

const signal = (p, name) => {
  try {
    process.kill(-p.pid, name);
  } catch {
    // gone meanwhile: its exit event follows
  }
};

let status = 0;
let turn = 0;
let timer = null;

const watch = Number(process.env.WATCH || 0);
const watched = commands.map(() => [0, 0]);
const server = () => {
  const sleeps = Number(/^voluntary_ctxt_switches:\s*(\d+)/m.exec(readFileSync(`/proc/${watch}/status`, 'utf8'))[1]);
  const f = readFileSync(`/proc/${watch}/stat`, 'utf8').split(') ')[1].split(' ');
  return [sleeps, Number(f[11]) + Number(f[12])]; // utime + stime
};
let mark = watch ? server() : null;
// What the server did since the last look goes to the command whose turn it was.
function account() {
  if (!watch) return;
  const now = server();
  for (let i = 0; i < 2; i++) watched[turn][i] += now[i] - mark[i];
  mark = now;
}

const countUrl = process.env.COUNT_URL || '';
const turns = [];
// nginx's stub_status: "Active connections: N \n server accepts handled requests\n A H R ...";
// its own request is one of R, taken out.
let counted = 0;
const requestsSoFar = () => requestsIn(execFileSync('curl', ['-fsS', countUrl], { encoding: 'utf8' })) - ++counted;
let requestsMark = countUrl ? requestsSoFar() : 0;
// The turn that ends goes to its command: its CPU since its last turn, the server's requests since.
function tally(p) {
  if (!countUrl) return;
  const cpu = p.alive ? cpuOf(p.pid) : NaN;
  const requests = requestsSoFar();
  turns.push(`${turn} ${Number.isNaN(cpu) ? -1 : cpu - p.cpu} ${requests - requestsMark}`);
  if (!Number.isNaN(cpu)) p.cpu = cpu;
  requestsMark = requests;
}

function exit() {
  account();
  tally(procs[turn]);
  if (watch) writeFileSync(process.env.WATCH_OUT, watched.map((w) => w.join(' ') + '\n').join(''));
  if (countUrl) writeFileSync(process.env.TURNS_OUT, turns.map((t) => t + '\n').join(''));
  process.exit(status);
}

// The next live command's turn, for SLICE ms (or until it ends); the one that had it stops.
function pass() {
  clearTimeout(timer);
  account();
  const current = procs[turn];
  let next = turn;
  do next = (next + 1) % procs.length;
  while (!procs[next].alive && next !== turn);
  if (!procs[next].alive) return;
  if (next !== turn && current.alive) signal(current, 'SIGSTOP');
  tally(current);
  signal(procs[next], 'SIGCONT');
  turn = next;
  timer = setTimeout(pass, slice);
}

const procs = commands.map((command, i) => {
  const child = spawn('sh', ['-c', command], { detached: true, stdio: 'inherit' });
  const p = { pid: child.pid, alive: true, cpu: 0 };
  // All but the first wait their turn from the start.
  if (i > 0) signal(p, 'SIGSTOP');
  child.on('exit', (code, sig) => {
    p.alive = false;
    if (status === 0 && code !== 0) status = code ?? 1;
    if (sig) console.error(`rotate: '${command}' ended by ${sig}`);
    if (procs.every((x) => !x.alive)) {
      clearTimeout(timer);
      exit();
    }
    // Its turn goes on to the next at once.
    if (procs[turn] === p) pass();
  });
  return p;
});

// Stopped, they would stay stopped: on the way out, every one goes on to end.
for (const name of ['SIGINT', 'SIGTERM']) {
  process.on(name, () => {
    for (const p of procs) if (p.alive) signal(p, 'SIGCONT'), signal(p, 'SIGTERM');
    process.exit(1);
  });
}

timer = setTimeout(pass, slice);
