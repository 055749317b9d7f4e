// ramping-vus: the number of looping VUs follows the stages, from startVUs, linearly within each
// stage. A VU above the target finishes its iteration (within gracefulRampDown) and waits.

import { graceful, sleep } from './common.js';
import { globalSlot } from '../scenarios.js';

/**
 * The stages' target at `t` ms, interpolated from `start`: as k6 steps it, a VU more when the
 * line reaches the next whole number going up, a VU less when it reaches the one below going
 * down (k6's getRawExecutionSteps).
 */
export function targetAt(start, stages, t) {
  let from = start;
  let at = 0;
  for (const s of stages) {
    if (t < at + s.ms) {
      const v = from + ((s.target - from) * (t - at)) / s.ms;
      return s.target >= from ? Math.floor(v + 1e-9) : Math.ceil(v - 1e-9);
    }
    at += s.ms;
    from = s.target;
  }
  return from;
}

export async function run(s, ctx) {
  const vus = ctx.vus.slice(0, s.maxVUs);
  const total = s.stages.reduce((a, x) => a + x.ms, 0);
  const start = performance.now();
  let target = s.startVUs;
  let over = false;
  ctx.progress = () => Math.min(1, (performance.now() - start) / total);
  const loops = new Map();
  let active = 0;
  const rampDown = new Map(); // vu → when it was asked to stop
  // With --cores, local VU i holds the global slot globalSlot(s, i): the shares add up to the target.
  const want = (i) => !over && globalSlot(s, i) < target;
  const startLoop = (vu, i) => {
    active++;
    ctx.active(1);
    const p = (async () => {
      while (want(i) && !ctx.stopped && !vu.interrupted) await ctx.iterate(vu);
      loops.delete(vu);
      active--;
      ctx.active(-1);
    })();
    loops.set(vu, p);
  };
  while (!ctx.stopped) {
    const t = performance.now() - start;
    if (t >= total) break;
    target = targetAt(s.startVUs, s.stages, t);
    for (let i = 0; i < vus.length; i++) {
      let vu = vus[i];
      if (want(i) && !loops.has(vu) && !vu.busy) {
        // One cut short by gracefulRampDown stays so: a new VU takes its place.
        if (vu.interrupted) vu = vus[i] = await ctx.newVU();
        rampDown.delete(vu);
        startLoop(vu, i);
      } else if (!want(i) && loops.has(vu)) {
        if (!rampDown.has(vu)) rampDown.set(vu, t);
        else if (t - rampDown.get(vu) > s.gracefulRampDownMs && vu.busy) vu.interrupt();
      }
    }
    await sleep(Math.min(50, total - t));
  }
  over = true;
  await graceful(ctx.running, s.gracefulStopMs, vus);
  if (active > 0) ctx.active(-active);
}
