// V8 grows its young generation (the semi-spaces short-lived objects are born in) from 1 MB up to
// 16 MB per semi-space whenever enough objects have survived scavenges since it last grew. A load
// tester allocates little of its own, but Deno's read and write ops allocate about 1.5 KB a
// request, so the young generation keeps growing by doubling through a long run: a 10-million-
// request soak on Deno went from 109 to 131 MB of RSS after its first million requests (+20 %),
// and at 10 000 connections Deno used 19 KiB per connection. Capped at 2 MB a semi-space,
// the soak's RSS stays at 63 MB and 10 000 connections take 9.5 KiB each, at the same request
// rate (bench/README.md, "The young generation").
//
// The cap is a V8 flag, read once when the heap is made: `v8.setFlagsFromString` later has no
// effect on it. So the processes we start (--cores children) get it on their command line, and
// the CLI on Deno restarts itself once with it, in place (execve: same process, same PID, same
// terminal, signals and exit code, the same command line and so the same permissions), when it
// may: on Linux, with FFI allowed (`deno run -A` allows it), and when neither the command line
// nor DENO_V8_FLAGS names V8 flags of the user's own. Node 20 cannot replace its own process,
// so `node src/cli.js` keeps V8's default (its growth is smaller: about 3 MB once);
// `node --max-semi-space-size=2 src/cli.js` caps it.

export const YOUNG_GENERATION_FLAG = '--max-semi-space-size=2';

const MARK = 'LOADTEST_YOUNG_GENERATION';

/** The node flags a child process gets besides its parent's (execArgv): the cap unless they name one. */
export function nodeChildFlags(execArgv) {
  return execArgv.some((f) => f.startsWith('--max-semi-space-size')) ? [] : [YOUNG_GENERATION_FLAG];
}

/** The deno flags for a child process. */
export function denoChildFlags() {
  const own = globalThis.Deno.env.get('DENO_V8_FLAGS');
  return own ? [] : [`--v8-flags=${YOUNG_GENERATION_FLAG}`];
}

/**
 * On Deno, restarts this process in place with the young generation capped, when it may (see
 * above); returns only when it does not restart.
 */
export function capYoungGeneration() {
  const Deno = globalThis.Deno;
  if (!Deno || Deno.build.os !== 'linux') return;
  try {
    if (Deno.env.get(MARK) || Deno.env.get('DENO_V8_FLAGS')) return;
    // What the restart itself needs (asking would prompt); the permissions of the run itself
    // carry over, since the command line does.
    const needs = [{ name: 'ffi' }, { name: 'env' }, { name: 'read', path: '/proc/self/cmdline' }];
    if (needs.some((p) => Deno.permissions.querySync(p).state !== 'granted')) return;
    const args = new TextDecoder().decode(Deno.readFileSync('/proc/self/cmdline')).split('\0').slice(0, -1);
    // `deno run [flags] script [args]`: the flag goes right after `run`. Other forms (deno
    // script.js, a compiled binary) are left as they are.
    if (args[1] !== 'run' || args.some((a) => a.startsWith('--v8-flags'))) return;
    const argv = [args[0], 'run', `--v8-flags=${YOUNG_GENERATION_FLAG}`, ...args.slice(2)];
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
    // No libc.so.6 (musl), no /proc, FFI refused: go on with V8's default.
  }
}
