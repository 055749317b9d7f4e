// The url secret source (k6 v1.5, grafana/k6#5413) and K6_SECRET_SOURCE (k6 v1.7, #5724), as
// k6 v2.2.0 has them (checked beside its binary): each secret fetched from urlTemplate with its
// key put in, once it has a value (again after a failure), the string at responsePath or the
// whole body, its value hidden in the log; 5xx, 429 and timeouts tried again, other failures
// not, each in k6's words; settings from K6_SECRET_SOURCE_URL_*, a JSON file and the command
// line, in that order; bad settings one line and exit 255; with --cores 2 fetched by the parent.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnScript, inTurn } from './servers.js';
import { limiter } from '../src/script/secrets/url-source.js';
import { parseGoDuration, jsonDuration } from '../src/script/secrets/go-duration.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));
const MARK = '***SECRET_REDACTED***';

// A secrets service on 127.0.0.1: GET /s/KEY answers {"data":{"value":"V-KEY"}} but for the
// keys below; `count[KEY]` its requests, `seen` each request's method, path and headers.
async function secretsServer() {
  const count = {};
  const seen = [];
  const json = (res, status, body) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const server = http.createServer((req, res) => {
    const key = decodeURIComponent(req.url.replace(/^\/s\//, ''));
    const n = (count[key] = (count[key] || 0) + 1);
    seen.push({ method: req.method, url: req.url, headers: req.headers });
    if (key === 'num') return json(res, 200, { data: { value: 12 } });
    if (key === 'obj') return json(res, 200, { data: { value: { x: 1 } } });
    if (key === 'missing') return json(res, 200, { data: {} });
    if (key === '404') return json(res, 404, {});
    if (key === '503') return json(res, 503, {});
    if (key === '429') return json(res, 429, {});
    if (key === 'flaky') return n <= 2 ? json(res, 503, {}) : json(res, 200, { data: { value: 'FLAKY' } });
    if (key === 'big') return json(res, 200, { data: { value: 'x'.repeat(25000) } });
    if (key === 'slow') return; // never answered: the request times out
    if (key === 'redir') {
      res.writeHead(302, { location: '/s/a' });
      return res.end();
    }
    if (key === 'blank') return json(res, 200, { data: { value: '  ' } });
    json(res, 200, { data: { value: `V-${key}` } });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${server.address().port}`;
  const close = () => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  };
  return { base, template: `${base}/s/{key}`, count, seen, close };
}

async function inFolder(files, fn) {
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-secrets-url-'));
  try {
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    return await fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const run = (dir, args, env = {}) => spawnScript(CLI, ['run', '-q', '--summary-mode', 'disabled', ...args, join(dir, 'test.js')], { timeoutMs: 60000, env, cwd: dir });

const messages = (stderr) => [...stderr.matchAll(/level=\w+ msg=(?:"((?:[^"\\]|\\.)*)"|(\S+)) source=console/g)].map((m) => (m[2] !== undefined ? m[2] : JSON.parse(`"${m[1]}"`)));

// Looks up each [source, key] of __ENV.PAIRS in turn and logs what came of it.
const LOOKUPS = `import secrets from 'k6/secrets';
export const options = { iterations: 1 };
export default async function () {
  for (const [source, key] of __ENV.PAIRS.split(',').map((p) => p.split(':'))) {
    try {
      const v = await secrets.source(source).get(key);
      console.log(key, 'ok', JSON.stringify(v));
    } catch (e) {
      console.log(key, 'err:' + e);
    }
  }
}
`;

test('url: {key} in urlTemplate, the configured headers, the string at responsePath (or the body); a value kept and hidden, a failure in k6 v2.2 words and fetched again', async () => {
  const s = await secretsServer();
  try {
    await inFolder({ 'test.js': LOOKUPS }, async (dir) => {
      const pairs = 'default:a,default:a,url:a,default:num,default:obj,default:missing,default:404,default:404,default:big,default:redir,default:blank,whole:a';
      const r = await run(dir, ['-e', `PAIRS=${pairs}`, `--secret-source=url=urlTemplate=${s.template},responsePath=data.value,headers.X-Auth=abc,default`, `--secret-source=url=name=whole,urlTemplate=${s.template},method=POST`]);
      assert.equal(r.code, 0, r.stderr);
      const path = '"data.value"';
      assert.deepEqual(messages(r.stderr), [
        `a ok "${MARK}"`,
        `a ok "${MARK}"`,
        `a ok "${MARK}"`,
        `num err:failed to extract secret: secret value at path ${path} is not a string (got Number)`,
        `obj err:failed to extract secret: secret value at path ${path} is not a string (got JSON)`,
        `missing err:failed to extract secret: path ${path} not found in response`,
        '404 err:status code 404: failed to get secret',
        '404 err:status code 404: failed to get secret',
        'big err:failed to extract secret: secret response exceeds maximum size of 24576 bytes',
        // A redirect followed, as Go's client follows it.
        `redir ok "${MARK}"`,
        // A value of spaces hides nothing (k6 v2.2's log hook skips it).
        'blank ok "  "',
        // The whole body, from a source of its own (its own cache: fetched again); in the JSON
        // of it, the quotes escaped, what is hidden is the value the other source looked up.
        `a ok "{\\"data\\":{\\"value\\":\\"${MARK}\\"}}"`,
      ]);
      // Once for the default source and its name, once for 'whole', once after the redirect.
      assert.equal(s.count.a, 3);
      assert.equal(s.count['404'], 2);
      assert.deepEqual(s.seen.slice(0, 2).map((q) => [q.method, q.url, q.headers['x-auth']]), [['GET', '/s/a', 'abc'], ['GET', '/s/num', 'abc']]);
      const whole = s.seen.at(-1);
      assert.deepEqual([whole.method, whole.url, whole.headers['x-auth'], whole.headers['content-length']], ['POST', '/s/a', undefined, '0']);
      assert.equal(s.seen.find((q) => q.headers.referer).headers.referer, `${s.base}/s/redir`);
      assert.doesNotMatch(r.stderr, /V-a/);
    });
  } finally {
    await s.close();
  }
});

test('url: a 5xx, a 429 and a timeout are tried maxRetries times more, a 404 and a refused connection as k6 words them', async () => {
  const s = await secretsServer();
  try {
    await inFolder({ 'test.js': LOOKUPS }, async (dir) => {
      const r = await run(dir, ['-e', 'PAIRS=default:flaky,default:503,default:429,default:404,default:slow,refused:a', `--secret-source=url=urlTemplate=${s.template},responsePath=data.value,maxRetries=2,retryBackoff=1ms,timeout=300ms,default`, '--secret-source=url=name=refused,urlTemplate=http://127.0.0.1:1/s/{key},maxRetries=0']);
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(messages(r.stderr), [
        `flaky ok "${MARK}"`,
        '503 err:status code 503: failed to get secret',
        '429 err:status code 429: failed to get secret',
        '404 err:status code 404: failed to get secret',
        `slow err:failed to get secret: Get "${s.base}/s/slow": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`,
        'a err:failed to get secret: Get "http://127.0.0.1:1/s/a": dial tcp 127.0.0.1:1: connect: connection refused',
      ]);
      assert.deepEqual([s.count.flaky, s.count['503'], s.count['429'], s.count['404'], s.count.slow], [3, 3, 3, 1, 3]);
    });
  } finally {
    await s.close();
  }
});

test('url: K6_SECRET_SOURCE_URL_* under config=FILE under the command line, headers replaced whole; K6_SECRET_SOURCE=url alone; the flag wins over K6_SECRET_SOURCE', async () => {
  const s = await secretsServer();
  try {
    const file = JSON.stringify({ urlTemplate: `${s.base}/file/{key}`, RESPONSEPATH: 'data.value', headers: { 'X-File': 'f' }, timeout: '2s', maxRetries: '1', unknown: true });
    await inFolder({ 'test.js': LOOKUPS, 'url.json': file }, async (dir) => {
      const env = { K6_SECRET_SOURCE_URL_URL_TEMPLATE: `${s.base}/env/{key}`, K6_SECRET_SOURCE_URL_RESPONSE_PATH: 'nothing', K6_SECRET_SOURCE_URL_HEADER_XENV: 'e' };
      const [viaEnv, fileOverEnv, inlineOverFile, flagOverEnv] = await inTurn(
        [
          [[], { ...env, K6_SECRET_SOURCE: 'url', K6_SECRET_SOURCE_URL_RESPONSE_PATH: 'data.value' }],
          [['--secret-source=url=config=url.json'], env],
          [[`--secret-source=url=config=url.json,urlTemplate=${s.template},headers.X-Inline=i`], env],
          [['--secret-source=mock=a=m'], { ...env, K6_SECRET_SOURCE: 'url' }],
        ],
        ([args, e]) => run(dir, ['-e', 'PAIRS=default:a', ...args], e),
        1,
      );
      for (const r of [viaEnv, fileOverEnv, inlineOverFile, flagOverEnv]) assert.deepEqual(messages(r.stderr), [`a ok "${MARK}"`], r.stderr);
      // Only the url runs asked: the env's URL and header, the file's, the inline's with its own headers.
      assert.deepEqual(
        s.seen.map((q) => [q.url, q.headers.xenv, q.headers['x-file'], q.headers['x-inline']]),
        [
          ['/env/a', 'e', undefined, undefined],
          ['/file/a', undefined, 'f', undefined],
          ['/s/a', undefined, undefined, 'i'],
        ],
      );
    });
  } finally {
    await s.close();
  }
});

test('a bad url source is one line and exit 255, in k6 v2.2 words', async () => {
  await inFolder({ 'test.js': LOOKUPS, 'bad.json': '{"urlTemplate": ', 'types.json': '{"maxRetries": 1.5}' }, async (dir) => {
    const T = 'urlTemplate=http://127.0.0.1:1/s/{key}';
    const cases = [
      ['url', 'urlTemplate is required'],
      ['url=x', 'invalid config format "x", expected key=value'],
      ['url=urlTemplate=http://127.0.0.1/s', 'urlTemplate must contain {key} placeholder'],
      ['url=urlTemplate=/s/{key}', 'urlTemplate must be an absolute URL with a scheme (e.g., https://...)'],
      ['url=urlTemplate=http://[::1/{key}', 'urlTemplate is not a valid URL: parse "http://[::1/test": missing \']\' in host'],
      [`url=${T},maxRetries=abc`, 'invalid maxRetries: expected integer'],
      [`url=${T},maxRetries=`, 'invalid maxRetries: EOF'],
      [`url=${T},maxRetries=-1`, 'maxRetries must be non-negative'],
      [`url=${T},timeout=5`, 'invalid timeout: time: missing unit in duration "5"'],
      [`url=${T},timeout=1d`, 'invalid timeout: time: unknown unit "d" in duration "1d"'],
      [`url=${T},timeout=0s`, 'timeout must be greater than 0'],
      [`url=${T},retryBackoff=0`, 'retryBackoff must be greater than 0'],
      [`url=${T},requestsBurst=0`, 'requestsBurst must be greater than 0'],
      [`url=${T},requestsPerMinuteLimit=0`, 'requestsPerMinuteLimit must be greater than 0'],
      [`url=${T},foo=1`, 'unknown configuration key: "foo"'],
      [`url=${T},config=nofile.json`, 'failed to open config file: open nofile.json: no such file or directory'],
      [`url=${T},config=bad.json`, /^failed to parse JSON config: /],
      [`url=${T},config=types.json`, 'failed to parse JSON config: json: cannot unmarshal number 1.5 into Go value of type int64'],
    ];
    const results = await inTurn(cases, ([spec]) => run(dir, [`--secret-source=${spec}`]));
    cases.forEach(([spec, expected], i) => {
      const r = results[i];
      assert.equal(r.code, 255, `${spec}: ${r.stderr}`);
      const lines = r.stderr.trimEnd().split('\n');
      assert.equal(lines.length, 1, r.stderr);
      const why = lines[0].replace(/^loadtest run: --secret-source url: missing or invalid config: /, '');
      if (typeof expected === 'string') assert.equal(why, expected, spec);
      else assert.match(why, expected, spec);
    });
  });
});

test('--cores 2: a url source\'s secrets are fetched by the parent, each once, and hidden in every process', async () => {
  const s = await secretsServer();
  const script = `import secrets from 'k6/secrets';
import exec from 'k6/execution';
export const options = { scenarios: { s: { executor: 'per-vu-iterations', vus: 2, iterations: 1 } } };
export async function setup() {
  return { token: await secrets.get('token') };
}
export default async function (data) {
  const own = await secrets.get('vu' + exec.vu.idInTest);
  const again = await secrets.get('token');
  console.log('vu ' + exec.vu.idInTest + ' has ' + data.token + ' ' + own + ' ' + again);
}
`;
  try {
    await inFolder({ 'test.js': script }, async (dir) => {
      const r = await run(dir, ['--cores', '2', `--secret-source=url=urlTemplate=${s.template},responsePath=data.value`]);
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(messages(r.stderr).sort(), [`vu 1 has ${MARK} ${MARK} ${MARK}`, `vu 2 has ${MARK} ${MARK} ${MARK}`]);
      assert.deepEqual(s.count, { token: 1, vu1: 1, vu2: 1 });
      assert.doesNotMatch(r.stderr, /V-/);
    });
  } finally {
    await s.close();
  }
});

test('the url source\'s limiter: requestsBurst lookups at once, then one every minute/requestsPerMinuteLimit (golang.org/x/time/rate)', async () => {
  let now = 0;
  const take = limiter(60, 2, () => now);
  assert.equal(take(), null);
  assert.equal(take(), null);
  assert.ok(take() instanceof Promise, 'the third waits');
  now = 3000; // three turns' time, one of them owed to the third: two at once again
  assert.equal(take(), null);
  assert.equal(take(), null);
  assert.ok(take() instanceof Promise);
  now = 100000; // a long idle: no more than the burst at once
  assert.equal(take(), null);
  assert.equal(take(), null);
  assert.ok(take() instanceof Promise);
});

test('durations as the url source reads them: Go\'s time.ParseDuration inline, k6\'s types.Duration in the JSON file', () => {
  assert.equal(parseGoDuration('1m30s'), 90000);
  assert.equal(parseGoDuration('1.5s'), 1500);
  assert.equal(parseGoDuration('.5s'), 500);
  assert.equal(parseGoDuration('-2s'), -2000);
  assert.equal(parseGoDuration('0'), 0);
  assert.equal(parseGoDuration('1µs'), 0.001);
  assert.throws(() => parseGoDuration(''), { message: 'time: invalid duration ""' });
  assert.throws(() => parseGoDuration('5'), { message: 'time: missing unit in duration "5"' });
  assert.throws(() => parseGoDuration('2S'), { message: 'time: unknown unit "S" in duration "2S"' });
  assert.throws(() => parseGoDuration('1e3s'), { message: 'time: unknown unit "e" in duration "1e3s"' });
  assert.equal(jsonDuration(1500), 1500);
  assert.equal(jsonDuration('250'), 250);
  assert.equal(jsonDuration('1d2h'), 26 * 3600000);
  assert.equal(jsonDuration('2s'), 2000);
  assert.throws(() => jsonDuration(true), { message: "'true' is not a valid duration value" });
});
