// gRPC's length-prefixed messages (grpc/doc/PROTOCOL-HTTP2.md, "Length-Prefixed-Message"):
// 1 byte compressed flag, 4 bytes big-endian length, the message.

/** One uncompressed message, framed. */
export function frameMessage(message) {
  const out = new Uint8Array(5 + message.length);
  const n = message.length;
  out[1] = n >>> 24;
  out[2] = (n >>> 16) & 255;
  out[3] = (n >>> 8) & 255;
  out[4] = n & 255;
  out.set(message, 5);
  return out;
}

/**
 * The messages in a response body's bytes (its DATA frames' payloads, in order): a list of
 * Uint8Array. Throws on a compressed message (we ask for none: no grpc-accept-encoding) or a
 * body cut short.
 */
export function readMessages(chunks) {
  const all = join(chunks);
  const out = [];
  let at = 0;
  while (at < all.length) {
    if (all.length - at < 5) throw new Error('a gRPC message cut short (its 5-byte prefix)');
    if (all[at] !== 0) throw new Error('a compressed gRPC message, though none was asked for');
    const n = ((all[at + 1] << 24) >>> 0) + (all[at + 2] << 16) + (all[at + 3] << 8) + all[at + 4];
    if (all.length - at - 5 < n) throw new Error(`a gRPC message cut short (${all.length - at - 5} of ${n} bytes)`);
    out.push(all.subarray(at + 5, at + 5 + n));
    at += 5 + n;
  }
  return out;
}

function join(chunks) {
  if (chunks.length === 1) return chunks[0];
  const all = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.length;
  }
  return all;
}
