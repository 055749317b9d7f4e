// Hot paths of a run, one operation each: response parse, latency record, request bytes, timer.
// Runs unchanged on the three runtimes (see bench/README.md):
//   node bench/hotpaths.bench.js
//   bun bench/hotpaths.bench.js
//   deno run -A bench/hotpaths.bench.js
// Each takes about 11 s. mitata prints a heap row (min … max, then average bytes per iteration)
// from node:v8 (Node, Deno) or bun:jsc (Bun). Averages of a few bytes with minimums near 0 are
// mitata's own loop: an operation that allocates shows at least 16 b in every batch on V8.
// (Bun's heap figure misses short-lived allocations; there an alloc-free check needs a GC count.)

import { bench, do_not_optimize, group, run } from 'mitata';
import { ResponseParser } from '../src/http1/parser.js';
import { Histogram } from '../src/run/histogram.js';
import { RequestLog } from '../src/outputs/request-log.js';
import { createRequests } from '../src/requests/requests.js';
import { parseFeed, feedOrder } from '../src/requests/feed.js';
import { FrameParser as H2FrameParser, writeHeader } from '../src/http2/frames.js';
import { HpackDecoder } from '../src/http2/hpack.js';

const encoder = new TextEncoder();

// ---------------------------------------------------------------------------------------------
// Responses

const SMALL =
  'HTTP/1.1 200 OK\r\n' +
  'Date: Tue, 14 Jan 2025 10:00:00 GMT\r\n' +
  'Content-Type: text/plain; charset=utf-8\r\n' +
  'Content-Length: 2\r\n' +
  'Connection: keep-alive\r\n' +
  '\r\n' +
  'OK';

const CHUNKED =
  'HTTP/1.1 200 OK\r\n' +
  'Date: Tue, 14 Jan 2025 10:00:00 GMT\r\n' +
  'Content-Type: application/json\r\n' +
  'Transfer-Encoding: chunked\r\n' +
  'Connection: keep-alive\r\n' +
  '\r\n' +
  '7\r\n{"id":1\r\n' +
  '10\r\n,"name":"widget"\r\n' +
  'a\r\n,"qty":42}\r\n' +
  '0\r\n\r\n';

const BODY_4K = 4096;
const LARGE_HEAD =
  'HTTP/1.1 200 OK\r\n' +
  'Date: Tue, 14 Jan 2025 10:00:00 GMT\r\n' +
  'Content-Type: application/octet-stream\r\n' +
  `Content-Length: ${BODY_4K}\r\n` +
  'Connection: keep-alive\r\n' +
  '\r\n';

const small = encoder.encode(SMALL);
const chunked = encoder.encode(CHUNKED);
const large = new Uint8Array(LARGE_HEAD.length + BODY_4K);
large.set(encoder.encode(LARGE_HEAD), 0);
large.fill(120 /* x */, LARGE_HEAD.length);

// The small response as three separate reads (as a socket may deliver it): the first ends inside
// the Date value, the second inside the Content-Length name, the third carries the rest and the body.
const cut1 = SMALL.indexOf('Jan') + 2;
const cut2 = SMALL.indexOf('Content-Length') + 8;
const split = [small.slice(0, cut1), small.slice(cut1, cut2), small.slice(cut2)];

// One parser per bench, as one connection has one. onResponse only counts, like the client's
// common path only reads statusCode and shouldClose.
function makeParser(name) {
  const t = {
    name,
    responses: 0,
    parser: null,
  };
  t.parser = new ResponseParser(
    () => {
      t.responses++;
    },
    (reason) => {
      throw new Error(`${name}: parse error: ${reason}`);
    },
    false,
  );
  return t;
}

// Checks that `n` runs of `once` complete exactly `n` responses of status 200 on a kept-alive
// connection, with every byte used; throws otherwise. Runs before the bench is measured.
function check(t, once, n = 1000) {
  const before = t.responses;
  for (let k = 0; k < n; k++) {
    const used = once();
    if (used !== true) throw new Error(`${t.name}: bytes left over (${used})`);
  }
  const got = t.responses - before;
  if (got !== n) throw new Error(`${t.name}: ${got} responses for ${n} runs`);
  const p = t.parser;
  if (p.statusCode !== 200) throw new Error(`${t.name}: status ${p.statusCode}`);
  if (p.shouldClose) throw new Error(`${t.name}: shouldClose after a keep-alive response`);
  if (p.busy) throw new Error(`${t.name}: parser still busy`);
}

const parseSmall = makeParser('small, one chunk');
const parseSplit = makeParser('small, three chunks');
const parseChunked = makeParser('chunked, one chunk');
const parseLarge = makeParser('4 KiB body, one chunk');

// Each returns true when every byte was consumed (the checks), and is what the bench runs.
function oneSmall() {
  const p = parseSmall.parser;
  p.expect(false);
  return p.execute(small, 0, small.length) === small.length;
}

function splitSmall() {
  const p = parseSplit.parser;
  p.expect(false);
  const a = split[0];
  const b = split[1];
  const c = split[2];
  let ok = p.execute(a, 0, a.length) === a.length;
  ok = p.execute(b, 0, b.length) === b.length && ok;
  return p.execute(c, 0, c.length) === c.length && ok;
}

function oneChunked() {
  const p = parseChunked.parser;
  p.expect(false);
  return p.execute(chunked, 0, chunked.length) === chunked.length;
}

function oneLarge() {
  const p = parseLarge.parser;
  p.expect(false);
  return p.execute(large, 0, large.length) === large.length;
}

check(parseSmall, oneSmall);
check(parseSplit, splitSmall);
check(parseChunked, oneChunked);
check(parseLarge, oneLarge);

// ---------------------------------------------------------------------------------------------
// Latencies: a spread of fractional microsecond values like elapsed * 1000 (mostly 0.2–5 ms,
// a tail to ~2 s), from a fixed seed so every runtime records the same values.

const LAT_N = 4096; // power of two: the index wraps with a mask
const latencies = new Float64Array(LAT_N);
{
  let seed = 12345;
  const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 4294967296);
  for (let k = 0; k < LAT_N; k++) {
    const u = rand();
    latencies[k] = u < 0.99 ? 200 + rand() * 4800 + rand() * 0.999 : 5000 + rand() * 2e6;
  }
}
const histogram = new Histogram();
{
  const probe = new Histogram();
  for (let k = 0; k < LAT_N; k++) probe.record(latencies[k]);
  if (probe.count !== LAT_N || probe.min < 200 || probe.max > 2_006_000) throw new Error('histogram check failed');
}

// ---------------------------------------------------------------------------------------------
// Request bytes: what options.js hands createRequests for `loadtest -k --index INDEX url`.

function requestOptions(extra) {
  return {
    method: 'GET',
    path: '/api/items?id=INDEX&view=full',
    hostHeader: 'localhost:8080',
    version: '9.0.0',
    keepAlive: true,
    headers: {},
    cookies: [],
    body: undefined,
    bodyBytes: null,
    bodyText: null,
    contentType: undefined,
    indexParam: null,
    indexParamCallback: null,
    requestGenerator: null,
    ...extra,
  };
}
const varying = createRequests(requestOptions({ indexParam: 'INDEX' }));
// --feed: 1000 rows, the id in the path and a header, as a data-driven run sends them.
const feedRows = parseFeed('id,user\n' + Array.from({ length: 1000 }, (_, i) => `id${i},user${i}`).join('\n'), 'ids.csv');
const templated = createRequests(
  requestOptions({ path: '/api/items?id={{id}}&view=full', headers: { 'x-user': '{{user}}' }, feed: Object.assign(feedRows, { name: 'ids.csv', rowOf: feedOrder(1000) }) }),
);
const fixed = createRequests(requestOptions({}));
{
  if (varying.fixed !== null) throw new Error('indexParam should make requests vary');
  if (fixed.fixed === null) throw new Error('no indexParam should give fixed bytes');
  const text = new TextDecoder().decode(varying.build(77).bytes);
  if (!text.startsWith('GET /api/items?id=77&view=full HTTP/1.1\r\n') || !text.endsWith('\r\n\r\n')) {
    throw new Error(`unexpected request: ${JSON.stringify(text)}`);
  }
  if (fixed.build(5).bytes !== fixed.fixed) throw new Error('fixed build should return the prebuilt bytes');
}

// ---------------------------------------------------------------------------------------------
// HTTP/2: an nginx-like response, HEADERS then DATA "OK", once its dynamic table holds `server`
// and `content-type` (the first response of a connection puts them there): :status 200 indexed,
// both entries indexed, date and content-length as literals without indexing.

const ascii = (t) => Array.from(new TextEncoder().encode(t));
const prime = Uint8Array.from([0x88, 0x40, 6, ...ascii('server'), 5, ...ascii('nginx'), 0x5f, 10, ...ascii('text/plain')]);
const DATE = 'Mon, 23 Nov 2026 23:00:00 GMT';
const block = Uint8Array.from([0x88, 0xbf, 0xbe, 0x0f, 0x12, DATE.length, ...ascii(DATE), 0x0f, 0x0d, 1, ...ascii('2')]);
const h2Response = new Uint8Array(9 + block.length + 9 + 2);
writeHeader(h2Response, 0, block.length, 0x1, 0x4, 1);
h2Response.set(block, 9);
writeHeader(h2Response, 9 + block.length, 2, 0x0, 0x1, 1);
h2Response.set(ascii('OK'), 18 + block.length);
const hpack = new HpackDecoder();
if (hpack.decode(prime, false) !== null) throw new Error('HPACK priming block failed');
let h2Frames = 0;
let h2Status = 0;
const h2Parser = new H2FrameParser({
  frame(type, flags, stream, buf, start, end) {
    h2Frames++;
    if (type === 0x1) {
      const err = hpack.decode(buf, false, start, end);
      if (err !== null) return err;
      h2Status = hpack.status;
    }
    return null;
  },
});
const h2FramesOnly = new H2FrameParser({ frame: () => null });
{
  if (h2Parser.execute(h2Response) !== null || h2Frames !== 2 || h2Status !== 200) throw new Error('HTTP/2 response check failed');
  if (hpack.decode(block, false) !== null || hpack.status !== 200) throw new Error('HPACK steady block check failed');
}

// ---------------------------------------------------------------------------------------------
// Benches

group('response parse (expect + execute, capture off)', () => {
  bench(`small keep-alive, 1 chunk (${small.length} B)`, () => do_not_optimize(oneSmall()));
  bench(`small keep-alive, 3 chunks (${split.map((s) => s.length).join('+')} B)`, () => do_not_optimize(splitSmall()));
  bench(`chunked, 3 chunks + 0, 1 read (${chunked.length} B)`, () => do_not_optimize(oneChunked()));
  bench(`Content-Length 4 KiB, 1 read (${large.length} B)`, () => do_not_optimize(oneLarge()));
});

group('HTTP/2 response (capture off)', () => {
  bench(`frames only: HEADERS + DATA, 1 read (${h2Response.length} B)`, () => do_not_optimize(h2FramesOnly.execute(h2Response)));
  bench(`HPACK decode: nginx-like block (${block.length} B)`, () => do_not_optimize(hpack.decode(block, false)));
  bench('frames + HPACK: the whole response', () => do_not_optimize(h2Parser.execute(h2Response)));
});

group('latency record', () => {
  let k = 0;
  bench('Histogram.record(varied µs)', () => {
    histogram.record(latencies[k]);
    k = (k + 1) & (LAT_N - 1);
  });
  bench('performance.now()', () => do_not_optimize(performance.now()));
  // The whole per-response timing cost of the client: now() at write, now() at response, record.
  bench('now() + now() + record (client timing)', () => {
    const start = performance.now();
    histogram.record((performance.now() - start) * 1000);
  });
  // With the request phases: the same two clock reads (the read's time marks the first byte and
  // the end), and wait and receive recorded beside the latency.
  const wait = new Histogram();
  const receive = new Histogram();
  bench('now() + now() + record latency, wait, receive (phases)', () => {
    const start = performance.now();
    const first = performance.now();
    histogram.record((first - start) * 1000);
    wait.record((first - start) * 1000);
    receive.record(0);
  });
});

group('request log (--log-file)', () => {
  // A sink that takes each 256 KiB chunk at once: the cost of the line alone.
  const log = new RequestLog({ write: () => Promise.resolve(), close: async () => {} });
  const conn = { responseBytes: 49, number: 3 };
  let k = 0;
  bench("a completed request's line", () => {
    log.completed(conn, 200, performance.now(), latencies[k] / 1000, latencies[k] / 2000, -1);
    k = (k + 1) & (LAT_N - 1);
  });
});

group('request bytes', () => {
  let i = 0;
  bench('varying: build(i) with indexParam', () => do_not_optimize(varying.build(i++).bytes));
  let j = 0;
  bench('fixed: build(i) → prebuilt bytes', () => do_not_optimize(fixed.build(j++).bytes));
  let k = 0;
  bench('templated: build(i) with a --feed row (path and a header)', () => do_not_optimize(templated.build(k++).bytes));
});

await run();

// The benches ran the same functions the checks ran; make sure they kept completing responses.
for (const t of [parseSmall, parseSplit, parseChunked, parseLarge]) {
  if (t.responses <= 1000 || t.parser.busy) throw new Error(`${t.name}: responses stopped completing`);
}
