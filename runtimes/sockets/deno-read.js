// A connection's read as Deno's Conn.read makes it, without what Conn.read adds to its op: an
// async function, and a Set of the connection's pending reads that each read adds to and deletes
// from (Deno 2.9.5, ext/net/01_net.js). The Set's table is made again as it shrinks and grows,
// and once a connection has waited through two scavenges (at its start, or between requests) its
// table is in the old generation, where V8 then makes each new one: every read left ~120 bytes
// of old garbage, a full collection every second or so at 40 000 requests a second on Deno.
//
// The op is Deno's internal one (Deno[Deno.internal].core.read, the connection's resource id
// under its internal symbol). Where a Deno has neither, reads go through Conn.read as before.

const internal = globalThis.Deno?.[globalThis.Deno.internal];
const core = internal && typeof internal.core?.read === 'function' ? internal.core : null;
let RID; // the symbol a connection's resource id is kept under, once a connection has shown it

/** The resource id to read `conn` by with read(), or -1: read it with conn.read(). */
export function ridOf(conn) {
  if (core === null) return -1;
  // Looked for until found: a connection without it (a test's stand-in) does not decide for the
  // real ones after it.
  if (RID === undefined) RID = Object.getOwnPropertySymbols(conn).find((s) => s.description === 'Deno.internal.rid');
  const rid = RID === undefined ? undefined : conn[RID];
  return typeof rid === 'number' ? rid : -1;
}

/** Reads into buf: a promise of the count, 0 at the end of the stream (Conn.read's null). */
export const read = (rid, buf) => core.read(rid, buf);
