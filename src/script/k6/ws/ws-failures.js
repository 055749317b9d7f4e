// How k6's WebSocket modules tell a session that went wrong, in the words of the Go library
// under both (gorilla/websocket), checked beside k6 v1.3.0: the error of a close frame, and the
// body of a refused upgrade.

import { ResponseParser } from '../../../http1/parser.js';
import { joinChunks } from '../../../http1/captured.js';

// gorilla's names for the codes it knows; a code without one is shown bare ('websocket: close
// 4005: bye').
const CLOSE_NAMES = {
  1000: 'normal',
  1001: 'going away',
  1002: 'protocol error',
  1003: 'unsupported data',
  1005: 'no status',
  1006: 'abnormal closure',
  1007: 'invalid payload data',
  1008: 'policy violation',
  1009: 'message too big',
  1010: 'mandatory extension missing',
  1011: 'internal server error',
  1015: 'TLS handshake error',
};

/**
 * The error event of a close: k6 reads the server's close frame as gorilla's CloseError, and
 * every code but 1000 and 1001 is an error; a connection that ends without one is 1006.
 * Returns the event's object for k6/ws (`code`, `text`, `error()`), null for a normal close.
 */
export function closeError(code, text) {
  if (code === 1000 || code === 1001) return null;
  const name = CLOSE_NAMES[code];
  const message = `websocket: close ${code}${name ? ` (${name})` : ''}${text ? `: ${text}` : ''}`;
  return { code, text, error: () => message };
}

/** The connection ended with no close frame: gorilla's io.EOF, as k6 reports it. */
export const abnormalClose = () => closeError(1006, 'unexpected EOF');

// gorilla's answer to any upgrade a server refuses (a status other than 101, a bad accept key).
export const BAD_HANDSHAKE = 'websocket: bad handshake';

// gorilla keeps this much of a refused upgrade's body, for the script to see why.
const BODY_KEPT = 1024;

/**
 * The body of a refused upgrade's response, read as HTTP frames it (a length, chunks, or up to
 * the close), kept up to 1 KiB as gorilla keeps it. `done(text)` is called once: when the body
 * is whole or 1 KiB is in, or at end() (the connection closed), with what came.
 */
export class RefusedBody {
  constructor(done) {
    this.done = done;
    this.parser = new ResponseParser(() => this.settle(), () => this.settle(), true);
    this.parser.expect(false);
  }

  /** Bytes of the response from its first: the head again, then the body. */
  feed(bytes, from = 0) {
    if (this.done === null) return;
    this.parser.execute(bytes, from);
    if (this.done !== null && this.kept().length >= BODY_KEPT) this.settle();
  }

  end() {
    this.settle();
  }

  kept() {
    return joinChunks(this.parser.bodyChunks || []);
  }

  settle() {
    const done = this.done;
    if (done === null) return;
    this.done = null;
    done(new TextDecoder().decode(this.kept().subarray(0, BODY_KEPT)));
  }
}
