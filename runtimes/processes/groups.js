// Processes for `loadtest compare`: commands started in their own process group (pinned to
// cores with taskset when there is one), stopped as a group by PID, and measured from /proc
// (CPU time and peak memory of the whole group). node:child_process, node:fs and node:net work
// alike on node, bun and deno, so this file serves all three.

import { spawn, execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import net from 'node:net';
import { fileURLToPath } from 'node:url';

const proc = globalThis.process;
const MAX_STDERR = 4096;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

let tasksetPath;
/** The taskset executable, or null where there is none (not Linux, or util-linux missing). */
export function taskset() {
  if (tasksetPath !== undefined) return tasksetPath;
  tasksetPath = null;
  for (const dir of (proc.env.PATH || '').split(':')) {
    if (dir && existsSync(`${dir}/taskset`)) return (tasksetPath = `${dir}/taskset`);
  }
  return tasksetPath;
}

/**
 * Starts argv[0] with argv's arguments as the leader of a new process group (its PID is the
 * group's id), pinned to `cpus` (taskset's list, e.g. "1" or "0-2") when given and taskset
 * exists. Returns { pid, exited, closed, stdout(), stderrTail() }: exited resolves to { code,
 * signal } when the leader ends, closed when its output is closed too.
 */
export function startGroup(argv, { cpus = null, keepStdout = false, env = {} } = {}) {
  const pinned = cpus && taskset() ? [taskset(), '-c', cpus, ...argv] : argv;
  const child = spawn(pinned[0], pinned.slice(1), {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...proc.env, ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stdout.on('data', (text) => {
    if (keepStdout) stdout += text;
  });
  child.stderr.on('data', (text) => {
    stderr += text;
    if (stderr.length > MAX_STDERR) stderr = stderr.slice(-MAX_STDERR);
  });
  // 'exit', not 'close': a child left in the group (a server's worker, `cmd &`) keeps the pipes
  // open after the leader is gone. `closed` is for reading all the output of one that ends.
  const failed = new Promise((resolve) => child.on('error', (err) => resolve({ code: null, signal: null, error: err.code || err.message })));
  const exited = Promise.race([failed, new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })))]);
  const closed = Promise.race([failed, new Promise((resolve) => child.on('close', resolve))]);
  return { pid: child.pid, exited, closed, stdout: () => stdout, stderrTail: () => stderr };
}

// Each live process of the group: { pid, state, ticks } from /proc/PID/stat (ticks: user +
// system time of the process and of its children it has waited for). Null without /proc.
function groupStats(pgid) {
  let names;
  try {
    names = readdirSync('/proc');
  } catch {
    return null;
  }
  const members = [];
  for (const name of names) {
    if (name.charCodeAt(0) > 57) continue; // not a PID
    let text;
    try {
      text = readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    // The command name, in parentheses, may hold spaces: fields are counted after its ')'.
    const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
    if (Number(f[2]) !== pgid) continue;
    members.push({ pid: Number(name), state: f[0], ticks: Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]) });
  }
  return members;
}

let ticksPerSecond;
function clockTicks() {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100; // USER_HZ on every mainstream Linux
    }
  }
  return ticksPerSecond;
}

/** CPU time (user + system) of the process group so far, in µs, or null without /proc. */
export function groupCpuMicros(pgid) {
  const members = groupStats(pgid);
  if (!members) return null;
  let ticks = 0;
  for (const m of members) ticks += m.ticks;
  return (ticks * 1e6) / clockTicks();
}

/** The sum of each live group member's peak resident memory (VmHWM), in kB, or null without /proc. */
export function groupPeakRssKb(pgid) {
  const members = groupStats(pgid);
  if (!members) return null;
  let kb = 0;
  for (const m of members) {
    try {
      const match = /VmHWM:\s*(\d+)/.exec(readFileSync(`/proc/${m.pid}/status`, 'utf8'));
      if (match) kb += Number(match[1]);
    } catch {
      // gone meanwhile
    }
  }
  return kb;
}

/** Whether a process of the group is still running (zombies waiting to be reaped do not count). */
export function groupAlive(pgid) {
  if (!Number.isInteger(pgid) || pgid <= 1) return false;
  const members = groupStats(pgid);
  if (members) return members.some((m) => m.state !== 'Z');
  try {
    proc.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

function signalGroup(pgid, signal) {
  // -0 or -1 would signal our own group or every process we may signal.
  if (!Number.isInteger(pgid) || pgid <= 1) return;
  try {
    proc.kill(-pgid, signal);
  } catch {
    // nothing left to signal
  }
}

/**
 * Stops the whole group: SIGTERM, then SIGKILL after `graceMs`. Resolves to true once no process
 * of the group runs, false if one still does after the SIGKILL (bounded: a second more).
 */
export async function stopGroup(handle, graceMs = 2000) {
  signalGroup(handle.pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (groupAlive(handle.pid) && Date.now() < deadline) await sleep(20);
  if (groupAlive(handle.pid)) signalGroup(handle.pid, 'SIGKILL');
  const last = Date.now() + 1000;
  while (groupAlive(handle.pid) && Date.now() < last) await sleep(20);
  await Promise.race([handle.exited, sleep(200)]);
  return !groupAlive(handle.pid);
}

/**
 * A TCP port free on 127.0.0.1 right now, for a server started later by another process. Taken
 * below Linux's ephemeral range (32768-60999 by default): a port the kernel chose for port 0 is
 * the next one it may hand to any other listener or outgoing connection before our server binds
 * it (seen in CI: a compare server's port taken between the probe and the listen). Port 0's
 * choice only if 64 tries found nothing free there.
 */
export async function freePort() {
  for (let i = 0; i < 64; i++) {
    const port = 20000 + Math.floor(Math.random() * 12000);
    if (await listensOn(port)) return port;
  }
  return listensOn(0);
}

function listensOn(port) {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', (error) => (error.code === 'EADDRINUSE' || error.code === 'EACCES' ? resolve(0) : reject(error)));
    server.listen(port, '127.0.0.1', () => {
      const chosen = server.address().port;
      server.close(() => resolve(chosen));
    });
  });
}

const PACKAGE_BIN = new URL('../../node_modules/.bin/', import.meta.url);

function onPath(name) {
  for (const dir of (proc.env.PATH || '').split(':')) {
    if (dir && existsSync(`${dir}/${name}`)) return `${dir}/${name}`;
  }
  return null;
}

function runningRuntime() {
  if (globalThis.Bun) return 'bun';
  if (globalThis.Deno) return 'deno';
  return 'node';
}

/**
 * How to run a script on `name` (node, bun or deno): { name, path, prefix, version }. The runtime
 * running this is used as it is; another is looked for in this package's node_modules/.bin (bun
 * and deno as devDependencies), then on PATH. Throws when it is nowhere.
 */
export function findRuntime(name) {
  let path = null;
  if (name === runningRuntime()) path = proc.execPath;
  else {
    const local = fileURLToPath(new URL(name, PACKAGE_BIN));
    path = existsSync(local) ? local : onPath(name);
  }
  if (!path) throw new Error(`cannot find ${name}: not in node_modules/.bin or on PATH`);
  let version = '?';
  try {
    const text = execFileSync(path, ['--version'], { encoding: 'utf8', timeout: 10000 });
    version = (/\d+\.\d+\.\d+\S*/.exec(text) || ['?'])[0];
  } catch {
    // a version is only for the header line
  }
  return { name, path, prefix: name === 'deno' ? [path, 'run', '-A'] : [path], version };
}
