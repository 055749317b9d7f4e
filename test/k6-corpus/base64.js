// k6/encoding: base64 in its four alphabets (standard and URL-safe, padded or raw), text and
// binary, and an Authorization header built with it.
import http from 'k6/http';
import { check } from 'k6';
import encoding from 'k6/encoding';

export const options = { iterations: 1 };

export default function () {
  const text = 'loadtest?>';
  check(text, {
    'std': (s) => encoding.b64encode(s) === 'bG9hZHRlc3Q/Pg==',
    'std back': () => encoding.b64decode('bG9hZHRlc3Q/Pg==', 'std', 's') === text,
    'rawstd': (s) => encoding.b64encode(s, 'rawstd') === 'bG9hZHRlc3Q/Pg',
    'rawstd back': () => encoding.b64decode('bG9hZHRlc3Q/Pg', 'rawstd', 's') === text,
    'url': (s) => encoding.b64encode(s, 'url') === 'bG9hZHRlc3Q_Pg==',
    'url back': () => encoding.b64decode('bG9hZHRlc3Q_Pg==', 'url', 's') === text,
    'rawurl': (s) => encoding.b64encode(s, 'rawurl') === 'bG9hZHRlc3Q_Pg',
    'rawurl back': () => encoding.b64decode('bG9hZHRlc3Q_Pg', 'rawurl', 's') === text,
  });

  const utf8 = 'päivää ☀';
  check(utf8, {
    'utf-8 text': (s) => encoding.b64encode(s) === 'cMOkaXbDpMOkIOKYgA==',
    'utf-8 back': () => encoding.b64decode('cMOkaXbDpMOkIOKYgA==', 'std', 's') === utf8,
  });

  const bytes = new Uint8Array([0, 255, 128, 7]).buffer;
  check(bytes, {
    'bytes in': (b) => encoding.b64encode(b) === 'AP+ABw==',
    'bytes out': () => {
      const back = new Uint8Array(encoding.b64decode('AP+ABw=='));
      return back.length === 4 && back[1] === 255 && back[2] === 128;
    },
  });

  const res = http.get(`${__ENV.BASE}/basic-auth/ada/lovelace`, {
    headers: { Authorization: `Basic ${encoding.b64encode('ada:lovelace')}` },
  });
  check(res, { 'header built with b64encode accepted': (r) => r.status === 200 && r.json('user') === 'ada' });
}
