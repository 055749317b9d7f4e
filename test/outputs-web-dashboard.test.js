// k6's web dashboard (--out web-dashboard[=QUERY], K6_WEB_DASHBOARD=true, K6_WEB_DASHBOARD_*)
// taken as loadtest run's --dashboard and --html: the page on the port asked for, the report
// exported where asked; what cannot be honored refused in one line, exit 2.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { webDashboardConfig } from '../src/outputs/web-dashboard.js';
import { rawServer, spawnScript, ok } from './servers.js';
import { freePort } from '../runtimes/processes/groups.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));
const env = (vars) => (k) => vars[k];

test("k6's settings: its defaults, K6_WEB_DASHBOARD_*, the query over them; what cannot be honored refused", () => {
  assert.deepEqual(webDashboardConfig('', env({})), { port: 5665, periodSeconds: 10, export: '' });
  assert.deepEqual(webDashboardConfig('', env({ K6_WEB_DASHBOARD_PORT: '7000', K6_WEB_DASHBOARD_PERIOD: '2s', K6_WEB_DASHBOARD_REPORT: 'r.html' })), { port: 7000, periodSeconds: 2, export: 'r.html' });
  assert.deepEqual(webDashboardConfig('port=-1&export=e.html&period=1m', env({ K6_WEB_DASHBOARD_PORT: '7000', K6_WEB_DASHBOARD_EXPORT: 'x.html' })), { port: -1, periodSeconds: 60, export: 'e.html' });
  for (const [query, vars, message] of [
    ['nope=1', {}, 'unknown query parameter: nope'],
    ['', { K6_WEB_DASHBOARD_PORT: 'x' }, "K6_WEB_DASHBOARD_PORT: 'x' is not a whole number"],
    ['period=1500ms', {}, "period '1500ms' is not supported here: a whole number of seconds, 1s or more"],
    ['host=0.0.0.0', {}, "host '0.0.0.0' is not supported here: the page is served on 127.0.0.1 only"],
    ['open', {}, "open is not supported here: no browser is started (the page's address is said on stderr)"],
    ['', { K6_WEB_DASHBOARD_RECORD: 'r.ndjson' }, 'record is not supported here: --out json=FILE keeps every sample'],
    ['tag=group&tag=url', {}, "tags 'group,url' is not supported here: the page shows each group's figures (tags=group, the default)"],
  ]) {
    assert.throws(() => webDashboardConfig(query, env(vars)), { message }, query);
  }
});

const SCRIPT = `
import http from 'k6/http';
export const options = { iterations: 4 };
export default function () { http.get(__ENV.BASE); }
`;

test('K6_WEB_DASHBOARD=true serves the page on K6_WEB_DASHBOARD_PORT and exports the report to K6_WEB_DASHBOARD_EXPORT; --out web-dashboard=port=-1 exports only', { timeout: 60000 }, async () => {
  const server = await rawServer(({ socket }) => socket.write(ok()));
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-web-dashboard-'));
  try {
    writeFileSync(join(dir, 'test.js'), SCRIPT);
    const port = await freePort();
    const r = await spawnScript(CLI, ['run', '-q', '-e', `BASE=${server.url}`, join(dir, 'test.js')], { env: { K6_WEB_DASHBOARD: 'true', K6_WEB_DASHBOARD_PORT: String(port), K6_WEB_DASHBOARD_EXPORT: join(dir, 'report.html') }, timeoutMs: 30000 });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, `loadtest run: dashboard at http://127.0.0.1:${port}/\n`);
    assert.match(readFileSync(join(dir, 'report.html'), 'utf8'), /^<!doctype html>/i);
    const only = await spawnScript(CLI, ['run', '-q', '-e', `BASE=${server.url}`, '--out', `web-dashboard=port=-1&export=${join(dir, 'only.html')}`, join(dir, 'test.js')], { timeoutMs: 30000 });
    assert.equal(only.code, 0, only.stderr);
    assert.equal(only.stderr, '');
    assert.ok(existsSync(join(dir, 'only.html')));
    for (const [args, vars, line] of [
      [['run', '--out', 'web-dashboard=open=true', 'x.js'], {}, "loadtest run: --out web-dashboard: open is not supported here: no browser is started (the page's address is said on stderr)\n"],
      [['run', 'x.js'], { K6_WEB_DASHBOARD: 'yes' }, "loadtest run: K6_WEB_DASHBOARD: 'yes' is not true or false\n"],
      [['--out', 'web-dashboard', '-n', '1', server.url], {}, "loadtest: --out 'web-dashboard': k6's web dashboard is loadtest run's; a load run's page is --dashboard [PORT], its report --html F\n"],
    ]) {
      const bad = await spawnScript(CLI, args, { env: vars, timeoutMs: 30000 });
      assert.equal(bad.code, 2, bad.stderr);
      assert.equal(bad.stderr, line);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await server.close();
  }
});
