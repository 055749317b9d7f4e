// An https server for the TLS option tests (test/script-tls.test.js), run by node whatever
// runtime the test is on, so that its TLS is OpenSSL's on each: `node test/tls-server.js JSON`,
// JSON being node:http2's createSecureServer options (cert, key, ca, minVersion, maxVersion,
// ciphers, requestCert). HTTP/2 and HTTP/1.1 both. Each request is answered with what the
// connection was: {"version","cipher","client" (the client certificate's CN, or null),"http"}.
// It prints {"port":N} when ready and exits when its stdin closes.

import http2 from 'node:http2';

const options = { ...JSON.parse(process.argv[2]), allowHTTP1: true };
if (options.requestCert) options.rejectUnauthorized = true;
const server = http2.createSecureServer(options, (req, res) => {
  const s = req.socket;
  const peer = s.getPeerCertificate ? s.getPeerCertificate() : null;
  res.end(JSON.stringify({ version: s.getProtocol(), cipher: s.getCipher().standardName, client: peer && peer.subject ? peer.subject.CN : null, http: req.httpVersion }));
});
server.on('tlsClientError', () => {});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`));
process.stdin.on('data', () => {});
process.stdin.on('end', () => process.exit(0));
