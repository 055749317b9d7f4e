// Welch's two-sample t-test (R's t.test default, the test Node's benchmark/compare.R runs) and
// the summary figures `loadtest compare` prints. The p-value needs Student's t CDF, which is a
// regularized incomplete beta function: computed here by its continued fraction (Numerical
// Recipes' betacf, modified Lentz) with a Lanczos log-gamma, rather than a statistics package for
// these forty lines.

// Lanczos approximation, g = 7, 9 terms: about 15 significant digits for x > 0.
const LANCZOS = [
  0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
  12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
];

/** ln Γ(x) for x > 0. */
export function logGamma(x) {
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  x -= 1;
  let sum = LANCZOS[0];
  for (let i = 1; i < LANCZOS.length; i++) sum += LANCZOS[i] / (x + i);
  const t = x + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (x + 0.5) * Math.log(t) - t + Math.log(sum);
}

const TINY = 1e-300;

// The continued fraction of I_x(a, b); converges fast for x < (a + 1) / (a + b + 2).
function betaFraction(a, b, x) {
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  if (Math.abs(d) < TINY) d = TINY;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= 300; m++) {
    const m2 = 2 * m;
    for (const aa of [(m * (b - m) * x) / ((a - 1 + m2) * (a + m2)), (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + 1 + m2))]) {
      d = 1 + aa * d;
      if (Math.abs(d) < TINY) d = TINY;
      c = 1 + aa / c;
      if (Math.abs(c) < TINY) c = TINY;
      d = 1 / d;
      h *= d * c;
    }
    if (Math.abs(d * c - 1) < 1e-15) break;
  }
  return h;
}

/** The regularized incomplete beta function I_x(a, b). */
export function incompleteBeta(x, a, b) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log(1 - x));
  if (x < (a + 1) / (a + b + 2)) return (front * betaFraction(a, b, x)) / a;
  return 1 - (front * betaFraction(b, a, 1 - x)) / b;
}

/** P(|T| >= |t|) for Student's t with df degrees of freedom (df may be fractional, as Welch's is). */
export function twoSidedP(t, df) {
  if (Number.isNaN(t) || !(df > 0)) return NaN;
  if (!Number.isFinite(t)) return 0;
  return incompleteBeta(df / (df + t * t), df / 2, 0.5);
}

export const mean = (xs) => xs.reduce((s, x) => s + x, 0) / xs.length;

/** The sample variance (n - 1 in the denominator). */
export function variance(xs) {
  const m = mean(xs);
  return xs.reduce((s, x) => s + (x - m) * (x - m), 0) / (xs.length - 1);
}

/**
 * Welch's t-test of x against y: { t, df, p }, t's sign that of mean(x) - mean(y). Null when either
 * side has fewer than two values. R stops with "data are essentially constant" when both sides have
 * no variance; here equal constants give p = 1 and different ones p = 0 (t = ±Infinity), which is
 * what a run of identical figures means.
 */
export function welchTest(x, y) {
  if (x.length < 2 || y.length < 2) return null;
  const vx = variance(x) / x.length;
  const vy = variance(y) / y.length;
  const diff = mean(x) - mean(y);
  const se2 = vx + vy;
  if (se2 === 0) return diff === 0 ? { t: 0, df: NaN, p: 1 } : { t: diff > 0 ? Infinity : -Infinity, df: NaN, p: 0 };
  const t = diff / Math.sqrt(se2);
  const df = (se2 * se2) / ((vx * vx) / (x.length - 1) + (vy * vy) / (y.length - 1));
  return { t, df, p: twoSidedP(t, df) };
}

/** compare.R's marks: '***' p < 0.001, '**' p < 0.01, '*' p < 0.05, else ''. */
export function stars(p) {
  if (!(p < 0.05)) return '';
  return p < 0.001 ? '***' : p < 0.01 ? '**' : '*';
}

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}
