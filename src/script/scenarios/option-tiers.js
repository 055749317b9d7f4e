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
  const tiers = [flags.config ? k6Names(flags.config) : {}, k6Names(scriptOptions), flags.envOptions || {}, cliOptions(flags)];
  let o = overlay(tiers[0], tiers[1], 'script', warn);
  if (flags.envOptions) o = overlay(o, flags.envOptions, 'env', warn);
  o = overlay(o, tiers[3], 'cli', warn);
  const tags = runTags(o.tags, tiers, flags.features || []);
  if (tags === undefined) delete o.tags;
  else o.tags = tags;
  return { ...o };
}

// The run's tags under k6 v2.2's feature flags: merge-run-tags makes them every tier's, key by
// key (the higher tier's value on a clash) where a tier's tags replace the lower's whole; then
// the flags in force tag every sample k6_feature_<name>=true (and a k6_feature_ tag given is
// dropped). Undefined when there are none.
function runTags(tags, tiers, features) {
  if (features.includes('merge-run-tags')) tags = Object.assign({}, ...tiers.map((t) => t.tags));
  if (!features.length && (tags === undefined || tags === null || !Object.keys(tags).some((k) => k.startsWith('k6_feature_')))) return tags;
  const out = {};
  for (const [k, v] of Object.entries(tags || {})) if (!k.startsWith('k6_feature_')) out[k] = v;
  for (const name of features) out[`k6_feature_${name.replaceAll('-', '_')}`] = 'true';
  return Object.keys(out).length ? out : undefined;
}
