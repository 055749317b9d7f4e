// k6/websockets (k6 v1.6's name; k6/experimental/websockets before, deprecated since): the
// browser's WebSocket, on the same session as k6/ws (src/script/k6/ws/ws.js). The constructor
// returns at once; the iteration ends after the socket has closed (the VU's event loop:
// src/script/eventloop/event-loop.js).

import { Session } from './ws.js';
import { constructorError } from './ws-url.js';
import { thrownGoError } from '../host-error.js';
import { goType } from '../http/go-value.js';
import { logEntry } from '../console.js';

const CONNECTING = 0;
const OPEN = 1;
const CLOSING = 2;
const CLOSED = 3;

const encoder = new TextEncoder();
const HANDLERS = ['onmessage', 'onerror', 'onopen', 'onclose', 'onping', 'onpong'];
const BINARY_TYPES = ['blob', 'arraybuffer'];

// k6 v2.2's line, logged once a run when a script imports the old name (k6: once a process).
const DEPRECATED = 'k6/experimental/websockets is deprecated and will be removed in a future release. Please use k6/websockets instead.';

const warned = new WeakSet(); // the runs (their shared state) told

/** k6/experimental/websockets: k6/websockets, with k6's deprecation warning (its log line). */
export function experimentalWebsocketsModule(vu) {
  if (!warned.has(vu.shared)) globalThis.console.error(logEntry('warning', DEPRECATED, []));
  warned.add(vu.shared);
  return websocketsModule(vu);
}

class VUWebSocket {
  #vu;
  #binaryType = 'blob';
  #handlers = {};
  #listeners = new Map();
  #session;
  #socket = null;
  // close() before the connection opened: sent once it has, as k6 (no open event then).
  #pendingClose = null;
  #sentCode = 0; // the code of the close frame sent, the close event's unless one comes back

  constructor(vu, url, protocols, params) {
    this.#vu = vu;
    const invalid = constructorError(url);
    if (invalid !== null) throw thrownGoError(invalid);
    checkParams(params);
    vu.assertCanRequest();
    this.url = String(url);
    this.readyState = CONNECTING;
    this.bufferedAmount = 0;
    this.protocol = '';
    this.extensions = [];
    const headers = { ...(params?.headers || {}) };
    if (protocols !== undefined && protocols !== null) headers['Sec-WebSocket-Protocol'] = [].concat(protocols).join(', ');
    const session = (this.#session = new Session(vu, this.url, { ...params, headers }, (socket) => this.#relay(socket), true));
    vu.loop.track(
      session.run().then(() => {
        // Never opened: k6's error event says why in Go's words (the dial's, or 'websocket:
        // bad handshake' for an upgrade refused), then the close event, with no code.
        if (session.failure !== null && this.#socket === null) {
          this.readyState = CLOSED;
          this.#dispatch('error', { error: session.failure });
          this.#dispatch('close', { reason: '' });
        }
      }),
      true,
    );
  }

  // The on-handlers (onopen...): a function, or null to unset; anything else is refused, as k6.
  static {
    for (const name of HANDLERS) {
      Object.defineProperty(this.prototype, name, {
        get() {
          return this.#handlers[name.slice(2)] ?? null;
        },
        set(fn) {
          if (fn !== undefined && fn !== null && typeof fn !== 'function') throw thrownGoError(`a value for '${name}' should be callable`);
          this.#handlers[name.slice(2)] = fn ?? null;
        },
      });
    }
  }

  get binaryType() {
    return this.#binaryType;
  }

  set binaryType(value) {
    const s = String(value);
    if (!BINARY_TYPES.includes(s)) throw thrownGoError(`unknown binaryType ${s}, the supported ones are "blob" and "arraybuffer"`);
    this.#binaryType = s;
  }

  addEventListener(type, fn) {
    if (!this.#listeners.has(type)) this.#listeners.set(type, []);
    this.#listeners.get(type).push(fn);
  }

  // k6's event: its type, target and time (milliseconds since the epoch, with a fraction).
  #dispatch(type, fields) {
    const event = { type, target: this, timestamp: performance.timeOrigin + performance.now(), ...fields };
    const own = this.#handlers[type];
    if (own) this.#vu.loop.call(own.bind(this), [event]);
    for (const fn of this.#listeners.get(type) || []) this.#vu.loop.call(fn, [event]);
  }

  send(data) {
    if (this.readyState !== OPEN) throw thrownGoError('InvalidStateError');
    const bytes = typeof data === 'string' ? encoder.encode(data) : bytesOf(data);
    if (typeof data === 'string') this.#socket.send(data);
    else this.#socket.sendBinary(bytes);
    // As k6 v2: the bytes count until the connection has taken them, which k6's writer tells
    // the event loop after the script's code returns. The runtimes' sockets take a write at
    // once (queueing what the kernel does not take yet) and tell nothing more: so here the
    // count falls as the code that sent them returns (a microtask), before any answer is read.
    this.bufferedAmount += bytes.length;
    queueMicrotask(() => (this.bufferedAmount -= bytes.length));
  }

  // As k6's: a ping and a close are messages sent too.
  ping() {
    if (this.readyState !== OPEN) throw thrownGoError('InvalidStateError');
    this.#socket.ping();
    this.#session.emit('ws_msgs_sent', 'counter', 1);
  }

  close(code, reason) {
    if (this.readyState === CLOSING || this.readyState === CLOSED) return;
    const [c, r] = checkedClose(code, reason);
    this.readyState = CLOSING;
    this.#sentCode = c;
    if (this.#socket === null) this.#pendingClose = [c, r];
    else this.#startClose(c, r);
  }

  // Unlike k6/ws's, the browser's close ends with the server's close frame.
  #startClose(code, reason) {
    this.#session.startClose(code, reason);
    this.#session.emit('ws_msgs_sent', 'counter', 1);
  }

  /** The k6/ws socket's events as the WebSocket's: its readyState, then its event. */
  #relay(socket) {
    const session = this.#session;
    this.#socket = socket;
    socket.on('open', () => {
      this.protocol = session.response.headers['Sec-Websocket-Protocol'] || '';
      if (this.#pendingClose !== null) return this.#startClose(...this.#pendingClose);
      this.readyState = OPEN;
      this.#dispatch('open', {});
    });
    socket.on('message', (data) => this.#dispatch('message', { data, origin: this.url }));
    socket.on('binaryMessage', (data) => this.#dispatch('message', { data: this.#binaryType === 'arraybuffer' ? data : new Blob([data]), origin: this.url }));
    socket.on('ping', () => this.#dispatch('ping', {}));
    socket.on('pong', () => this.#dispatch('pong', {}));
    socket.on('error', (e) => {
      // k6's error events come as the connection ends: closed already for the listeners.
      this.readyState = CLOSED;
      this.#dispatch('error', { error: e.error() });
    });
    socket.on('close', () => {
      this.readyState = CLOSED;
      this.#dispatch('close', this.#closeFields());
    });
  }

  // As k6 v2: the close frame's code and reason that came back (1005 for none); for a
  // connection ended without one, gorilla's 1006 'unexpected EOF'; for one reset, the code of
  // the close the script sent (no code when it sent none), as k6 reads no close from a reset.
  #closeFields() {
    const s = this.#session;
    if (s.peerClosed) return { code: s.closeCode, reason: s.closeText };
    if (!s.reset) return { code: 1006, reason: 'unexpected EOF' };
    return this.#sentCode === 0 ? { reason: '' } : { code: this.#sentCode, reason: '' };
  }
}

// A VU's WebSocket: k6/websockets' class, made for the VU (the script calls new WebSocket(url)).
export function websocketsModule(vu) {
  const WebSocket = class WebSocket extends VUWebSocket {
    constructor(url, protocols, params) {
      super(vu, url, protocols, params);
    }
  };
  // k6's WebSocket has no CONNECTING, OPEN... (WebSocket.OPEN is undefined there too).
  const api = { WebSocket };
  return { default: api, ...api };
}

/**
 * The constructor's params as k6 checks them: headers, tags (of strings, numbers and booleans),
 * jar; k6's error for another. Compression ('deflate', the one k6 has) is refused: not made
 * here, and a session run uncompressed would measure something else.
 */
function checkParams(params) {
  for (const [k, v] of Object.entries(params ?? {})) {
    if (k === 'compression') {
      const algorithm = String(v).trim();
      if (algorithm !== 'deflate') throw thrownGoError(`unsupported compression algorithm '${algorithm}', supported algorithm is 'deflate'`);
      throw thrownGoError("WebSocket compression 'deflate' is not supported here (doc/scripts-modules.md)");
    }
    if (k === 'tags') {
      for (const [t, value] of Object.entries(v ?? {})) {
        if (!['string', 'number', 'boolean'].includes(typeof value)) throw thrownGoError(`invalid WebSocket tags option: invalid value for metric tag '${t}': only String, Boolean and Number types are accepted as a metric tag values`);
      }
    } else if (k !== 'headers' && k !== 'jar') throw thrownGoError(`unknown WebSocket's option ${k}`);
  }
}

/** The bytes `send` writes of what is not a string, as k6 takes them; else k6's error. */
function bytesOf(data) {
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  // k6's engine hands a DataView over as an object: refused, where a typed array is sent.
  if (ArrayBuffer.isView(data) && !(data instanceof DataView)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  throw thrownGoError(`unsupported send type ${goType(data)}`);
}

/**
 * close()'s code and reason as k6 v2 takes them (its engine's int and string: a fraction cut,
 * what is not a number 0, null and undefined ''), checked as the WebSocket standard says, with
 * k6's errors. 0 is 1000.
 */
function checkedClose(code, reason) {
  const n = Math.trunc(Number(code ?? 0)) || 0;
  if (n !== 0 && n !== 1000 && (n < 3000 || n > 4999)) {
    throw thrownGoError(`InvalidAccessError: Failed to execute 'close' on 'WebSocket': The close code must be either 1000, or between 3000 and 4999. ${n} is neither`);
  }
  const text = reason === undefined || reason === null ? '' : String(reason);
  if (encoder.encode(text).length > 123) throw thrownGoError("SyntaxError: Failed to execute 'close' on 'WebSocket': The message must not be greater than 123 bytes");
  return [n || 1000, text];
}
