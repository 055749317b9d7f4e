// loadtest run [flags] SCRIPT: a k6 script, unmodified, with k6's flags (which win over the
// script's options) and k6's summary, summary export and exit codes (src/script/).

import { transformModule, ScriptError } from '../script/transform/transform.js';
import { runScript, ScriptRunError, EXIT, messageOf, abortedByThresholds } from '../script/runner.js';
import { crossedMetrics } from '../script/metrics/thresholds.js';
import { summaryText } from '../script/summary/summary.js';
import { callHandleSummary } from '../script/summary/handle-summary.js';
import { logEntry } from '../script/k6/console.js';
import { facilitiesOf, openOutputs } from '../../runtimes/scripts/host.js';
import { loadScript } from '../../runtimes/scripts/load.js';
import { readFile, writeFile, writeText, wantsColor, exit, onInterrupt, terminal, envVar, runtime, spawnChild, pathOf, availableCores } from '../../runtimes/index.js';
import { startProgress } from '../results/progress.js';
import { runSeconds } from '../results/html/dashboard-seconds.js';
import { save } from './output.js';
import { VERSION } from '../version.js';
import { mergedLostLines } from '../outputs/push-writer.js';
import { wantsDistribution } from '../distribute/flags.js';
import { loadSecretSources, SecretSourceError } from '../script/secrets/secret-sources.js';
import { Secrets } from '../script/secrets/secrets.js';
import { urlLookups } from '../script/secrets/url-source.js';
import { EnvError } from './run-env.js';
import { applyFeatures } from './run-features.js';
import { USAGE, UsageError, flagsOf, readConfig } from './run-flags.js';

const WORKER = pathOf(new URL('../script/worker.js', import.meta.url));

export async function runCommand(argv) {
  if (wantsDistribution(argv)) return distributeRun(argv);
  // No secret is read yet: these lines have nothing to hide.
  let cli;
  try {
    cli = flagsOf(argv);
  } catch (err) {
    writeText('stderr', `loadtest run: ${err.message}\n`);
    return exit(err instanceof EnvError || err instanceof SecretSourceError ? err.code : 2);
  }
  if (cli.help) {
    writeText('stdout', USAGE + '\n');
    return exit(0);
  }
  for (const w of cli.envWarnings) writeText('stderr', `loadtest run: ${w}\n`);
  if (cli.summaryMode === 'legacy' && !cli.noSummary) {
    // k6 v2.0 refuses it; v1 pipelines still ask for it.
    writeText('stderr', 'loadtest run: the "legacy" summary mode was removed in k6 v2.0 ("compact" or "full" are its modes now): written as k6 v1 wrote it\n');
  }
  return runScriptFile(cli, argv);
}

// The run of the flags' script: what is checked and opened before it, its servers, the run, its
// summary and files, and k6's exit code.
async function runScriptFile(cli, argv) {
  // The run's secrets (--secret-source): none until the sources are read. Every line of ours
  // that may hold the script's text (an exception, a warning, an abort) hides their values.
  let secrets = new Secrets();
  const say = (message) => writeText('stderr', `loadtest run: ${secrets.redact(message)}\n`);
  const fail = (message, code) => {
    say(message);
    exit(code);
  };
  let out = null;
  try {
    await readConfig(cli.flags);
    applyFeatures(cli, envVar, (line) => writeText('stderr', `${line}\n`));
    const table = await loadSecretSources(cli.secretSources, (path) => readFile(path, 'utf8'));
    secrets = new Secrets(table, urlLookups(table, facilitiesOf(cli.script)));
    await checkBeforeRun(cli);
    // A shard's points are spread apart from the other shards' (src/outputs/influxdb/lines.js).
    out = await openOutputs(cli.outs, cli.shard ? { instance: cli.shard.index - 1, instances: cli.shard.count } : {});
  } catch (err) {
    return fail(err.message, err instanceof SecretSourceError || err instanceof EnvError ? err.code : 2);
  }
  let loaded;
  try {
    loaded = await loadScript(cli.script, transformModule);
    cli.stdinText = loaded.stdinText; // `loadtest run -`: its text is read once, here
  } catch (err) {
    const located = err instanceof ScriptError || err.located === true;
    return fail(located ? err.message : `${cli.script}: ${messageOf(err)}`, located ? EXIT.scriptException : 2);
  }
  // What --metrics serves: the run's figures once it has begun (handle), or the children's (remote).
  const live = { handle: null, remote: null };
  let metricsServer = null;
  let board = null;
  try {
    metricsServer = await serveRunMetrics(cli, live);
    board = await serveRunDashboard(cli);
  } catch (err) {
    loaded.cleanup();
    if (metricsServer !== null) await metricsServer.close();
    return fail(err.message, 2);
  }
  const seconds = [];
  const onSecond = secondsTo(cli, board, seconds);
  if (cli.cores > 1) live.remote = await startChildren(cli, loaded, secrets, onSecond, metricsServer !== null, say);
  let result;
  try {
    result = await runWithProgress(cli, loaded, live, secrets, out, onSecond, say);
  } catch (err) {
    if (err instanceof ScriptRunError) return fail(err.message, err.code);
    return fail(messageOf(err), EXIT.scriptException);
  }
  const lost = out ? await out.close() : [];
  for (const line of mergedLostLines([...lost, ...(live.remote !== null ? live.remote.lost : [])])) say(line);
  await reportRun(cli, result, say);
  let page;
  try {
    page = await writeRunFiles(cli, argv, result, seconds, board);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    writeText('stderr', `loadtest run: ${err.message}\n`);
    return exit(2);
  }
  await closeServers(cli, result, page, metricsServer, board);
  return exit(exitCodeOf(result, say));
}

// --on swarm|kubernetes --shards N: the shards' flags are checked here before any starts.
async function distributeRun(argv) {
  const check = (rest) => {
    const given = flagsOf(rest);
    if (given.help) throw new UsageError('--help is not for --on');
    // Each shard runs `loadtest run` on its own machine, where this stdin is not.
    if (given.script === '-') throw new UsageError('--on: the shards cannot read this stdin: give the script as a file (loadtest run --on ... script.js)');
    return given;
  };
  return (await import('./distribute.js')).distributeCommand(argv, { kind: 'script', check });
}

async function checkBeforeRun(cli) {
  if (cli.cores > 1 && cli.cores > availableCores()) throw new UsageError(`--cores ${cli.cores}: this machine has ${availableCores()}`);
  // --html: a path that cannot be written is said before the run, as --out's (the page comes at its end).
  if (cli.html !== null) await save(cli.html, '', '--html');
}

// --metrics: served from the start; the run's figures once it has begun. Null without it.
async function serveRunMetrics(cli, live) {
  if (cli.metrics === null) return null;
  const labels = { run: `loadtest-${Date.now().toString(36)}`, runtime: `${runtime.name} ${runtime.version}`, core: '0' };
  // What only some runs use is loaded by those (a script run's start is CPU every run pays).
  const { serveMetrics } = await import('../../runtimes/run-servers/metrics.js');
  const { metricsText, childrenText } = await import('../results/metrics-text.js');
  const server = await serveMetrics(cli.metrics, () => {
    // --cores: each child's figures as its own process's, as a load run serves them.
    if (live.remote !== null) return childrenText(live.remote.metrics(), labels);
    return live.handle === null ? '' : metricsText(live.handle.metricsSnapshot(), labels);
  });
  writeText('stderr', `loadtest run: metrics at ${server.url}\n`);
  return server;
}

// --dashboard: the page from the start. Null without it.
async function serveRunDashboard(cli) {
  if (cli.dashboard === null) return null;
  const { serveDashboard } = await import('../../runtimes/run-servers/dashboard.js');
  const board = await serveDashboard(cli.dashboard, { title: cli.script });
  writeText('stderr', `loadtest run: dashboard at ${board.url}\n`);
  return board;
}

// --dashboard and --html: each second of the run as it closes, to the dashboard and kept for
// --html's plots; undefined without either.
function secondsTo(cli, board, seconds) {
  if (cli.dashboard === null && cli.html === null) return undefined;
  const nextSecond = runSeconds(() => seconds);
  const tell = () => {
    for (let e = nextSecond(); e !== null; e = nextSecond()) board.push(e);
  };
  // The seconds not yet told go before the page's last event (closeServers).
  if (board !== null) board.tellRest = tell;
  return (second) => {
    seconds.push(second);
    // k6's web dashboard period (cli.dashboardPeriod seconds): the page is told that often.
    if (board !== null && seconds.length % cli.dashboardPeriod === 0) tell();
  };
}

// --cores: the scenarios run in children (src/script/cores.js), each importing the script as
// this process transformed it.
async function startChildren(cli, loaded, secrets, onSecond, metrics, say) {
  const { RemoteRun } = await import('../script/cores.js');
  const remote = new RemoteRun({
    cores: cli.cores,
    spawn: () => spawnChild(WORKER, {}, { load: true, scripted: true, writes: cli.outs.map((o) => o.file) }),
    // The secrets' table goes as JSON when the children start (after the init code), with
    // what that looked up; what setup() and teardown() look up is told as it comes.
    job: { file: loaded.file, script: cli.script, flags: cli.flags, outs: cli.outs, seconds: onSecond !== undefined, metrics, secrets },
    onSecond,
    base: cli.shard === null ? null : { index: cli.shard.index - 1, count: cli.shard.count },
    onMessage: say,
    // A child's console line: hidden there, by the child that wrote it.
    onLog: (line) => writeText('stderr', `${line}\n`),
    onSecret: (ref) => secrets.learn(ref),
    // A child's question for a url source's secret: fetched here, once for the run.
    onLookup: (index, key) => secrets.lookup(index, key),
  });
  secrets.onFetch = (ref) => remote.tell(ref);
  return remote;
}

// The script's run with our progress line; Ctrl-C ends it (130), the children with it. The
// transformed script is cleaned up however the run ends.
async function runWithProgress(cli, loaded, live, secrets, out, onSecond, say) {
  let stopProgress = () => {};
  const removeInterrupt = onInterrupt(() => {
    stopProgress();
    if (live.remote !== null) live.remote.stop();
    loaded.cleanup();
    exit(130);
  });
  try {
    return await runScript(loaded.factory, {
      flags: cli.flags,
      facilities: facilitiesOf(cli.script),
      remote: live.remote,
      segment: cli.shard === null ? null : { index: cli.shard.index - 1, count: cli.shard.count },
      startAt: cli.startAt,
      secrets,
      hooks: {
        onMessage: say,
        onSample: out && out.sample,
        onSystemTags: out && ((systemTags) => out.systemTags(systemTags.names())),
        // --cores: the children's seconds come merged through `remote`.
        onSecond: live.remote === null ? onSecond : undefined,
        // Our progress line, as a load run shows it (on stderr: stdout is the summary's).
        onStart: (h) => {
          live.handle = h;
          const io = { terminal, write: writeText, ci: envVar('CI'), color: wantsColor('stderr') && !cli.noColor };
          stopProgress = startProgress(h, { quiet: cli.quiet, stream: 'stderr' }, io);
        },
      },
    });
  } finally {
    stopProgress();
    loaded.cleanup();
    removeInterrupt();
  }
}

async function reportRun(cli, result, say) {
  // Each distinct message once (as it came), then how often each came.
  for (const [message, n] of result.messages) if (n > 1) say(`${n} times: ${message}`);
  // As k6: handleSummary() is told of --no-color, K6_NO_COLOR or NO_COLOR.
  result.data.options.noColor = cli.noColor;
  await writeOutputs(cli, result, say);
}

// --result (this shard's figures) and --html; the run's page (for --html and the dashboard), or null.
async function writeRunFiles(cli, argv, result, seconds, board) {
  if (cli.result !== null) {
    const { shardResult } = await import('../script/shards.js');
    const doc = shardResult(result, { shard: `${cli.shard.index}/${cli.shard.count}`, startAt: cli.startAt, version: VERSION });
    try {
      await writeFile(cli.result, JSON.stringify(doc) + '\n');
    } catch (err) {
      throw new UsageError(`--result ${cli.result}: ${err.code || err.message}`);
    }
  }
  // The run's page, for --html and for the dashboard to offer; written whatever the exit code.
  const page = cli.html !== null || board !== null ? await runPage(cli, argv, result, seconds) : null;
  if (cli.html !== null) {
    try {
      await save(cli.html, page, '--html');
    } catch (err) {
      throw new UsageError(err.message);
    }
  }
  return page;
}

// The dashboard's last event, then --metrics and --dashboard kept up --metrics-linger seconds.
async function closeServers(cli, result, page, metricsServer, board) {
  if (board !== null) {
    if (board.tellRest) board.tellRest();
    board.finish(await dashboardEnd(cli, result, page));
  }
  if (metricsServer !== null || board !== null) {
    if (cli.metricsLinger > 0) await new Promise((resolve) => setTimeout(resolve, cli.metricsLinger * 1000));
    if (metricsServer !== null) await metricsServer.close();
    if (board !== null) await board.close();
  }
}

// The exit code, as k6's, after what k6 logs of it.
function exitCodeOf(result, say) {
  const failed = result.thresholds.filter((t) => !t.ok);
  // As k6 logs it: the thresholds crossed at the end, unless they stopped the run (k6 says that
  // alone); test.abort()'s message, or the thresholds' that stopped the run.
  if (failed.length && !abortedByThresholds(result.aborted)) say(`thresholds on metrics '${crossedMetrics(failed)}' have been crossed`);
  // teardown()'s exception: after the summary, and its code wins (k6: an error with its own code).
  if (result.teardownFailure !== null) {
    say(result.teardownFailure.message);
    return result.teardownFailure.code;
  }
  if (result.aborted) say(result.aborted);
  if (result.aborted && !failed.length) return EXIT.scriptAborted;
  // exec.test.fail(): k6 says so last, and its code wins over the thresholds'.
  if (result.state.markedFailed && !result.aborted) {
    writeText('stderr', 'loadtest run: test run was marked as failed\n');
    return EXIT.markedAsFailed;
  }
  return failed.length ? EXIT.thresholds : 0;
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

// As k6 v1: with the summary disabled, no handleSummary() and no --summary-export either; as
// k6 v2.2, none when handleSummary() ran out of its time either.
async function writeOutputs(cli, result, say) {
  if (cli.noSummary) return;
  const data = cli.machineReadable ? await machineReadableOf(cli, result) : result.data;
  const handle = result.exports.handleSummary;
  if (typeof handle === 'function') {
    const called = await callHandleSummary(handle, data, { ms: result.handleSummaryMs, loop: result.loop }, (err) => say(`handleSummary() failed: ${messageOf(err)}`));
    if (called.timedOut) {
      writeText('stderr', `${logEntry('error', 'failed to handle the end-of-test summary', [['error', called.timedOut]])}\n`);
      return;
    }
    const out = called.out;
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
    // As k6: the new shape is written as handleSummary() got it.
    const { legacyExport } = await import('../script/summary/legacy-export.js');
    await writeFile(cli.summaryExport, JSON.stringify(cli.machineReadable ? data : legacyExport(result.data), null, 2) + '\n');
  }
}

// --new-machine-readable-summary: k6's new shape of the summary, with the script's text as k6
// gives it (src/script/summary/machine-readable.js); none if the file has gone since it loaded.
async function machineReadableOf(cli, result) {
  const { machineReadable } = await import('../script/summary/machine-readable.js');
  const script = cli.stdinText ?? (await readFile(cli.script, 'utf8').catch(() => undefined));
  return machineReadable(result.data, result.state, { mode: cli.summaryMode, script });
}
