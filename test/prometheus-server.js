// A real Prometheus (Debian's prometheus) for the tests of --out experimental-prometheus-rw, taking
// remote write (and native histograms), on a free loopback port with its data in a temporary
// directory; null when prometheus is not installed.

import { spawn } from 'node:child_process';
import { installed } from './installed.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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
  const child = spawn(PROMETHEUS, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise((resolve) => child.on('exit', resolve));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    child.kill('SIGKILL');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };
  // Bounded: Prometheus is ready in a second or two; 300 tries of 100 ms each at most.
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) break;
    try {
      if ((await fetch(`${url}/-/ready`)).ok) {
        return { url, writeURL: `${url}/api/v1/write`, stop, query: (q, time) => api(url, 'query', { query: q, ...(time ? { time: String(time) } : {}) }), series: (match) => api(url, 'series', { 'match[]': match, start: '0' }) };
      }
    } catch {}
    await new Promise((r) => setTimeout(r, 100));
  }
  await stop();
  throw new Error(`prometheus did not start: ${stderr}`);
}

async function api(url, path, params) {
  const res = await fetch(`${url}/api/v1/${path}?${new URLSearchParams(params)}`);
  const body = await res.json();
  if (body.status !== 'success') throw new Error(`${path} ${JSON.stringify(params)}: ${body.error}`);
  return path === 'query' ? body.data.result : body.data;
}
