// --out influxdb beside k6's: the same script (bench/influxdb/script.js) run by k6 and by loadtest on
// node, bun and deno into one InfluxDB (Debian's influxd, started on free loopback ports), then each
// measurement's tag keys, tag values, field keys and kinds, and point count compared with k6's,
// and k6's dashboard queries (examples/docker-compose/influxdb-v1) run on each database.
//   node bench/influxdb-beside-k6.js path/to/k6 [SCRIPT [FLAG...]]   (a script of others: its
//   requests go to BASE, given as -e BASE=...; FLAGs for both tools, e.g. --vus 3 --duration 4s)
// Prints the measurements that differ from k6's, each with both sides.

import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import { startInflux } from '../test/influxdb-server.js';

const K6 = process.argv[2];
if (!K6) throw new Error('usage: node bench/influxdb-beside-k6.js path/to/k6');
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SCRIPT = process.argv[3] || `${ROOT}bench/influxdb/script.js`;
const FLAGS = process.argv.slice(4);
const BIN = `${ROOT}node_modules/.bin`;
const DASHBOARD = ['SELECT mean("value") FROM "http_req_duration" WHERE time > now() - 1h GROUP BY time(1s) fill(none)', 'SELECT mean("value") FROM "vus" WHERE time > now() - 1h GROUP BY time(1s) fill(none)'];

const run = (cmd, args) =>
  new Promise((resolve) => {
    const c = spawn(cmd, args, { env: { ...process.env, K6_NO_USAGE_REPORT: 'true' } });
    let stderr = '';
    c.stderr.on('data', (d) => (stderr += d));
    c.stdout.resume();
    c.on('exit', (status) => resolve({ status, stderr }));
  });

async function shapeOf(db, name) {
  const shape = {};
  for (const [meas] of (await db.query('SHOW MEASUREMENTS', name))[0]?.values || []) {
    const tags = ((await db.query(`SHOW TAG KEYS FROM "${meas}"`, name))[0]?.values || []).map((v) => v[0]);
    const fields = ((await db.query(`SHOW FIELD KEYS FROM "${meas}"`, name))[0]?.values || []).map((v) => v.join(':'));
    const count = (await db.query(`SELECT count(value) FROM "${meas}"`, name))[0]?.values[0][1];
    const values = {};
    for (const t of tags) values[t] = ((await db.query(`SHOW TAG VALUES FROM "${meas}" WITH KEY = "${t}"`, name))[0]?.values || []).map((v) => v[1]).sort().join('|');
    shape[meas] = { tags: tags.join(','), fields: fields.join(','), count, values };
  }
  const rows = [];
  for (const q of DASHBOARD) rows.push(((await db.query(q, name))[0]?.values || []).length);
  shape['(dashboard queries: rows)'] = rows.join(', ');
  return shape;
}

// A server on this process's loop: every request 200 OK.
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => res.end('OK'));
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const base = `http://127.0.0.1:${server.address().port}`;
const db = await startInflux();
const runs = {
  k6: [K6, []],
  node: [process.execPath, [`${ROOT}src/cli.js`]],
  bun: [`${BIN}/bun`, [`${ROOT}src/cli.js`]],
  deno: [`${BIN}/deno`, ['run', '-A', `${ROOT}src/cli.js`]],
};
const shapes = {};
try {
  for (const [name, [cmd, prefix]] of Object.entries(runs)) {
    const r = await run(cmd, [...prefix, 'run', '-q', ...FLAGS, '--out', `influxdb=${db.url}/${name}`, '-e', `BASE=${base}`, SCRIPT]);
    if (r.status !== 0) console.log(`${name}: exit ${r.status}\n${r.stderr}`);
    shapes[name] = await shapeOf(db, name);
  }
} finally {
  await db.stop();
  server.close();
}
const names = new Set(Object.values(shapes).flatMap((s) => Object.keys(s)));
let same = 0;
for (const meas of [...names].sort()) {
  const ref = JSON.stringify(shapes.k6[meas]);
  let differs = false;
  for (const name of ['node', 'bun', 'deno']) {
    const ours = JSON.stringify(shapes[name][meas]);
    if (ours === ref) continue;
    differs = true;
    console.log(`${meas}, ${name}:\n  k6:   ${ref}\n  ours: ${ours}`);
  }
  if (!differs) same++;
}
console.log(`${same} of ${names.size} measurements as k6 wrote them on node, bun and deno`);
