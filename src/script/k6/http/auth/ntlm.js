// auth: 'ntlm' as k6 does it (go-ntlmssp's Negotiator around each request it sends): the request
// without credentials first, in case its connection is authenticated already; if the server
// answers 401 asking for NTLM (or Negotiate), the negotiate message, then, to its challenge, the
// authenticate message, with the request again each time. NTLM authenticates a connection, not
// a request: the two messages go on one connection, kept from the VU's other requests meanwhile
// (Pin), while the first request's stays busy, as Go's stays until the handshake ends (so, as
// in k6, a VU's first handshake opens a second connection). Each is a request of the run.

import { Pin } from '../../../net/client.js';
import { b64encode } from '../../encoding.js';
import { negotiateMessage, readChallenge, authenticateMessage } from './ntlm-messages.js';

/**
 * The call `ex`'s request (k6/http/http.js Exchange), with NTLM: a promise of the Response k6
 * gives. `send(ex, pin, authorization)` sends one request of it, on `pin`'s connection, with
 * that Authorization (null: none) in place of its own (with no pin: as it is), and resolves to
 * its Response.
 */
export async function withNtlm(ex, send) {
  const credentials = credentialsOf(ex.headers, ex.url);
  if (credentials === null) return send(ex, null, null);
  const first = new Pin();
  const original = await send(ex, first, null);
  const asked = original.status === 401 ? authHeader(original.headers['Www-Authenticate']) : null;
  if (asked === null || !asked.ntlm) {
    first.release();
    return original;
  }
  const second = new Pin();
  const challenged = await send(ex, second, `${asked.scheme} ${b64encode(negotiateMessage())}`);
  if (challenged.status !== 401) {
    first.release();
    second.release();
    // A request that failed ends the handshake with the first answer, as Go's error does.
    return challenged.status === 0 ? original : challenged;
  }
  // Connections are freed in Go's order, the VU's next request taking the last freed: here the
  // challenge's (Go drained it) before the first's; after a handshake, the authenticated one.
  const answer = authenticateFor(challenged, credentials, ex.vu.shared.facilities);
  if (answer === null) {
    second.release();
    first.release();
    return original;
  }
  first.release();
  second.last();
  const answered = await send(ex, second, answer);
  return answered.status === 0 ? original : answered;
}

// The Authorization answering the challenge of `response`, or null where go-ntlmssp gives up.
function authenticateFor(response, { user, password }, facilities) {
  const asked = authHeader(response.headers['Www-Authenticate']);
  if (asked === null || !asked.ntlm) return null;
  const token = strictBase64(asked.data);
  const challenge = token === null || token.length === 0 ? null : readChallenge(token);
  const message = challenge === null ? null : authenticateMessage(challenge, user, password, facilities);
  return message === null ? null : `${asked.scheme} ${b64encode(message)}`;
}

// The credentials Go's req.BasicAuth() reads: those of a Basic Authorization the script gives,
// else the URL's (Go's client makes that header of them when the script gives none).
function credentialsOf(headers, url) {
  for (const k in headers) {
    if (k.toLowerCase() !== 'authorization' || headers[k] === '') continue;
    const m = /^basic (.*)$/is.exec(headers[k]);
    const text = m === null ? null : strictBase64(m[1]);
    if (text === null) return null;
    const decoded = new TextDecoder().decode(text);
    const colon = decoded.indexOf(':');
    return colon < 0 ? null : { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
  }
  if (!url.username && !url.password) return null;
  return { user: decodeURIComponent(url.username), password: decodeURIComponent(url.password) };
}

// The WWW-Authenticate value go-ntlmssp takes (NTLM before Negotiate before Basic; its scheme
// and the rest after a space), or null. The Response joins several with ', ', where Go keeps
// each apart: split again (a token is base64, with no comma), a single one that lists
// schemes would read as several here.
function authHeader(joined) {
  if (joined === undefined) return null;
  let best = null;
  let rank = 3;
  for (const value of joined.split(', ')) {
    const i = ['NTLM', 'Negotiate', 'Basic'].findIndex((s) => value === s || value.startsWith(`${s} `));
    if (i >= 0 && i < rank) {
      rank = i;
      best = value;
    }
  }
  if (best === null) return null;
  const space = best.indexOf(' ');
  const scheme = space < 0 ? best : best.slice(0, space);
  return { scheme, data: space < 0 ? '' : best.slice(space + 1), ntlm: scheme !== 'Basic' };
}

// Go's base64.StdEncoding: padded, nothing else in it (but line breaks); null if not.
function strictBase64(text) {
  const s = text.replace(/[\r\n]/g, '');
  if (s.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(s)) return null;
  const bin = atob(s);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}
