// loadtest run's flags: k6 run's (with K6_* variables for those not given, src/commands/run-env.js)
// and ours, checked; a bad one is a UsageError, one line and exit code 2.

import mri from 'mri';
import { summaryMode as parseSummaryMode } from '../script/summary/summary.js';
import { checkTrendStats } from '../script/metrics/metrics.js';
import { flagSystemTags } from '../script/scenarios/system-tags.js';
import { parseDuration } from '../script/scenarios/duration.js';
import { readFile, envVar, envNames } from '../../runtimes/index.js';
import { parseShard, shardFromEnv } from '../run/options.js';
import { parseSecretSources } from '../script/secrets/secret-sources.js';
import { withEnv } from './run-env.js';
import { goBool } from '../outputs/settings.js';
import { parseOuts } from '../outputs/out-flags.js';

export const USAGE = `Usage: loadtest run [flags] SCRIPT

Runs a k6 script (an ES module with export default function and export const options);
SCRIPT '-' reads it from stdin, as k6 run - does.
  -u, --vus N                    VUs (with -d: constant-vus; with -i: shared-iterations)
  -d, --duration D               how long (30s, 1m30s)
  -i, --iterations N             iterations shared by the VUs
  -s, --stage D:N                a ramping-vus stage (repeat the flag for more)
  -e, --env K=V                  a variable of __ENV (repeat)
      --include-system-env-vars[=false]  the system's variables in __ENV (k6 run's default: yes)
  -c, --config F                 k6's options as JSON, under the script's (as k6's --config)
      --tag K=V                  a tag on every sample (repeat)
      --system-tags L            only these of k6's system tags on samples (proto,subproto,status,
                                 method,url,name,group,check,error,error_code,tls_version,
                                 scenario,service,expected_response by default; also vu,iter,ip,
                                 ocsp_status)
  -q, --quiet                    no progress line (on stderr, as a load run's)
      --summary-export F         the summary's figures as JSON (k6's legacy export)
      --new-machine-readable-summary  k6's new shape for handleSummary(data) and
                                 --summary-export (as K6_NEW_MACHINE_READABLE_SUMMARY)
      --html F                   the run's page: plots, checks, thresholds, scenarios (ours)
      --summary-trend-stats L    the Trend statistics shown (avg,min,med,max,p(90),p(95))
      --out json=F | csv=F       every sample as k6 writes it (repeat for both)
      --out influxdb[=URL]       every sample into InfluxDB v1, as k6 writes it (K6_INFLUXDB_*)
      --out experimental-prometheus-rw  Prometheus remote write, as k6 (K6_PROMETHEUS_RW_*)
      --out opentelemetry        OTLP over gRPC or HTTP/protobuf, as k6 (K6_OTEL_*)
      --no-thresholds            thresholds not checked
      --no-summary               no end-of-test summary (k6 v1's; v2's is --summary-mode=disabled)
      --summary-mode M           the summary: compact (the default), full (also each group
                                 and scenario), disabled, or legacy (k6 v0's, which k6 v2 removed)
      --insecure-skip-tls-verify certificates not checked
      --no-color                 no colour (as NO_COLOR or K6_NO_COLOR; handleSummary's options.noColor)
      --summary-time-unit U      the summary's times in s, ms or us (k6's summaryTimeUnit)
  -v, --verbose                  console.debug's lines too (level=debug)
      --no-usage-report          as k6's (loadtest never reports usage)
      --compatibility-mode M     extended (the default) or experimental_enhanced: both here
      --secret-source S          k6/secrets' source (repeat; or K6_SECRET_SOURCE): mock=K=V,...,
                                 file=PATH or url=urlTemplate=URL,... (K6_SECRET_SOURCE_URL_*),
                                 each with name=NAME and default; their values hidden in the log
      --features A,B             k6's feature flags (repeat): freeze-env, merge-run-tags,
                                 native-histograms (loadtest features lists them; K6_FEATURES)
  k6's options as flags (doc/scripts.md#options): --http-debug[=full], --no-connection-reuse,
      --no-vu-connection-reuse, -w/--throw, --rps N, --batch N, --batch-per-host N,
      --min-iteration-duration D, --blacklist-ip CIDR, --block-hostnames P, --user-agent S,
      --max-redirects N, --discard-response-bodies, --no-setup, --no-teardown
      --metrics HOST:PORT        the run's figures for a Prometheus, as a load run's (ours)
      --metrics-linger S         keep --metrics and --dashboard up S seconds after the run (ours)
      --dashboard [PORT]         a live page of the run at http://127.0.0.1:PORT/ (ours)
      --cores N                  the VUs, iterations and rates shared by N processes (ours)
      --shard I/N                this machine's share of a run over N (ours; with --start-at)
      --start-at MS              start at this wall-clock time, epoch ms (ours)
      --result F                 this shard's figures, for loadtest merge (ours)
      --on swarm|kubernetes --shards N   the run as N shards there, merged (ours; doc/distributed.md)
k6's K6_* variables (K6_VUS, K6_DURATION, ...) as k6 takes them: over the script's options,
under the flags (doc/scripts.md#environment-variables).
Exit codes as k6's: 99 a threshold failed, 104 bad options, 107 a script error, 108 aborted.`;

const STRING_FLAGS = ['vus', 'duration', 'iterations', 'stage', 'env', 'tag', 'summary-export', 'summary-trend-stats', 'out', 'html', 'metrics', 'metrics-linger', 'dashboard', 'cores', 'shard', 'start-at', 'result', 'config',
  'http-debug', 'rps', 'batch', 'batch-per-host', 'min-iteration-duration', 'blacklist-ip', 'block-hostnames', 'user-agent', 'max-redirects', 'summary-mode', 'secret-source',
  'summary-time-unit', 'compatibility-mode', 'system-tags', 'features'];
// mri reads --no-thresholds as thresholds: false (k6's --no-color as color: false).
// --no-usage-report: loadtest reports nothing anywhere, as k6 with it.
const BOOLEAN_FLAGS = ['quiet', 'thresholds', 'summary', 'insecure-skip-tls-verify', 'help', 'connection-reuse', 'vu-connection-reuse', 'throw', 'discard-response-bodies', 'setup', 'teardown', 'include-system-env-vars', 'color', 'usage-report', 'verbose',
  'new-machine-readable-summary'];
const ALIASES = { u: 'vus', d: 'duration', i: 'iterations', s: 'stage', e: 'env', q: 'quiet', h: 'help', w: 'throw', c: 'config', v: 'verbose' };
// k6's --compatibility-mode: the script's JavaScript is the runtime's, TypeScript too (k6's
// experimental_enhanced); k6's `base` (ES5.1 without its extensions) is not done here.
const COMPATIBILITY_MODES = ['extended', 'experimental_enhanced'];

export class UsageError extends Error {}

const list = (v) => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
const last = (v) => (Array.isArray(v) ? v[v.length - 1] : v);

function pairs(values, flag) {
  const out = {};
  for (const v of list(values)) {
    const s = String(v);
    const eq = s.indexOf('=');
    if (eq <= 0) throw new UsageError(`${flag} '${s}' must be KEY=VALUE`);
    out[s.slice(0, eq)] = s.slice(eq + 1);
  }
  return out;
}

// A duration flag's value as given (30s, 1m30s), checked; undefined when not given.
function durationFlag(args, name) {
  const v = last(args[name]);
  if (v === undefined) return undefined;
  // Go's time.ParseDuration, which k6's flags use: a unit is needed.
  if (/^\d+(\.\d+)?$/.test(String(v).trim())) throw new UsageError(`invalid argument "${v}" for "${name === 'duration' ? '-d, --duration' : `--${name}`}" flag: time: missing unit in duration "${v}"`);
  try {
    parseDuration(v, `--${name}`);
  } catch (err) {
    throw new UsageError(err.message);
  }
  return String(v);
}

// --summary-mode: k6 v1's, compact by default; --no-summary is disabled.
function summaryMode(args) {
  try {
    return parseSummaryMode(args['summary-mode']);
  } catch (err) {
    throw new UsageError(err.message);
  }
}

// --new-machine-readable-summary (or its variable): k6 v1 left the legacy mode's data as it
// was, k6 v2 has no legacy mode: the two together are refused rather than one ignored.
function machineReadableFlag(args) {
  const wanted = args['new-machine-readable-summary'] === true;
  if (wanted && summaryMode(args) === 'legacy') throw new UsageError('the new machine-readable summary (--new-machine-readable-summary, K6_NEW_MACHINE_READABLE_SUMMARY) is not for --summary-mode=legacy: k6 v1 ignores it there, k6 v2 has no legacy mode');
  return wanted;
}

// A whole-number flag's value, checked; undefined when not given.
function wholeFlag(args, name) {
  const v = last(args[name]);
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(String(v))) throw new UsageError(`--${name} must be a whole number, not '${v}'`);
  return Number(v);
}

// k6 run's flags for its options: each the option of the same name, over the script's.
function k6OptionFlags(args, flags) {
  const debug = last(args['http-debug']);
  if (debug !== undefined) {
    if (debug !== 'headers' && debug !== 'full') throw new UsageError(`--http-debug '${debug}': headers or full`);
    flags.httpDebug = debug;
  }
  if (args['connection-reuse'] === false) flags.noConnectionReuse = true;
  if (args['vu-connection-reuse'] === false) flags.noVUConnectionReuse = true;
  if (args.throw) flags.throw = true;
  if (args['discard-response-bodies']) flags.discardResponseBodies = true;
  if (args.setup === false) flags.noSetup = true;
  if (args.teardown === false) flags.noTeardown = true;
  flags.rps = wholeFlag(args, 'rps');
  flags.batch = wholeFlag(args, 'batch');
  flags.batchPerHost = wholeFlag(args, 'batch-per-host');
  flags.maxRedirects = wholeFlag(args, 'max-redirects');
  flags.minIterationDuration = durationFlag(args, 'min-iteration-duration');
  const commaList = (v) => list(v).flatMap((x) => String(x).split(',')).map((x) => x.trim()).filter((x) => x);
  if (args['blacklist-ip'] !== undefined) flags.blacklistIPs = commaList(args['blacklist-ip']);
  if (args['block-hostnames'] !== undefined) flags.blockHostnames = commaList(args['block-hostnames']);
  if (args['user-agent'] !== undefined) flags.userAgent = String(last(args['user-agent']));
  if (args['summary-time-unit'] !== undefined) flags.summaryTimeUnit = String(last(args['summary-time-unit']));
  if (args['system-tags'] !== undefined) flags.systemTags = flagSystemTags(list(args['system-tags']));
  const mode = last(args['compatibility-mode']);
  if (mode !== undefined && !COMPATIBILITY_MODES.includes(String(mode))) throw new UsageError(`--compatibility-mode '${mode}': extended or experimental_enhanced here (k6's base is not)`);
  if (args.verbose) flags.verbose = true;
  if (args.config !== undefined) flags.configFile = String(last(args.config));
}

// -c/--config FILE: k6's options as JSON, under the script's own (k6's order: the file, then the
// script, then the environment and the flags).
export async function readConfig(flags) {
  const file = flags.configFile;
  delete flags.configFile;
  if (file === undefined) return;
  let text;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new UsageError(`--config ${file}: cannot read it (${err.code || err.message})`);
  }
  let config;
  try {
    config = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`--config ${file}: not JSON (${err.message})`);
  }
  if (!config || typeof config !== 'object' || Array.isArray(config)) throw new UsageError(`--config ${file}: an object of k6 options ({ "vus": 10, ... })`);
  flags.config = config;
}

// --dashboard [PORT]: a value that is not a port is the next argument (the script), given back.
function dashboardFlag(args) {
  if (args.dashboard === undefined) return null;
  const v = String(last(args.dashboard));
  if (!/^\d+$/.test(v)) {
    if (v !== '') args._.unshift(v);
    return 0;
  }
  const port = Number(v);
  if (port > 65535) throw new UsageError(`--dashboard '${v}': expected a port, 0 to 65535`);
  return port;
}

// Where and when this process runs its part: --cores, --shard, --start-at, and --result (a shard's).
function placementFlags(args) {
  const cores = wholeFlag(args, 'cores') ?? 1;
  if (cores < 1) throw new UsageError('--cores must be at least 1');
  let shard = null;
  if (args.shard !== undefined) {
    try {
      const given = String(last(args.shard));
      shard = parseShard(given === 'env' ? shardFromEnv(envVar) : given);
    } catch (err) {
      throw new UsageError(`--${err.message}`);
    }
  }
  const startAt = wholeFlag(args, 'start-at') ?? 0;
  if (startAt && startAt - Date.now() > 86400000) throw new UsageError(`--start-at ${startAt} is more than a day from now (epoch milliseconds)`);
  const result = last(args.result);
  if (result !== undefined && shard === null) throw new UsageError('--result is a shard\'s figures for loadtest merge: give --shard I/N');
  return { cores, shard, startAt, result: result === undefined ? null : String(result) };
}

// -i, -d and -s: how much the VUs do, over the script's options.
function workloadFlags(args, flags) {
  flags.iterations = wholeFlag(args, 'iterations');
  flags.duration = durationFlag(args, 'duration');
  if (args.stage !== undefined) {
    flags.stages = list(args.stage).map((s) => {
      const m = /^([^:]+):(\d+)$/.exec(String(s));
      if (!m) throw new UsageError(`--stage '${s}' must be DURATION:TARGET (30s:10)`);
      if (/^\d+(\.\d+)?$/.test(m[1])) throw new UsageError(`--stage '${s}': time: missing unit in duration "${m[1]}"`);
      try {
        parseDuration(m[1], '--stage');
      } catch (err) {
        throw new UsageError(err.message);
      }
      return { duration: m[1], target: Number(m[2]) };
    });
  }
}

// -e, --tag, --no-thresholds, --insecure-skip-tls-verify and --summary-trend-stats.
function scriptFlags(args, flags) {
  flags.env = pairs(args.env, '--env');
  const tags = pairs(args.tag, '--tag');
  if (Object.keys(tags).length) flags.tags = tags;
  if (args.thresholds === false) flags.noThresholds = true;
  if (args['insecure-skip-tls-verify']) flags.insecureSkipTLSVerify = true;
  if (args['summary-trend-stats'] !== undefined) {
    try {
      flags.summaryTrendStats = checkTrendStats(String(last(args['summary-trend-stats'])).split(',').map((s) => s.trim()));
    } catch (err) {
      throw new UsageError(`--summary-trend-stats: ${err.message}`);
    }
  }
}

// A SecretSourceError is thrown as it is: k6's exit code is its own (255).
function secretSourcesFlag(args) {
  const env = { envVar, envNames };
  if (args['secret-source'] !== undefined) return parseSecretSources(list(args['secret-source']).map(String), env);
  // k6 v1.7: one source, the flag's syntax; given at all (empty too) unless the flag is.
  const variable = envVar('K6_SECRET_SOURCE');
  return variable === undefined ? [] : parseSecretSources([variable], env, 'K6_SECRET_SOURCE');
}

function outFlags(args, warnings) {
  const given = list(args.out);
  // K6_WEB_DASHBOARD=true: k6 adds its web dashboard to the outputs.
  const asked = envVar('K6_WEB_DASHBOARD');
  if (asked !== undefined && asked !== '' && goBool(asked) === undefined) throw new UsageError(`K6_WEB_DASHBOARD: '${asked}' is not true or false`);
  if (goBool(asked) && !given.some((o) => /^web-dashboard(=|$)/.test(String(o)))) given.push('web-dashboard');
  try {
    return parseOuts(given, envVar, envNames(), { webDashboard: true, warn: (line) => warnings.push(line) });
  } catch (err) {
    throw new UsageError(err.message);
  }
}

// k6's web dashboard is --dashboard and --html here: a flag given wins.
function withWebDashboard(outs, cli) {
  const web = outs.find((o) => o.kind === 'web-dashboard');
  if (web === undefined) return outs;
  const { port, periodSeconds, export: report } = web.config;
  if (port >= 0 && cli.dashboard === null) cli.dashboard = port;
  if (report !== '' && cli.html === null) cli.html = report;
  cli.dashboardPeriod = periodSeconds;
  return outs.filter((o) => o !== web);
}

const STDIN_ARG = '\0stdin';
const stdinArg = (v) => (v === STDIN_ARG ? '-' : v);

export function flagsOf(argv) {
  // --http-debug alone is 'headers' (k6: a value only after '=').
  // '-', the script on stdin (k6 run -), which mri would drop, is kept under another name.
  argv = argv.map((a) => (a === '--http-debug' ? '--http-debug=headers' : a === '-' ? STDIN_ARG : a));
  // --flag= is the empty value, as pflag reads it (--system-tags= keeps no system tag); mri
  // would take the next argument.
  argv = argv.flatMap((a) => (/^--[^=]+=$/.test(a) && STRING_FLAGS.includes(a.slice(2, -1)) ? [a.slice(0, -1), ''] : [a]));
  const args = mri(argv, { string: STRING_FLAGS, boolean: BOOLEAN_FLAGS, alias: ALIASES, default: { thresholds: true, summary: true } });
  for (const k of Object.keys(args)) args[k] = Array.isArray(args[k]) ? args[k].map(stdinArg) : stdinArg(args[k]);
  const known = new Set([...STRING_FLAGS, ...BOOLEAN_FLAGS, ...Object.keys(ALIASES), '_']);
  for (const k of Object.keys(args)) if (!known.has(k)) throw new UsageError(`unknown flag ${k.length === 1 ? '-' : '--'}${k} (see loadtest run --help)`);
  if (args.help) return { help: true };
  // K6_* variables for the flags not given, and the options' own tier (k6's precedence).
  const env = withEnv(args, envVar);
  const dashboard = dashboardFlag(args);
  if (args._.length !== 1) throw new UsageError(args._.length ? `one script, not ${args._.length}: ${args._.join(' ')}` : 'missing the script to run (loadtest run script.js)');
  const flags = { vus: wholeFlag(args, 'vus') };
  const { cores, shard, startAt, result } = placementFlags(args);
  workloadFlags(args, flags);
  scriptFlags(args, flags);
  k6OptionFlags(args, flags);
  if (Object.keys(env.options).length) flags.envOptions = env.options;
  if (!env.systemEnv) flags.systemEnv = false;
  for (const k of Object.keys(flags)) if (flags[k] === undefined) delete flags[k];
  const secretSources = secretSourcesFlag(args);
  const outs = outFlags(args, env.warnings);
  // Full mode: the run keeps each group's and scenario's figures apart (src/script/summary/breakdown.js).
  if (summaryMode(args) === 'full') flags.summaryMode = 'full';
  const html = last(args.html);
  if (html === '') throw new UsageError('--html needs a file name');
  const metrics = last(args.metrics);
  const linger = last(args['metrics-linger']);
  if (linger !== undefined && !(Number(linger) >= 0)) throw new UsageError(`--metrics-linger must be a number of seconds, not '${linger}'`);
  const cli = {
    metrics: metrics === undefined ? null : String(metrics),
    metricsLinger: linger === undefined ? 0 : Number(linger),
    dashboard,
    cores,
    shard,
    startAt,
    result,
    script: String(args._[0]),
    flags,
    quiet: Boolean(args.quiet),
    noSummary: args.summary === false || summaryMode(args) === 'disabled',
    summaryMode: summaryMode(args),
    summaryExport: last(args['summary-export']),
    machineReadable: machineReadableFlag(args),
    // k6's feature flags: each --features value, read with the variables and the config file's
    // once that is read (src/commands/run-features.js).
    features: args.features === undefined ? undefined : list(args.features).map(String),
    html: html === undefined ? null : String(html),
    outs,
    secretSources,
    noColor: env.noColor,
    envWarnings: env.warnings,
    dashboardPeriod: 1,
  };
  cli.outs = withWebDashboard(outs, cli);
  return cli;
}
