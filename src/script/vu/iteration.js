// One iteration of a VU in a scenario, as k6 runs one (k6's VU.runFn): its counters and
// environment, a new cookie jar, the scenario's function, the iteration's duration when it ends
// (an interrupted one is not counted), then what the options ask for after it.
//
// An iteration ends once, at its end or its cut (vu.cut: gracefulStop, an abort), whichever
// comes first; a looping VU then goes on (end()), and a promise of the end (ended()) is made only
// for who asks (a gracefulStop's wait, iterate()). What it calls back is made once per VU
// (vu.iterState), not per iteration: iterations are the loop every request of a script goes
// round.

import { CookieJar } from '../k6/http/cookies.js';
import { Interruption, ownEnv } from './vu.js';
import { messageOf } from './messages.js';
import { Stepper } from '../eventloop/wait.js';

// Read once: on node 20 the global `performance` is an accessor, a getter's call at each read.
const { performance } = globalThis;

// What a VU's iterations share: the one under way, and its callbacks.
class IterationState {
  constructor(vu) {
    this.vu = vu;
    this.run = null;
    this.scenario = null;
    this.t0 = 0;
    this.over = false; // the iteration under way has ended (or been cut)
    this.calling = false; // its function is being called (start())
    this.promise = null; // ended()'s, once asked for
    this.resolve = null; // that promise's
    this.slot = -1; // its place in the scenario's RunningIterations
    this.next = null; // iterateThen's: what goes on after the iteration, and what it fails with
    this.failLoop = null;
    this.ctx = null;
    this.cut = () => {
      // A cut iteration's bytes count too (k6's runFn gives them whatever the iteration's end).
      if (!this.over) this.run.state.io(vu, vu.currentTags());
      end(this, true);
    };
    this.settle = () => settle(this);
    this.after = () => {
      const r = after(this);
      vu.clockAt = 0; // no iteration follows in this turn
      return r;
    };
    this.count = () => count(this);
    this.fail = (err) => fail(this, err);
    this.afterThen = () => afterThen(this);
    // The scenario's function's generator that waits first, stepped here (wait.js): its end,
    // when it is the function's own, is the iteration's, a microtask later, as the reaction to
    // its promise had been (the jobs the function queued run first).
    this.stepper = new Stepper((failed, value) => queueMicrotask(failed ? () => fail(this, value) : this.settle));
  }

  /** A promise of the iteration's end. */
  ended() {
    if (this.promise === null) this.promise = this.over ? Promise.resolve() : new Promise((resolve) => (this.resolve = resolve));
    return this.promise;
  }
}

// The iteration ends (the first time only): its promise, if one was asked for, resolves, and a
// looping VU goes on: at once when the iteration's end came in a reaction of its own (its
// function's promise, its timers), in a microtask when it came within start() (a function that
// did not wait: iterations that never wait must not nest) or from a cut.
function end(it, later) {
  if (it.over) return;
  it.over = true;
  if (it.resolve !== null) it.resolve();
  if (it.next === null) return;
  if (later || it.calling) queueMicrotask(it.afterThen);
  else afterThen(it);
}

/**
 * The iterations of a scenario under way, for its gracefulStop to wait for. A list, each VU's
 * IterationState at its slot (a Set's churn made Set.prototype.delete allocate: 15 % of an
 * empty iteration's bytes on node).
 */
export class RunningIterations {
  constructor() {
    this.list = [];
    this.entering = 0; // 1 while an iteration's function runs its first step, before add()
  }

  get size() {
    return this.list.length;
  }

  /** The iterations begun and not ended, the one whose first step runs now too. */
  get underWay() {
    return this.list.length + this.entering;
  }

  add(it) {
    it.slot = this.list.length;
    this.list.push(it);
  }

  delete(it) {
    const last = this.list.pop();
    if (last !== it) {
      this.list[it.slot] = last;
      last.slot = it.slot;
    }
    it.slot = -1;
  }

  /** The promises of the iterations under way. */
  promises() {
    return this.list.map((it) => it.ended());
  }
}

/** Runs one iteration of `vu` in scenario `s`; resolves when it ends or is cut short. */
export function iterate(vu, s, ctx, run) {
  const it = start(vu, s, ctx, run, null, null);
  return it.ended().then(it.after);
}

/**
 * One iteration of `vu`, then next() (or fail(err)), as iterate() with no promise of its own:
 * for a VU that loops (executors/common.js): no promise of the iteration at all.
 */
export function iterateThen(vu, s, ctx, run, next, failLoop) {
  start(vu, s, ctx, run, next, failLoop);
}

function start(vu, s, ctx, run, next, failLoop) {
  begin(vu, s, run);
  const it = vu.iterState || (vu.iterState = new IterationState(vu));
  it.run = run;
  it.scenario = s;
  it.ctx = ctx;
  it.next = next;
  it.failLoop = failLoop;
  it.over = false;
  it.promise = null;
  it.resolve = null;
  vu.cut = it.cut;
  // The last iteration's end, when this one follows it in the same turn (done()); else now.
  it.t0 = vu.clockAt > 0 ? vu.clockAt : performance.now();
  vu.clockAt = 0;
  let r;
  let threw = false;
  it.calling = true;
  const stepper = it.stepper;
  if (stepper.gen === null) vu.stepper = stepper;
  ctx.running.entering = 1;
  try {
    r = vu.exports[s.exec](vu.data);
  } catch (err) {
    threw = true;
    fail(it, err);
  }
  ctx.running.entering = 0;
  vu.stepper = null;
  if (!threw) {
    // The function's own generator, stepped here: its end is the iteration's (the Stepper's).
    if (r !== null && r === stepper.promise) stepper.own = true;
    else if (r instanceof Promise) r.then(it.settle, it.fail);
    else settle(it);
  }
  it.calling = false;
  ctx.running.add(it);
  return it;
}

function begin(vu, s, run) {
  const options = run.shared.options;
  vu.busy = true;
  vu.scenario = s;
  vu.iter++;
  vu.iterationInScenario++;
  vu.iterationInInstance++;
  vu.scenarioIteration = s.iterationsStarted++;
  // As k6 activates a VU for a scenario: its own __ENV, the run's with the scenario's over it
  // (what the VU wrote in it stays its own, until it runs another scenario).
  if (vu.envScenario !== s) {
    vu.env = ownEnv(run.shared.env, s.env);
    vu.envScenario = s;
  }
  // k6 empties the VU's jar at each iteration: a new one, unless the last is as new (empty,
  // never given to the script), which most iterations leave it.
  if (!options.noCookiesReset && (vu.jar.handedOut || vu.jar.cookies.length > 0)) vu.jar = new CookieJar();
  vu.groupPath = '';
  if (vu.data === undefined && run.dataJson !== undefined) vu.data = JSON.parse(run.dataJson);
}

// The function has returned: the timers and requests it started (src/script/eventloop/event-loop.js)
// settle before the iteration ends.
function settle(it) {
  const loop = it.vu.loop;
  if (loop.busy) loop.settled().then(it.count, it.fail);
  else count(it);
}

function count(it) {
  if (!it.vu.interrupted) completed(it);
  end(it, false);
}

// A full iteration's samples, as k6's runFn gives them: its bytes, its duration, its count.
function completed(it) {
  const vu = it.vu;
  const now = performance.now();
  vu.clockAt = now;
  it.run.shared.iterationsCompleted++;
  it.run.state.iterationEnd(vu, now - it.t0, it.scenario.name);
}

// An exception ends the iteration, which counts (an interruption's does not).
function fail(it, err) {
  const vu = it.vu;
  // What it left open that k6 ends with its context (k6/net/grpc's streams): their last events
  // run now, in this iteration.
  if (!(err instanceof Interruption) && !vu.interrupted) for (const s of [...vu.sessions]) if (s.abandon) s.abandon();
  if (!(err instanceof Interruption) && !vu.interrupted) {
    it.run.state.warn(messageOf(err));
    completed(it);
  }
  end(it, false);
}

function afterThen(it) {
  try {
    const r = after(it);
    if (r === undefined) it.next(); // the next iteration, if any, starts in it, at vu.clockAt
    else r.then(it.next, it.failLoop);
  } catch (err) {
    it.failLoop(err);
  }
  it.vu.clockAt = 0;
}

function after(it) {
  const { vu, ctx, run, t0 } = it;
  const shared = run.shared;
  ctx.running.delete(it);
  vu.cut = null;
  if (vu.interrupted) shared.iterationsInterrupted++;
  // noVUConnectionReuse: the iteration's connections closed at its end (k6 closes the idle ones).
  if (shared.options.noVUConnectionReuse) vu.close();
  // What the iteration opened that ends with it (k6/browser's contexts), before the next.
  if (vu.iterationEnds !== undefined) return Promise.all(vu.iterationEnds.map((f) => f())).then(() => done(vu, run));
  // minIterationDuration: a full iteration shorter than it is followed by a sleep for the rest,
  // not counted in iteration_duration (the run's end wakes the VU).
  if (shared.minIterationMs > 0 && !vu.interrupted && !ctx.stopped) {
    const rest = shared.minIterationMs - (performance.now() - t0);
    if (rest > 0) {
      vu.clockAt = 0;
      return vu.sleep(rest).then(() => done(vu, run));
    }
  }
  return done(vu, run);
}

// Iterations that never wait (no request, no sleep) would follow each other in microtasks
// alone, and the timers that end a stage, a duration or the run (and a signal) would never
// come: every 10 ms one VU lets the event loop take a turn before its next iteration (after
// this one's end, so that an iteration is under way, in ctx.running, as soon as it starts).
// The clock read at the iteration's end (vu.clockAt, microtasks ago) serves here, and as the
// start of the next iteration if that follows in this turn: a read is a call (on Deno, an op),
// and an iteration made three. A response read since the last look (the network's count moved)
// came in a turn of the event loop, which ran its timers too: then no VU need wait a timer's
// turn (a millisecond and more, and its wake-up's CPU).
function done(vu, run) {
  vu.busy = false;
  const now = vu.clockAt > 0 ? vu.clockAt : performance.now();
  if (now - run.turnAt > 10) {
    run.turnAt = now;
    const network = run.shared.network;
    if (network !== null && network.answered !== run.answeredAt) {
      run.answeredAt = network.answered;
      return undefined;
    }
    vu.clockAt = 0;
    return new Promise((resolve) => setTimeout(resolve, 0));
  }
  return undefined;
}
