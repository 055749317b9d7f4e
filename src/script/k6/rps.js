// The rps option: every request of the run at most `perSecond` a second, spaced evenly (k6's
// rate.Limiter with a burst of 1); each request takes its turn before it is sent.
//
// A turn less than a millisecond away is taken at once: a timer cannot wait less than one, and
// VUs each made to wait a whole one for a turn 40 µs away (25 000/s) held 10 VUs under 10 000
// requests a second. The schedule still advances one gap a request, so no window of time gets
// more than its share plus a millisecond's worth.
const TIMER_MS = 1;

export function rpsLimiter(perSecond) {
  const gap = 1000 / perSecond;
  let nextAt = 0;
  return {
    take() {
      const now = performance.now();
      const at = Math.max(now, nextAt);
      nextAt = at + gap;
      return at - now >= TIMER_MS ? new Promise((resolve) => setTimeout(resolve, at - now)) : undefined;
    },
  };
}
