// What is done with a response's captured bytes (src/http1/parser.js keeps them as chunks, views
// or copies): the text of the chunks, the chunks as one array, a head's headers as an object.

const decoder = new TextDecoder();

/**
 * A decoder that keeps a leading byte-order mark, as Go keeps every byte of a body (k6's
 * res.body starts with U+FEFF when the body does); the default one drops it.
 */
export const keepingBOM = new TextDecoder('utf-8', { ignoreBOM: true });

export function decodeChunks(chunks, textDecoder = decoder) {
  if (!chunks || chunks.length === 0) return '';
  if (chunks.length === 1) return textDecoder.decode(chunks[0]);
  return textDecoder.decode(joinChunks(chunks));
}

/** Byte chunks copied into one Uint8Array. */
export function joinChunks(chunks) {
  let total = 0;
  for (const c of chunks) total += c.length;
  const all = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.length;
  }
  return all;
}

/** Parses a captured head into a lower-cased header object (loadtest 8 gives node's headers). */
export function parseHeaders(headText) {
  const headers = {};
  const lines = headText.split(/\r?\n/);
  // The captured head may include interim responses; the final one is the last status line.
  let startLine = 0;
  for (let k = 0; k < lines.length; k++) if (lines[k].startsWith('HTTP/')) startLine = k;
  for (let k = startLine + 1; k < lines.length; k++) {
    const line = lines[k];
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = name in headers ? headers[name] + ', ' + value : value;
  }
  return headers;
}
