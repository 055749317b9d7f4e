// src/script/k6/http/: k6/http, its Response, params, cookies and URLs.
// k6/http for one VU: request() and its shortcuts, batch(), the Response, cookies, redirects and the
// http_req_* metrics, as k6 gives them. Requests go out through the VU's OriginClients, the same
// HTTP/1.1 and HTTP/2 drivers as every other request of loadtest (src/script/net/client.js). A
// call's body and params: http-params.js; compression: content-encoding.js; --http-debug's: http-debug.js.

import { encodeH2Request } from '../../../http2/request.js';
import { CookieJar, sentCookies } from './cookies.js';
import { Response, MAKE_REQUEST, canonicalName } from './http-response.js';
import { waiting } from '../../eventloop/wait.js';
import { DialError } from './dialer.js';
import { debugRequest, debugResponse } from './http-debug.js';
import { timingsOf } from '../../net/timings.js';
import { bodyOf, fileOf, hasHeader, timeoutMs, RESPONSE_TYPES } from './http-params.js';
import { compressionOf, compressed, decompressed } from '../../net/content-encoding.js';
import { TLS_CONSTANTS } from './tls-constants.js';
import { parsedURL, infoOf, taggedURL, TaggedURL, unsendableReason } from './url/request-url.js';
import { bytesOf } from './request-bytes.js';
import { SpanText } from '../../net/span-text.js';
import { NO_PEER } from '../../net/peer.js';
import { requestSamplesTags } from './request-tags.js';
import { digestChallenge, digestAuthorization } from './digest.js';
import { withNtlm } from './auth/ntlm.js';
import { goValue } from './go-value.js';
import { thrownGoError } from '../host-error.js';

// Read once: on node 20 the global `performance` is an accessor, a getter's call at each read.
const { performance } = globalThis;

// A body's text as Go has it: every byte, a leading byte-order mark too.
const textDecoder = new TextDecoder('utf-8', { ignoreBOM: true });
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
// Most responses are not one: told without a Set look-up.
const isRedirect = (status) => status >= 301 && status <= 308 && REDIRECTS.has(status);

/** k6's default: a response is expected when its status is 200 to 399. */
export const defaultExpected = (status) => status >= 200 && status < 400;

/** http.expectedStatuses(200, { min: 300, max: 399 }, ...). */
export function expectedStatuses(...args) {
  const ranges = args.map((a) => {
    if (Number.isInteger(a)) return [a, a];
    if (a && Number.isInteger(a.min) && Number.isInteger(a.max)) return [a.min, a.max];
    throw new Error('expectedStatuses() takes status codes and { min, max } ranges');
  });
  const fn = (status) => ranges.some(([lo, hi]) => status >= lo && status <= hi);
  fn.expectedStatuses = true;
  return fn;
}

const extraArguments = (vu, name, given) => vu.warnOnce(`http.${name} only accepts a url and a params argument (2 arguments), but ${given} were given`);

/** The k6/http module of one VU (`vu`: src/script/vu/vu.js). */
export function httpModule(vu) {
  // What returns at once in k6 returns a marked promise here (src/script/eventloop/wait.js); asyncRequest's
  // promise is the script's own.
  // `method` as sent: the shorthands' own need no upper-casing (a runtime call on node).
  const call = (method, url, body, params) => waiting(send(vu, method, url, body, params));
  const api = {
    request: (method, url, body, params) => call(String(method).toUpperCase(), url, body, params),
    // k6 v2.0 warns of more arguments (a body taken for the params), once here as every warning.
    get(url, params) {
      if (arguments.length > 2) extraArguments(vu, 'get', arguments.length);
      return call('GET', url, null, params);
    },
    head(url, params) {
      if (arguments.length > 2) extraArguments(vu, 'head', arguments.length);
      return call('HEAD', url, null, params);
    },
    post: (url, body, params) => call('POST', url, body, params),
    put: (url, body, params) => call('PUT', url, body, params),
    patch: (url, body, params) => call('PATCH', url, body, params),
    del: (url, body, params) => call('DELETE', url, body, params),
    options: (url, body, params) => call('OPTIONS', url, body, params),
    // Its promise is the script's; the iteration ends after it all the same (k6's event loop).
    asyncRequest: (method, url, body, params) => vu.loop.track(send(vu, String(method).toUpperCase(), url, body, params)),
    batch: (requests) => waiting(batch(vu, requests)),
    cookieJar: () => {
      if (!vu.initDone) throw thrownGoError('Making cookie jars in the init context is not supported'); // k6's
      vu.jar.handedOut = true; // the script holds it: the next iteration's is a new one
      return vu.jar;
    },
    CookieJar,
    expectedStatuses,
    setResponseCallback: (fn) => {
      if (fn !== null && typeof fn !== 'function') throw new Error('setResponseCallback takes expectedStatuses(...) or null');
      vu.responseCallback = fn;
    },
    url: taggedURL,
    file: fileOf,
    ...TLS_CONSTANTS,
  };
  return { default: api, ...api };
}

// batch([...]): the requests at once, each on a connection of its own, at most `batch` (20) at a
// time and `batchPerHost` (6) to one host and port, as k6 runs them; the responses in the same
// shape (an array, or an object by key).
async function batch(vu, requests) {
  const one = (r) => {
    if (typeof r === 'string') return ['GET', r, null, undefined];
    if (Array.isArray(r)) return [String(r[0]).toUpperCase(), r[1], r[2], r[3]];
    if (r && typeof r === 'object') return [String(r.method || 'GET').toUpperCase(), r.url, r.body, r.params];
    throw new Error('batch(): each request is a URL, [method, url, body, params] or { method, url, body, params }');
  };
  let keys = null;
  let list;
  if (Array.isArray(requests)) list = requests.map(one);
  else if (requests && typeof requests === 'object') {
    keys = Object.keys(requests);
    list = keys.map((k) => one(requests[k]));
  } else throw new Error('batch() takes an array or an object of requests');
  const o = vu.options;
  const responses = await limited(list, o.batch ?? 20, o.batchPerHost ?? 6, (args) => send(vu, ...args));
  if (keys === null) return responses;
  const out = {};
  keys.forEach((k, i) => (out[k] = responses[i]));
  return out;
}

// Runs `run(item)` for each item, at most `limit` at once and `perHost` to one host (0: no limit),
// in their order; resolves to their results in that order, or rejects with the first failure.
function limited(items, limit, perHost, run) {
  const hostOf = (args) => {
    const u = args[1] && typeof args[1] === 'object' && typeof args[1].url === 'string' ? args[1].url : args[1];
    try {
      return new URL(String(u)).host;
    } catch {
      return '';
    }
  };
  const hosts = items.map(hostOf);
  const out = new Array(items.length);
  const busy = new Map();
  let active = 0;
  let next = 0;
  let done = 0;
  return new Promise((resolve, reject) => {
    if (items.length === 0) return resolve(out);
    const pump = () => {
      for (let i = next; i < items.length && (limit <= 0 || active < limit); i++) {
        if (out[i] !== undefined || (perHost > 0 && (busy.get(hosts[i]) || 0) >= perHost)) continue;
        out[i] = null; // started
        if (i === next) next++;
        active++;
        busy.set(hosts[i], (busy.get(hosts[i]) || 0) + 1);
        Promise.resolve()
          .then(() => run(items[i]))
          .then((r) => {
            out[i] = r;
            active--;
            busy.set(hosts[i], busy.get(hosts[i]) - 1);
            if (++done === items.length) resolve(out);
            else pump();
          }, reject);
      }
      while (next < items.length && out[next] !== undefined) next++;
    };
    pump();
  });
}

// What a request without params has: nothing, never written to.
const NO_PARAMS = Object.freeze({});

// A request of the script, from its call to its Response: promises chained on the client's,
// with no closure and no async function on the common path (a scripted request is the loop
// every VU goes round: src/script/vu/vu.js). Redirects are followed from the Response's step.
function send(vu, method, urlArg, body, params) {
  let ex;
  try {
    ex = new Exchange(vu, method, urlArg, body, params || NO_PARAMS);
  } catch (err) {
    return Promise.reject(err);
  }
  if (ex.response !== null) return Promise.resolve(ex.response);
  return ex.hop();
}

// One call's state across its redirects.
class Exchange {
  constructor(vu, method, urlArg, body, params) {
    vu.assertCanRequest();
    const options = vu.options;
    // Every field set here first, in one order (one shape), to what a call without params has.
    this.vu = vu;
    this.method = method;
    this.params = params;
    this.response = null; // made at once when the URL does not parse or a param is refused
    this.nameTag = null;
    this.url = null;
    this.headers = NO_PARAMS;
    this.bytes = null;
    this.shownBody = null; // res.request.body: as given, before any compression
    this.first = null; // its first request, which res.request shows after redirects too (as k6)
    this.given = null; // the headers it was given, once it is redirected
    this.stripSensitive = false;
    this.jar = vu.jar;
    this.maxRedirects = options.maxRedirects ?? 10;
    this.redirectsLeft = 0;
    this.timeout = 60000;
    this.responseType = options.discardResponseBodies ? 'none' : 'text';
    this.throw = Boolean(options.throw);
    this.expected = vu.responseCallback;
    this.userTags = NO_PARAMS;
    this.digest = false;
    this.ntlm = false;
    // Most calls give a URL string and nothing else: the rest is read apart (configure), which
    // keeps what every request runs small for the engines to compile.
    if (typeof urlArg === 'string' && params === NO_PARAMS && (body === undefined || body === null)) this.parse(urlArg);
    else this.configure(urlArg, body, params);
    this.redirectsLeft = this.maxRedirects;
  }

  // The URL parsed; false when Go's url.Parse refuses it (as k6: a failed response, status 0
  // and code 1020, and no request). One it takes but cannot send fails when sent (hop).
  parse(urlArg) {
    try {
      this.url = parsedURL(String(urlArg));
      return true;
    } catch (err) {
      const error = `invalid URL: ${err.message}`;
      if (this.vu.options.throw) throw thrownGoError(error);
      this.refused(error);
      return false;
    }
  }

  // A URL object ({ url, name }), a body or params.
  configure(urlArg, body, params) {
    const vu = this.vu;
    if (urlArg instanceof TaggedURL) {
      this.nameTag = urlArg.name;
      urlArg = urlArg.url;
    } else if (typeof urlArg !== 'string') {
      // As k6: a URL is a string or http.url's, and anything else (an object with an href, a
      // number) is refused, shown as Go prints what k6 made of it.
      const error = `invalid URL: '#${goValue(urlArg)}'`;
      if (vu.options.throw) throw new Error(error);
      this.refused(error);
      return;
    }
    if (!this.parse(urlArg)) return;
    // The params k6 parses and may find wrong: a failed response too (code 0), no request.
    let compression;
    try {
      this.timeout = timeoutMs(params.timeout, 60000);
      const responseType = params.responseType || this.responseType;
      if (!RESPONSE_TYPES.includes(responseType)) throw new Error(`${responseType} does not belong to ResponseType values`);
      this.responseType = responseType;
      compression = compressionOf(params.compression);
    } catch (err) {
      if (vu.options.throw) throw err;
      this.refused(err.message);
      return;
    }
    let headers = NO_PARAMS;
    if (params.headers) {
      headers = {};
      for (const k in params.headers) headers[k] = String(params.headers[k]);
    }
    if (body !== undefined && body !== null && headers === NO_PARAMS && typeof body === 'object' && !(body instanceof Uint8Array) && !(body instanceof ArrayBuffer)) headers = {};
    this.headers = headers;
    this.bytes = bodyOf(body, headers);
    this.shownBody = this.bytes;
    if (compression !== null && this.bytes !== null) this.compress(compression);
    this.jar = params.jar || vu.jar;
    this.maxRedirects = params.redirects ?? vu.options.maxRedirects ?? 10;
    this.throw = params.throw === undefined ? Boolean(vu.options.throw) : Boolean(params.throw);
    this.expected = params.responseCallback !== undefined ? params.responseCallback : vu.responseCallback;
    this.userTags = params.tags || NO_PARAMS;
    const auth = params.auth;
    if (auth !== undefined && auth !== null && auth !== 'basic' && auth !== 'digest' && auth !== 'ntlm') {
      throw new Error(`auth '${auth}' is not supported here (basic, digest and ntlm: user:pass@ in the URL)`);
    }
    this.digest = auth === 'digest';
    this.ntlm = auth === 'ntlm';
  }

  // A request k6 refuses before sending it: a failed Response, said in the log.
  refused(error) {
    const { vu, method } = this;
    vu.warnOnce(`request failed: ${error}`);
    this.response = new Response(vu, 0, '', null, null, '', ZERO_TIMINGS, error, { method, url: '', headers: {}, body: '', cookies: {} }, NONE, NO_PEER);
  }

  // The body compressed as the param asks, and said in Content-Encoding unless the script's own
  // header says something else (which wins, as in k6, with its warning).
  compress(codings) {
    const { bytes, encoding } = compressed(this.vu.shared.facilities, codings, this.bytes);
    this.bytes = bytes;
    if (this.headers === NO_PARAMS) this.headers = {};
    const given = Object.keys(this.headers).find((k) => k.toLowerCase() === 'content-encoding');
    if (given === undefined) this.headers['Content-Encoding'] = encoding;
    else if (this.headers[given] !== encoding) {
      this.vu.warnOnce(`There's a mismatch between the desired \`compression\` the manually set \`Content-Encoding\` header in the ${this.method} request for '${this.url.href}', the custom header has precedence and won't be overwritten. This may result in invalid data being sent to the server.`);
    }
  }

  // One request of the call: the Response, or the rest of the call after a redirect.
  hop() {
    const unsendable = unsendableReason(this.url);
    if (unsendable !== undefined) return failedUnsent(this, unsendable);
    if (this.digest && (this.url.username || this.url.password)) return withDigest(this).then((response) => this.after(response));
    if (this.ntlm) return withNtlm(this, ntlmRequest).then((response) => this.after(response));
    return once(this, this.headers, this.expected, true);
  }

  /** The call goes on from `response`: returns it, or a promise of the redirect's. */
  after(response) {
    if (!isRedirect(response.status) && !(response.error && this.throw)) return response;
    return this.redirect(response);
  }

  redirect(response) {
    const { vu, url, method, params } = this;
    // throw: a request that failed (not a status) is an exception, with Go's words for it.
    if (response.error && this.throw) throw thrownGoError(`${method[0]}${method.slice(1).toLowerCase()} "${url.href}": ${goError(response.error, url)}`);
    if (!isRedirect(response.status)) return response;
    const location = response.headers.Location;
    if (location === undefined || this.redirectsLeft <= 0 || response.error) {
      // As k6: said only when neither the request nor the options set a limit, and counted as
      // Go counts it (the redirect it did not follow too).
      if (location !== undefined && this.redirectsLeft <= 0 && params.redirects === undefined && vu.options.maxRedirects === undefined) {
        vu.warnOnce(`Stopped after ${this.maxRedirects + 1} redirects and returned the redirection; pass { redirects: n } in request params or set global maxRedirects to silence this`);
      }
      return response;
    }
    this.redirectsLeft--;
    this.url = new URL(location, url);
    // As Go's client for k6: 301, 302 and 303 go on without the body, as a GET but for a HEAD;
    // 307 and 308 as they were.
    if (response.status <= 303) {
      if (method !== 'GET' && method !== 'HEAD') this.method = 'GET';
      this.bytes = null;
    }
    this.headers = redirectHeaders(this, url);
    this.nameTag = null;
    return this.hop();
  }
}

// A redirect's headers, as Go's client makes them for k6: the call's own again, but its
// Content-Length (the body is its own) and, once a hop has gone to another domain than the
// first's (a subdomain aside), its Authorization and Cookie (k6 sends its cookies anew); then a
// Referer, the URL the hop comes from without its credentials, unless the call gave one or the
// hop goes from https to http.
function redirectHeaders(ex, from) {
  const given = ex.given === null ? (ex.given = ex.headers) : ex.given;
  if (!ex.stripSensitive && ex.first.url.host !== ex.url.host) ex.stripSensitive = !isDomainOrSubdomain(ex.url.hostname, ex.first.url.hostname);
  const headers = {};
  for (const k in given) if (!/^content-length$/i.test(k) && !(ex.stripSensitive && /^(authorization|www-authenticate|cookie2?)$/i.test(k))) headers[k] = given[k];
  if (!hasHeader(headers, 'referer') && !(from.protocol === 'https:' && ex.url.protocol === 'http:')) headers.Referer = infoOf(from).bare;
  return headers;
}

// Go's isDomainOrSubdomain: an IPv6 address is no subdomain of anything.
const isDomainOrSubdomain = (sub, parent) => sub === parent || (!/[:%\[]/.test(sub) && sub.endsWith(`.${parent}`));

const ZERO_TIMINGS = Object.freeze({ duration: 0, blocked: 0, looking_up: 0, connecting: 0, tls_handshaking: 0, sending: 0, waiting: 0, receiving: 0 });

/**
 * One request of `ex` with `userHeaders`: a promise of its Response, or with `follow` of what
 * ex.after() makes of it. Its state goes with it as the client's request (a Request), which the
 * client's result carries back (result.request).
 */
function once(ex, userHeaders, expected, follow, pin = null, authorization = null) {
  const { url, bytes: body } = ex;
  const info = infoOf(url);
  const sentCookies = ex.jar.cookieHeader(url, ex.params.cookies, ex.vu.console);
  const request = new Request(ex, info, userHeaders, sentCookies, body, expected, follow);
  if (ex.first === null) ex.first = request;
  if (pin !== null) {
    request.pin = pin;
    request.authorization = authorization;
  }
  request.bytes = bytesOf(request, info, sentCookies === '' && !info.auth && pin === null, userHeaders === NO_PARAMS);
  // rps: every VU's requests of this process at most so many a second (k6's limiter, burst 1),
  // which k6 asks once a call: NTLM's messages go without (the request before them took a turn).
  const rps = authorization === null ? ex.vu.shared.rps : null;
  return rps === null ? dispatch(request) : paced(rps, request);
}

function paced(rps, request) {
  const turn = rps.take(); // a promise when the request must wait its turn
  return turn === undefined ? dispatch(request) : turn.then(() => dispatch(request));
}

// One request as sent: what the client is given to send (src/script/net/client.js, client-h2.js),
// what its end needs of the call, and its headers as the script sees them (for the wire when
// its bytes are not made yet; for res.request, [MAKE_REQUEST], when the script reads it).
class Request {
  constructor(ex, info, userHeaders, cookies, body, expected, follow) {
    this.bytes = null;
    this.isHead = ex.method === 'HEAD';
    this.method = ex.method;
    this.path = info.path;
    this.timeout = ex.timeout;
    this.binary = ex.responseType === 'binary';
    this.discard = ex.responseType === 'none';
    this.ex = ex;
    this.info = info;
    this.url = ex.url;
    this.userHeaders = userHeaders;
    this.cookies = cookies;
    this.body = body;
    this.jar = ex.jar;
    this.expected = expected;
    this.follow = follow;
    this.blockedStart = 0;
    this.client = null;
    // A request of NTLM's handshake (auth/ntlm.js): the connection it must go on
    // (src/script/net/client.js Pin), and the Authorization it sends (null: none) in place of
    // the script's and the URL's, which res.request shows all the same.
    this.pin = null;
    this.authorization = null;
    this.made = null; // the headers, once made
  }

  headers() {
    if (this.made !== null) return this.made;
    const headers = this.givenHeaders();
    if (this.pin !== null) {
      for (const k of Object.keys(headers)) if (k.toLowerCase() === 'authorization') delete headers[k];
      if (this.authorization !== null) headers.Authorization = this.authorization;
    }
    return (this.made = headers);
  }

  // Its headers as the script and the URL make them.
  givenHeaders() {
    const { url, userHeaders } = this;
    const vu = this.ex.vu;
    const headers = {};
    headers.Host = url.host;
    headers['User-Agent'] = vu.options.userAgent || `loadtest/${vu.shared.version} (k6 script)`;
    // Digest auth's first request too, as Go's client adds it before k6's digest transport.
    if (url.username || url.password) {
      headers.Authorization = 'Basic ' + btoa(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`);
    }
    for (const k in userHeaders) {
      for (const d of Object.keys(headers)) if (d.toLowerCase() === k.toLowerCase()) delete headers[d];
      headers[k] = userHeaders[k];
    }
    if (this.cookies) headers.Cookie = this.cookies;
    return headers;
  }

  /** The client's result of this request (src/script/net/client.js): the Response, or what follows. */
  answer(result) {
    return responded(result);
  }

  // An https origin may choose h2 (src/script/net/client-h2.js): the same request as HTTP/2 frames.
  frames() {
    return encodeH2Request({ method: this.method, scheme: 'https', authority: this.url.host, path: this.path, headers: lowerCased(this.headers()), body: this.body });
  }

  [MAKE_REQUEST]() {
    const { url } = this;
    const body = this.ex.shownBody;
    const headers = this.pin === null ? this.headers() : this.givenHeaders();
    return { method: this.method, url: infoOf(url).href, headers: goHeaders(headers, (url.username || url.password) && !hasHeader(this.userHeaders, 'authorization')), body: body ? textDecoder.decode(body) : '', cookies: sentCookies(this.cookies) };
  }
}

// An HTTP/1.1 request has its connection at once, and its blocked starts at its send (client.js).
function dispatch(request) {
  const client = request.ex.vu.clientFor(request.url, request.info.origin);
  if (client.protocol === 'http/1.1') return sendOn(request, client, 0);
  request.blockedStart = performance.now(); // a client resolving, or an HTTP/2 stream that may wait
  if (client instanceof Promise) return client.then((c) => sendOn(request, c, 0), (err) => unsent(request, err));
  return sendOn(request, client, request.blockedStart);
}

// `at`: the clock read of this same turn, for a connection that sends at once to take rather
// than read again (0 when the client came later).
function sendOn(request, client, at) {
  const vu = request.ex.vu;
  vu.shared.state.begun++;
  if (vu.shared.httpDebug) {
    debugRequest(vu, request.method, request.url, request.headers(), request.body);
    at = 0; // the line took its time
  }
  request.client = client;
  client.sendAt = at;
  const sent = client.send(request); // the Response (Request's answer()), not the client's result
  client.sendAt = 0;
  return sent;
}

// A name that does not resolve, a blocked hostname or IP: the request fails, as in k6.
function unsent(request, err) {
  if (err.code !== 'ENOTFOUND' && !(err instanceof DialError)) throw err;
  request.ex.vu.shared.state.begun++;
  return responded({ status: 0, head: null, body: null, encoding: null, error: err instanceof DialError ? err.short : 'ENOTFOUND', bytesIn: 0, start: request.blockedStart, timings: timingsOf(0, 0, 0, 0), request });
}

// A URL Go parses but cannot send ('foo', 'ftp://host/', 'http://host:99999/'): as k6, a request
// that failed at once, counted with Go's words for it.
function failedUnsent(ex, reason) {
  const request = new Request(ex, infoOf(ex.url), ex.headers, '', ex.bytes, ex.expected, true);
  if (ex.first === null) ex.first = request;
  request.blockedStart = performance.now();
  ex.vu.shared.state.begun++;
  return Promise.resolve(responded({ status: 0, head: null, body: null, encoding: null, error: reason, bytesIn: 0, start: request.blockedStart, timings: timingsOf(0, 0, 0, 0), request }));
}

// The client's result `r` of r.request: the samples, the cookies, the Response.
function responded(r) {
  const request = r.request;
  const { ex, info, method, url } = request;
  const vu = ex.vu;
  vu.assertNotInterrupted();
  if (r.encoding !== null) decode(vu, r);
  const setCookies = r.head && r.cookied !== false ? setCookieLines(r.head) : NONE;
  for (let i = 0; i < setCookies.length; i++) ex.jar.setFromHeader(url, setCookies[i]);
  // The client's timings object is the Response's: blocked and duration are k6/http's to fill.
  const timings = r.timings;
  timings.blocked = Math.max(0, r.start - request.blockedStart);
  timings.duration = timings.sending + timings.waiting + timings.receiving;
  const expected = request.expected === null ? null : (request.expected || defaultExpected)(r.status);
  const tagsRead = vu.shared.state.requestTagsRead();
  const tags = requestSamplesTags(vu, method, r, expected, ex, info, ex.userTags !== NO_PARAMS, tagsRead);
  vu.emitRequest(timings, r.status, expected, request.client === null ? 0 : request.bytes.length, r.bytesIn, tags, r.error, tagsRead);
  // res.request, made if the script reads it.
  const body = request.discard ? null : request.binary && r.body !== null ? r.body.buffer : r.body;
  const response = new Response(vu, r.status, r.proto, r.head, body, ex.digest ? info.bare : info.href, timings, r.error, ex.first, setCookies, r.peer || NO_PEER);
  if (vu.shared.httpDebug && (r.head || r.body instanceof SpanText)) debugResponse(vu, response, ex.responseType);
  return request.follow ? ex.after(response) : response;
}

// A compressed body decompressed, as k6 does whatever the request asked; one that does not
// decompress fails the request (k6's 1701), its status and headers gone with it.
function decode(vu, r) {
  try {
    const bytes = decompressed(vu.shared.facilities, r.encoding, r.body);
    r.body = r.request.binary ? bytes : textDecoder.decode(bytes);
  } catch (err) {
    Object.assign(r, { status: 0, head: null, body: null, proto: '', error: err.message });
  }
}

// Header names as HTTP/2 writes them (RFC 9113 8.2.2: lower case).
function lowerCased(headers) {
  const out = {};
  for (const k in headers) out[k.toLowerCase()] = headers[k];
  return out;
}

// A failed request's error as Go words it (in the exception `throw` makes, in k6/ws's response).
export function goError(reason, url) {
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  if (reason === 'ECONNREFUSED') return `dial tcp ${url.hostname}:${port}: connect: connection refused`;
  if (reason === 'ENOTFOUND') return `lookup ${url.hostname}: no such host`;
  if (reason === 'ECONNRESET') return 'read: connection reset by peer';
  if (reason === 'timeout') return 'request timeout';
  return reason;
}

// res.request.headers as k6 gives them (Go's http.Header): canonical names, each a list of
// values, without Host, nor the Authorization of credentials in the URL (Go keeps both apart).
function goHeaders(headers, urlAuth) {
  const out = {};
  for (const k in headers) {
    const name = canonicalName(k);
    if (name === 'Host' || (urlAuth && name === 'Authorization')) continue;
    (out[name] = out[name] || []).push(headers[k]);
  }
  return out;
}

const NONE = [];

function setCookieLines(head) {
  if (!/set-cookie/i.test(head)) return NONE;
  const out = [];
  for (const line of head.split(/\r?\n/)) if (/^set-cookie:/i.test(line)) out.push(line.slice(line.indexOf(':') + 1).trim());
  return out;
}

// auth: 'digest' as k6 does it (RFC 7616): the request with the URL's credentials as Basic (Go's
// client adds them before k6's digest transport sees it), then, if it was answered 401 with a
// Digest challenge, again with the answer to it. Both are requests of the
// run; the first one's 401 counts as expected, as in k6.
async function withDigest(ex) {
  const { vu, url, method, headers } = ex;
  const first = await once(ex, headers, ex.expected === null ? null : (status) => status === 401, false);
  const challenge = first.status === 401 ? digestChallenge(first.headers['Www-Authenticate']) : null;
  if (challenge === null) return first;
  return once(ex, { ...headers, Authorization: digestAuthorization(challenge, method, url, vu.shared.facilities.hash) }, ex.expected, false);
}

// A request of auth: 'ntlm' (auth/ntlm.js): the call's first counts a 401 as expected too, as
// k6's (the connection may be authenticated already, and then there is no 401).
function ntlmRequest(ex, pin, authorization) {
  const { expected } = ex;
  return once(ex, ex.headers, ex.first === null && expected !== null ? (status) => status === 401 || (expected || defaultExpected)(status) : expected, false, pin, authorization);
}
