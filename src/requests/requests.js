// src/requests/: what a load run sends, built once from its options.
// The requests of a run, built once from its configuration: one shape for every request, an
// index template, a body function, a request generator, or a sequence's entries. The bytes
// themselves are HTTP/1.1's (src/http1/request.js).

import { encodeRequest, bodyBytes, checkRequestParts, indexTemplate } from '../http1/request.js';
import { encodeH2Request } from '../http2/request.js';
import { recordingGenerator } from './request-generator.js';
import { entryPicker } from './sequence.js';
import { templateOf, capturedValueProblem } from './templated.js';
import { placeNames, unescapePlaces } from '../http1/template.js';
import { checkAndCapture } from './checks.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Builds the requests of a run.
 * Returns { fixed, isHead, build(index) }: `fixed` is the one Uint8Array every request uses, or
 * null when requests differ, in which case build(index) returns { bytes, isHead, method, path }.
 */
export function createRequests(o) {
  const requests = makeRequests(o);
  // A run-wide check (a sequence makes its own inspector, with its entries').
  if (o.check && !requests.inspect) requests.inspect = inspector(o);
  return requests;
}

function makeRequests(o) {
  const baseHeaders = defaultHeaders(o);
  // A request's bytes: HTTP/1.1's, or HTTP/2's frames ({ full, head, body }, src/http2/request.js).
  const encode = o.http2 ? h2Encoder(o) : encodeRequest;
  const replace = o.indexParam ? indexReplacer(o.indexParam, o.indexParamCallback) : null;
  const bodyFn = typeof o.body === 'function' ? o.body : null;
  const origin = o.requestOrigin || '';
  if (o.sequence) return sequenceRequests(o, baseHeaders, origin, encode);
  if (o.urlList) return urlRequests(o, baseHeaders, origin, encode);
  if (o.feed) return feedRequests(o, baseHeaders, origin, encode);

  if (o.requestGenerator) {
    // loadtest 8's (params, options, client, callback) form, recorded into the same shape.
    const generate = o.requestGenerator.length >= 3 ? recordingGenerator(o.requestGenerator, o, baseHeaders) : o.requestGenerator;
    return {
      fixed: null,
      isHead: false,
      build(index) {
        const g = generate(index, o) || {};
        const method = String(g.method || o.method).toUpperCase();
        const path = g.path || o.path;
        // Not a spread: in node 20 each header added to a spread copy makes a new hidden class (~1 µs).
        const headers = g.allHeaders ? {} : Object.assign({}, baseHeaders);
        if (g.headers) for (const k in g.headers) headers[k.toLowerCase()] = String(g.headers[k]);
        const body = g.body !== undefined ? bodyBytes(g.body, headers['content-type']) : o.bodyBytes;
        if (body && !headers['content-type']) headers['content-type'] = 'text/plain';
        checkRequestParts(method, headers);
        return { bytes: encode({ method, path, headers, body, origin }), isHead: method === 'HEAD', method, path };
      },
    };
  }

  const isHead = o.method === 'HEAD';
  if (!replace && !bodyFn) {
    const bytes = encode({ method: o.method, path: o.path, headers: baseHeaders, body: o.bodyBytes, origin });
    const shape = { bytes, isHead, method: o.method, path: o.path };
    return { fixed: bytes, isHead, build: () => shape, shape };
  }
  if (replace && !bodyFn && !o.http2) return indexTemplate(o, baseHeaders, isHead);
  return {
    fixed: null,
    isHead,
    build(index) {
      const value = replace ? replace.value(index) : '';
      const path = replace ? replace.in(o.path, value) : o.path;
      let body = o.bodyBytes;
      if (bodyFn) body = bodyBytes(bodyFn(index), o.contentType);
      else if (replace && o.bodyText) body = encoder.encode(replace.in(o.bodyText, value));
      return { bytes: encode({ method: o.method, path, headers: baseHeaders, body, origin }), isHead, method: o.method, path };
    },
  };
}

// A sequence's entries, each encoded once (or compiled, when it takes values: a --feed row's,
// or those captured earlier in the connection's walk); the picker walks them per connection or
// by weight.
function sequenceRequests(o, baseHeaders, origin, encode) {
  const feed = o.feed || null;
  const captured = o.sequence.flatMap(captureNames);
  const templating = feed !== null || captured.length > 0;
  const keepPath = Boolean(o.statusCallback || o.contentInspector);
  const shapes = o.sequence.map((e, entry) => {
    const headers = { ...baseHeaders };
    delete headers['content-type']; // the run's body is not the entries'
    for (const name in e.headers) headers[name] = e.headers[name];
    const body = e.body === undefined || e.body === null ? null : bodyBytes(e.body, headers['content-type']);
    if (body && !headers['content-type']) headers['content-type'] = typeof e.body === 'string' || e.body instanceof Uint8Array ? 'text/plain' : 'application/json';
    checkRequestParts(e.method, headers);
    const where = `requests[${entry}] (${e.name})`;
    const shape = { method: e.method, path: e.path, headers, bodyText: body ? decoder.decode(body) : null };
    const template = templating ? templateOf(shape, { feed, captured: capturedBefore(o.sequence, entry), where, encode: o.http2 ? encode : null, origin, keepPath }) : null;
    const keep = Boolean(e.capture || e.check);
    return { bytes: template === null ? encode({ method: e.method, path: e.path, headers, body, origin }) : null, isHead: e.method === 'HEAD', method: e.method, path: e.path, entry, template, keep };
  });
  const pick = entryPicker(o.sequence);
  const inspect = inspector(o, shapes);
  if (!shapes.some((s) => s.template !== null)) return { fixed: null, isHead: false, inspect, build: (index, conn) => shapes[pick(conn)] };
  const rowOf = feed ? feed.rowOf : null;
  // Rows go to the requests that take values from them, each the next one: a login that takes
  // none does not use up a row. This process's k-th such request takes the run's row
  // k * stride + offset, as request indexes go, so cores and shards split the rows exactly.
  const usesRow = shapes.map((s) => s.template !== null && feed !== null && s.template.names.some((n) => feed.columns.includes(n)));
  const stride = o.indexStride || 1;
  const offset = o.indexOffset || 0;
  let fed = 0;
  return {
    fixed: null,
    isHead: false,
    inspect,
    build(index, conn) {
      const s = shapes[pick(conn)];
      if (s.template === null) return s;
      const b = s.template.build(usesRow[s.entry] ? rowOf(fed++ * stride + offset) : -1, conn.vars);
      // A new object each time: an HTTP/2 connection keeps a request's shape to send it again.
      return { bytes: b.bytes, isHead: s.isHead, method: s.method, path: b.path, entry: s.entry, keep: s.keep };
    },
  };
}

const captureNames = (e) => (e.capture ? e.capture.map((c) => c.name) : []);

// The variables entries before `entry` capture: the ones it may use (a walk goes in order).
function capturedBefore(sequence, entry) {
  return sequence.slice(0, entry).flatMap(captureNames);
}

/**
 * What the run asks of each response when a sequence's entries check or capture, or the run
 * checks every response (`check`): inspect(conn, status, entry) → null, or the reason the
 * request fails ('check status: 503, expected 200', 'capture token: not found'). A capture that
 * fails starts the connection's walk again; so does a captured value that cannot go where a
 * later entry puts it (CR or LF into a header).
 */
function inspector(o, shapes = []) {
  const runCheck = o.check || null;
  const entries = o.sequence ? o.sequence.map((e) => (e.capture || e.check ? e : null)) : [];
  if (runCheck === null && !entries.some(Boolean)) return null;
  // Where each variable goes: a header or the request line, the path.
  const usage = {};
  for (const s of shapes) {
    if (!s.template) continue;
    const inPath = placeNames(unescapePlaces(s.path));
    s.template.names.forEach((n, k) => {
      const u = (usage[n] = usage[n] || { head: false, path: false });
      if (s.template.heads[k]) u.head = true;
      if (inPath.includes(n)) u.path = true;
    });
  }
  return (conn, status, entry) => {
    if (runCheck !== null) {
      const reason = checkAndCapture(runCheck, null, status, conn.headChunks, conn.bodyChunks, null);
      if (reason !== null) return reason;
    }
    const e = entry >= 0 ? entries[entry] : null;
    if (!e) return null;
    if (conn.vars === null) conn.vars = {};
    let reason = checkAndCapture(e.check, e.capture, status, conn.headChunks, conn.bodyChunks, conn.vars);
    if (reason === null && e.capture !== null) {
      for (const c of e.capture) {
        const problem = usage[c.name] ? capturedValueProblem(conn.vars[c.name], usage[c.name]) : null;
        if (problem !== null) {
          reason = `capture ${c.name}: ${problem}`;
          break;
        }
      }
    }
    if (reason !== null && reason.startsWith('capture ')) conn.step = 0;
    return reason;
  };
}

// --feed: the run's one request, its {{column}} places filled from the request's row.
function feedRequests(o, baseHeaders, origin, encode) {
  const isHead = o.method === 'HEAD';
  const template = templateOf(
    { method: o.method, path: o.path, headers: baseHeaders, bodyText: o.bodyText },
    { feed: o.feed, where: 'the request', encode: o.http2 ? encode : null, origin, keepPath: Boolean(o.statusCallback || o.contentInspector) },
  );
  if (template === null) throw new Error(`feed ${o.feed.name}: the request has no {{column}} place to fill (in the URL's path, a header or the body)`);
  const { rowOf } = o.feed;
  // gRPC: every row's message is made once now, so that one that does not fit the message type
  // is an error before the run, with its row.
  if (o.grpc) checkRows(o.feed, template);
  // One shape object for HTTP/1.1, whose connection reads it at once; HTTP/2 keeps each
  // request's shape to send it again, so it gets its own.
  const shape = { bytes: null, isHead, method: o.method, path: o.path };
  return {
    fixed: null,
    isHead,
    build(index) {
      const b = template.build(rowOf(index), null);
      if (o.http2) return { bytes: b.bytes, isHead, method: o.method, path: b.path };
      shape.bytes = b.bytes;
      shape.path = b.path;
      return shape;
    },
  };
}

function checkRows(feed, template) {
  for (let r = 0; r < feed.count; r++) {
    try {
      template.build(r, null);
    } catch (err) {
      throw new Error(`feed ${feed.name}: row ${r + 1}: ${err.message}`);
    }
  }
}

// --urls: each request the next line's method and path, encoded once each.
function urlRequests(o, baseHeaders, origin, encode) {
  const shapes = o.urlList.map(({ method, path }) => {
    const m = method || o.method;
    checkRequestParts(m, baseHeaders);
    const body = m === o.method ? o.bodyBytes : null;
    return { bytes: encode({ method: m, path, headers: baseHeaders, body, origin }), isHead: m === 'HEAD', method: m, path };
  });
  const n = shapes.length;
  // By index, as the rows of a feed: every line once before any twice, across cores and shards.
  return { fixed: null, isHead: false, build: (index) => shapes[index % n] };
}

function defaultHeaders(o) {
  // A gRPC call's headers are its own (src/grpc/config.js); the user agent is ours.
  if (o.grpc) return { host: o.hostHeader, 'user-agent': `loadtest/${o.version}`, ...o.headers };
  // loadtest 8 sends host, user-agent and accept unless given; custom headers override them.
  const headers = {
    host: o.hostHeader,
    'user-agent': `loadtest/${o.version}`,
    accept: '*/*',
    connection: o.keepAlive ? 'keep-alive' : 'close',
  };
  if (o.cookies && o.cookies.length) headers.cookie = o.cookies.join('; ');
  if (o.proxyAuthorization) headers['proxy-authorization'] = o.proxyAuthorization;
  if (o.body !== undefined && o.body !== null && o.body !== '') headers['content-type'] = o.contentType || 'text/plain';
  for (const name in o.headers) headers[name] = o.headers[name];
  return headers;
}

function indexReplacer(param, callback) {
  return {
    value: (index) => String(callback ? callback(index) : index),
    in: (text, value) => text.split(param).join(value),
  };
}

function h2Encoder(o) {
  const scheme = o.tls ? 'https' : 'http';
  // gRPC: the body is the message as JSON, sent as the framed protobuf message (src/grpc/).
  const message = o.grpc ? o.grpc.encode : null;
  return ({ method, path, headers, body, where = 'the message' }) =>
    encodeH2Request({ method, scheme, authority: headers.host || o.hostHeader, path, headers, body: message === null ? body : message(body, where) });
}
