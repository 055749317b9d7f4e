// What k6 makes of a request's URL text before its client sees it: Go's url.Parse (net/url, Go
// 1.26), then the checks of Go's transport. Three outcomes, as k6 v2.2 gives them:
// - Parse refuses the text ('http://[::1', 'http://a b/'): k6 sends nothing and records nothing,
//   the Response's error is `invalid URL: parse "TEXT": WHY` (code 1020);
// - Parse takes it but no request can be made of it ('', 'foo', 'ftp://host/', 'http://',
//   'http://host:99999/'): a request that failed, counted in http_reqs and http_req_failed with
//   Go's words (`unsupported protocol scheme ""`, code 1000);
// - a URL the client can send.
// A WHATWG URL parser takes texts Go refuses (' http://host/', trimmed) and refuses ones Go
// takes, which is why this is read apart from it.

/** Go's verdict on `text`: { parseError } or { unsendable, code, shown } or null (sendable). */
export function goVerdict(text) {
  return PLAIN.test(text) ? null : fullVerdict(text);
}

/** goVerdict without its shortcut for the common URL (which a test holds to this). */
export function fullVerdict(text) {
  const u = goParse(text);
  if (typeof u === 'string') return { parseError: u };
  if (u.scheme !== 'http' && u.scheme !== 'https') return unsendable(`unsupported protocol scheme ${goQuote(u.scheme)}`, 1000, u);
  if (u.host === '') return unsendable('http: no Host in request URL', 1000, u);
  const port = portOf(u.host);
  if (port !== '' && Number(port) > 65535) return unsendable(`dial tcp: address ${port}: invalid port`, 1210, u);
  return null;
}

// The common URL, which Go takes and sends, told at once (the checks below cost 3 to 7 µs a
// URL, and a script whose URLs carry ids makes a new one a request): http or https, a host name
// or IPv4 address, a port up to 65535, then anything but escapes, fragments and control
// characters; tested, not matched (no array made).
const PLAIN = /^https?:\/\/[A-Za-z0-9.-]+(?::(?:[0-9]{1,4}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5]))?(?:[/?][^%#\x00-\x20\x7f]*)?$/;

const unsendable = (error, code, u) => ({ unsendable: error, code, shown: goString(u) });

/** Go's strconv.Quote for the texts a URL holds: JSON's escapes but for \u007f and above. */
export function goQuote(text) {
  return JSON.stringify(text).replace(/[\u007f-\u009f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

// The port a Go host ('host:port', '[v6]:port') names; '' when none.
function portOf(host) {
  const colon = host.lastIndexOf(':');
  if (colon < 0 || host.lastIndexOf(']') > colon) return '';
  return host.slice(colon + 1);
}

// url.Parse: the parts String() writes again, or the error's text (`parse "TEXT": WHY`).
export function goParse(raw) {
  const hash = raw.indexOf('#');
  const text = hash < 0 ? raw : raw.slice(0, hash);
  const fragment = hash < 0 ? '' : raw.slice(hash + 1);
  const error = parseError(text);
  if (error !== null) return `parse ${goQuote(text)}: ${error}`;
  const fragmentError = escapeError(fragment, false);
  if (fragmentError !== null) return `parse ${goQuote(raw)}: ${fragmentError}`;
  return { ...parts(text), fragment: hash < 0 ? null : fragment };
}

// Go's parse(rawURL, false): null when it takes the text.
function parseError(text) {
  if (/[\x00-\x1f\x7f]/.test(text)) return 'net/url: invalid control character in URL';
  if (text === '*') return null;
  const s = schemeOf(text);
  if (s === null) return 'missing protocol scheme';
  const rest = restOf(text, s);
  if (!rest.startsWith('/')) {
    if (s !== '') return null; // opaque
    const segment = rest.split('/')[0];
    if (segment.includes(':')) return 'first path segment in URL cannot contain colon';
  }
  let path = rest;
  if ((s !== '' || !rest.startsWith('///')) && rest.startsWith('//')) {
    const slash = rest.indexOf('/', 2);
    const authority = slash < 0 ? rest.slice(2) : rest.slice(2, slash);
    path = slash < 0 ? '' : rest.slice(slash);
    const e = authorityError(s.toLowerCase(), authority);
    if (e !== null) return e;
  }
  return escapeError(path, false);
}

// Go's getScheme: the scheme ('' for none), or null for a text that starts with ':'.
function schemeOf(text) {
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (/[A-Za-z]/.test(c)) continue;
    if (/[0-9+.-]/.test(c)) {
      if (i === 0) return '';
      continue;
    }
    if (c === ':') return i === 0 ? null : text.slice(0, i);
    return '';
  }
  return '';
}

// What follows the scheme, its query cut off.
function restOf(text, scheme) {
  let rest = scheme === '' ? text : text.slice(scheme.length + 1);
  if (rest.endsWith('?') && rest.indexOf('?') === rest.length - 1) return rest.slice(0, -1);
  const q = rest.indexOf('?');
  return q < 0 ? rest : rest.slice(0, q);
}

function authorityError(scheme, authority) {
  const at = authority.lastIndexOf('@');
  const e = hostError(scheme, at < 0 ? authority : authority.slice(at + 1));
  if (e !== null || at < 0) return e;
  const userinfo = authority.slice(0, at);
  if (!/^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/.test(userinfo)) return 'net/url: invalid userinfo';
  for (const part of userinfo.split(':').slice(0, 2)) {
    const pe = escapeError(part, false);
    if (pe !== null) return pe;
  }
  return null;
}

const VALID_PORT = /^(:[0-9]*)?$/;

// Go's parseHost (its IPv6 check kept to the address's shape).
function hostError(scheme, host) {
  const open = host.lastIndexOf('[');
  if (open > 0) return 'invalid IP-literal';
  if (open === 0) {
    const close = host.lastIndexOf(']');
    if (close < 0) return "missing ']' in host";
    const colonPort = host.slice(close + 1);
    if (!VALID_PORT.test(colonPort)) return `invalid port ${goQuote(colonPort)} after host`;
    const name = host.slice(1, close).replace(/%25.*$/, '');
    const e = escapeError(name, true);
    if (e !== null) return e;
    if (!/^[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*$/.test(name)) return `invalid host: ParseAddr(${goQuote(name)}): unable to parse IP`;
    return null;
  }
  const first = host.indexOf(':');
  if (first >= 0) {
    const i = scheme === 'http' || scheme === 'https' ? first : host.lastIndexOf(':');
    const colonPort = host.slice(i);
    if (!VALID_PORT.test(colonPort)) return `invalid port ${goQuote(colonPort)} after host`;
  }
  return escapeError(host, true);
}

// Go's unescape: a '%' not followed by two hex digits; in a host, an escaped ASCII byte (but
// %25) or a character Go would escape.
function escapeError(s, inHost) {
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '%') {
      if (!/^[0-9A-Fa-f]{2}$/.test(s.slice(i + 1, i + 3))) return `invalid URL escape ${goQuote(s.slice(i, i + 3))}`;
      if (inHost && parseInt(s[i + 1], 16) < 8 && s.slice(i, i + 3) !== '%25') return `invalid URL escape ${goQuote(s.slice(i, i + 3))}`;
      i += 2;
    } else if (inHost && c.charCodeAt(0) < 0x80 && !/[A-Za-z0-9\-._~!$&'()*+,;=:[\]<>"]/.test(c)) {
      return `invalid character ${goQuote(c)} in host name`;
    }
  }
  return null;
}

// The parts of a text Go takes, as String() writes them again.
function parts(text) {
  const scheme = schemeOf(text) || '';
  const afterScheme = scheme === '' ? text : text.slice(scheme.length + 1);
  const q = afterScheme.endsWith('?') && afterScheme.indexOf('?') === afterScheme.length - 1 ? afterScheme.length - 1 : afterScheme.indexOf('?');
  const rest = q < 0 ? afterScheme : afterScheme.slice(0, q);
  const query = q < 0 ? null : afterScheme.slice(q + 1);
  const u = { scheme: scheme.toLowerCase(), opaque: '', authority: null, host: '', path: rest, query };
  if (scheme !== '' && !rest.startsWith('/')) return { ...u, opaque: rest, path: '' };
  if ((scheme !== '' || !rest.startsWith('///')) && rest.startsWith('//')) {
    const slash = rest.indexOf('/', 2);
    u.authority = slash < 0 ? rest.slice(2) : rest.slice(2, slash);
    u.host = u.authority.slice(u.authority.lastIndexOf('@') + 1);
    u.path = slash < 0 ? '' : rest.slice(slash);
  }
  return u;
}

// Go's String() of what parts() read (the path and fragment as they were written: a URL this
// module shows is one Go could not send, whose escapes matter little).
function goString(u) {
  let out = u.scheme === '' ? '' : `${u.scheme}:`;
  if (u.opaque !== '') out += u.opaque;
  else {
    const userinfo = u.authority !== null && u.authority.includes('@');
    if (u.authority !== null && (u.host !== '' || u.path !== '' || userinfo)) out += `//${u.authority}`;
    if (u.path !== '' && !u.path.startsWith('/') && u.host !== '') out += '/';
    if (out === '' && u.path.split('/')[0].includes(':')) out += './';
    out += u.path;
  }
  if (u.query !== null) out += `?${u.query}`;
  if (u.fragment) out += `#${u.fragment}`;
  return out;
}
