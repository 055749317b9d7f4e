// The run's options from k6's tiers, lowest first: --config's file, the script's, the K6_*
// variables (src/commands/run-env.js), the command line. As k6 (lib/options.go Apply): a tier
// that names duration, iterations, stages or scenarios replaces what the tiers under it said of
// the run's shape; vus alone changes only the VUs (it never drops the script's scenarios).

import { k6Names } from './options.js';

const SHAPE = ['duration', 'iterations', 'stages', 'scenarios'];

// The flags that are k6 options of the same name (src/commands/run.js).
const OPTION_FLAGS = ['vus', 'duration', 'iterations', 'stages', 'summaryTrendStats', 'summaryTimeUnit', 'noThresholds', 'insecureSkipTLSVerify', 'maxRedirects', 'userAgent', 'discardResponseBodies', 'httpDebug', 'noConnectionReuse', 'noVUConnectionReuse', 'throw', 'rps', 'batch', 'batchPerHost', 'minIterationDuration', 'blacklistIPs', 'blockHostnames', 'noSetup', 'noTeardown', 'systemTags'];

/** `upper` over `lower`, with k6's warning (its words) when scenarios below are dropped. */
export function overlay(lower, upper, level, warn) {
  const o = { ...lower };
  if (SHAPE.some((k) => upper[k] !== undefined)) {
    if (o.scenarios !== undefined) warn(`"${level}" level configuration overrode scenarios configuration entirely`);
    for (const k of SHAPE) delete o[k];
  }
  for (const [k, v] of Object.entries(upper)) if (v !== undefined) o[k] = v;
  return o;
}

/** The options `flags` (k6's command line) give: the k6 options among them. */
export function cliOptions(flags) {
  const o = {};
  for (const k of OPTION_FLAGS) if (flags[k] !== undefined) o[k] = flags[k];
  // As k6: --tag's tags replace the options' whole.
  if (flags.tags) o.tags = { ...flags.tags };
  return o;
}

/**
 * The options of every tier (`flags.config`: the file's; `flags.envOptions`: the K6_*
 * variables'), each over the one under it. A fresh object: `delete` leaves V8's in dictionary
 * mode, where each of the reads a request and an iteration make of the options is a hash look-up.
 */
export function consolidated(scriptOptions, flags, warn) {
  let o = flags.config ? k6Names(flags.config) : {};
  o = overlay(o, k6Names(scriptOptions), 'script', warn);
  if (flags.envOptions) o = overlay(o, flags.envOptions, 'env', warn);
  return { ...overlay(o, cliOptions(flags), 'cli', warn) };
}
