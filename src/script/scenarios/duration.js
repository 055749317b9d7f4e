// k6's durations: '30s', '1m30s', '1h', '500ms', '1.5s', or a number of milliseconds.

const UNITS = { ms: 1, s: 1000, m: 60000, h: 3600000, us: 0.001, µs: 0.001, ns: 0.000001 };

/** Milliseconds of a duration; `what` names it in the error. */
export function parseDuration(value, what) {
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return value;
  const text = String(value).trim();
  // As k6 (types.ParseExtendedDuration): a number without a unit is milliseconds, in an option
  // ('1500' is 1.5s) as in a variable; its command line's flags refuse one (run-flags.js).
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text);
  let ms = 0;
  let rest = text;
  const part = /^(\d+(?:\.\d+)?)(ms|us|µs|ns|s|m|h)/;
  if (rest === '') throw new Error(`${what}: '${value}' is not a duration (30s, 1m30s, 500ms)`);
  while (rest.length) {
    const m = part.exec(rest);
    if (!m) throw new Error(`${what}: '${value}' is not a duration (30s, 1m30s, 500ms)`);
    ms += Number(m[1]) * UNITS[m[2]];
    rest = rest.slice(m[0].length);
  }
  return ms;
}

/** A duration as k6 gives one, in Go's form (time.Duration's String): 1m30s, 1m0s, 2.5s, 120ms, 500µs, 0s. */
export function formatDuration(ms) {
  if (ms === 0) return '0s';
  if (ms < 0.001) return `${Math.round(ms * 1e6)}ns`;
  if (ms < 1) return `${round(ms * 1000)}µs`;
  if (ms < 1000) return `${round(ms)}ms`;
  const h = Math.floor(ms / 3600000);
  const m = Math.floor((ms % 3600000) / 60000);
  const s = (ms % 60000) / 1000;
  return `${h ? `${h}h` : ''}${h || m ? `${m}m` : ''}${round(s)}s`;
}

const round = (v) => String(Math.round(v * 1000) / 1000);

/**
 * k6's timeout error of setup(), teardown() or handleSummary(): its seconds as Go's "%.f" prints
 * them, a half to the even one (2.5 s is "2 seconds", 1.5 s "2").
 */
export function timeoutMessage(place, ms) {
  const s = ms / 1000;
  const whole = Math.floor(s);
  const rounded = s - whole === 0.5 ? whole + (whole % 2 === 0 ? 0 : 1) : Math.round(s);
  return `${place}() execution timed out after ${rounded} seconds`;
}
