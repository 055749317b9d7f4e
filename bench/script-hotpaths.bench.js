// Hot paths of a scripted request (loadtest run), one operation each: the request's tags, its
// metric samples, the Response. Runs unchanged on the three runtimes:
//   node bench/script-hotpaths.bench.js
//   bun bench/script-hotpaths.bench.js
//   deno run -A bench/script-hotpaths.bench.js
// Samples are aggregated as they come (a Trend is a histogram): nothing is kept per request, so
// state.request() allocates nothing but what its callers hand it.

import { bench, do_not_optimize, group, run } from 'mitata';
import { Registry } from '../src/script/metrics/metrics.js';
import { RunState } from '../src/script/metrics/run-state.js';
import { Response } from '../src/script/k6/http/http-response.js';
import { parsedURL } from '../src/script/k6/http/url/request-url.js';
import { VU } from '../src/script/vu/vu.js';
import { peerOf } from '../src/script/net/peer.js';
import { DEFAULT_SYSTEM_TAGS } from '../src/script/scenarios/system-tags.js';

const PEER = peerOf('127.0.0.1', 8089, false, null);

const registry = new Registry();
const state = new RunState(registry);
const shared = { registry, state, options: {}, env: {}, globalTags: {}, systemTags: DEFAULT_SYSTEM_TAGS, open: () => '', facilities: {}, segment: null };
const vu = new VU(shared, 1);
vu.scenario = { name: 'default', tags: {} };

// A VU of a run with tags in its options (options.tags, --tag): a request's own are added to its.
const tagged = new VU({ ...shared, globalTags: { env: 'staging', team: 'qa' } }, 2);
tagged.scenario = vu.scenario;

const HEAD = 'HTTP/1.1 200 OK\r\nServer: nginx\r\nDate: Tue, 14 Jan 2025 10:00:00 GMT\r\nContent-Type: text/plain\r\nContent-Length: 2\r\nConnection: keep-alive';
const timings = { blocked: 0.01, connecting: 0, tls_handshaking: 0, sending: 0, waiting: 0.12, receiving: 0, duration: 0.12 };
const tags = { ...vu.tags(), name: 'http://127.0.0.1:8089/', method: 'GET', status: '200', url: 'http://127.0.0.1:8089/', proto: 'HTTP/1.1', expected_response: 'true' };
const response = () => new Response(vu, 200, 'HTTP/1.1', HEAD, 'OK', 'http://127.0.0.1:8089/', timings, null, {}, [], PEER);
const BASE = 'http://127.0.0.1:8089';
let id = 0;

group('a scripted request', () => {
  bench("vu.tags(): the request's tags object", () => do_not_optimize(vu.tags()));
  bench("vu.tags() with the options' tags, a request's added to it", () => {
    const t = tagged.tags();
    t.name = 'http://127.0.0.1:8089/';
    t.method = 'GET';
    t.status = '200';
    do_not_optimize(t);
  });
  bench("state.request(): its 9 samples (http_reqs, http_req_*)", () => state.request(timings, 200, true, 160, tags, null));
  bench('state.io(): an iteration\'s data_sent and data_received', () => state.io(vu, tags));
  bench('new Response, status and body read', () => {
    const r = response();
    return do_not_optimize(r.status + r.body.length);
  });
  bench("new Response, headers read (Go's canonical names)", () => do_not_optimize(response().headers['Content-Type']));
  // What most scripts do with it: a URL from a template literal (a new string each time, which
  // http.get looks up among the URLs it has parsed), and a check of the status.
  bench('a template-literal URL, made and looked up', () => do_not_optimize(parsedURL(`${BASE}/items/${id++ % 100}`)));
  const { check } = vu.module('k6'); // as a script has it: imported once
  bench('check(res, { status is 200 }): one check recorded', () => do_not_optimize(check(response(), { 'status is 200': (r) => r.status === 200 })));
});

await run();
