// k6's options that shape a script's requests (src/script/k6/http/dialer.js, k6/rps.js, k6/http.js,
// iteration.js), as options and as k6 run's flags, against a server that counts what it sees:
// connections, requests at once, Connection and Cookie headers, when each request came.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rawServer, spawnScript } from './servers.js';
import { rpsLimiter } from '../src/script/k6/http/rps.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));
const respond = (status, body, extra = '') => `HTTP/1.1 ${status} ${status === 200 ? 'OK' : 'Not Found'}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`;

// Answers each request after `delayMs` (so that a batch's requests overlap), and keeps the most
// it had open at once, each request's arrival time, and its Connection and Cookie headers.
async function counting(delayMs = 0) {
  let open = 0;
  const seen = { maxOpen: 0, at: [], connection: [], cookie: [] };
  const server = await rawServer(({ socket }, req) => {
    open++;
    seen.maxOpen = Math.max(seen.maxOpen, open);
    seen.at.push(performance.now());
    seen.connection.push(req.headers.connection || '');
    seen.cookie.push(req.headers.cookie || '');
    const answer = () => {
      open--;
      if (socket.destroyed) return;
      const url = new URL(req.path, 'http://x');
      if (url.pathname === '/set') return socket.write(respond(200, 'set', 'Set-Cookie: k=v; Path=/\r\n'));
      socket.write(respond(url.pathname === '/missing' ? 404 : 200, 'ok'));
    };
    if (delayMs > 0) setTimeout(answer, delayMs);
    else answer();
  });
  return Object.assign(server, { seen });
}

async function runScript(source, args, server) {
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-options-'));
  try {
    const path = join(dir, 'test.js');
    writeFileSync(path, source);
    return await spawnScript(CLI, ['run', '-q', '-e', `PORT=${server.port}`, ...args, path], { timeoutMs: 60000 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// What the script's console.log said (logfmt quotes a message only when it must).
const consoleLines = (stderr) => [...stderr.matchAll(/level=info msg=(?:"((?:[^"\\]|\\.)*)"|(\S+)) source=console/g)].map((m) => (m[2] !== undefined ? m[2] : JSON.parse(`"${m[1]}"`)));

test('hosts maps names to addresses, blockHostnames and blacklistIPs fail requests with k6 words and codes, so does a URL that does not parse; throw makes a failure an exception', async () => {
  const server = await counting();
  try {
    const source = `import http from 'k6/http'
export const options = { iterations: 1, hosts: { 'api.test.local': '127.0.0.1', '*.wild.local': '127.0.0.1:' + __ENV.PORT },
  blockHostnames: ['*.blocked.local'], blacklistIPs: ['10.0.0.0/8'] }
export default function () {
  const a = http.get('http://api.test.local:' + __ENV.PORT + '/a')
  const b = http.get('http://x.wild.local/b')
  const c = http.get('http://x.blocked.local/c')
  const d = http.get('http://10.1.2.3/d')
  const e = http.get('http://api.test.local:' + __ENV.PORT + '/missing')
  const f = http.get('http://127.0.0.1:' + __ENV.PORT + 'undefined')
  console.log([a.status, a.status_text, b.status, c.status, c.error, c.error_code, d.error, d.error_code, e.status_text, f.status, f.error_code, f.url].join('|'))
}
`;
    const r = await runScript(source, [], server);
    assert.equal(r.code, 0, r.stderr);
    // A URL that does not parse is a response too, as in k6: status 0, code 1020, no request.
    assert.deepEqual(consoleLines(r.stderr), ['200|200 OK|200|0|hostname is blocked|1111|ip is blacklisted|1110|404 Not Found|0|1020|']);
    assert.deepEqual(server.paths, ['/a', '/b', '/missing']);
    // throw, from the option or -w: the failed request is an exception with Go's words.
    const thrower = `import http from 'k6/http'
export const options = { iterations: 1 }
export default function () {
  try { http.get('http://x.blocked.local/') } catch (e) { console.log('caught ' + e.message) }
}
`;
    const t = await runScript(thrower, ['-w', '--block-hostnames', 'x.blocked.local'], server);
    assert.equal(t.code, 0, t.stderr);
    assert.deepEqual(consoleLines(t.stderr), ['caught Get "http://x.blocked.local/": hostname is blocked']);
  } finally {
    await server.close();
  }
});

test('noConnectionReuse: a connection per request, Connection: close; noVUConnectionReuse: a connection per iteration; noCookiesReset keeps the jar', async () => {
  const source = `import http from 'k6/http'
export const options = { iterations: 3, vus: 1 }
export default function () {
  if (__ITER === 0) http.get('http://127.0.0.1:' + __ENV.PORT + '/set')
  else http.get('http://127.0.0.1:' + __ENV.PORT + '/a')
  http.get('http://127.0.0.1:' + __ENV.PORT + '/b')
}
`;
  for (const [args, connections, header, cookies] of [
    [[], 1, '', ['', 'k=v', '', '', '', '']],
    [['--no-connection-reuse'], 6, 'close', ['', 'k=v', '', '', '', '']],
    [['--no-vu-connection-reuse'], 3, '', ['', 'k=v', '', '', '', '']],
  ]) {
    const server = await counting();
    try {
      const r = await runScript(source, args, server);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(server.requests, 6);
      assert.equal(server.connections, connections, args.join(' '));
      assert.deepEqual(server.seen.connection, Array(6).fill(header));
      assert.deepEqual(server.seen.cookie, cookies);
    } finally {
      await server.close();
    }
  }
  // noCookiesReset: the cookie set in the first iteration goes with every later request.
  const server = await counting();
  try {
    const r = await runScript(source.replace('vus: 1', 'vus: 1, noCookiesReset: true'), [], server);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(server.seen.cookie, ['', 'k=v', 'k=v', 'k=v', 'k=v', 'k=v']);
  } finally {
    await server.close();
  }
});

test('http.batch: at most batchPerHost (6 unless set) requests at once to a host, and batch in all, as k6', async () => {
  const source = `import http from 'k6/http'
export const options = { iterations: 1 }
export default function () {
  const rs = http.batch(Array.from({ length: 12 }, (_, i) => 'http://127.0.0.1:' + __ENV.PORT + '/' + i))
  console.log(rs.map((r) => r.status).join(','))
}
`;
  for (const [args, most] of [[[], 6], [['--batch-per-host', '2'], 2], [['--batch', '3'], 3]]) {
    const server = await counting(20);
    try {
      const r = await runScript(source, args, server);
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(consoleLines(r.stderr), [Array(12).fill(200).join(',')]);
      assert.equal(server.requests, 12);
      assert.ok(server.seen.maxOpen <= most, `${server.seen.maxOpen} at once with ${args.join(' ') || 'the defaults'}`);
      assert.ok(server.connections <= most, `${server.connections} connections`);
    } finally {
      await server.close();
    }
  }
});

test('rps spaces every request of the run; minIterationDuration makes a short iteration last; httpDebug logs each request and response', async () => {
  // setup() and teardown() bracket every request: the time between them is a lower bound of
  // what the options ask for, whatever the machine's load (it can only be longer).
  const source = `import http from 'k6/http'
export const options = { iterations: 6, vus: 2 }
export function setup() { return Date.now() }
export default function () { http.get('http://127.0.0.1:' + __ENV.PORT + '/dbg') }
export function teardown(t0) { console.log(String(Date.now() - t0)) }
`;
  const elapsed = (r) => Number(consoleLines(r.stderr).at(-1));
  // At most 20 a second: the sixth request goes 5 gaps of 50 ms after the first at the earliest,
  // less the millisecond a turn may be taken early (src/script/k6/http/rps.js), a millisecond a timer
  // may fire early by the loop's cached clock and one of Date.now()'s rounding.
  let server = await counting();
  try {
    const r = await runScript(source, ['--rps', '20'], server);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(server.requests, 6);
    assert.ok(elapsed(r) >= 247, `${elapsed(r)} ms`);
  } finally {
    await server.close();
  }
  // 2 VUs, 3 iterations each of at least 150 ms (the last one's sleep too).
  server = await counting();
  try {
    const r = await runScript(source.replace('vus: 2', "vus: 2, minIterationDuration: '150ms', httpDebug: 'full'"), [], server);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(elapsed(r) >= 448, `${elapsed(r)} ms`);
    assert.equal((r.stderr.match(/msg="Request:\\nGET \/dbg HTTP\/1.1\\nHost: 127.0.0.1:\d+\\n/g) || []).length, 6, r.stderr);
    assert.equal((r.stderr.match(/msg="Response:\\nHTTP\/1.1 200 OK\\nContent-Length: 2\\n\\nok\\n" group= iter=\d scenario=default source=http-debug vu=\d/g) || []).length, 6, r.stderr);
  } finally {
    await server.close();
  }
});

test('rps: a turn under a millisecond away is taken at once, a late one keeps the schedule', async () => {
  // On the limiter's own clock, stopped or moved by the test: nothing depends on the machine.
  let t = 1000;
  const clock = () => t;
  const taken = (limiter, n) => Array.from({ length: n }, () => limiter.take());
  // At 16 000/s the first millisecond's 16 turns need no timer (each waited a whole one
  // before, which held 10 VUs under 10 000/s at 25 000/s); the 17th on waits. (Rates whose gap
  // a double holds exactly: 25 gaps of 0.04 ms add up to a hair under one.)
  for (const [perSecond, atOnce] of [[16000, 16], [4000, 4], [1000, 1]]) {
    const turns = taken(rpsLimiter(perSecond, clock), 40);
    assert.equal(turns.filter((x) => x === undefined).length, atOnce, `${perSecond}/s`);
    assert.ok(turns.slice(0, atOnce).every((x) => x === undefined) && turns.slice(atOnce).every((x) => x instanceof Promise), `${perSecond}/s`);
    await Promise.all(turns); // 40 gaps: 2 to 40 ms
  }
  // 1000/s: turns due at 1000, 1001, 1002... A turn taken 0.5 ms late (at 1001.5) is still the
  // one due at 1001, so the next is due at 1002 (0.5 ms away: at once) and the one after at
  // 1003 (1.5 ms away: it waits). Taken 5 ms late, the schedule starts again a millisecond back.
  const limiter = rpsLimiter(1000, clock);
  t = 1000;
  assert.equal(limiter.take(), undefined);
  t = 1001.5;
  assert.equal(limiter.take(), undefined);
  assert.equal(limiter.take(), undefined);
  const waits = limiter.take();
  assert.ok(waits instanceof Promise);
  await waits;
  t = 1008;
  assert.deepEqual([limiter.take(), limiter.take(), limiter.take()].map((x) => x === undefined), [true, true, false]);
});

test('bad values of these options and flags are one line each: exit 104 for an option, 2 for a flag', async () => {
  const server = await counting();
  try {
    for (const [options, line] of [
      ["hosts: { 'a.local': 'not-an-ip' }", /hosts: 'not-an-ip' \(for 'a.local'\) is not an IP address or IP:port/],
      ["blacklistIPs: ['10.0.0.0/99']", /blacklistIPs: '10.0.0.0\/99' is not an IP range/],
      ["blockHostnames: ['a*b']", /blockHostnames: invalid hostname pattern 'a\*b'/],
      // A value of another type, in Go's words as k6 v2.2.0 (test/script-option-types.test.js).
      ["batch: 'many'", /options.batch: strconv.ParseInt: parsing "many": invalid syntax/],
      ["noConnectionReuse: 'yes'", /options.noConnectionReuse: json: cannot unmarshal string into Go value of type null.Bool/],
    ]) {
      const r = await runScript(`export const options = { iterations: 1, ${options} }\nexport default function () {}\n`, [], server);
      assert.equal(r.code, 104, r.stderr);
      assert.match(r.stderr, line);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    }
    const r = await runScript('export default function () {}\n', ['--http-debug=everything'], server);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /--http-debug 'everything': headers or full/);
    // k6 v1's --summary-mode: a mode it does not have is one line (test/script-summary.test.js: the modes).
    const bogus = await runScript('export default function () {}\n', ['--summary-mode', 'short'], server);
    assert.equal(bogus.code, 2);
    assert.match(bogus.stderr, /--summary-mode 'short': compact, full, legacy or disabled/);
    const disabled = await runScript('export default function () {}\n', ['--summary-mode', 'disabled'], server);
    assert.equal(disabled.code, 0, disabled.stderr);
    assert.doesNotMatch(disabled.stdout, /iterations/);
  } finally {
    await server.close();
  }
});

test('-c/--config: k6 options as JSON under the script\'s own; a file that cannot be read or is not JSON is one line, exit 2', async () => {
  const server = await counting();
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-config-'));
  try {
    const config = join(dir, 'config.json');
    writeFileSync(config, JSON.stringify({ vus: 2, iterations: 4, noConnectionReuse: true }));
    const plain = "import http from 'k6/http'\nexport default function () { http.get('http://127.0.0.1:' + __ENV.PORT + '/c') }\n";
    let r = await runScript(plain, ['--config', config], server);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(server.requests, 4);
    assert.equal(server.connections, 4, 'the file\'s noConnectionReuse');
    // The script's iterations replace the file's, its vus alone the file's vus, as in k6 (the
    // file's 2 VUs for the script's 1 iteration: k6 v1.3.0 refuses it, exit 104).
    r = await runScript(plain.replace('export default', 'export const options = { iterations: 1, vus: 1 }\nexport default'), ['-c', config], server);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(server.requests, 5);
    r = await runScript(plain.replace('export default', 'export const options = { iterations: 1 }\nexport default'), ['-c', config], server);
    assert.equal(r.code, 104, r.stderr);
    assert.equal(server.requests, 5);
    writeFileSync(config, '{ "vus": 2, ');
    r = await runScript(plain, ['-c', config], server);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^loadtest run: --config .*config\.json: not JSON \(.+\)\n$/);
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
