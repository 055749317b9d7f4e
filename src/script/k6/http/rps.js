// The rps option: every request of the run at most `perSecond` a second, spaced evenly (k6's
// rate.Limiter with a burst of 1); each request takes its turn before it is sent.
//
// A timer cannot wait less than a millisecond, and fires late by about one: a turn less than a
// millisecond away is taken at once (VUs each made to wait a whole one for a turn 40 µs away
// held 10 VUs under 10 000 requests a second at --rps 25000), a timer is set to wake a
// millisecond before the turn, and a turn taken up to a millisecond late does not move the
// schedule (the next is one gap after the last turn's time, not after its late taking: on Deno,
// where a timer is an op, the check loop at --rps 15000 lost a quarter of its rate). The
// schedule advances one gap a request, so a window of time gets at most its share and two
// milliseconds' worth.
const TIMER_MS = 1;

/** `clock`: milliseconds (performance.now(), or a test's own). */
export function rpsLimiter(perSecond, clock = () => performance.now()) {
  const gap = 1000 / perSecond;
  let nextAt = 0;
  return {
    take() {
      const now = clock();
      const at = nextAt === 0 ? now : Math.max(now - TIMER_MS, nextAt);
      nextAt = at + gap;
      return at - now >= TIMER_MS ? new Promise((resolve) => setTimeout(resolve, at - now - TIMER_MS)) : undefined;
    },
  };
}
