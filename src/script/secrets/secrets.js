// src/script/secrets/: --secret-source and the run's secrets.
// The run's secrets, as k6 v1.3's secret manager keeps them: the sources of --secret-source
// (src/script/secrets/secret-sources.js), each secret looked up once, and every value a lookup has
// given hidden from the run's log from then on: a line of the script's console, of
// --http-debug, an exception's or abort's message on stderr shows `***SECRET_REDACTED***` in
// its place. What is not a log line is left as it is, as in k6: the summary, handleSummary()'s
// output, --out files.
//
// --cores: the parent and its children each hold one, made from the same table; a value
// looked up in one process is hidden in all of them (`onFetch` tells the owner, which relays
// it: src/script/cores.js), so that a child's VU that logs setup()'s data or another child's
// secret is redacted as in k6, whose one process runs every VU.

export const REDACTED = '***SECRET_REDACTED***';

export class SecretLookupError extends Error {}

const escape = (s) => s.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');

export class Secrets {
  /** `table`: loadSecretSources()'s, or toJSON()'s (with what was already looked up). */
  constructor(table = { names: [], values: [] }) {
    this.names = new Map(table.names);
    this.values = table.values.map((pairs) => new Map(pairs));
    this.fetched = new Set(); // `${index} ${key}`: what has been looked up (and so hidden)
    this.hidden = [];
    this.pattern = null;
    this.onFetch = null; // (ref: [index, key]) => void, at each value's first lookup here
    for (const [index, key] of table.fetched || []) this.learn([index, key]);
  }

  /** The value of `key` in the source `name`, or a SecretLookupError in k6's words. */
  get(name, key) {
    if (this.values.length === 0) throw new SecretLookupError('no secret sources are configured');
    const index = this.names.get(name);
    if (index === undefined) throw new SecretLookupError(`no secret source with name ${JSON.stringify(name)} is configured`);
    const value = this.values[index].get(key);
    if (value === undefined) throw new SecretLookupError('no value');
    if (this.learn([index, key]) && this.onFetch !== null) this.onFetch([index, key]);
    return value;
  }

  /** Hides the value of a lookup made here or elsewhere ([index, key]); true the first time. */
  learn([index, key]) {
    const id = `${index} ${key}`;
    if (this.fetched.has(id)) return false;
    const value = this.values[index] && this.values[index].get(key);
    if (value === undefined) return false;
    this.fetched.add(id);
    // An empty value would match everywhere (k6 v1.3 marks every line between each of its
    // bytes): there is nothing of it to hide.
    if (value !== '') {
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
      values: this.values.map((m) => [...m]),
      fetched: [...this.fetched].map((id) => {
        const space = id.indexOf(' ');
        return [Number(id.slice(0, space)), id.slice(space + 1)];
      }),
    };
  }
}
