// k6's Response: status, body, headers (names canonical, as Go's net/http gives them to k6),
// json(selector), cookies, timings, error and error_code, and the request that was sent; html(),
// clickLink() and submitForm() on k6/html.

import { gjson } from './gjson.js';
import { goJSONError } from './go-json-error.js';
import { thrownGoError } from '../host-error.js';
import { pageAt } from '../html/html-load.js';
import { SpanText } from '../../net/span-text.js';
import { setCookiePair } from './cookies.js';
import { tlsAlertText, TLS_ALERT_CODE } from './tls-alerts.js';
import { CONSOLE_VIEW } from '../console-format.js';

const ERROR_CODES = [
  [/^invalid URL/, 1020],
  [/^error decompressing response body/, 1701],
  // A param k6 could not parse: no request, no code.
  [/^(invalid timeout value|unknown compression algorithm|\S* does not belong to ResponseType values)/, 0],
  [/^ip is blacklisted$/, 1110],
  [/^hostname is blocked$/, 1111],
  [/^timeout$/, 1050],
  [/^ECONNREFUSED$/, 1212],
  [/^ECONNRESET$/, 1220],
  [/^EPIPE$/, 1201],
  [/^(ENOTFOUND|EAI_AGAIN)$/, 1101],
  [/^CERT_ERROR/, 1310],
  [/^TLS_ALERT_/, TLS_ALERT_CODE],
  [/^malformed response/, 1000],
  [/^dial tcp: address [0-9]+: invalid port$/, 1210],
];

// What k6 says of a failed request (its res.error and error tag), by our reason for it.
const K6_TEXTS = [
  [/^timeout$/, 'request timeout'],
  [/^ECONNREFUSED$/, 'dial: connection refused'],
  [/^ECONNRESET$/, 'read: connection reset by peer'],
  [/^EPIPE$/, 'write: broken pipe'],
  [/^(ENOTFOUND|EAI_AGAIN)$/, 'lookup: no such host'],
  [/^CERT_ERROR/, 'x509: unknown authority'],
];

/** A request's failure as k6 words it ('dial: connection refused'); others as they are. */
export function k6ErrorText(reason) {
  if (!reason) return '';
  // k6 wraps its decompression error twice on its way to the response (its log line has it once).
  if (reason.startsWith('error decompressing response body')) return `error decompressing response body (${reason})`;
  const alert = tlsAlertText(reason);
  if (alert !== null) return alert;
  for (const [re, text] of K6_TEXTS) if (re.test(reason)) return text;
  return reason;
}

// Go's canonical form of a header name: Content-Type, X-Request-Id. A server sends the same
// few names again and again: each is worked out once.
const CANONICAL = new Map();
export function canonicalName(name) {
  let c = CANONICAL.get(name);
  if (c === undefined) {
    c = name.toLowerCase().replace(/(^|-)([a-z])/g, (_, dash, ch) => dash + ch.toUpperCase());
    if (CANONICAL.size < 1000) CANONICAL.set(name, c);
  }
  return c;
}

/** A response head's headers by canonical name; several of one name joined with ', '. */
export function canonicalHeaders(head) {
  const out = {};
  // The final response's head: past any 1xx before it (each begins with its status line).
  let from = head.startsWith('HTTP/') ? 0 : -1;
  for (let at = head.indexOf('\nHTTP/'); at >= 0; at = head.indexOf('\nHTTP/', at + 1)) from = at + 1;
  let line = head.indexOf('\n', Math.max(0, from)) + 1; // past the status line
  if (line === 0) return out;
  while (line < head.length) {
    let end = head.indexOf('\n', line);
    if (end < 0) end = head.length;
    const stop = head.charCodeAt(end - 1) === 13 ? end - 1 : end;
    const colon = head.indexOf(':', line);
    if (colon > line && colon < stop) {
      const name = canonicalName(head.slice(line, colon).trim());
      const value = head.slice(colon + 1, stop).trim();
      out[name] = name in out ? `${out[name]}, ${value}` : value;
    }
    line = end + 1;
  }
  return out;
}

// k6 gives a cookie's expiry as Go's Expires.UnixNano() / 1e6, which wraps past 64 bits for
// dates Go cannot count in nanoseconds: its zero time (no Expires, or one it cannot read) is
// -6795364578871, not 0.
const goUnixMilli = (ms) => Number(BigInt.asIntN(64, BigInt(ms) * 1000000n) / 1000000n);
const GO_ZERO_TIME_MS = -62135596800000;

/** A response's Set-Cookie values as k6 gives them: { name: [{ name, value, domain, ... }] }. */
function responseCookies(lines) {
  const cookies = {};
  for (const line of lines) {
    const parts = line.split(';').map((p) => p.trim());
    const pair = setCookiePair(parts[0]);
    if (pair === null) continue;
    const c = { name: pair.name, value: pair.value, domain: '', path: '', http_only: false, secure: false, max_age: 0, expires: goUnixMilli(GO_ZERO_TIME_MS) };
    for (const a of parts.slice(1)) {
      const at = a.indexOf('=');
      const key = (at < 0 ? a : a.slice(0, at)).trim().toLowerCase();
      const v = at < 0 ? '' : a.slice(at + 1).trim();
      if (key === 'domain') c.domain = v;
      else if (key === 'path') c.path = v;
      else if (key === 'httponly') c.http_only = true;
      else if (key === 'secure') c.secure = true;
      else if (key === 'max-age' && /^-?\d+$/.test(v) && !/^0\d/.test(v)) c.max_age = Number(v) <= 0 ? -1 : Number(v); // Go: 0 or less is -1
      else if (key === 'expires' && !Number.isNaN(Date.parse(v))) c.expires = goUnixMilli(Date.parse(v));
    }
    (cookies[c.name] = cookies[c.name] || []).push(c);
  }
  return cookies;
}

// headers, cookies and request are made when the script first reads them (most read the
// status and the body only); JSON.stringify(res) still shows them all (toJSON).
/** The method of a response's request that makes what res.request shows (made when read). */
export const MAKE_REQUEST = Symbol('res.request');

// k6's words for res.json() and res.html() of a response without a body (a failed request,
// responseType 'none').
// A body given as text, or as bytes (responseType 'binary').
const BODY_DECODER = new TextDecoder();
const bodyText = (body) => (typeof body === 'string' ? body : BODY_DECODER.decode(body));
const nullBody = (what) => `the body is null so we can't transform it to ${what} - this likely was because of a request error getting the response`;

export class Response {
  #vu;
  #head;
  #body;
  #text = null; // a SpanText: head and body as the client read them, not decoded yet
  #headers = null;
  #cookieLines;
  #cookies = null;
  #request;
  #tls; // answered over TLS: k6 then reads the OCSP response the server stapled
  #ocsp = null;
  #json; // json()'s value without a selector, parsed at its first call and kept, as k6 keeps it
  // The fields the script sees, declared (in the constructor's order, which Object.keys shows):
  // JSC sizes an object for its class's declared fields and not for the constructor's stores
  // after them, and gave a Response's ten a separate store grown twice (a butterfly of 16).
  status;
  url;
  timings;
  error;
  error_code;
  proto;
  remote_ip;
  remote_port;
  tls_version;
  tls_cipher_suite;

  /**
   * `cookies`: its Set-Cookie values; `request`: what res.request shows, or an object whose
   * [MAKE_REQUEST]() makes it when the script first reads it; `peer`: who answered
   * (src/script/net/peer.js).
   */
  constructor(vu, status, proto, head, body, url, timings, error, request, cookies, peer) {
    this.#vu = vu;
    this.#head = head;
    this.#cookieLines = cookies;
    this.#request = request;
    this.status = status;
    if (body instanceof SpanText) this.#text = body;
    else this.#body = body;
    this.url = url;
    this.timings = timings;
    this.error = error ? k6ErrorText(error) : '';
    this.error_code = responseErrorCode(error, status);
    this.proto = status ? proto || 'HTTP/1.1' : '';
    this.remote_ip = peer.ip;
    this.remote_port = peer.port;
    // As k6's, read from the response's connection: none for a request that got no response.
    this.tls_version = status ? peer.version : '';
    this.tls_cipher_suite = status ? peer.cipher : '';
    this.#tls = status !== 0 && peer.version !== '';
  }

  // k6's OCSP details of a stapled response (lib/netext/tls.go): none is read here, so what k6
  // gives for a TLS response without one ('unknown', times 0), or for one without TLS ('').
  get ocsp() {
    if (this.#ocsp === null) this.#ocsp = { produced_at: 0, this_update: 0, next_update: 0, revoked_at: 0, revocation_reason: '', status: this.#tls ? 'unknown' : '' };
    return this.#ocsp;
  }
  set ocsp(value) {
    this.#ocsp = value;
  }

  // Read as own fields (`body` too: a script may set it); the text decoded when first read.
  #decoded() {
    const text = this.#text.decode();
    this.#text = null;
    this.#head = text.head;
    this.#body = text.body;
  }
  get body() {
    if (this.#text !== null) this.#decoded();
    return this.#body;
  }
  set body(value) {
    if (this.#text !== null) this.#decoded();
    this.#body = value;
  }
  get headers() {
    if (this.#headers === null) {
      if (this.#text !== null) this.#decoded();
      this.#headers = this.#head ? canonicalHeaders(this.#head) : {};
    }
    return this.#headers;
  }
  set headers(value) {
    this.#headers = value;
  }
  get cookies() {
    if (this.#cookies === null) this.#cookies = responseCookies(this.#cookieLines);
    return this.#cookies;
  }
  set cookies(value) {
    this.#cookies = value;
  }
  // Go's resp.Status ('200 OK'), read from the head when the script asks.
  get status_text() {
    if (this.#text !== null) this.#decoded();
    return this.status ? statusText(this.#head, this.status) : '';
  }

  get request() {
    const r = this.#request;
    if (r !== null && typeof r === 'object' && typeof r[MAKE_REQUEST] === 'function') this.#request = r[MAKE_REQUEST]();
    return this.#request;
  }
  set request(value) {
    this.#request = value;
  }

  // In k6's order of its fields.
  toJSON() {
    const { remote_ip, remote_port, url, status, status_text, proto, body, timings, tls_version, tls_cipher_suite, ocsp, error, error_code } = this;
    return { remote_ip, remote_port, url, status, status_text, proto, headers: this.headers, cookies: this.cookies, body, timings, tls_version, tls_cipher_suite, ocsp, error, error_code, request: this.request };
  }

  // console.log(res) as k6 v2.2 walks its Go struct: its fields, then its methods.
  [CONSOLE_VIEW]() {
    return Object.assign(this.toJSON(), { clickLink: this.clickLink, html: this.html, json: this.json, submitForm: this.submitForm });
  }

  /**
   * The body parsed as JSON; with a GJSON path ('a.b.0', 'items.#', '#(id==2).name'), that value,
   * or undefined. As k6's: without a path, the same value each call (parsed once, what the script
   * changes in it kept, whatever it sets the body to after); with one, read from the body as it
   * came (parsed again).
   */
  json(selector) {
    if (this.body === null || this.body === undefined) throw new Error(nullBody('JSON'));
    const whole = selector === undefined || selector === null || selector === '';
    if (whole && this.#json !== undefined) return this.#json;
    const text = bodyText(this.body);
    let value;
    try {
      value = JSON.parse(text);
    } catch (e) {
      throw thrownGoError(goJSONError(text) ?? `cannot parse the response body as JSON: ${e.message}`);
    }
    if (whole) return (this.#json = value);
    return gjson(value, String(selector));
  }

  /** The body as a k6/html Selection (of the document, or of `selector` in it). */
  html(selector) {
    if (this.body === null || this.body === undefined) throw new Error(nullBody('HTML'));
    const doc = pageAt(bodyText(this.body), this.url);
    return selector === undefined ? doc : doc.find(selector);
  }

  /** Follows the first link `selector` finds (a[href] by default): a GET of its href. */
  clickLink({ selector = 'a[href]', params } = {}) {
    const href = this.html(selector).attr('href');
    if (href === undefined) throw new Error(`clickLink: no link matches '${selector}'`);
    return this.#vu.module('k6/http').request('GET', new URL(href, this.url).href, null, params);
  }

  /** Submits the form `formSelector` finds with its fields, `fields` over them. */
  submitForm({ formSelector = 'form', fields = {}, submitSelector, params } = {}) {
    const form = this.html(formSelector).first();
    if (form.size() === 0) throw new Error(`submitForm: no form matches '${formSelector}'`);
    const values = { ...form.serializeObject(), ...fields };
    if (submitSelector) {
      const submit = form.find(submitSelector);
      const name = submit.attr('name');
      if (name !== undefined) values[name] = submit.attr('value') ?? '';
    }
    const method = String(form.attr('method', 'GET')).toUpperCase();
    const action = new URL(form.attr('action', this.url), this.url);
    const http = this.#vu.module('k6/http');
    if (method === 'GET') {
      for (const [k, v] of Object.entries(values)) action.searchParams.set(k, v);
      return http.request('GET', action.href, null, params);
    }
    return http.request(method, action.href, values, params);
  }
}

// Go's resp.Status, as k6 gives it: '200 OK', from the final response's status line.
function statusText(head, status) {
  if (!head) return String(status);
  let from = 0;
  for (let at = head.indexOf('\nHTTP/'); at >= 0; at = head.indexOf('\nHTTP/', at + 1)) from = at + 1;
  const end = head.indexOf('\n', from);
  const line = head.slice(from, end < 0 ? head.length : end).replace(/\r$/, '');
  const m = /^HTTP\/\d(?:\.\d)? (\d{3}(?: .*)?)$/.exec(line);
  return m ? m[1] : String(status);
}

/**
 * k6's error code of a response (res.error_code and its samples' error_code tag): a failed
 * request's by our reason; as k6, a status of 400 or more is one too (1000 + the status, its
 * error text empty); else 0.
 */
export function responseErrorCode(error, status) {
  return error ? errorCodeOf(error) : status >= 400 ? 1000 + status : 0;
}

/** k6's error_code of a failed request, by our reason for its failure. */
export function errorCodeOf(reason) {
  for (const [re, code] of ERROR_CODES) if (re.test(reason)) return code;
  return 1000;
}
