// An NTLM server for the tests (as IIS answers): a request without NTLM is a 401 that asks for
// it; a negotiate message (type 1) gets a challenge (type 2) for its connection; an authenticate
// message (type 3) whose NTLMv2 response proves the user's password makes the connection
// authenticated, and its later requests are answered without asking again (but under /each/). It counts
// connections and requests (rawServer's) and what it saw (`seen`: the messages' types in order).
// Under /v1/ its challenge asks for the LM key (NTLMv1), which go-ntlmssp does not answer.
// Run alone (`node test/ntlm-server.js`), it prints its port, for k6 beside it.

import { createHmac, randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { rawServer } from './servers.js';
import { md4 } from '../src/script/k6/crypto/md4.js';

const SIGNATURE = Buffer.from('NTLMSSP\0', 'latin1');
const FLAGS = (0x00000001 | 0x00000004 | 0x00000200 | 0x00010000 | 0x00080000 | 0x00800000 | 0x20000000 | 0x80000000) >>> 0;

const LM_KEY = 0x80;

const utf16 = (text) => Buffer.from(text, 'utf16le');
const hmacMd5 = (key, ...parts) => parts.reduce((h, p) => h.update(p), createHmac('md5', key)).digest();

/** The NTLMv2 hash of a user (MS-NLMP 3.3.2: NTOWFv2): its password's MD4, then HMAC-MD5. */
export const ntlmV2Hash = (password, user, domain) => hmacMd5(Buffer.from(md4(utf16(password))), utf16(user.toUpperCase() + domain));

// A message's field (length, max length, offset) as its bytes.
const field = (msg, at) => msg.subarray(msg.readUInt32LE(at + 4), msg.readUInt32LE(at + 4) + msg.readUInt16LE(at));

/** The message of an `Authorization: NTLM ...` header, or null. */
function messageOf(header) {
  const m = /^(NTLM|Negotiate) (\S+)$/.exec(header || '');
  if (m === null) return null;
  const msg = Buffer.from(m[2], 'base64');
  return msg.length >= 12 && msg.subarray(0, 8).equals(SIGNATURE) ? { scheme: m[1], type: msg.readUInt32LE(8), msg } : null;
}

// The challenge message (type 2) with `challenge` and a target info that names the domain.
function challengeMessage(challenge, domain, flags = FLAGS) {
  const name = utf16(domain);
  const av = (id, value) => Buffer.concat([Buffer.from([id, 0, value.length & 0xff, value.length >> 8]), value]);
  const info = Buffer.concat([av(2, name), av(1, utf16('SERVER')), av(0, Buffer.alloc(0))]);
  const head = Buffer.alloc(56);
  SIGNATURE.copy(head);
  head.writeUInt32LE(2, 8);
  head.writeUInt16LE(name.length, 12);
  head.writeUInt16LE(name.length, 14);
  head.writeUInt32LE(56, 16);
  head.writeUInt32LE(flags, 20);
  challenge.copy(head, 24);
  head.writeUInt16LE(info.length, 40);
  head.writeUInt16LE(info.length, 42);
  head.writeUInt32LE(56 + name.length, 44);
  return Buffer.concat([head, name, info]);
}

/** Whether the authenticate message `msg` proves `users`' password for `challenge`; its user. */
export function verify(msg, challenge, users) {
  const nt = field(msg, 20);
  const domain = field(msg, 28).toString('utf16le');
  const user = field(msg, 36).toString('utf16le');
  // A name as user@domain (UPN) comes without a domain of its own.
  const password = users[(domain === '' ? user.replace(/@.*/, '') : user).toLowerCase()];
  if (password === undefined || nt.length < 32 || nt[16] !== 1 || nt[17] !== 1) return { ok: false, user, domain };
  const proof = hmacMd5(ntlmV2Hash(password, user, domain), challenge, nt.subarray(16));
  return { ok: proof.equals(nt.subarray(0, 16)), user, domain };
}

const reply = (status, headers, body = '') => `HTTP/1.1 ${status} ${status === 200 ? 'OK' : 'Unauthorized'}\r\n${headers.map((h) => `${h}\r\n`).join('')}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;

/**
 * Starts the server on 127.0.0.1, port 0: `users` maps a user's name (lower case) to its
 * password; `domain` is the one its challenge names. Resolves to rawServer's state with `seen`
 * (each request's message type, 0 for none), `users` (who authenticated, as 'domain\\user')
 * and `negotiates` (the negotiate messages, base64).
 */
export async function startNtlmServer({ users = { alice: 'Secret-1' }, domain = 'TESTDOM' } = {}) {
  const connections = new WeakMap(); // socket: { challenge, user }
  const server = await rawServer(({ socket }, request) => {
    const state = connections.get(socket) || { challenge: null, user: null };
    connections.set(socket, state);
    const m = messageOf(request.headers.authorization);
    server.seen.push(m === null ? 0 : m.type);
    if (m !== null && m.type === 1) server.negotiates.add(m.msg.toString('base64'));
    const asked = ['WWW-Authenticate: NTLM', 'WWW-Authenticate: Negotiate'];
    // Under /each/ a connection's earlier authentication counts for nothing (IIS's
    // authPersistSingleRequest): every request must authenticate.
    if (m === null) {
      socket.write(state.user !== null && !request.path.startsWith('/each/') ? reply(200, [], `hello ${state.user}`) : reply(401, asked, 'who are you?'));
    } else if (m.type === 1) {
      state.challenge = randomBytes(8);
      const flags = request.path.startsWith('/v1/') ? (FLAGS | LM_KEY) >>> 0 : FLAGS;
      socket.write(reply(401, [`WWW-Authenticate: ${m.scheme} ${challengeMessage(state.challenge, domain, flags).toString('base64')}`]));
    } else if (m.type === 3 && state.challenge !== null) {
      const { ok, user, domain: theirs } = verify(m.msg, state.challenge, users);
      state.challenge = null;
      if (ok) {
        state.user = `${theirs}\\${user}`;
        server.users.push(state.user);
      }
      socket.write(ok ? reply(200, [], `hello ${state.user}`) : reply(401, asked, 'wrong password'));
    } else socket.write(reply(401, asked, 'out of turn'));
  });
  server.seen = [];
  server.negotiates = new Set();
  server.users = [];
  return server;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const server = await startNtlmServer();
  console.log(server.port);
  process.on('SIGTERM', () => {
    console.error(JSON.stringify({ connections: server.connections, requests: server.requests, seen: server.seen, users: server.users, negotiates: [...server.negotiates] }));
    process.exit(0);
  });
}
