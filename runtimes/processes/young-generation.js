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

// A scripted run on Deno (`loadtest run`, restarted with them: deno-restart.js; its --cores
// children alike) wants the opposite young generation: a request's VU, iteration, Request and
// Response make some 4 KB of garbage, and with a 1 MB young generation (what --optimize-for-size
// implies, whatever the semi-space flags say) V8 scavenged every ~215 requests, 0.2-0.3 ms each
// and more with its helper thread on the same core. Kept at 16 MB, from the start, it scavenges
// some 15 times less often. A small heap is still what thousands of VUs need, and it is V8's
// memory saver mode, not the young generation's size, that keeps their old generation small:
// 5000 VUs (bench/scripts/memory.js) peaked at 198 MB with these flags, 171 with
// --optimize-for-size, 373-412 with neither, at any semi-space size (bench/README.md, "Deno's
// scripted heap"). Deno cannot take V8 flags once started, so one set serves every scale.
export const SCRIPT_HEAP_FLAGS = ['--min-semi-space-size=16', '--max-semi-space-size=16', '--memory-saver-mode'];
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

/** The deno flags for a child process; `scripted`: a scripted run's (SCRIPT_HEAP_FLAGS). */
export function denoChildFlags(scripted = false) {
  const own = globalThis.Deno.env.get('DENO_V8_FLAGS');
  return own ? [] : [`--v8-flags=${scripted ? SCRIPT_HEAP_FLAGS.join(',') : YOUNG_GENERATION_FLAG}`];
}
