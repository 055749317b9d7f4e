// constant-arrival-rate and ramping-arrival-rate: iterations started on a schedule whatever the
// system under test does (the open model), each on a free VU. With none free the iteration is
// dropped (dropped_iterations) and, up to maxVUs, one more VU is made in the background for the
// iterations to come, as in k6 (lib/executor: TryRunIteration, then makeUnplannedVUCh): every
// iteration of the schedule is started or dropped when it is due, never later.

import { graceful, sleep } from './common.js';
import { localCount } from '../scenarios.js';

/**
 * Iterations due by `t` ms: constant-arrival-rate's one at 0 and one each period after it;
 * ramping-arrival-rate's the integral of the rate over the stages (per ms), rounded down.
 */
export function dueBy(s, t) {
  if (s.executor === 'constant-arrival-rate') return Math.floor((t * s.rate) / s.timeUnitMs + 1e-9) + (t >= 0 ? 1 : 0);
  let from = s.startRate;
  let at = 0;
  let n = 0;
  for (const st of s.stages) {
    const span = Math.min(st.ms, Math.max(0, t - at));
    const rateAt = from + ((st.target - from) * span) / (st.ms || 1);
    n += ((from + rateAt) / 2) * (span / s.timeUnitMs);
    if (t < at + st.ms) break;
    at += st.ms;
    from = st.target;
  }
  // As k6's cal(): iteration i (from 1) starts when the area under the rate reaches i.
  return Math.floor(n + 1e-9);
}

export async function run(s, ctx) {
  const total = s.durationMs ?? s.stages.reduce((a, x) => a + x.ms, 0);
  const free = ctx.vus.slice(0, s.preAllocatedVUs);
  const all = free.slice();
  let making = null; // the VU being made, one at a time
  let warned = false;
  let started = 0;
  const start = performance.now();
  ctx.progress = () => Math.min(1, (performance.now() - start) / total);
  const go = (vu) => {
    ctx.active(1);
    ctx.iterate(vu).then(() => {
      ctx.active(-1);
      if (!vu.interrupted) free.push(vu);
    });
  };
  const more = () => {
    if (all.length + (making === null ? 0 : 1) >= s.maxVUs) {
      if (!warned) ctx.warn(`Insufficient VUs, reached ${s.maxVUs} active VUs and cannot initialize more`);
      warned = true;
    } else if (making === null) {
      making = ctx.newVU().then((nv) => {
        making = null;
        all.push(nv);
        free.push(nv);
      });
    }
  };
  while (!ctx.stopped) {
    // A late timer past the end still starts what was due before it: the schedule, not the
    // timer, says how many iterations the run has. The end itself is in it, as in k6 (whose
    // tick at the end comes before the end of the duration: 11 iterations at 5/s for 2 s).
    const t = Math.min(performance.now() - start, total);
    const due = localCount(s, dueBy(s, t));
    while (started < due) {
      started++;
      const vu = free.shift(); // the VU free the longest, as k6 takes them in turn
      if (vu !== undefined) go(vu);
      else {
        ctx.dropped();
        more();
      }
    }
    if (t >= total) break; // what was due at the end itself is started
    await sleep(1);
  }
  if (making !== null) await making;
  await graceful(ctx.running, s.gracefulStopMs, all);
}
