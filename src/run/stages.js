// Stages: a target that ramps linearly from 0 to the first stage's target over its duration,
// then from each stage's target to the next one's (as k6 does). For --stages the target is the
// request rate (the open model); for --connection-stages it is the number of connections (the
// closed model).
//
// The rate's schedule stays exact: request k of the whole run (every process, every shard) is
// due at the time t where the number of requests the ramp has asked for so far, N(t), the
// integral of the rate, reaches k. A process that takes k = offset, offset + stride, ... (the
// children of --cores, the shards of --shard) computes the times of its own requests only, and
// together they send exactly the one schedule.

const UNITS = { ms: 0.001, s: 1, m: 60, h: 3600 };

/** '10s:100,30s:1000,10s:0' or [{ duration, target }] (duration in seconds, or '500ms', '2m'). */
export function parseStages(value, name = 'stages') {
  if (value === undefined || value === null || value === '') return null;
  const list = Array.isArray(value)
    ? value
    : String(value).split(',').map((part) => {
        const m = /^\s*([^:]+):\s*([^:]+?)\s*$/.exec(part);
        if (!m) throw new Error(`${name}: '${part}' must be duration:target, e.g. 10s:100`);
        return { duration: m[1].trim(), target: m[2] };
      });
  if (list.length === 0) throw new Error(`${name}: at least one stage, e.g. 10s:100`);
  return list.map((stage, i) => {
    if (!stage || typeof stage !== 'object') throw new Error(`${name}: stage ${i + 1} must be { duration, target }`);
    const duration = seconds(stage.duration, `${name}: stage ${i + 1}'s duration`);
    const target = Number(stage.target);
    if (typeof stage.target === 'boolean' || String(stage.target).trim() === '' || !Number.isFinite(target) || target < 0) {
      throw new Error(`${name}: stage ${i + 1}'s target must be a number, zero or more, got '${stage.target}'`);
    }
    return { duration, target };
  });
}

function seconds(value, what) {
  if (typeof value === 'number' && Number.isFinite(value) && value > 0) return value;
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/.exec(String(value));
  const n = m ? Number(m[1]) * UNITS[m[2] || 's'] : NaN;
  if (!(n > 0)) throw new Error(`${what} must be a time above zero such as 10s, 500ms or 2m, got '${value}'`);
  return n;
}

/** The stages' total duration, in seconds. */
export const stagesDuration = (stages) => stages.reduce((sum, s) => sum + s.duration, 0);

/** The highest target of the stages. */
export const highestTarget = (stages) => stages.reduce((max, s) => Math.max(max, s.target), 0);

/** The target at `t` seconds from the start: linear within each stage, 0 before, the last after. */
export function targetAt(stages, t) {
  let from = 0;
  let start = 0;
  for (const s of stages) {
    if (t < start + s.duration) return t <= start ? from : from + ((s.target - from) * (t - start)) / s.duration;
    from = s.target;
    start += s.duration;
  }
  return from;
}

/**
 * The open model's schedule under rate stages, for a process that sends requests offset,
 * offset + stride, ... of the whole run. timeOf(n) is when its n-th request is due (ms from
 * the run's origin; Infinity after the last stage), countBy(ms) how many are due by then, and
 * countBefore(ms) how many strictly before.
 */
export class StageSchedule {
  constructor(stages, stride = 1, offset = 0) {
    this.stride = stride;
    this.offset = offset;
    // Per stage: start (s), duration, rate at its start, rate at its end, requests before it.
    this.segments = [];
    let from = 0;
    let start = 0;
    let before = 0;
    for (const s of stages) {
      this.segments.push({ start, duration: s.duration, r0: from, r1: s.target, before });
      before += ((from + s.target) / 2) * s.duration;
      from = s.target;
      start += s.duration;
    }
    this.total = before; // requests the whole ramp asks for (a fraction of one is never due)
    this.end = start;
  }

  /** N(t): requests the ramp has asked for by t seconds. */
  requestsBy(t) {
    if (t <= 0) return 0;
    for (const g of this.segments) {
      if (t < g.start + g.duration) {
        const u = t - g.start;
        return g.before + g.r0 * u + ((g.r1 - g.r0) * u * u) / (2 * g.duration);
      }
    }
    return this.total;
  }

  // The t (seconds) where N(t) = k: the root of a quadratic within k's stage, in the form that
  // stays exact when the rate is flat (a = 0) or starts at zero (b = 0).
  timeOfRequest(k) {
    if (k > this.total) return Infinity;
    for (const g of this.segments) {
      const inStage = ((g.r0 + g.r1) / 2) * g.duration;
      if (k <= g.before + inStage || g === this.segments[this.segments.length - 1]) {
        const left = k - g.before;
        if (left <= 0) return g.start;
        const a = (g.r1 - g.r0) / (2 * g.duration);
        const b = g.r0;
        const root = Math.sqrt(Math.max(0, b * b + 4 * a * left));
        return g.start + Math.min(g.duration, (2 * left) / (b + root));
      }
    }
    return Infinity;
  }

  timeOf(n) {
    return this.timeOfRequest(n * this.stride + this.offset) * 1000;
  }

  countBy(ms) {
    const k = this.requestsBy(ms / 1000);
    return k < this.offset ? 0 : Math.floor((k - this.offset) / this.stride + 1e-9) + 1;
  }

  countBefore(ms) {
    const k = this.requestsBy(ms / 1000);
    return k <= this.offset ? 0 : Math.ceil((k - this.offset) / this.stride - 1e-9);
  }
}

/**
 * Connections this process should have open at `t` seconds under connection stages: of the
 * whole run's round(target), the ones numbered offset, offset + stride, ...
 */
export function connectionsAt(stages, t, stride = 1, offset = 0) {
  const all = Math.round(targetAt(stages, t));
  return all > offset ? Math.floor((all - 1 - offset) / stride) + 1 : 0;
}
