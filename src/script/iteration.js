// One iteration of a VU in a scenario, as k6 runs one (k6's VU.runFn): its counters and
// environment, a new cookie jar, the scenario's function, the iteration's duration when it ends
// (an interrupted one is not counted), then what the options ask for after it.

import { CookieJar } from './k6/cookies.js';
import { Interruption } from './vu.js';
import { messageOf } from './messages.js';

/** Runs one iteration of `vu` in scenario `s`; resolves when it ends or is cut short. */
export async function iterate(vu, s, ctx, run) {
  const { shared, state } = run;
  const options = shared.options;
  vu.busy = true;
  vu.scenario = s;
  vu.iteration++;
  vu.iterationInScenario++;
  vu.iterationInInstance++;
  vu.scenarioIteration = s.iterationsStarted++;
  vu.env = Object.keys(s.env).length ? { ...shared.env, ...s.env } : shared.env;
  if (!options.noCookiesReset) vu.jar = new CookieJar(); // k6 empties the VU's jar at each iteration
  vu.groupPath = '';
  if (vu.data === undefined && run.dataJson !== undefined) vu.data = JSON.parse(run.dataJson);
  const fn = vu.exports[s.exec];
  const t0 = performance.now();
  const p = (async () => {
    try {
      const r = fn(vu.data);
      if (r instanceof Promise) await r;
      // The timers and requests it started (src/script/event-loop.js).
      if (vu.loop.busy) await vu.loop.settled();
      if (vu.interrupted) return;
      shared.iterationsCompleted++;
      state.iteration(performance.now() - t0, vu.tags(), s.name);
    } catch (err) {
      if (err instanceof Interruption || vu.interrupted) return;
      state.warn(messageOf(err));
      shared.iterationsCompleted++;
      state.iteration(performance.now() - t0, vu.tags(), s.name);
    }
  })();
  const cut = new Promise((resolve) => (vu.cut = resolve));
  const ended = Promise.race([p, cut]);
  ctx.running.add(ended);
  await ended;
  ctx.running.delete(ended);
  vu.cut = null;
  if (vu.interrupted) shared.iterationsInterrupted++;
  // noVUConnectionReuse: the iteration's connections closed at its end (k6 closes the idle ones).
  if (options.noVUConnectionReuse) vu.close();
  // minIterationDuration: a full iteration shorter than it is followed by a sleep for the rest,
  // not counted in iteration_duration (the run's end wakes the VU).
  if (shared.minIterationMs > 0 && !vu.interrupted && !ctx.stopped) {
    const rest = shared.minIterationMs - (performance.now() - t0);
    if (rest > 0) await vu.sleep(rest);
  }
  vu.busy = false;
  // Iterations that never wait (no request, no sleep) would follow each other in microtasks
  // alone, and the timers that end a stage, a duration or the run (and a signal) would never
  // come: every 10 ms one VU lets the event loop take a turn before its next iteration (after
  // this one's end, so that an iteration is under way, in ctx.running, as soon as it starts).
  const now = performance.now();
  if (now - run.turnAt > 10) {
    run.turnAt = now;
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
}
