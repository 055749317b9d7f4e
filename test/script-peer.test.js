// Who answered a scripted request, as k6 v1.3's Response shows it: remote_ip and remote_port (the
// address connected to), tls_version (k6's 'tls1.3') and tls_cipher_suite (IANA's name, which
// TLS 1.3 shares with OpenSSL), '' and 0 for a request that got no connection, '' for the TLS
// fields of plain HTTP; over HTTP/1.1 and HTTP/2; and JSON.stringify(res) in k6's order of its
// fields, ocsp after tls_cipher_suite. k6 v1.3.0 printed the same lines for this script
// against these servers.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import http2 from 'node:http2';
import https from 'node:https';
import { readFileSync } from 'node:fs';
import { scriptLogged } from './servers.js';

const pem = (name) => readFileSync(new URL(`./tls/${name}.pem`, import.meta.url), 'utf8');
const TLS = { key: pem('server-key'), cert: pem('server') };

const listen = (server) => new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port)));

test("a Response's remote_ip, remote_port, tls_version and tls_cipher_suite, as k6's: HTTP/1.1, TLS, HTTP/2, a request that got no connection", async () => {
  const plain = http.createServer((req, res) => res.end('ok'));
  const h1 = https.createServer(TLS, (req, res) => res.end('ok'));
  const h2 = http2.createSecureServer(TLS, (req, res) => res.end('ok'));
  const refused = http.createServer();
  const ports = { plain: await listen(plain), h1: await listen(h1), h2: await listen(h2), closed: await listen(refused) };
  await new Promise((resolve) => refused.close(resolve)); // nothing listens there now
  try {
    const urls = { plain: `http://127.0.0.1:${ports.plain}/`, h1: `https://127.0.0.1:${ports.h1}/`, h2: `https://127.0.0.1:${ports.h2}/`, none: `http://127.0.0.1:${ports.closed}/` };
    const out = await scriptLogged(
      `import http from 'k6/http';
export const options = { iterations: 1, insecureSkipTLSVerify: true };
export default function () {
  const out = {};
  for (const [name, url] of Object.entries(JSON.parse(__ENV.URLS))) {
    const r = http.get(url);
    out[name] = { proto: r.proto, ip: r.remote_ip, port: r.remote_port, version: r.tls_version, cipher: r.tls_cipher_suite, tls13: r.tls_version === http.TLS_1_3 };
  }
  out.keys = Object.keys(JSON.parse(JSON.stringify(http.get(JSON.parse(__ENV.URLS).plain))));
  console.log(JSON.stringify(out));
}
`,
      ['-e', `URLS=${JSON.stringify(urls)}`],
    );
    assert.deepEqual(out.plain, { proto: 'HTTP/1.1', ip: '127.0.0.1', port: ports.plain, version: '', cipher: '', tls13: false });
    assert.deepEqual(out.none, { proto: '', ip: '', port: 0, version: '', cipher: '', tls13: false });
    // Both ends speak TLS 1.3 (node's, bun's and deno's servers and clients, and k6's Go): its
    // cipher suites by IANA's names, as Go names them.
    for (const [name, proto] of [['h1', 'HTTP/1.1'], ['h2', 'HTTP/2.0']]) {
      const { cipher, ...rest } = out[name];
      assert.deepEqual(rest, { proto, ip: '127.0.0.1', port: ports[name], version: 'tls1.3', tls13: true }, name);
      assert.match(cipher, /^TLS_(AES_128_GCM_SHA256|AES_256_GCM_SHA384|CHACHA20_POLY1305_SHA256)$/, name);
    }
    assert.deepEqual(out.keys, ['remote_ip', 'remote_port', 'url', 'status', 'status_text', 'proto', 'headers', 'cookies', 'body', 'timings', 'tls_version', 'tls_cipher_suite', 'ocsp', 'error', 'error_code', 'request']);
  } finally {
    for (const s of [plain, h1, h2]) s.close();
  }
});
