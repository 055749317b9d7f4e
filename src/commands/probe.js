// loadtest --probe URL: one request, shown as it went over the wire and as it came back, with
// the time of each of its phases (as curl -v or oha's --debug). It is a run of one request on one
// connection through the socket adapter a load run would use, so what it shows is what a load
// run sends; the adapter is wrapped to keep a copy of every byte written and read.

import { prepare } from '../index.js';
import { Run } from '../run/run.js';
import { makeResult } from '../run/result.js';
import { STRINGS } from './flags.js';
import { textLines, headEnd, responseHeadEnd, webSocketFrames, http2Frames, startsLikeHttp2 } from './probe-wire.js';
import { runtime, exit } from '../../runtimes/index.js';

// Body bytes shown, of the request and of the response.
const SHOWN = 4096;
// Bytes kept of each direction: the heads and frames around them, not all of a large body.
const KEPT = 1024 * 1024;
// A silent server must not hang the probe; --timeout changes it (0: no limit).
const DEFAULT_TIMEOUT_MS = 10000;

// Flags about a load (how much, how fast, how long) or its results: a probe is one request.
const LOAD_FLAGS = ['maxRequests', 'concurrency', 'maxSeconds', 'rps', 'requestsPerSecond', 'stages', 'connection-stages', 'max-connections', 'sweep', 'cores', 'shard', 'start-at',
  'pipeline', 'streams', 'json', 'json-file', 'hdr-log', 'html', 'log-file', 'threshold'];
const SHORT = Object.fromEntries(Object.entries(STRINGS).map(([short, long]) => [long, short]));

/** The first load flag given on the command line (`args`, mri's), as typed, or null. */
export function loadFlagOf(args) {
  const name = LOAD_FLAGS.find((flag) => args[flag] !== undefined && args[flag] !== false);
  if (name === undefined) return null;
  return SHORT[name] ? `-${SHORT[name]}/--${name}` : `--${name}`;
}

// One direction's bytes, copied as they pass (an adapter reuses its read buffer once data()
// returns), the first KEPT of them kept; `total` counts them all.
class Bytes {
  constructor() {
    this.parts = [];
    this.kept = 0;
    this.total = 0;
  }

  add(bytes) {
    this.total += bytes.length;
    const room = KEPT - this.kept;
    if (room <= 0) return;
    // Uint8Array's slice copies; a node Buffer's is a view.
    const part = Uint8Array.prototype.slice.call(bytes, 0, Math.min(room, bytes.length));
    this.parts.push(part);
    this.kept += part.length;
  }

  /** The kept bytes among the first `until`, in one array. */
  upTo(until = this.total) {
    return joined(this.parts, Math.min(until, this.kept));
  }
}

// The first `limit` bytes of the chunks, in one array.
function joined(chunks, limit) {
  const out = new Uint8Array(Math.min(limit, chunks.reduce((n, c) => n + c.length, 0)));
  let at = 0;
  for (const c of chunks) {
    if (at >= out.length) break;
    const n = Math.min(c.length, out.length - at);
    out.set(n === c.length ? c : c.subarray(0, n), at);
    at += n;
  }
  return out;
}

// The adapter, with each connection's writes and reads copied into `tap` (src/socket.js: the
// handlers are the connection's driver, whose chunks of the response the probe reads).
function tapped(adapter, tap) {
  return {
    name: adapter.name,
    connect(host, port, driver) {
      tap.driver = driver;
      const socket = adapter.connect(host, port, {
        data(chunk) {
          tap.received.add(chunk);
          driver.data(chunk);
        },
        error: (err) => driver.error(err),
        close: () => driver.close(),
        // The request is on the wire once the connection is up, and its TLS handshake done.
        connected() {
          if (!tap.tls) tap.connected = true;
          driver.connected();
        },
        secured() {
          tap.connected = true;
          driver.secured();
        },
      });
      return {
        write(bytes) {
          tap.sent.add(bytes);
          socket.write(bytes);
        },
        end: () => socket.end(),
        destroy: () => socket.destroy(),
      };
    },
  };
}

/**
 * args: the command line's flags (mri's); options: the CLI's loadTest() options. fail(message,
 * code) prints one line and exits; describeFailure(result) says why nothing answered; targetOf()
 * names the server.
 */
export async function probeCommand(args, options, { fail, describeFailure, targetOf }) {
  const flag = loadFlagOf(args);
  if (flag !== null) return fail(`--probe sends one request: leave out ${flag}`, 2);
  const timeout = options.timeout ?? DEFAULT_TIMEOUT_MS;
  const tap = { sent: new Bytes(), received: new Bytes(), tls: false, connected: false, driver: null };
  let answer = null;
  let reason = null;
  const statusCallback = (error, r) => {
    if (!r.statusCode) {
      reason = error.code;
      return;
    }
    // The response's bytes as the driver decoded them (src/driver.js), before its next read.
    const body = tap.driver.bodyChunks || [];
    answer = { sent: tap.sent.total, received: tap.received.total, bodyTotal: body.reduce((n, c) => n + c.length, 0), body: joined(body, SHOWN) };
  };
  // The run's own deadline a second after the request's: a wait nothing else ends still ends.
  const maxSeconds = timeout > 0 ? timeout / 1000 + 1 : 0;
  let config;
  let adapter;
  let result;
  try {
    ({ config, adapter } = await prepare({ ...options, maxRequests: 1, concurrency: 1, maxSeconds, timeout, statusCallback }));
    tap.tls = config.tls !== null;
    const stats = await new Run(config, tapped(adapter, tap)).start();
    result = makeResult(config, stats, { runtime: `${runtime.name} ${runtime.version}`, socket: adapter.name });
  } catch (err) {
    return fail(err.message, 2);
  }
  const kind = config.websocket ? 'websocket' : config.http2 ? 'http2' : 'http1';
  const lines = [title(config, adapter, result), ''];
  if (answer === null) {
    // What went out and what came back before the failure, when the connection was made.
    if (tap.connected && tap.sent.total > 0) lines.push(...sentLines(kind, tap.sent.upTo(), tap.sent.total));
    if (tap.received.total > 0) lines.push('', ...receivedLines(kind, tap.received.upTo(), tap.received.total, false));
    if (lines.length > 2) console.log(lines.join('\n'));
    return fail(failureOf(result, reason, timeout, targetOf(), describeFailure), 1);
  }
  const received = tap.received.upTo(answer.received);
  lines.push(...sentLines(kind, tap.sent.upTo(answer.sent), answer.sent), '');
  lines.push(...receivedLines(kind, received, answer.received, true), '');
  lines.push(...bodyLines(answer, bodyNote(kind, received)), '');
  lines.push(...phaseLines(result, config.websocket));
  console.log(lines.join('\n'));
  exit(0);
}

const PROTOCOLS = { 'http/1.1': 'HTTP/1.1', h2c: 'HTTP/2 (h2c, prior knowledge)', h2: 'HTTP/2 (h2, by ALPN)', websocket: 'WebSocket' };

function title(config, adapter, result) {
  const where = result.proxy ? `through the proxy ${result.proxy}` : `connected to ${config.socketPath ? `unix:${config.socketPath}` : `${config.host}:${config.port}`}`;
  const what = config.websocket ? config.url : `${config.method} ${config.url}`;
  return `Probe: ${what} over ${PROTOCOLS[result.protocol]}, ${where} (socket ${adapter.name})`;
}

const prefixed = (mark, lines) => lines.map((line) => (line === '' ? mark : `${mark} ${line}`));

// The request as written: HTTP/1.1's text (its body cut at SHOWN), the WebSocket upgrade and
// frames, or HTTP/2's frames with the header block decoded.
function sentLines(kind, bytes, total) {
  const lines = [];
  if (kind === 'http2') lines.push(...http2Frames(bytes, { max: SHOWN }));
  else {
    const end = headEnd(bytes);
    const head = end < 0 ? bytes : bytes.subarray(0, end);
    lines.push(...textLines(head, { wire: true }));
    if (end >= 0 && kind === 'websocket') lines.push(...webSocketFrames(bytes.subarray(end), SHOWN));
    else if (end >= 0 && total > end) {
      lines.push(...textLines(bytes.subarray(end, end + SHOWN), { wire: true }));
      if (total - end > SHOWN) lines.push(`… (the body is ${total - end} bytes: cut at ${SHOWN})`);
    }
  }
  return [`Sent (${total} bytes):`, ...prefixed('>', lines)];
}

// The response's head (with HTTP/1.1's interim 1xx heads), the WebSocket frames after the 101,
// or HTTP/2's frames; `complete`: a whole response came (else: what came before the failure).
function receivedLines(kind, bytes, total, complete) {
  const heading = complete ? `Received (${total} bytes):` : `Received (${total} bytes, no complete response):`;
  if (kind === 'http2' && startsLikeHttp2(bytes)) return [heading, ...prefixed('<', http2Frames(bytes))];
  const end = complete && kind !== 'http2' ? (kind === 'websocket' ? headEnd(bytes) : responseHeadEnd(bytes)) : -1;
  if (end < 0) {
    const lines = textLines(bytes.subarray(0, SHOWN), { wire: true });
    if (bytes.length > SHOWN) lines.push(`… (cut at ${SHOWN} bytes)`);
    return [heading, ...prefixed('<', lines)];
  }
  const lines = textLines(bytes.subarray(0, end), { wire: true });
  if (kind === 'websocket') lines.push(...webSocketFrames(bytes.subarray(end), 64));
  return [heading, ...prefixed('<', lines)];
}

function bodyNote(kind, received) {
  if (kind === 'websocket') return 'the reply message';
  if (kind === 'http2') return 'from its DATA frames';
  const end = responseHeadEnd(received);
  const head = new TextDecoder('latin1').decode(received.subarray(0, end < 0 ? 0 : end));
  return /^transfer-encoding:[^\r\n]*chunked/im.test(head) ? 'decoded from chunked encoding' : '';
}

function bodyLines({ body, bodyTotal }, note) {
  const about = note ? ` (${note})` : '';
  if (bodyTotal === 0) return [`Body: none (0 bytes)${about}`];
  const cut = bodyTotal > body.length;
  const lines = [`Body: ${bodyTotal} bytes${about}${cut ? `, cut at ${body.length}` : ''}:`, ...textLines(body)];
  if (cut) lines.push(`… (${bodyTotal - body.length} more bytes not shown)`);
  return lines;
}

const PHASES = {
  connect: 'TCP connect (a proxy\'s CONNECT included)',
  tls: 'TLS handshake',
  wait: 'request written → first byte of the response',
  receive: 'first byte → last byte',
};

function phaseLines(result, websocket) {
  const lines = ['Phases:'];
  const row = (name, ms, about) => lines.push(`  ${name.padEnd(9)}${ms.toFixed(3).padStart(10)} ms   ${about}`);
  for (const [name, p] of Object.entries(result.phases)) {
    if (p.count === 0 && name === 'tls') continue;
    // A request sent again on a new connection (HTTP/2's refused stream) connects twice.
    row(name, p.mean, PHASES[name] + (p.count > 1 ? ` (${p.count} times, mean)` : ''));
  }
  row('total', result.maxLatencyMs, websocket ? 'the message sent → its reply (the upgrade not counted)' : 'the request\'s latency');
  return lines;
}

function failureOf(result, reason, timeout, target, describeFailure) {
  if (reason === 'timeout' || (result.totalRequests === 0 && result.inFlight > 0)) return `no response from ${target} within ${timeout} ms (--timeout MS to wait longer)`;
  // The run's words are about many requests; a probe sent one.
  return describeFailure(result).replace(/^every request to /, 'the request to ').replace('closed every connection', 'closed the connection');
}
