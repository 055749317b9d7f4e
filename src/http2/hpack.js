// HPACK (RFC 7541), the header compression of HTTP/2, in the two directions a load tester needs.
//
// Responses (and trailers): HpackDecoder.decode(block, capture) reads one whole header block
// (HEADERS and its CONTINUATION fragments, put together by the caller) and returns null, or a
// reason (a string) that the caller turns into a COMPRESSION_ERROR connection error: the decoder
// never throws. After a successful decode:
//   status   the :status as an integer; -1 when absent (trailers), not three digits from 100,
//            or given twice. The other pseudo-header rules (RFC 9113 8.3) are the caller's.
//   headers  with capture, every field in order as [name, value] strings (a field sent as a
//            static index gets that entry's own pair, frozen); otherwise null.
//   grpcStatus  the grpc-status field (gRPC's trailer, 0 to 99) as an integer; -1 when absent,
//            not one or two digits, or given twice.
// Without capture no string is built and, unless the peer adds to its dynamic table, nothing is
// allocated: :status comes straight from the static index (8-14) or from the value's bytes, and
// grpc-status (never in the static table) from the value's bytes or its dynamic entry.
//
// Requests: encodeRequestHeaders() builds a block once per distinct request at setup; the run
// sends the same bytes for every request.

import {
  huffmanDecode,
  HUFFMAN_EOS,
  HUFFMAN_PADDING_TOO_LONG,
  HUFFMAN_PADDING_NOT_ONES,
  HUFFMAN_OVER_LIMIT,
} from './huffman.js';

// Appendix A (each line's first index at its right).
const STATIC = [
  [':authority', ''], [':method', 'GET'], [':method', 'POST'], [':path', '/'],                // 1
  [':path', '/index.html'], [':scheme', 'http'], [':scheme', 'https'], [':status', '200'],    // 5
  [':status', '204'], [':status', '206'], [':status', '304'], [':status', '400'],             // 9
  [':status', '404'], [':status', '500'], ['accept-charset', ''],                             // 13
  ['accept-encoding', 'gzip, deflate'], ['accept-language', ''], ['accept-ranges', ''],       // 16
  ['accept', ''], ['access-control-allow-origin', ''], ['age', ''], ['allow', ''],            // 19
  ['authorization', ''], ['cache-control', ''], ['content-disposition', ''],                  // 23
  ['content-encoding', ''], ['content-language', ''], ['content-length', ''],                 // 26
  ['content-location', ''], ['content-range', ''], ['content-type', ''], ['cookie', ''],      // 29
  ['date', ''], ['etag', ''], ['expect', ''], ['expires', ''], ['from', ''], ['host', ''],    // 33
  ['if-match', ''], ['if-modified-since', ''], ['if-none-match', ''], ['if-range', ''],       // 39
  ['if-unmodified-since', ''], ['last-modified', ''], ['link', ''], ['location', ''],         // 43
  ['max-forwards', ''], ['proxy-authenticate', ''], ['proxy-authorization', ''],              // 47
  ['range', ''], ['referer', ''], ['refresh', ''], ['retry-after', ''], ['server', ''],       // 50
  ['set-cookie', ''], ['strict-transport-security', ''], ['transfer-encoding', ''],           // 55
  ['user-agent', ''], ['vary', ''], ['via', ''], ['www-authenticate', ''],                    // 58
];

/** The static table, 1-based as in Appendix A (STATIC_TABLE[0] is null); frozen pairs. */
export const STATIC_TABLE = Object.freeze([null, ...STATIC.map((entry) => Object.freeze(entry))]);
const STATIC_COUNT = 61;

const utf8 = new TextEncoder();
// UTF-8 as the HTTP/1.1 side decodes heads; ignoreBOM keeps a value's leading bytes as sent.
const text = new TextDecoder('utf-8', { ignoreBOM: true });

const NOT_STATUS = -2; // an entry whose name is not :status (-1: :status with an invalid value)
const STATUS_NAME = utf8.encode(':status');
const GRPC_STATUS_NAME = utf8.encode('grpc-status');
// Per static index: the name's bytes (copied when a literal indexes it), the entry's size
// (4.1; the static table is ASCII, so string lengths are byte lengths) and its status.
const STATIC_NAME_BYTES = STATIC_TABLE.map((entry) => entry && utf8.encode(entry[0]));
const STATIC_SIZES = Int32Array.from(STATIC_TABLE, (e) => (e ? e[0].length + e[1].length + 32 : 0));
const STATIC_STATUS = Int16Array.from(STATIC_TABLE, (e) => (e && e[0] === ':status' ? +e[1] : NOT_STATUS));

// The longest block decode() keeps to repeat (see remember): nginx's is 48 bytes.
const LAST_MAX = 256;

// 5.1 lets a decoder bound integers: no length, index or table size of ours comes near 2^31.
const MAX_INTEGER = 0x7fffffff;

// Failures of the readers below, returned in place of a position.
const E_TRUNCATED_INTEGER = -1;
const E_INTEGER_OVERFLOW = -2;
const E_TRUNCATED_STRING = -3;
const E_LIST_SIZE = -4;

// The readers' results, in module variables so that reading allocates nothing: a decode runs
// to its end synchronously, so no two decoders ever interleave here.
let intValue = 0;
let strBytes = null; // the block (a plain literal) or `scratch` (a Huffman-decoded one)
let strAt = 0;
let strLength = 0;
// Huffman-decoded strings, shared by all decoders; it grows to the longest string needed, which
// the header list limit bounds.
let scratch = new Uint8Array(1024);

/** Reads a 5.1 integer whose prefix is `mask`'s bits of buf[i]: the next position, or E_*. */
function readInteger(buf, i, end, mask) {
  let value = buf[i++] & mask;
  if (value < mask) {
    intValue = value;
    return i;
  }
  for (let unit = 1; ; unit *= 128) {
    if (i >= end) return E_TRUNCATED_INTEGER;
    const b = buf[i++];
    value += (b & 0x7f) * unit;
    if (value > MAX_INTEGER) return E_INTEGER_OVERFLOW;
    if (b < 0x80) break;
    // A sixth continuation byte could only overflow or add zeros: refusing it also ends an
    // endless run of 0x80.
    if (unit > 2 ** 21) return E_INTEGER_OVERFLOW;
  }
  intValue = value;
  return i;
}

/**
 * Reads a 5.2 string literal at buf[i]. Sets strBytes, strAt and strLength, and returns the next
 * position or a failure. A Huffman string is decoded into scratch at `scratchAt` when `keep`,
 * else only checked and measured. Longer than `budget` bytes is E_LIST_SIZE.
 */
function readString(buf, i, end, keep, scratchAt, budget) {
  if (i >= end) return E_TRUNCATED_STRING;
  const huffman = buf[i] & 0x80;
  i = readInteger(buf, i, end, 0x7f);
  if (i < 0) return i;
  const length = intValue;
  if (length > end - i) return E_TRUNCATED_STRING;
  if (huffman === 0) {
    if (length > budget) return E_LIST_SIZE;
    strBytes = buf;
    strAt = i;
    strLength = length;
    return i + length;
  }
  let out = null;
  if (keep) {
    // At most one symbol per 5 bits (the shortest code).
    const need = scratchAt + Math.max(0, Math.min(budget, Math.floor((length * 8) / 5)));
    if (scratch.length < need) {
      const grown = new Uint8Array(Math.max(need, 2 * scratch.length));
      grown.set(scratch);
      scratch = grown;
    }
    out = scratch;
  }
  const n = huffmanDecode(buf, i, i + length, out, scratchAt, budget);
  if (n < 0) return n;
  strBytes = scratch;
  strAt = scratchAt;
  strLength = n;
  return i + length;
}

// A status from three digit bytes, 100 to 999 as the HTTP/1.1 parser takes them; else -1.
function parseStatus(buf, at, length) {
  if (length !== 3) return -1;
  let status = 0;
  for (let k = 0; k < 3; k++) {
    const d = buf[at + k] - 48;
    if (d < 0 || d > 9) return -1;
    status = status * 10 + d;
  }
  return status >= 100 ? status : -1;
}

function isName(buf, at, length, name) {
  if (length !== name.length) return false;
  for (let k = 0; k < length; k++) if (buf[at + k] !== name[k]) return false;
  return true;
}

// gRPC's codes are 0 to 16 (doc/grpc.md); two digits at most, else -1.
function parseGrpcStatus(buf, at, length) {
  if (length < 1 || length > 2) return -1;
  let code = 0;
  for (let k = 0; k < length; k++) {
    const d = buf[at + k] - 48;
    if (d < 0 || d > 9) return -1;
    code = code * 10 + d;
  }
  return code;
}

function decodeText(buf, at, length) {
  return length === 0 ? '' : text.decode(buf.subarray(at, at + length));
}

export class HpackDecoder {
  /**
   * maxTableSize: the SETTINGS_HEADER_TABLE_SIZE we advertise, the most a size update may ask
   * for (6.3). maxHeaderListSize: the most a decoded block may hold, counted as in RFC 9113
   * 6.5.2 (name and value lengths plus 32 per field).
   */
  constructor({ maxTableSize = 4096, maxHeaderListSize = 65536 } = {}) {
    this.limit = maxTableSize;
    this.maxHeaderListSize = maxHeaderListSize;
    this.status = -1;
    this.grpcStatus = -1;
    this.headers = null;
    // The dynamic table (2.3.2, 4). Entries are kept as bytes in `ring`, a circular buffer,
    // because most are never read as text: without capture a response refers to them only to
    // find :status, which each entry notes as a number when it is added (`statusOf`). Adding an
    // entry then copies bytes and allocates nothing. Strings are made the first time a capture
    // needs one and kept with the entry (`names`, `values`), so a header sent as an index costs
    // one decode for the life of its entry. The bytes never outgrow the table: each entry costs
    // 32 more than its bytes (4.1), so maxTableSize bytes hold every entry the table can.
    this.maxSize = maxTableSize; // the current maximum, lowered or raised by size updates
    this.size = 0;
    this.count = 0;
    this.ring = new Uint8Array(maxTableSize);
    this.head = 0; // where the next entry's bytes go: right after the newest entry's
    // Entry k (1: newest) is in slot (newest - k + 1) mod slots; at most size / 32 entries.
    const slots = Math.max(1, Math.floor(maxTableSize / 32));
    this.newest = 0;
    this.at = new Int32Array(slots);
    this.nameLength = new Int32Array(slots);
    this.valueLength = new Int32Array(slots);
    this.statusOf = new Int16Array(slots);
    this.grpcOf = new Int16Array(slots); // as statusOf, for grpc-status
    this.names = new Array(slots).fill(null);
    this.values = new Array(slots).fill(null);
    // Each entry's [name, value] as a captured list gives it: the same frozen array each time it
    // is indexed (a gRPC server sends the same fields with every response), as the static
    // table's are.
    this.pairs = new Array(slots).fill(null);
    // The last block decoded, when decoding it again would do the same (remember, repeat).
    this.last = null; // its bytes, from the first block kept
    this.lastLength = -1; // -1: none to repeat
    this.lastInserted = 0;
    this.lastStatus = -1;
    this.lastGrpc = -1;
  }

  /**
   * Decodes a whole header block, block[start, end): null, or why the block (and so the
   * connection) fails. start and end spare the caller a subarray when a HEADERS frame's block
   * lies whole in its read buffer.
   * One piece on purpose: it runs for every response's HEADERS, one loop over the block with
   * what it found in locals (status, grpc-status, the list's size), as the parser's head is.
   */
  decode(block, capture = false, start = 0, end = block.length) {
    if (!capture && end - start === this.lastLength && this.isLast(block, start, end)) return this.repeat();
    this.lastLength = -1;
    this.status = -1;
    this.grpcStatus = -1;
    this.headers = capture ? [] : null;
    const max = this.maxHeaderListSize;
    // Whether decoding the block again would do the same: see remember().
    let dynamic = false; // it names a dynamic entry
    let sized = false; // it updates the table's size
    let inserted = 0; // entries it adds
    let insertedSize = 0;
    let dropped = false; // an entry larger than the table, which emptied it
    let i = start;
    let listSize = 0;
    let started = false; // a field was seen: size updates may only come before (4.2)
    let status = -1;
    let statusSeen = false;
    let grpc = -1;
    let grpcSeen = false;
    while (i < end) {
      const b = block[i];
      if (b >= 0x80) {
        // 6.1 Indexed Header Field
        started = true;
        i = readInteger(block, i, end, 0x7f);
        if (i < 0) return this.reason(i);
        const index = intValue;
        let size;
        let entryStatus;
        if (index === 0) return 'hpack: index 0';
        if (index <= STATIC_COUNT) {
          size = STATIC_SIZES[index];
          entryStatus = STATIC_STATUS[index];
          if (capture) this.headers.push(STATIC_TABLE[index]);
        } else {
          if (index - STATIC_COUNT > this.count) return `hpack: index ${index} out of range`;
          dynamic = true;
          const slot = this.slot(index);
          size = this.nameLength[slot] + this.valueLength[slot] + 32;
          entryStatus = this.statusOf[slot];
          if (this.grpcOf[slot] !== NOT_STATUS) {
            grpc = grpcSeen ? -1 : this.grpcOf[slot];
            grpcSeen = true;
          }
          if (capture) this.headers.push(this.pair(slot));
        }
        if ((listSize += size) > max) return this.reason(E_LIST_SIZE);
        if (entryStatus !== NOT_STATUS) {
          status = statusSeen ? -1 : entryStatus;
          statusSeen = true;
        }
        continue;
      }
      if (b >= 0x20 && b < 0x40) {
        // 6.3 Dynamic Table Size Update
        if (started) return 'hpack: size update not at the start of a block';
        i = readInteger(block, i, end, 0x1f);
        if (i < 0) return this.reason(i);
        if (intValue > this.limit) return 'hpack: dynamic table size update over the limit';
        sized = true;
        this.maxSize = intValue;
        this.evict(0);
        continue;
      }
      // 6.2 Literal Header Field: with incremental indexing (01), without indexing (0000) or
      // never indexed (0001), the last two alike for a decoder.
      started = true;
      const indexing = b >= 0x40;
      i = readInteger(block, i, end, indexing ? 0x3f : 0x0f);
      if (i < 0) return this.reason(i);
      const nameIndex = intValue;
      let nameSlot = -1;
      let nameBytes = null;
      let nameAt = 0;
      let nameLength;
      let nameIsStatus;
      let nameIsGrpc = false;
      let valueScratchAt = 0;
      if (nameIndex === 0) {
        i = readString(block, i, end, true, 0, max - listSize - 32);
        if (i < 0) return this.reason(i);
        nameBytes = strBytes;
        nameAt = strAt;
        nameLength = strLength;
        nameIsStatus = isName(nameBytes, nameAt, nameLength, STATUS_NAME);
        nameIsGrpc = isName(nameBytes, nameAt, nameLength, GRPC_STATUS_NAME);
        if (nameBytes === scratch) valueScratchAt = nameLength;
      } else if (nameIndex <= STATIC_COUNT) {
        nameBytes = STATIC_NAME_BYTES[nameIndex];
        nameLength = nameBytes.length;
        nameIsStatus = STATIC_STATUS[nameIndex] !== NOT_STATUS;
      } else {
        if (nameIndex - STATIC_COUNT > this.count) return `hpack: index ${nameIndex} out of range`;
        dynamic = true;
        nameSlot = this.slot(nameIndex);
        nameBytes = this.ring;
        nameAt = this.at[nameSlot];
        nameLength = this.nameLength[nameSlot];
        nameIsStatus = this.statusOf[nameSlot] !== NOT_STATUS;
        nameIsGrpc = this.grpcOf[nameSlot] !== NOT_STATUS;
      }
      // The value's bytes are needed for a capture, a new entry or a status; otherwise a
      // Huffman value is only checked and measured.
      const keep = capture || indexing || nameIsStatus || nameIsGrpc;
      i = readString(block, i, end, keep, valueScratchAt, max - listSize - 32 - nameLength);
      if (i < 0) return this.reason(i);
      const valueBytes = strBytes;
      const valueAt = strAt;
      const valueLength = strLength;
      if ((listSize += nameLength + valueLength + 32) > max) return this.reason(E_LIST_SIZE);
      let entryStatus = NOT_STATUS;
      if (nameIsStatus) {
        entryStatus = parseStatus(valueBytes, valueAt, valueLength);
        status = statusSeen ? -1 : entryStatus;
        statusSeen = true;
      }
      let entryGrpc = NOT_STATUS;
      if (nameIsGrpc) {
        entryGrpc = parseGrpcStatus(valueBytes, valueAt, valueLength);
        grpc = grpcSeen ? -1 : entryGrpc;
        grpcSeen = true;
      }
      // Strings only with capture, but a static name costs nothing to keep with a new entry.
      let name = nameIndex > 0 && nameIndex <= STATIC_COUNT ? STATIC_TABLE[nameIndex][0] : null;
      let value = null;
      let pair = null;
      if (capture) {
        if (name === null) name = nameSlot >= 0 ? this.nameText(nameSlot) : decodeText(nameBytes, nameAt, nameLength);
        value = decodeText(valueBytes, valueAt, valueLength);
        this.headers.push((pair = Object.freeze([name, value])));
      } else if (nameSlot >= 0) {
        name = this.names[nameSlot];
      }
      if (indexing) {
        const slot = this.insert(nameBytes, nameAt, nameLength, nameSlot >= 0, valueBytes, valueAt, valueLength);
        inserted++;
        insertedSize += nameLength + valueLength + 32;
        if (slot < 0) dropped = true;
        if (slot >= 0) {
          this.statusOf[slot] = entryStatus;
          this.grpcOf[slot] = entryGrpc;
          this.names[slot] = name;
          this.values[slot] = value;
          this.pairs[slot] = pair;
        }
      }
    }
    this.status = status;
    this.grpcStatus = grpc;
    if (!sized && !dropped && (inserted === 0 || (!dynamic && 2 * insertedSize <= this.maxSize))) this.remember(block, start, end, inserted);
    return null;
  }

  // A server's blocks repeat: nginx sends the same one for every response within a second (each
  // field a literal with incremental indexing, the date changing once a second), and decoding
  // it (Huffman strings checked and copied, four entries added) was 12 % of node's profile of h2
  // over TLS. The block just decoded is kept when decoding it again next would do the same as
  // this time. That holds when it updates no size (nor empties the table with a large entry),
  // and either adds nothing (the table is then as this decode found it: it is the last block
  // decoded), or names no dynamic entry (its status and fields are then in its bytes) and adds
  // at most half the table: its entries are then the newest and stay while a repeat copies
  // them (repeat), so nothing else needs keeping.
  remember(block, start, end, inserted) {
    const length = end - start;
    if (length > LAST_MAX) return;
    if (this.last === null) this.last = new Uint8Array(LAST_MAX);
    const last = this.last;
    for (let k = 0; k < length; k++) last[k] = block[start + k];
    this.lastLength = length;
    this.lastInserted = inserted;
    this.lastStatus = this.status;
    this.lastGrpc = this.grpcStatus;
  }

  isLast(block, start, end) {
    const last = this.last;
    for (let k = 0, i = start; i < end; k++, i++) if (block[i] !== last[k]) return false;
    return true;
  }

  // The last block again: its entries, the newest of the table, added again in order.
  repeat() {
    const n = this.lastInserted;
    const slots = this.at.length;
    let src = this.newest - n + 1;
    if (src < 0) src += slots;
    for (let j = 0; j < n; j++) {
      this.insertCopy(src);
      if (++src === slots) src = 0;
    }
    this.status = this.lastStatus;
    this.grpcStatus = this.lastGrpc;
    this.headers = null;
    return null;
  }

  // Entry `src` again as the newest. Making room never evicts it (remember's half-table rule),
  // and its bytes are whole in the ring, name then value.
  insertCopy(src) {
    const nameLength = this.nameLength[src];
    const valueLength = this.valueLength[src];
    const entrySize = nameLength + valueLength + 32;
    this.evict(entrySize);
    const slots = this.at.length;
    const slot = (this.newest = this.newest + 1 === slots ? 0 : this.newest + 1);
    const from = this.at[src];
    this.at[slot] = this.head;
    this.nameLength[slot] = nameLength;
    this.valueLength[slot] = valueLength;
    const length = nameLength + valueLength;
    const ring = this.ring;
    const head = this.head;
    if (from + length <= ring.length && head + length <= ring.length) {
      // Neither end wraps: one move.
      ring.copyWithin(head, from, from + length);
      this.head = head + length === ring.length ? 0 : head + length;
    } else this.copyIn(ring, from, length, true);
    this.statusOf[slot] = this.statusOf[src];
    this.grpcOf[slot] = this.grpcOf[src];
    this.names[slot] = this.names[src];
    this.values[slot] = this.values[src];
    this.pairs[slot] = this.pairs[src];
    this.count++;
    this.size += entrySize;
  }

  // 4.4: evict until the new entry fits, then add it, unless it is larger than the table (which
  // is then left empty). The name may be that of an entry evicted here; its bytes are still in
  // the ring, and copying forward from `head` never overwrites one not yet read: the evicted
  // bytes lie after head, at the far end of the free space, so each byte is read before (or
  // as) the write position reaches it. Returns the new entry's slot, or -1.
  insert(nameBytes, nameAt, nameLength, nameInRing, valueBytes, valueAt, valueLength) {
    const entrySize = nameLength + valueLength + 32;
    this.evict(entrySize);
    if (entrySize > this.maxSize) return -1;
    const slots = this.at.length;
    const slot = (this.newest = this.newest + 1 === slots ? 0 : this.newest + 1);
    this.at[slot] = this.head;
    this.nameLength[slot] = nameLength;
    this.valueLength[slot] = valueLength;
    this.copyIn(nameBytes, nameAt, nameLength, nameInRing);
    this.copyIn(valueBytes, valueAt, valueLength, false);
    this.count++;
    this.size += entrySize;
    return slot;
  }

  // Evicts the oldest entries until `extra` more bytes fit under the current maximum (4.3, 4.4).
  evict(extra) {
    const slots = this.at.length;
    while (this.count > 0 && this.size + extra > this.maxSize) {
      let oldest = this.newest - this.count + 1;
      if (oldest < 0) oldest += slots;
      this.size -= this.nameLength[oldest] + this.valueLength[oldest] + 32;
      this.names[oldest] = null;
      this.values[oldest] = null;
      this.pairs[oldest] = null;
      this.count--;
    }
  }

  copyIn(src, at, length, fromRing) {
    const ring = this.ring;
    const cap = ring.length;
    let p = this.head;
    for (let k = 0; k < length; k++) {
      let q = at + k;
      if (fromRing && q >= cap) q -= cap;
      ring[p] = src[q];
      if (++p === cap) p = 0;
    }
    this.head = p;
  }

  slot(index) {
    const slot = this.newest - (index - STATIC_COUNT - 1);
    return slot < 0 ? slot + this.at.length : slot;
  }

  pair(slot) {
    let pair = this.pairs[slot];
    if (pair === null) pair = this.pairs[slot] = Object.freeze([this.nameText(slot), this.valueText(slot)]);
    return pair;
  }

  nameText(slot) {
    let name = this.names[slot];
    if (name === null) name = this.names[slot] = this.ringText(this.at[slot], this.nameLength[slot]);
    return name;
  }

  valueText(slot) {
    let value = this.values[slot];
    if (value === null) {
      let at = this.at[slot] + this.nameLength[slot];
      if (at >= this.ring.length) at -= this.ring.length;
      value = this.values[slot] = this.ringText(at, this.valueLength[slot]);
    }
    return value;
  }

  ringText(at, length) {
    const ring = this.ring;
    if (at + length <= ring.length) return decodeText(ring, at, length);
    // The entry wraps around the end of the ring: one piece, so a UTF-8 sequence is not split.
    const bytes = new Uint8Array(length);
    const first = ring.length - at;
    bytes.set(ring.subarray(at), 0);
    bytes.set(ring.subarray(0, length - first), first);
    return text.decode(bytes);
  }

  reason(code) {
    switch (code) {
      case E_TRUNCATED_INTEGER:
        return 'hpack: truncated integer';
      case E_INTEGER_OVERFLOW:
        return 'hpack: integer overflow';
      case E_TRUNCATED_STRING:
        return 'hpack: truncated string';
      case E_LIST_SIZE:
      case HUFFMAN_OVER_LIMIT:
        return `hpack: header list over ${this.maxHeaderListSize} bytes`;
      case HUFFMAN_EOS:
        return 'hpack: huffman EOS in a string';
      case HUFFMAN_PADDING_TOO_LONG:
        return 'hpack: huffman padding over 7 bits';
      case HUFFMAN_PADDING_NOT_ONES:
        return 'hpack: huffman padding not all ones';
      default:
        return `hpack: error ${code}`;
    }
  }

  /** The dynamic table's size (4.1), its current maximum and its number of entries. */
  get tableSize() {
    return this.size;
  }

  get tableMaxSize() {
    return this.maxSize;
  }

  get tableLength() {
    return this.count;
  }

  /** Dynamic table entry k (1: the newest) as [name, value], or null. */
  tableEntry(k) {
    if (k < 1 || k > this.count) return null;
    const slot = this.slot(k + STATIC_COUNT);
    return [this.nameText(slot), this.valueText(slot)];
  }
}

/**
 * Decodes a 5.1 integer at bytes[at] with a `prefixBits`-bit prefix: { value, next } or
 * { error } (the reason, as decode gives it). Not for hot paths: it returns an object.
 */
export function decodeInteger(bytes, at, prefixBits) {
  if (at >= bytes.length) return { error: 'hpack: truncated integer' };
  const next = readInteger(bytes, at, bytes.length, (1 << prefixBits) - 1);
  if (next === E_TRUNCATED_INTEGER) return { error: 'hpack: truncated integer' };
  if (next === E_INTEGER_OVERFLOW) return { error: 'hpack: integer overflow' };
  return { value: intValue, next };
}
