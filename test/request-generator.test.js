// requestGenerator in both forms: ours (index, options) => { method, path, headers, body } and
// loadtest 8's (params, options, client, callback), whose client records the request.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { loadTest } from '../src/index.js';
import { rawServer, ok } from './servers.js';

const MESSAGE = '{"hi": "ho"}';

// loadtest 8's test/request-generator.js generator, as written there.
const loadtest8Generator = (params, options, client, callback) => {
  const message = MESSAGE;
  options.headers['Content-Length'] = message.length;
  options.headers['Content-Type'] = 'application/json';
  options.headers['x-test-header'] = 'request-generator-test';
  const request = client(options, callback);
  request.write(message);
  return request;
};

test("loadtest 8's requestGenerator(params, options, client, callback) sends what it set and wrote, for every request", async () => {
  const seen = [];
  const server = await rawServer(({ socket }, req) => {
    seen.push(req);
    socket.write(ok());
  });
  try {
    const result = await loadTest({ url: server.url + 'api?x=1', method: 'POST', maxRequests: 30, concurrency: 3, agentKeepAlive: true, requestGenerator: loadtest8Generator });
    assert.equal(result.totalRequests, 30);
    assert.equal(result.totalErrors, 0);
    assert.equal(seen.length, 30);
    for (const req of seen) {
      assert.equal(req.method, 'POST');
      assert.equal(req.path, '/api?x=1');
      assert.equal(req.body, MESSAGE);
      assert.equal(req.headers['content-type'], 'application/json');
      assert.equal(req.headers['content-length'], String(MESSAGE.length));
      assert.equal(req.headers['x-test-header'], 'request-generator-test');
      assert.equal(req.headers.host, `127.0.0.1:${server.port}`);
    }
  } finally {
    await server.close();
  }
});

test('the recorded request takes path and method from options, setHeader/removeHeader, end(data), and the index', async () => {
  const seen = [];
  const server = await rawServer(({ socket }, req) => {
    seen.push(req);
    socket.write(ok());
  });
  try {
    const result = await loadTest({
      url: server.url, maxRequests: 6, concurrency: 2, agentKeepAlive: true, headers: { 'x-drop': 'me' },
      requestGenerator(params, options, client, callback) {
        assert.equal(params.url, server.url);
        assert.equal(options.port, server.port);
        options.method = 'PUT';
        options.path = `/items/${options.requestIndex}`;
        const request = client(options, callback);
        request.setHeader('X-Index', options.requestIndex);
        request.removeHeader('x-drop');
        assert.equal(request.getHeader('x-index'), options.requestIndex);
        request.write('a=');
        request.end(String(options.requestIndex));
        return request;
      },
    });
    assert.equal(result.totalErrors, 0);
    assert.deepEqual(seen.map((r) => r.path).sort(), ['/items/0', '/items/1', '/items/2', '/items/3', '/items/4', '/items/5']);
    for (const req of seen) {
      const index = req.path.split('/')[2];
      assert.equal(req.method, 'PUT');
      assert.equal(req.headers['x-index'], index);
      assert.equal(req.headers['x-drop'], undefined);
      assert.equal(req.body, `a=${index}`);
    }
  } finally {
    await server.close();
  }
});

// The portable form, requestGenerator(index, options), is tested in test/api.test.js.

test('a four-argument generator that throws, skips client() or returns a promise fails its request with the reason', async () => {
  const server = await rawServer(({ socket }) => socket.write(ok()));
  const cases = [
    [(p, o, client, cb) => { if (o.requestIndex === 3) throw new Error('no more ids'); return client(o, cb); }, 'no more ids', 3],
    [(p, o, client, cb) => (o.requestIndex === 2 ? null : client(o, cb)), 'requestGenerator returned without calling client(options, callback)', 2],
    [async (p, o, client, cb) => client(o, cb), 'requestGenerator returned a promise', 0],
  ];
  try {
    for (const [requestGenerator, reason, before] of cases) {
      const result = await loadTest({ url: server.url, maxRequests: 10, concurrency: 1, agentKeepAlive: true, requestGenerator });
      assert.ok(result.abortReason.startsWith(`request generator threw: ${reason}`), result.abortReason);
      assert.equal(result.totalErrors, 1);
      assert.equal(result.statusCodes[200] || 0, before);
      assert.equal(result.requestsSent, result.totalRequests + result.inFlight);
    }
  } finally {
    await server.close();
  }
});

test('writing after the generator returned throws: the request went out with what was recorded', async () => {
  const late = [];
  const seen = [];
  const server = await rawServer(({ socket }, req) => {
    seen.push(req);
    socket.write(ok());
  });
  try {
    const result = await loadTest({
      url: server.url, method: 'POST', maxRequests: 1, concurrency: 1,
      requestGenerator(params, options, client, callback) {
        const request = client(options, callback);
        request.write('now');
        late.push(request);
        return request;
      },
    });
    assert.equal(result.totalErrors, 0);
    assert.equal(seen[0].body, 'now');
    assert.throws(() => late[0].write('later'), /write\(\) after the generator returned/);
    assert.throws(() => late[0].end(), /end\(\) after the generator returned/);
  } finally {
    await server.close();
  }
});

test('a four-argument generator given as a module path works on 2 cores', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-generator-'));
  const generator = join(dir, 'generator.js');
  writeFileSync(generator, `export default ${loadtest8Generator.toString().replace('MESSAGE', JSON.stringify(MESSAGE))};\n`);
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}\n');
  const seen = [];
  const server = await rawServer(({ socket }, req) => {
    seen.push(req);
    socket.write(ok());
  });
  try {
    const result = await loadTest({ url: server.url, method: 'POST', maxRequests: 20, concurrency: 4, agentKeepAlive: true, cores: 2, requestGenerator: generator });
    assert.equal(result.cores, 2);
    assert.equal(result.clients, 4, 'the children\'s clients add up');
    assert.equal(result.totalRequests, 20);
    assert.equal(result.totalErrors, 0);
    assert.equal(seen.length, 20);
    for (const req of seen) {
      assert.equal(req.body, MESSAGE);
      assert.equal(req.headers['content-type'], 'application/json');
      assert.equal(req.headers['x-test-header'], 'request-generator-test');
    }
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
