// HTTP proxies: which proxy a target goes through (the option, or HTTP_PROXY / HTTPS_PROXY /
// NO_PROXY), how it is reached, and the CONNECT tunnel's handshake for https and WebSocket
// targets. Plain http goes to the proxy as absolute-form requests (RFC 9112 3.2.2) built with the
// other request bytes; a tunnel is opened by the socket adapter, which reads the proxy's answer
// with tunnelReader() before it starts TLS.

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * A proxy URL ('http://user:password@host:port') as { url (without the password), host, port,
 * authorization (the Basic header value, or null) }.
 */
export function parseProxy(text) {
  let u;
  try {
    u = new URL(String(text).includes('://') ? String(text) : `http://${text}`);
  } catch {
    throw new Error(`invalid proxy '${text}': use http://host:port`);
  }
  if (u.protocol !== 'http:') throw new Error(`invalid proxy '${text}': only http:// proxies are supported (https targets go through them by CONNECT)`);
  if (!u.hostname) throw new Error(`invalid proxy '${text}': no host`);
  const user = decodeURIComponent(u.username);
  const password = decodeURIComponent(u.password);
  const authorization = user || password ? `Basic ${base64(encoder.encode(`${user}:${password}`))}` : null;
  return {
    url: `http://${u.username ? `${u.username}:***@` : ''}${u.host}`,
    host: u.hostname.replace(/^\[|\]$/g, ''),
    port: u.port ? Number(u.port) : 80,
    authorization,
  };
}

/**
 * The proxy the environment names for a target URL, or null: HTTPS_PROXY for https and wss,
 * HTTP_PROXY for http and ws (lower-case names too), unless NO_PROXY matches the host. As Go's
 * net/http does, loopback targets never go through an environment proxy: a local test server
 * behind a proxy set for the outside world is a surprise, not a wish (--proxy still forces it).
 */
export function proxyFromEnv(url, getenv) {
  // gRPC speaks HTTP/2, which goes through no proxy here (--proxy is refused for it).
  if (url.protocol === 'grpc:' || url.protocol === 'grpcs:') return null;
  const secure = url.protocol === 'https:' || url.protocol === 'wss:';
  const names = secure ? ['HTTPS_PROXY', 'https_proxy'] : ['HTTP_PROXY', 'http_proxy'];
  let value = null;
  for (const name of names) {
    const v = getenv(name);
    if (v) {
      value = v;
      break;
    }
  }
  if (!value) return null;
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127\./.test(host)) return null;
  const noProxy = getenv('NO_PROXY') || getenv('no_proxy') || '';
  const port = url.port || (secure ? '443' : '80');
  for (let entry of noProxy.split(/[\s,]+/)) {
    entry = entry.trim().toLowerCase();
    if (!entry) continue;
    if (entry === '*') return null;
    let entryPort = null;
    const m = /^(.*):(\d+)$/.exec(entry);
    if (m && !entry.includes('::')) {
      entry = m[1];
      entryPort = m[2];
    }
    entry = entry.replace(/^\[|\]$/g, '').replace(/^\*?\./, '.');
    if (entryPort !== null && entryPort !== port) continue;
    if (host === entry.replace(/^\./, '') || (entry.startsWith('.') ? host.endsWith(entry) : host.endsWith(`.${entry}`))) return null;
  }
  return value;
}

/** The CONNECT request that opens a tunnel to host:port. */
export function connectRequest(host, port, authorization) {
  const target = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  let head = `CONNECT ${target} HTTP/1.1\r\nhost: ${target}\r\n`;
  if (authorization) head += `proxy-authorization: ${authorization}\r\n`;
  return encoder.encode(head + '\r\n');
}

const MAX_HEAD = 16 * 1024;

/**
 * Reads a proxy's answer to CONNECT. push(chunk) returns null until the head is complete, then
 * { error: null, rest } (rest: bytes after the head) for a 2xx, or { error } with a code that the
 * report shows as the reason (`proxy refused: 407`).
 */
export function tunnelReader() {
  let head = new Uint8Array(0);
  return {
    push(chunk) {
      const all = new Uint8Array(head.length + chunk.length);
      all.set(head, 0);
      all.set(chunk, head.length);
      head = all;
      const end = indexOfHeadEnd(head);
      if (end < 0) {
        if (head.length > MAX_HEAD) return { error: proxyError('malformed proxy response', 'proxy answered CONNECT with more than 16 KiB of head') };
        return null;
      }
      const text = decoder.decode(head.subarray(0, end));
      const m = /^HTTP\/1\.[01] (\d{3})([^\r\n]*)/.exec(text);
      if (!m) return { error: proxyError('malformed proxy response', `proxy answered CONNECT with '${text.split('\r\n')[0].slice(0, 60)}'`) };
      const status = Number(m[1]);
      if (status < 200 || status > 299) return { error: proxyError(`proxy refused: ${status}`, `proxy refused CONNECT: ${status}${m[2]}`) };
      return { error: null, rest: head.subarray(end + 4) };
    },
  };
}

function proxyError(code, message) {
  const e = new Error(message);
  e.code = code;
  return e;
}

/** Where a head's blank line (\r\n\r\n) begins in `b`, or -1. */
export function indexOfHeadEnd(b) {
  for (let i = 0; i + 3 < b.length; i++) {
    if (b[i] === 13 && b[i + 1] === 10 && b[i + 2] === 13 && b[i + 3] === 10) return i;
  }
  return -1;
}

// btoa wants one character per byte: user names and passwords go as UTF-8.
const base64 = (bytes) => btoa(String.fromCharCode(...bytes));
