// What waits in a script, told apart from what does not, at run time.
//
// A call that returns at once in k6 but waits here (http.get, sleep, a script's function that
// made a request) returns a promise marked WAIT; the code the transform writes around a call
// (src/script/transform/transform.js) suspends its VU on a marked promise and on nothing else. A promise
// the script means to have (http.asyncRequest, its own async functions) is not marked and
// reaches it as it would in k6.
//
// A function of the script that may wait runs as a generator driven by drive(): as long as
// nothing it calls waits, it runs to its end at once and returns its value, exactly as written
// (so a built-in that calls it synchronously, such as SharedArray's factory, sort's comparator
// or a getter, gets that value); the first marked promise it meets makes it go on later, and
// it returns a marked promise of its value.

export const WAIT = Symbol('loadtest.wait');

/** `p`, marked as a wait. */
export function waiting(p) {
  p[WAIT] = true;
  return p;
}

// A function the transform made async where only code of ours calls it (src/script/transform/suspend.js):
// whatever promise it returns is a wait.
export const MADE = Symbol('loadtest.made');

export function made(fn) {
  fn[MADE] = true;
  return fn;
}

/** A method that uses super runs its body as an async arrow function (src/script/transform/suspend.js). */
export function waits(body) {
  return waiting(body());
}

export function isWait(v) {
  return v instanceof Promise && v[WAIT] === true;
}

/**
 * Runs a generator made by the transform: its value at once, or a marked promise of it. `this`
 * is the VU: while an iteration calls the scenario's function, the first of its generators to
 * wait is stepped by the iteration itself (a Stepper, below), which most often is
 * that function's own: the iteration then ends as the generator does, with no async function
 * between them (a request's allocations are the loop every VU goes round).
 */
export function drive(gen) {
  const r = gen.next();
  if (r.done) return r.value;
  const stepper = this.stepper;
  if (stepper !== undefined && stepper !== null && stepper.gen === null) {
    this.stepper = null;
    return stepper.take(gen, r.value);
  }
  return waiting(resume(gen, r.value));
}

/**
 * Steps one generator at a time past its waits, as resume() does, without an async function:
 * an iteration's (src/script/vu/iteration.js), made once per VU. take() returns the marked promise
 * of the generator's value; when start() got that promise back from the function (`own`), its
 * end is told to `ended(failed, value)` instead, and its rejection is handled here.
 */
export class Stepper {
  constructor(ended) {
    this.ended = ended;
    this.gen = null;
    this.promise = null;
    this.own = false;
    this.resolve = null;
    this.reject = null;
    this.executor = (resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    };
    this.next = (value) => this.step(false, value);
    this.throw = (err) => this.step(true, err);
  }

  take(gen, wait) {
    this.gen = gen;
    this.own = false;
    this.promise = waiting(new Promise(this.executor));
    this.waitOn(wait);
    return this.promise;
  }

  waitOn(wait) {
    (wait instanceof Promise ? wait : Promise.resolve(wait)).then(this.next, this.throw);
  }

  step(failed, value) {
    let r;
    try {
      r = failed ? this.gen.throw(value) : this.gen.next(value);
    } catch (err) {
      this.end(true, err);
      return;
    }
    if (r.done) this.end(false, r.value);
    else this.waitOn(r.value);
  }

  end(failed, value) {
    const { own, promise } = this;
    this.gen = null;
    this.promise = null;
    this.own = false;
    if (failed) {
      this.reject(value);
      if (own) promise.then(undefined, noop);
    } else {
      this.resolve(value);
    }
    if (own) this.ended(failed, value);
  }
}

const noop = () => {};

async function resume(gen, wait) {
  for (;;) {
    let value;
    let failed = false;
    try {
      value = await wait;
    } catch (err) {
      failed = true;
      value = err;
    }
    const r = failed ? gen.throw(value) : gen.next(value);
    if (r.done) return r.value;
    wait = r.value;
  }
}
