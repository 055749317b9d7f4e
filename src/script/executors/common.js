// What the executors share: waiting out a gracefulStop, and VUs that loop until told to stop.

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

/**
 * Waits for `running` (promises of iterations under way) for at most `graceMs`; VUs whose
 * iteration is still out then are interrupted (k6's gracefulStop), and not waited for.
 */
export async function graceful(running, graceMs, vus) {
  if (running.size === 0) return;
  let timer;
  const late = new Promise((resolve) => (timer = setTimeout(() => resolve('late'), graceMs)));
  const all = Promise.all([...running]);
  const outcome = await Promise.race([all, late]);
  clearTimeout(timer);
  if (outcome === 'late') for (const vu of vus) if (vu.busy) vu.interrupt();
}

/** A VU that runs iterations one after the other while `more()` says so; resolves when it stops. */
export async function loop(ctx, vu, more) {
  while (more() && !ctx.stopped && !vu.interrupted) {
    await ctx.iterate(vu);
  }
}
