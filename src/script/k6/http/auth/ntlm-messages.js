// NTLM's messages (MS-NLMP), as k6's go-ntlmssp writes and reads them: the negotiate message
// (type 1) it sends first, the server's challenge (type 2), and the authenticate message (type 3)
// whose NTLMv2 response answers it. NTLMv2 only, Unicode only, no key exchange: what
// go-ntlmssp refuses is refused here (null), and k6 then gives the server's first 401.

import { md4 } from '../../crypto/md4.js';

const SIGNATURE = [0x4e, 0x54, 0x4c, 0x4d, 0x53, 0x53, 0x50, 0]; // 'NTLMSSP\0'
const UNICODE = 0x1;
const LM_KEY = 0x80;
const VERSION = 0x2000000;
const KEY_EXCH = 0x40000000;
// What go-ntlmssp asks for: target info, 56 and 128 bits, Unicode, extended session security,
// NTLM, always sign.
const NEGOTIATE_FLAGS = 0x00800000 | 0x80000000 | 0x20000000 | UNICODE | 0x00080000 | 0x00000200 | 0x00008000;
const AV_EOL = 0;
const AV_TIMESTAMP = 7;
// Between 1601 (Windows' FILETIME) and 1970, in 100 ns.
const FILETIME_1970 = 116444736000000000n;

const utf16 = (text) => {
  const out = new Uint8Array(text.length * 2);
  for (let i = 0; i < text.length; i++) {
    out[i * 2] = text.charCodeAt(i) & 0xff;
    out[i * 2 + 1] = text.charCodeAt(i) >> 8;
  }
  return out;
};

const concat = (...parts) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};

// Go's strings.ToUpper: a character whose upper case is more than one (ß) stays as it is.
const goUpper = (text) => Array.from(text, (c) => (c.toUpperCase().length === c.length ? c.toUpperCase() : c)).join('');

/** The negotiate message go-ntlmssp sends: no domain, no workstation, its version (6.1.7601, 15). */
export function negotiateMessage() {
  const msg = new Uint8Array(40);
  const view = new DataView(msg.buffer);
  msg.set(SIGNATURE);
  view.setUint32(8, 1, true);
  view.setUint32(12, NEGOTIATE_FLAGS >>> 0, true);
  view.setUint32(20, 40, true); // domain: empty, at the end
  view.setUint32(28, 40, true); // workstation: the same
  msg.set([6, 1, 7601 & 0xff, 7601 >> 8, 0, 0, 0, 15], 32);
  return msg;
}

// A field's bytes (its length, and its offset 4 bytes on), or null if it goes past the message.
function fieldOf(msg, view, at) {
  const length = view.getUint16(at, true);
  const offset = view.getUint32(at + 4, true);
  return offset + length > msg.length ? null : msg.subarray(offset, offset + length);
}

/** The challenge message's parts, or null when go-ntlmssp would not read it. */
export function readChallenge(msg) {
  if (msg.length < 48 || SIGNATURE.some((b, i) => msg[i] !== b)) return null;
  const view = new DataView(msg.buffer, msg.byteOffset, msg.byteLength);
  if (view.getUint32(8, true) !== 2) return null;
  const flags = view.getUint32(20, true);
  if (view.getUint16(12, true) > 0) {
    const name = fieldOf(msg, view, 12);
    if (name === null || ((flags & UNICODE) !== 0 && name.length % 2 !== 0)) return null;
  }
  let info = null;
  let timestamp = null;
  if (view.getUint16(40, true) > 0) {
    info = fieldOf(msg, view, 40);
    if (info === null) return null;
    timestamp = avTimestamp(info);
    if (timestamp === undefined) return null;
  }
  return { flags, challenge: msg.subarray(24, 32), info, timestamp };
}

// The target info's timestamp (null: none), undefined when its pairs do not end in MsvAvEOL
// within it (as go-ntlmssp reads them: an empty value at its very end does not read either).
function avTimestamp(info) {
  const view = new DataView(info.buffer, info.byteOffset, info.byteLength);
  let timestamp = null;
  for (let at = 0; ; ) {
    if (at + 2 > info.length) return undefined;
    const id = view.getUint16(at, true);
    if (id === AV_EOL) return timestamp;
    if (at + 4 > info.length) return undefined;
    const length = view.getUint16(at + 2, true);
    at += 4;
    if (at >= info.length || at + length > info.length) return undefined;
    if (id === AV_TIMESTAMP) timestamp = info.subarray(at, at + length);
    at += length;
  }
}

/**
 * The authenticate message answering `challenge` (readChallenge's) for `username` ('DOMAIN\user',
 * or a name alone) and `password`, or null where go-ntlmssp gives up. `facilities`: the runtime's
 * hmac() and randomBytes() (MD4 is ours: md4.js).
 */
export function authenticateMessage(challenge, username, password, facilities) {
  if (username === '' && password === '') return null; // anonymous: go-ntlmssp does not
  const { flags } = challenge;
  if ((flags & LM_KEY) !== 0 || (flags & KEY_EXCH) !== 0 || (flags & UNICODE) === 0) return null;
  const slash = username.indexOf('\\');
  const user = slash < 0 ? username : username.slice(slash + 1);
  const domain = slash < 0 ? '' : username.slice(0, slash);
  const hmacMd5 = (key, ...parts) => facilities.hmac('md5', key, parts);
  const v2Hash = hmacMd5(md4(utf16(password)), utf16(goUpper(user) + domain));
  const clientChallenge = facilities.randomBytes(8);
  const timestamp = challenge.timestamp || nowFiletime();
  const info = challenge.info || new Uint8Array(0);
  const blob = concat([1, 1, 0, 0, 0, 0, 0, 0], timestamp, clientChallenge, [0, 0, 0, 0], info, [0, 0, 0, 0]);
  const nt = concat(hmacMd5(v2Hash, challenge.challenge, blob), blob);
  const lm = challenge.info === null ? concat(hmacMd5(v2Hash, challenge.challenge, clientChallenge), clientChallenge) : new Uint8Array(0);
  return authenticateBytes(lm, nt, utf16(domain), utf16(user), (flags & ~VERSION) >>> 0);
}

// The message: its fixed part (64 bytes: the fields, 8 bytes of nothing, the flags), then the
// fields' bytes in their order (workstation: none).
function authenticateBytes(lm, nt, domain, user, flags) {
  const fields = [lm, nt, domain, user, new Uint8Array(0)];
  const head = new Uint8Array(64);
  const view = new DataView(head.buffer);
  head.set(SIGNATURE);
  view.setUint32(8, 3, true);
  let offset = 64;
  fields.forEach((f, i) => {
    view.setUint16(12 + i * 8, f.length, true);
    view.setUint16(14 + i * 8, f.length, true);
    view.setUint32(16 + i * 8, offset, true);
    offset += f.length;
  });
  view.setUint32(60, flags, true);
  return concat(head, ...fields);
}

function nowFiletime() {
  const out = new Uint8Array(8);
  const ticks = BigInt(Date.now()) * 10000n + FILETIME_1970;
  new DataView(out.buffer).setBigUint64(0, ticks, true);
  return out;
}
