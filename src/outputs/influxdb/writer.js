// The points of --out influxdb on their way to the database, beside the run and never in its
// way: lines are buffered, and each push interval (k6's 1 s) sent in batches over at most
// concurrentWrites requests at once (k6's 4), as k6's output flushes them. A database that is
// down, slow or refusing costs the run nothing: a batch that failed for the server or the network
// is tried again at the next push, lines past the bound are dropped and counted, and the run ends
// with one line saying how many were lost and why. At the end, one last flush, bounded in time.

import { shownAddress } from './config.js';

const MAX_BYTES = 64 * 1024 * 1024; // lines held for a database that does not take them
const BATCH_BYTES = 4 * 1024 * 1024; // a request's body at most (InfluxDB takes 25 MB a request by default)
const REQUEST_MS = 30000;

export class InfluxWriter {
  /** `config`: the output's settings (config.js); `fetch`: the engine's. */
  constructor(config, fetch = globalThis.fetch) {
    this.config = config;
    this.fetch = fetch;
    this.pending = []; // batches of lines, oldest first; the last one is being filled
    this.pendingBytes = 0;
    this.inflight = new Set();
    this.written = 0;
    this.lost = 0;
    this.why = null; // why the last lost points were lost
    this.lastError = null;
    this.abort = new AbortController();
    const q = new URLSearchParams({ db: config.db });
    if (config.retention) q.set('rp', config.retention);
    if (config.precision) q.set('precision', config.precision);
    if (config.consistency) q.set('consistency', config.consistency);
    this.writeURL = `${config.addr}/write?${q}`;
    this.headers = { 'Content-Type': 'text/plain; charset=utf-8' };
    // k6's client: basic auth when a user is given.
    if (config.username !== '') this.headers.Authorization = `Basic ${base64(`${config.username}:${config.password}`)}`;
    this.closing = false;
    this.isReady = false;
    this.ready = this.createDatabase().then(() => {
      this.isReady = true;
    });
    this.timer = setInterval(() => this.push(), config.pushInterval);
  }

  /** As k6: CREATE DATABASE at the start, its failure harmless (the database may exist, or the user may not create one). */
  async createDatabase() {
    const q = new URLSearchParams({ q: `CREATE DATABASE ${this.config.db}` });
    try {
      await this.fetch(`${this.config.addr}/query?${q}`, { method: 'POST', headers: this.headers, signal: AbortSignal.any([this.abort.signal, AbortSignal.timeout(REQUEST_MS)]) });
    } catch {}
  }

  /** Lines (`bytes`, a view to copy) of `points` points. */
  put(bytes, points) {
    if (this.pendingBytes + bytes.length > MAX_BYTES) {
      this.lose(points, `more than ${MAX_BYTES >> 20} MB of points waited for the database (${this.lastError || 'it was slow'})`);
      return;
    }
    let batch = this.pending[this.pending.length - 1];
    if (batch === undefined || batch.sealed || batch.bytes >= BATCH_BYTES) this.pending.push((batch = { chunks: [], bytes: 0, points: 0, sealed: false }));
    batch.chunks.push(bytes.slice());
    batch.bytes += bytes.length;
    batch.points += points;
    this.pendingBytes += bytes.length;
  }

  lose(n, why) {
    this.lost += n;
    this.why = why;
  }

  /** Sends what waits, as many batches as there is room for requests, once the database is made. */
  push() {
    if (!this.isReady) return;
    while (this.inflight.size < this.config.concurrentWrites && this.pending.length > 0) this.send(this.pending.shift());
  }

  send(batch) {
    batch.sealed = true;
    this.pendingBytes -= batch.bytes;
    const sent = this.post(batch).finally(() => this.inflight.delete(sent));
    this.inflight.add(sent);
  }

  async post(batch) {
    let res;
    try {
      res = await this.fetch(this.writeURL, { method: 'POST', headers: this.headers, body: new Blob(batch.chunks), signal: AbortSignal.any([this.abort.signal, AbortSignal.timeout(REQUEST_MS)]) });
    } catch (err) {
      const why = err.name === 'TimeoutError' ? `no answer in ${REQUEST_MS / 1000} s` : err.cause?.code || err.cause?.message || err.message;
      return this.again(batch, `${shownAddress(this.config)}: ${why}`);
    }
    const text = res.status === 204 ? '' : await res.text().catch(() => '');
    if (res.ok) {
      this.written += batch.points;
      return;
    }
    const why = `${shownAddress(this.config)}: ${res.status} ${oneLine(text)}`;
    // The server's own failures are tried again; a request it refuses (a field of another kind, a
    // database or a user it does not know) would be refused again.
    if (res.status >= 500 || res.status === 429) return this.again(batch, why);
    this.lastError = why;
    this.lose(batch.points, why);
  }

  again(batch, why) {
    this.lastError = why;
    if (this.closing || this.pendingBytes + batch.bytes > MAX_BYTES) return this.lose(batch.points, why);
    this.pendingBytes += batch.bytes;
    this.pending.unshift(batch);
  }

  /**
   * The last flush: what waits is sent, each batch once more (a database that failed during the
   * run is not waited for again), within `ms`; what is left then is lost. Returns the line to
   * say, or null when every point was written.
   */
  async close(ms) {
    clearInterval(this.timer);
    const deadline = Date.now() + ms;
    const left = () => Math.max(0, deadline - Date.now());
    await Promise.race([this.ready, sleep(ms)]);
    this.isReady = true;
    this.closing = true;
    while ((this.pending.length > 0 || this.inflight.size > 0) && left() > 0) {
      this.push();
      await Promise.race([...this.inflight, sleep(left())]);
    }
    this.abort.abort();
    await Promise.all(this.inflight);
    for (const b of this.pending) this.lose(b.points, `not written in the ${ms / 1000} s the end of the run allows`);
    this.pending = [];
    if (this.lost === 0) return null;
    return `--out influxdb: ${this.lost} of ${this.lost + this.written} points not written (${this.why})`;
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Base64 of a text's UTF-8 bytes (btoa takes Latin-1 only). */
function base64(text) {
  let binary = '';
  for (const b of new TextEncoder().encode(text)) binary += String.fromCharCode(b);
  return btoa(binary);
}

const oneLine = (text) => String(text).replace(/\s+/g, ' ').trim().slice(0, 200);
