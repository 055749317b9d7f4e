// Request bytes: the --index template writes the same bytes as encoding each request whole.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeRequest } from '../src/http1/request.js';
import { createRequests } from '../src/requests/requests.js';
import { configure } from '../src/run/options.js';

const text = (bytes) => new TextDecoder().decode(bytes);

// What a request must be: the path and body with the index in place, encoded whole.
function expected(config, value) {
  const path = config.path.split(config.indexParam).join(value);
  const body = config.bodyText ? new TextEncoder().encode(config.bodyText.split(config.indexParam).join(value)) : null;
  const headers = {};
  // The same headers configure() chose, in the same order.
  const first = text(createRequests({ ...config, indexParam: null }).fixed);
  const head = first.slice(0, first.indexOf('\r\n\r\n'));
  for (const line of head.split('\r\n').slice(1)) {
    const colon = line.indexOf(':');
    if (colon > 0 && !line.startsWith('content-length')) headers[line.slice(0, colon)] = line.slice(colon + 2);
  }
  return text(encodeRequest({ method: config.method, path, headers, body }));
}

test('--index requests equal requests encoded whole, for GET and POST, numbers and callback values', () => {
  const cases = [
    { url: 'http://127.0.0.1:9/item/ID?x=ID', indexParam: 'ID' },
    { url: 'http://127.0.0.1:9/p/ID', indexParam: 'ID', method: 'POST', body: '{"id":"ID","again":"ID"}', contentType: 'application/json' },
    { url: 'http://127.0.0.1:9/p/ID', indexParam: 'ID', method: 'PUT' },
    { url: 'http://127.0.0.1:9/u/ID', indexParam: 'ID', indexParamCallback: (i) => `é-${i}-€`, statusCallback() {} },
  ];
  for (const options of cases) {
    const config = configure(options, { version: 'test', resolvedHost: '127.0.0.1' });
    for (const index of [0, 7, 9, 10, 99, 100, 12345, 1e9]) {
      const shape = config.requests.build(index);
      const value = options.indexParamCallback ? options.indexParamCallback(index) : String(index);
      assert.equal(text(shape.bytes), expected(config, value), `${options.url} #${index}`);
      if (options.statusCallback) assert.equal(shape.path, config.path.split('ID').join(value));
    }
  }
});

test('--index request bytes stay valid after many more requests (slabs are never rewritten)', () => {
  const config = configure({ url: 'http://127.0.0.1:9/item/ID', indexParam: 'ID', method: 'POST', body: 'x'.repeat(300) + 'ID' }, { version: 'test', resolvedHost: '127.0.0.1' });
  const kept = [];
  for (let i = 0; i < 2000; i++) kept.push(config.requests.build(i).bytes);
  for (let i = 0; i < 2000; i += 37) assert.ok(text(kept[i]).endsWith('x'.repeat(300) + i), `request ${i}`);
  assert.ok(text(kept[1999]).includes('content-length: 304\r\n'));
});
