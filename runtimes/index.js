// The one place that asks which runtime this is. It picks the socket adapter and gathers the
// few runtime facilities the entry points need (name lookups, files, child processes, stdio).

import { lookup } from 'node:dns/promises';
import { readFile, writeFile, rm } from 'node:fs/promises';
import { readFileSync, readdirSync } from 'node:fs';
import os from 'node:os';
import v8 from 'node:v8';
import { createHash } from 'node:crypto';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';
import { spawnNode, spawnBun, spawnDeno, lineSplitter } from './processes/spawn.js';
import { nodeChildFlags, denoChildFlags, nodeCapsItself, NODE_GROWTH_FLAG } from './processes/young-generation.js';
import { ignoresCertificates, IGNORE_CERTIFICATES } from './processes/deno-restart.js';
import * as nodeNet from './sockets/node.js';
import * as nodeWrap from './sockets/node-wrap.js';
import * as bunNet from './sockets/bun.js';
import * as denoNet from './sockets/deno.js';

function detect() {
  if (typeof globalThis.Bun !== 'undefined') return { name: 'bun', version: globalThis.Bun.version };
  if (typeof globalThis.Deno !== 'undefined') return { name: 'deno', version: globalThis.Deno.version.deno };
  return { name: 'node', version: globalThis.process.versions.node };
}

export const runtime = detect();

// How a scripted run's VUs send the requests they made in one turn together, once its reads are
// handled (src/script/net/client.js, Network.later): node's and bun's check phase. Deno resolves
// every read of a turn before it runs their continuations, in one drain of microtasks: a
// microtask queued by the first request made goes after the others' (setImmediate there costs
// a 1-VU loop a tenth of its rate). A write made at once costs Deno a wake of the server that
// one made beside the turn's others does not: 4 % of a request's CPU against nginx.
export const afterReads = runtime.name === 'deno' ? queueMicrotask : globalThis.setImmediate;

/**
 * `fn(reason)` for each promise rejected with no handler, in place of the runtime's own end of
 * the process (node and deno exit with a stack trace; k6 logs the rejection and goes on).
 */
export function onUnhandledRejection(fn) {
  if (runtime.name === 'deno') {
    globalThis.addEventListener('unhandledrejection', (event) => {
      event.preventDefault();
      fn(event.reason);
    });
  } else {
    globalThis.process.on('unhandledRejection', (reason) => fn(reason));
  }
}

const adapters = {
  node: nodeNet,
  bun: runtime.name === 'bun' ? bunNet : null,
  deno: runtime.name === 'deno' ? denoNet : null,
  // node's TCP handle under net.Socket (runtimes/sockets/node-wrap.js): `--socket wrap`.
  wrap: runtime.name === 'node' ? nodeWrap : null,
};
// The runtime each adapter needs.
const NEEDS = { node: 'any', bun: 'bun', deno: 'deno', wrap: 'node' };

// Each runtime's default, chosen by measurement (bench/README.md, "Socket adapters", "10 000
// connections on node"): on node its TCP handle, where this node still lends it (process.binding
// is documented as deprecated, DEP0111), else node:net.
const DEFAULTS = { node: runtime.name === 'node' && nodeWrap.usable() ? 'wrap' : 'node', bun: 'bun', deno: 'deno' };

// On Deno, Deno.connect's CPU a request grows with the connections kept open, node:net's on Deno
// barely: keep-alive against one nginx worker, two at once, node:net's rate over Deno.connect's
// was 0.99 at 100 connections, 1.16 at 300, 1.35 at 1000 and 2.3 at 10 000, and 1.25 for a
// scripted run of 1000 VUs; a connection per request stays faster on Deno.connect (node:net 0.90
// of it at 300). From MANY_KEPT kept-alive connections, plain TCP on Deno takes node:net
// (bench/README.md, "Deno at many connections").
const MANY_KEPT = 200;
const defaultFor = (connections, keepAlive) => (runtime.name === 'deno' && keepAlive && connections >= MANY_KEPT ? 'node' : DEFAULTS[runtime.name]);

/**
 * The socket adapter: the runtime's own by default; `forced` ('node', 'bun', 'deno', 'wrap') picks one.
 * With `tls` ({ servername, rejectUnauthorized, ca, cert, key, alpn, minVersion, maxVersion,
 * ciphers }: runtimes/sockets/node.js) its connections are TLS; with
 * `path` they go to that Unix domain socket instead of the host and port they are given; with
 * `tunnel` ({ request: the CONNECT bytes }) they go through the proxy at that host and port.
 * `load` ({ connections, keepAlive }): what the run opens, which the default may depend on.
 */
export function pickAdapter(forced, tls = null, path = null, tunnel = null, load = null) {
  // LOADTEST_SOCKET changes the default, so a whole test suite can run on another adapter.
  const plain = !tls && !path && !tunnel && load !== null;
  const key = forced || globalThis.process.env.LOADTEST_SOCKET || (plain ? defaultFor(load.connections, load.keepAlive) : DEFAULTS[runtime.name]);
  if (!(key in adapters)) throw new Error(`unknown socket adapter '${key}' (node, bun, deno or wrap)`);
  const adapter = adapters[key];
  if (!adapter) throw new Error(`socket adapter '${key}' needs the ${NEEDS[key]} runtime; this is ${runtime.name} (try --socket node)`);
  const connect = adapter.connect;
  const freshReads = adapter.freshReads === true;
  const how = path ? ' (unix)' : tunnel ? ' (CONNECT tunnel)' : '';
  if (!tls) {
    if (!path && !tunnel) return { name: adapter.name, connect, freshReads };
    return { name: adapter.name + how, connect: (host, port, handlers) => connect(host, port, handlers, null, path, tunnel), freshReads };
  }
  // Deno's own TLS checks certificates or not for the whole process (runtimes/processes/deno-restart.js),
  // and cannot run over a Unix socket; node:tls on Deno can do all three. Fall back to it unless
  // the adapter was asked for by name, where silently verifying (or not, or failing) would be a lie.
  const cannot = tls.rejectUnauthorized
    ? adapter.canVerify === false && 'verify'
    : !adapter.canSkipVerify && 'skip';
  const why = cannot || (path && adapter.tlsOverUnix === false ? 'unix' : null) || ((tls.minVersion || tls.maxVersion) && adapter.canLimitVersions === false ? 'versions' : null);
  if (why) {
    if (!forced) return pickAdapter('node', tls, path, tunnel);
    if (why === 'versions') throw new Error(`--socket ${forced}: ${runtime.name}'s own TLS cannot limit the TLS versions (tlsVersion); use --socket node`);
    if (why === 'unix') throw new Error(`--unix-socket: ${runtime.name}'s own TLS cannot run over a Unix socket; use --socket node`);
    if (why === 'verify') throw new Error(`--socket ${forced}: this process skips every certificate check (--unsafely-ignore-certificate-errors); use --socket node, or --insecure`);
    throw new Error(`--insecure: ${runtime.name}'s own TLS skips certificate checks only in a process started with --unsafely-ignore-certificate-errors (the CLI restarts so); use --socket node, or pass the server's CA with --ca`);
  }
  return { name: adapter.tlsName + how, connect: (host, port, handlers) => connect(host, port, handlers, tls, path, tunnel), freshReads };
}

/**
 * What this runtime cannot do of a script's TLS settings (src/script/net/tls-options.js), as the
 * line that refuses the run, or null. Deno's TLS is rustls under Deno.connectTls and node:tls
 * alike: Deno 2.9.5's ConnectTlsOptions has no cipher suites, and its node:tls takes `ciphers`
 * and offers its own suites all the same.
 */
export function tlsRefusal({ ciphers }) {
  if (runtime.name === 'deno' && ciphers !== null) return `tlsCipherSuites: deno cannot limit the TLS cipher suites it offers (rustls, under Deno.connectTls and node:tls alike, takes no list); run this script with node or bun, or leave the option out`;
  return null;
}

/** Resolves a host name once, before the run, so connections do not each pay for a lookup. */
export async function resolveHost(host) {
  const bare = host.startsWith('[') ? host.slice(1, -1) : host;
  if (/^[0-9.]+$/.test(bare) || bare.includes(':')) return bare;
  try {
    const { address } = await lookup(bare);
    return address;
  } catch (err) {
    const e = new Error(`cannot resolve host '${bare}' (${err.code || err.message})`);
    e.code = 'ENOTFOUND';
    throw e;
  }
}

export { readFile, writeFile };
export { openLogFile } from './run-servers/log-file.js';
export { openAppendSync } from './scripts/out-file.js';
export { startThread, threadSide } from './processes/threads.js';
export { runCommand } from './processes/command.js';
import { findRuntime as findRuntimeIn } from './processes/image.js';
export { imageContents } from './processes/image.js';

const proc = globalThis.process;

/** Command-line arguments after the script (all three runtimes provide node's process). */
export const argv = () => proc.argv.slice(2);

export const exit = (code) => proc.exit(code);

/**
 * For the CLI (src/cli.js): what it writes to stdout and stderr is written whole before it goes
 * on. Node writes to a pipe as the other end reads, and process.exit() drops what is still
 * waiting: a --json document past the pipe's 64 KiB came out cut short (`loadtest URL --json |
 * jq`, the reader not yet reading). Bun and Deno keep it all already. Only at the end of a
 * command is much written to stdout.
 */
export function writeStdioWhole() {
  if (runtime.name !== 'node') return;
  for (const stream of [proc.stdout, proc.stderr]) {
    const handle = stream && stream._handle;
    if (handle && typeof handle.setBlocking === 'function') handle.setBlocking(true);
  }
}

/** Colour only on a terminal, and not when NO_COLOR is set (no-color.org). */
export const wantsColor = (stream = 'stdout') => Boolean(proc[stream] && proc[stream].isTTY) && !proc.env.NO_COLOR;

/** Whether 'stdout' or 'stderr' is a terminal, and its width in columns (0 when unknown). */
export function terminal(stream) {
  const s = proc[stream];
  return { isTTY: Boolean(s && s.isTTY), columns: (s && s.isTTY && s.columns) || 0 };
}

/** Text on 'stdout' or 'stderr' as it is, without a newline (a line redrawn with \r). */
export const writeText = (stream, text) => proc[stream].write(text);

/** An environment variable, or undefined. */
export const envVar = (name) => proc.env[name];

/** The environment's variables' names. */
export const envNames = () => Object.keys(proc.env);

/**
 * Calls fn('SIGINT') on Ctrl-C and fn('SIGTERM') on SIGTERM (their exit codes differ: 130, 143);
 * returns a function that removes the handlers. A signal that comes while none is set ends the
 * process with that code.
 */
export function onInterrupt(fn) {
  if (!listening) listenForInterrupts();
  const handler = (signal) => fn(signal);
  interruptHandlers.add(handler);
  return () => interruptHandlers.delete(handler);
}

// The runtime's listeners, once set, stay: node, bun and deno all drop a signal caught while a
// listener was set but not yet handed to it when the last listener goes in the same turn. A
// scripted run's Ctrl-C that came as the run ended was lost so, and the run lingered on.
const interruptHandlers = new Set();
let listening = false;

function listenForInterrupts() {
  listening = true;
  for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]]) {
    proc.on(signal, () => {
      if (interruptHandlers.size === 0) exit(code);
      for (const handler of [...interruptHandlers]) handler(signal);
    });
  }
}

/** Imports a user's module (a body or request generator) given as a path relative to the cwd. */
export function importUserModule(path) {
  return import(new URL(path, cwdUrl()).href);
}

/** The working directory as a path. */
export const cwdPath = () => proc.cwd();

/** The executable of runtime `name` ('node', 'bun', 'deno'), or null. */
export const findRuntime = (name) => findRuntimeIn(name, runtime.name, proc.execPath, proc.env.PATH || '');

/** The working directory as a file: URL ending in '/', to resolve relative paths against. */
export const cwdUrl = () => pathToFileURL(proc.cwd() + '/').href;

/** The home folder as a file: URL ending in '/' (where the configuration file search stops). */
export const homeUrl = () => pathToFileURL(os.homedir() + '/').href;

/**
 * Starts a child process of this runtime running `script` (see runtimes/processes/spawn.js). `extra`:
 * `share` (node: a file descriptor the child gets as fd 3), `denoFlags` (deno: more flags),
 * `unixSocket` (a socket file it will connect to: Deno's permissions name it), `writes` (files
 * it writes, likewise), `load` (a child
 * that generates load: V8's young generation capped, see runtimes/processes/young-generation.js),
 * `scripted` (a scripted run's child on Deno: its heap flags, SCRIPT_HEAP_FLAGS).
 */
export function spawnChild(script, env = {}, extra = {}) {
  if (runtime.name === 'bun') return spawnBun(script, env);
  if (runtime.name === 'deno') {
    // A parent that skips certificate checks (--insecure, runtimes/processes/deno-restart.js) has children
    // that do too, so that they use Deno.connectTls as it does.
    const insecure = ignoresCertificates() ? [IGNORE_CERTIFICATES] : [];
    const flags = [...(extra.denoFlags || []), ...(extra.load ? denoChildFlags(extra.scripted) : []), ...insecure];
    return spawnDeno(script, env, { flags, unixSocket: extra.unixSocket, writes: extra.writes });
  }
  return spawnNode(script, env, extra.share, extra.load ? nodeChildFlags(proc.execArgv) : []);
}

/**
 * How many more files (sockets) this process may open: the soft open-file limit (ulimit -n, as
 * the runtime left it: bun raises it to the hard limit at start, node and deno do not) less
 * those open now. { limit, free }, or null where /proc does not tell (not Linux).
 */
export function openFiles() {
  try {
    const m = /^Max open files\s+(\d+|unlimited)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    if (!m || m[1] === 'unlimited') return null;
    const limit = Number(m[1]);
    return { limit, free: limit - readdirSync('/proc/self/fd').length };
  } catch {
    return null;
  }
}

/**
 * Asks the engine to favour a small heap over speed, for a scripted run of many VUs (5000 VUs
 * looping http.get and sleep(1), bench/scripts.sh):
 * - node: V8's --optimize-for-size, which its heap reads as it goes (a peak of 155 MB, not 266);
 * - bun: a full collection each second (134 MB, not 261, for 0.4 s of CPU in 15): JavaScriptCore
 *   left the VUs' spent promises, closures and timers uncollected, and has no switch for it;
 * - deno: nothing here; it takes V8 flags on its command line only, and gets its memory saver
 *   mode at its restart in place (runtimes/processes/deno-restart.js, SCRIPT_HEAP_FLAGS).
 */
export function preferSmallHeap() {
  if (runtime.name === 'node') v8.setFlagsFromString('--optimize-for-size');
  if (runtime.name === 'bun') setInterval(() => globalThis.Bun.gc(true), 1000).unref();
}

/**
 * On node, stops V8's young generation growing past its first 1 MB semi-spaces for this process
 * (runtimes/processes/young-generation.js), unless the command line or NODE_OPTIONS sizes it.
 * Deno gets its cap at its restart in place (restartDeno); bun has no such heap.
 */
export function capYoungGeneration() {
  if (runtime.name === 'node' && nodeCapsItself(proc.execArgv, proc.env.NODE_OPTIONS || '')) v8.setFlagsFromString(NODE_GROWTH_FLAG);
}

let temps = 0;
/** A new file name in the system's temporary folder, `loadtest-PREFIX-PID-N.json`. */
export const tempPath = (prefix) => `${os.tmpdir()}/loadtest-${prefix}-${proc.pid}-${++temps}.json`;

/** Removes a file; one already gone is no error. */
export const removeFile = (path) => rm(path, { force: true });

/** The MD5 of a text, in hex (k6's ids of groups and checks). */
export const md5Hex = (text) => createHash('md5').update(text).digest('hex');

/** The cores this process may use. */
export const availableCores = () => (os.availableParallelism ? os.availableParallelism() : os.cpus().length);

/** The machine, for a comparison's settings: its CPU model and how many cores this process may use. */
export function machine() {
  const cpus = os.cpus();
  return { cpuModel: cpus.length ? cpus[0].model.trim() : 'unknown', cpus: availableCores() };
}

/** For a child process: fn(line) for each line on stdin, and onEnd() when stdin closes. */
export function onStdinLine(fn, onEnd) {
  proc.stdin.setEncoding('utf8');
  proc.stdin.on('data', lineSplitter(fn));
  proc.stdin.on('end', onEnd);
}

/** For a child process: one line to the parent, then a callback once it is flushed. */
export function writeLine(text, then) {
  proc.stdout.write(text + '\n', then);
}

/** A file: URL as a path (for starting a script in a child process). */
export const pathOf = (url) => fileURLToPath(url);

// protobufjs and its extensions for a gRPC run (src/grpc/protobuf.js), required as the CommonJS
// they are: the ESM loader's way through them was twice as long at a run's start on node.
export function requireProtobuf() {
  const require = createRequire(import.meta.url);
  return {
    protobuf: require('protobufjs'),
    protojson: require('protobufjs/ext/protojson.js'),
    descriptor: require('protobufjs/ext/descriptor.js'),
    textformat: require('protobufjs/ext/textformat.js'),
  };
}

