// shared-iterations: `iterations` in all, taken by `vus` VUs as each becomes free, within
// maxDuration.

import { graceful, loop } from './common.js';

export async function run(s, ctx) {
  let taken = 0;
  let timeUp = false;
  let timer;
  // One timer, cleared once the iterations are done: a run in a library's process ends with them.
  const late = new Promise((resolve) => (timer = setTimeout(() => resolve((timeUp = true)), s.maxDurationMs)));
  // As k6: the iterations done (those running are not) of all.
  ctx.progress = () => (taken - ctx.running.underWay) / s.iterations;
  const more = () => !timeUp && taken < s.iterations && (taken++, true);
  const vus = ctx.vus.slice(0, s.vus);
  ctx.active(vus.length);
  const loops = vus.map((vu) => loop(ctx, vu, more));
  await Promise.race([Promise.all(loops), late]);
  timeUp = true;
  clearTimeout(timer);
  await graceful(ctx.running, s.gracefulStopMs, vus);
  // As k6: the iterations maxDuration left untaken are dropped, in one sample (none when the
  // run was aborted).
  if (!ctx.stopped && taken < s.iterations) ctx.dropped(s.iterations - taken);
  ctx.active(-vus.length);
}
