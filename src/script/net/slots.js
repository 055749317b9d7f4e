// What a VU's HTTP/2 client and gRPC channel have out, by index: the index is a slot, taken
// again once free, so that a call out is an array read, not a Map's. A Map keyed by an index
// that only grows churned at every call (a set, a get or two, a delete: `take` was 2 % of a
// gRPC script's time on node). An index is unique among the entries out, not over time: what
// may outlive its entry (a cancel queued in a microtask) asks holds(entry) first.

export class Slots {
  constructor() {
    this.entries = [];
    this.free = [];
    this.size = 0;
  }
  /** Puts `entry` in a free slot; returns its index. */
  add(entry) {
    const i = this.free.length > 0 ? this.free.pop() : this.entries.length;
    this.entries[i] = entry;
    this.size++;
    return i;
  }
  get(i) {
    return this.entries[i];
  }
  /** Whether `entry` is still out at its index. */
  holds(entry, i) {
    return this.entries[i] === entry;
  }
  delete(i) {
    if (this.entries[i] === undefined) return;
    this.entries[i] = undefined;
    this.free.push(i);
    this.size--;
  }
  /** The entries out, in a new array (what is done with them may delete them). */
  values() {
    const out = [];
    for (const e of this.entries) if (e !== undefined) out.push(e);
    return out;
  }
  clear() {
    this.entries = [];
    this.free = [];
    this.size = 0;
  }
}
