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
// command line or DENO_V8_FLAGS names V8 flags of the user's own. Node 20 cannot replace its own
// process, but V8 reads its growth factor each time the young generation grows: the CLI on node
// sets it to 1 as it starts (NODE_GROWTH_FLAG), which keeps the semi-spaces at their first 1 MB.
// At 10 000 connections `node src/cli.js` had grown them to 16 MB each, 3.2 KiB a connection
// (bench/README.md, "10 000 connections on node").

export const YOUNG_GENERATION_FLAG = '--max-semi-space-size=2';
export const NODE_GROWTH_FLAG = '--semi-space-growth-factor=1';

/** Whether node's own process should stop its young generation growing: its user named no size. */
export function nodeCapsItself(execArgv, nodeOptions = '') {
  return !execArgv.some(namesYoungGeneration) && !nodeOptions.split(/\s+/).some(namesYoungGeneration);
}

const namesYoungGeneration = (f) => /^--(max|min)-semi-space-size|^--semi-space-growth-factor/.test(f.replaceAll('_', '-'));

/** The node flags a child process gets besides its parent's (execArgv): the cap unless they name one. */
export function nodeChildFlags(execArgv) {
  return execArgv.some(namesYoungGeneration) ? [] : [YOUNG_GENERATION_FLAG];
}

/** The deno flags for a child process; `smallHeap`: a scripted run's (deno-restart.js). */
export function denoChildFlags(smallHeap = false) {
  const own = globalThis.Deno.env.get('DENO_V8_FLAGS');
  return own ? [] : [`--v8-flags=${YOUNG_GENERATION_FLAG}${smallHeap ? ',--optimize-for-size' : ''}`];
}
