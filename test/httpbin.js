// A small httpbin on node:http for scripted tests and for side-by-side runs with k6: the
// endpoints k6's examples and docs call (httpbin.org's shapes), on 127.0.0.1, counting every
// request by method and path. `node test/httpbin.js [PORT]` serves it alone.

import http from 'node:http';
import { createHash } from 'node:crypto';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { websocketEcho } from '../runtimes/test-server/websocket-echo.js';

const PAGE = `<!DOCTYPE html><html><head><title>httpbin</title></head><body>
<h1>httpbin</h1><ul><li><a href="/get">get</a></li><li><a href="/html">html</a></li><li><a href="/json">json</a></li></ul>
<form action="/post" method="POST"><input name="custname" value=""><input name="custtel" value=""><input type="hidden" name="token" value="t0k3n"><button type="submit" name="go" value="1">Go</button></form>
</body></html>`;

// As httpbin's /forms/post: a pizza order posted to /post (text, tel and email fields, radio
// buttons, checkboxes, a time and a textarea).
const ORDER_FORM = `<!DOCTYPE html><html><head><title>Order</title></head><body>
<form method="post" action="/post">
<p><label>Customer name: <input name="custname"></label></p>
<p><label>Telephone: <input type="tel" name="custtel"></label></p>
<p><label>E-mail address: <input type="email" name="custemail"></label></p>
<fieldset><legend> Pizza Size </legend>
<p><label><input type="radio" name="size" value="small"> Small </label></p>
<p><label><input type="radio" name="size" value="medium"> Medium </label></p>
<p><label><input type="radio" name="size" value="large"> Large </label></p>
</fieldset>
<fieldset><legend> Pizza Toppings </legend>
<p><label><input type="checkbox" name="topping" value="bacon"> Bacon </label></p>
<p><label><input type="checkbox" name="topping" value="cheese"> Extra Cheese </label></p>
<p><label><input type="checkbox" name="topping" value="onion"> Onion </label></p>
<p><label><input type="checkbox" name="topping" value="mushroom"> Mushroom </label></p>
</fieldset>
<p><label>Preferred delivery time: <input type="time" min="11:00" max="21:00" step="900" name="delivery"></label></p>
<p><label>Delivery instructions: <textarea name="comments"></textarea></label></p>
<p><button>Submit order</button></p>
</form>
</body></html>`;

// httpbin's way with a query or a form: a key given once is a string, given again a list.
function multiDict(params) {
  const out = {};
  for (const [k, v] of params) out[k] = k in out ? [].concat(out[k], v) : v;
  return out;
}

function cookiesOf(req) {
  const out = {};
  for (const part of (req.headers.cookie || '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0) out[part.slice(0, eq).trim()] = part.slice(eq + 1).trim();
  }
  return out;
}

// Content-Encoding's codings as node:zlib's (zstd where the runtime has it: not node 20).
const CODINGS = {
  gzip: [zlib.gzipSync, zlib.gunzipSync],
  deflate: [zlib.deflateSync, zlib.inflateSync],
  br: [zlib.brotliCompressSync, zlib.brotliDecompressSync],
  zstd: zlib.zstdCompressSync ? [zlib.zstdCompressSync, zlib.zstdDecompressSync] : null,
};

// A request's body as sent before its Content-Encoding's codings (the last applied first).
function decodedBody(raw, encoding) {
  if (!encoding) return raw;
  for (const coding of encoding.split(',').map((c) => c.trim().toLowerCase()).reverse()) {
    if (CODINGS[coding]) raw = CODINGS[coding][1](raw);
  }
  return raw;
}

function headersOf(req) {
  const out = {};
  for (let i = 0; i < req.rawHeaders.length; i += 2) out[req.rawHeaders[i].replace(/(^|-)([a-z])/g, (_, d, c) => d + c.toUpperCase())] = req.rawHeaders[i + 1];
  return out;
}

export function startHttpbin(port = 0) {
  const counts = new Map();
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url, 'http://x');
      const p = url.pathname;
      counts.set(`${req.method} ${p}`, (counts.get(`${req.method} ${p}`) || 0) + 1);
      server.requests++;
      const body = decodedBody(Buffer.concat(chunks), req.headers['content-encoding']).toString('utf8');
      const json = (status, value, headers = {}) => {
        const text = JSON.stringify(value, null, 2) + '\n';
        res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), ...headers });
        res.end(text);
      };
      const echo = () => {
        const type = req.headers['content-type'] || '';
        const form = type.includes('application/x-www-form-urlencoded') ? multiDict(new URLSearchParams(body)) : {};
        let parsed = null;
        try {
          parsed = type.includes('json') ? JSON.parse(body) : null;
        } catch {
          parsed = null;
        }
        return { args: multiDict(url.searchParams), data: type.includes('form') ? '' : body, form, json: parsed, headers: headersOf(req), method: req.method, origin: '127.0.0.1', url: `http://${req.headers.host}${req.url}` };
      };
      let m;
      // As httpbin (Flask) answers OPTIONS on every route: no body, the methods allowed.
      if (req.method === 'OPTIONS') {
        res.writeHead(200, { Allow: 'GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE', 'Access-Control-Allow-Origin': '*', 'Access-Control-Allow-Methods': 'GET, POST, PUT, DELETE, PATCH, OPTIONS', 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': 0 });
        return res.end();
      }
      if (p === '/') {
        res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
        return res.end(PAGE);
      }
      if (p === '/html') {
        res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
        return res.end(PAGE);
      }
      if (['/get', '/post', '/put', '/patch', '/delete', '/anything'].includes(p) || p.startsWith('/anything/')) {
        const want = p === '/anything' || p.startsWith('/anything/') ? req.method : p.slice(1).toUpperCase();
        // HEAD is a GET without the body (node:http leaves the body out).
        if (req.method !== want && !(req.method === 'HEAD' && want === 'GET')) return json(405, { error: 'method not allowed' });
        return json(200, echo());
      }
      if (p === '/forms/post') {
        res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
        return res.end(ORDER_FORM);
      }
      if (p === '/bearer') {
        const token = /^Bearer (.+)$/.exec(req.headers.authorization || '');
        return token ? json(200, { authenticated: true, token: token[1] }) : json(401, { authenticated: false }, { 'WWW-Authenticate': 'Bearer' });
      }
      if (p === '/redirect-to') {
        const status = Number(url.searchParams.get('status_code') || 302);
        res.writeHead(status >= 300 && status < 400 ? status : 302, { Location: url.searchParams.get('url') || '/', 'Content-Length': 0 });
        return res.end();
      }
      // As httpbin's /gzip, /deflate and /brotli: the echo compressed whatever was asked; /zstd
      // too (501 where the runtime cannot); /gzip-if-asked only when Accept-Encoding names gzip,
      // as a server's compression middleware; /bad-gzip says gzip and is not.
      if ((m = /^\/(gzip|deflate|brotli|zstd|gzip-if-asked)$/.exec(p))) {
        const asked = /\bgzip\b/i.test(req.headers['accept-encoding'] || '');
        const coding = m[1] === 'brotli' ? 'br' : m[1] === 'gzip-if-asked' ? (asked ? 'gzip' : null) : m[1];
        if (coding && !CODINGS[coding]) return json(501, { error: `no ${coding} here` });
        const key = { gzip: 'gzipped', deflate: 'deflated', brotli: 'brotli', zstd: 'zstd', 'gzip-if-asked': 'gzipped' }[m[1]];
        const text = JSON.stringify({ [key]: coding !== null, headers: headersOf(req), method: req.method, origin: '127.0.0.1' }, null, 2) + '\n';
        const bytes = coding ? CODINGS[coding][0](Buffer.from(text)) : Buffer.from(text);
        res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': bytes.length, ...(coding ? { 'Content-Encoding': coding } : {}) });
        return res.end(req.method === 'HEAD' ? undefined : bytes);
      }
      if (p === '/bad-gzip') {
        res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip', 'Content-Length': 12 });
        return res.end('not gzip at all'.slice(0, 12));
      }
      if (p === '/headers') return json(200, { headers: headersOf(req) });
      if (p === '/ip') return json(200, { origin: '127.0.0.1' });
      if (p === '/user-agent') return json(200, { 'user-agent': req.headers['user-agent'] || '' });
      if (p === '/json') return json(200, { slideshow: { author: 'Yours Truly', title: 'Sample Slide Show', slides: [{ title: 'Wake up to WonderWidgets!', type: 'all' }, { title: 'Overview', type: 'all', items: ['Why WonderWidgets are great', 'Who buys WonderWidgets'] }] } });
      if (p === '/cookies') return json(200, { cookies: cookiesOf(req) });
      if (p === '/cookies/set') {
        const set = [...url.searchParams].map(([k, v]) => `${k}=${v}; Path=/`);
        res.writeHead(302, { Location: '/cookies', 'Set-Cookie': set, 'Content-Length': 0 });
        return res.end();
      }
      if (p === '/cookies/delete') {
        const set = [...url.searchParams.keys()].map((k) => `${k}=; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=0; Path=/`);
        res.writeHead(302, { Location: '/cookies', 'Set-Cookie': set, 'Content-Length': 0 });
        return res.end();
      }
      if ((m = /^\/basic-auth\/([^/]+)\/([^/]+)$/.exec(p))) {
        const ok = req.headers.authorization === `Basic ${Buffer.from(`${m[1]}:${m[2]}`).toString('base64')}`;
        return ok ? json(200, { authenticated: true, user: m[1] }) : json(401, { authenticated: false }, { 'WWW-Authenticate': 'Basic realm="Fake Realm"' });
      }
      // RFC 7616 with MD5 and qop=auth, as httpbin's: a 401 with the challenge, then the
      // client's answer checked against the password.
      if ((m = /^\/digest-auth\/(auth)\/([^/]+)\/([^/]+)$/.exec(p))) {
        const md5 = (s) => createHash('md5').update(s).digest('hex');
        const realm = 'me@kennethreitz.com';
        const fields = {};
        const given = req.headers.authorization || '';
        if (given.startsWith('Digest ')) for (const f of given.slice(7).matchAll(/(\w+)=(?:"([^"]*)"|([^,\s]*))/g)) fields[f[1]] = f[2] ?? f[3];
        const expected = md5(`${md5(`${m[2]}:${realm}:${m[3]}`)}:${fields.nonce}:${fields.nc}:${fields.cnonce}:auth:${md5(`${req.method}:${fields.uri}`)}`);
        if (fields.username === m[2] && fields.uri === req.url && fields.response === expected) return json(200, { authenticated: true, user: m[2] });
        const nonce = md5(String(Math.random()));
        return json(401, { authenticated: false }, { 'WWW-Authenticate': `Digest realm="${realm}", nonce="${nonce}", qop="auth", opaque="${md5(realm)}", algorithm=MD5, stale=FALSE` });
      }
      if ((m = /^\/(?:relative-)?redirect\/(\d+)$/.exec(p))) {
        const n = Number(m[1]);
        res.writeHead(302, { Location: n > 1 ? `/relative-redirect/${n - 1}` : '/get', 'Content-Length': 0 });
        return res.end();
      }
      if ((m = /^\/status\/(\d{3})$/.exec(p))) {
        res.writeHead(Number(m[1]), { 'Content-Length': 0 });
        return res.end();
      }
      if ((m = /^\/bytes\/(\d+)$/.exec(p))) {
        const n = Math.min(Number(m[1]), 100 * 1024);
        res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': n });
        return res.end(Buffer.alloc(n, 7));
      }
      if ((m = /^\/delay\/(\d+(?:\.\d+)?)$/.exec(p))) return setTimeout(() => json(200, echo()), Math.min(Number(m[1]), 10) * 1000);
      json(404, { error: 'not found' });
    });
  });
  server.requests = 0;
  server.counts = counts;
  // A WebSocket echo on any path (ws://host/ws): each upgrade counted as `GET path`, each message
  // echoed as `WS messages`, for the scripts of k6/ws.
  const sockets = new Set();
  server.on('upgrade', (req) => {
    const key = `GET ${new URL(req.url, 'http://x').pathname}`;
    counts.set(key, (counts.get(key) || 0) + 1);
  });
  const messages = {
    get messages() {
      return counts.get('WS messages') || 0;
    },
    set messages(n) {
      counts.set('WS messages', n);
    },
  };
  websocketEcho(server, { counts: messages, sockets });
  return new Promise((resolve) => {
    server.listen(port, '127.0.0.1', () => {
      server.url = `http://127.0.0.1:${server.address().port}`;
      server.stop = () =>
        new Promise((r) => {
          for (const s of sockets) s.destroy();
          server.closeAllConnections?.();
          server.close(() => r());
        });
      resolve(server);
    });
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const server = await startHttpbin(Number(process.argv[2] || 8088));
  console.log(`httpbin on ${server.url}`);
}
