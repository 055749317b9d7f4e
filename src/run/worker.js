// A child of a multi-core run (see src/run/cores.js for the protocol): prepares the job it is
// given, says ready, starts on `go`, and sends its Stats back in one line.

import { prepare, attachLog, attachOutputs } from '../index.js';
import { onStdinLine, writeLine, onInterrupt, exit } from '../../runtimes/index.js';

let prepared = null;
let started = false;
let log = null; // --log-file's RequestLog
let outputs = null; // --out's

// The result, after the log's last lines are written: a failed write is said (the parent lists
// it with the child's errors) and the result still goes.
async function report(stats) {
  let code = 0;
  if (log !== null) {
    try {
      await log.close();
    } catch (err) {
      writeLine(`fail ${err.message}`);
      code = 2;
    }
  }
  if (outputs !== null) {
    try {
      for (const line of await outputs.close()) writeLine(`warn ${line}`);
    } catch (err) {
      writeLine(`fail ${err.message}`);
      code = 2;
    }
  }
  finish(`result ${JSON.stringify(stats)}`, code);
}

function finish(line, code) {
  writeLine(line, () => exit(code));
}

onStdinLine(async (line) => {
  if (line.startsWith('job ')) {
    try {
      const job = JSON.parse(line.slice(4));
      prepared = await prepare(job);
      log = await attachLog(prepared.run, job);
      outputs = await attachOutputs(prepared.run, prepared.config, job);
    } catch (err) {
      return finish(`fail ${err.message}`, 2);
    }
    writeLine('ready');
  } else if (line.startsWith('go ') && prepared && !started) {
    started = true;
    const [startAt, stopAt] = line.slice(3).split(' ').map(Number);
    prepared.run.config.startAt = startAt;
    if (stopAt) prepared.run.config.stopAt = stopAt;
    // Counters 4 times a second for the parent's live line: never anything per request.
    let secondsSent = 0;
    const sendSeconds = () => {
      const series = prepared.run.stats.series;
      while (secondsSent < series.length) writeLine(`second ${JSON.stringify(series[secondsSent++])}`);
    };
    const progress = setInterval(() => {
      const s = prepared.run.snapshot();
      writeLine(`progress ${s.sent} ${s.completed} ${s.failed} ${s.p99Ms === null ? '-' : s.p99Ms}`);
      // --dashboard: each closed second once, its latency buckets with it (some hundred numbers).
      if (prepared.run.config.secondsFromChildren) sendSeconds();
    }, 250);
    // --metrics: the figures the parent serves for this child, once a second (not per request).
    const metrics = prepared.run.config.metricsFromChildren
      ? setInterval(() => {
          const m = prepared.run.metricsSnapshot();
          writeLine(`metrics ${JSON.stringify({ ...m, histogram: m.histogram.toJSON() })}`);
        }, 1000)
      : null;
    const stats = await prepared.run.start();
    clearInterval(progress);
    if (prepared.run.config.secondsFromChildren) sendSeconds();
    if (metrics !== null) clearInterval(metrics);
    await report(stats);
  } else if (line === 'stop' && prepared) {
    if (started) return prepared.run.interrupt();
    // Stopped before it began: report an empty run rather than nothing.
    started = true;
    prepared.run.stats.interrupted = true;
    prepared.run.stopping = true;
    await report(await prepared.run.start());
  }
}, () => {
  // The parent is gone (killed, crashed): a load generator must not go on alone.
  if (prepared && started) prepared.run.stop();
  exit(3);
});

// Ctrl-C in a terminal reaches the whole process group: stop and report, as the parent does.
onInterrupt(() => {
  if (started) prepared.run.stop();
});
