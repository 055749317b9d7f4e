// What every feed format shares (feed.js, ndjson.js): the feed's shape and how a JSON row's
// values become cells.

/**
 * A feed's shared shape: { format, columns, count, cell(r, c) → string or undefined (a JSON row
 * without that key), sourceInto(r, c, spans, at) → the bytes (a Uint8Array, UTF-8) that hold the
 * cell, with spans[at], spans[at + 1] its start and end in them, or the cell as a string with
 * spans[at] = -1, where(r, c), position(r, c) }, and `rows` (every row as an array of strings, made when read: for tests
 * and small feeds, never a run's path).
 */
export function compact(feed) {
  Object.defineProperty(feed, 'rows', {
    enumerable: false,
    get() {
      return Array.from({ length: feed.count }, (_, r) => feed.columns.map((_, c) => feed.cell(r, c)));
    },
  });
  return feed;
}

// JSON's and NDJSON's rows.
export const jsonMessage = (e) => String(e && e.message).replace(/\s*[\r\n]+\s*/g, ' ');
export const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
export const cell = (v) => (typeof v === 'string' ? v : v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));
