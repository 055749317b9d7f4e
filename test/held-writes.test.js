// node's adapters hold what a connection writes while it reads (runtimes/sockets/held-writes.js):
// nothing goes before the loop's turn ends, then each connection's held bytes go as one write,
// in the order written.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hold, takeHeld } from '../runtimes/sockets/held-writes.js';

// A connection as the adapters' are to the module: `held`, and flush() that writes what it took.
function connection() {
  return {
    held: null,
    writes: [],
    flush() {
      const bytes = takeHeld(this);
      if (bytes !== null) this.writes.push(Buffer.from(bytes).toString());
    },
  };
}

const bytes = (text) => new TextEncoder().encode(text);
const turnEnd = () => new Promise((resolve) => setImmediate(resolve));

test('writes held in a turn go at its end, one write a connection, in order', async () => {
  const a = connection();
  const b = connection();
  hold(a, bytes('GET /1;'));
  hold(b, bytes('GET /x;'));
  hold(a, bytes('GET /2;'));
  hold(a, bytes('GET /3;'));
  assert.deepEqual(a.writes, []);
  assert.deepEqual(b.writes, []);
  await turnEnd();
  assert.deepEqual(a.writes, ['GET /1;GET /2;GET /3;']);
  assert.deepEqual(b.writes, ['GET /x;']);
  assert.equal(a.held, null);
});

test('one write held goes as it is, with no copy; the next turn holds again', async () => {
  const a = connection();
  const one = bytes('GET /;');
  hold(a, one);
  assert.equal(takeHeld(a), one);
  assert.equal(takeHeld(a), null);
  await turnEnd(); // flush() finds nothing
  assert.deepEqual(a.writes, []);
  hold(a, bytes('again;'));
  await turnEnd();
  assert.deepEqual(a.writes, ['again;']);
});
