// A child of `loadtest run --cores N` (the protocol: src/script/cores.js): imports the script the
// parent transformed, makes the VUs of its share, says ready, starts on `go` with setup()'s data,
// and sends back what it measured, in one line.

import { runScript, ScriptRunError, EXIT, messageOf } from './runner.js';
import { Secrets, SecretLookupError } from './secrets/secrets.js';
import { facilitiesOf, openOutputs } from '../../runtimes/scripts/host.js';
import { onStdinLine, writeLine, onInterrupt, exit, importUserModule } from '../../runtimes/index.js';

// The script's console goes to the parent's stderr (this process's stdout is the pipe).
globalThis.console.error = (...args) => writeLine(`log ${JSON.stringify(args.join(' '))}`);

let go = null; // resolves with { dataJson, startAt }
let handle = null;
let started = false;
let metrics = null; // --metrics: its timer
let secrets = null; // the run's secrets, from the parent's table
const asked = new Map(); // a url source's secrets asked of the parent: id → { resolve, reject }
let asks = 0;

function sendMetrics() {
  const m = handle.metricsSnapshot();
  writeLine(`metrics ${JSON.stringify({ ...m, histogram: m.histogram.toJSON() })}`);
}

const finish = (line, code) => writeLine(line, () => exit(code));

async function run(job) {
  let out = null;
  // Made before anything waits, so that no other process's `secret` line comes before it. What
  // its VUs look up is hidden in the parent's log and the other children's too.
  secrets = new Secrets(job.secrets, askParent);
  secrets.onFetch = (ref) => writeLine(`secret ${JSON.stringify(ref)}`);
  try {
    out = await openOutputs(job.outs, { append: true, instance: job.segment.index, instances: job.segment.count });
    const factory = (await importUserModule(job.file)).default;
    const result = await runScript(factory, {
      flags: job.flags,
      secrets,
      facilities: facilitiesOf(job.script),
      segment: job.segment,
      hooks: {
        onMessage: (m) => writeLine(`message ${JSON.stringify(m)}`),
        onAbort: (m) => writeLine(`abort ${JSON.stringify(m)}`),
        // A VU started: the parent's vus gauge rises at once, as a single process's does.
        onVUs: () => sendProgress(),
        onSample: out && out.sample,
        onSystemTags: out && ((systemTags) => out.systemTags(systemTags.names())),
        // --dashboard: each closed second, its latency buckets with it (some hundred numbers).
        onSecond: job.seconds ? (second) => writeLine(`second ${JSON.stringify(second)}`) : undefined,
        ready: () => {
          writeLine('ready');
          return new Promise((resolve) => (go = resolve));
        },
        onStart: (h) => {
          handle = h;
          started = true;
          // --metrics: the figures the parent serves for this child, once a second.
          if (job.metrics) metrics = setInterval(sendMetrics, 1000);
        },
      },
    });
    if (metrics !== null) {
      clearInterval(metrics);
      sendMetrics();
    }
    // --out's points not written: the parent says them in one line with its own.
    if (out) for (const warning of await out.close()) writeLine(`lost ${JSON.stringify(warning)}`);
    const { registry, state } = result;
    finish(
      `result ${JSON.stringify({
        // vus and vus_max are the whole run's gauges: the parent keeps them from the children's sums.
        metrics: registry.toJSON(new Set(['vus', 'vus_max'])),
        state: state.toJSON(),
        vusInitialized: result.vusInitialized,
        iterationsCompleted: result.iterationsCompleted,
        iterationsInterrupted: result.iterationsInterrupted,
      })}`,
      0,
    );
  } catch (err) {
    const code = err instanceof ScriptRunError ? err.code : EXIT.scriptException;
    finish(`fail ${code} ${messageOf(err)}`, 2);
  }
}

// A url source's secret, which the parent fetches for every process (src/script/cores.js).
function askParent(index, key) {
  const id = ++asks;
  return new Promise((resolve, reject) => {
    asked.set(id, { resolve, reject });
    writeLine(`lookup ${JSON.stringify([id, index, key])}`);
  });
}

function answered([id, value, error]) {
  const ask = asked.get(id);
  asked.delete(id);
  if (error === undefined) ask.resolve(value);
  else ask.reject(new SecretLookupError(error));
}

// Counters 4 times a second, for the parent's progress line and its vus gauge.
function sendProgress() {
  if (handle === null) return;
  const c = handle.counters();
  writeLine(`progress ${c.begun} ${c.ended} ${c.errors} ${c.vus} ${c.vusMax}`);
}
const progress = setInterval(sendProgress, 250);

onStdinLine(
  (line) => {
    if (line.startsWith('job ')) {
      run(JSON.parse(line.slice(4))).finally(() => clearInterval(progress));
    } else if (line.startsWith('go ') && go !== null) {
      const space = line.indexOf(' ', 3);
      const startAt = Number(space < 0 ? line.slice(3) : line.slice(3, space));
      go({ startAt, dataJson: space < 0 ? undefined : line.slice(space + 1) });
      go = null;
    } else if (line.startsWith('secret ')) {
      if (secrets !== null) secrets.learn(JSON.parse(line.slice(7)));
    } else if (line.startsWith('looked ')) {
      answered(JSON.parse(line.slice(7)));
    } else if (line.startsWith('abort ')) {
      const message = JSON.parse(line.slice(6));
      if (handle !== null) handle.abort(message);
    }
  },
  // The parent is gone: a load generator must not go on alone.
  () => exit(3),
);

// Ctrl-C in a terminal reaches the whole process group: the parent stops the run.
onInterrupt(() => {
  if (!started) exit(130);
});
