// The loadtest command's load run (src/cli.js sends every command line that is not a
// subcommand here): loadtest 8's flags, parsed with mri. Every problem ends in one line on
// stderr and a non-zero exit (2: bad usage, 1: the run failed), never a stack trace.

import mri from 'mri';
import { runLoadTest, withBodyOptions, withListedUrl, bodyFromFile, VERSION } from '../index.js';
import { number, parseShard, shardFromEnv, parseUrl } from '../run/options.js';
import { wantsDistribution } from '../distribute/flags.js';
import { STRINGS, LONG_STRINGS, BOOLEANS, LONG_BOOLEANS, HELP } from './flags.js';
import { findConfig, withConfig } from './config-file.js';
import { argv, exit, wantsColor, onInterrupt, readFile, pathOf, cwdUrl, homeUrl, runtime, pickAdapter, terminal, writeText, envVar } from '../../runtimes/index.js';
import { writeOutputs } from './output.js';
import { parseStages } from '../run/stages.js';
import { harRequests } from '../requests/har.js';
import { parseThreshold, failedThresholds } from '../results/thresholds.js';
import { startProgress } from '../results/progress.js';
import { parseLevels, checkSweepOptions } from '../run/sweep.js';

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
  // --dashboard [PORT]: a value that is not a port is the next argument (the URL), given back.
  if (parsed.dashboard !== undefined) {
    const v = last(parsed.dashboard);
    if (v !== '' && !/^\d+$/.test(v)) parsed._.push(v);
    parsed.dashboard = /^\d+$/.test(v) ? Number(v) : true;
  }
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

// A number flag's value, checked (-n/--maxRequests: `flag` is its short name, or '').
function numberFlag(args, flag, name, opts) {
  const v = flagValue(args, name);
  if (v === undefined) return undefined;
  try {
    return number(flag ? `-${flag}/--${name}` : `--${name}`, v, opts);
  } catch (err) {
    throw new UsageError(err.message);
  }
}

/** Turns the parsed flags into loadTest() options. */
async function toOptions(args) {
  const o = {};
  // Numbers first: in "-n URL" the URL was taken as -n's value, and that is the error to name.
  o.maxRequests = numberFlag(args, 'n', 'maxRequests', { integer: true });
  o.concurrency = numberFlag(args, 'c', 'concurrency', { integer: true, min: 1 });
  o.maxSeconds = numberFlag(args, 't', 'maxSeconds', {});
  o.timeout = numberFlag(args, 'd', 'timeout', {});
  o.maxBodySize = numberFlag(args, '', 'max-body', { integer: true, min: 1 });
  await targetOptions(args, o);
  const rps = flagValue(args, 'rps') ?? flagValue(args, 'requestsPerSecond');
  if (rps !== undefined) {
    try {
      o.requestsPerSecond = number('--rps', rps, {});
    } catch (err) {
      throw new UsageError(err.message);
    }
  }
  placementOptions(args, o);
  connectionOptions(args, o);
  stageOptions(args, o);
  givenOptions(args, o);
  await bodyOptions(args, o);
  await tlsFiles(args, o);
  o.thresholds = list(args.threshold).map((text) => {
    if (text === '') throw new UsageError('option --threshold needs a value, e.g. --threshold p99<50ms');
    try {
      parseThreshold(text);
    } catch (err) {
      throw new UsageError(err.message);
    }
    return text;
  });
  // Where the result goes (src/commands/output.js); not loadTest() options.
  o.output = { json: Boolean(args.json), jsonFile: flagValue(args, 'json-file'), hdrLog: flagValue(args, 'hdr-log'), html: flagValue(args, 'html'), command: argv() };
  const generator = flagValue(args, 'requestGenerator');
  if (generator !== undefined) o.requestGenerator = absolute(generator);
  o.failFast = true;
  const sweep = flagValue(args, 'sweep');
  if (sweep !== undefined) {
    try {
      o.sweep = parseLevels(sweep);
      checkSweepOptions(o);
    } catch (err) {
      throw new UsageError(err.message);
    }
  }
  return o;
}

// The URL argument, and --requests or --har's sequence.
async function targetOptions(args, o) {
  if (args._.length > 1) throw new UsageError(`too many arguments: ${args._.join(' ')}`);
  const sequence = await sequenceFile(args, args._.length ? String(args._[0]) : null);
  // --urls alone: its first line gives the URL (src/run/options.js), as --requests' first entry does.
  if (args._.length === 0 && !sequence && flagValue(args, 'urls') === undefined) throw new UsageError('missing URL to load-test (see loadtest --help)');
  o.url = args._.length ? String(args._[0]) : sequence ? sequence.url : undefined;
  if (sequence) o.requests = sequence.requests;
}

// --cores, --shard and --start-at: which part of the run this process makes, and when.
function placementOptions(args, o) {
  o.cores = numberFlag(args, '', 'cores', { integer: true, min: 1 });
  o.shard = flagValue(args, 'shard');
  if (o.shard !== undefined) {
    try {
      if (o.shard === 'env') o.shard = shardFromEnv(envVar);
      parseShard(o.shard);
    } catch (err) {
      throw new UsageError(`--${err.message}`);
    }
  }
  o.startAt = numberFlag(args, '', 'start-at', { integer: true });
  // Seconds given for milliseconds read as 1970 (start at once); the other slip, a date far
  // ahead, would wait silently for days.
  if (o.startAt && o.startAt - Date.now() > 86400000) throw new UsageError(`--start-at ${o.startAt} is more than a day from now (epoch milliseconds, e.g. $(( ($(date +%s) + 10) * 1000 )))`);
}

// --max-connections, --pipeline, --http2, the gRPC call and --streams.
function connectionOptions(args, o) {
  o.maxConnections = numberFlag(args, '', 'max-connections', { integer: true, min: 1 });
  o.pipelining = numberFlag(args, '', 'pipeline', { integer: true, min: 1 });
  if (args.http2) o.http2 = true;
  o.grpc = grpcOptions(args, o.url);
  o.streams = numberFlag(args, '', 'streams', { integer: true, min: 1 });
  if (o.streams !== undefined && !o.http2 && !o.grpc) throw new UsageError('--streams applies to --http2 and --grpc only');
}

// --stages (a rate) or --connection-stages, and the flags they leave no room for.
function stageOptions(args, o) {
  o.stages = flagValue(args, 'stages');
  o.connectionStages = flagValue(args, 'connection-stages');
  for (const [name, text] of [['--stages', o.stages], ['--connection-stages', o.connectionStages]]) {
    try {
      parseStages(text, name);
    } catch (err) {
      throw new UsageError(err.message);
    }
  }
  if (o.stages !== undefined && o.connectionStages !== undefined) throw new UsageError('--stages (a rate) and --connection-stages (connections): give one');
  if (o.stages !== undefined && o.requestsPerSecond) throw new UsageError('--stages set the rate: leave out --rps');
  if ((o.stages ?? o.connectionStages) !== undefined && o.maxSeconds) throw new UsageError('the stages set the run\'s length: leave out -t');
  if (o.connectionStages !== undefined && o.concurrency !== undefined) throw new UsageError('--connection-stages set the connections: leave out -c');
  if (o.maxConnections !== undefined && !o.requestsPerSecond && o.stages === undefined) throw new UsageError('--max-connections goes with --rps or --stages (the open model)');
}

// The flags taken as given (src/index.js checks them): the requests, the sockets, the run's
// name and servers; and --check's JSON.
function givenOptions(args, o) {
  o.proxy = flagValue(args, 'proxy');
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
  o.logFile = flagValue(args, 'log-file');
  if (args.out !== undefined) o.out = list(args.out);
  o.metrics = flagValue(args, 'metrics');
  o.metricsLinger = flagValue(args, 'metrics-linger');
  if (args.dashboard !== undefined) o.dashboard = args.dashboard;
  o.runName = flagValue(args, 'run-name');
  o.feed = flagValue(args, 'feed');
  o.feedOrder = flagValue(args, 'feed-order');
  o.seed = flagValue(args, 'seed');
  o.urls = flagValue(args, 'urls');
  // From the configuration file only: captures and checks for a sequence's entries (a HAR's).
  if (args.entryOptions !== undefined) o.entryOptions = args.entryOptions;
  const check = flagValue(args, 'check');
  if (check !== undefined) {
    try {
      o.check = JSON.parse(check);
    } catch (err) {
      throw new UsageError(`--check takes a JSON object, e.g. '{"status":200}' (${err.message.split('\n')[0]})`);
    }
  }
  o.secureProtocol = flagValue(args, 'secureProtocol');
}

// The request's body and its method, from the configuration file or the body flags.
async function bodyOptions(args, o) {
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
  const dataFile = flagValue(args, 'data-file');
  if (data !== undefined && dataFile !== undefined) throw new UsageError('--data and --data-file both give the body: give one');
  if (data !== undefined) o.body = data;
  if (dataFile !== undefined) {
    try {
      o.body = await readFile(dataFile, 'utf8');
    } catch (err) {
      throw new UsageError(`cannot read --data-file '${dataFile}' (${err.code || err.message})`);
    }
  }
  const bodies = {};
  for (const name of ['postBody', 'postFile', 'putFile', 'patchBody', 'patchFile']) bodies[name] = flagValue(args, name);
  try {
    Object.assign(o, await withBodyOptions(bodies));
  } catch (err) {
    throw new UsageError(err.message);
  }
}

// --cert, --key and --ca: their files' PEM text.
async function tlsFiles(args, o) {
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
}

// --grpc, --call, --proto, --import-path, --metadata (or a grpc:// URL): the run's gRPC call
// (src/index.js resolves it), or undefined.
function grpcOptions(args, url) {
  const given = ['call', 'proto', 'import-path', 'metadata'].filter((name) => args[name] !== undefined);
  const byUrl = typeof url === 'string' && /^grpcs?:/i.test(url);
  if (!args.grpc && !byUrl && given.length === 0) return undefined;
  if (!byUrl) throw new UsageError(`${args.grpc ? '--grpc' : `--${given[0]}`} needs a grpc://HOST:PORT or grpcs://HOST:PORT URL`);
  const call = flagValue(args, 'call');
  if (call === undefined) throw new UsageError('a gRPC run needs --call package.Service.Method');
  for (const name of ['proto', 'import-path', 'metadata']) if (list(args[name]).includes('')) throw new UsageError(`option --${name} needs a value`);
  return { call, protos: list(args.proto), importPaths: list(args['import-path']), metadata: list(args.metadata) };
}

// --requests FILE (a JSON list, or { requests: [...] }) or --har FILE: the sequence, and the URL
// when none was given (the first entry's).
async function sequenceFile(args, url) {
  const json = flagValue(args, 'requests');
  const har = flagValue(args, 'har');
  if (json === undefined && har === undefined) return null;
  if (json !== undefined && har !== undefined) throw new UsageError('--requests and --har both give the requests: give one');
  const path = json ?? har;
  const flag = json !== undefined ? '--requests' : '--har';
  let parsed;
  try {
    parsed = JSON.parse(await readFile(path, 'utf8'));
  } catch (err) {
    throw new UsageError(`${flag}: cannot read '${path}' (${err.code || err.message.split('\n')[0]})`);
  }
  try {
    if (har !== undefined) {
      const { url: first, requests, skipped } = harRequests(parsed, url);
      if (skipped > 0) console.error(`loadtest: --har: ${skipped} entries on other origins left out`);
      return { url: first, requests };
    }
    const requests = Array.isArray(parsed) ? parsed : parsed && parsed.requests;
    if (!Array.isArray(requests)) throw new Error(`'${path}' must hold a list of requests, or { "requests": [...] }`);
    if (url) return { url, requests };
    // No URL: the first entry's must be a full one.
    const withUrl = requests.find((r) => r && typeof r.url === 'string' && /^https?:\/\//.test(r.url));
    if (!withUrl) throw new Error('no URL given, and no entry has a full url to take the origin from');
    return { url: withUrl.url, requests };
  } catch (err) {
    throw new UsageError(`${flag}: ${err.message}`);
  }
}

// A plain-http run through a proxy whose every answer is the proxy's own refusal.
function refusedByProxy(result) {
  const statuses = Object.keys(result.statusCodes);
  if (!result.proxy || statuses.length !== 1) return null;
  if (statuses[0] === '407') return `proxy ${result.proxy} answered every request with 407 Proxy Authentication Required (credentials go in the proxy URL: http://user:password@host:port)`;
  return null;
}

// Why a run where nothing got a response failed, in words.
function describeFailure(result, target) {
  const reasons = Object.keys(result.errorCodes);
  const reason = result.abortReason || reasons[0] || 'no response';
  // Through a proxy, connections are made to the proxy: it is what refuses or cannot be reached.
  const peer = result.proxy ? `proxy ${result.proxy}` : target;
  const words = {
    ECONNREFUSED: `connection refused by ${peer}`,
    ENOENT: `no such socket: ${target}`,
    ECONNRESET: `connection reset by ${peer}`,
    EHOSTUNREACH: `host unreachable: ${peer}`,
    ENETUNREACH: `network unreachable: ${peer}`,
    EADDRNOTAVAIL: `no free local port to connect to ${target}: the ephemeral ports are used up (without -k each request takes one, held in TIME_WAIT for a minute; use -k)`,
    timeout: `every request to ${target} timed out`,
    'closed before response': `${target} closed every connection before responding`,
    CERT_ERROR: `certificate check failed for ${target} (use --ca FILE to trust its CA, or --insecure)`,
  };
  if (words[reason]) return words[reason];
  if (reason.startsWith('malformed response')) return `${reason} from ${target}`;
  if (reason.startsWith('not HTTP/2')) return `${target} does not speak HTTP/2: no SETTINGS in answer to the connection preface (over https, the server did not choose h2 by ALPN)`;
  if (reason.startsWith('proxy ')) return `${reason} (CONNECT to ${target})`;
  return `every request to ${target} failed: ${reason}`;
}

/** The load run of the command line (argv()): its report, its outputs, its exit code. */
export async function loadCommand() {
  if (wantsDistribution(argv())) return distributeLoad();
  let args;
  let options;
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
    options = await optionsOf(args);
  } catch (err) {
    return fail(err.message, 2);
  }
  // Named after the run, which has checked the URL by then.
  const targetOf = () => (options.socketPath ? `unix:${options.socketPath}` : new URL(options.url).host);
  // The probe shows the frames but reads a response as HTTP's: not yet for a call.
  if (args.probe && options.grpc) return fail('--probe does not apply to gRPC runs yet', 2);
  if (args.probe) return (await import('./probe.js')).probeCommand(args, options, { fail, describeFailure: (r) => describeFailure(r, targetOf()), targetOf });
  if (options.sweep) return (await import('./sweep.js')).sweepCommand(options, { fail, describeFailure: (r) => describeFailure(r, targetOf()), targetOf });
  const { result, signalled } = await runWithProgress(options);
  const exitCode = (code) => exitCodeAfter(signalled, code);
  const target = targetOf();
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
  const proxyRefusal = refusedByProxy(result);
  if (proxyRefusal) return fail(proxyRefusal, exitCode(1));
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

// --on swarm|kubernetes --shards N: the shards' command line is checked here before any starts.
async function distributeLoad() {
  const check = async (rest) => {
    const given = parseArgs(rest);
    if (given.help || given.version) throw new UsageError('--help and --version are not for --on');
    const options = await withListedUrl(await toOptions(given));
    if (options.url && !options.socketPath) parseUrl(options.url);
  };
  return (await import('./distribute.js')).distributeCommand(argv(), { kind: 'load', check });
}

// The run's options: the flags, over the configuration file's (src/commands/config-file.js).
async function optionsOf(args) {
  const config = await findConfig(cwdUrl(), homeUrl(), readIfThere);
  const options = await withListedUrl(await toOptions(config ? withConfig(args, config.flags) : args));
  // A configuration file's concurrency gives way to the sweep's; a -c flag contradicts it.
  if (options.sweep && args.concurrency !== undefined) throw new UsageError('--sweep gives the concurrency of each run: leave out -c');
  return options;
}

// Shells and CI read 128 + the signal's number: 130 for Ctrl-C (SIGINT), 143 for SIGTERM.
function exitCodeAfter(signalled, code) {
  return signalled === null ? code : signalled === 'SIGTERM' ? 143 : 130;
}

// The run, with its progress line: its result and the signal that stopped it (or null).
async function runWithProgress(options) {
  let run = null;
  let stopProgress = () => {};
  let signalled = null;
  const removeInterrupt = onInterrupt((signal) => {
    // The first signal stops the run and the report of what was done still prints; a second
    // one (or one before the run began) quits at once.
    const first = signalled === null;
    signalled = signalled || signal;
    if (first && run && !run.stopping) return run.interrupt();
    stopProgress();
    exit(exitCodeAfter(signalled, 1));
  });
  try {
    const result = await runLoadTest(options, {
      onMetrics: (url) => console.error(`loadtest: metrics at ${url}`),
      onDashboard: (url) => console.error(`loadtest: dashboard at ${url}`),
      onWarning: (line) => console.error(`loadtest: ${line}`),
      onStart(r) {
        run = r;
        // With --json, stdout holds the document and nothing else.
        const stream = options.output.json ? 'stderr' : 'stdout';
        const io = { terminal, write: writeText, ci: envVar('CI'), color: wantsColor(stream) };
        stopProgress = startProgress(r, { quiet: options.quiet, stream }, io);
      },
    });
    return { result, signalled };
  } catch (err) {
    // Bad options are usage errors (2); a target that could not be asked (reflection) is 1.
    return fail(err.message, err.exitCode || 2);
  } finally {
    stopProgress();
    removeInterrupt();
  }
}
