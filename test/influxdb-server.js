// A real InfluxDB 1.x (Debian's influxdb: influxd) for the tests of --out influxdb, on free loopback
// ports with its files in a temporary directory; null when influxd is not installed.

import { spawn } from 'node:child_process';
import { installed } from './installed.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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
  const child = spawn(INFLUXD, ['-config', config], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise((resolve) => child.on('exit', resolve));
  const url = `http://127.0.0.1:${http}`;
  const stop = async () => {
    child.kill('SIGKILL');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };
  // Bounded: influxd is up in well under a second; 300 tries of 100 ms each at most.
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) break;
    try {
      if ((await fetch(`${url}/ping`)).status === 204) {
        return { url, stop, query: (q, db) => query(url, q, db) };
      }
    } catch {}
    await new Promise((r) => setTimeout(r, 100));
  }
  await stop();
  throw new Error(`influxd did not start: ${stderr}`);
}

/** InfluxQL's answer: the first statement's series, [] when none. */
async function query(url, q, db) {
  const res = await fetch(`${url}/query?${new URLSearchParams({ q, ...(db ? { db } : {}) })}`, { method: 'POST' });
  const body = await res.json();
  const result = body.results[0];
  if (result.error) throw new Error(`${q}: ${result.error}`);
  return result.series || [];
}
