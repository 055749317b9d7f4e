#!/usr/bin/env node
// @ts-self-types="../types/cli.d.ts"
// The loadtest command: loadtest 8's flags, parsed with mri. Every problem ends in one line on
// stderr and a non-zero exit (2: bad usage, 1: the run failed), never a stack trace.

import mri from 'mri';
import { runLoadTest, withBodyOptions, bodyFromFile, VERSION } from './index.js';
import { number, parseShard } from './options.js';
import { STRINGS, LONG_STRINGS, BOOLEANS, LONG_BOOLEANS, HELP } from './flags.js';
import { findConfig, withConfig } from './config-file.js';
import { argv, exit, wantsColor, onInterrupt, readFile, pathOf, cwdUrl, homeUrl, runtime, pickAdapter, terminal, writeText, envVar } from '../runtimes/index.js';
import { writeOutputs } from './output.js';
import { parseThreshold, failedThresholds } from './thresholds.js';
import { startProgress } from './progress.js';

const absolute = (path) => pathOf(new URL(path, cwdUrl()));

class UsageError extends Error {}

function fail(message, code) {
  console.error(`loadtest: ${message}`);
  exit(code);
}

// mri reads "-n -5" as two flags; join a negative number to its flag so that the number check
// can say what is wrong with it.
function joinNegativeNumbers(args) {
  const out = [];
  for (const arg of args) {
    const prev = out[out.length - 1];
    if (/^-[0-9.]/.test(arg) && prev && /^--?[A-Za-z]+$/.test(prev)) {
      const name = prev.replace(/^-+/, '');
      out[out.length - 1] = `--${STRINGS[name] || name}=${arg}`;
    } else {
      out.push(arg);
    }
  }
  return out;
}

function parseArgs(args) {
  let unknown = null;
  const longOnly = Object.fromEntries([...LONG_STRINGS, ...LONG_BOOLEANS].map((name) => [name, []]));
  const parsed = mri(joinNegativeNumbers(args), {
    alias: { ...STRINGS, ...BOOLEANS, ...longOnly },
    string: [...Object.keys(STRINGS), ...Object.values(STRINGS), ...LONG_STRINGS],
    boolean: [...Object.keys(BOOLEANS), ...Object.values(BOOLEANS), ...LONG_BOOLEANS],
    unknown: (flag) => {
      unknown = unknown || flag;
    },
  });
  if (unknown) throw new UsageError(`unknown option '${unknown}' (see loadtest --help)`);
  return parsed;
}

const list = (v) => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
const last = (v) => (Array.isArray(v) ? v[v.length - 1] : v);

function flagValue(args, name) {
  const v = last(args[name]);
  // mri leaves a string flag without value as ''.
  if (v === '') throw new UsageError(`option --${name} needs a value`);
  return v;
}


// A configuration file's text, or null when there is none.
async function readIfThere(url) {
  try {
    return await readFile(url, 'utf8');
  } catch (err) {
    if (err.code === 'ENOENT' || err.code === 'ENOTDIR' || err.code === 'EISDIR') return null;
    throw new UsageError(`cannot read ${pathOf(url)} (${err.code || err.message})`);
  }
}

/** Turns the parsed flags into loadTest() options. */
async function toOptions(args) {
  const o = {};
  const num = (flag, name, opts) => {
    const v = flagValue(args, name);
    if (v === undefined) return undefined;
    try {
      return number(flag ? `-${flag}/--${name}` : `--${name}`, v, opts);
    } catch (err) {
      throw new UsageError(err.message);
    }
  };
  // Numbers first: in "-n URL" the URL was taken as -n's value, and that is the error to name.
  o.maxRequests = num('n', 'maxRequests', { integer: true });
  o.concurrency = num('c', 'concurrency', { integer: true, min: 1 });
  o.maxSeconds = num('t', 'maxSeconds', {});
  o.timeout = num('d', 'timeout', {});
  o.maxBodySize = num('', 'max-body', { integer: true, min: 1 });
  if (args._.length === 0) throw new UsageError('missing URL to load-test (see loadtest --help)');
  if (args._.length > 1) throw new UsageError(`too many arguments: ${args._.join(' ')}`);
  o.url = String(args._[0]);
  const rps = flagValue(args, 'rps') ?? flagValue(args, 'requestsPerSecond');
  if (rps !== undefined) {
    try {
      o.requestsPerSecond = number('--rps', rps, {});
    } catch (err) {
      throw new UsageError(err.message);
    }
  }
  o.cores = num('', 'cores', { integer: true, min: 1 });
  o.shard = flagValue(args, 'shard');
  if (o.shard !== undefined) {
    try {
      parseShard(o.shard);
    } catch (err) {
      throw new UsageError(`--${err.message}`);
    }
  }
  o.startAt = num('', 'start-at', { integer: true });
  // Seconds given for milliseconds read as 1970 (start at once); the other slip, a date far
  // ahead, would wait silently for days.
  if (o.startAt && o.startAt - Date.now() > 86400000) throw new UsageError(`--start-at ${o.startAt} is more than a day from now (epoch milliseconds, e.g. $(( ($(date +%s) + 10) * 1000 )))`);
  o.maxConnections = num('', 'max-connections', { integer: true, min: 1 });
  if (o.maxConnections !== undefined && !o.requestsPerSecond) throw new UsageError('--max-connections goes with --rps (the open model)');
  if (flagValue(args, 'proxy') !== undefined) throw new UsageError('--proxy is not supported');
  o.agentKeepAlive = Boolean(args.keepalive || args.agent);
  o.quiet = Boolean(args.quiet);
  o.insecure = Boolean(args.insecure);
  o.method = flagValue(args, 'method');
  o.contentType = flagValue(args, 'contentType');
  o.headers = list(args.header);
  o.cookies = list(args.cookie);
  o.indexParam = flagValue(args, 'index');
  o.socket = flagValue(args, 'socket');
  o.socketPath = flagValue(args, 'unix-socket');
  o.secureProtocol = flagValue(args, 'secureProtocol');
  // From the configuration file, only when no body flag was given: loadtest 8's `file` and
  // `body` (which wins), both keeping the method.
  if (args.configBodyFile !== undefined) {
    try {
      Object.assign(o, await bodyFromFile(args.configBodyFile));
    } catch (err) {
      throw new UsageError(err.message);
    }
  }
  if (args.configBody !== undefined) o.body = args.configBody;
  // Body flags, in loadtest 8's order of precedence; each sets its method.
  const data = flagValue(args, 'data');
  if (data !== undefined) o.body = data;
  const bodies = {};
  for (const name of ['postBody', 'postFile', 'putFile', 'patchBody', 'patchFile']) bodies[name] = flagValue(args, name);
  try {
    Object.assign(o, await withBodyOptions(bodies));
  } catch (err) {
    throw new UsageError(err.message);
  }
  if ((flagValue(args, 'cert') === undefined) !== (flagValue(args, 'key') === undefined)) {
    throw new UsageError('--cert and --key go together (a client certificate and its key)');
  }
  for (const name of ['cert', 'key', 'ca']) {
    const path = flagValue(args, name);
    if (path === undefined) continue;
    try {
      o[name] = await readFile(path, 'utf8');
    } catch (err) {
      throw new UsageError(`cannot read --${name} file '${path}' (${err.code || err.message})`);
    }
  }
  o.thresholds = list(args.threshold).map((text) => {
    if (text === '') throw new UsageError('option --threshold needs a value, e.g. --threshold p99<50ms');
    try {
      parseThreshold(text);
    } catch (err) {
      throw new UsageError(err.message);
    }
    return text;
  });
  // Where the result goes (src/output.js); not loadTest() options.
  o.output = { json: Boolean(args.json), jsonFile: flagValue(args, 'json-file'), hdrLog: flagValue(args, 'hdr-log') };
  const generator = flagValue(args, 'requestGenerator');
  if (generator !== undefined) o.requestGenerator = absolute(generator);
  o.failFast = true;
  return o;
}

// Why a run where nothing got a response failed, in words.
function describeFailure(result, target) {
  const reasons = Object.keys(result.errorCodes);
  const reason = result.abortReason || reasons[0] || 'no response';
  const words = {
    ECONNREFUSED: `connection refused by ${target}`,
    ENOENT: `no such socket: ${target}`,
    ECONNRESET: `connection reset by ${target}`,
    EHOSTUNREACH: `host unreachable: ${target}`,
    ENETUNREACH: `network unreachable: ${target}`,
    EADDRNOTAVAIL: `no free local port to connect to ${target}: the ephemeral ports are used up (without -k each request takes one, held in TIME_WAIT for a minute; use -k)`,
    timeout: `every request to ${target} timed out`,
    'closed before response': `${target} closed every connection before responding`,
    CERT_ERROR: `certificate check failed for ${target} (use --ca FILE to trust its CA, or --insecure)`,
  };
  if (words[reason]) return words[reason];
  if (reason.startsWith('malformed response')) return `${reason} from ${target}`;
  return `every request to ${target} failed: ${reason}`;
}

async function main() {
  let args;
  let options;
  // A subcommand, loaded only when used.
  if (argv()[0] === 'merge') return (await import('./merge-command.js')).mergeCommand(argv().slice(1));
  if (argv()[0] === 'compare') return (await import('./compare-command.js')).compareCommand(argv().slice(1));
  try {
    args = parseArgs(argv());
    if (args.help) {
      console.log(HELP);
      return exit(0);
    }
    if (args.version) {
      const adapter = pickAdapter(flagValue(args, 'socket'));
      console.log(`loadtest ${VERSION} (${runtime.name} ${runtime.version}, socket ${adapter.name})`);
      return exit(0);
    }
    const config = await findConfig(cwdUrl(), homeUrl(), readIfThere);
    options = await toOptions(config ? withConfig(args, config.flags) : args);
  } catch (err) {
    return fail(err.message, 2);
  }
  let run = null;
  let stopProgress = () => {};
  let signalled = null;
  // Shells and CI read 128 + the signal's number: 130 for Ctrl-C (SIGINT), 143 for SIGTERM.
  const exitCode = (code) => (signalled === null ? code : signalled === 'SIGTERM' ? 143 : 130);
  const removeInterrupt = onInterrupt((signal) => {
    // The first signal stops the run and the report of what was done still prints; a second
    // one (or one before the run began) quits at once.
    const first = signalled === null;
    signalled = signalled || signal;
    if (first && run && !run.stopping) return run.interrupt();
    stopProgress();
    exit(exitCode(1));
  });
  let result;
  try {
    result = await runLoadTest(options, {
      onStart(r) {
        run = r;
        // With --json, stdout holds the document and nothing else.
        const stream = options.output.json ? 'stderr' : 'stdout';
        const io = { terminal, write: writeText, ci: envVar('CI'), color: wantsColor(stream) };
        stopProgress = startProgress(r, { quiet: options.quiet, stream }, io);
      },
    });
  } catch (err) {
    return fail(err.message, 2);
  } finally {
    stopProgress();
    removeInterrupt();
  }
  const target = options.socketPath ? `unix:${options.socketPath}` : new URL(options.url).host;
  const output = options.output;
  const nothingAnswered = result.totalRequests > 0 && Object.keys(result.statusCodes).length === 0;
  try {
    // The report is left out when nothing answered (the error line says it all), unless --json
    // asked for the document: a CI job then still gets one to keep.
    await writeOutputs(result, output, { color: wantsColor(), report: !nothingAnswered });
  } catch (err) {
    return fail(err.message, exitCode(1));
  }
  if (nothingAnswered) return fail(describeFailure(result, target), exitCode(1));
  if (result.totalRequests === 0 && result.inFlight > 0) {
    return fail(`no response from ${target} before the stop (${result.inFlight} requests in flight)`, exitCode(1));
  }
  if (result.childErrors.length > 0) {
    const more = result.childErrors.length > 1 ? ` (and ${result.childErrors.length - 1} more)` : '';
    return fail(`${result.childErrors[0]}${more}`, exitCode(1));
  }
  const failed = failedThresholds(result.thresholds);
  if (failed) return fail(failed, exitCode(3));
  exit(exitCode(0));
}

main().catch((err) => fail(err && err.message ? err.message : String(err), 1));
