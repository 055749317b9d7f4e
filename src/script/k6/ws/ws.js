// src/script/k6/ws/: k6/ws and k6/experimental/websockets.
// k6/ws for one VU: ws.connect(url, params, callback) as k6 gives it. The connection is one of
// the runtime's sockets (src/socket.js) speaking loadtest's WebSocket protocol code
// (src/websocket/); the VU is suspended while its socket is open (the call returns a marked
// promise: src/script/eventloop/wait.js), as k6's VU blocks in connect() until the socket closes, and the
// callback's handlers run on the VU's event loop. k6's metrics: ws_sessions, ws_connecting,
// ws_session_duration, ws_msgs_sent, ws_msgs_received, ws_ping.

import { FrameParser } from '../../../websocket/frame-parser.js';
import { OP_BINARY, OP_CLOSE, OP_PING, OP_PONG, OP_TEXT, checkHandshake, closePayload, encodeFrame, handshakeRequest, handshakeTemplate, newKey, newMask } from '../../../websocket/protocol.js';
import { joinChunks } from '../../../http1/captured.js';
import { indexOfHeadEnd } from '../../../http1/proxy.js';
import { canonicalName } from '../http/http-response.js';
import { waiting } from '../../eventloop/wait.js';
import { goError } from '../http/http.js';
import { thrownGoError } from '../host-error.js';
import { BAD_HANDSHAKE, RefusedBody, abnormalClose, closeError } from './ws-failures.js';
import { dialFailure } from './ws-url.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();
// The handshake answer is a small head; more than this is not a WebSocket server.
const MAX_HEAD = 64 * 1024;

export function wsModule(vu) {
  const api = {
    connect(url, params, callback) {
      if (typeof params === 'function') [params, callback] = [{}, params];
      if (typeof callback !== 'function') throw new Error('ws.connect() takes a URL, params and a function');
      vu.assertCanRequest();
      const session = new Session(vu, String(url), params || {}, callback);
      // As k6 with the throw option: a connection that failed throws its error, no result.
      if (!vu.options.throw) return waiting(session.run());
      return waiting(session.run().then((response) => {
        if (session.failure !== null) throw thrownGoError(session.failure);
        return response;
      }));
    },
  };
  return { default: api, ...api };
}

export class Session {
  // browser: k6/experimental/websockets' session (src/script/k6/ws/websockets.js), whose samples
  // are named and whose failed connection has no session duration.
  constructor(vu, url, params, callback, browser = false) {
    this.vu = vu;
    this.browser = browser;
    this.url = url;
    this.params = params;
    this.callback = callback;
    this.handlers = new Map(); // event → [fn]
    this.timers = new Set(); // the socket's own setTimeout / setInterval handles
    this.socket = null;
    this.parser = new FrameParser(this, { masked: false, capture: true });
    this.mask = newMask();
    this.head = null; // the handshake answer's bytes so far
    this.done = null; // resolves run()
    this.cut = false; // dropped: the iteration was cut short
    this.open = false;
    this.closing = false;
    this.closeCode = 1006;
    this.closeText = ''; // the reason in the server's close frame
    this.peerClosed = false; // the server's close frame came
    this.reset = false; // the connection was reset while open
    // Why the connection failed before it opened, in Go's words (k6/experimental/websockets'
    // error event); k6/ws's result gives it only when no response came.
    this.failure = null;
    this.refusal = null; // a refused upgrade's body being read (ws-failures.js)
    this.pingsAt = [];
    // Bytes on the wire both ways, handshake included: the VU's at the session's end, counted in
    // data_sent and data_received at the iteration's end, as k6's dialer counts them.
    this.bytesOut = 0;
    this.bytesIn = 0;
    this.tags = null;
    this.ip = ''; // the address connected to
    // As k6/ws's: the url only once open, the body '' (a refused upgrade's, else none).
    this.response = { url: '', status: 0, headers: {}, body: '', error: '' };
  }

  metric(name, type, isTime = false) {
    return this.vu.shared.registry.get(name, type, isTime);
  }

  emit(name, type, value, isTime = false) {
    this.vu.shared.registry.add(this.metric(name, type, isTime), value, this.tags);
  }

  async run() {
    const vu = this.vu;
    // Of k6's system tags, the run's (src/script/scenarios/system-tags.js): k6/ws's url is the
    // URL's, over a url tag of the script's; k6/experimental/websockets names its samples by the
    // URL, and a name the script gives is their url too.
    const st = vu.shared.systemTags;
    this.tags = { ...vu.tags(), ...(this.params.tags || {}) };
    if (this.browser) {
      if (this.tags.name === undefined && st.name) this.tags.name = this.url;
      if (st.url) this.tags.url = this.tags.name ?? this.url;
    } else if (st.url) this.tags.url = this.url;
    this.start = performance.now();
    // As k6: a URL Go refuses, or not ws: or wss:, is a session that failed, in Go's words.
    const why = dialFailure(this.url);
    if (why !== null) return this.failed(why);
    let u;
    try {
      u = new URL(this.url);
    } catch (err) {
      return this.failed(err.message);
    }
    const tls = u.protocol === 'wss:';
    const port = u.port ? Number(u.port) : tls ? 443 : 80;
    let to;
    try {
      to = await vu.dialTo(u.hostname, port);
    } catch (err) {
      return this.failed(err.short || goError(err.code || err.message, u));
    }
    this.target = u;
    this.ip = to.address;
    const key = newKey();
    const headers = {};
    for (const [k, v] of Object.entries(this.params.headers || {})) headers[k.toLowerCase()] = String(v);
    // As k6 (gorilla's Dialer with the VU's jar, or the params' jar): the jar's cookies for the
    // URL as http(s), and the handshake's Set-Cookie kept in it (upgraded()).
    this.jar = this.params.jar || vu.jar;
    this.cookieURL = new URL(this.url.replace(/^ws/i, 'http'));
    const cookie = this.jar.cookieHeader(this.cookieURL, null, vu.console);
    const template = handshakeTemplate({ hostHeader: u.host, version: vu.shared.version, headers, path: u.pathname + u.search, cookies: cookie === '' ? [] : [cookie] });
    const adapter = vu.shared.network.adapterFor({ hostname: u.hostname, tls });
    return new Promise((resolve) => {
      this.done = resolve;
      this.key = key;
      vu.sessions.add(this);
      this.socket = adapter.connect(to.address, to.port, this);
      const request = handshakeRequest(template, key);
      this.bytesOut += request.length;
      this.socket.write(request);
    });
  }

  failed(reason) {
    this.failure = this.response.error = reason;
    this.countFailed();
    return this.response;
  }

  // As k6: a connection that failed (refused, an upgrade refused) is a session too, timed to
  // its failure; k6/ws's has a duration as well.
  countFailed() {
    if (this.cut) return;
    const took = performance.now() - this.start;
    this.emit('ws_sessions', 'counter', 1);
    this.emit('ws_connecting', 'trend', took, true);
    if (!this.browser) this.emit('ws_session_duration', 'trend', took, true);
  }

  // The socket's handlers (src/socket.js).
  data(chunk) {
    if (this.done === null) return; // closed by the script: what comes after is not read
    this.bytesIn += chunk.length;
    if (this.open) return this.parser.execute(chunk);
    if (this.refusal !== null) return this.refusal.feed(chunk);
    // The handshake's answer, then frames: perhaps in the same read.
    const bytes = this.head === null ? chunk.slice() : joinChunks([this.head, chunk]);
    const end = indexOfHeadEnd(bytes);
    if (end < 0) {
      this.head = bytes;
      if (bytes.length > MAX_HEAD) {
        this.failure = this.response.error = 'websocket upgrade: response head too large';
        this.socket.destroy();
        this.finish();
      }
      return;
    }
    this.head = null;
    this.upgraded(decoder.decode(bytes.subarray(0, end)), bytes);
    if (this.open && end + 4 < bytes.length) this.parser.execute(bytes, end + 4);
  }

  upgraded(headText, bytes) {
    const lines = headText.split('\r\n');
    this.response.status = Number((/^HTTP\/1\.\d (\d{3})/.exec(lines[0]) || [])[1] || 0);
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      if (colon <= 0) continue;
      const name = canonicalName(line.slice(0, colon).trim());
      this.response.headers[name] = line.slice(colon + 1).trim();
      if (name === 'Set-Cookie') this.jar.setFromHeader(this.cookieURL, line.slice(colon + 1).trim());
    }
    const why = checkHandshake(headText, this.key);
    const st = this.vu.shared.systemTags;
    // As k6: the address of a connection upgraded (where ip is kept).
    if (st.ip && why === null) this.tags.ip = this.ip;
    if (this.response.status !== 0) {
      if (st.status) this.tags.status = String(this.response.status);
      // k6/experimental/websockets takes the subprotocol from the connection it did not get.
      if (st.subproto) this.tags.subproto = (why === null || !this.browser ? this.response.headers['Sec-Websocket-Protocol'] : '') || '';
    }
    if (why !== null) return this.refused(why, bytes);
    this.open = true;
    this.response.url = this.url;
    this.emit('ws_connecting', 'trend', performance.now() - this.start, true);
    this.emit('ws_sessions', 'counter', 1);
    this.call(this.callback, [this.api()]);
    this.fire('open', []);
  }

  // As k6 (gorilla): an upgrade answered but refused gives the response with its body, and no
  // error in k6/ws's result; one not HTTP gives no response.
  refused(why, bytes) {
    if (this.response.status === 0) {
      this.failure = this.response.error = why;
      this.socket.destroy();
      return this.finish();
    }
    this.failure = BAD_HANDSHAKE;
    this.refusal = new RefusedBody((body) => {
      this.response.body = body;
      if (this.socket) this.socket.destroy();
      this.socket = null;
      this.finish();
    });
    this.refusal.feed(bytes);
  }

  error(err) {
    if (!this.open) {
      if (this.failure === null) this.failure = this.response.error = goError(err.code || err.message, this.target);
    } else if (this.done !== null && !this.peerClosed) {
      // Not an end of file, so not a close to gorilla: k6/ws closes with 1001, and its close
      // frame, written to the reset connection, is the error (Go's words without the addresses).
      this.reset = true;
      this.closeCode = 1001;
      if (!this.browser) this.fire('error', [{ error: () => 'write: broken pipe' }]);
    }
  }

  close() {
    this.socket = null;
    if (this.refusal !== null) return this.refusal.end();
    // Closed with no close frame from the server: gorilla's unexpected EOF, an error.
    if (this.open && this.done !== null && !this.peerClosed && !this.reset) this.fire('error', [abnormalClose()]);
    this.finish();
  }

  /** The iteration is cut short: the socket goes now. */
  drop() {
    if (this.socket) this.socket.destroy();
    this.socket = null;
    this.cut = true; // as k6: no session duration, no close handler
    this.finish();
  }

  finish() {
    if (this.done === null) return;
    this.vu.sessions.delete(this);
    for (const t of this.timers) {
      clearTimeout(t);
      clearInterval(t);
    }
    this.timers.clear();
    this.countBytes();
    if (this.open) {
      this.open = false;
      if (!this.cut) {
        this.emit('ws_session_duration', 'trend', performance.now() - this.start, true);
        this.fire('close', [this.closeCode]);
      }
    } else {
      this.countFailed();
    }
    const done = this.done;
    this.done = null;
    done(this.response);
  }

  // The frame parser's handlers (src/websocket/frame-parser.js).
  onMessage(opcode) {
    const bytes = joinChunks(this.parser.chunks);
    this.parser.chunks = [];
    // As k6/websockets': a message that comes once the script has closed is neither counted
    // nor given to it.
    if (this.browser && this.closing) return;
    this.emit('ws_msgs_received', 'counter', 1);
    if (opcode === OP_TEXT) this.fire('message', [decoder.decode(bytes)]);
    else this.fire('binaryMessage', [bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)]);
  }

  onControl(opcode, payload) {
    if (opcode === OP_PING) {
      this.write(OP_PONG, payload);
      this.fire('ping', []);
    } else if (opcode === OP_PONG) {
      const at = this.pingsAt.shift();
      if (at !== undefined) this.emit('ws_ping', 'trend', performance.now() - at, true);
      this.fire('pong', []);
    } else if (opcode === OP_CLOSE) {
      this.closeCode = payload.length >= 2 ? (payload[0] << 8) | payload[1] : 1005;
      this.peerClosed = true;
      this.closeText = decoder.decode(payload.subarray(2));
      const error = closeError(this.closeCode, this.closeText);
      if (error !== null) this.fire('error', [error]);
      if (!this.closing) this.write(OP_CLOSE, payload.length >= 2 ? payload.subarray(0, 2) : new Uint8Array(0));
      this.closing = true;
      if (this.socket) this.socket.end();
    }
  }

  onFrameError(reason) {
    this.fire('error', [{ error: () => reason }]);
    const socket = this.socket;
    this.socket = null;
    this.finish(); // first, as close() in the API: Bun may report the connection closed at once
    if (socket) socket.destroy();
  }

  /** Sends the close frame; the session ends when the server's close frame comes (false: too late). */
  startClose(code, reason = '') {
    if (!this.open || this.closing) return false;
    this.closing = true;
    this.closeCode = code;
    this.write(OP_CLOSE, closePayload(code, reason));
    return true;
  }

  write(opcode, payload) {
    if (this.socket === null) return;
    const frame = encodeFrame(opcode, payload, this.mask);
    this.bytesOut += frame.length;
    this.socket.write(frame);
  }

  countBytes() {
    this.vu.bytesSent += this.bytesOut;
    this.vu.bytesReceived += this.bytesIn;
    this.bytesOut = this.bytesIn = 0;
  }

  fire(event, args) {
    for (const fn of this.handlers.get(event) || []) this.call(fn, args);
  }

  // A handler of the script: on the VU's event loop (its exception is the iteration's).
  call(fn, args) {
    this.vu.loop.call(fn, args);
  }

  // The socket the callback is given, as k6's.
  api() {
    const s = this;
    return {
      on(event, fn) {
        if (!s.handlers.has(event)) s.handlers.set(event, []);
        s.handlers.get(event).push(fn);
      },
      send(text) {
        if (!s.open || s.closing) return;
        s.write(OP_TEXT, encoder.encode(String(text)));
        s.emit('ws_msgs_sent', 'counter', 1);
      },
      sendBinary(data) {
        if (!s.open || s.closing) return;
        s.write(OP_BINARY, data instanceof Uint8Array ? data : new Uint8Array(data));
        s.emit('ws_msgs_sent', 'counter', 1);
      },
      ping() {
        if (!s.open || s.closing) return;
        s.pingsAt.push(performance.now());
        s.write(OP_PING, new Uint8Array(0));
      },
      // As k6/ws: the close frame is written and the session ends at once (its timers stop, its
      // close handler runs), without waiting for the server's close frame.
      close(code = 1001) { // k6: going away, unless told
        if (!s.startClose(code)) return;
        const socket = s.socket;
        s.socket = null;
        // Ended first: Bun's end() may report the connection closed at once, which must not
        // read as the server gone without its close frame (an error).
        s.finish();
        if (socket !== null) socket.end();
      },
      setTimeout(fn, ms) {
        const t = setTimeout(() => {
          s.timers.delete(t);
          s.call(fn, []);
        }, Number(ms) || 0);
        s.timers.add(t);
        return t;
      },
      setInterval(fn, ms) {
        const t = setInterval(() => s.call(fn, []), Math.max(1, Number(ms) || 0));
        s.timers.add(t);
        return t;
      },
    };
  }
}

