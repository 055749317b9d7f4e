// constant-vus: `vus` VUs looping for `duration`; k6 v1's externally-controlled too, whose
// duration may be Infinity (until the run is stopped).

import { graceful, loop } from './common.js';

export async function run(s, ctx) {
  const vus = ctx.vus.slice(0, s.vus);
  const start = performance.now();
  const end = start + s.durationMs;
  ctx.progress = () => Math.min(1, (performance.now() - start) / s.durationMs);
  ctx.active(vus.length);
  // The clock read at the end of the iteration just ended (vu.clockAt), if it is one's.
  const loops = vus.map((vu) => loop(ctx, vu, () => (vu.clockAt > 0 ? vu.clockAt : performance.now()) < end));
  let timer;
  const over = Number.isFinite(s.durationMs) ? new Promise((resolve) => (timer = setTimeout(resolve, s.durationMs))) : new Promise(() => {});
  await Promise.race([Promise.all(loops), over]);
  clearTimeout(timer);
  await graceful(ctx.running, s.gracefulStopMs, vus);
  ctx.active(-vus.length);
}
