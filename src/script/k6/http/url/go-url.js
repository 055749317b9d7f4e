// A URL as k6 shows it: Go's url.Parse(text).String(), which keeps the text a script wrote but
// for the scheme's case and a path Go must escape ('http://host' stays without a '/', a query
// keeps its spaces, '/a/../b' its dots), where a WHATWG URL's href normalizes. k6 gives it as
// res.url, res.request.url and, its credentials masked (Go's httpext.URL.Clean()), as the
// `url` and `name` tags.

const FORM = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#]*)([^?#]*)(\?[^#]*)?(#[^]*)?$/;

// Go's validEncoded(path, encodePath): what String() leaves as it was written.
const VALID_PATH = /^(?:[A-Za-z0-9\-._~!$&'()*+,;=:@[\]/]|%[0-9A-Fa-f]{2})*$/;

// What Go's escape(path, encodePath) leaves as it is (shouldEscape false).
const KEPT = /[A-Za-z0-9\-._~$&+,/:;=@]/;
const HEX = '0123456789ABCDEF';
const encoder = new TextEncoder();

/** Go's String() of `text`'s URL; null when the text is not scheme://authority[path][?query][#fragment]. */
export function goURLString(text) {
  const m = FORM.exec(text);
  if (m === null) return null;
  const path = VALID_PATH.test(m[3]) ? m[3] : escapePath(m[3]);
  return `${m[1].toLowerCase()}://${m[2]}${path}${m[4] ?? ''}${m[5] ?? ''}`;
}

// Go: the path unescaped (every %XX), then each byte of its UTF-8 escaped unless kept.
function escapePath(raw) {
  let out = '';
  for (let i = 0; i < raw.length; ) {
    if (raw[i] === '%' && /^[0-9A-Fa-f]{2}$/.test(raw.slice(i + 1, i + 3))) {
      out += byteOf(parseInt(raw.slice(i + 1, i + 3), 16));
      i += 3;
      continue;
    }
    const ch = String.fromCodePoint(raw.codePointAt(i));
    for (const b of encoder.encode(ch)) out += byteOf(b);
    i += ch.length;
  }
  return out;
}

const byteOf = (b) => (b < 128 && KEPT.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${HEX[b >> 4]}${HEX[b & 15]}`);

/** k6's output-safe form (Clean()): credentials as '****:****', or '****' for a user alone. */
export function maskedURL(goText) {
  const [start, at] = userinfo(goText);
  if (at < start) return goText;
  return `${goText.slice(0, start)}${goText.slice(start, at).includes(':') ? '****:****' : '****'}${goText.slice(at)}`;
}

/** Without its credentials: what k6's digest auth makes of the request's URL (req.URL.User = nil). */
export function bareURL(goText) {
  const [start, at] = userinfo(goText);
  return at < start ? goText : goText.slice(0, start) + goText.slice(at + 1);
}

// Where the credentials start, and their '@' (before `start` when there are none).
function userinfo(goText) {
  const start = goText.indexOf('://') + 3;
  const end = goText.slice(start).search(/[/?#]|$/) + start;
  return [start, goText.lastIndexOf('@', end - 1)];
}
