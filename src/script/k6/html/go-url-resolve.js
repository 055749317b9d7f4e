// Go's url.Parse, URL.ResolveReference and URL.String, as k6/html resolves an element's href,
// src or action against the page's URL and splits it (host, port, pathname...). Go keeps what a
// WHATWG URL normalizes: a default port ('http://h:80' stays so), the host's case, a path's
// '..' when there is no base ('a/../b' resolves to '/b', but 'http://h' keeps no '/').

const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):/;
const ESCAPES = /%(?![0-9A-Fa-f]{2})/;
const PORT = /^(?::\d*)?$/;
// What Go takes in a host name (shouldEscape(c, encodeHost) false), and any non-ASCII.
const HOST = /^[A-Za-z0-9\-._~!$&'()*+,;=:[\]<>"%\u0080-\uffff]*$/;

/** The parts of `text` as Go's url.Parse gives them; null where Go fails. */
export function parseGoURL(text) {
  if (/[\x00-\x1f\x7f]/.test(text)) return null;
  const hashAt = text.indexOf('#');
  const fragment = hashAt < 0 ? '' : text.slice(hashAt + 1);
  let rest = hashAt < 0 ? text : text.slice(0, hashAt);
  if (ESCAPES.test(fragment)) return null;
  const u = { scheme: '', opaque: '', user: null, host: '', path: '', query: '', forceQuery: false, fragment };
  const m = SCHEME.exec(rest);
  if (m) {
    u.scheme = m[1].toLowerCase();
    rest = rest.slice(m[0].length);
  } else if (rest.startsWith(':')) return null;
  const q = rest.indexOf('?');
  if (q >= 0) {
    u.query = rest.slice(q + 1);
    u.forceQuery = u.query === '';
    rest = rest.slice(0, q);
  }
  if (u.scheme && !rest.startsWith('/')) {
    u.opaque = rest;
    return u;
  }
  // Go: a relative path whose first segment has a colon would read as a scheme.
  if (!u.scheme && /^[^/]*:/.test(rest)) return null;
  if (rest.startsWith('//') && (u.scheme || !rest.startsWith('///'))) {
    const end = rest.indexOf('/', 2);
    const authority = end < 0 ? rest.slice(2) : rest.slice(2, end);
    rest = end < 0 ? '' : rest.slice(end);
    if (!authorityInto(u, authority)) return null;
  }
  if (ESCAPES.test(rest)) return null;
  u.path = rest;
  return u;
}

function authorityInto(u, authority) {
  const at = authority.lastIndexOf('@');
  if (at >= 0) {
    const info = authority.slice(0, at);
    if (ESCAPES.test(info)) return false;
    const colon = info.indexOf(':');
    u.user = colon < 0 ? { name: unescape(info), password: null } : { name: unescape(info.slice(0, colon)), password: unescape(info.slice(colon + 1)) };
  }
  const host = authority.slice(at + 1);
  const close = host.startsWith('[') ? host.indexOf(']') : -1;
  if (host.startsWith('[') && close < 0) return false;
  const colon = host.indexOf(':', close + 1);
  if (colon >= 0 && !PORT.test(host.slice(colon))) return false;
  if (ESCAPES.test(host) || !HOST.test(host)) return false;
  u.host = host;
  return true;
}

const unescape = (s) => s.replace(/%([0-9A-Fa-f]{2})/g, (_, h) => String.fromCharCode(parseInt(h, 16)));

/** Go's base.ResolveReference(ref) (RFC 3986 5.2, as Go writes it). */
export function resolveGoURL(base, ref) {
  const u = { ...ref };
  if (!ref.scheme) u.scheme = base.scheme;
  if (ref.scheme || ref.host || ref.user) {
    u.path = resolvePath(ref.path, '');
    return u;
  }
  if (ref.opaque) return { ...u, user: null, host: '', path: '' };
  if (ref.path === '' && !ref.forceQuery && ref.query === '') {
    u.query = base.query;
    if (ref.fragment === '') u.fragment = base.fragment;
  }
  if (ref.path === '' && base.opaque) return { ...u, opaque: base.opaque, user: null, host: '', path: '' };
  u.host = base.host;
  u.user = base.user;
  u.path = resolvePath(base.path, ref.path);
  return u;
}

// Go's resolvePath: the reference's path on the base's directory, '.' and '..' taken out, and
// always a leading '/' (which is why a relative path with no base comes out absolute).
function resolvePath(base, ref) {
  const full = ref === '' ? base : ref[0] !== '/' ? base.slice(0, base.lastIndexOf('/') + 1) + ref : ref;
  if (full === '') return '';
  const out = [];
  const segments = full.split('/');
  for (const s of segments) {
    if (s === '.') continue;
    if (s === '..') out.pop();
    else out.push(s);
  }
  const last = segments[segments.length - 1];
  let path = '/' + out.join('/').replace(/^\//, '');
  if ((last === '.' || last === '..') && !path.endsWith('/')) path += '/';
  return path;
}

/** Go's URL.String(). */
export function formatGoURL(u) {
  let s = u.scheme ? `${u.scheme}:` : '';
  if (u.opaque) s += u.opaque;
  else {
    if (u.scheme || u.host || u.user) {
      s += '//';
      if (u.user) s += u.user.password === null ? `${escapeInfo(u.user.name)}@` : `${escapeInfo(u.user.name)}:${escapeInfo(u.user.password)}@`;
      s += u.host;
    }
    if (u.path && u.path[0] !== '/' && u.host) s += '/';
    if (s === '' && /^[^/]*:/.test(u.path)) s = './';
    s += escapePath(u.path);
  }
  if (u.forceQuery || u.query) s += `?${u.query}`;
  if (u.fragment) s += `#${u.fragment}`;
  return s;
}

// What Go's escape() leaves as written in a path and in user info; the rest as %XX of UTF-8.
const PATH_KEPT = /[A-Za-z0-9\-._~!$&'()*+,;=:@/%]/;
const INFO_KEPT = /[A-Za-z0-9\-._~!$&'()*+,;=]/;
const encoder = new TextEncoder();
const escapeWith = (kept) => (s) => [...s].map((ch) => (kept.test(ch) ? ch : [...encoder.encode(ch)].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join(''))).join('');
const escapePath = escapeWith(PATH_KEPT);
const escapeInfo = escapeWith(INFO_KEPT);

/** A path or fragment as Go's URL holds it (Path, Fragment): its %XX decoded. */
export const decodeGo = (s) => unescape(s);
