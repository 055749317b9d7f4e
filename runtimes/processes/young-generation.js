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
// the CLI on Deno restarts itself once with it, in place (runtimes/processes/deno-restart.js), unless the
// command line or DENO_V8_FLAGS names V8 flags of the user's own. Node 20 cannot replace its own process,
// so `node src/cli.js` keeps V8's default (its growth is smaller: about 3 MB once);
// `node --max-semi-space-size=2 src/cli.js` caps it.

export const YOUNG_GENERATION_FLAG = '--max-semi-space-size=2';

/** The node flags a child process gets besides its parent's (execArgv): the cap unless they name one. */
export function nodeChildFlags(execArgv) {
  return execArgv.some((f) => f.startsWith('--max-semi-space-size')) ? [] : [YOUNG_GENERATION_FLAG];
}

/** The deno flags for a child process; `smallHeap`: a scripted run's (deno-restart.js). */
export function denoChildFlags(smallHeap = false) {
  const own = globalThis.Deno.env.get('DENO_V8_FLAGS');
  return own ? [] : [`--v8-flags=${YOUNG_GENERATION_FLAG}${smallHeap ? ',--optimize-for-size' : ''}`];
}
