// A real InfluxDB 1.x (Debian's influxdb: influxd) for the tests of --out influxdb, on free loopback
// ports with its files in a temporary directory; null when influxd is not installed.

import { installed, startServer } from './installed.js';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../runtimes/processes/groups.js';

const INFLUXD = installed(['/usr/bin/influxd', '/usr/sbin/influxd'], ['version']);

export const influxMissing = INFLUXD ? null : 'influxd (Debian: influxdb) is not installed';

/** Starts influxd; resolves once it answers /ping. Returns { url, query(q, db), stop() }. */
export async function startInflux() {
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-influx-'));
  const [rpc, http] = [await freePort(), await freePort()];
  const config = join(dir, 'influxdb.conf');
  writeFileSync(
    config,
    `reporting-disabled = true
bind-address = "127.0.0.1:${rpc}"
[meta]
  dir = "${join(dir, 'meta')}"
[data]
  dir = "${join(dir, 'data')}"
  wal-dir = "${join(dir, 'wal')}"
  query-log-enabled = false
[monitor]
  store-enabled = false
[http]
  bind-address = "127.0.0.1:${http}"
  log-enabled = false
[logging]
  level = "error"
  suppress-logo = true
`,
  );
  const url = `http://127.0.0.1:${http}`;
  const { stop } = await startServer(INFLUXD, ['-config', config], dir, async () => (await fetch(`${url}/ping`)).status === 204, 'influxd');
  return { url, stop, query: (q, db) => query(url, q, db) };
}

/** InfluxQL's answer: the first statement's series, [] when none. */
async function query(url, q, db) {
  const res = await fetch(`${url}/query?${new URLSearchParams({ q, ...(db ? { db } : {}) })}`, { method: 'POST' });
  const body = await res.json();
  const result = body.results[0];
  if (result.error) throw new Error(`${q}: ${result.error}`);
  return result.series || [];
}
