// src/outputs/influxdb/: --out influxdb[=URL], InfluxDB v1's line protocol over HTTP, as k6 v2.2
// writes it (its internal/output/influxdb). This file: the output's settings, as k6 makes them:
// its defaults, then the K6_INFLUXDB_* variables, then the URL's, each one honored or refused.

import { durationOf, wholeOf, boolOf } from '../settings.js';

const KINDS = new Set(['string', 'int', 'float', 'bool']);
// Go's time.ParseDuration("1" + precision), which k6's client checks a precision with; 'us' and
// 'µs' are left out: the client then writes nanoseconds under a microsecond precision.
const PRECISIONS = new Set(['', 'ns', 'ms', 's', 'm', 'h']);
const QUERY = new Set(['insecure', 'payload_size', 'precision', 'retention', 'consistency', 'pushInterval', 'concurrentWrites', 'tagsAsFields']);

/** The settings the K6_INFLUXDB_* variables give (`env`: a name's value, or undefined). */
function fromEnv(env) {
  const c = {};
  const text = (name) => env(`K6_INFLUXDB_${name}`);
  const set = (key, name, read = (v) => v) => {
    const v = text(name);
    if (v !== undefined) c[key] = read(v, `K6_INFLUXDB_${name}`);
  };
  set('addr', 'ADDR');
  set('proxy', 'PROXY');
  set('username', 'USERNAME');
  set('password', 'PASSWORD');
  set('insecure', 'INSECURE', boolOf);
  set('payloadSize', 'PAYLOAD_SIZE', wholeOf);
  set('pushInterval', 'PUSH_INTERVAL', durationOf);
  set('concurrentWrites', 'CONCURRENT_WRITES', wholeOf);
  set('db', 'DB');
  set('precision', 'PRECISION');
  set('retention', 'RETENTION');
  set('consistency', 'CONSISTENCY');
  set('tagsAsFields', 'TAGS_AS_FIELDS', (v) => v.split(',').filter((x) => x !== ''));
  return c;
}

/** The settings of --out influxdb=URL (k6's ParseURL): its address, database, user and query. */
function fromURL(text) {
  const c = {};
  let u;
  try {
    u = new URL(text);
  } catch {
    throw new Error('what follows influxdb= is not a URL (influxdb=http://HOST:8086/DATABASE)');
  }
  if (u.host !== '') c.addr = `${u.protocol}//${u.host}`;
  const db = decodeURIComponent(u.pathname.replace(/^\//, ''));
  if (db !== '') c.db = db;
  if (u.username !== '' || u.password !== '') {
    c.username = decodeURIComponent(u.username);
    c.password = decodeURIComponent(u.password);
  }
  for (const key of new Set(u.searchParams.keys())) {
    if (!QUERY.has(key)) throw new Error(`unknown query parameter: ${key}`);
    const values = u.searchParams.getAll(key);
    const v = values[0];
    if (key === 'insecure') {
      if (v === 'true' || v === 'false') c.insecure = v === 'true';
      else if (v !== '') throw new Error(`insecure must be true or false, not ${v}`);
    } else if (key === 'payload_size') c.payloadSize = wholeOf(v, 'payload_size');
    else if (key === 'pushInterval') c.pushInterval = durationOf(v, 'pushInterval');
    else if (key === 'concurrentWrites') c.concurrentWrites = wholeOf(v, 'concurrentWrites');
    else if (key === 'tagsAsFields') c.tagsAsFields = values;
    else c[key] = v;
  }
  return c;
}

/** What k6 honors that cannot be honored here is refused, in one line each. */
function refuseUnsupported(c) {
  if (c.addr.startsWith('udp://')) throw new Error('udp:// is not supported here: write over http:// or https://');
  if (!/^https?:\/\//.test(c.addr)) throw new Error(`the address '${c.addr}' is not http:// or https://`);
  if (c.proxy !== undefined && c.proxy !== '') throw new Error('K6_INFLUXDB_PROXY is not supported here: leave it out');
  if (c.payloadSize !== undefined && c.payloadSize > 0) throw new Error('payload_size is for udp://, which is not supported here: leave it out');
  if (c.insecure && c.addr.startsWith('https://')) throw new Error("insecure=true is not supported here over https://: give the server's certificate a CA the runtime trusts");
  if (!PRECISIONS.has(c.precision)) throw new Error(`precision '${c.precision}' is not supported here: ns (the default), ms, s, m or h`);
}

/** Each tag k6 writes as a field instead, and the field's kind (k6's MakeFieldKinds). */
export function fieldKinds(tagsAsFields) {
  const kinds = new Map();
  for (const tag of tagsAsFields) {
    const at = tag.indexOf(':');
    const name = at < 0 ? tag : tag.slice(0, at);
    const kind = at < 0 || tag.slice(at + 1) === '' ? 'string' : tag.slice(at + 1);
    if (kinds.has(name)) throw new Error(`a tag name (${name}) shows up more than once in InfluxDB field type configurations`);
    if (!KINDS.has(kind)) throw new Error(`an invalid type (${kind}) is specified for an InfluxDB field (${name})`);
    kinds.set(name, kind);
  }
  return kinds;
}

/**
 * The settings of `--out influxdb[=url]`: k6's defaults, the environment's (`env(name)`), the
 * URL's, as a plain object (it goes to the output's thread). Throws an Error whose message is
 * one line.
 */
export function influxConfig(url, env) {
  const c = { addr: 'http://localhost:8086', db: 'k6', username: '', password: '', insecure: false, pushInterval: 1000, concurrentWrites: 4, precision: '', retention: '', consistency: '', tagsAsFields: ['vu', 'iter', 'url'] };
  for (const given of [fromEnv(env), url ? fromURL(url) : {}]) {
    for (const [k, v] of Object.entries(given)) {
      if (k === 'tagsAsFields' && v.length === 0) continue;
      c[k] = v;
    }
  }
  if (c.addr === '') c.addr = 'http://localhost:8086';
  if (c.db === '') c.db = 'k6';
  refuseUnsupported(c);
  if (!(c.concurrentWrites > 0)) throw new Error("influxdb's ConcurrentWrites must be a positive number");
  if (!(c.pushInterval > 0)) throw new Error(`the push interval must be above 0, not ${c.pushInterval} ms`);
  fieldKinds(c.tagsAsFields);
  return c;
}

/** The address as a log line may show it: without its credentials. */
export function shownAddress(config) {
  return `${config.addr}/${config.db}`;
}
