// Why a text is not JSON, in the words of Go's encoding/json (its scanner's SyntaxError) and at
// the line and character k6 v2.2 counts for res.json(): `cannot parse json due to an error at
// line 2, character 7 , error: invalid character 'x' looking for beginning of value`. Read only
// once JSON.parse has refused the text: both take the same grammar.

const encoder = new TextEncoder();
const WHITESPACE = new Set([0x20, 0x09, 0x0d, 0x0a]);
const isDigit = (c) => c >= 0x30 && c <= 0x39;
const isHex = (c) => isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);

const SPACE_WRONG = /numeric literal|in literal|escape/;

class JSONSyntax extends Error {
  constructor(message, offset) {
    super(message);
    this.offset = offset; // Go's: the bytes read, the offending one's included
  }
}

/** k6's message for `text`, which JSON.parse refused; null when Go's scanner finds nothing wrong. */
export function goJSONError(text) {
  const bytes = encoder.encode(text);
  try {
    new Scanner(bytes).document();
    return null;
  } catch (err) {
    if (!(err instanceof JSONSyntax)) throw err;
    const [line, character] = position(text, err.offset);
    return `cannot parse json due to an error at line ${line}, character ${character} , error: ${err.message}`;
  }
}

// k6's checkErrorInJSON: the line and the character (runes, from 1) of the byte at offset - 1.
function position(text, offset) {
  const at = offset > 0 ? offset - 1 : 0;
  let line = 1;
  let character = 0;
  let i = 0; // the byte index of each character, as Go's range over a string gives it
  for (const ch of text) {
    if (ch === '\n') {
      line++;
      character = 0;
    } else character++;
    if (i >= at) {
      if (ch === '\n') character = 1;
      break;
    }
    i += encoder.encode(ch).length;
  }
  return [line, character];
}

// Go's quoteChar: a byte as a quoted character.
function quoteChar(c) {
  if (c === 0x27) return "'\\''";
  if (c === 0x22) return "'\"'";
  const quoted = JSON.stringify(String.fromCharCode(c)).slice(1, -1);
  if (c < 0x20 && !/^\\[bfnrt]$/.test(quoted)) return `'\\x${c.toString(16).padStart(2, '0')}'`;
  if (c >= 0x7f && c < 0xa0) return `'\\u${c.toString(16).padStart(4, '0')}'`;
  return `'${quoted}'`;
}

// A recursive reading with the states of Go's scanner and its messages.
class Scanner {
  constructor(bytes) {
    this.b = bytes;
    this.i = 0;
  }

  fail(context) {
    // At the end, Go's scanner steps a space: where a space is wrong (in a number, a literal, an
    // escape), that is the error; elsewhere the input ended too soon.
    if (this.i >= this.b.length) throw new JSONSyntax(SPACE_WRONG.test(context) ? `invalid character ' ' ${context}` : 'unexpected end of JSON input', this.b.length);
    throw new JSONSyntax(`invalid character ${quoteChar(this.b[this.i])} ${context}`, this.i + 1);
  }

  peek() {
    while (this.i < this.b.length && WHITESPACE.has(this.b[this.i])) this.i++;
    return this.i < this.b.length ? this.b[this.i] : -1;
  }

  document() {
    this.value();
    if (this.peek() !== -1) this.fail('after top-level value');
  }

  value() {
    const c = this.peek();
    if (c === 0x7b) return this.object();
    if (c === 0x5b) return this.array();
    if (c === 0x22) return this.string();
    if (c === 0x2d || isDigit(c)) return this.number();
    if (c === 0x74) return this.literal('true');
    if (c === 0x66) return this.literal('false');
    if (c === 0x6e) return this.literal('null');
    return this.fail('looking for beginning of value');
  }

  object() {
    this.i++;
    if (this.peek() === 0x7d) return this.i++;
    for (;;) {
      if (this.peek() !== 0x22) this.fail('looking for beginning of object key string');
      this.string();
      if (this.peek() !== 0x3a) this.fail('after object key');
      this.i++;
      this.value();
      const c = this.peek();
      if (c === 0x7d) return this.i++;
      if (c !== 0x2c) this.fail('after object key:value pair');
      this.i++;
    }
  }

  array() {
    this.i++;
    if (this.peek() === 0x5d) return this.i++;
    for (;;) {
      this.value();
      const c = this.peek();
      if (c === 0x5d) return this.i++;
      if (c !== 0x2c) this.fail('after array element');
      this.i++;
    }
  }

  string() {
    this.i++;
    for (;;) {
      const c = this.i < this.b.length ? this.b[this.i] : -1;
      if (c === 0x22) return this.i++;
      if (c === 0x5c) {
        this.i++;
        this.escape();
        continue;
      }
      if (c < 0x20) this.fail('in string literal');
      this.i++;
    }
  }

  escape() {
    const c = this.i < this.b.length ? this.b[this.i] : -1;
    if ('bfnrt\\/"'.includes(String.fromCharCode(c)) && c !== -1) return this.i++;
    if (c !== 0x75) this.fail('in string escape code');
    this.i++;
    for (let k = 0; k < 4; k++) {
      if (this.i >= this.b.length || !isHex(this.b[this.i])) this.fail('in \\u hexadecimal character escape');
      this.i++;
    }
  }

  number() {
    if (this.b[this.i] === 0x2d) {
      this.i++;
      if (this.i >= this.b.length || !isDigit(this.b[this.i])) this.fail('in numeric literal');
    }
    if (this.b[this.i] === 0x30) this.i++;
    else while (this.i < this.b.length && isDigit(this.b[this.i])) this.i++;
    if (this.b[this.i] === 0x2e) {
      this.i++;
      if (this.i >= this.b.length || !isDigit(this.b[this.i])) this.fail('after decimal point in numeric literal');
      while (this.i < this.b.length && isDigit(this.b[this.i])) this.i++;
    }
    if (this.b[this.i] === 0x65 || this.b[this.i] === 0x45) {
      this.i++;
      if (this.b[this.i] === 0x2b || this.b[this.i] === 0x2d) this.i++;
      if (this.i >= this.b.length || !isDigit(this.b[this.i])) this.fail('in exponent of numeric literal');
      while (this.i < this.b.length && isDigit(this.b[this.i])) this.i++;
    }
  }

  literal(word) {
    for (let k = 0; k < word.length; k++) {
      if (this.i >= this.b.length || this.b[this.i] !== word.charCodeAt(k)) this.fail(`in literal ${word} (expecting ${quoteChar(word.charCodeAt(k))})`);
      this.i++;
    }
  }
}
