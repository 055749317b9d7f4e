// k6's cookie jar: one per VU (emptied at each iteration, as k6 does), or made by the script with
// new http.CookieJar(). Cookies are kept by domain and path (RFC 6265 5.1.3 and 5.1.4 matching),
// set from Set-Cookie or with set(), and sent in one Cookie header.

import { GO_LOG } from '../console.js';

export class CookieJar {
  constructor() {
    this.cookies = []; // { name, value, domain, hostOnly, path, expires, secure }
    this.handedOut = false; // a VU's jar given to the script (http.cookieJar())
  }

  /** Set-Cookie's value, from a response to `url` (a URL). */
  setFromHeader(url, line) {
    const parts = line.split(';');
    const pair = setCookiePair(parts[0]);
    if (pair === null) return;
    const c = { name: pair.name, value: pair.value, domain: url.hostname, hostOnly: true, path: defaultPath(url), expires: Infinity, secure: false };
    for (const attr of parts.slice(1)) {
      const i = attr.indexOf('=');
      const key = (i < 0 ? attr : attr.slice(0, i)).trim().toLowerCase();
      const value = i < 0 ? '' : attr.slice(i + 1).trim();
      if (key === 'domain' && value) {
        c.domain = value.replace(/^\./, '').toLowerCase();
        c.hostOnly = false;
      } else if (key === 'path' && value.startsWith('/')) c.path = value;
      else if (key === 'max-age' && /^-?\d+$/.test(value)) c.expires = Date.now() + Number(value) * 1000;
      else if (key === 'expires' && c.expires === Infinity) {
        const t = Date.parse(value);
        if (!Number.isNaN(t)) c.expires = t;
      } else if (key === 'secure') c.secure = true;
    }
    this.store(c);
  }

  // A cookie set again keeps its place: the order they were first set in is the order they are
  // sent in, after the longer paths (RFC 6265 5.4, as Go's jar sorts them for k6).
  store(c) {
    const at = this.cookies.findIndex((x) => x.name === c.name && x.domain === c.domain && x.path === c.path);
    const live = c.expires > Date.now();
    if (at >= 0 && live) this.cookies[at] = c;
    else if (at >= 0) this.cookies.splice(at, 1);
    else if (live) this.cookies.push(c);
  }

  /** jar.set(url, name, value, { domain, path, expires, max_age, secure }). */
  set(url, name, value, opts = {}) {
    const u = new URL(url);
    const c = { name: String(name), value: String(value), domain: u.hostname, hostOnly: true, path: defaultPath(u), expires: Infinity, secure: Boolean(opts.secure) };
    if (opts.domain) {
      c.domain = String(opts.domain).replace(/^\./, '').toLowerCase();
      c.hostOnly = false;
      // As k6 (Go's cookie jar): a cookie for a domain the URL is not in is not kept, silently.
      if (!domainMatches(u.hostname, c.domain)) return;
    }
    if (opts.path) c.path = String(opts.path);
    if (opts.max_age !== undefined) c.expires = Date.now() + Number(opts.max_age) * 1000;
    else if (opts.expires) c.expires = typeof opts.expires === 'number' ? opts.expires : Date.parse(opts.expires);
    this.store(c);
  }

  matching(url) {
    const u = typeof url === 'string' ? new URL(url) : url;
    const now = Date.now();
    this.cookies = this.cookies.filter((c) => c.expires > now);
    return this.cookies
      .filter((c) => (c.hostOnly ? c.domain === u.hostname : domainMatches(u.hostname, c.domain)) && pathMatches(u.pathname, c.path) && (!c.secure || u.protocol === 'https:' || secureOrigin(c.domain)))
      .sort((a, b) => b.path.length - a.path.length);
  }

  /** { name: [value, ...] } of the cookies a request to `url` sends. */
  cookiesForURL(url) {
    const out = {};
    for (const c of this.matching(url)) (out[c.name] = out[c.name] || []).push(c.value);
    return out;
  }

  /**
   * The Cookie header for `url` with a request's own cookies ({ name: value | { value, replace } }),
   * as k6 writes it: the request's own first, then the jar's but those it replaces. `console`:
   * the script's, where Go's warning of a byte a cookie may not hold goes.
   */
  cookieHeader(url, own, console) {
    if (this.cookies.length === 0 && !own) return ''; // the common case: nothing to send
    return this.headerFor(url, own, console && console[GO_LOG]);
  }

  headerFor(url, own, log) {
    const pairs = [];
    const replaced = new Set();
    if (own) {
      for (const [name, v] of Object.entries(own)) {
        const isObject = v !== null && typeof v === 'object';
        if (isObject && v.replace) replaced.add(name);
        pairs.push(cookiePair(name, String(isObject ? v.value : v), log));
      }
    }
    for (const c of this.matching(url)) if (!replaced.has(c.name)) pairs.push(cookiePair(c.name, c.value, log));
    return pairs.join('; ');
  }

  // clear(url) and delete(url, name) as k6 does them (Go's cookie jar): each name is set again
  // from `url`, expired, and so removed where a Set-Cookie from `url` would land: the URL's host
  // and its default path. A cookie kept for another path, which `url` also sends, stays.
  clear(url) {
    if (url === undefined) {
      this.cookies = [];
      return;
    }
    const u = new URL(url);
    this.expire(u, new Set(this.matching(u).map((c) => c.name)));
  }

  delete(url, name) {
    this.expire(new URL(url), new Set([String(name)]));
  }

  expire(u, names) {
    const path = defaultPath(u);
    this.cookies = this.cookies.filter((c) => !(names.has(c.name) && c.domain === u.hostname && c.path === path));
  }
}

function defaultPath(u) {
  const p = u.pathname;
  if (!p.startsWith('/') || p.lastIndexOf('/') === 0) return '/';
  return p.slice(0, p.lastIndexOf('/'));
}

const domainMatches = (host, domain) => host === domain || (host.endsWith('.' + domain) && !/^[\d.]+$/.test(host));

const pathMatches = (path, cookiePath) => path === cookiePath || (path.startsWith(cookiePath) && (cookiePath.endsWith('/') || path[cookiePath.length] === '/'));

// What a cookie's value may hold (Go's validCookieValueByte), byte by byte of its UTF-8: none but
// printable ASCII, and not `"`, `;` or `\`.
const validValueChar = (c) => c >= 0x20 && c < 0x7f && c !== 0x22 && c !== 0x3b && c !== 0x5c;
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * The name and value of a Set-Cookie line's first part as Go reads them (net/http's
 * readSetCookies, which k6's jar and res.cookies take): the value out of its double quotes;
 * null for a cookie Go drops, whose name is not a token or whose value holds a byte a cookie
 * may not.
 */
export function setCookiePair(first) {
  const text = first.trim();
  const eq = text.indexOf('=');
  if (eq < 0) return null;
  const name = text.slice(0, eq).trim();
  let value = text.slice(eq + 1);
  if (!TOKEN.test(name)) return null;
  if (value.length > 1 && value[0] === '"' && value[value.length - 1] === '"') value = value.slice(1, -1);
  for (let i = 0; i < value.length; i++) if (!validValueChar(value.charCodeAt(i))) return null;
  return { name, value };
}

// A cookie as Go's AddCookie writes it for k6: the name's CR and LF as '-'; the value without
// the bytes a cookie may not hold (Go's log says so, naming the first), and in double quotes if
// it holds a space or a comma.
function cookiePair(name, value, log) {
  let v = value;
  for (let i = 0; i < value.length; i++) {
    if (validValueChar(value.charCodeAt(i))) continue;
    if (log) log(`net/http: invalid byte ${goQuotedByte(new TextEncoder().encode(String.fromCodePoint(value.codePointAt(i)))[0])} in Cookie.Value; dropping invalid bytes`);
    v = [...value].filter((ch) => validValueChar(ch.charCodeAt(0))).join('');
    break;
  }
  if (/[ ,]/.test(v)) v = `"${v}"`;
  return `${name.replace(/[\r\n]/g, '-')}=${v}`;
}

// A byte as Go's %q writes it: a rune literal.
const ESCAPES = { 7: '\\a', 8: '\\b', 9: '\\t', 10: '\\n', 11: '\\v', 12: '\\f', 13: '\\r', 0x27: "\\'", 0x5c: '\\\\' };
function goQuotedByte(b) {
  if (ESCAPES[b]) return `'${ESCAPES[b]}'`;
  if (b < 0x20 || b === 0x7f) return `'\\x${b.toString(16).padStart(2, '0')}'`;
  if (b < 0x7f || (b > 0xa0 && b !== 0xad)) return `'${String.fromCharCode(b)}'`;
  return `'\\u${b.toString(16).padStart(4, '0')}'`;
}

/** The cookies of a Cookie header as Go's req.Cookies() reads them, for res.request.cookies. */
export function sentCookies(header) {
  const out = {};
  if (!header) return out;
  for (const part of header.split(';')) {
    const pair = setCookiePair(part);
    if (pair !== null) (out[pair.name] = out[pair.name] || []).push({ name: pair.name, value: pair.value, replace: false });
  }
  return out;
}

// Go 1.26's cookie jar (k6 v2.2's), as browsers: a cookie marked Secure goes over http to
// localhost (a name ending in that label) and to a loopback address.
function secureOrigin(domain) {
  const host = domain.replace(/\.$/, '');
  return host.slice(host.lastIndexOf('.') + 1).toLowerCase() === 'localhost' || /^127\.\d+\.\d+\.\d+$/.test(host) || host === '::1' || host === '[::1]';
}
