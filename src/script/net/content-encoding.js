// k6/http's compression, as k6 v1.3 has it: a request's `compression` param compresses its body
// (gzip, deflate, br, zstd, or several: "gzip, br"), and a response whose Content-Encoding names
// any of them is decompressed before the script sees its body, whatever the request asked for
// (k6 sends no Accept-Encoding of its own; a server may compress anyway, and scripts recorded
// from a browser ask for "gzip, deflate, br"). The codecs are the runtime's (facilities'
// compress and decompress: node:zlib's).

export const CODINGS = ['gzip', 'deflate', 'zstd', 'br'];

/**
 * The codings of a `compression` param, in the order applied: null for none ('' or absent).
 * Throws k6's words for a name it does not know.
 */
export function compressionOf(value) {
  if (value === undefined || value === null) return null;
  const text = String(value).trim();
  if (text === '') return null;
  const codings = text.split(',').map((c) => c.trim());
  for (const c of codings) {
    if (!CODINGS.includes(c)) throw new Error(`unknown compression algorithm ${c}, supported algorithms are [${CODINGS.join(' ')}]`);
  }
  return codings;
}

/** `bytes` compressed with each of `codings` in turn; the Content-Encoding that says so. */
export function compressed(facilities, codings, bytes) {
  for (const c of codings) bytes = facilities.compress(c, bytes);
  return { bytes, encoding: codings.join(', ') };
}

/**
 * A response head's Content-Encoding (its values joined with ', ', as Go joins a header given
 * twice) when it names a coding k6 decodes; null otherwise. Most heads have none, and this runs
 * on every response: a search for the name's tail rules them out, and Transfer-Encoding's tail
 * is told apart without a regular expression. The name is matched as servers write it: in lower
 * case, capitalized or in capitals (not in other mixes of case).
 */
export function contentEncodingOf(head) {
  let value = null;
  for (const tail of TAILS) {
    for (let at = head.indexOf(tail); at !== -1; at = head.indexOf(tail, at + 7)) {
      const start = at - 9; // at 'content-e'
      if (start < 1 || head.charCodeAt(start - 1) !== 10 || head.charCodeAt(at + 7) !== 58) continue;
      if (head.slice(start, at).toLowerCase() !== 'content-e') continue;
      const end = head.indexOf('\n', at);
      const v = head.slice(at + 8, end === -1 ? head.length : end).trim();
      value = value === null ? v : `${value}, ${v}`;
    }
  }
  if (value === null) return null;
  return value.split(',').some((c) => CODINGS.includes(c.trim())) ? value : null;
}

const TAILS = ['ncoding', 'NCODING'];

/**
 * `bytes` with the codings of `encoding` undone, the last applied first; one a coding k6 does
 * not know is left as it is. Throws `error decompressing response body (...)`, in Go's words
 * where they can be told (a header that is not the coding's).
 */
export function decompressed(facilities, encoding, bytes) {
  const codings = encoding.split(',').map((c) => c.trim());
  for (let i = codings.length - 1; i >= 0; i--) {
    const c = codings[i];
    if (!CODINGS.includes(c)) continue;
    try {
      bytes = facilities.decompress(c, bytes);
    } catch (err) {
      throw new Error(`error decompressing response body (${goWords(c, bytes, err)})`);
    }
  }
  return bytes;
}

// Go's readers check a header first: gzip's magic bytes, zlib's CMF/FLG pair.
function goWords(coding, bytes, err) {
  if (coding === 'gzip' && !(bytes[0] === 0x1f && bytes[1] === 0x8b)) return 'gzip: invalid header';
  if (coding === 'deflate' && (bytes.length < 2 || (bytes[0] & 0x0f) !== 8 || ((bytes[0] << 8) | bytes[1]) % 31 !== 0)) return 'zlib: invalid header';
  if (err.code === 'Z_BUF_ERROR') return 'unexpected EOF'; // cut short
  return `${coding === 'br' ? 'brotli' : coding}: ${err.message}`;
}
