// k6/secrets, --secret-source and K6_SECRET_SOURCE, as k6 v2.2 has them (checked beside its
// binary): lookups from mock and file sources, by name and by default, rejected with k6's words
// and value; each value looked up hidden in the log (console, --http-debug, our lines of the
// run) and nowhere else; a bad spec one line and exit 255; with --cores 2, a value looked up in
// one process hidden in the others' lines. The url source: script-secrets-url.test.js.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, rmSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rawServer, spawnScript, ok, inTurn } from './servers.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));
const MARK = '***SECRET_REDACTED***';

// A temporary folder with the script (and any other files), removed after `fn`.
async function inFolder(files, fn) {
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-secrets-'));
  try {
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    return await fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const run = (dir, args, env = {}) => spawnScript(CLI, ['run', '-q', '--summary-mode', 'disabled', ...args, join(dir, 'test.js')], { timeoutMs: 60000, env });

// The script's console lines: [level, message] (logfmt quotes a message only when it must).
const consoleLines = (stderr) =>
  [...stderr.matchAll(/level=(\w+) msg=(?:"((?:[^"\\]|\\.)*)"|(\S+)) source=console/g)].map((m) => [m[1], m[3] !== undefined ? m[3] : JSON.parse(`"${m[2]}"`)]);
const messages = (stderr) => consoleLines(stderr).map(([, msg]) => msg);

test('secrets.get() and source(name).get(): promises of the values; a failed lookup rejects with a Go error in k6 v1.3 words', async () => {
  const script = `import secrets from 'k6/secrets';
export const options = { iterations: 1 };
const names = { s3cr3t: 'a', EMPTY: 'empty', twelve: '12', B: 'b' };
const show = (p) => p.then((v) => 'ok:' + (names[v] || v.length), (e) => 'err:' + e);
export default async function () {
  const p = secrets.get('a');
  console.log(typeof p, p instanceof Promise, Object.keys(secrets).join(), typeof secrets.source);
  console.log(await show(p), await show(secrets.get()), await show(secrets.get(null)), await show(secrets.get(12)));
  console.log(await show(secrets.source('default').get('a')), await show(secrets.source('other').get('b')), await show(secrets.source('zz').get('a')));
  try {
    await secrets.get('nope');
  } catch (e) {
    console.log(typeof e, e instanceof Error, String(e), \`\${e}\`, e.toString(), e.error(), e.message, JSON.stringify(e), Object.keys(e).join());
    console.log(e);
  }
}
`;
  await inFolder({ 'test.js': script }, async (dir) => {
    const r = await run(dir, ['--secret-source=mock=name=main,default,a=s3cr3t,=EMPTY,12=twelve', '--secret-source', 'mock=name=other,b=B']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(messages(r.stderr), [
      'object true get,source function',
      'ok:a ok:empty ok:empty ok:12',
      'ok:a ok:b err:no secret source with name "zz" is configured',
      'object false no value no value no value no value undefined {} error',
      'no value',
    ]);
    // Two named sources, neither the default: get() has no source; one alone is the default.
    const twoNamed = await run(dir, ['--secret-source=mock=name=one,a=1', '--secret-source=mock=name=two,a=2']);
    assert.equal(twoNamed.code, 0, twoNamed.stderr);
    const noDefault = 'err:no secret source with name "default" is configured';
    assert.deepEqual(messages(twoNamed.stderr).slice(1, 3), [[noDefault, noDefault, noDefault, noDefault].join(' '), `${noDefault} err:no secret source with name "other" is configured err:no secret source with name "zz" is configured`]);
    const none = await run(dir, []);
    assert.equal(none.code, 0, none.stderr);
    assert.equal(messages(none.stderr)[1], 'err:no secret sources are configured err:no secret sources are configured err:no secret sources are configured err:no secret sources are configured');
  });
});

test('file=PATH: KEY=VALUE lines (a value may hold =, a CRLF line too), named and marked default; the only source is the default; an uncaught rejection is its text', async () => {
  const script = `import secrets from 'k6/secrets';
export const options = { iterations: 1 };
const v = await secrets.get('user');
export default async function () {
  const other = await secrets.source('extra').get('k');
  console.log(v === 'u53r', (await secrets.get('pass')) === 'p=w', other === 'xtra');
  await secrets.get('missing');
}
`;
  await inFolder({ 'test.js': script, 'secrets.txt': 'user=u53r\r\npass=p=w\n' }, async (dir) => {
    const file = join(dir, 'secrets.txt');
    const r = await run(dir, [`--secret-source=file=name=main,default,${file}`, '--secret-source=mock=name=extra,k=xtra']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(messages(r.stderr), ['true true true']);
    // The iteration's exception: the rejection's text, as k6 logs it (no value).
    assert.match(r.stderr, /^loadtest run: no value$/m);
    const alone = await run(dir, [`--secret-source=file=filename=${file}`]);
    assert.match(alone.stderr, /no secret source with name "extra" is configured/);
  });
});

test('K6_SECRET_SOURCE is one source in the flag\'s syntax, and none when --secret-source is given; a source is named for its type; a value of spaces hides nothing (k6 v2.2)', async () => {
  const script = `import secrets from 'k6/secrets';
export const options = { iterations: 1 };
const show = (p) => p.then((v) => 'ok:[' + v + ']', (e) => 'err:' + e);
export default async function () {
  console.log(await show(secrets.get('a')), await show(secrets.source('mock').get('a')), await show(secrets.get('sp')), await show(secrets.get('b')));
}
`;
  await inFolder({ 'test.js': script }, async (dir) => {
    const env = { K6_SECRET_SOURCE: 'mock=a=1,sp=  ' };
    const [alone, withFlag] = await Promise.all([run(dir, [], env), run(dir, ['--secret-source=mock=b=2'], env)]);
    assert.equal(alone.code, 0, alone.stderr);
    assert.deepEqual(messages(alone.stderr), [`ok:[${MARK}] ok:[${MARK}] ok:[  ] err:no value`]);
    assert.equal(withFlag.code, 0, withFlag.stderr);
    assert.deepEqual(messages(withFlag.stderr), [`err:no value err:no value err:no value ok:[${MARK}]`]);
  });
});

test('every value looked up is hidden in the log: console (message and objects, before quoting), --http-debug, an exception, test.abort(); not in the summary', async () => {
  const server = await rawServer(({ socket }) => socket.write(ok()));
  const script = `import secrets from 'k6/secrets';
import http from 'k6/http';
import { check } from 'k6';
import exec from 'k6/execution';
export const options = { iterations: 1 };
export default async function () {
  console.log('before', 'abcd', 'x"y');
  const token = await secrets.get('token');
  console.log('token is', token, 'again:' + token);
  console.info({ token });
  console.warn(token);
  console.error(token);
  await secrets.get('short');
  await secrets.get('long');
  await secrets.get('quote');
  console.log('abcd abc', 'x"y');
  http.get(__ENV.BASE + '/', { headers: { Authorization: 'Bearer ' + token } });
  check(1, { ['named ' + token]: () => true });
  exec.test.abort('stop ' + token);
}
export function handleSummary(data) {
  return { stdout: JSON.stringify(data.root_group.checks.map((c) => c.name)) + '\\n' };
}
`;
  try {
    await inFolder({ 'test.js': script }, async (dir) => {
      const r = await spawnScript(CLI, ['run', '-q', '--http-debug', '-e', `BASE=${server.url.replace(/\/$/, '')}`, '--secret-source=mock=token=T0K3N,short=abc,long=abcd,quote=x"y', join(dir, 'test.js')], { timeoutMs: 60000 });
      assert.equal(r.code, 108, r.stderr);
      assert.deepEqual(consoleLines(r.stderr), [
        ['info', 'before abcd x"y'],
        ['info', `token is ${MARK} again:${MARK}`],
        ['info', `{ token: "${MARK}" }`],
        ['warning', MARK],
        ['error', MARK],
        // The value looked up first wins where two overlap, as Go's strings.Replacer.
        ['info', `${MARK}d ${MARK} ${MARK}`],
      ]);
      assert.match(r.stderr, /msg="\*\*\*SECRET_REDACTED\*\*\*" source=console/);
      assert.match(r.stderr, /level=info msg="Request:\\nGET \/ HTTP\/1\.1\\n.*Authorization: Bearer \*\*\*SECRET_REDACTED\*\*\*\\n.* source=http-debug/);
      assert.match(r.stderr, /^loadtest run: test aborted: stop \*\*\*SECRET_REDACTED\*\*\*$/m);
      assert.doesNotMatch(r.stderr, /T0K3N/);
      // The summary is no log: a check's name keeps the value, as in k6.
      assert.equal(r.stdout, '["named T0K3N"]\n');
    });
  } finally {
    await server.close();
  }
});

test('a secret that is a field\'s key or value hides it too, and the fields sort as logrus sorts them (k6\'s examples/secrets: a secret `source`)', async () => {
  const server = await rawServer(({ socket }) => socket.write(ok()));
  const script = `import secrets from 'k6/secrets';
import http from 'k6/http';
import { group } from 'k6';
export const options = { iterations: 1 };
export default async function () {
  const first = await secrets.get('first');
  console.log(first);
  await secrets.get('word');
  console.log(first);
  group('my group', () => { http.get(__ENV.BASE + '/'); });
  await secrets.get('group');
  group('my group', () => { http.get(__ENV.BASE + '/'); });
}
`;
  try {
    await inFolder({ 'test.js': script, 'k.txt': 'first=some\nword=source\ngroup=group\n' }, async (dir) => {
      const r = await run(dir, ['--http-debug', '-e', `BASE=${server.url.replace(/\/$/, '')}`, `--secret-source=file=${join(dir, 'k.txt')}`]);
      assert.equal(r.code, 0, r.stderr);
      const tails = r.stderr.trimEnd().split('\n').map((line) => line.replace(/^time="[^"]*" level=info msg=("(?:[^"\\]|\\.)*"|\S+) /, ''));
      assert.deepEqual(tails, [
        'source=console',
        `${MARK}=console`,
        `${MARK}=http-debug group="::my group" iter=0 scenario=default vu=1`,
        `${MARK}=http-debug group="::my group" iter=0 scenario=default vu=1`,
        // Two keys hidden into one: one of the two is left, as in k6 (here the last).
        `${MARK}=http-debug iter=0 scenario=default vu=1`,
        `${MARK}=http-debug iter=0 scenario=default vu=1`,
      ]);
    });
  } finally {
    await server.close();
  }
});

test('a bad --secret-source or K6_SECRET_SOURCE is one line and k6 v2.2\'s exit code (255; 104 for cloud), naming what is wrong and never a value', async () => {
  await inFolder({ 'test.js': 'export default function () {}\n', 'blank.txt': 'a=1\n\nb=2\n', 'noeq.txt': 'a=1\nhunter2\n' }, async (dir) => {
    mkdirSync(join(dir, 'folder'));
    const cases = [
      // A type alone is a source without config (k6 v2.2): a mock's is one pair without '='.
      [['mock'], /^--secret-source mock: parsing "", needs =$/],
      [['vault=x'], /^--secret-source vault: no secret source for type "vault" \(mock, file or url\)$/],
      [['mock=a=1,b'], /^--secret-source mock: parsing "b", needs =$/],
      [['mock=name=x'], /^--secret-source mock: parsing "", needs =$/],
      [['file=filename=x,mode=1'], /^--secret-source file: unknown configuration key for file secret source "mode"$/],
      [['file=name=x'], /^--secret-source file: no file given \(file=PATH\)$/],
      [[`file=${join(dir, 'missing.txt')}`], /^--secret-source file: cannot read .*missing\.txt \(ENOENT\)$/],
      [[`file=${join(dir, 'folder')}`], /^--secret-source file: cannot read .*folder \(EISDIR\)$/],
      [[`file=${join(dir, 'blank.txt')}`], /^--secret-source file: .*blank\.txt, line 2: no '=' \(each line is KEY=VALUE\)$/],
      [[`file=${join(dir, 'noeq.txt')}`], /^--secret-source file: .*noeq\.txt, line 2: no '=' \(each line is KEY=VALUE\)$/],
      // A source without name=NAME is named for its type (k6 v2.2).
      [['mock=a=1', 'mock=b=2'], /^--secret-source mock: secret source for name "mock" already registered \(give each source its name=NAME\)$/],
      [['mock=name=file,a=1', 'file=b.txt'], /^--secret-source file: secret source for name "file" already registered \(give each source its name=NAME\)$/],
      [['mock=name=x,a=1', `file=name=x,${join(dir, 'blank.txt')}`], /^--secret-source file: secret source for name "x" already registered$/],
      [['mock=default,a=1', 'mock=name=y,default,b=2'], /^--secret-source mock: can't have two secret sources that are default ones$/],
      [['mock=default,a=1', 'mock=name=default,b=2'], /^--secret-source mock: secret source for name "default" already registered$/],
      [['mock=a=1', ' cloud'], /^'cloud' is not a valid value for --secret-source; cloud secrets are automatically available for 'k6 cloud run --local-execution'$/, 104],
      ['', /^K6_SECRET_SOURCE "": couldn't parse secret source configuration \(mock=KEY=VALUE,\.\.\., file=PATH or url=urlTemplate=URL,\.\.\.\)$/],
      ['mock=a=1,hunter2', /^K6_SECRET_SOURCE mock: parsing "hunter2", needs =$/],
    ];
    // A string: K6_SECRET_SOURCE's value, without the flag.
    const results = await inTurn(cases, ([specs]) => (typeof specs === 'string' ? run(dir, [], { K6_SECRET_SOURCE: specs }) : run(dir, specs.map((s) => `--secret-source=${s}`))));
    cases.forEach(([specs, expected, code = 255], i) => {
      const r = results[i];
      assert.equal(r.code, code, `${specs}: ${r.stderr}`);
      const lines = r.stderr.trimEnd().split('\n');
      assert.equal(lines.length, 1, r.stderr);
      assert.match(lines[0].replace(/^loadtest run: /, ''), expected);
      if (typeof specs !== 'string') assert.doesNotMatch(r.stderr, /hunter2|a=1/, 'no value shown');
    });
  });
});

test('--cores 2: what setup() looked up in the parent is hidden in the children, what a child looked up in the parent\'s lines', async () => {
  const script = `import secrets from 'k6/secrets';
import exec from 'k6/execution';
export const options = { scenarios: { s: { executor: 'per-vu-iterations', vus: 2, iterations: 1 } } };
export async function setup() {
  return { token: await secrets.get('token') };
}
export default async function (data) {
  console.log('vu ' + exec.vu.idInTest + ' has ' + data.token);
  const own = await secrets.source('other').get('pass');
  if (exec.vu.idInTest === 2) throw new Error('failed with ' + own);
}
`;
  await inFolder({ 'test.js': script, 'pass.txt': 'pass=hunter2\n' }, async (dir) => {
    const r = await run(dir, ['--cores', '2', '--secret-source=mock=name=main,default,token=T0K3N', `--secret-source=file=name=other,${join(dir, 'pass.txt')}`]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(messages(r.stderr).sort(), [`vu 1 has ${MARK}`, `vu 2 has ${MARK}`]);
    assert.match(r.stderr, /^loadtest run: failed with \*\*\*SECRET_REDACTED\*\*\* at test\.js:\d+:\d+$/m);
    assert.doesNotMatch(r.stderr, /T0K3N|hunter2/);
  });
});
