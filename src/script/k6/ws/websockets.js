// k6/experimental/websockets (k6/websockets from k6 v1.6, not v1.3): the browser's WebSocket, on the same
// session as k6/ws (src/script/k6/ws/ws.js). The constructor returns at once; the iteration ends
// after the socket has closed (the VU's event loop: src/script/eventloop/event-loop.js).

import { Session } from './ws.js';

const CONNECTING = 0;
const OPEN = 1;
const CLOSING = 2;
const CLOSED = 3;

export function websocketsModule(vu) {
  class WebSocket {
    constructor(url, protocols, params = {}) {
      vu.assertCanRequest();
      this.url = String(url);
      this.readyState = CONNECTING;
      this.binaryType = 'blob';
      this.bufferedAmount = 0;
      this.protocol = '';
      this.onopen = this.onmessage = this.onclose = this.onerror = this.onping = this.onpong = null;
      this.listeners = new Map();
      const headers = { ...(params.headers || {}) };
      if (protocols !== undefined && protocols !== null) headers['Sec-WebSocket-Protocol'] = [].concat(protocols).join(', ');
      const session = (this.session = new Session(vu, this.url, { ...params, headers }, (socket) => relaySocket(this, session, socket), true));
      this.socket = null;
      vu.loop.track(
        session.run().then(() => {
          // Never opened: k6's error event says why in Go's words (the dial's, or 'websocket:
          // bad handshake' for an upgrade refused), then the close event.
          if (session.failure !== null && this.readyState === CONNECTING) {
            this.readyState = CLOSED;
            this.dispatch('error', { error: session.failure });
            this.dispatch('close', {});
          }
        }),
        true,
      );
    }

    addEventListener(type, fn) {
      if (!this.listeners.has(type)) this.listeners.set(type, []);
      this.listeners.get(type).push(fn);
    }

    // k6's event: its type, target and time (milliseconds since the epoch, with a fraction).
    dispatch(type, fields) {
      const event = { type, target: this, timestamp: performance.timeOrigin + performance.now(), ...fields };
      const own = this[`on${type}`];
      if (typeof own === 'function') vu.loop.call(own.bind(this), [event]);
      for (const fn of this.listeners.get(type) || []) vu.loop.call(fn, [event]);
    }

    send(data) {
      if (this.readyState !== OPEN) throw new Error('InvalidStateError: the WebSocket is not open');
      if (typeof data === 'string') this.socket.send(data);
      else this.socket.sendBinary(ArrayBuffer.isView(data) ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength) : data);
    }

    // As k6's: a ping and a close are messages sent too.
    ping() {
      if (this.readyState !== OPEN) return;
      this.socket.ping();
      this.session.emit('ws_msgs_sent', 'counter', 1);
    }

    close(code, reason) {
      if (this.readyState !== OPEN) return;
      this.readyState = CLOSING;
      // Unlike k6/ws's, the browser's close ends with the server's close frame. As k6's: code
      // 0 or none is 1000, and the reason goes with it.
      this.session.startClose(Number(code) || 1000, reason === undefined ? '' : String(reason));
      this.session.emit('ws_msgs_sent', 'counter', 1);
    }
  }
  Object.assign(WebSocket, { CONNECTING, OPEN, CLOSING, CLOSED });
  const api = { WebSocket };
  return { default: api, ...api };
}

/** The k6/ws socket's events as the WebSocket's: its readyState, then its event. */
function relaySocket(ws, session, socket) {
  ws.socket = socket;
  socket.on('open', () => {
    ws.readyState = OPEN;
    ws.protocol = session.response.headers['Sec-Websocket-Protocol'] || '';
    ws.dispatch('open', {});
  });
  socket.on('message', (data) => ws.dispatch('message', { data, origin: ws.url }));
  socket.on('binaryMessage', (data) => ws.dispatch('message', { data: ws.binaryType === 'arraybuffer' ? data : new Blob([data]), origin: ws.url }));
  socket.on('ping', () => ws.dispatch('ping', {}));
  socket.on('pong', () => ws.dispatch('pong', {}));
  socket.on('error', (e) => {
    // k6's error events come as the connection ends: closed already for the listeners.
    ws.readyState = CLOSED;
    ws.dispatch('error', { error: e.error() });
  });
  socket.on('close', (code) => {
    ws.readyState = CLOSED;
    // k6 v1.3's close event carries no code.
    ws.dispatch('close', {});
  });
}
