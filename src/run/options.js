// loadtest 8's options, checked and turned into what a run needs. Every bad value is an Error
// with a one-line message naming the option, thrown before any connection is made.

import { bodyBytes, checkRequestParts } from '../http1/request.js';
import { createRequests } from '../requests/requests.js';
import { parseThresholds } from '../results/thresholds.js';
import { createMessages, handshakeTemplate } from '../websocket/protocol.js';
import { parseProxy, connectRequest } from '../http1/proxy.js';
import { parseStages, stagesDuration, highestTarget } from './stages.js';
import { parseSequence } from '../requests/sequence.js';
import { parseFeed, parseUrlList, feedOrder } from '../requests/feed.js';
import { parseChecks } from '../requests/checks.js';
import { grpcConfig } from '../grpc/config.js';

const SECURE = { 'https:': true, 'wss:': true, 'grpcs:': true };
const GRPC = { 'grpc:': true, 'grpcs:': true };

let instances = 0;

/** A non-negative number (integer when asked), or the default when absent; throws otherwise. */
export function number(name, value, { integer = false, min = 0, fallback } = {}) {
  if (value === undefined || value === null || value === '' || value === false) return fallback;
  const n = typeof value === 'number' ? value : Number(String(value).trim());
  if (!Number.isFinite(n) || (typeof value !== 'number' && String(value).trim() === '')) {
    throw new Error(`${name} must be a number, got '${value}'`);
  }
  if (integer && !Number.isInteger(n)) throw new Error(`${name} must be a whole number, got '${value}'`);
  if (n < min) throw new Error(`${name} must be ${min === 0 ? 'zero or more' : `at least ${min}`}, got '${value}'`);
  return n;
}

export const DEFAULT_CONCURRENCY = 10;

/** "i/n": this process runs share i (1 to n) of a run split over n processes or machines. */
/**
 * `--shard env`: the share an orchestrator gives a task (src/distribute/): LOADTEST_SHARD as
 * i/n (a Docker Swarm task's slot), or Kubernetes' JOB_COMPLETION_INDEX (from 0) with
 * LOADTEST_SHARDS as n. `get(name)`: an environment variable, or undefined.
 */
export function shardFromEnv(get) {
  const given = get('LOADTEST_SHARD');
  if (given !== undefined && given !== '') return given;
  const index = get('JOB_COMPLETION_INDEX');
  const count = get('LOADTEST_SHARDS');
  if (index !== undefined && /^\d+$/.test(index) && count !== undefined) return `${Number(index) + 1}/${count}`;
  throw new Error('shard env: no LOADTEST_SHARD (i/n), nor JOB_COMPLETION_INDEX with LOADTEST_SHARDS, in the environment');
}

export function parseShard(text) {
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(String(text));
  const index = m ? Number(m[1]) : 0;
  const count = m ? Number(m[2]) : 0;
  if (!m || count < 1 || index < 1 || index > count) throw new Error(`shard '${text}' must be i/n with 1 <= i <= n, e.g. 2/3`);
  return { index, count };
}

export function parseUrl(url) {
  if (!url || typeof url !== 'string') throw new Error('missing URL to load-test');
  let parsed;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`invalid URL '${url}'`);
  }
  if (!['http:', 'https:', 'ws:', 'wss:', 'grpc:', 'grpcs:'].includes(parsed.protocol)) throw new Error(`invalid URL '${url}': must start with http://, https://, ws://, wss://, grpc:// or grpcs://`);
  if (!parsed.hostname) throw new Error(`invalid URL '${url}': no host`);
  if (GRPC[parsed.protocol] && !parsed.port) throw new Error(`invalid URL '${url}': give the port (${parsed.protocol}//HOST:PORT)`);
  if (GRPC[parsed.protocol] && parsed.pathname !== '' && parsed.pathname !== '/') throw new Error(`invalid URL '${url}': a gRPC target has no path (the method is --call's)`);
  return parsed;
}

/** loadtest 8's headers option: an object, a "name:value" string, or an array of them. */
export function normalizeHeaders(raw) {
  const headers = {};
  const addText = (text) => {
    const colon = String(text).indexOf(':');
    if (colon <= 0) throw new Error(`invalid header '${text}': use name:value`);
    headers[text.slice(0, colon).trim().toLowerCase()] = text.slice(colon + 1).trim();
  };
  if (!raw) return headers;
  if (Array.isArray(raw)) raw.forEach(addText);
  else if (typeof raw === 'string') addText(raw);
  else if (typeof raw === 'object') for (const k in raw) headers[k.toLowerCase()] = String(raw[k]);
  else throw new Error('headers must be an object, a string or an array of strings');
  return headers;
}

/**
 * Checks the options and returns the run's configuration. `host` is the resolved address;
 * everything else comes from the options.
 */
export function configure(options, { version, resolvedHost }) {
  if (!options || typeof options !== 'object') throw new Error('options must be an object with a url');
  const url = parseUrl(options.url);
  const limits = runLimits(options);
  // gRPC is HTTP/2 (src/grpc/config.js makes the rest of the run a call).
  const grpc = GRPC[url.protocol] === true;
  const connections = connectionsOf(options, url, grpc);
  const { method, headers, cookies } = requestParts(options);
  const body = options.body ?? options.data;
  const contentType = options.contentType || headers['content-type'];
  const path = url.pathname + url.search;
  const config = {
    url: options.url,
    method,
    path,
    hostHeader: headers.host || url.host,
    host: resolvedHost || url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port ? Number(url.port) : SECURE[url.protocol] ? 443 : 80,
    tls: SECURE[url.protocol] ? tlsConfig(url, options, connections.http2) : null,
    websocket: url.protocol === 'ws:' || url.protocol === 'wss:',
    // A Unix domain socket to connect to; the URL still gives the Host header and the path.
    socketPath: socketPath(options.socketPath),
    headers,
    cookies: cookies || [],
    body,
    bodyBytes: typeof body === 'function' ? null : bodyBytes(body, contentType),
    contentType,
    ...connections,
    ...limits,
    indexParam: options.indexParam || options.index || options.indexParamLiteral || null,
    indexParamCallback: options.indexParamCallback || null,
    requestGenerator: options.requestGenerator || null,
    statusCallback: options.statusCallback || null,
    contentInspector: options.contentInspector || null,
    quiet: Boolean(options.quiet),
    failFast: Boolean(options.failFast),
    signal: options.signal || null,
    indexStride: options.indexStride || 1,
    indexOffset: options.indexOffset || 0,
    // Wall-clock ms: begin then (shards, children), and with maxSeconds stop at startAt + maxSeconds.
    startAt: number('startAt', options.startAt, { integer: true, fallback: 0 }),
    shard: options.shard || null,
    // A child of --cores whose parent serves --metrics: it sends its figures once a second.
    metricsFromChildren: Boolean(options.metricsFromChildren),
    secondsFromChildren: Boolean(options.secondsFromChildren),
    thresholds: parseThresholds(options.thresholds),
    instanceIndex: instances++,
    version,
  };
  if (config.http2) checkHttp2(config, options);
  if (grpc) grpcConfig(config, options, options.grpcCall);
  if (options.proxy) useProxy(config, url, parseProxy(options.proxy), resolvedHost);
  addRequestSources(config, options, url);
  // The body as text, for --index to replace in it (as sent: JSON or form already applied).
  config.bodyText = config.bodyBytes ? new TextDecoder().decode(config.bodyBytes) : null;
  addRequests(config);
  return config;
}

/** How much to send and how fast: the limits, the rate or the stages, and the connections. */
function runLimits(options) {
  const maxRequests = number('maxRequests', options.maxRequests, { integer: true, fallback: 0 });
  let maxSeconds = number('maxSeconds', options.maxSeconds, { fallback: 0 });
  let concurrency = number('concurrency', options.concurrency, { integer: true, min: 1, fallback: DEFAULT_CONCURRENCY });
  const timeout = number('timeout', options.timeout, { fallback: 0 });
  const maxBodySize = number('maxBodySize', options.maxBodySize, { integer: true, fallback: 0 });
  const requestsPerSecond = number('requestsPerSecond', options.requestsPerSecond ?? options.rps, { fallback: 0 });
  const stages = parseStages(options.stages, 'stages');
  const connectionStages = parseStages(options.connectionStages, 'connectionStages');
  const staged = stages || connectionStages;
  if (stages && connectionStages) throw new Error('stages (a rate) and connectionStages (connections): give one');
  if (stages && requestsPerSecond) throw new Error('stages set the rate: leave out requestsPerSecond');
  if (staged) {
    // The stages are the run's length (children get it back as maxSeconds: the same number).
    const duration = stagesDuration(staged);
    if (maxSeconds && Math.abs(maxSeconds - duration) > 1e-9) throw new Error(`the stages last ${duration} s: leave out maxSeconds`);
    maxSeconds = duration;
  }
  // With connection stages, connections come and go with the target, up to its highest.
  if (connectionStages) concurrency = Math.max(1, Math.ceil(highestTarget(connectionStages)));
  // loadtest 8: with neither limit, 10 seconds.
  if (!maxRequests && !maxSeconds) maxSeconds = 10;
  const maxConnections = number('maxConnections', options.maxConnections, { integer: true, fallback: 0 });
  return { concurrency, maxRequests, maxSeconds, timeout, maxBodySize, requestsPerSecond, stages, connectionStages, maxConnections };
}

/** What a connection carries: keep-alive, pipelining, HTTP/2 (or gRPC) and its streams. */
function connectionsOf(options, url, grpc) {
  const pipelining = number('pipelining', options.pipelining, { integer: true, min: 1, fallback: 1 });
  if (grpc && !options.grpcCall) throw new Error(`a ${url.protocol}// URL needs the method to call (grpc: { call }, --call)`);
  if (!grpc && (options.grpcCall || options.grpc)) throw new Error('grpc needs a grpc:// or grpcs:// URL');
  const http2 = Boolean(options.http2) || grpc;
  const streams = number('streams', options.streams, { integer: true, min: 1, fallback: 1 });
  if (options.streams !== undefined && options.streams !== null && !http2) throw new Error('streams applies to HTTP/2 only (--http2)');
  return {
    // Pipelining needs the connection kept open for the requests behind the first: it implies
    // keep-alive, as autocannon's -p does.
    // So does HTTP/2: its connections carry stream after stream.
    keepAlive: pipelining > 1 || http2 || Boolean(options.agentKeepAlive ?? options.keepalive ?? options.keepAlive),
    pipelining,
    http2,
    streams,
  };
}

/** The request's method, headers and cookies, and the callbacks that change it, checked. */
function requestParts(options) {
  const method = String(options.method || 'GET').toUpperCase();
  const headers = normalizeHeaders(options.headers);
  checkRequestParts(method, headers);
  let cookies = options.cookies;
  if (typeof cookies === 'string') cookies = [cookies];
  if (cookies !== undefined && cookies !== null && !Array.isArray(cookies)) throw new Error('cookies must be a string or an array of strings');
  for (const f of ['statusCallback', 'contentInspector', 'indexParamCallback', 'requestGenerator']) {
    if (options[f] !== undefined && options[f] !== null && typeof options[f] !== 'function') throw new Error(`${f} must be a function`);
  }
  // loadtest 8 reads indexParam as a regular expression and indexParamLiteral as a string; here
  // both are the string, so only the exclusion is kept.
  if (options.indexParamLiteral && (options.indexParam || options.index)) throw new Error('use indexParam or indexParamLiteral, not both');
  return { method, headers, cookies };
}

function checkHttp2(config, options) {
  if (config.websocket) throw new Error('http2 does not apply to ws:// URLs');
  if (config.pipelining > 1) throw new Error('http2 and pipelining do not go together (use streams: several requests in flight on a connection)');
  if (options.proxy) throw new Error('http2 through a proxy is not supported');
}

/** What else makes or checks the requests: a sequence, a feed, a URL list, checks. */
function addRequestSources(config, options, url) {
  config.sequence = sequenceOf(options, config, url);
  config.feed = feedOf(options, config);
  config.urlList = urlListOf(options, config, url);
  config.check = options.check === undefined || options.check === null ? null : parseChecks(options.check, 'check');
  if (config.sequence && config.sequence.some((e) => e.capture !== null) && (config.pipelining > 1 || config.streams > 1)) {
    // The next entry goes out before the answer it takes its value from would come back.
    throw new Error('captures need one request at a time on a connection: leave out pipelining and streams');
  }
}

/** The bytes of each request, or of each WebSocket message and the handshake. */
function addRequests(config) {
  if (config.websocket) {
    // A message has no method, path or headers of its own: only its body can vary.
    if (config.requestGenerator) throw new Error('requestGenerator does not apply to ws:// URLs (a body function makes a message per request)');
    if (config.pipelining > 1) throw new Error('pipelining does not apply to ws:// URLs (a connection waits for each message\'s reply)');
    config.method = 'GET'; // the handshake's, whatever a body flag set
    config.wsHandshake = handshakeTemplate(config);
    config.requests = createMessages(config);
  } else {
    config.requests = createRequests(config);
  }
}

// Through a proxy, connections go to the proxy (resolvedHost is then its address). Plain http
// sends it absolute-form requests; https and WebSocket targets get a CONNECT tunnel, opened by
// the socket adapter before TLS, so the proxy sees neither the requests nor the messages.
function useProxy(config, url, proxy, resolvedHost) {
  if (config.socketPath) throw new Error('proxy and socketPath (--unix-socket) cannot go together');
  const target = url.hostname.replace(/^\[|\]$/g, '');
  config.proxy = proxy;
  config.tunnel = config.tls || config.websocket ? { host: target, request: connectRequest(target, config.port, proxy.authorization) } : null;
  config.host = resolvedHost || proxy.host;
  config.port = proxy.port;
  if (config.tunnel === null) {
    config.requestOrigin = `http://${url.host}`;
    if (proxy.authorization && !config.headers['proxy-authorization']) config.proxyAuthorization = proxy.authorization;
  }
}

// `requests`: a sequence of requests on the run's origin, instead of the URL's one request.
function sequenceOf(options, config, url) {
  if (options.requests === undefined || options.requests === null) return null;
  if (config.websocket) throw new Error('requests (a sequence) does not apply to ws:// URLs');
  if (config.requestGenerator) throw new Error('requests and requestGenerator both make the requests: give one');
  if (config.indexParam) throw new Error('requests and indexParam do not go together (each entry\'s bytes are built once)');
  if (typeof config.body === 'function') throw new Error('requests: give each entry its body instead of a body function');
  return parseSequence(withEntryOptions(options.requests, options.entryOptions), url, { method: options.method, path: config.path });
}

// entryOptions: { '<index or name>': { capture, check, headers } } added to a sequence's entries,
// so that one recorded elsewhere (a HAR file) can capture, check and send a captured value
// (headers over the recorded ones: "authorization": "Bearer {{token}}") without being edited.
const lowerCased = (headers) => Object.fromEntries(Object.entries(headers || {}).map(([k, v]) => [k.toLowerCase(), v]));

function withEntryOptions(list, extra) {
  if (extra === undefined || extra === null) return list;
  if (typeof extra !== 'object' || Array.isArray(extra) || !Array.isArray(list)) throw new Error('entryOptions must be an object of { "<entry index or name>": { capture, check, headers } }');
  const entries = list.map((e) => ({ ...e }));
  // As parseSequence names an entry: its name, else its method and path (a url's path and query).
  const pathOf = (e) => {
    if (e.path !== undefined) return String(e.path);
    try {
      const u = new URL(String(e.url), 'http://x');
      return u.pathname + u.search;
    } catch {
      return String(e.url);
    }
  };
  const nameOf = (e) => (e.name !== undefined ? String(e.name) : `${String(e.method || 'GET').toUpperCase()} ${pathOf(e)}`);
  for (const [key, value] of Object.entries(extra)) {
    const i = /^\d+$/.test(key) ? Number(key) : entries.findIndex((e) => e && nameOf(e) === key);
    if (!(i >= 0 && i < entries.length)) throw new Error(`entryOptions: no entry '${key}' (give an index from 0 or an entry's name)`);
    if (!value || typeof value !== 'object') throw new Error(`entryOptions['${key}'] must be an object of { capture, check, headers }`);
    for (const k of Object.keys(value)) if (k !== 'capture' && k !== 'check' && k !== 'headers') throw new Error(`entryOptions['${key}']: '${k}' is not capture, check or headers`);
    const { headers, ...rest } = value;
    Object.assign(entries[i], rest);
    // Lower-cased as parseSequence does, so that they replace the recorded ones of any case.
    if (headers) entries[i].headers = { ...lowerCased(entries[i].headers), ...lowerCased(headers) };
  }
  return entries;
}

// --feed: rows whose values fill the request's {{column}} places, one row a request by index
// (so that cores and shards, which split the indexes, split the rows too), in order or shuffled.
function feedOf(options, config) {
  const feed = options.feed;
  if (feed === undefined || feed === null) return null;
  let parsed;
  if (Array.isArray(feed)) {
    if (feed.length === 0) throw new Error('feed: an empty list of rows');
    parsed = parseFeed(JSON.stringify(feed), 'feed.json');
    parsed.name = 'feed';
  } else if (typeof feed === 'object' && (typeof feed.text === 'string' || feed.text instanceof Uint8Array)) {
    parsed = parseFeed(feed.text, feed.name);
    parsed.name = feed.name;
  } else {
    throw new Error('feed must be a file path or an array of rows (objects)');
  }
  if (config.websocket) throw new Error('feed does not apply to ws:// URLs');
  if (config.requestGenerator) throw new Error('feed and requestGenerator both make the requests: give one');
  if (config.indexParam) throw new Error('feed and indexParam both fill the requests: give one');
  if (typeof config.body === 'function') throw new Error('feed: use {{column}} places in the body instead of a body function');
  const order = options.feedOrder === undefined || options.feedOrder === null ? 'sequential' : String(options.feedOrder);
  if (order !== 'sequential' && order !== 'random') throw new Error(`feedOrder must be sequential or random, not '${order}'`);
  const seed = number('seed', options.seed, { integer: true, fallback: 0 });
  parsed.rowOf = feedOrder(parsed.count, { random: order === 'random', seed });
  return shareOfFeed(parsed, options, order);
}

const gcd = (a, b) => (b === 0 ? a : gcd(b, a % b));

// A --cores child (or a shard) takes the run's row (k × stride + offset) % count for its k-th
// request: in order, only the rows that are offset modulo gcd(stride, count) ever. It keeps
// just those (a CSV's share, parsed again on its own), so that N children hold the feed about
// once between them, not N times. In random order any row may come: each keeps them all.
function shareOfFeed(feed, options, order) {
  const stride = options.indexStride || 1;
  const step = gcd(stride, feed.count);
  if (order === 'random' || step < 2 || typeof feed.subset !== 'function') return feed;
  const first = (options.indexOffset || 0) % step;
  const share = feed.subset(step, first);
  share.name = feed.name;
  const count = feed.count;
  share.rowOf = (index) => ((index % count) - first) / step;
  return share;
}

// --urls: a URL (or METHOD URL) per line on the run's origin, each request the next line.
function urlListOf(options, config, url) {
  const urls = options.urls;
  if (urls === undefined || urls === null) return null;
  if (typeof urls !== 'object' || typeof urls.text !== 'string') throw new Error('urls must be a file path');
  if (config.websocket) throw new Error('urls does not apply to ws:// URLs');
  if (config.sequence || config.requestGenerator || options.feed) throw new Error('urls makes the requests: leave out requests, requestGenerator and feed');
  return parseUrlList(urls.text, urls.name, url.origin);
}

/**
 * With no URL to load-test, a URL list's first line gives it (and with it the run's origin), as
 * the first entry of --requests or --har does; a path there has no origin to stand on.
 * `urls`: { name, text }.
 */
export function firstListedUrl(urls) {
  const lines = urls.text.replace(/^\ufeff/, '').split('\n');
  for (let l = 0; l < lines.length; l++) {
    const source = lines[l].trim();
    if (source === '' || source.startsWith('#')) continue;
    const written = source.split(/\s+/).pop();
    if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(written)) return written;
    throw new Error(`${urls.name}: line ${l + 1}: ${written} has no origin, and no URL to load-test gives one (make the first line a full URL, or give the URL)`);
  }
  throw new Error(`${urls.name}: no URLs`);
}

function socketPath(path) {
  if (path === undefined || path === null) return null;
  if (typeof path !== 'string' || path === '') throw new Error('socketPath must be the path of a Unix domain socket');
  return path;
}

// What a TLS adapter needs. The server name is the URL's host unless that is an IP address
// (SNI carries names only); certificates are checked unless `insecure`.
function tlsConfig(url, options, http2) {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const isIp = /^[0-9.]+$/.test(host) || host.includes(':');
  return {
    servername: isIp ? null : host,
    rejectUnauthorized: !options.insecure,
    ca: options.ca || null,
    cert: options.cert || null,
    key: options.key || null,
    // HTTP/2 over TLS is chosen by ALPN (RFC 9113 3.2); the server must pick h2.
    alpn: http2 ? ['h2'] : null,
  };
}
