// An HTTP/2 request, encoded once: its header block (HPACK, no dynamic table, so the same bytes
// are valid on any connection at any time) framed as HEADERS (and CONTINUATION), with the body's
// DATA frames after it when the body fits the default flow-control window. The connection
// writes each request's stream id into a copy of these bytes.

import { encodeRequestHeaders } from './hpack-encode.js';
import { requestFrames, DEFAULT_MAX_FRAME } from './frames.js';

// RFC 9113 8.2.2: connection-specific fields have no meaning in HTTP/2 and make a request
// malformed; `host` becomes :authority (8.3.1).
const DROPPED = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'host']);

// A body this small goes out with its HEADERS (RFC 9113 6.9.2: every window starts at 65 535);
// a larger one waits for the windows (src/http2/connection.js).
const INLINE_BODY = 65535;

/**
 * The frames of one request: `full` (HEADERS and, when the body fits, its DATA; null when it
 * does not), `head` (HEADERS alone, ending the stream when there is no body) and `body`.
 * `headers` is the run's header object (lower-case names), `authority` the Host.
 */
export function encodeH2Request({ method, scheme, authority, path, headers, body }) {
  const list = [];
  for (const name in headers) {
    if (DROPPED.has(name)) continue;
    if (name === 'te' && String(headers[name]).toLowerCase() !== 'trailers') continue;
    list.push([name, String(headers[name])]);
  }
  const hasBody = body !== null && body !== undefined && body.length > 0;
  if (hasBody && !('content-length' in headers)) list.push(['content-length', String(body.length)]);
  // Each block starts with a dynamic table size update to 0 (one byte): a server whose
  // SETTINGS_HEADER_TABLE_SIZE is under 4096 expects one in the first block after its SETTINGS
  // (RFC 7541 4.2; nghttp2 enforces it), and since our encoder never uses the table, the same
  // bytes are then right on any connection, before or after the server's SETTINGS.
  const block = encodeRequestHeaders({ method, scheme, authority, path, headers: list, sizeUpdate: true });
  const head = requestFrames(block, hasBody ? body : null, DEFAULT_MAX_FRAME, 0);
  const full = !hasBody ? head : body.length <= INLINE_BODY ? requestFrames(block, body, DEFAULT_MAX_FRAME, INLINE_BODY) : null;
  return { full, head, body: hasBody ? body : null };
}
