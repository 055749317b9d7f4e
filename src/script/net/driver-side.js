// What every run-side of a VU's connection driver (client.js for HTTP/1.1, client-h2.js for
// HTTP/2) answers alike: a VU does not fail fast on an unreachable host (each request fails with
// its reason), and a socket gone or dropped is simply gone; and what the driver reads of every
// run-side before a request of its own sets it (grpc-channel.js is one too).

import { decodeChunks, joinChunks, keepingBOM } from '../../http1/captured.js';
import { contentEncodingOf } from './content-encoding.js';

export class DriverSide {
  constructor() {
    this.capture = true; // a script reads what came back
    this.fixed = null; // no request built once for every connection: each is the VU's own
    this.fixedShape = null;
    this.open = false;
    this.intendedTime = 0;
    this.sendAt = 0; // set while a request sent at once is handed over (k6/http's clock read)
    this.stopping = false;
    // A refused connect fails its request at once, without the closed model's backoff (which
    // held a script's answer 10, 20, 40 ms...): as in k6, the script paces itself.
    this.failsAtOnce = true;
    this.inFlight = 0;
  }

  connectFailed() {}

  socketClosed(conn) {
    conn.socket = null;
  }

  disconnect(socket) {
    if (socket) socket.destroy();
  }
}

// A client's result's body as the script asked for it (k6/http's responseType): text decoded
// now (a byte-order mark kept, as k6), bytes (binary, or compressed: k6/http decodes it) joined
// now, or none; the chunks may be views of the adapter's read buffer. Its `encoding`: the
// Content-Encoding k6/http has to undo, or null; `named`: whether the head may have one
// (HTTP/1.1's parser notes the header as it goes by). Written into the result (one object a
// request, not two).
export function fillBody(result, request, chunks, named) {
  if (request.discard) return result;
  const encoding = named ? contentEncodingOf(result.head) : null;
  result.encoding = encoding;
  result.body = encoding !== null || request.binary ? joinChunks(chunks || []) : decodeChunks(chunks, keepingBOM);
  return result;
}

/**
 * What a request's maker makes of its result (`request.answer`: k6/http's Response, or a promise
 * of what follows a redirect), made as the response is read rather than in a reaction to a
 * promise of the result; a rejection if it throws. Without answer(), the result itself.
 */
export function answerOf(request, result) {
  if (request.answer === undefined) return result;
  try {
    return request.answer(result);
  } catch (err) {
    return Promise.reject(err);
  }
}
