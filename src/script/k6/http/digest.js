// auth: 'digest' (RFC 7616), as k6's digest library answers a challenge: its parts read from
// WWW-Authenticate, and the Authorization that answers it.

/** A Digest challenge's fields, or null when the header is none. */
export function digestChallenge(header) {
  if (typeof header !== 'string' || !/^\s*Digest\s/i.test(header)) return null;
  const fields = {};
  for (const m of header.replace(/^\s*Digest\s+/i, '').matchAll(/([\w-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^,\s]*))/g)) fields[m[1].toLowerCase()] = m[2] !== undefined ? m[2].replace(/\\(.)/g, '$1') : m[3];
  return fields.nonce === undefined ? null : { realm: fields.realm || '', nonce: fields.nonce, qop: fields.qop, opaque: fields.opaque, algorithm: fields.algorithm, stale: fields.stale };
}

/**
 * The Authorization answering `challenge` for `method` on `url` (its credentials), `hash(alg,
 * [text])` the runtime's digest of a text (bytes).
 */
export function digestAuthorization(challenge, method, url, hash) {
  const alg = /^SHA-256/i.test(challenge.algorithm || '') ? 'sha256' : 'md5';
  const hex = (s) => Array.from(hash(alg, [s]), (b) => b.toString(16).padStart(2, '0')).join('');
  const user = decodeURIComponent(url.username);
  const cnonce = hex(String(Math.random()));
  const nc = '00000001';
  const uri = url.pathname + url.search;
  let ha1 = hex(`${user}:${challenge.realm}:${decodeURIComponent(url.password)}`);
  if (/-sess$/i.test(challenge.algorithm || '')) ha1 = hex(`${ha1}:${challenge.nonce}:${cnonce}`);
  const ha2 = hex(`${method}:${uri}`);
  const qop = challenge.qop === undefined ? null : challenge.qop.split(',').map((q) => q.trim()).includes('auth') ? 'auth' : null;
  const response = qop ? hex(`${ha1}:${challenge.nonce}:${nc}:${cnonce}:${qop}:${ha2}`) : hex(`${ha1}:${challenge.nonce}:${ha2}`);
  let value = `Digest username="${user}", realm="${challenge.realm}", nonce="${challenge.nonce}", uri="${uri}", response="${response}"`;
  // As k6's digest library: the algorithm in quotes, the challenge's stale said again.
  if (challenge.algorithm) value += `, algorithm="${challenge.algorithm}"`;
  if (challenge.opaque !== undefined) value += `, opaque="${challenge.opaque}"`;
  if (challenge.stale !== undefined) value += `, stale="${challenge.stale}"`;
  if (qop) value += `, qop=${qop}, nc=${nc}, cnonce="${cnonce}"`;
  return value;
}
