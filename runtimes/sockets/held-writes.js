// What a connection writes while it reads waits for the end of the loop's poll phase (one
// setImmediate for every connection) and goes as one write, for node's two adapters (node.js,
// node-wrap.js). wrk alike writes a connection's next request once its event loop comes round,
// not inside the read.
//
// Over TLS: node:tls hands on each TLS record by itself (node 20: one SSL_read, one read
// callback, ticks run between them): ten HTTP/2 responses in one TCP read are ten data() calls,
// and the ten writes they let go were ten SSL_writes, ten records (writev and writeBuffer were
// 43 % of node's busy time, h2 over TLS at 10 × 10 streams). CPU a request of the bare HTTP/2
// loop (bench/bare-h2.js) 15.9 µs one write a record, 12.3 µs held to the turn's end (h2load
// 13.1).
//
// Plain TCP too: each request written from inside a read went alone to a server that had
// answered everything and slept, and the write paid for waking it. Held, the requests of a turn
// go together: keep-alive at 10 connections against one nginx worker, its sleeps a request 0.12
// → 0.04 and ours 1.04 × the same code writing at once (bench/README.md, "node's writes held to
// the turn's end"). Not where the handlers already write once a read (HTTP/2 and pipelining say
// `batchesWrites`): held, h2c lost 4-10 % and pipelining 7 %.
// Deno's adapter (deno.js) holds its writes the same way until a microtask instead: Deno settles
// a turn's reads as microtasks queued together, and one queued by the first runs after them.
import { setImmediate } from 'node:timers';
import { Buffer } from 'node:buffer';

/**
 * hold(conn, bytes) for writes that go when `schedule` (setImmediate, queueMicrotask) calls back:
 * each held connection's flush() then, in the order they were held.
 */
export function writeHolder(schedule) {
  const holding = []; // connections with writes held

  function writeHeld() {
    for (let k = 0; k < holding.length; k++) holding[k].flush();
    holding.length = 0;
  }

  /** Holds `bytes` on conn.held (null, one Uint8Array or several), after what it held before. */
  function hold(conn, bytes) {
    const held = conn.held;
    if (held === null) {
      conn.held = bytes;
      if (holding.push(conn) === 1) schedule(writeHeld);
    } else if (Array.isArray(held)) held.push(bytes);
    else conn.held = [held, bytes];
  }

  return hold;
}

/** What conn held, as one Uint8Array (null if nothing); it holds nothing after. */
export function takeHeld(conn) {
  const held = conn.held;
  conn.held = null;
  if (held === null || !Array.isArray(held)) return held;
  return Buffer.concat(held);
}

// node's adapters: to the end of the loop's poll phase.
export const hold = writeHolder(setImmediate);
