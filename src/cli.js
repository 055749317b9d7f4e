#!/usr/bin/env node
// @ts-self-types="../types/cli.d.ts"
// The loadtest command. A subcommand's module is loaded when it is the one asked for, and the
// load run's (commands/load.js) only for a load run: `loadtest run` starts without the load
// run's parser, report and servers, a start every scripted run pays. Every problem ends in one
// line on stderr and a non-zero exit (2: bad usage, 1: the run failed), never a stack trace.

import { restartDeno } from '../runtimes/processes/deno-restart.js';

// Deno: a run restarts in place with the flags it wants (runtimes/processes/deno-restart.js)
// before anything else loads, since execve throws away what the first process did: with the
// runtime's modules loaded first (Deno's node: modules behind them), a run's start took 0.50-0.64 s
// of CPU, 0.21-0.27 without the restart (deno 2.9.5). Nothing of its own imports a node: module.
restartDeno();
const { argv, exit, capYoungGeneration, writeStdioWhole } = await import('../runtimes/index.js');
writeStdioWhole();

async function main() {
  const [first] = argv();
  if (first === 'merge') return (await import('./commands/merge.js')).mergeCommand(argv().slice(1));
  if (first === 'run') return (await import('./commands/run.js')).runCommand(argv().slice(1));
  // k6's `k6 features`: the feature flags loadtest run takes (--features, K6_FEATURES).
  if (first === 'features') return (await import('./commands/run-features.js')).featuresCommand(argv().slice(1));
  if (first === 'compare') return (await import('./compare/command.js')).compareCommand(argv().slice(1));
  // Node: a load run's young generation stays at its first size, from before its modules load
  // (runtimes/processes/young-generation.js); deno's is capped at its restart above.
  capYoungGeneration();
  return (await import('./commands/load.js')).loadCommand();
}

main().catch((err) => {
  console.error(`loadtest: ${err && err.message ? err.message : String(err)}`);
  exit(1);
});
