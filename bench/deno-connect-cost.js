// CPU per connection of Deno's socket adapter beside Deno's bare loop, in one process, by turns:
// connect, write one GET with `Connection: close`, read the response, close. The adapter's turn
// closes on the response's last byte (as loadtest does); the bare loop reads to the end (as
// bench/bare-connect.js does). On a shared machine the req/s of separate processes swing by 2×;
// user CPU per connection, the median over rounds run by turns in one process, moves less.
//
//   deno run -A bench/deno-connect-cost.js HOST:PORT CONNECTIONS ROUNDS [OTHER_ADAPTER.js]
//
// OTHER_ADAPTER: another copy of runtimes/sockets/deno.js (say, the one before a change, with its
// imports made absolute) to run by turns beside it. Prints each round, then the medians.

import process from 'node:process';
import * as ours from '../runtimes/sockets/deno.js';

const [where = '127.0.0.1:8089', nArg = '4000', roundsArg = '9', otherPath] = Deno.args;
const [host, portText] = where.split(':');
const port = Number(portText);
const N = Number(nArg);
const ROUNDS = Number(roundsArg);
const CONCURRENCY = 10;
const REQ = new TextEncoder().encode(`GET / HTTP/1.1\r\nHost: ${where}\r\nConnection: close\r\n\r\n`);
const other = otherPath ? await import(new URL(otherPath, `file://${Deno.cwd()}/`).href) : null;

async function bare(n) {
  const buf = new Uint8Array(16 * 1024);
  let left = n;
  const loop = async () => {
    while (left-- > 0) {
      const conn = await Deno.connect({ hostname: host, port });
      try {
        let bytes = REQ;
        while (bytes.length > 0) bytes = bytes.subarray(await conn.write(bytes));
        while ((await conn.read(buf)) !== null);
      } finally {
        conn.close();
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, loop));
}

// nginx's `return 200 "OK"`: a response ends with its body, "OK".
function viaAdapter(adapter, n) {
  let left = n;
  let active = CONCURRENCY;
  return new Promise((resolve) => {
    class Slot {
      next() {
        if (left-- <= 0) {
          if (--active === 0) resolve();
          return;
        }
        this.socket = adapter.connect(host, port, this);
        this.socket.write(REQ);
      }
      data(chunk) {
        if (chunk[chunk.length - 2] !== 79 || chunk[chunk.length - 1] !== 75) return;
        const socket = this.socket;
        this.socket = null;
        socket.destroy();
        this.next();
      }
      error() {}
      close() {
        this.socket = null;
        this.next();
      }
    }
    for (let i = 0; i < CONCURRENCY; i++) new Slot().next();
  });
}

const modes = { bare: () => bare(N), adapter: () => viaAdapter(ours, N) };
if (other) modes.other = () => viaAdapter(other, N);
for (const run of Object.values(modes)) await run(); // warm-up
const user = {};
for (let r = 0; r < ROUNDS; r++) {
  for (const [name, run] of Object.entries(modes)) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    await run();
    const c = process.cpuUsage(c0);
    const seconds = (performance.now() - t0) / 1000;
    (user[name] ||= []).push(c.user / N);
    console.log(`round ${r + 1} ${name.padEnd(7)} user ${(c.user / N).toFixed(1)} µs, sys ${(c.system / N).toFixed(1)} µs a connection, ${Math.round(N / seconds)} req/s`);
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
for (const [name, xs] of Object.entries(user)) console.log(`${name}: user ${median(xs).toFixed(1)} µs a connection (median of ${xs.length})`);
console.log(`adapter / bare: ${(median(user.adapter) / median(user.bare)).toFixed(2)}${other ? `, other / bare: ${(median(user.other) / median(user.bare)).toFixed(2)}` : ''}`);
