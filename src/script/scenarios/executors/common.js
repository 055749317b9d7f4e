// What the executors share: waiting out a gracefulStop, and VUs that loop until told to stop.

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

/**
 * Waits for `running` (the iterations under way: RunningIterations of iteration.js) for at
 * most `graceMs`; VUs whose iteration is still out then are interrupted (k6's gracefulStop),
 * and not waited for.
 */
export async function graceful(running, graceMs, vus) {
  if (running.size === 0) return;
  let timer;
  const late = new Promise((resolve) => (timer = setTimeout(() => resolve('late'), graceMs)));
  const all = Promise.all(running.promises());
  const outcome = await Promise.race([all, late]);
  clearTimeout(timer);
  if (outcome === 'late') for (const vu of vus) if (vu.busy) vu.interrupt();
}

/** A VU that runs iterations one after the other while `more()` says so; resolves when it stops. */
export function loop(ctx, vu, more) {
  return new Promise((resolve, reject) => {
    const next = () => {
      if (more() && !ctx.stopped && !vu.interrupted) ctx.iterateThen(vu, next, reject);
      else resolve();
    };
    next();
  });
}
