// Captures and checks on a response, for request sequences (src/requests/sequence.js): an entry may
// take values from its response into variables that later entries use as {{name}}, and may
// check its response. Specs are validated and compiled once, before a run; what runs per
// response only reads: no regex is compiled there, the body is decoded and its JSON parsed at
// most once (the ResponseView shared by the checks and the captures), the head scanned at most once.
//
// Reasons are error counters' keys, so they name what was expected and leave out what varies from
// one response to the next (an id, a count, a date): a run's errors then group into a few lines.

import { decodeChunks } from '../http1/captured.js';

const VAR_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
// RFC 9110 5.6.2 token.
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// Keys and indexes: data.items.0.id, data.items[0].id, [0].id (a body that is an array).
const JSON_PATH = /^(?:[^.[\]]+|\[\d+\])(?:\.[^.[\]]+|\[\d+\])*$/;
const JSON_PATH_PART = /\[(\d+)\]|([^.[\]]+)/g;
const CAPTURE_KEYS = ['json', 'header', 'regex', 'flags'];
const CHECK_KEYS = ['status', 'header', 'body', 'bodyRegex', 'json'];
// Long enough to tell values apart in a report, short enough to keep a reason on one line.
const SHOW_MAX = 60;

function isObject(v) {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function show(s) {
  return `'${s.length > SHOW_MAX ? s.slice(0, SHOW_MAX) + '…' : s}'`;
}

function showJson(v) {
  const s = JSON.stringify(v);
  return s.length > SHOW_MAX ? s.slice(0, SHOW_MAX) + '…' : s;
}

function compileRegex(source, flags, where) {
  if (typeof source !== 'string') throw new Error(`${where}: the regex must be a string`);
  if (flags !== undefined && typeof flags !== 'string') throw new Error(`${where}: flags must be a string such as 'i'`);
  try {
    return new RegExp(source, flags);
  } catch (e) {
    throw new Error(`${where}: the regex does not compile (${String(e && e.message).split('\n')[0]})`);
  }
}

// Whether the regex has a capturing group: an alternative that matches the empty string makes
// exec() return every group, matched or not.
function hasGroup(re) {
  return new RegExp(re.source + '|', re.flags.replace(/[gy]/g, '')).exec('').length > 1;
}

// A path's keys, and beside each the array index it names (-1 when none: '01' or 'id').
function parsePath(text) {
  if (typeof text !== 'string' || !JSON_PATH.test(text)) return null;
  const keys = [];
  const indexes = [];
  for (const m of text.matchAll(JSON_PATH_PART)) {
    const key = m[1] !== undefined ? m[1] : m[2];
    keys.push(key);
    indexes.push(/^(?:0|[1-9]\d{0,8})$/.test(key) ? Number(key) : -1);
  }
  return { keys, indexes };
}

// Own properties only, and only indexes of an array: a path such as 'constructor', '__proto__'
// or 'items.length' must not reach what JSON.parse did not make.
function lookup(value, path) {
  const keys = path.keys;
  for (let i = 0; i < keys.length; i++) {
    if (value === null || typeof value !== 'object') return undefined;
    if (Array.isArray(value)) {
      const index = path.indexes[i];
      if (index < 0 || index >= value.length) return undefined;
      value = value[index];
    } else {
      const key = keys[i];
      if (!Object.hasOwn(value, key)) return undefined;
      value = value[key];
    }
  }
  return value;
}

// Whether v is made only of what JSON.parse can give, so that deep-equality means something.
function isJsonValue(v) {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return true;
  if (typeof v === 'number') return Number.isFinite(v);
  if (Array.isArray(v)) return v.every(isJsonValue);
  if (isObject(v) && Object.getPrototypeOf(v) === Object.prototype) return Object.values(v).every(isJsonValue);
  return false;
}

function jsonEqual(a, b) {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  const array = Array.isArray(a);
  if (array !== Array.isArray(b)) return false;
  if (array) {
    if (a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const k of keys) if (!Object.hasOwn(b, k) || !jsonEqual(a[k], b[k])) return false;
  return true;
}

function jsonKind(v) {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  const t = typeof v;
  return t === 'object' ? 'an object' : `a ${t}`;
}

const UNREAD = Symbol('unread');

/**
 * One response as the checks and captures read it. `text` (the body, UTF-8) and `json` (the body
 * parsed; undefined when it is not JSON) are worked out on first use and kept; `header(name)`
 * gives the first value of a header (any case), trimmed, or undefined, from one scan of the head.
 */
export class ResponseView {
  constructor(status, headChunks, bodyChunks) {
    this.status = status;
    this.headChunks = headChunks;
    this.bodyChunks = bodyChunks;
    this._text = null;
    this._json = UNREAD;
    this._headers = null;
  }

  get text() {
    if (this._text === null) this._text = decodeChunks(this.bodyChunks);
    return this._text;
  }

  get json() {
    if (this._json === UNREAD) {
      try {
        this._json = JSON.parse(this.text);
      } catch {
        this._json = undefined;
      }
    }
    return this._json;
  }

  header(name) {
    if (this._headers === null) this._headers = headerMap(decodeChunks(this.headChunks));
    return this._headers.get(name.toLowerCase());
  }
}

/** The view of one response: build it once and hand it to runChecks and runCaptures. */
export function responseView(status, headChunks, bodyChunks) {
  return new ResponseView(status, headChunks, bodyChunks);
}

// Lower-cased name → first value. Only the final response's headers count: the head may start
// with interim 1xx responses.
function headerMap(text) {
  const map = new Map();
  const last = text.lastIndexOf('\nHTTP/');
  let at = text.indexOf('\n', last < 0 ? 0 : last + 1) + 1;
  let folded = null; // the name whose value an obs-fold line goes on with
  while (at > 0 && at < text.length) {
    let end = text.indexOf('\n', at);
    if (end < 0) end = text.length;
    const lineEnd = end > at && text.charCodeAt(end - 1) === 13 ? end - 1 : end;
    if (lineEnd === at) break;
    const first = text.charCodeAt(at);
    if (first === 32 || first === 9) {
      if (folded !== null) map.set(folded, (map.get(folded) + ' ' + text.slice(at, lineEnd).trim()).trim());
    } else {
      folded = null;
      const colon = text.indexOf(':', at);
      if (colon > at && colon < lineEnd) {
        const name = text.slice(at, colon).trim().toLowerCase();
        if (!map.has(name)) {
          map.set(name, text.slice(colon + 1, lineEnd).trim());
          folded = name;
        }
      }
    }
    at = end + 1;
  }
  return map;
}

/**
 * Compiles an entry's `capture` spec: { varName: { json: 'data.token' } | { header: 'x-request-id' }
 * | { regex: 'id="([^"]+)"', flags: 'i' } }. `where` names the spec in errors
 * ('requests[0].capture'). Returns a list of captures, or null when there is none.
 */
export function parseCaptures(spec, where) {
  if (spec === undefined || spec === null) return null;
  if (!isObject(spec)) throw new Error(`${where} must be an object of name: { json, header or regex }`);
  const list = [];
  for (const name of Object.keys(spec)) {
    if (!VAR_NAME.test(name) || name === '__proto__') throw new Error(`${where}: '${name}' is not a variable name`);
    const at = `${where}.${name}`;
    const s = spec[name];
    if (!isObject(s)) throw new Error(`${at}: give one of json, header or regex`);
    for (const key of Object.keys(s)) {
      if (!CAPTURE_KEYS.includes(key)) throw new Error(`${at}: unknown key '${key}' (give one of json, header or regex)`);
    }
    const kinds = ['json', 'header', 'regex'].filter((k) => s[k] !== undefined);
    if (kinds.length === 0) throw new Error(`${at}: give one of json, header or regex`);
    if (kinds.length > 1) throw new Error(`${at}: give only one of json, header or regex, not ${kinds.join(' and ')}`);
    const kind = kinds[0];
    if (s.flags !== undefined && kind !== 'regex') throw new Error(`${at}: flags go with regex only`);
    const capture = { name, kind, path: null, header: null, regex: null, group: false };
    if (kind === 'json') {
      capture.path = parsePath(s.json);
      if (capture.path === null) throw new Error(`${at}: '${s.json}' is not a json path (keys and indexes, such as data.items.0.id or data.items[0].id)`);
    } else if (kind === 'header') {
      if (typeof s.header !== 'string' || !HEADER_NAME.test(s.header)) throw new Error(`${at}: '${s.header}' is not a header name`);
      capture.header = s.header.toLowerCase();
    } else {
      capture.regex = compileRegex(s.regex, s.flags, at);
      capture.group = hasGroup(capture.regex);
    }
    list.push(capture);
  }
  return list.length > 0 ? list : null;
}

function parseStatusItem(v) {
  if (typeof v === 'number' || (typeof v === 'string' && /^\d{3}$/.test(v))) {
    const code = Number(v);
    if (Number.isInteger(code) && code >= 100 && code <= 599) return { code, cls: 0, text: String(code) };
  } else if (typeof v === 'string' && /^[1-5]xx$/i.test(v)) {
    return { code: 0, cls: Number(v[0]), text: `${v[0]}xx` };
  }
  return null;
}

function parseStatus(v, at) {
  const items = Array.isArray(v) ? v : [v];
  if (items.length === 0) throw new Error(`${at}: give at least one status`);
  const allowed = new Uint8Array(600);
  const texts = [];
  for (const item of items) {
    const p = parseStatusItem(item);
    if (p === null) throw new Error(`${at}: '${item}' is not a status (give a code such as 200, a class such as '2xx', or a list of them)`);
    if (p.code) allowed[p.code] = 1;
    else allowed.fill(1, p.cls * 100, p.cls * 100 + 100);
    texts.push(p.text);
  }
  return { allowed, expected: texts.join(' or ') };
}

function parseHeaderChecks(spec, at) {
  if (!isObject(spec)) throw new Error(`${at} must be an object of name: value`);
  const list = [];
  for (const name of Object.keys(spec)) {
    if (!HEADER_NAME.test(name)) throw new Error(`${at}: '${name}' is not a header name`);
    const v = spec[name];
    const lower = name.toLowerCase();
    if (v === true) {
      list.push({ name: lower, value: null, regex: null });
    } else if (typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v))) {
      list.push({ name: lower, value: String(v), regex: null });
    } else if (isObject(v) && v.regex !== undefined && Object.keys(v).every((k) => k === 'regex' || k === 'flags')) {
      list.push({ name: lower, value: null, regex: compileRegex(v.regex, v.flags, `${at}.${name}`) });
    } else {
      throw new Error(`${at}.${name}: give the exact value, { regex } or true (present)`);
    }
  }
  return list;
}

function parseJsonChecks(spec, at) {
  if (!isObject(spec)) throw new Error(`${at} must be an object of path: expected value`);
  const list = [];
  for (const path of Object.keys(spec)) {
    const parsed = parsePath(path);
    if (parsed === null) throw new Error(`${at}: '${path}' is not a json path (keys and indexes, such as data.items.0.id or data.items[0].id)`);
    const expected = spec[path];
    if (!isJsonValue(expected)) throw new Error(`${at}.${path}: the expected value is not a JSON value`);
    list.push({ path, parsed, expected, shown: showJson(expected) });
  }
  return list;
}

/**
 * Compiles an entry's `check` spec: { status: 200 | [200, 201] | '2xx', header: { name: 'exact' |
 * { regex, flags } | true }, body: 'substring', bodyRegex: 'source' | { regex, flags },
 * json: { path: expected } }. Returns the compiled checks, or null when there is none.
 */
export function parseChecks(spec, where) {
  if (spec === undefined || spec === null) return null;
  if (!isObject(spec)) throw new Error(`${where} must be an object of { ${CHECK_KEYS.join(', ')} }`);
  for (const key of Object.keys(spec)) {
    if (!CHECK_KEYS.includes(key)) throw new Error(`${where}: unknown check '${key}' (give ${CHECK_KEYS.slice(0, -1).join(', ')} or json)`);
  }
  const checks = { status: null, headers: null, body: null, bodyRegex: null, json: null };
  if (spec.status !== undefined) checks.status = parseStatus(spec.status, `${where}.status`);
  if (spec.header !== undefined) checks.headers = parseHeaderChecks(spec.header, `${where}.header`);
  if (spec.body !== undefined) {
    if (typeof spec.body !== 'string' || spec.body === '') throw new Error(`${where}.body must be a string to find in the body`);
    checks.body = spec.body;
  }
  if (spec.bodyRegex !== undefined) {
    const r = spec.bodyRegex;
    if (isObject(r) && Object.keys(r).every((k) => k === 'regex' || k === 'flags')) checks.bodyRegex = compileRegex(r.regex, r.flags, `${where}.bodyRegex`);
    else if (typeof r === 'string') checks.bodyRegex = compileRegex(r, undefined, `${where}.bodyRegex`);
    else throw new Error(`${where}.bodyRegex must be a regex source string or { regex, flags }`);
  }
  if (spec.json !== undefined) checks.json = parseJsonChecks(spec.json, `${where}.json`);
  if (checks.headers !== null && checks.headers.length === 0) checks.headers = null;
  if (checks.json !== null && checks.json.length === 0) checks.json = null;
  if (Object.values(checks).every((v) => v === null)) return null;
  return checks;
}

/**
 * What of a response the compiled captures and checks read: { head, body }, so that the client
 * keeps a response's bytes only when something reads them (the status alone needs neither).
 */
export function responseNeeds(captures, checks) {
  let head = false;
  let body = false;
  if (captures) {
    for (const c of captures) {
      if (c.kind === 'header') head = true;
      else body = true;
    }
  }
  if (checks) {
    if (checks.headers !== null) head = true;
    if (checks.body !== null || checks.bodyRegex !== null || checks.json !== null) body = true;
  }
  return { head, body };
}

function regexValue(re, group, text) {
  re.lastIndex = 0; // a 'g' or 'y' flag would otherwise carry on from the previous response
  const m = re.exec(text);
  if (m === null) return undefined;
  return group ? m[1] : m[0];
}

/**
 * Runs compiled captures on a view: null when every capture found a value, stored as a string
 * into vars (a JSON value that is not a string becomes its String(), an object or array its
 * JSON); else the reason, 'capture NAME: not found', and vars is left as it was.
 */
export function runCaptures(captures, view, vars) {
  if (!captures) return null;
  const n = captures.length;
  // Values are gathered first so that a failed capture leaves no half-updated set of variables.
  const values = n === 1 ? null : new Array(n);
  let single;
  for (let i = 0; i < n; i++) {
    const c = captures[i];
    let value;
    if (c.kind === 'json') {
      const json = view.json;
      if (json === undefined) return `capture ${c.name}: not found (the body is not JSON)`;
      const v = lookup(json, c.path);
      if (v !== undefined) value = typeof v === 'string' ? v : v !== null && typeof v === 'object' ? JSON.stringify(v) : String(v);
    } else if (c.kind === 'header') {
      value = view.header(c.header);
    } else {
      // A group that took no part in the match (an optional one) found nothing.
      value = regexValue(c.regex, c.group, view.text);
    }
    if (value === undefined) return `capture ${c.name}: not found`;
    if (values === null) single = value;
    else values[i] = value;
  }
  if (values === null) vars[captures[0].name] = single;
  else for (let i = 0; i < n; i++) vars[captures[i].name] = values[i];
  return null;
}

/** runCaptures on a response given as its status, head and body chunks. */
export function applyCaptures(captures, status, headChunks, bodyChunks, vars) {
  if (!captures) return null;
  return runCaptures(captures, new ResponseView(status, headChunks, bodyChunks), vars);
}

/** Runs compiled checks on a view: null when all pass, else the first failure's reason ('check ...'). */
export function runChecks(checks, view) {
  if (!checks) return null;
  const status = checks.status;
  if (status !== null) {
    const s = view.status;
    if (!(s >= 0 && s < 600 && status.allowed[s] === 1)) return `check status: ${s}, expected ${status.expected}`;
  }
  if (checks.headers !== null) {
    for (const h of checks.headers) {
      const value = view.header(h.name);
      if (value === undefined) return `check header ${h.name}: missing`;
      if (h.value !== null && value !== h.value) return `check header ${h.name}: ${show(value)}, expected ${show(h.value)}`;
      if (h.regex !== null) {
        h.regex.lastIndex = 0;
        if (!h.regex.test(value)) return `check header ${h.name}: ${h.regex} did not match`;
      }
    }
  }
  if (checks.body !== null && !view.text.includes(checks.body)) return `check body: ${show(checks.body)} not found`;
  if (checks.bodyRegex !== null) {
    checks.bodyRegex.lastIndex = 0;
    if (!checks.bodyRegex.test(view.text)) return `check bodyRegex: ${checks.bodyRegex} did not match`;
  }
  if (checks.json !== null) {
    const json = view.json;
    for (const j of checks.json) {
      if (json === undefined) return `check json ${j.path}: the body is not JSON`;
      const v = lookup(json, j.parsed);
      if (jsonEqual(v, j.expected)) continue;
      // Only values from a small set are shown; numbers and strings may differ on every response.
      if (v === undefined) return `check json ${j.path}: missing, expected ${j.shown}`;
      if (v === null || typeof v === 'boolean') return `check json ${j.path}: ${v}, expected ${j.shown}`;
      const kind = jsonKind(v);
      if (kind !== jsonKind(j.expected)) return `check json ${j.path}: ${kind}, expected ${j.shown}`;
      return `check json ${j.path}: expected ${j.shown}`;
    }
  }
  return null;
}

/**
 * Checks then captures one response (a failed check leaves the variables as they were): null, or
 * the first reason.
 */
export function checkAndCapture(checks, captures, status, headChunks, bodyChunks, vars) {
  if (!checks && !captures) return null;
  const view = new ResponseView(status, headChunks, bodyChunks);
  return runChecks(checks, view) || runCaptures(captures, view, vars);
}
