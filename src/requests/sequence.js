// Request sequences: a list of requests on the run's origin, each encoded once. Each connection
// walks the list in order (a user's visit: login, list, logout, again); with weights, every
// request picks an entry by smooth weighted round robin (nginx's), so the shares are exact over
// each cycle of the weights rather than only on average. Results are kept per entry.
//
// An entry may capture values from its response (a token, an id) into variables that the later
// entries of the connection's walk use as {{name}}, and may check its response
// (src/requests/checks.js); only such entries are compiled and keep their response's bytes, the
// others' bytes are fixed, which is what keeps a sequence as cheap as one request.

import { Histogram } from '../run/histogram.js';
import { parseCaptures, parseChecks } from './checks.js';

/**
 * Checks a `requests` list against the run's URL. Each entry: { method, path or url (same
 * origin), headers, body, weight, name }. Returns entries with method, path, headers (lower-case
 * names), body, weight (null when none has one) and name.
 */
export function parseSequence(list, url, defaults = {}) {
  if (!Array.isArray(list) || list.length === 0) throw new Error('requests must be a non-empty list of { method, path or url, headers, body }');
  const weighted = list.some((e) => e && e.weight !== undefined && e.weight !== null);
  return list.map((e, i) => {
    const where = `requests[${i}]`;
    if (!e || typeof e !== 'object' || Array.isArray(e)) throw new Error(`${where} must be an object with a path or url`);
    let path = defaults.path || '/';
    if (e.url !== undefined) {
      let u;
      try {
        u = new URL(String(e.url), url);
      } catch {
        throw new Error(`${where}.url '${e.url}' is not a URL`);
      }
      if (u.origin !== url.origin) throw new Error(`${where}.url '${e.url}' is not on the run's origin ${url.origin}`);
      path = u.pathname + u.search;
    } else if (e.path !== undefined) {
      path = String(e.path);
      if (!path.startsWith('/')) throw new Error(`${where}.path '${path}' must start with /`);
    }
    const method = String(e.method || defaults.method || 'GET').toUpperCase();
    const headers = {};
    if (e.headers !== undefined && e.headers !== null) {
      if (typeof e.headers !== 'object' || Array.isArray(e.headers)) throw new Error(`${where}.headers must be an object of name: value`);
      for (const k in e.headers) headers[k.toLowerCase()] = String(e.headers[k]);
    }
    let weight = null;
    if (weighted) {
      weight = e.weight === undefined || e.weight === null ? 1 : Number(e.weight);
      if (!Number.isFinite(weight) || weight <= 0) throw new Error(`${where}.weight must be a number above zero, got '${e.weight}'`);
    }
    const name = e.name !== undefined ? String(e.name) : `${method} ${path}`;
    const capture = parseCaptures(e.capture, `${where}.capture`);
    // A variable is a connection's, filled as it walks the entries in order.
    if (capture !== null && weighted) throw new Error(`${where}.capture: captures need the entries walked in order, without weights`);
    const check = parseChecks(e.check, `${where}.check`);
    return { name, method, path, headers, body: e.body, weight, capture, check };
  });
}

/**
 * Picks entries: in order per connection (conn.step), or by weight across all connections.
 * Returns pick(conn) → entry index.
 */
export function entryPicker(entries) {
  const n = entries.length;
  if (entries[0].weight === null) return (conn) => conn.step++ % n;
  const weights = entries.map((e) => e.weight);
  const total = weights.reduce((a, b) => a + b, 0);
  const current = new Float64Array(n);
  return () => {
    let best = 0;
    for (let i = 0; i < n; i++) {
      current[i] += weights[i];
      if (current[i] > current[best]) best = i;
    }
    current[best] -= total;
    return best;
  };
}

/** Per-entry counts of a run: requests that ended, errors among them, latencies. */
export class EntryStats {
  constructor(entries) {
    this.names = entries.map((e) => e.name);
    this.methods = entries.map((e) => e.method);
    this.paths = entries.map((e) => e.path);
    this.completed = new Array(entries.length).fill(0);
    this.errors = new Array(entries.length).fill(0);
    this.histograms = entries.map(() => new Histogram());
  }

  toJSON() {
    return { names: this.names, methods: this.methods, paths: this.paths, completed: this.completed, errors: this.errors, histograms: this.histograms.map((h) => h.toJSON()) };
  }

  static fromJSON(json) {
    const s = new EntryStats(json.names.map((name, i) => ({ name, method: json.methods[i], path: json.paths[i] })));
    s.completed = json.completed.slice();
    s.errors = json.errors.slice();
    s.histograms = json.histograms.map((h) => Histogram.fromJSON(h));
    return s;
  }

  merge(other) {
    for (let i = 0; i < this.names.length; i++) {
      this.completed[i] += other.completed[i];
      this.errors[i] += other.errors[i];
      this.histograms[i].merge(other.histograms[i]);
    }
  }

  /** The result's `entries`: one object per entry, latencies in ms. */
  summary() {
    return this.names.map((name, i) => {
      const h = this.histograms[i];
      const [p50, p90, p99] = [50, 90, 99].map((p) => h.percentile(p));
      const ms = (us) => Math.round(us) / 1000;
      return {
        name,
        method: this.methods[i],
        path: this.paths[i],
        requests: this.completed[i],
        errors: this.errors[i],
        meanLatencyMs: h.count > 0 ? ms(h.sum / h.count) : 0,
        percentiles: { 50: ms(p50), 90: ms(p90), 99: ms(p99) },
        maxLatencyMs: ms(h.max),
      };
    });
  }
}
