// The points of --out influxdb on their way to the database: lines joined into batches of a few
// MB, each push interval (k6's 1 s) sent over at most concurrentWrites requests at once (k6's 4),
// as k6's output flushes them; the database made at the start, as k6 does.

import { shownAddress } from './config.js';
import { PushWriter, base64 } from '../push-writer.js';

const REQUEST_MS = 30000;

/** `config`: the output's settings (config.js). */
export function influxWriter(config) {
  const q = new URLSearchParams({ db: config.db });
  if (config.retention) q.set('rp', config.retention);
  if (config.precision) q.set('precision', config.precision);
  if (config.consistency) q.set('consistency', config.consistency);
  const headers = { 'Content-Type': 'text/plain; charset=utf-8' };
  // k6's client: basic auth when a user is given.
  if (config.username !== '') headers.Authorization = `Basic ${base64(`${config.username}:${config.password}`)}`;
  return new PushWriter({
    name: 'influxdb',
    shown: shownAddress(config),
    url: `${config.addr}/write?${q}`,
    headers,
    pushInterval: config.pushInterval,
    concurrentWrites: config.concurrentWrites,
    joins: true,
    // As k6: CREATE DATABASE at the start, its failure harmless (the database may exist, or the
    // user may not create one).
    prepare: async (signal) => {
      const create = new URLSearchParams({ q: `CREATE DATABASE ${config.db}` });
      try {
        await fetch(`${config.addr}/query?${create}`, { method: 'POST', headers, signal: AbortSignal.any([signal, AbortSignal.timeout(REQUEST_MS)]) });
      } catch {}
    },
  });
}
