// --out's file as its thread (src/outputs/out-thread.js) writes it: opened to append, written with
// blocking writes. The thread does nothing else, so a write that blocks holds up no one, and its
// chunk is free again when the call returns: one small chunk, still in the cache, formatted and
// written over and over (writes handed to a pool of threads had to keep megabytes of lines in
// flight, and each woke a thread on the run's core). node:fs, which node, Bun and Deno all have.

import { openSync, writeSync, closeSync } from 'node:fs';

/** `path` opened to append: { write(bytes), close() }, each throwing a one-line Error. */
export function openAppendSync(path) {
  const said = (err) => new Error(`${path}: ${err.code || err.message}`);
  let fd;
  try {
    fd = openSync(path, 'a');
  } catch (err) {
    throw said(err);
  }
  return {
    write(bytes) {
      // A short write (a full disk reports it on the next one) goes on from where it stopped.
      let at = 0;
      while (at < bytes.length) {
        let n;
        try {
          n = writeSync(fd, bytes, at, bytes.length - at);
        } catch (err) {
          throw said(err);
        }
        if (n <= 0) throw said({ code: 'EIO' });
        at += n;
      }
    },
    close() {
      try {
        closeSync(fd);
      } catch {
        // Closing is the last thing done; what was written stays written.
      }
    },
  };
}
