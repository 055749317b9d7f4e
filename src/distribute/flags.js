// `--on swarm|kubernetes --shards N`: the coordinator's flags, taken out of the command line;
// what is left is each shard's command line, to which its share is added (--shard env, a common
// --start-at, its result as JSON on stdout).

export class DistributeError extends Error {}

const VALUED = new Set(['on', 'shards', 'image', 'runtime', 'start-in', 'json-file', 'hdr-log', 'html', 'threshold', 'summary-export']);
const BOOLEAN = new Set(['dry-run', 'json']);
// Set by the coordinator for every shard, or served on a port (which the shards of one machine
// would all want).
const REFUSED = ['shard', 'start-at', 'result', 'dashboard', 'metrics', 'metrics-linger', 'out', 'log-file'];
const WHY = { shard: 'the coordinator gives each shard its share', 'start-at': 'the coordinator gives the shards their start', result: 'the coordinator reads each shard\'s result', dashboard: 'the shards would all serve it', metrics: 'the shards would all serve it', 'metrics-linger': 'the shards would all serve it', out: 'the shards would each write the file over the others\'', 'log-file': 'the shards would each write the file over the others\'' };
const ENGINES = ['swarm', 'kubernetes'];
const RUNTIMES = ['node', 'bun', 'deno'];

/** Whether a command line asks for --on (or gives --shards, which needs it). */
export const wantsDistribution = (argv) => argv.some((a) => /^--(on|shards)(=|$)/.test(a));

/**
 * Splits `argv` (a load run's, or `run`'s after the word): { on, shards, image, runtime, dryRun,
 * startInSeconds, output: { json, jsonFile, hdrLog, html, summaryExport }, thresholds, rest }.
 */
export function distributeFlags(argv) {
  const got = { threshold: [] };
  const rest = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const m = /^--([a-z-]+)(?:=(.*))?$/.exec(a);
    const name = m && m[1];
    if (m && (VALUED.has(name) || BOOLEAN.has(name))) {
      let value = true;
      if (VALUED.has(name)) {
        value = m[2] !== undefined ? m[2] : argv[++i];
        if (value === undefined || value === '') throw new DistributeError(`--${name} needs a value`);
      }
      if (name === 'threshold') got.threshold.push(value);
      else got[name] = value;
      continue;
    }
    if (m && REFUSED.includes(name)) throw new DistributeError(`--${name} is not for --on: ${WHY[name]}`);
    rest.push(a);
  }
  if (got.on === undefined) throw new DistributeError(`--shards needs --on swarm or --on kubernetes`);
  if (!ENGINES.includes(got.on)) throw new DistributeError(`--on '${got.on}': swarm or kubernetes`);
  if (got.shards === undefined) throw new DistributeError(`--on ${got.on} needs --shards N`);
  const shards = Number(got.shards);
  if (!Number.isInteger(shards) || shards < 1 || shards > 1000) throw new DistributeError(`--shards '${got.shards}': a whole number from 1 to 1000`);
  if (got.runtime !== undefined && !RUNTIMES.includes(got.runtime)) throw new DistributeError(`--runtime '${got.runtime}': node, bun or deno`);
  // Kubernetes pulls the image onto its nodes first: more time by default.
  const startIn = got['start-in'] === undefined ? (got.on === 'kubernetes' ? 30 : 5) : Number(got['start-in']);
  if (!(startIn >= 0 && startIn <= 3600)) throw new DistributeError(`--start-in '${got['start-in']}': seconds, 0 to 3600`);
  if (got['dry-run'] && got.on !== 'kubernetes') throw new DistributeError('--dry-run prints a Kubernetes Job: it is for --on kubernetes');
  return {
    on: got.on,
    shards,
    image: got.image === undefined ? null : String(got.image),
    runtime: got.runtime === undefined ? null : got.runtime,
    dryRun: Boolean(got['dry-run']),
    startInSeconds: startIn,
    output: { json: Boolean(got.json), jsonFile: got['json-file'], hdrLog: got['hdr-log'], html: got.html, summaryExport: got['summary-export'] },
    thresholds: got.threshold,
    rest,
  };
}
