// src/script/secrets/: --secret-source and the run's secrets.
// The run's secrets, as k6 v2.2's secret manager keeps them: the sources of --secret-source
// (src/script/secrets/secret-sources.js), each secret looked up once (a url source's fetched
// when first asked for, and again after a failed fetch: src/script/secrets/url-source.js), and
// every value a lookup has given hidden from the run's log from then on: a line of the script's
// console, of --http-debug, an exception's or abort's message on stderr shows
// `***SECRET_REDACTED***` in its place. What is not a log line is left as it is, as in k6: the
// summary, handleSummary()'s output, --out files.
//
// --cores: the parent and its children each hold one, made from the same table; a value
// looked up in one process is hidden in all of them (`onFetch` tells the owner, which relays
// it: src/script/cores.js), so that a child's VU that logs setup()'s data or another child's
// secret is redacted as in k6, whose one process runs every VU. A child asks the parent for a
// url source's secret (its `fetch`), so that the run fetches each once, under one rate limit.

export const REDACTED = '***SECRET_REDACTED***';

export class SecretLookupError extends Error {}

const escape = (s) => s.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');

// Go's unicode.IsSpace: a value of nothing else hides nothing (k6 v2.2's hook skips it).
const BLANK = /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*$/;

export class Secrets {
  /**
   * `table`: loadSecretSources()'s, or toJSON()'s (with what was already looked up). `fetch(index,
   * key)`: a url source's lookup, a promise of the value (url-source.js's, or a child's question
   * to the parent).
   */
  constructor(table = { names: [], values: [] }, fetch = null) {
    this.names = new Map(table.names);
    this.table = table.values;
    // A mock's or file's values; a url source's, as they are fetched.
    this.values = table.values.map((v) => new Map(Array.isArray(v) ? v : []));
    this.fetch = fetch;
    this.fetched = new Set(); // `${index} ${key}`: what has been looked up (and so hidden)
    this.hidden = [];
    this.pattern = null;
    this.onFetch = null; // (ref: [index, key(, value of a url source)]) => void, at each value's first lookup here
    for (const ref of table.fetched || []) this.learn(ref);
  }

  /**
   * The value of `key` in the source `name` (a promise of it where it is to be fetched), or a
   * SecretLookupError in k6's words.
   */
  get(name, key) {
    if (this.values.length === 0) throw new SecretLookupError('no secret sources are configured');
    const index = this.names.get(name);
    if (index === undefined) throw new SecretLookupError(`no secret source with name ${JSON.stringify(name)} is configured`);
    return this.lookup(index, key);
  }

  /** The value of `key` in the source at `index` (what get() and a child's question come to). */
  lookup(index, key) {
    const value = this.values[index].get(key);
    if (value === undefined) {
      if (Array.isArray(this.table[index])) throw new SecretLookupError('no value');
      return this.fetch(index, key).then((fetched) => {
        this.found([index, key, fetched]);
        return fetched;
      });
    }
    this.found(Array.isArray(this.table[index]) ? [index, key] : [index, key, value]);
    return value;
  }

  found(ref) {
    if (this.learn(ref) && this.onFetch !== null) this.onFetch(ref);
  }

  /**
   * Hides the value of a lookup made here or elsewhere ([index, key], with the value for a url
   * source); true the first time.
   */
  learn([index, key, value]) {
    const id = `${index} ${key}`;
    if (this.fetched.has(id)) return false;
    const values = this.values[index];
    if (values === undefined) return false;
    if (value === undefined) value = values.get(key);
    else values.set(key, value);
    if (value === undefined) return false;
    this.fetched.add(id);
    if (!BLANK.test(value)) {
      this.hidden.push(value);
      // As Go's strings.Replacer: the leftmost match, and of those starting there the value
      // looked up first (a regular expression's alternation, in order).
      this.pattern = new RegExp(this.hidden.map(escape).join('|'), 'g');
    }
    return true;
  }

  /** `text` with every value looked up so far replaced by k6's mark. */
  redact(text) {
    if (this.pattern === null || typeof text !== 'string') return text;
    return text.replace(this.pattern, REDACTED);
  }

  /** The table and what has been looked up: what a --cores child is given. */
  toJSON() {
    return {
      names: [...this.names],
      values: this.table,
      fetched: [...this.fetched].map((id) => {
        const space = id.indexOf(' ');
        const index = Number(id.slice(0, space));
        const key = id.slice(space + 1);
        return Array.isArray(this.table[index]) ? [index, key] : [index, key, this.values[index].get(key)];
      }),
    };
  }
}
