// A run's tag sets made once and shared by every VU, where a sample's tags are read (--out, the
// full summary, a sub-metric): a VU's own tags, a request's for its URL and status, a check's.
// The same content is then the same object, which --out's queue (sample-queue.js) knows by
// reference, and no object is made a request. A script whose URLs carry ids (`/items/${id}`) has
// a tag set per URL, each VU going through them all in turn: a cache of each VU's own would hold
// VUs × URLs objects.

// Bounds: past them a map starts again (what it held stays correct where it is used).
const MAX_SETS = 10000;
const PER_NAME = 8;

/** A tag set's content as a string: its keys and values in their order. */
export function keyOf(tags) {
  let key = '';
  for (const k in tags) key += `${k}\u0000${tags[k]}\u0001`;
  return key;
}

/** Whether `e`, an entry of TagSets.request(), is that of a request of these. */
export const isRequestEntry = (e, base, name, method, status, proto, expected, tls, ip) =>
  e.base === base && e.name === name && e.method === method && e.status === status && e.proto === proto && e.expected === expected && e.tls === tls && e.ip === ip;

export class TagSets {
  constructor() {
    this.byKey = new Map(); // keyOf → the set of that content
    this.requests = new Map(); // request name → [{ base, name, method, status, proto, expected, tls, ip, tags }]
    this.checks = new Map(); // check name → [{ base, tags }]
  }

  /** The set of `tags`' content: the first object given with it. */
  intern(tags) {
    const key = keyOf(tags);
    const known = this.byKey.get(key);
    if (known !== undefined) return known;
    if (this.byKey.size >= MAX_SETS) this.byKey.clear();
    this.byKey.set(key, tags);
    return tags;
  }

  /**
   * The entry of a request's tags with `base` (an interned VU's set) and `name` ({ base, name,
   * method, status, proto, expected, tls, ip, tags }; `tls`: the connection's TLS version, `ip`
   * its address where the run keeps ip), or undefined: k6/http/http.js's requestTags(), for a
   * request without tags of its own nor an error, which adds them (addRequest) when it has made
   * them.
   */
  request(base, name, method, status, proto, expected, tls, ip) {
    const list = this.requests.get(name);
    if (list === undefined) return undefined;
    for (let i = 0; i < list.length; i++) {
      const e = list[i];
      if (isRequestEntry(e, base, name, method, status, proto, expected, tls, ip)) return e;
    }
    return undefined;
  }

  /** The new entry of `tags` (request()). */
  addRequest(base, name, method, status, proto, expected, tls, ip, tags) {
    const entry = { base, name, method, status, proto, expected, tls, ip, tags };
    add(this.requests, name, entry);
    return entry;
  }

  /** A check's tags with `base` (an interned VU's set), or undefined; then addCheck(). */
  check(base, name) {
    const list = this.checks.get(name);
    if (list === undefined) return undefined;
    for (let i = 0; i < list.length; i++) if (list[i].base === base) return list[i].tags;
    return undefined;
  }

  addCheck(base, name, tags) {
    add(this.checks, name, { base, tags });
  }
}

function add(map, name, entry) {
  let list = map.get(name);
  if (list === undefined) {
    if (map.size >= MAX_SETS) map.clear();
    list = [];
    map.set(name, list);
  }
  if (list.length === PER_NAME) list.shift();
  list.push(entry);
}
