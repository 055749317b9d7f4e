// A request's URL: the script's text parsed once (parsedURL), and what a request reads of the
// URL object, once (infoOf).

import { goURLString, maskedURL, bareURL } from './go-url.js';
import { goVerdict } from './go-url-parse.js';

// A script asks for the same few URLs again and again: each string is parsed once (a URL is
// never changed here; a redirect's target is a new one).
const URLS = new Map();

// In front of the map, a table of the URLs seen last by a hash of a few of their characters: a
// URL made by a template literal each time (`${BASE}/items/${id}`) is a new string, which the
// map must hash whole (and flatten first) at every request; here it is compared once, to the
// string its slot holds (node 137 -> 61 ns a look-up, deno 97 -> 55, bun 50 -> 45).
const RECENT = new Array(1024).fill(null);

function recentSlot(text) {
  const n = text.length;
  if (n < 4) return n;
  return (n * 7919 + text.charCodeAt(n - 1) * 131 + text.charCodeAt(n - 2) * 1031 + text.charCodeAt(n - 3) * 17 + text.charCodeAt(n - 4) * 3 + text.charCodeAt(n >> 1) * 29 + text.charCodeAt((n * 3) >> 2) * 61) & 1023;
}

export function parsedURL(text) {
  const slot = recentSlot(text);
  const recent = RECENT[slot];
  if (recent !== null && recent.text === text) return recent.url;
  return parseNew(text, slot);
}

// A URL not among the recent ones: from the map, or parsed.
function parseNew(text, slot) {
  let url = URLS.get(text);
  if (url !== undefined) {
    RECENT[slot] = { text, url };
    return url;
  }
  const verdict = goVerdict(text);
  if (verdict !== null) {
    if (verdict.parseError !== undefined) throw new Error(verdict.parseError);
    url = unsendableURL(text, verdict.shown, verdict.unsendable);
  } else {
    try {
      url = new URL(text);
    } catch {
      // A host Go takes and a WHATWG URL does not ('http://a<b/'): Go's resolver finds no such
      // host.
      url = unsendableURL(text, text, 'ENOTFOUND');
    }
  }
  if (verdict === null) SOURCES.set(url, text);
  if (URLS.size >= 10000) URLS.clear();
  URLS.set(text, url);
  RECENT[slot] = { text, url };
  return url;
}

/** A URL Go parses but cannot send: a stand-in with what a failed request reads of it. */
// `href` is the text, as res.url shows it; `shown`, Go's String(), as the url tag does.
function unsendableURL(text, shown, reason) {
  return { href: text, shown, origin: 'null', host: '', hostname: '', port: '', protocol: '', pathname: '', search: '', username: '', password: '', [UNSENDABLE]: reason };
}

/** Why a URL parsedURL() gave cannot be sent (Go's words), or undefined. */
export const unsendableReason = (url) => url[UNSENDABLE];
const UNSENDABLE = Symbol('loadtest.unsendable');

// What a request reads of its URL, read once per URL object: each of node's URL getters makes
// a string anew. `plain`: the bytes of a request without a body, headers of the script's,
// cookies or credentials, by method; `kept`: those of one with headers or a body (its head), by
// method and headers (request-bytes.js): the same for every VU and every time (Host and
// User-Agent come from the URL and the options).
// `href` and `shown`: the URL as k6 shows it, from the text the script gave (go-url.js); a
// redirect's target, which has none, as its href; `bare`: without credentials, as digest auth's.
// `lastTags`: where a request's tags are read (--out), the entry of the tag set its last request
// had (k6/http/http.js requestTags(), src/script/metrics/tag-sets.js).
// Kept on the URL object itself, under a symbol: a property read, where a WeakMap's look-up was
// a hash a request. The URL objects are ours alone (a script's URL object is read as its text).
const INFO = Symbol('loadtest.urlInfo');
const SOURCES = new WeakMap(); // a URL parsedURL() made → its text

export function infoOf(url) {
  let i = url[INFO];
  if (i === undefined) {
    const source = SOURCES.get(url);
    const href = (source !== undefined && goURLString(source)) || url.href;
    i = { href, origin: url.origin, path: url.pathname + url.search, auth: Boolean(url.username || url.password), https: url.protocol === 'https:', shown: maskedURL(url.shown ?? href), bare: bareURL(href), plain: null, kept: null, lastTags: null };
    url[INFO] = i;
  }
  return i;
}

/** http.url`http://host/${id}`: the URL, with the template as its name tag. */
export function taggedURL(strings, ...values) {
  let url = '';
  let name = '';
  strings.forEach((s, i) => {
    url += s + (i < values.length ? values[i] : '');
    name += s + (i < values.length ? '${}' : '');
  });
  return new TaggedURL(url, name);
}

// http.url's value, k6's URL: its JSON its name, url and clean_url (the URL with its
// credentials masked, and the name when the template has no value in it).
export class TaggedURL {
  constructor(url, name) {
    this.name = name;
    this.url = url;
    this.clean_url = maskedURL(url);
    if (url === name) this.name = this.clean_url;
  }
}
