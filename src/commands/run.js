// loadtest run [flags] SCRIPT: a k6 script, unmodified, with k6's flags (which win over the
// script's options) and k6's summary, summary export and exit codes (src/script/).

import mri from 'mri';
import { transformModule, ScriptError } from '../script/transform/transform.js';
import { runScript, ScriptRunError, EXIT, messageOf, abortedByThresholds } from '../script/runner.js';
import { crossedMetrics } from '../script/metrics/thresholds.js';
import { summaryText, summaryMode as parseSummaryMode } from '../script/summary/summary.js';
import { facilitiesOf, openOutputs } from '../../runtimes/scripts/host.js';
import { checkTrendStats } from '../script/metrics/metrics.js';
import { parseDuration } from '../script/scenarios/duration.js';
import { loadScript, readFile, writeFile, writeText, wantsColor, exit, onInterrupt, terminal, envVar, runtime, spawnChild, pathOf, availableCores } from '../../runtimes/index.js';
import { startProgress } from '../results/progress.js';
import { runSeconds } from '../results/html/dashboard-seconds.js';
import { save } from './output.js';
import { VERSION } from '../version.js';
import { parseShard, shardFromEnv } from '../run/options.js';
import { wantsDistribution } from '../distribute/flags.js';
import { parseSecretSources, loadSecretSources } from '../script/secrets/secret-sources.js';
import { Secrets } from '../script/secrets/secrets.js';
import { withEnv, EnvError } from './run-env.js';

const WORKER = pathOf(new URL('../script/worker.js', import.meta.url));

const USAGE = `Usage: loadtest run [flags] SCRIPT

Runs a k6 script (an ES module with export default function and export const options).
  -u, --vus N                    VUs (with -d: constant-vus; with -i: shared-iterations)
  -d, --duration D               how long (30s, 1m30s)
  -i, --iterations N             iterations shared by the VUs
  -s, --stage D:N                a ramping-vus stage (repeat the flag for more)
  -e, --env K=V                  a variable of __ENV (repeat)
      --include-system-env-vars[=false]  the system's variables in __ENV (k6 run's default: yes)
  -c, --config F                 k6's options as JSON, under the script's (as k6's --config)
      --tag K=V                  a tag on every sample (repeat)
  -q, --quiet                    no progress line (on stderr, as a load run's)
      --summary-export F         the summary's figures as JSON (k6's legacy export)
      --html F                   the run's page: plots, checks, thresholds, scenarios (ours)
      --summary-trend-stats L    the Trend statistics shown (avg,min,med,max,p(90),p(95))
      --out json=F | csv=F       every sample as k6 writes it (repeat for both)
      --no-thresholds            thresholds not checked
      --no-summary               no end-of-test summary
      --summary-mode M           k6 v1's summary: compact (the default), full (also each group
                                 and scenario), legacy (k6 v0's) or disabled
      --insecure-skip-tls-verify certificates not checked
      --no-color                 no colour (as NO_COLOR or K6_NO_COLOR; handleSummary's options.noColor)
      --summary-time-unit U      the summary's times in s, ms or us (k6's summaryTimeUnit)
  -v, --verbose                  console.debug's lines too (level=debug)
      --no-usage-report          as k6's (loadtest never reports usage)
      --compatibility-mode M     extended (the default) or experimental_enhanced: both here
      --secret-source S          k6/secrets' source (repeat): mock=K=V,... or file=PATH, each
                                 with name=NAME and default; their values hidden in the log
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
  'summary-time-unit', 'compatibility-mode'];
// mri reads --no-thresholds as thresholds: false (k6's --no-color as color: false).
// --no-usage-report: loadtest reports nothing anywhere, as k6 with it.
const BOOLEAN_FLAGS = ['quiet', 'thresholds', 'summary', 'insecure-skip-tls-verify', 'help', 'connection-reuse', 'vu-connection-reuse', 'throw', 'discard-response-bodies', 'setup', 'teardown', 'include-system-env-vars', 'color', 'usage-report', 'verbose'];
const ALIASES = { u: 'vus', d: 'duration', i: 'iterations', s: 'stage', e: 'env', q: 'quiet', h: 'help', w: 'throw', c: 'config', v: 'verbose' };
// k6's --compatibility-mode: the script's JavaScript is the runtime's, TypeScript too (k6's
// experimental_enhanced); k6's `base` (ES5.1 without its extensions) is not done here.
const COMPATIBILITY_MODES = ['extended', 'experimental_enhanced'];

class UsageError extends Error {}

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

// k6 run's flags for its options: each the option of the same name, over the script's.
function k6OptionFlags(args, flags, whole) {
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
  flags.rps = whole('rps');
  flags.batch = whole('batch');
  flags.batchPerHost = whole('batch-per-host');
  flags.maxRedirects = whole('max-redirects');
  flags.minIterationDuration = durationFlag(args, 'min-iteration-duration');
  const commaList = (v) => list(v).flatMap((x) => String(x).split(',')).map((x) => x.trim()).filter((x) => x);
  if (args['blacklist-ip'] !== undefined) flags.blacklistIPs = commaList(args['blacklist-ip']);
  if (args['block-hostnames'] !== undefined) flags.blockHostnames = commaList(args['block-hostnames']);
  if (args['user-agent'] !== undefined) flags.userAgent = String(last(args['user-agent']));
  if (args['summary-time-unit'] !== undefined) flags.summaryTimeUnit = String(last(args['summary-time-unit']));
  const mode = last(args['compatibility-mode']);
  if (mode !== undefined && !COMPATIBILITY_MODES.includes(String(mode))) throw new UsageError(`--compatibility-mode '${mode}': extended or experimental_enhanced here (k6's base is not)`);
  if (args.verbose) flags.verbose = true;
  if (args.config !== undefined) flags.configFile = String(last(args.config));
}

// -c/--config FILE: k6's options as JSON, under the script's own (k6's order: the file, then the
// script, then the environment and the flags).
async function readConfig(flags) {
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

function flagsOf(argv) {
  // --http-debug alone is 'headers' (k6: a value only after '=').
  argv = argv.map((a) => (a === '--http-debug' ? '--http-debug=headers' : a));
  const args = mri(argv, { string: STRING_FLAGS, boolean: BOOLEAN_FLAGS, alias: ALIASES, default: { thresholds: true, summary: true } });
  const known = new Set([...STRING_FLAGS, ...BOOLEAN_FLAGS, ...Object.keys(ALIASES), '_']);
  for (const k of Object.keys(args)) if (!known.has(k)) throw new UsageError(`unknown flag ${k.length === 1 ? '-' : '--'}${k} (see loadtest run --help)`);
  if (args.help) return { help: true };
  // K6_* variables for the flags not given, and the options' own tier (k6's precedence).
  const env = withEnv(args, envVar);
  // --dashboard [PORT]: a value that is not a port is the next argument (the script), given back.
  let dashboard = null;
  if (args.dashboard !== undefined) {
    const v = String(last(args.dashboard));
    if (/^\d+$/.test(v)) {
      dashboard = Number(v);
      if (dashboard > 65535) throw new UsageError(`--dashboard '${v}': expected a port, 0 to 65535`);
    } else {
      dashboard = 0;
      if (v !== '') args._.unshift(v);
    }
  }
  if (args._.length !== 1) throw new UsageError(args._.length ? `one script, not ${args._.length}: ${args._.join(' ')}` : 'missing the script to run (loadtest run script.js)');
  const flags = {};
  const whole = (name) => {
    const v = last(args[name]);
    if (v === undefined) return undefined;
    if (!/^\d+$/.test(String(v))) throw new UsageError(`--${name} must be a whole number, not '${v}'`);
    return Number(v);
  };
  flags.vus = whole('vus');
  const cores = whole('cores') ?? 1;
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
  const startAt = whole('start-at') ?? 0;
  if (startAt && startAt - Date.now() > 86400000) throw new UsageError(`--start-at ${startAt} is more than a day from now (epoch milliseconds)`);
  const result = last(args.result);
  if (result !== undefined && shard === null) throw new UsageError('--result is a shard\'s figures for loadtest merge: give --shard I/N');
  flags.iterations = whole('iterations');
  flags.duration = durationFlag(args, 'duration');
  if (args.stage !== undefined) {
    flags.stages = list(args.stage).map((s) => {
      const m = /^([^:]+):(\d+)$/.exec(String(s));
      if (!m) throw new UsageError(`--stage '${s}' must be DURATION:TARGET (30s:10)`);
      try {
        parseDuration(m[1], '--stage');
      } catch (err) {
        throw new UsageError(err.message);
      }
      return { duration: m[1], target: Number(m[2]) };
    });
  }
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
  k6OptionFlags(args, flags, whole);
  if (Object.keys(env.options).length) flags.envOptions = env.options;
  if (!env.systemEnv) flags.systemEnv = false;
  for (const k of Object.keys(flags)) if (flags[k] === undefined) delete flags[k];
  let secretSources;
  try {
    secretSources = parseSecretSources(list(args['secret-source']).map(String));
  } catch (err) {
    throw new UsageError(err.message);
  }
  const outs = list(args.out).map((o) => {
    const m = /^(json|csv)=(.+)$/.exec(String(o));
    if (!m) throw new UsageError(`--out '${o}': json=FILE or csv=FILE`);
    return { kind: m[1], file: m[2] };
  });
  // Full mode: the run keeps each group's and scenario's figures apart (src/script/summary/breakdown.js).
  if (summaryMode(args) === 'full') flags.summaryMode = 'full';
  const html = last(args.html);
  if (html === '') throw new UsageError('--html needs a file name');
  const metrics = last(args.metrics);
  const linger = last(args['metrics-linger']);
  if (linger !== undefined && !(Number(linger) >= 0)) throw new UsageError(`--metrics-linger must be a number of seconds, not '${linger}'`);
  return {
    metrics: metrics === undefined ? null : String(metrics),
    metricsLinger: linger === undefined ? 0 : Number(linger),
    dashboard,
    cores,
    shard,
    startAt,
    result: result === undefined ? null : String(result),
    script: String(args._[0]),
    flags,
    quiet: Boolean(args.quiet),
    noSummary: args.summary === false || summaryMode(args) === 'disabled',
    summaryMode: summaryMode(args),
    summaryExport: last(args['summary-export']),
    html: html === undefined ? null : String(html),
    outs,
    secretSources,
    noColor: env.noColor,
    envWarnings: env.warnings,
  };
}

export async function runCommand(argv) {
  // The run's secrets (--secret-source): none until the sources are read. Every line of ours
  // that may hold the script's text (an exception, a warning, an abort) hides their values.
  let secrets = new Secrets();
  const say = (message) => writeText('stderr', `loadtest run: ${secrets.redact(message)}\n`);
  const fail = (message, code) => {
    say(message);
    exit(code);
  };
  if (wantsDistribution(argv)) {
    const check = (rest) => {
      const given = flagsOf(rest);
      if (given.help) throw new UsageError('--help is not for --on');
    };
    return (await import('./distribute.js')).distributeCommand(argv, { kind: 'script', check });
  }
  let cli;
  try {
    cli = flagsOf(argv);
  } catch (err) {
    return fail(err.message, err instanceof EnvError ? err.code : 2);
  }
  if (cli.help) {
    writeText('stdout', USAGE + '\n');
    return exit(0);
  }
  for (const w of cli.envWarnings) say(w);
  if (cli.summaryMode === 'legacy' && !cli.noSummary) {
    writeText('stderr', 'loadtest run: the "legacy" summary mode has been deprecated, and will be removed by k6 v2.0. Please, migrate to either "compact" or "full" as soon as possible.\n');
  }
  try {
    await readConfig(cli.flags);
    secrets = new Secrets(await loadSecretSources(cli.secretSources, (path) => readFile(path, 'utf8')));
  } catch (err) {
    return fail(err.message, 2);
  }
  if (cli.cores > 1) {
    if (cli.cores > availableCores()) return fail(`--cores ${cli.cores}: this machine has ${availableCores()}`, 2);
  }
  // --html: a path that cannot be written is said before the run, as --out's (the page comes at its end).
  if (cli.html !== null) {
    try {
      await save(cli.html, '', '--html');
    } catch (err) {
      return fail(err.message, 2);
    }
  }
  let out = null;
  try {
    out = await openOutputs(cli.outs);
  } catch (err) {
    return fail(err.message, 2);
  }
  let loaded;
  try {
    loaded = await loadScript(cli.script, transformModule);
  } catch (err) {
    const located = err instanceof ScriptError || err.located === true;
    return fail(located ? err.message : `${cli.script}: ${messageOf(err)}`, located ? EXIT.scriptException : 2);
  }
  const facilities = facilitiesOf(cli.script);
  // --metrics: served from the start; the run's figures once it has begun.
  let handle = null;
  let remote = null; // --cores: the children
  let metricsServer = null;
  if (cli.metrics !== null) {
    const labels = { run: `loadtest-${Date.now().toString(36)}`, runtime: `${runtime.name} ${runtime.version}`, core: '0' };
    // What only some runs use is loaded by those (a script run's start is CPU every run pays).
    const { serveMetrics } = await import('../../runtimes/run-servers/metrics.js');
    const { metricsText, childrenText } = await import('../results/metrics-text.js');
    try {
      metricsServer = await serveMetrics(cli.metrics, () => {
        // --cores: each child's figures as its own process's, as a load run serves them.
        if (remote !== null) return childrenText(remote.metrics(), labels);
        return handle === null ? '' : metricsText(handle.metricsSnapshot(), labels);
      });
    } catch (err) {
      loaded.cleanup();
      return fail(err.message, 2);
    }
    writeText('stderr', `loadtest run: metrics at ${metricsServer.url}\n`);
  }
  // --dashboard: the page from the start; each second of the run as it closes (kept for --html's plots).
  let board = null;
  const seconds = [];
  const nextSecond = runSeconds(() => seconds);
  const onSecond =
    cli.dashboard === null && cli.html === null
      ? undefined
      : (second) => {
          seconds.push(second);
          if (board !== null) for (let e = nextSecond(); e !== null; e = nextSecond()) board.push(e);
        };
  if (cli.dashboard !== null) {
    const { serveDashboard } = await import('../../runtimes/run-servers/dashboard.js');
    try {
      board = await serveDashboard(cli.dashboard, { title: cli.script });
    } catch (err) {
      loaded.cleanup();
      if (metricsServer !== null) await metricsServer.close();
      return fail(err.message, 2);
    }
    writeText('stderr', `loadtest run: dashboard at ${board.url}\n`);
  }
  // --cores: the scenarios run in children (src/script/cores.js), each importing the script as
  // this process transformed it.
  const { remoteRun } = cli.cores > 1 ? await import('../script/cores.js') : {};
  remote =
    cli.cores > 1
      ? remoteRun({
          cores: cli.cores,
          spawn: () => spawnChild(WORKER, {}, { load: true, smallHeap: true, writes: cli.outs.map((o) => o.file) }),
          // The secrets' table goes as JSON when the children start (after the init code), with
          // what that looked up; what setup() and teardown() look up is told as it comes.
          job: { file: loaded.file, script: cli.script, flags: cli.flags, outs: cli.outs, seconds: onSecond !== undefined, metrics: metricsServer !== null, secrets },
          onSecond,
          base: cli.shard === null ? null : { index: cli.shard.index - 1, count: cli.shard.count },
          onMessage: say,
          // A child's console line: hidden there, by the child that wrote it.
          onLog: (line) => writeText('stderr', `${line}\n`),
          onSecret: (ref) => secrets.learn(ref),
        })
      : null;
  if (remote !== null) secrets.onFetch = (ref) => remote.tell(ref);
  let stopProgress = () => {};
  const removeInterrupt = onInterrupt(() => {
    stopProgress();
    if (remote !== null) remote.stop();
    loaded.cleanup();
    exit(130);
  });
  let result;
  try {
    result = await runScript(loaded.factory, {
      flags: cli.flags,
      facilities,
      remote,
      segment: cli.shard === null ? null : { index: cli.shard.index - 1, count: cli.shard.count },
      startAt: cli.startAt,
      secrets,
      hooks: {
        onMessage: say,
        onSample: out && out.sample,
        // --cores: the children's seconds come merged through `remote`.
        onSecond: remote === null ? onSecond : undefined,
        // Our progress line, as a load run shows it (on stderr: stdout is the summary's).
        onStart: (h) => {
          handle = h;
          const io = { terminal, write: writeText, ci: envVar('CI'), color: wantsColor('stderr') && !cli.noColor };
          stopProgress = startProgress(h, { quiet: cli.quiet, stream: 'stderr' }, io);
        },
      },
    });
  } catch (err) {
    stopProgress();
    loaded.cleanup();
    removeInterrupt();
    if (err instanceof ScriptRunError) return fail(err.message, err.code);
    return fail(messageOf(err), EXIT.scriptException);
  }
  stopProgress();
  loaded.cleanup();
  removeInterrupt();
  if (out) await out.close();
  // Each distinct message once (as it came), then how often each came.
  for (const [message, n] of result.messages) if (n > 1) say(`${n} times: ${message}`);
  // As k6: handleSummary() is told of --no-color, K6_NO_COLOR or NO_COLOR.
  result.data.options.noColor = cli.noColor;
  await writeOutputs(cli, result, say);
  if (cli.result !== null) {
    const { shardResult } = await import('../script/shards.js');
    const doc = shardResult(result, { shard: `${cli.shard.index}/${cli.shard.count}`, startAt: cli.startAt, version: VERSION });
    try {
      await writeFile(cli.result, JSON.stringify(doc) + '\n');
    } catch (err) {
      writeText('stderr', `loadtest run: --result ${cli.result}: ${err.code || err.message}\n`);
      return exit(2);
    }
  }
  // The run's page, for --html and for the dashboard to offer; written whatever the exit code.
  const page = cli.html !== null || board !== null ? await runPage(cli, argv, result, seconds) : null;
  if (cli.html !== null) {
    try {
      await save(cli.html, page, '--html');
    } catch (err) {
      writeText('stderr', `loadtest run: ${err.message}\n`);
      return exit(2);
    }
  }
  if (board !== null) board.finish(await dashboardEnd(cli, result, page));
  if (metricsServer !== null || board !== null) {
    if (cli.metricsLinger > 0) await new Promise((resolve) => setTimeout(resolve, cli.metricsLinger * 1000));
    if (metricsServer !== null) await metricsServer.close();
    if (board !== null) await board.close();
  }
  const failed = result.thresholds.filter((t) => !t.ok);
  // As k6 logs it: the thresholds crossed at the end, unless they stopped the run (k6 says that
  // alone); test.abort()'s message, or the thresholds' that stopped the run.
  if (failed.length && !abortedByThresholds(result.aborted)) say(`thresholds on metrics '${crossedMetrics(failed)}' have been crossed`);
  // teardown()'s exception: after the summary, and its code wins (k6: an error with its own code).
  if (result.teardownFailure !== null) {
    say(result.teardownFailure.message);
    return exit(result.teardownFailure.code);
  }
  if (result.aborted) say(result.aborted);
  if (result.aborted && !failed.length) return exit(EXIT.scriptAborted);
  // exec.test.fail(): k6 says so last, and its code wins over the thresholds'.
  if (result.state.markedFailed && !result.aborted) {
    writeText('stderr', 'loadtest run: test run was marked as failed\n');
    return exit(EXIT.markedAsFailed);
  }
  return exit(failed.length ? EXIT.thresholds : 0);
}

// The run's page (src/script/summary/script-report.js), loaded only when asked for.
async function runPage(cli, argv, result, seconds) {
  const { scriptReport } = await import('../script/summary/script-report.js');
  const shard = cli.shard === null ? undefined : `${cli.shard.index}/${cli.shard.count}`;
  // The summary as printed (compact when none is).
  const mode = cli.summaryMode === 'disabled' ? 'compact' : cli.summaryMode;
  const summaryLines = summaryText(result.data, { state: result.state, mode, color: false });
  const { reportDoc } = await import('../script/summary/report-doc.js');
  const doc = reportDoc(result, seconds, { script: cli.script, runtime: `${runtime.name} ${runtime.version}`, cores: cli.cores, shard, summaryText: summaryLines });
  return scriptReport(doc, { command: ['run', ...argv], generatedAt: Date.now() });
}

// The dashboard's last event: the summary as k6 prints it, the figures a load run's page shows
// (requests, failed requests as k6 counts them, rate, http_req_duration's p50, p99 and max), and
// the run's page to save.
async function dashboardEnd(cli, result, page) {
  const { requestFigures } = await import('../script/summary/report-doc.js');
  const f = requestFigures(result);
  return {
    report: summaryText(result.data, { state: result.state, mode: cli.summaryMode, color: false }),
    summary: {
      totalRequests: f.totalRequests,
      totalErrors: f.totalErrors,
      effectiveRps: f.effectiveRps,
      percentiles: f.totalRequests ? { 50: f.percentiles[50], 99: f.percentiles[99] } : {},
      maxLatencyMs: f.totalRequests ? f.maxLatencyMs : null,
    },
    html: page,
  };
}

// As k6 v1: with the summary disabled, no handleSummary() and no --summary-export either.
async function writeOutputs(cli, result, say) {
  if (cli.noSummary) return;
  const handle = result.exports.handleSummary;
  if (typeof handle === 'function') {
    let out;
    try {
      out = handle(result.data);
      if (out instanceof Promise) out = await out;
    } catch (err) {
      say(`handleSummary() failed: ${messageOf(err)}`);
      out = null;
    }
    // As k6: no result (or an exception) is the summary printed as if there were no handleSummary.
    if (out === null || out === undefined) {
      writeText('stdout', summaryText(result.data, { state: result.state, mode: cli.summaryMode, color: wantsColor('stdout') && !cli.noColor }));
    } else if (typeof out === 'object') {
      for (const [where, content] of Object.entries(out)) {
        const text = typeof content === 'string' ? content : content instanceof ArrayBuffer ? new Uint8Array(content) : JSON.stringify(content);
        if (where === 'stdout') writeText('stdout', text);
        else if (where === 'stderr') writeText('stderr', text);
        else await writeFile(where, text);
      }
    }
  } else {
    writeText('stdout', summaryText(result.data, { state: result.state, mode: cli.summaryMode, color: wantsColor('stdout') && !cli.noColor }));
  }
  if (cli.summaryExport) {
    const { legacyExport } = await import('../script/summary/legacy-export.js');
    await writeFile(cli.summaryExport, JSON.stringify(legacyExport(result.data), null, 2) + '\n');
  }
}
