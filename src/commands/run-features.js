// k6's feature flags (k6 v2.1/v2.2, internal/features): --features a,b (repeatable),
// K6_FEATURES (or, for native-histograms, its older variable
// K6_PROMETHEUS_RW_TREND_AS_NATIVE_HISTOGRAM) and the config file's `features`. As k6, one
// surface wins whole, the flag over the variables over the file, and the others are not read;
// each name is logged as k6 logs it, an unknown one as an error, and the run goes on (k6's
// words say it, so it is not ignored in silence). What each flag does is done where it acts:
// __ENV (src/script/runner.js), the run's tags (src/script/scenarios/option-tiers.js), the
// Prometheus output's Trends (below). `loadtest features [--json]` lists them as `k6 features`.

import { logEntry } from '../script/k6/console.js';
import { envBool, EnvError } from './run-env.js';
import { checkOptionTypes } from '../script/scenarios/option-types.js';
import { writeText, exit } from '../../runtimes/index.js';

// k6 v2.2's flags, every one Experimental, in the order `k6 features` lists them.
export const FEATURES = [
  ['freeze-env', 'Freeze __ENV object to prevent modifications from JS code'],
  ['merge-run-tags', 'Merge run tags across config layers instead of replacing'],
  ['native-histograms', 'Use native histograms for trend metrics'],
];
const KNOWN = new Set(FEATURES.map(([name]) => name));
const ALIAS = ['K6_PROMETHEUS_RW_TREND_AS_NATIVE_HISTOGRAM', 'native-histograms'];

const names = (values) => values.flatMap((v) => String(v).split(',')).map((s) => s.trim()).filter((s) => s !== '');

/**
 * The surface that wins and its names: `cli` (the --features values, undefined when not given),
 * `env(name)` (the run's variables, -e's over the system's, as k6 reads them), `config` (the
 * config file's options, or undefined). Throws an EnvError for a value k6 cannot read.
 */
function winner(cli, env, config) {
  if (cli !== undefined) return { source: 'cli', list: names(cli).map((name) => ({ name })) };
  const [variable, canonical] = ALIAS;
  // k6 skips a value of the old variable that is not Go's true; here one that is not Go's true or
  // false (a typo) is refused rather than dropped. Empty is unset, as envconfig reads it.
  const alias = env(variable) === undefined || env(variable) === '' ? false : envBool(env, variable);
  if (alias || env('K6_FEATURES') !== undefined) {
    const list = alias ? [{ name: canonical, alias: variable }] : [];
    return { source: 'env', list: [...list, ...names([env('K6_FEATURES') ?? '']).map((name) => ({ name }))] };
  }
  const json = config?.features;
  if (json === undefined || json === null) return null;
  // k6 reads the file before anything else: a list of strings or exit 104.
  try {
    checkOptionTypes({ features: json });
  } catch (err) {
    throw new EnvError(`--config: ${err.message}`);
  }
  return { source: 'json', list: names(json.map((v) => v ?? '')).map((name) => ({ name })) };
}

/**
 * The run's feature flags: { active: their names, sorted as k6 sorts them; lines: k6's log
 * lines of them, in its order }.
 */
export function resolveFeatures({ cli, env, config }) {
  const won = winner(cli, env, config);
  const active = new Set();
  const seen = new Set();
  const lines = [];
  for (const { name, alias } of won === null ? [] : won.list) {
    if (seen.has(name)) continue;
    seen.add(name);
    if (alias) lines.push(logEntry('warning', 'Legacy env var detected, use --features or K6_FEATURES instead', [['env', alias], ['feature', name], ['source', 'env_legacy_alias'], ['lifecycle', 'deprecated_alias']]));
    if (!KNOWN.has(name)) {
      lines.push(logEntry('error', 'Unknown feature flag', [['feature', name], ['outcome', 'unknown'], ['source', won.source]]));
      continue;
    }
    active.add(name);
    lines.push(logEntry('info', 'Experimental feature enabled', [['feature', name], ['lifecycle', 'experimental']]));
  }
  return { active: [...active].sort(), lines };
}

/**
 * `loadtest run`'s features, once its config file is read: k6's lines on stderr (`write(line)`),
 * the names in `cli.flags.features` for the run, and the Prometheus output's Trends as native
 * histograms or not as the flag says (the output's own reading of the variables is a load
 * run's: here the winning surface decides, as in k6).
 */
export function applyFeatures(cli, envVar, write) {
  const given = cli.flags.env || {};
  const env = (name) => (Object.hasOwn(given, name) ? given[name] : envVar(name));
  const { active, lines } = resolveFeatures({ cli: cli.features, env, config: cli.flags.config });
  for (const line of lines) write(line);
  cli.flags.features = active;
  for (const o of cli.outs) if (o.kind === 'prometheus-rw') o.config.nativeHistograms = active.includes('native-histograms');
}

/** `loadtest features [--json]`: the flags `loadtest run` takes, as `k6 features` lists them. */
export function featuresCommand(args) {
  const json = args.length === 1 && args[0] === '--json';
  if (args.length > (json ? 1 : 0)) {
    writeText('stderr', `loadtest features: '${args[0]}' is not taken (loadtest features [--json])\n`);
    return exit(2);
  }
  writeText('stdout', featuresText(json));
  return exit(0);
}

export function featuresText(json) {
  if (json) return JSON.stringify(FEATURES.map(([feature, description]) => ({ feature, lifecycle: 'Experimental', description })), null, 2) + '\n';
  const rows = [['FEATURE', 'LIFECYCLE', 'DESCRIPTION'], ...FEATURES.map(([name, description]) => [name, 'Experimental', description])];
  // Go's tabwriter, as k6 uses it: each column as wide as its widest cell, three spaces apart.
  const widths = [0, 1].map((i) => Math.max(...rows.map((r) => r[i].length)) + 3);
  return rows.map((r) => r[0].padEnd(widths[0]) + r[1].padEnd(widths[1]) + r[2]).join('\n') + '\n';
}
