// A script's client certificate (k6's tlsAuth), checked and its key decrypted once before the
// run, in Go's words where k6 refuses one (crypto/tls X509KeyPair, x509.DecryptPEMBlock). The
// key goes on decrypted: Deno.connectTls takes no passphrase, and every adapter then takes the
// same PEM.

import { X509Certificate, createPrivateKey } from 'node:crypto';

const PEM = /-----BEGIN [A-Z0-9 ]+-----/;

/** { cert, key } (PEM text, the key unencrypted) of a pair; throws Go's line for a bad one. */
export function clientKey({ cert, key, password = null }) {
  if (!PEM.test(cert)) throw new Error('tls: failed to find any PEM data in certificate input');
  if (!PEM.test(key)) throw new Error('tls: failed to find any PEM data in key input');
  let certificate;
  try {
    certificate = new X509Certificate(cert);
  } catch (err) {
    throw new Error(`tls: failed to parse certificate: ${err.message}`);
  }
  let privateKey;
  try {
    privateKey = createPrivateKey(password === null ? { key, format: 'pem' } : { key, format: 'pem', passphrase: password });
  } catch (err) {
    if (password !== null) throw new Error('x509: decryption password incorrect');
    throw new Error(`tls: failed to parse private key: ${err.message}`);
  }
  if (!certificate.checkPrivateKey(privateKey)) throw new Error('tls: private key does not match public key');
  return { cert, key: password === null ? key : privateKey.export({ format: 'pem', type: 'pkcs8' }) };
}
