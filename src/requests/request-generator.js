// loadtest 8's requestGenerator(params, options, client, callback), without node:http: `client`
// records what the generator asks for (method, path, headers, body) and the request is built
// from that record like the portable form's { method, path, headers, body }. loadtest 8 ends
// the request itself right after the generator returns, so the record is complete then: a
// generator that never calls client(), returns a promise, or writes later fails its request.

import { joinChunks } from '../http1/captured.js';

const encoder = new TextEncoder();

// Handed to the generator to pass on to client(); the run reads and counts each response itself
// (statusCallback and contentInspector see them), so nothing calls it.
function response() {}

/**
 * Returns generate(index) giving { method, path, headers, body, allHeaders: true } for one request.
 * `o` is the run's configuration (the generator's `params`), `baseHeaders` what every request sends.
 */
export function recordingGenerator(generator, o, baseHeaders) {
  return function generate(index) {
    const options = {
      protocol: o.tls ? 'https:' : 'http:',
      hostname: o.host,
      host: o.hostHeader,
      port: o.port,
      method: o.method,
      path: o.path,
      headers: Object.assign({}, baseHeaders), // a spread copy made each header the generator adds cost ~1 µs on node 20
      requestIndex: index,
    };
    const record = { called: false, done: false, options: null, set: [], chunks: [] };
    const returned = generator(o, options, (a, b) => client(record, a, b), response);
    if (returned && typeof returned.then === 'function') {
      throw new Error('requestGenerator returned a promise: build the request synchronously, as in loadtest 8');
    }
    if (!record.called) throw new Error('requestGenerator returned without calling client(options, callback)');
    record.done = true;
    return shapeOf(record, o);
  };
}

// node:http's client(options[, callback]) and client(url[, options][, callback]).
function client(record, a, b) {
  if (record.called) throw new Error('requestGenerator called client() twice for one request');
  record.called = true;
  let options = a;
  if (typeof a === 'string' || a instanceof URL) {
    const url = new URL(a);
    options = { ...(b && typeof b === 'object' ? b : {}), path: url.pathname + url.search };
  }
  record.options = options && typeof options === 'object' ? options : {};
  const late = (what) => {
    if (record.done) throw new Error(`requestGenerator: ${what} after the generator returned; the request was already sent`);
  };
  const request = {
    write(data) {
      late('write()');
      if (data !== undefined && data !== null && typeof data !== 'function') record.chunks.push(bytes(data));
      return true;
    },
    end(data) {
      late('end()');
      if (data !== undefined && data !== null && typeof data !== 'function') record.chunks.push(bytes(data));
      return request;
    },
    setHeader(name, value) {
      late('setHeader()');
      record.set.push([String(name).toLowerCase(), value]);
      return request;
    },
    removeHeader(name) {
      late('removeHeader()');
      record.set.push([String(name).toLowerCase(), undefined]);
      return request;
    },
    getHeader(name) {
      const lower = String(name).toLowerCase();
      for (let i = record.set.length - 1; i >= 0; i--) if (record.set[i][0] === lower) return record.set[i][1];
      return headersOf(record.options)[lower];
    },
    // The run's timeout applies, and its failures are counted in the result, not emitted here.
    setTimeout() { return request; },
    on() { return request; },
    once() { return request; },
  };
  return request;
}

function bytes(data) {
  if (data instanceof Uint8Array) return data;
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  return encoder.encode(String(data));
}

function headersOf(options) {
  const headers = {};
  const given = options.headers;
  if (given && typeof given === 'object') for (const k in given) if (given[k] !== undefined) headers[k.toLowerCase()] = String(given[k]);
  return headers;
}

// Read when the generator has returned, so headers set on options after client() count too.
function shapeOf(record, o) {
  const options = record.options;
  const headers = headersOf(options);
  for (const [name, value] of record.set) {
    if (value === undefined) delete headers[name];
    else headers[name] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  // The length sent is that of the bytes written (loadtest 8's sample sets it by hand).
  delete headers['content-length'];
  let body;
  if (record.chunks.length === 1) body = record.chunks[0];
  else if (record.chunks.length > 1) body = joinChunks(record.chunks);
  return { method: options.method || o.method, path: options.path || o.path, headers, body, allHeaders: true };
}
