// A real Prometheus (Debian's prometheus) for the tests of --out experimental-prometheus-rw, taking
// remote write (and native histograms), on a free loopback port with its data in a temporary
// directory; null when prometheus is not installed.

import { installed, startServer } from './installed.js';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../runtimes/processes/groups.js';

const PROMETHEUS = installed(['/usr/bin/prometheus', '/usr/sbin/prometheus'], ['--version']);

export const prometheusMissing = PROMETHEUS ? null : 'prometheus (Debian: prometheus) is not installed';

/** Starts Prometheus; resolves once it is ready. Returns { url, writeURL, query(promql), series(match), stop() }. */
export async function startPrometheus() {
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-prometheus-'));
  const port = await freePort();
  writeFileSync(join(dir, 'prometheus.yml'), 'global:\n  scrape_interval: 1h\n');
  const args = [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--web.enable-remote-write-receiver', '--enable-feature=native-histograms', '--log.level=error'];
  const url = `http://127.0.0.1:${port}`;
  const { stop } = await startServer(PROMETHEUS, args, dir, async () => (await fetch(`${url}/-/ready`)).ok, 'prometheus');
  return { url, writeURL: `${url}/api/v1/write`, stop, query: (q, time) => api(url, 'query', { query: q, ...(time ? { time: String(time) } : {}) }), series: (match) => api(url, 'series', { 'match[]': match, start: '0' }) };
}

async function api(url, path, params) {
  const res = await fetch(`${url}/api/v1/${path}?${new URLSearchParams(params)}`);
  const body = await res.json();
  if (body.status !== 'success') throw new Error(`${path} ${JSON.stringify(params)}: ${body.error}`);
  return path === 'query' ? body.data.result : body.data;
}
