// A request made for the run rather than by a VU (the url secret source's), as Go's http.Client
// makes one for k6: on the run's drivers (an OriginClient of net/client.js, HTTP/2 where an https
// origin chooses it), redirects followed (10 at most, a 301/302/303 turning a POST into a GET,
// credentials not carried to another host, a Referer added), the timeout the whole exchange's,
// and a failure in Go's words: `Get "URL": dial tcp HOST:PORT: connect: connection refused`.

import { Network, OriginClient } from '../net/client.js';
import { encodeRequest } from '../../http1/request.js';
import { encodeH2Request } from '../../http2/request.js';
import { goQuote } from '../k6/http/url/go-url-parse.js';
import { VERSION } from '../../version.js';

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 10;
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// What Go leaves out of a redirect to a host other than the first one's (or its subdomains).
const CREDENTIALS = new Set(['authorization', 'www-authenticate', 'cookie', 'cookie2']);

/** Go's url.Error prefix: the method as Go names the operation ("Get", "Post"), the URL quoted. */
const operation = (method, url) => `${method[0]}${method.slice(1).toLowerCase()} ${goQuote(url)}`;

export class GoError extends Error {}

/**
 * `facilities`: the runtime's (adapterFor, resolve: runtimes/scripts/host.js). Returns
 * request(method, url, headers, timeoutMs), which resolves to { status, body: Uint8Array } or
 * rejects with a GoError in Go's words.
 */
export function goClient(facilities) {
  const network = new Network((origin) => facilities.adapterFor({ ...origin, insecure: false }));
  return async (method, first, headers, timeoutMs) => {
    const deadline = performance.now() + timeoutMs;
    let url = first;
    let sent = { ...headers };
    for (let hop = 0; ; hop++) {
      const res = await once(network, facilities, method, url, sent, deadline);
      const location = REDIRECTS.has(res.status) ? headerOf(res.head, 'location') : null;
      if (location === null) return res;
      if (hop === MAX_REDIRECTS) throw new GoError(`${operation(method, url)}: stopped after ${MAX_REDIRECTS} redirects`);
      const next = new URL(location, url);
      if (res.status !== 307 && res.status !== 308 && method !== 'GET' && method !== 'HEAD') method = 'GET';
      sent = redirected(sent, new URL(first), next, url);
      url = next.href;
    }
  };
}

// The headers of the request a redirect makes: the same but credentials to another host, and the
// page it came from (not from https to http).
function redirected(headers, first, next, from) {
  const out = {};
  const sameHost = next.hostname === first.hostname || next.hostname.endsWith(`.${first.hostname}`);
  for (const [k, v] of Object.entries(headers)) if (sameHost || !CREDENTIALS.has(k.toLowerCase())) out[k] = v;
  if (!(from.startsWith('https:') && next.protocol === 'http:')) out.Referer = from;
  return out;
}

async function once(network, facilities, method, text, headers, deadline) {
  const fail = (why) => new GoError(`${operation(method, text)}: ${why}`);
  const url = new URL(text);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw fail(`unsupported protocol scheme ${goQuote(url.protocol.slice(0, -1))}`);
  for (const [name, value] of Object.entries(headers)) {
    if (!TOKEN.test(name)) throw fail(`net/http: invalid header field name ${goQuote(name)}`);
    if (/[\x00-\x08\x0a-\x1f\x7f]/.test(value)) throw fail(`net/http: invalid header field value for ${goQuote(name)}`);
  }
  const tls = url.protocol === 'https:';
  const port = url.port ? Number(url.port) : tls ? 443 : 80;
  let address;
  try {
    address = await facilities.resolve(url.hostname);
  } catch {
    throw fail(`dial tcp: lookup ${url.hostname.replace(/^\[|\]$/g, '')}: no such host`);
  }
  const client = new OriginClient(network, { address, port, hostname: url.hostname, tls }, 0);
  client.keepAlive = false; // a secret is looked up once: nothing to keep a connection for
  const wire = { host: url.host, 'user-agent': `loadtest/${VERSION}` };
  for (const [k, v] of Object.entries(headers)) {
    for (const d of Object.keys(wire)) if (d === k.toLowerCase()) delete wire[d];
    wire[k.toLowerCase()] = v;
  }
  const path = url.pathname + url.search;
  const request = {
    bytes: encodeRequest({ method, path, headers: wire, body: null }),
    isHead: method === 'HEAD',
    method,
    path,
    timeout: Math.max(1, deadline - performance.now()),
    binary: true,
    frames: () => encodeH2Request({ method, scheme: 'https', authority: url.host, path, headers: wire, body: null }),
  };
  const result = await client.send(request);
  client.close();
  if (result.error) throw fail(goReason(result.error, url, port));
  return { status: result.status, head: result.head, body: result.body || new Uint8Array(0) };
}

function goReason(reason, url, port) {
  if (reason === 'ECONNREFUSED') return `dial tcp ${url.hostname.replace(/^\[|\]$/g, '')}:${port}: connect: connection refused`;
  if (reason === 'timeout') return 'context deadline exceeded (Client.Timeout exceeded while awaiting headers)';
  if (reason === 'ECONNRESET') return 'read: connection reset by peer';
  return reason;
}

// A header's value in a response head's lines, or null.
function headerOf(head, name) {
  for (const line of String(head || '').split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0 && line.slice(0, colon).trim().toLowerCase() === name) return line.slice(colon + 1).trim();
  }
  return null;
}
