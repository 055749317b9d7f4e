// The deno CLI restarts itself once, in place, with the Deno flags a load run wants but that can
// only be given on the command line:
// - V8's young generation capped (runtimes/processes/young-generation.js): read once, when the heap is made;
//   a scripted run's heap flags instead (SCRIPT_HEAP_FLAGS there);
// - with --insecure, `--unsafely-ignore-certificate-errors`: Deno.connectTls cannot skip the
//   check for one connection, only for the whole process. Without it --insecure falls back to
//   node:tls, which on Deno served 0.67-0.76x wrk's https rate where Deno.connectTls served
//   0.92-0.99x (bench/README.md, "TLS and large bodies"). The process only connects where the user sent it, and
//   --insecure asks for no check there, so the flag names no hosts. Deno says so on stderr at
//   start ("DANGER: TLS certificate validation is disabled for all hostnames"; --quiet does not
//   hide it in Deno 2.9.5), which is true.
//
// execve keeps the process: the same PID, terminal, signals and exit code, and the same command
// line, so the same permissions. It happens when it may: on Linux, with FFI allowed (`deno run -A`
// allows it), for `deno run [flags] script [args]`, and for each flag only when the command line
// does not already decide it (the user's own V8 flags, on the command line or in DENO_V8_FLAGS,
// are left alone). A configuration file's `insecure` is read after the restart: that run uses
// node:tls.

import { YOUNG_GENERATION_FLAG, SCRIPT_HEAP_FLAGS } from './young-generation.js';

export const IGNORE_CERTIFICATES = '--unsafely-ignore-certificate-errors';

const MARK = 'LOADTEST_RESTARTED';

// The CLI's commands that are not runs: nothing to restart for.
const NOT_RUNS = new Set(['merge', 'features', 'compare']);

/** The flags to add to `deno run`'s, given its flags (args) and the script's (scriptArgs). */
export function restartFlags(args, scriptArgs, env) {
  const flags = [];
  if (NOT_RUNS.has(scriptArgs[0])) return flags;
  // A scripted run (loadtest run) has heap flags of its own: a young generation that does not
  // scavenge every few hundred requests, and an old one small enough for thousands of VUs, each
  // keeping its objects while it sleeps. Node asks for the latter as it goes, past 1000 VUs
  // (runtimes/index.js preferSmallHeap); Deno reads V8 flags at start only (its node:v8
  // setFlagsFromString changes nothing: --trace-gc set by it printed nothing, Deno 2.9.5).
  const v8 = scriptArgs[0] === 'run' ? SCRIPT_HEAP_FLAGS : [YOUNG_GENERATION_FLAG];
  if (!env.DENO_V8_FLAGS && !args.some((a) => a.startsWith('--v8-flags'))) flags.push(`--v8-flags=${v8.join(',')}`);
  const insecure = scriptArgs.includes('--insecure') || (scriptArgs[0] === 'run' && scriptArgs.includes('--insecure-skip-tls-verify'));
  if (insecure && !args.some((a) => a.startsWith(IGNORE_CERTIFICATES))) flags.push(IGNORE_CERTIFICATES);
  return flags;
}

/** On Deno, restarts this process in place with restartFlags(), when it may; returns when it does not. */
export function restartDeno() {
  const Deno = globalThis.Deno;
  if (!Deno || Deno.build.os !== 'linux') return;
  try {
    if (Deno.env.get(MARK)) return;
    // What the restart itself needs (asking would prompt); the permissions of the run itself
    // carry over, since the command line does.
    const needs = [{ name: 'ffi' }, { name: 'env' }, { name: 'read', path: '/proc/self/cmdline' }];
    if (needs.some((p) => Deno.permissions.querySync(p).state !== 'granted')) return;
    const args = commandLine();
    // `deno run [flags] script [args]`: the flags go right after `run`. Other forms (deno
    // script.js, a compiled binary) are left as they are.
    if (args[1] !== 'run') return;
    const script = args.length - Deno.args.length;
    const flags = restartFlags(args.slice(2, script - 1), Deno.args, Deno.env.toObject());
    if (flags.length === 0) return;
    const argv = [args[0], 'run', ...flags, ...args.slice(2)];
    const env = Object.entries({ ...Deno.env.toObject(), [MARK]: '1' }).map(([k, v]) => `${k}=${v}`);
    const libc = Deno.dlopen('libc.so.6', { execve: { parameters: ['buffer', 'buffer', 'buffer'], result: 'i32' } });
    const keep = [];
    const cString = (text) => {
      const bytes = new TextEncoder().encode(text + '\0');
      keep.push(bytes);
      return bytes;
    };
    // argv and envp: arrays of pointers to C strings, ending in a null pointer.
    const table = (list) => {
      const t = new BigUint64Array(list.length + 1);
      list.forEach((text, i) => (t[i] = BigInt(Deno.UnsafePointer.value(Deno.UnsafePointer.of(cString(text))))));
      return t;
    };
    libc.symbols.execve(cString(Deno.execPath()), table(argv), table(env));
    // Still here: execve failed; go on as we are.
    libc.close();
  } catch {
    // No libc.so.6 (musl), no /proc, FFI refused: go on as started.
  }
}

function commandLine() {
  return new TextDecoder().decode(globalThis.Deno.readFileSync('/proc/self/cmdline')).split('\0').slice(0, -1);
}

/**
 * Whether this Deno process skips certificate checks for every host (started with the flag, by
 * the restart or by the user): then Deno.connectTls honours --insecure. A list of hosts is not
 * taken as a yes: the run may go to others.
 */
export function ignoresCertificates() {
  const Deno = globalThis.Deno;
  if (!Deno) return false;
  try {
    if (Deno.permissions.querySync({ name: 'read', path: '/proc/self/cmdline' }).state !== 'granted') return false;
    const args = commandLine();
    const script = args.length - Deno.args.length;
    return args.slice(0, script - 1).includes(IGNORE_CERTIFICATES);
  } catch {
    return false;
  }
}
