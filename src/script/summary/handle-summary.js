// The script's handleSummary(data), within handleSummaryTimeout (k6 v2.2, grafana/k6#5854; a
// fixed 120 s before, still the default). As k6: the call ends when the function has returned,
// its promise settled and its timers run; an exception is logged and the summary printed as if
// there were no handleSummary(); past the time, k6 logs "failed to handle the end-of-test
// summary" with its timeout error and nothing at all is printed or written (neither the summary
// nor --summary-export, both of which k6 makes after the call), and the exit code is the run's.
//
// k6 interrupts its VU's runtime at the deadline, a busy loop too. A call here runs on the
// process's one thread and cannot be cut: a promise (an async handleSummary, a sleep) and the
// timers are raced against the deadline (and the timers then cleared); a synchronous function
// that returns past it is taken as timed out, as k6 would have cut it (k6's checkDeadline after
// the call does the same). One that never returns is waited for.

import { timeoutMessage } from '../scenarios/duration.js';

const TIMED_OUT = Symbol('timed out');

/**
 * Calls `handle(data)` within `ms`, its timers in `loop` (VU 0's event loop); `onError(err)` is
 * told of its exception. Resolves to { out } (its result, or null after an exception) or
 * { timedOut: message }.
 */
export async function callHandleSummary(handle, data, { ms, loop }, onError) {
  const deadline = performance.now() + ms;
  let timer;
  let late = null;
  const inTime = (promise) => {
    late ??= new Promise((resolve) => (timer = setTimeout(resolve, Math.max(0, deadline - performance.now()), TIMED_OUT)));
    return Promise.race([promise, late]);
  };
  try {
    let out = null;
    try {
      out = handle(data);
      if (out instanceof Promise) out = await inTime(out);
    } catch (err) {
      // k6 logs the exception, then checks the deadline.
      onError(err);
    }
    // A timer's exception is logged too, and the function's result kept (k6's runFn).
    if (out !== TIMED_OUT && loop.busy && (await inTime(loop.settled().then(() => null, (err) => onError(err)))) === TIMED_OUT) out = TIMED_OUT;
    if (out === TIMED_OUT || performance.now() >= deadline) {
      loop.stop();
      return { timedOut: timeoutMessage('handleSummary', ms) };
    }
    return { out };
  } finally {
    clearTimeout(timer);
  }
}
