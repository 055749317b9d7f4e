// The url secret source's settings, as k6 v2.2 reads them (k6 v1.5, grafana/k6#5413): k6's
// defaults, then the K6_SECRET_SOURCE_URL_* variables, then a JSON file (config=FILE), then the
// command line's key=value pairs, each setting replaced by the next that gives it (headers as a
// whole: a later set of headers drops the earlier ones). Checked as k6 checks them, in its words.

import { parseGoDuration, jsonDuration } from './go-duration.js';
import { goParse } from '../k6/http/url/go-url-parse.js';

export const DEFAULTS = { method: 'GET', responsePath: '', requestsPerMinuteLimit: 300, requestsBurst: 10, timeoutMs: 30000, maxRetries: 3, retryBackoffMs: 1000 };

// The settings the command line and the variables name, each with its reader.
const INLINE = {
  urlTemplate: ['urlTemplate', String],
  method: ['method', String],
  responsePath: ['responsePath', String],
  timeout: ['timeoutMs', (v) => duration(v, 'timeout')],
  requestsPerMinuteLimit: ['requestsPerMinuteLimit', (v) => int(v, 'requestsPerMinuteLimit')],
  requestsBurst: ['requestsBurst', (v) => int(v, 'requestsBurst')],
  maxRetries: ['maxRetries', (v) => int(v, 'maxRetries')],
  retryBackoff: ['retryBackoffMs', (v) => duration(v, 'retryBackoff')],
};
const ENV = {
  K6_SECRET_SOURCE_URL_URL_TEMPLATE: 'urlTemplate',
  K6_SECRET_SOURCE_URL_METHOD: 'method',
  K6_SECRET_SOURCE_URL_RESPONSE_PATH: 'responsePath',
  K6_SECRET_SOURCE_URL_TIMEOUT: 'timeout',
  K6_SECRET_SOURCE_URL_MAX_RETRIES: 'maxRetries',
  K6_SECRET_SOURCE_URL_RETRY_BACKOFF: 'retryBackoff',
  K6_SECRET_SOURCE_URL_REQUESTS_PER_MINUTE_LIMIT: 'requestsPerMinuteLimit',
  K6_SECRET_SOURCE_URL_REQUESTS_BURST: 'requestsBurst',
};
const HEADER_VAR = 'K6_SECRET_SOURCE_URL_HEADER_';

function duration(value, name) {
  try {
    return parseGoDuration(value);
  } catch (err) {
    throw new Error(`invalid ${name}: ${err.message}`);
  }
}

// fmt.Sscanf(value, "%d"): spaces skipped, a sign, the digits; what follows them is left unread.
function int(value, name) {
  const m = /^\s*([+-]?)(\d*)/.exec(value);
  const rest = value.slice(m[0].length);
  if (m[2] === '') throw new Error(`invalid ${name}: ${rest === '' ? 'EOF' : 'expected integer'}`);
  const n = BigInt(m[1] + m[2]);
  if (n > 9223372036854775807n || n < -9223372036854775808n) throw new Error(`invalid ${name}: strconv.ParseInt: parsing ${JSON.stringify(m[1] + m[2])}: value out of range`);
  return Number(n);
}

/**
 * What the command line (`config`, TYPE=CONFIG's CONFIG without name= and default) and the
 * variables (`envVar`, `envNames`) give: { env, inline, file } (settings, and the JSON file's path
 * or null), checked now. Throws an Error in k6's words (without its "missing or invalid config").
 */
export function parseUrlSpec(config, envVar, envNames) {
  const env = {};
  for (const [name, key] of Object.entries(ENV)) {
    const v = envVar(name);
    if (v !== undefined && v !== '') set(env, key, v);
  }
  for (const name of envNames()) {
    if (name.startsWith(HEADER_VAR)) (env.headers = env.headers || {})[name.slice(HEADER_VAR.length)] = envVar(name);
  }
  const inline = {};
  let file = null;
  if (config !== '') {
    for (const part of config.split(',')) {
      const eq = part.indexOf('=');
      if (eq < 0) throw new Error(`invalid config format ${JSON.stringify(part)}, expected key=value`);
      const key = part.slice(0, eq);
      const value = part.slice(eq + 1);
      if (key === 'config') file = value;
      else if (Object.hasOwn(INLINE, key)) set(inline, key, value);
      else if (key.startsWith('headers.')) (inline.headers = inline.headers || {})[key.slice(8)] = value;
      else throw new Error(`unknown configuration key: ${JSON.stringify(key)}`);
    }
  }
  return { env, inline, file };
}

function set(target, key, value) {
  const [field, read] = INLINE[key];
  target[field] = read(value);
}

// Go's json.Unmarshal into k6's config struct: a field's key matched regardless of case, keys it
// does not know ignored, null leaving a setting unset.
const JSON_FIELDS = {
  urlTemplate: ['urlTemplate', 'string'],
  headers: ['headers', 'headers'],
  method: ['method', 'null.String'],
  responsePath: ['responsePath', 'null.String'],
  requestsPerMinuteLimit: ['requestsPerMinuteLimit', 'null.Int'],
  requestsBurst: ['requestsBurst', 'null.Int'],
  timeout: ['timeoutMs', 'duration'],
  maxRetries: ['maxRetries', 'null.Int'],
  retryBackoff: ['retryBackoffMs', 'duration'],
};

const goType = (v) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'boolean' ? 'bool' : typeof v === 'number' ? 'number' : typeof v);
const cannot = (v, type) => new Error(`json: cannot unmarshal ${goType(v)} into Go value of type ${type}`);

function jsonField(v, type, key) {
  if (type === 'string') {
    if (v === null) return undefined;
    if (typeof v !== 'string') throw new Error(`json: cannot unmarshal ${goType(v)} into Go struct field extConfig.${key} of type string`);
    return v === '' ? undefined : v;
  }
  if (type === 'headers') {
    if (v === null) return undefined;
    if (typeof v !== 'object' || Array.isArray(v)) throw new Error(`json: cannot unmarshal ${goType(v)} into Go struct field extConfig.${key} of type map[string]string`);
    for (const [name, value] of Object.entries(v)) if (typeof value !== 'string') throw new Error(`json: cannot unmarshal ${goType(value)} into Go struct field extConfig.${key}.${name} of type string`);
    return { ...v };
  }
  if (v === null) return undefined;
  if (type === 'null.String') {
    if (typeof v !== 'string') throw cannot(v, type);
    return v;
  }
  if (type === 'null.Int') {
    if (typeof v === 'number') {
      if (!Number.isInteger(v)) throw new Error(`json: cannot unmarshal number ${v} into Go value of type int64`);
      return v;
    }
    if (typeof v !== 'string') throw cannot(v, type);
    if (v === '') return undefined;
    if (!/^[+-]?\d+$/.test(v)) throw new Error(`strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax`);
    return Number(v);
  }
  return jsonDuration(v);
}

function fromJSON(text) {
  let parsed;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new Error(`failed to parse JSON config: ${err.message}`);
  }
  if (parsed === null) return {};
  if (typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error(`failed to parse JSON config: json: cannot unmarshal ${goType(parsed)} into Go value of type url.extConfig`);
  const out = {};
  for (const [key, v] of Object.entries(parsed)) {
    const name = Object.hasOwn(JSON_FIELDS, key) ? key : Object.keys(JSON_FIELDS).find((k) => k.toLowerCase() === key.toLowerCase());
    if (name === undefined) continue;
    const [field, type] = JSON_FIELDS[name];
    try {
      const value = jsonField(v, type, name);
      if (value !== undefined) out[field] = value;
    } catch (err) {
      throw new Error(`failed to parse JSON config: ${err.message}`);
    }
  }
  return out;
}

// k6's Apply: a setting given replaces the one before; an empty urlTemplate gives none.
function apply(base, over) {
  const out = { ...base };
  for (const [k, v] of Object.entries(over)) if (v !== undefined && !(k === 'urlTemplate' && v === '')) out[k] = v;
  return out;
}

/**
 * The source's settings: { urlTemplate, headers, method, responsePath, requestsPerMinuteLimit,
 * requestsBurst, timeoutMs, maxRetries, retryBackoffMs }, from parseUrlSpec()'s `spec` and its
 * file (`readText(path)`, from the working directory, as k6's); throws an Error in k6's words.
 */
export async function urlConfig(spec, readText) {
  let fromFile = {};
  if (spec.file !== null) {
    let text;
    try {
      text = await readText(spec.file);
    } catch (err) {
      throw new Error(`failed to open config file: open ${spec.file}: ${err.code === 'ENOENT' ? 'no such file or directory' : err.code === 'EISDIR' ? 'is a directory' : err.code || err.message}`);
    }
    fromFile = fromJSON(text);
  }
  const config = apply(apply(apply({ headers: {}, ...DEFAULTS }, spec.env), fromFile), spec.inline);
  validate(config);
  return config;
}

function validate(c) {
  const template = c.urlTemplate || '';
  if (template === '') throw new Error('urlTemplate is required');
  if (!template.includes('{key}')) throw new Error('urlTemplate must contain {key} placeholder');
  const parsed = goParse(template.replaceAll('{key}', 'test'));
  if (typeof parsed === 'string') throw new Error(`urlTemplate is not a valid URL: ${parsed}`);
  if (parsed.scheme === '') throw new Error('urlTemplate must be an absolute URL with a scheme (e.g., https://...)');
  if (!(c.timeoutMs > 0)) throw new Error('timeout must be greater than 0');
  if (!(c.requestsPerMinuteLimit > 0)) throw new Error('requestsPerMinuteLimit must be greater than 0');
  if (!(c.requestsBurst > 0)) throw new Error('requestsBurst must be greater than 0');
  if (c.maxRetries < 0) throw new Error('maxRetries must be non-negative');
  if (!(c.retryBackoffMs > 0)) throw new Error('retryBackoff must be greater than 0');
}
