// The request log's file (src/outputs/request-log.js): node:fs/promises, which node, Bun and Deno
// all have. Every process of a --cores run appends to the one file: O_APPEND makes each write
// land whole at the end (Linux, a local file system), and each write holds whole lines, so the
// lines of several cores interleave by chunk, never within a line.

import { open } from 'node:fs/promises';

/**
 * Opens `path` for the log: truncated, with `header` written first, or (`append`) as it is.
 * Resolves to the sink { write(bytes) → Promise, close() → Promise }; rejects with a one-line Error.
 */
export async function openLogFile(path, { append = false, header = '' } = {}) {
  let handle;
  try {
    handle = await open(path, append ? 'a' : 'w');
  } catch (err) {
    throw new Error(`--log-file ${path}: ${err.code || err.message}`);
  }
  const write = async (bytes) => {
    // A short write (a full disk reports it on the next one) goes on from where it stopped.
    let at = 0;
    while (at < bytes.length) {
      const { bytesWritten } = await handle.write(bytes, at, bytes.length - at);
      if (bytesWritten <= 0) throw Object.assign(new Error(`--log-file ${path}: nothing written`), { code: 'EIO' });
      at += bytesWritten;
    }
  };
  if (header) await write(new TextEncoder().encode(header));
  return {
    write: (bytes) =>
      write(bytes).catch((err) => {
        throw new Error(`--log-file ${path}: ${err.code || err.message}`);
      }),
    close: () => handle.close(),
  };
}
