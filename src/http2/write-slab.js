// Each HTTP/2 write's frames are cut from a shared slab, as node's Buffer pool does: a write is a
// view of a 64 KiB buffer whose bytes are never written again once handed on (an adapter may
// hold a written buffer until it is sent); a full slab is replaced, not reused. A Uint8Array of
// its own for each write cost more on node: one of 64 bytes or less lives in the JS heap, and the
// Buffer node:net writes is made over its ArrayBuffer, which V8 must first move out of the heap
// (asBuffer in runtimes/sockets/node.js, 5 % of a profile of h2 over TLS, 10 × 10 streams).

const SIZE = 64 * 1024;

/** The slab now, and where its free bytes start. */
export const slab = { bytes: new Uint8Array(SIZE), at: 0 };

/** A new slab of at least `room` bytes. */
export function newSlab(room) {
  slab.bytes = new Uint8Array(Math.max(SIZE, room));
  slab.at = 0;
  return slab.bytes;
}

/** The slab, with `room` bytes free from slab.at (a new one when it has not). */
export function slabWithRoom(room) {
  return slab.at + room > slab.bytes.length ? newSlab(room) : slab.bytes;
}
