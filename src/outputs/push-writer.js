// A push output's requests on their way to its database (InfluxDB, Prometheus remote write,
// OpenTelemetry), beside the run and never in its way: bodies wait in batches, and each push
// interval go out over at most `concurrentWrites` requests at once. A database that is down, slow
// or refusing costs the run nothing: a batch that failed for the server or the network is tried
// again at the next push (where the output allows it), what is past the bound is dropped and
// counted, and the run ends with one line saying how many were lost and why. At the end, one last
// flush, bounded in time.

import { joinChunks } from '../http1/captured.js';

const MAX_BYTES = 64 * 1024 * 1024; // what waits for a database that does not take it
const BATCH_BYTES = 4 * 1024 * 1024; // a request's body at most, where bodies are joined
const REQUEST_MS = 30000;

export class PushWriter {
  /**
   * `o`: { name: the output's (for the last line), shown: its address without credentials, url,
   * headers, pushInterval (ms), concurrentWrites, retry: whether a failed batch is sent again (not
   * where the database refuses samples older than it has), joins: whether bodies are joined into
   * one request (line protocol) or each sent alone (a protobuf message), unit: what a body holds
   * ('points'), prepare(): what to do before the first write, send(url, init): the request, which
   * resolves to { status, text }, or { status, why } to say in its words why it failed }.
   */
  constructor(o) {
    this.o = { concurrentWrites: 1, retry: true, joins: false, unit: 'points', prepare: async () => {}, send: sendByFetch, ...o };
    this.pending = []; // batches of bodies, oldest first; the last one may be being filled
    this.pendingBytes = 0;
    this.inflight = new Set();
    this.written = 0;
    this.lost = 0;
    this.why = null; // why the last lost points were lost
    this.lastError = null;
    this.abort = new AbortController();
    this.closing = false;
    this.isReady = false;
    this.ready = this.o.prepare(this.abort.signal).then(() => {
      this.isReady = true;
    });
    this.timer = setInterval(() => this.push(), this.o.pushInterval);
  }

  /** A body (`bytes`, copied when `copy`) of `points` points; false when there was no room for it (the points are lost). */
  put(bytes, points, copy = true) {
    if (this.pendingBytes + bytes.length > MAX_BYTES) {
      this.loseFull(points);
      return false;
    }
    let batch = this.pending[this.pending.length - 1];
    if (!this.o.joins || batch === undefined || batch.sealed || batch.bytes >= BATCH_BYTES) this.pending.push((batch = { chunks: [], bytes: 0, points: 0, sealed: false }));
    batch.chunks.push(copy ? bytes.slice() : bytes);
    batch.bytes += bytes.length;
    batch.points += points;
    this.pendingBytes += bytes.length;
    return true;
  }

  /** Whether `bytes` more would be taken now. */
  hasRoom(bytes) {
    return this.pendingBytes + bytes <= MAX_BYTES;
  }

  /** `points` lost for want of room: the database is slower than the run. */
  loseFull(points) {
    this.lose(points, `more than ${MAX_BYTES >> 20} MB of ${this.o.unit} waited for the database (${this.lastError || 'it was slow'})`);
  }

  lose(n, why) {
    this.lost += n;
    this.why = why;
  }

  /** Sends what waits, as many batches as there is room for requests, once the database is ready. */
  push() {
    if (!this.isReady) return;
    while (this.inflight.size < this.o.concurrentWrites && this.pending.length > 0) this.send(this.pending.shift());
  }

  send(batch) {
    batch.sealed = true;
    this.pendingBytes -= batch.bytes;
    const sent = this.post(batch).finally(() => this.inflight.delete(sent));
    this.inflight.add(sent);
  }

  async post(batch) {
    let res;
    // One array, joined once (a batch tried again goes as it is): a Blob is read through a
    // stream, copied on the way, at each send.
    if (batch.chunks.length > 1) batch.chunks = [joinChunks(batch.chunks)];
    const body = batch.chunks[0];
    try {
      res = await this.o.send(this.o.url, { method: 'POST', headers: this.o.headers, body, signal: AbortSignal.any([this.abort.signal, AbortSignal.timeout(REQUEST_MS)]) });
    } catch (err) {
      const why = err.name === 'TimeoutError' ? `no answer in ${REQUEST_MS / 1000} s` : err.cause?.code || err.cause?.message || err.message;
      // Deno's message holds the URL, and a URL may hold a token.
      return this.again(batch, `${this.o.shown}: ${String(why).replaceAll(this.o.url, this.o.shown)}`);
    }
    if (res.status >= 200 && res.status < 300) {
      this.written += batch.points;
      return;
    }
    const why = `${this.o.shown}: ${res.why || `${res.status} ${oneLine(res.text)}`}`;
    // The server's own failures are tried again; a request it refuses (a field of another kind, a
    // database or a user it does not know) would be refused again.
    if (res.status >= 500 || res.status === 429) return this.again(batch, why);
    this.lastError = why;
    this.lose(batch.points, why);
  }

  again(batch, why) {
    this.lastError = why;
    if (!this.o.retry || this.closing || this.pendingBytes + batch.bytes > MAX_BYTES) return this.lose(batch.points, why);
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
    return `--out ${this.o.name}: ${this.lost} of ${this.lost + this.written} ${this.o.unit} not written (${this.why})`;
  }
}

/**
 * The lines of several processes of one run (--cores, each child's), one an output: their
 * counts added up, the first process's reason.
 */
export function mergedLostLines(lines) {
  const by = new Map();
  const rest = [];
  for (const line of lines) {
    const m = /^--out (\S+): (\d+) of (\d+) (.+?) not written \((.*)\)$/.exec(line);
    if (m === null) {
      rest.push(line);
      continue;
    }
    const seen = by.get(m[1]);
    if (seen) {
      seen.lost += Number(m[2]);
      seen.all += Number(m[3]);
    } else by.set(m[1], { lost: Number(m[2]), all: Number(m[3]), unit: m[4], why: m[5] });
  }
  return [...[...by].map(([name, x]) => `--out ${name}: ${x.lost} of ${x.all} ${x.unit} not written (${x.why})`), ...rest];
}

/** A request by the engine's fetch: its status and, for a failure, its body's text. */
async function sendByFetch(url, init) {
  const res = await fetch(url, init);
  const text = res.ok ? (await res.arrayBuffer().catch(() => null), '') : await res.text().catch(() => '');
  return { status: res.status, text };
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Base64 of a text's UTF-8 bytes (btoa takes Latin-1 only). */
export function base64(text) {
  let binary = '';
  for (const b of new TextEncoder().encode(text)) binary += String.fromCharCode(b);
  return btoa(binary);
}

const oneLine = (text) => String(text).replace(/\s+/g, ' ').trim().slice(0, 200);
