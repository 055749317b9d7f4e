// The url secret source's lookups, as k6 v2.2 makes them: the key put in for every {key} of the
// template (as it is, not escaped), the request sent with the configured method and headers,
// a 200's body the secret (at most 24 KiB) or, with responsePath, the string at that GJSON path
// of it. A network error, a timeout, a 5xx or a 429 is tried again, maxRetries times, after
// retryBackoff^attempt whole seconds (Go's time.Duration of it) and up to a second of jitter;
// any other status, or a body without the secret, fails at once. Every lookup first waits its
// turn under requestsPerMinuteLimit with a burst of requestsBurst (golang.org/x/time/rate's
// limiter). What a lookup gives is kept by src/script/secrets/secrets.js: a key is fetched once
// it has a value, again after a failure.

import { gjson } from '../k6/http/gjson.js';
import { goParse, goQuote } from '../k6/http/url/go-url-parse.js';
import { goClient } from './go-client.js';

const MAX_SECRET_BYTES = 24 * 1024;
const METHOD = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const decoder = new TextDecoder();

/**
 * The lookups of a table's url sources (loadSecretSources()'s), for Secrets' `fetch`: (index,
 * key) => a promise of the value. `facilities`: the runtime's (runtimes/scripts/host.js).
 */
export function urlLookups(table, facilities) {
  const request = goClient(facilities);
  const sources = table.values.map((v) => (Array.isArray(v) ? null : new UrlSource(v.url, request)));
  return (index, key) => sources[index].get(key);
}

export class UrlSource {
  /**
   * `config`: url-config.js's; `request(method, url, headers, timeoutMs)`: Go's client
   * (go-client.js); `random()` and `clock()` for tests.
   */
  constructor(config, request, { random = Math.random, clock = () => performance.now() } = {}) {
    this.config = config;
    this.request = request;
    this.random = random;
    this.turn = limiter(config.requestsPerMinuteLimit, config.requestsBurst, clock);
  }

  /** The secret of `key`, or a rejection in k6's words. */
  async get(key) {
    const wait = this.turn();
    if (wait !== null) await wait;
    const { maxRetries, retryBackoffMs } = this.config;
    let last;
    for (let attempt = 0; attempt <= maxRetries; attempt++) {
      if (attempt > 0) await sleep(Math.trunc((retryBackoffMs / 1000) ** attempt) * 1000 + Math.floor(this.random() * 1000));
      const outcome = await this.attempt(key);
      if (outcome.value !== undefined) return outcome.value;
      last = outcome.error;
      if (!outcome.retry) break;
    }
    throw new Error(last);
  }

  // One request: { value } or { error, retry }.
  async attempt(key) {
    const { urlTemplate, method, headers, timeoutMs, responsePath } = this.config;
    const url = urlTemplate.replaceAll('{key}', key);
    // http.NewRequest's refusals: "failed to create request", which k6 tries again too.
    if (method !== '' && !METHOD.test(method)) return { error: `failed to create request: net/http: invalid method ${goQuote(method)}`, retry: true };
    const parsed = goParse(url);
    if (typeof parsed === 'string') return { error: `failed to create request: ${parsed}`, retry: true };
    let res;
    try {
      res = await this.request(method || 'GET', url, headers, timeoutMs);
    } catch (err) {
      return { error: `failed to get secret: ${err.message}`, retry: true };
    }
    if (res.status !== 200) return { error: `status code ${res.status}: failed to get secret`, retry: res.status >= 500 || res.status === 429 };
    try {
      return { value: secretOf(res.body, responsePath) };
    } catch (err) {
      return { error: `failed to extract secret: ${err.message}`, retry: false };
    }
  }
}

// gjson's type names, as k6's error gives them.
const typeName = (v) => (v === null ? 'Null' : v === true ? 'True' : v === false ? 'False' : typeof v === 'number' ? 'Number' : typeof v === 'string' ? 'String' : 'JSON');

function secretOf(body, path) {
  if (body.length > MAX_SECRET_BYTES) throw new Error(`secret response exceeds maximum size of ${MAX_SECRET_BYTES} bytes`);
  const text = decoder.decode(body);
  if (path === '') return text;
  let value;
  try {
    value = gjson(JSON.parse(text), path);
  } catch {
    value = undefined; // not JSON: nothing at any path
  }
  if (value === undefined) throw new Error(`path ${goQuote(path)} not found in response`);
  if (typeof value !== 'string') throw new Error(`secret value at path ${goQuote(path)} is not a string (got ${typeName(value)})`);
  return value;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * golang.org/x/time/rate's Limiter as k6 sets it: `burst` turns at once, then one every
 * minute/perMinute. Each call takes a turn: null when it is now, else a promise of it.
 */
export function limiter(perMinute, burst, clock = () => performance.now()) {
  const gap = 60000 / perMinute;
  let tokens = burst;
  let at = clock();
  return () => {
    const now = clock();
    tokens = Math.min(burst, tokens + (now - at) / gap);
    at = now;
    tokens -= 1;
    return tokens >= 0 ? null : sleep(-tokens * gap);
  };
}
