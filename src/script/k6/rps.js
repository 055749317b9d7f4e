// The rps option: every request of the run at most `perSecond` a second, spaced evenly (k6's
// rate.Limiter with a burst of 1); each request takes its turn before it is sent.

export function rpsLimiter(perSecond) {
  const gap = 1000 / perSecond;
  let nextAt = 0;
  return {
    take() {
      const now = performance.now();
      const at = Math.max(now, nextAt);
      nextAt = at + gap;
      return at > now ? new Promise((resolve) => setTimeout(resolve, at - now)) : undefined;
    },
  };
}
