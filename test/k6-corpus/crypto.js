// k6/crypto: the one-call hashes, a hasher fed in pieces, HMACs in hex and base64, and a signed
// request whose signature the server echoes back. md4 last: the rarest of them.
import http from 'k6/http';
import { check } from 'k6';
import crypto from 'k6/crypto';

export const options = { iterations: 1 };

const MESSAGE = 'Order #42 for Ada';

export default function () {
  check(MESSAGE, {
    'md5': (m) => crypto.md5(m, 'hex') === 'f2d2315b7b198ab8c5d32ed701740d36',
    'sha1': (m) => crypto.sha1(m, 'hex') === 'cbe31edac3804a8341ba41dff8d7587da8973fce',
    'sha256': (m) => crypto.sha256(m, 'hex') === '4cd7b7cffaf498e4e81b140d7bab5381b603ca8bccc15645f16b060e9474bd72',
    'sha384': (m) => crypto.sha384(m, 'hex') === 'f79105cb2b7ba9db3d2489a18226be36e353ffb79895d37c53a4d6f2b43a01fe93fb275557fa4d145dfd95ed4f89f00d',
    'sha512': (m) => crypto.sha512(m, 'hex') === '6182d38b9dcef0fbc7555a6dbc894baaf77b044316e54cf8500cb3e9544d70b861aa62a995f439e96a63750205bf035e7f60c0c5e9c2c2580b1c6475f2b78518',
    'sha512_256': (m) => crypto.sha512_256(m, 'hex') === '110244f0863035ad305f7bf6752a95f24abe311aed071bc98ce33eec1c386e4a',
    'ripemd160': (m) => crypto.ripemd160(m, 'hex') === 'aff12ff71e0626c4312106403621ecaaf2b47e04',
    'sha256 in base64': (m) => crypto.sha256(m, 'base64') === 'TNe3z/r0mOToGxQNe6tTgbYDyovMwVZF8WsGDpR0vXI=',
    'sha256 in base64url': (m) => crypto.sha256(m, 'base64url') === 'TNe3z_r0mOToGxQNe6tTgbYDyovMwVZF8WsGDpR0vXI=',
    'binary is an ArrayBuffer of 32': (m) => crypto.sha256(m, 'binary').byteLength === 32,
  });

  const hasher = crypto.createHash('sha1');
  hasher.update('Order #42');
  hasher.update(' for Ada');
  check(hasher, { 'fed in pieces': (h) => h.digest('hex') === 'cbe31edac3804a8341ba41dff8d7587da8973fce' });

  check(MESSAGE, {
    'hmac sha256 hex': (m) => crypto.hmac('sha256', 's3cret', m, 'hex') === '37b770de5111ec70803a40f2728521fd8cc630c848adb898ed6982989a5fb218',
    'hmac sha512 base64': (m) => crypto.hmac('sha512', 's3cret', m, 'base64') === 'sJju1QPAhkbP0ERHeEfcAepNRyCw1igtPbuD/JCOwnYlLZ3s2GJXxGlBpTtw4dojYEeY2QXiP7RM6ZSU+fLPWA==',
  });
  const mac = crypto.createHMAC('md5', 'k');
  mac.update('a');
  mac.update('b');
  check(mac, { 'hmac fed in pieces': (h) => h.digest('hex') === '3c09015047adcf83a96f5fdfa75fde59' });

  const signature = crypto.hmac('sha256', 's3cret', MESSAGE, 'hex');
  const res = http.get(`${__ENV.BASE}/headers`, { headers: { 'X-Signature': signature } });
  check(res, { 'signature arrived': (r) => r.json('headers.X-Signature') === signature });

  check(MESSAGE, { 'md4': (m) => crypto.md4(m, 'hex') === '2dce42e4754d1869965b550da19ba112' });
}
