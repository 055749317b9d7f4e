// One line of an NDJSON feed read in its bytes, without JSON.parse: the common line, an object
// of plain keys whose values are strings, numbers, true, false or null. A string, an object and
// its keys a line, for a file's hundreds of thousands of lines, was garbage that peaked at two
// to four times the file before the collectors caught up. Anything else (an object or array as
// a value, a key with an escape or one JSON.parse would put first, text that is not JSON) is
// left to JSON.parse (SLOW), which also words the errors.

import { decode, QUOTED } from './csv.js';

export const ROW = 1;
export const BLANK = 0;
export const SLOW = -1;
/** A cell for null, which fills as ''. */
export const EMPTY = 0xfffffffe;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN = 0x7b;
const CLOSE = 0x7d;
const MINUS = 0x2d;
const ZERO = 0x30;
const NINE = 0x39;
const TRUE = [0x74, 0x72, 0x75, 0x65];
const FALSE = [0x66, 0x61, 0x6c, 0x73, 0x65];
const NULL = [0x6e, 0x75, 0x6c, 0x6c];

/**
 * bytes[start, end): a line (no LF). Returns ROW with `members` holding key start, key end, cell
 * and the cell's size in bytes for each member in order (a cell: where the value starts in the
 * bytes, a string's past its quote; or QUOTED | its index in `values`, where the value's string
 * is pushed, or EMPTY, both of size 0), BLANK for a line of white space, or SLOW.
 */
export function readLine(bytes, start, end, members, values) {
  members.length = 0;
  // What String.prototype.trim() takes off a line, in ASCII: JSON.parse's white space, VT, FF.
  let i = trim(bytes, start, end);
  if (i === end) return BLANK;
  if (bytes[i] !== OPEN) return SLOW;
  i = skip(bytes, i + 1, end);
  if (i < end && bytes[i] === CLOSE) i++;
  else {
    for (;;) {
      if (i >= end || bytes[i] !== QUOTE) return SLOW;
      const keyStart = i + 1;
      const keyEnd = plainKeyEnd(bytes, keyStart, end);
      if (keyEnd < 0) return SLOW;
      i = skip(bytes, keyEnd + 1, end);
      if (i >= end || bytes[i] !== COLON) return SLOW;
      i = skip(bytes, i + 1, end);
      i = value(bytes, i, end, values);
      if (i < 0) return SLOW;
      // A string's last byte is its closing quote.
      const size = cellRead < QUOTED ? (bytes[i - 1] === QUOTE ? i - 1 : i) - cellRead : 0;
      members.push(keyStart, keyEnd, cellRead, size);
      i = skip(bytes, i, end);
      if (i >= end) return SLOW;
      if (bytes[i] === CLOSE) {
        i++;
        break;
      }
      if (bytes[i] !== COMMA) return SLOW;
      i = skip(bytes, i + 1, end);
    }
  }
  return trim(bytes, i, end) === end ? ROW : SLOW;
}

// A key's closing quote, or -1 for a key left to JSON.parse: one with an escape or beyond
// printable ASCII (its bytes would not name it one way), or one that starts with a digit (an
// array index, which Object.keys gives before the others).
function plainKeyEnd(bytes, i, end) {
  if (bytes[i] >= ZERO && bytes[i] <= NINE) return -1;
  for (; i < end; i++) {
    const b = bytes[i];
    if (b === QUOTE) return i;
    if (b < 0x20 || b > 0x7e || b === BACKSLASH) return -1;
  }
  return -1;
}

let cellRead = 0;

// The value at i: sets cellRead, returns its end, or -1.
function value(bytes, i, end, values) {
  const b = bytes[i];
  if (b === QUOTE) {
    let escaped = false;
    let j = i + 1;
    for (; j < end; j++) {
      const c = bytes[j];
      if (c === QUOTE) break;
      if (c < 0x20) return -1;
      if (c === BACKSLASH) {
        escaped = true;
        j++;
      }
    }
    if (j >= end) return -1;
    j++;
    if (!escaped) {
      cellRead = i + 1;
      return j;
    }
    // Escapes: JSON.parse reads (and checks) this one string.
    let v;
    try {
      v = JSON.parse(decode(bytes, i, j));
    } catch {
      return -1;
    }
    cellRead = kept(values, v);
    return j;
  }
  if (b === MINUS || (b >= ZERO && b <= NINE)) return number(bytes, i, values);
  if (is(bytes, i, end, TRUE) || is(bytes, i, end, NULL)) {
    cellRead = b === 0x6e ? EMPTY : i;
    return i + 4;
  }
  if (is(bytes, i, end, FALSE)) {
    cellRead = i;
    return i + 5;
  }
  return -1;
}

// A JSON number: kept where it starts if String() writes it as written (an integer of up to 15
// digits, not -0, always is), else as String() writes it.
function number(bytes, i, values) {
  let j = i;
  if (bytes[j] === MINUS) j++;
  const first = j;
  if (bytes[j] === ZERO) j++;
  else if (digit(bytes[j])) while (digit(bytes[j])) j++;
  else return -1;
  let plain = j - first <= 15 && !(j - first === 1 && bytes[first] === ZERO && first > i);
  if (bytes[j] === 0x2e) {
    j++;
    if (!digit(bytes[j])) return -1;
    while (digit(bytes[j])) j++;
    plain = false;
  }
  if (bytes[j] === 0x65 || bytes[j] === 0x45) {
    j++;
    if (bytes[j] === 0x2b || bytes[j] === MINUS) j++;
    if (!digit(bytes[j])) return -1;
    while (digit(bytes[j])) j++;
    plain = false;
  }
  if (plain) {
    cellRead = i;
    return j;
  }
  const text = decode(bytes, i, j);
  const written = String(Number(text));
  cellRead = written === text ? i : kept(values, written);
  return j;
}

const digit = (b) => b >= ZERO && b <= NINE;

function kept(values, v) {
  values.push(v);
  return (QUOTED | (values.length - 1)) >>> 0;
}

function is(bytes, i, end, word) {
  if (i + word.length > end) return false;
  for (let k = 0; k < word.length; k++) if (bytes[i + k] !== word[k]) return false;
  return true;
}

// JSON's white space within a line.
function skip(bytes, i, end) {
  while (i < end) {
    const b = bytes[i];
    if (b !== 0x20 && b !== 0x09 && b !== 0x0d) break;
    i++;
  }
  return i;
}

function trim(bytes, i, end) {
  while (i < end) {
    const b = bytes[i];
    if (b !== 0x20 && b !== 0x09 && b !== 0x0d && b !== 0x0b && b !== 0x0c) break;
    i++;
  }
  return i;
}
