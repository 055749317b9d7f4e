// per-vu-iterations: each of `vus` VUs runs `iterations` of its own, within maxDuration.

import { graceful, loop } from './common.js';

export async function run(s, ctx) {
  let timeUp = false;
  const vus = ctx.vus.slice(0, s.vus);
  const done = new Map(vus.map((vu) => [vu, 0]));
  let total = 0;
  // As k6: the iterations done (those running are not) of all.
  ctx.progress = () => (total - ctx.running.underWay) / (s.iterations * s.vus);
  ctx.active(vus.length);
  const loops = vus.map((vu) => loop(ctx, vu, () => !timeUp && done.get(vu) < s.iterations && (done.set(vu, done.get(vu) + 1), total++, true)));
  let timer;
  await Promise.race([Promise.all(loops), new Promise((resolve) => (timer = setTimeout(resolve, s.maxDurationMs)))]);
  clearTimeout(timer);
  timeUp = true;
  await graceful(ctx.running, s.gracefulStopMs, vus);
  // As k6: the iterations maxDuration left to each VU are dropped, a sample of each VU's count
  // (none when the run was aborted).
  if (!ctx.stopped) for (const vu of vus) if (done.get(vu) < s.iterations) ctx.dropped(s.iterations - done.get(vu), vu);
  ctx.active(-vus.length);
}
