// @ts-self-types="../types/index.d.ts"
// The API: loadTest() and startServer(), as in loadtest 8. This entry point joins the portable
// core to the runtime (socket adapter, name lookup, child processes); the core itself never
// asks which runtime it is on.

import { configure, parseUrl, number, parseShard, DEFAULT_CONCURRENCY, firstListedUrl } from './run/options.js';
import { Run } from './run/run.js';
import { runOnCores, shareOf } from './run/cores.js';
import { makeResult } from './run/result.js';
import { RequestLog, LOG_HEADER } from './outputs/request-log.js';
import { LoadSamples } from './outputs/load-samples.js';
import { parseOuts } from './outputs/out-flags.js';
import { mergedLostLines } from './outputs/push-writer.js';
import { metricsText, childrenText } from './results/metrics-text.js';
import { serveMetrics } from '../runtimes/run-servers/metrics.js';
import { serveDashboard } from '../runtimes/run-servers/dashboard.js';
import { runSeconds } from './results/html/dashboard-seconds.js';
import { formatReport } from './results/report.js';
import { htmlReport } from './results/html/html-report.js';
import { VERSION } from './version.js';
import { parseProxy, proxyFromEnv } from './http1/proxy.js';
import { runtime, envVar, envNames, pickAdapter, resolveHost, importUserModule, spawnChild, availableCores, pathOf, cwdUrl, readFile, openFiles, openLogFile, requireProtobuf } from '../runtimes/index.js';
import { startServer as startTestServer } from '../runtimes/test-server/server.js';

const WORKER = pathOf(new URL('./run/worker.js', import.meta.url));

/**
 * Runs a load test. Resolves to the result (it has show()); also calls callback(error, result)
 * when given. Bad options reject; network failures do not, they are counted in the result.
 */
export function loadTest(options, callback) {
  const promise = runLoadTest(options);
  if (typeof callback === 'function') {
    promise.then((result) => callback(null, result), (error) => callback(error));
  }
  return promise;
}

/** Checks the options, resolves the host, loads modules: a Run ready to start. */
export async function prepare(options) {
  options = await withListedUrl(options);
  const url = parseUrl(options && options.url);
  const loaded = await loadModules(options);
  // The proxy option, else the environment's (HTTP_PROXY, HTTPS_PROXY, NO_PROXY); false: none.
  if (loaded.proxy === undefined || loaded.proxy === null) loaded.proxy = proxyFromEnv(url, envVar);
  // Over a Unix socket the URL's host is only the Host header, and through a proxy the proxy
  // resolves it: only the host connected to is looked up.
  const connectTo = loaded.proxy ? parseProxy(loaded.proxy).host : url.hostname;
  const resolvedHost = loaded.socketPath ? null : await resolveHost(connectTo);
  const config = configure(loaded, { version: VERSION, resolvedHost });
  // HTTP/1.1 kept alive, as measured where a default depends on it (runtimes/index.js).
  const load = { connections: Math.max(config.concurrency, config.maxConnections || 0), keepAlive: config.keepAlive && !config.http2 && !config.websocket };
  const adapter = pickAdapter(loaded.socket, config.tls, config.socketPath, config.tunnel, load);
  return { config, adapter, run: new Run(config, adapter) };
}

// loadtest 8's body options, in its order of precedence; each sets its method.
const BODY_OPTIONS = [
  ['postBody', 'POST', false], ['postFile', 'POST', true], ['putFile', 'PUT', true],
  ['patchBody', 'PATCH', false], ['patchFile', 'PATCH', true],
];

/**
 * Turns loadtest 8's postBody, postFile, putFile, patchBody and patchFile (API options and CLI
 * flags alike) into method and body: a file's text, or for a .js file its path as bodyModule,
 * whose default export (index) => body makes a body per request (children load it by path).
 */
export async function withBodyOptions(options) {
  const o = { ...options };
  for (const [name, method, isFile] of BODY_OPTIONS) {
    const v = o[name];
    if (v === undefined || v === null) continue;
    delete o[name];
    o.method = method;
    if (isFile) Object.assign(o, await bodyFromFile(v));
    else o.body = v;
  }
  return o;
}

/** A body file: its text as { body }, or for a .js file its absolute path as { bodyModule }. */
export async function bodyFromFile(path) {
  if (/\.m?js$/.test(path)) return { bodyModule: pathOf(new URL(path, cwdUrl())) };
  try {
    return { body: await readFile(path, 'utf8') };
  } catch (err) {
    throw new Error(`cannot read body file '${path}' (${err.code || err.message})`);
  }
}

// requestGenerator and bodyModule may be module paths, so that child processes can load them.
async function loadModules(options) {
  const o = { ...options };
  if (typeof o.requestGenerator === 'string') o.requestGenerator = await importDefault(o.requestGenerator, 'request generator');
  if (o.bodyModule) o.body = await importDefault(o.bodyModule, 'body module');
  // Data files are read here; src/run/options.js parses them (the core reads no file).
  if (typeof o.feed === 'string') o.feed = { name: o.feed, text: await readData(o.feed, 'feed', null) };
  if (typeof o.urls === 'string') o.urls = { name: o.urls, text: await readData(o.urls, 'urls') };
  if (o.grpc !== undefined && o.grpc !== null && !o.grpcCall) o.grpcCall = await grpcCall(o);
  return o;
}

const listOf = (v) => (v === undefined || v === null ? [] : Array.isArray(v) ? v : [v]);

// options.grpc ({ call, protos, importPaths, metadata }): the method to call, from the .proto
// files or else the server's reflection, as { call, path, encode } (src/grpc/config.js).
// protobufjs is loaded for gRPC runs only.
async function grpcCall(o) {
  const g = o.grpc;
  if (typeof g !== 'object' || Array.isArray(g)) throw new Error('grpc must be an object: { call, protos, importPaths, metadata }');
  for (const key of Object.keys(g)) if (!['call', 'protos', 'importPaths', 'metadata'].includes(key)) throw new Error(`grpc: unknown key '${key}' (call, protos, importPaths, metadata)`);
  if (!/^grpcs?:$/.test(parseUrl(o.url).protocol)) throw new Error('grpc needs a grpc:// or grpcs:// URL');
  if (typeof g.call !== 'string' || g.call === '') throw new Error('grpc needs the method to call: package.Service.Method (--call)');
  await (await import('./grpc/protobuf.js')).loadProtobuf(requireProtobuf);
  const schema = await import('./grpc/schema.js');
  const protos = listOf(g.protos);
  const importPaths = listOf(g.importPaths);
  if (protos.length === 0 && importPaths.length > 0) throw new Error('import paths go with .proto files (--proto), not with reflection');
  const root = protos.length > 0 ? await schema.loadProtoFiles(protos, importPaths, (path) => readFile(path, 'utf8')) : await reflectedRoot(o, g.call);
  const method = schema.findMethod(root, g.call);
  return { call: method.call, path: method.path, encode: schema.requestEncoder(method.requestType) };
}

async function reflectedRoot(o, call) {
  const { reflect } = await import('./grpc/reflection.js');
  const service = call.slice(0, Math.max(call.lastIndexOf('/'), call.lastIndexOf('.')));
  return reflect(service, (path, message) => invokeOnce(o, path, message));
}

// One call (reflection's), as a run of one request on our HTTP/2 driver: { code, messages }.
async function invokeOnce(o, path, message) {
  const { frameMessage, readMessages } = await import('./grpc/frame.js');
  const framed = frameMessage(message);
  const target = { url: o.url, insecure: o.insecure, ca: o.ca, cert: o.cert, key: o.key, socket: o.socket, socketPath: o.socketPath, grpc: { metadata: o.grpc.metadata } };
  const { run } = await prepare({ ...target, grpcCall: { call: path, path, encode: () => framed }, maxRequests: 1, concurrency: 1, timeout: 10000, proxy: false });
  let answer = null;
  run.capture = true;
  run.inspect = (conn, code) => {
    answer = { code, chunks: conn.bodyChunks };
    return null;
  };
  const stats = await run.start();
  if (answer === null) {
    const err = new Error(`reflection: no answer from ${new URL(o.url).host} (${stats.abortReason || Object.keys(stats.errors)[0] || 'no response'})`);
    err.exitCode = 1; // the target, not the command line
    throw err;
  }
  return { code: answer.code, messages: readMessages(answer.chunks) };
}

/** options.urls (a path) without options.url: the URL is the list's first line's. */
export async function withListedUrl(options) {
  if (!options || (options.url !== undefined && options.url !== null) || typeof options.urls !== 'string') return options;
  return { ...options, url: firstListedUrl({ name: options.urls, text: await readData(options.urls, 'urls') }) };
}

async function readData(path, what, encoding = 'utf8') {
  try {
    return await readFile(path, encoding);
  } catch (err) {
    throw new Error(`cannot read ${what} file '${path}' (${err.code || err.message})`);
  }
}

async function importDefault(path, what) {
  let mod;
  try {
    mod = await importUserModule(path);
  } catch (err) {
    throw new Error(`cannot load ${what} '${path}': ${String(err.message).split('\n')[0]}`);
  }
  if (typeof mod.default !== 'function') throw new Error(`${what} '${path}' must export a default function`);
  return mod.default;
}

/**
 * The run behind loadTest() and the CLI. hooks.onStart(handle) receives something to stop
 * (Ctrl-C): the Run itself, or the children's handle on several cores.
 */
export async function runLoadTest(options, hooks = {}) {
  options = await withListedUrl(options);
  if (options && BODY_OPTIONS.some(([name]) => options[name] !== undefined)) options = await withBodyOptions(options);
  if (options && options.shard) options = shardOf(options);
  const cores = number('cores', options && options.cores, { integer: true, min: 1, fallback: 1 });
  const machine = availableCores();
  if (cores > machine) throw new Error(`cores ${cores}: this machine has ${machine}`);
  // Checked before the run, not at its end.
  if (options) number('metricsLinger', options.metricsLinger, { fallback: 0 });
  if (cores > 1) return runOnSeveralCores(options, cores, hooks);
  const { config, adapter, run } = await prepare(options);
  checkOpenFiles(config, 1);
  const log = await attachLog(run, options);
  const outputs = await attachOutputs(run, config, options);
  const metrics = await startMetrics(run, options, hooks);
  const dashboard = await startDashboard(options, hooks, runSeconds(() => run.stats.series));
  if (hooks.onStart) hooks.onStart(run);
  const stats = await run.start();
  // Every line is in the file before the result says the run is over (a failed write rejects).
  if (log !== null) await log.close();
  if (outputs !== null) for (const line of await outputs.close()) if (hooks.onWarning) hooks.onWarning(line);
  const result = makeResult(config, stats, describe(adapter));
  await linger(options, metrics, dashboard, result);
  return result;
}

// After the run: the dashboard shows the result, and both endpoints stay up options.metricsLinger
// seconds, so that the last scrape sees the totals and the page can still be saved.
async function linger(options, metrics, dashboard, result) {
  if (dashboard !== null) dashboard.finish(result, options);
  if (metrics === null && dashboard === null) return;
  const seconds = number('metricsLinger', options.metricsLinger, { fallback: 0 });
  if (seconds > 0) await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  if (metrics !== null) await metrics.close();
  if (dashboard !== null) await dashboard.close();
}

/**
 * options.dashboard (a port, or true for a free one): the run's live page on 127.0.0.1, fed
 * each second by `next()` (an event, or null when there is nothing new). hooks.onDashboard(url)
 * hears where. Returns { finish(result), close() } or null.
 */
async function startDashboard(options, hooks, next) {
  if (!options || options.dashboard === undefined || options.dashboard === null || options.dashboard === false) return null;
  const server = await serveDashboard(options.dashboard === true ? 0 : options.dashboard, { title: String(options.url || '') });
  if (hooks.onDashboard) hooks.onDashboard(server.url);
  const timer = setInterval(() => {
    for (let e = next(); e !== null; e = next()) server.push(e);
  }, 250);
  return {
    finish(result) {
      clearInterval(timer);
      for (let e = next(); e !== null; e = next()) server.push(e);
      const doc = JSON.parse(JSON.stringify(result));
      const summary = { totalRequests: result.totalRequests, totalErrors: result.totalErrors, effectiveRps: result.effectiveRps, percentiles: { 50: result.percentiles[50], 99: result.percentiles[99] }, maxLatencyMs: result.maxLatencyMs };
      server.finish({ report: formatReport(result, false), summary, html: htmlReport(doc, { command: options.output ? options.output.command : undefined, generatedAt: Date.now() }) });
    },
    close: () => server.close(),
  };
}

/**
 * options.metrics ('HOST:PORT'): the run's figures for a Prometheus, served while it goes (and
 * after: linger()). Returns the server ({ url, close() }) or null; hooks.onMetrics(url) hears where.
 */
async function startMetrics(run, options, hooks, render = null) {
  if (!options || options.metrics === undefined || options.metrics === null || options.metrics === false) return null;
  const labels = { run: options.runName || `loadtest-${Date.now().toString(36)}`, runtime: `${runtime.name} ${runtime.version}` };
  if (options.shard) labels.shard = options.shard;
  else labels.core = String(options.coreIndex || 0);
  const server = await serveMetrics(options.metrics, render ? () => render(labels) : () => metricsText(run.metricsSnapshot(), labels));
  if (hooks.onMetrics) hooks.onMetrics(server.url);
  return server;
}

/**
 * options.logFile: the run logs each request that ends to that file (src/outputs/request-log.js),
 * made anew with its header, or appended to by a child of --cores (options.logAppend) whose
 * parent made it. Resolves to the RequestLog to close() after the run, or null.
 */
export async function attachLog(run, options) {
  if (!options || !options.logFile) return null;
  if (typeof options.logFile !== 'string') throw new Error('logFile must be a file path');
  const append = Boolean(options.logAppend);
  const sink = await openLogFile(options.logFile, { append, header: append ? '' : LOG_HEADER });
  const log = new RequestLog(sink, { core: options.coreIndex || 0, shard: options.shard || null });
  run.useLog(log);
  return log;
}

/** options.out: the --out texts (src/outputs/out-flags.js), checked; [] when none. */
function outsOf(options) {
  if (!options || options.out === undefined || options.out === null) return [];
  return parseOuts(Array.isArray(options.out) ? options.out : [options.out], envVar, envNames());
}

/**
 * options.out: each request that ends as a k6 script's samples (src/outputs/load-samples.js),
 * to the outputs' thread. A child of --cores appends to the files its parent made, and each
 * process of a run (its core of its shard) is told apart where a database needs it.
 * Resolves to the outputs to close() after the run (the lines to say), or null.
 */
export async function attachOutputs(run, config, options) {
  const outs = outsOf(options);
  if (outs.length === 0) return null;
  const shard = options.shard ? parseShard(options.shard) : { index: 1, count: 1 };
  const cores = options.coreCount || 1;
  const placement = { append: Boolean(options.outAppend), instance: (shard.index - 1) * cores + (options.coreIndex || 0), instances: shard.count * cores };
  // Loaded only for --out: a plain run leaves the scripts' modules unloaded.
  const { openOutputs } = await import('../runtimes/scripts/host.js');
  const out = await openOutputs(outs, placement);
  run.useSamples(new LoadSamples(config, out));
  return out;
}

// --shard i/n: this process runs share i of n exactly as a child of `cores: n` would (requests,
// connections, rate, interleaved indexes); the shards of one run start and stop together when
// given the same startAt. `loadtest merge` adds their results up.
function shardOf(options) {
  const { index, count } = parseShard(options.shard);
  const concurrency = number('concurrency', options.concurrency, { integer: true, min: 1, fallback: DEFAULT_CONCURRENCY });
  const maxRequests = number('maxRequests', options.maxRequests, { integer: true, fallback: 0 });
  if (concurrency < count) throw new Error(`shard ${options.shard}: ${concurrency} connections cannot be shared by ${count} shards (raise concurrency)`);
  if (maxRequests && maxRequests < count) throw new Error(`shard ${options.shard}: ${maxRequests} requests cannot be shared by ${count} shards`);
  // With neither limit a run lasts 10 s (loadtest 8); fixed here so that no share of the
  // requests turns it into a run without a time limit.
  // (Stages fix the length themselves.)
  const staged = options.stages || options.connectionStages;
  const maxSeconds = number('maxSeconds', options.maxSeconds, { fallback: maxRequests || staged ? 0 : 10 });
  return { ...shareOf({ ...options, concurrency, maxRequests, maxSeconds }, index - 1, count), shard: `${index}/${count}` };
}

async function runOnSeveralCores(options, cores, hooks) {
  const functions = ['statusCallback', 'contentInspector', 'indexParamCallback', 'requestGenerator', 'body'].filter((k) => typeof options[k] === 'function');
  if (functions.length > 0) {
    throw new Error(`cores ${cores}: ${functions.join(', ')} cannot be sent to child processes (give requestGenerator and bodyModule as module paths)`);
  }
  // Everything is checked here, once, so that children do not each fail with the same error.
  const { config, adapter } = await prepare(options);
  // A child needs at least one connection and one request.
  const used = Math.min(cores, config.concurrency, config.maxRequests || Infinity);
  checkOpenFiles(config, used);
  const pem = (v) => (v === undefined || v === null || typeof v === 'string' ? v : new TextDecoder().decode(v));
  // The log's file is made here, with its header; each child appends its lines; so are --out's files.
  if (options.logFile) await (await openLogFile(options.logFile, { header: LOG_HEADER })).close();
  const outs = outsOf(options);
  if (outs.length > 0) await (await import('../runtimes/scripts/host.js')).makeOutputFiles(outs);
  const childOptions = {
    ...options,
    concurrency: config.concurrency,
    maxRequests: config.maxRequests,
    maxSeconds: config.maxSeconds,
    requestsPerSecond: config.requestsPerSecond,
    ca: pem(options.ca),
    cert: pem(options.cert),
    key: pem(options.key),
    signal: undefined,
    failFast: options.failFast,
    logAppend: Boolean(options.logFile),
    outAppend: true,
    // The parent serves --metrics for every child; each sends it its figures.
    metrics: undefined,
    metricsFromChildren: Boolean(options.metrics),
    // --dashboard: each child sends each second it closes, with its latency buckets.
    secondsFromChildren: Boolean(options.dashboard),
  };
  let handle = null;
  const onStart = (h) => {
    handle = h;
    if (options.signal) options.signal.addEventListener('abort', () => h.stop(), { once: true });
    if (hooks.onStart) hooks.onStart(h);
  };
  // --metrics: one endpoint, each child's figures as its own series (core="0", "1", ...).
  const metrics = await startMetrics(null, options, hooks, (labels) => (handle === null || !handle.metrics ? '' : childrenText(handle.metrics(), labels)));
  const dashboard = await startDashboard(options, hooks, runSeconds(() => (handle === null ? null : handle.seconds())));
  const writes = [options.logFile, ...outsOf(options).map((o) => o.file)].filter(Boolean);
  const spawn = (script) => spawnChild(script, {}, { unixSocket: config.socketPath, writes, load: true });
  const { stats, childErrors, warnings } = await runOnCores(childOptions, used, spawn, WORKER, { onStart });
  if (hooks.onWarning) for (const line of mergedLostLines(warnings)) hooks.onWarning(line);
  const result = makeResult(config, stats, { ...describe(adapter), cores: used, childErrors });
  await linger(options, metrics, dashboard, result);
  return result;
}

// Files the runtime may open meanwhile (its own pipes, a module, a DNS socket), beyond one per connection.
const SPARE_FILES = 32;

// More connections than the process may open files would each fail with EMFILE, thousands of
// errors that measure nothing: say so before the run. `processes`: the children of --cores,
// which inherit this limit, each open their share.
function checkOpenFiles(config, processes) {
  const files = openFiles();
  if (files === null) return;
  const wanted = Math.min(Math.max(config.concurrency, config.maxConnections), config.maxRequests || Infinity);
  const each = Math.ceil(wanted / processes);
  if (each + SPARE_FILES <= files.free) return;
  const per = processes > 1 ? ` per process (${wanted} on ${processes} cores)` : '';
  const needed = files.limit - files.free + each + SPARE_FILES;
  throw new Error(`${each} connections${per} need ${each} open files, but the open-file limit (ulimit -n) is ${files.limit} and ${files.free} are free: raise it (ulimit -n ${needed}), lower -c, or spread the load with --cores or --shard`);
}

function describe(adapter) {
  return { runtime: `${runtime.name} ${runtime.version}`, socket: adapter.name };
}

/** Starts the test server; resolves to { port, server, requests, errors, close() }, or with a callback returns it at once. */
export function startServer(options, callback) {
  return startTestServer(options, callback);
}

export { VERSION };
export { mergeResults } from './results/merge.js';
export { parseThreshold, checkThresholds } from './results/thresholds.js';
