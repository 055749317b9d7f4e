// src/script/eventloop/: a VU's event loop and what waits in it.
// A VU's event loop as k6 has it (k6's eventloop): an iteration ends when its function has
// returned *and* everything it started has settled — each timer (setTimeout until it fires,
// setInterval until it is cleared) and each promise of k6's it did not wait for
// (http.asyncRequest). A callback that throws, or a promise that rejects, is the iteration's
// exception. The timers are k6's globals (v0.51+) and k6/timers' functions.

export class EventLoop {
  constructor() {
    this.pending = 0; // timers and promises not settled
    this.timers = new Map(); // id → { handle, interval }
    this.nextId = 1;
    this.error = null; // the first exception of a callback
    this.waiter = null; // resolves settled()
  }

  setTimeout = (fn, ms = 0, ...args) => this.add(fn, ms, args, false);
  setInterval = (fn, ms = 0, ...args) => this.add(fn, ms, args, true);
  clearTimeout = (id) => this.clear(id);
  clearInterval = (id) => this.clear(id);

  add(fn, ms, args, interval) {
    if (typeof fn !== 'function') throw new TypeError(`${interval ? 'setInterval' : 'setTimeout'}'s callback must be a function`);
    const id = this.nextId++;
    const delay = Math.max(0, Number(ms) || 0);
    // A timeout is pending until its callback has run (and tracked the promise it made); an
    // interval's callback holds the iteration while it runs too: one that clears itself and then
    // makes a request would otherwise end the iteration with that request under way.
    const fire = () => {
      if (interval) this.pending++;
      else this.timers.delete(id);
      this.call(fn, args);
      this.release();
    };
    const handle = interval ? setInterval(fire, delay) : setTimeout(fire, delay);
    this.timers.set(id, { handle, interval });
    this.pending++;
    return id;
  }

  clear(id) {
    const t = this.timers.get(id);
    if (t === undefined) return;
    if (t.interval) clearInterval(t.handle);
    else clearTimeout(t.handle);
    this.timers.delete(id);
    this.release();
  }

  // A callback: its exception, or its promise's rejection, is the iteration's; a promise it
  // returns (it made a request) is waited for.
  call(fn, args) {
    try {
      const r = fn(...args);
      if (r instanceof Promise) this.track(r, true);
    } catch (err) {
      this.fail(err);
    }
  }

  /**
   * A promise the iteration started and may not wait for (http.asyncRequest's): the iteration
   * ends after it. `failing`: its rejection is the iteration's exception (a callback's), else
   * the script's to handle.
   */
  track(promise, failing = false) {
    this.pending++;
    promise.then(
      () => this.release(),
      (err) => {
        if (failing) this.fail(err);
        this.release();
      },
    );
    return promise;
  }

  /** Whether the iteration must wait for something it started. */
  get busy() {
    return this.pending > 0 || this.error !== null;
  }

  fail(err) {
    if (this.error === null) this.error = err;
    if (this.waiter !== null) this.release(true);
  }

  release(now = false) {
    if (!now) this.pending--;
    if ((this.pending <= 0 || this.error !== null) && this.waiter !== null) {
      const w = this.waiter;
      this.waiter = null;
      w();
    }
  }

  /** Resolves once nothing is pending (or a callback failed); throws that callback's exception. */
  async settled() {
    if (this.pending > 0 && this.error === null) await new Promise((resolve) => (this.waiter = resolve));
    if (this.error !== null) {
      const err = this.error;
      this.stop();
      throw err;
    }
  }

  /** Every timer cleared, nothing pending: the iteration is over (its end, or cut short). */
  stop() {
    for (const t of this.timers.values()) (t.interval ? clearInterval : clearTimeout)(t.handle);
    this.timers.clear();
    this.pending = 0;
    this.error = null;
    if (this.waiter !== null) {
      const w = this.waiter;
      this.waiter = null;
      w();
    }
  }
}
