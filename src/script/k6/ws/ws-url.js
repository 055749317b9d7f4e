// A WebSocket URL as k6 v2.2 reads it before it dials: Go's url.Parse (go-url-parse.js), then
// the checks of k6/websockets' constructor, or of gorilla's Dialer under k6/ws. WHATWG's URL
// parser takes and refuses other texts, so these come first and in Go's words.

import { goParse, goQuote } from '../http/url/go-url-parse.js';

// gorilla's error for a scheme other than ws or wss, or a URL with a user.
const MALFORMED = 'malformed ws or wss URL';

/**
 * Why gorilla's Dialer (and k6's dialer behind it) cannot connect to `text`, in Go's words, or
 * null: k6/ws returns it as the result's error, k6/websockets as its error event.
 */
export function dialFailure(text) {
  const u = goParse(text);
  if (typeof u === 'string') return u;
  if ((u.scheme !== 'ws' && u.scheme !== 'wss') || u.authority?.includes('@')) return MALFORMED;
  // k6's dialer looks the empty name up.
  if (u.host.replace(/:[0-9]*$/, '') === '') return 'lookup : no such host';
  return null;
}

/** What k6/websockets' constructor throws for `url` (a GoError's message), or null. */
export function constructorError(url) {
  if (url === undefined || url === null) return 'WebSocket requires a url';
  const text = String(url);
  const u = goParse(text);
  if (typeof u === 'string') return `WebSocket requires valid url, but got ${goQuote(text)} which resulted in ${u}`;
  if (u.scheme !== 'ws' && u.scheme !== 'wss') return `WebSocket requires url with scheme ws or wss, but got ${goQuote(u.scheme)}`;
  if (u.fragment) return `WebSocket requires no url fragment, but got ${goQuote(unescaped(u.fragment))}`;
  return null;
}

// Go keeps a fragment unescaped (its escapes were checked by the parse).
function unescaped(s) {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
