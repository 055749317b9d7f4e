// startServer() as loadtest 8 documents it: the callback form (object returned at once,
// close(callback)), and the options body, file and shouldErrorCustom(request).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadTest, startServer } from '../src/index.js';

const LOCAL = { port: 0, host: '127.0.0.1', quiet: true };
const T = { timeout: 10000 };

function startWithCallback(options) {
  return new Promise((resolve) => {
    let returned = null;
    returned = startServer(options, (error, server) => resolve({ error, server, returned, calledBeforeReturn: returned === null }));
  });
}

const closeWithCallback = (server) => new Promise((resolve) => server.close((error) => resolve(error)));

test('with a callback startServer returns the server at once, calls back once listening, and close(callback) frees the port', T, async () => {
  let listening;
  const calledBack = new Promise((resolve) => (listening = resolve));
  const early = startServer(LOCAL, (error) => listening(error));
  assert.equal(typeof early.then, 'undefined', 'not a Promise');
  assert.equal(typeof early.close, 'function');
  assert.equal(early.requests, 0);
  assert.equal(await calledBack, null);
  assert.equal(await closeWithCallback(early), null);

  const { error, server: given, returned, calledBeforeReturn } = await startWithCallback(LOCAL);
  assert.equal(error, null);
  assert.equal(calledBeforeReturn, false);
  assert.equal(given, returned, 'the callback gets the object startServer returned');
  assert.ok(returned.port > 0, `listening port: ${returned.port}`);
  const res = await fetch(`http://127.0.0.1:${returned.port}/`);
  assert.equal(await res.text(), 'OK');
  assert.equal(returned.requests, 1);
  assert.equal(await closeWithCallback(returned), null);

  const again = await startServer({ ...LOCAL, port: returned.port });
  try {
    assert.equal(again.port, returned.port);
  } finally {
    await again.close();
  }
});

test('a port in use reaches the callback as an error (and rejects the Promise)', T, async () => {
  const first = await startServer(LOCAL);
  try {
    const { error } = await startWithCallback({ ...LOCAL, port: first.port });
    assert.ok(error instanceof Error);
    assert.equal(error.code, 'EADDRINUSE');
    assert.match(error.message, new RegExp(`port ${first.port} in use`));
    await assert.rejects(startServer({ ...LOCAL, port: first.port }), /in use/);
  } finally {
    await first.close();
  }
});

test('body is sent instead of OK, as is, or as JSON when an object', T, async () => {
  const text = await startServer({ ...LOCAL, body: 'hello there' });
  const json = await startServer({ ...LOCAL, body: { hi: 'there' } });
  try {
    assert.equal(await (await fetch(`http://127.0.0.1:${text.port}/`)).text(), 'hello there');
    const res = await fetch(`http://127.0.0.1:${json.port}/`);
    assert.equal(res.headers.get('content-type'), 'application/json');
    assert.deepEqual(await res.json(), { hi: 'there' });
  } finally {
    await text.close();
    await json.close();
  }
});

test('file: its contents are the body of every answer; a missing file is an error', T, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-testserver-'));
  try {
    const file = join(dir, 'answer.txt');
    const contents = 'from a file\n'.repeat(1000);
    writeFileSync(file, contents);
    const server = await startServer({ ...LOCAL, file, body: 'ignored' });
    try {
      assert.equal(await (await fetch(`http://127.0.0.1:${server.port}/`)).text(), contents);
      const result = await loadTest({ url: `http://127.0.0.1:${server.port}/`, maxRequests: 10, concurrency: 2 });
      assert.equal(result.totalErrors, 0);
      assert.ok(result.bytesReceived >= 10 * contents.length, `bytes received: ${result.bytesReceived}`);
    } finally {
      await server.close();
    }
    const missing = join(dir, 'missing.txt');
    await assert.rejects(startServer({ ...LOCAL, file: missing }), new RegExp(`cannot read file '${missing.replace(/\\/g, '\\\\')}' \\(ENOENT\\)`));
    const { error } = await startWithCallback({ ...LOCAL, file: missing });
    assert.equal(error.code, 'ENOENT');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('shouldErrorCustom(request) sees the body and headers; true answers 500 and counts an error', T, async () => {
  const seen = [];
  const server = await startServer({
    ...LOCAL,
    shouldErrorCustom: (request) => request.body.includes('fail') || request.headers['x-fail'] === 'yes',
    logger: (request) => seen.push(request.body),
  });
  const url = `http://127.0.0.1:${server.port}/`;
  try {
    const fine = await fetch(url, { method: 'POST', body: 'all good' });
    assert.equal(fine.status, 200);
    await fine.text();
    const byBody = await fetch(url, { method: 'POST', body: 'please fail' });
    assert.equal(byBody.status, 500);
    assert.equal(await byBody.text(), 'ERROR');
    const byHeader = await fetch(url, { headers: { 'x-fail': 'yes' } });
    assert.equal(byHeader.status, 500);
    await byHeader.text();
    assert.deepEqual(seen, ['all good', 'please fail', '']);
    assert.equal(server.requests, 3);
    assert.equal(server.errors, 2);

    const result = await loadTest({ url, method: 'POST', body: { hi: 'fail' }, maxRequests: 20, concurrency: 4 });
    assert.deepEqual(result.errorCodes, { 500: 20 });
    assert.equal(server.errors, 22);
  } finally {
    await server.close();
  }
});

test('error alone fails every request; percent is read as loadtest 8 reads it ("100%")', T, async () => {
  const all = await startServer({ ...LOCAL, error: 418 });
  const percent = await startServer({ ...LOCAL, percent: '100%' });
  try {
    const a = await loadTest({ url: `http://127.0.0.1:${all.port}/`, maxRequests: 5 });
    assert.deepEqual(a.errorCodes, { 418: 5 });
    const p = await loadTest({ url: `http://127.0.0.1:${percent.port}/`, maxRequests: 5 });
    assert.deepEqual(p.errorCodes, { 500: 5 });
  } finally {
    await all.close();
    await percent.close();
  }
});
