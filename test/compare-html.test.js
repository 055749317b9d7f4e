// loadtest compare --html and --markdown, from hand-made JSON documents: two candidates at three
// target rates with an SLO and knees, three at three concurrencies (one meets the SLO at none), one
// level, and names, a URL and flags that are markup. The page has a plot per figure with its
// curves, rings and rules, the settings, every string escaped, the document as JSON, and nothing to
// fetch; headless Chromium builds every plot, logs nothing and requests nothing. The Markdown is
// compared whole.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compareHtml } from '../src/compare/html.js';
import { compareMarkdown } from '../src/compare/markdown.js';
import { escapeHtml } from '../src/results/html/svg-chart.js';
import { welchTest, stars, median } from '../src/compare/welch.js';
import { CHROMIUM, CHROMIUM_OWN, countingProxy, openInChromium } from './chromium.js';
import { oneRuntimeAnd } from './scope.js';

// --- the documents, as `loadtest compare --json` writes them

const KEYS = ['rps', 'p50', 'p99', 'p999', 'errors', 'serverCpuPerRequest', 'serverRssMb'];

// What src/compare/report.js summarize() returns, for every key (errors only when any).
function summarize(records, names, baseline) {
  const out = {};
  for (const key of KEYS) {
    const values = (name) => records.filter((r) => r.candidate === name && typeof r[key] === 'number').map((r) => r[key]);
    if (!names.some((n) => values(n).length > 0)) continue;
    if (key === 'errors' && !names.some((n) => values(n).some((x) => x > 0))) continue;
    const base = values(baseline);
    const baseMedian = median(base);
    out[key] = names.map((name) => {
      const xs = values(name);
      const m = median(xs);
      const test = name === baseline ? null : welchTest(xs, base);
      return { name, n: xs.length, median: m, min: Math.min(...xs), max: Math.max(...xs), ratio: baseMedian > 0 ? m / baseMedian : null, t: test ? test.t : null, df: test ? test.df : null, p: test ? test.p : null, stars: test ? stars(test.p) : '' };
    });
  }
  return out;
}

// rows: [candidate, level, [rps...], [p50...], [p99...], [p999...], [errors...], [cpu...], [rss...]]: one value per round.
function recordsOf(rows, seconds = 5) {
  const records = [];
  for (const [candidate, level, ...series] of rows) {
    series[0].forEach((_, k) => {
      const [rps, p50, p99, p999, errors, cpu, rss] = series.map((s) => s[k]);
      const r = { round: k + 1, candidate, level, rps, p50, p99, p999, errors, requests: Math.round(rps * seconds), seconds };
      if (cpu !== undefined) Object.assign(r, { serverCpuUs: Math.round(cpu * rps * seconds), serverCpuPerRequest: cpu, serverRssMb: rss });
      records.push(r);
    });
  }
  return records.sort((a, b) => (a.level ?? 0) - (b.level ?? 0) || a.round - b.round);
}

function docOf({ candidates, levels = null, slo = null, knees = null, rows, loadArgs, rounds, url = null, ...rest }) {
  const names = candidates.map((c) => c.name);
  const records = recordsOf(rows);
  const baseline = rest.baseline || names[0];
  return {
    loadtest: '9.0.0-alpha.0', date: '2026-11-24T03:00:00.000Z', url, loadArgs, rounds, warmup: 1,
    serverCpus: '1', clientCpus: '0', baseline, interrupted: false,
    runtimes: [{ name: 'node', version: '20.20.2', path: '/usr/bin/node' }, { name: 'bun', version: '1.4.5', path: '/work/main/node_modules/.bin/bun' }, { name: 'deno', version: '2.9.5', path: '/work/main/node_modules/.bin/deno' }],
    machine: { cpuModel: 'AMD EPYC 7B13 64-Core Processor', cpus: 2 },
    candidates, levels, slo, records,
    summary: levels ? null : summarize(records, names, baseline),
    byLevel: levels ? levels.values.map((level) => ({ level, summary: summarize(records.filter((r) => r.level === level), names, baseline) })) : null,
    knees,
    ...rest,
  };
}

const builtin = (...names) => names.map((name) => ({ name, server: `builtin ${name}`, client: 'node' }));

/** Two candidates at three target rates, two rounds each; node's knee 5000 rps, bun's 20000. */
const rateDoc = () => docOf({
  candidates: builtin('node', 'bun'),
  levels: { kind: 'rps', values: [1000, 5000, 20000] },
  slo: { text: 'p99<10ms', metric: 'p99', key: 'p99', op: '<', limitMs: 10 },
  knees: { node: 5000, bun: 20000 },
  loadArgs: ['-t', '5', '-c', '10', '-k'], rounds: 2,
  rows: [
    ['node', 1000, [999.8, 1000.1], [0.41, 0.43], [1.9, 2.1], [3.2, 3.6], [0, 0], [49.5, 51.0], [61.2, 61.4]],
    ['node', 5000, [4990.2, 4985.7], [0.62, 0.66], [6.8, 7.4], [12, 14], [0, 0], [31.0, 31.8], [64.0, 64.3]],
    ['node', 20000, [12850, 13410], [180, 240], [850, 1020], [1300, 1500], [12, 30], [25.1, 24.6], [90.5, 92.0]],
    ['bun', 1000, [1000.0, 999.9], [0.30, 0.31], [1.2, 1.3], [2.0, 2.2], [0, 0], [30.2, 30.8], [40.1, 40.3]],
    ['bun', 5000, [4998.1, 4999.0], [0.35, 0.36], [2.4, 2.6], [4.1, 4.5], [0, 0], [20.1, 20.5], [42.0, 42.2]],
    ['bun', 20000, [19950.3, 19961.2], [0.9, 1.0], [6.1, 6.9], [11, 12], [0, 0], [16.4, 16.8], [48.5, 48.9]],
  ],
});

/** Three candidates at three concurrencies; deno met the SLO at none. No server figures (a shared server). */
const sweepDoc = () => docOf({
  candidates: [{ name: 'node', server: 'shared: builtin node', client: 'node' }, { name: 'deno', server: 'shared: builtin node', client: 'deno' }, { name: 'bun', server: 'shared: builtin node', client: 'bun' }],
  levels: { kind: 'concurrency', values: [8, 64, 512] },
  slo: { text: 'p99<5ms', metric: 'p99', key: 'p99', op: '<', limitMs: 5 },
  knees: { node: 64, deno: null, bun: 512 },
  loadArgs: ['-t', '3', '-k'], rounds: 2, url: 'http://127.0.0.1:8080/',
  rows: [
    ['node', 8, [40100, 39800], [0.18, 0.19], [0.5, 0.6], [0.9, 1.0], [0, 0]],
    ['node', 64, [70200, 69500], [0.85, 0.9], [3.5, 3.9], [6, 7], [0, 0]],
    ['node', 512, [72100, 71800], [6.5, 7.0], [30, 34], [60, 65], [0, 4]],
    ['deno', 8, [35200, 34800], [0.2, 0.21], [6.0, 6.4], [9, 9.5], [0, 0]],
    ['deno', 64, [60100, 61000], [1.0, 1.1], [4.2, 4.6], [8, 9], [0, 0]],
    ['deno', 512, [65400, 64800], [7.6, 7.9], [38, 41], [70, 80], [2, 0]],
    ['bun', 8, [50300, 49900], [0.15, 0.16], [0.3, 0.35], [0.6, 0.7], [0, 0]],
    ['bun', 64, [95100, 94800], [0.65, 0.66], [1.8, 1.9], [3, 3.2], [0, 0]],
    ['bun', 512, [110200, 109600], [4.6, 4.7], [4.2, 4.4], [9, 9.5], [0, 0]],
  ],
});

/** One level: three built-in servers, three rounds each. */
const oneLevelDoc = () => docOf({
  candidates: builtin('node', 'bun', 'deno'),
  loadArgs: ['-t', '3', '-c', '10', '-k'], rounds: 3,
  rows: [
    ['node', null, [79154, 60051, 92952], [0.096, 0.09, 0.115], [0.326, 0.213, 1.464], [1.1, 0.9, 2.3], [0, 0, 0], [11.07, 10.54, 13.27], [61.4, 61.0, 62.1]],
    ['bun', null, [114317, 89604, 127904], [0.064, 0.061, 0.076], [0.276, 0.192, 1.602], [0.8, 0.7, 2.9], [0, 0, 0], [7.1, 6.77, 8.4], [56.0, 55.9, 56.4]],
    ['deno', null, [105440, 95705, 146163], [0.065, 0.065, 0.079], [0.225, 0.144, 0.414], [0.7, 0.6, 1.0], [0, 0, 0], [6.81, 6.66, 8.31], [61.1, 60.8, 61.5]],
  ],
});

const EVIL = `</script><script>alert(1)</script>`;
const EVIL2 = `a|b&"'<i>x`;

/** rateDoc with names, a URL, flags, a path and a CPU model that are markup. */
function evilDoc() {
  const doc = rateDoc();
  const rename = (n) => (n === 'node' ? EVIL : n === 'bun' ? EVIL2 : n);
  doc.candidates = doc.candidates.map((c) => ({ ...c, name: rename(c.name), server: `node -e "console.log('<b>&amp;</b>')"` }));
  doc.baseline = rename(doc.baseline);
  doc.records = doc.records.map((r) => ({ ...r, candidate: rename(r.candidate) }));
  doc.byLevel = doc.byLevel.map((l) => ({ level: l.level, summary: Object.fromEntries(Object.entries(l.summary).map(([k, rows]) => [k, rows.map((r) => ({ ...r, name: rename(r.name) }))])) }));
  doc.knees = Object.fromEntries(Object.entries(doc.knees).map(([k, v]) => [rename(k), v]));
  doc.url = `http://127.0.0.1:3000/?q=<img src=x onerror=alert(2)>&a="'`;
  doc.loadArgs = ['-H', `x-evil: <script>alert(3)</script>`, '-t', '5'];
  doc.runtimes[1].path = `/opt/<bun>&"/bun`;
  doc.machine.cpuModel = 'AMD <EPYC> & "Co"';
  return doc;
}

// --- reading the page

/** The element with id=`id` (an svg, table or figure; they do not nest themselves). */
function element(page, id) {
  const start = page.search(new RegExp(`<(svg|table|figure|p)[^>]* id="${id}"`));
  if (start < 0) return null;
  const tag = page.slice(start + 1, page.indexOf(' ', start));
  return page.slice(start, page.indexOf(`</${tag}>`, start) + tag.length + 3);
}

/** A plot's groups: class, data-series, and the circles' centres inside each. */
function groups(svg) {
  return [...svg.matchAll(/<g class="([^"]*)" data-series="([^"]*)">([^]*?)<\/g>/g)].map(([, cls, name, inner]) => ({
    cls, name, inner,
    path: (/<path d="([^"]*)"/.exec(inner) || [])[1] || '',
    circles: [...inner.matchAll(/<circle cx="([\d.-]+)" cy="([\d.-]+)" r="([\d.]+)"/g)].map((m) => m.slice(1).map(Number)),
  }));
}
const series = (svg, name) => groups(svg).find((g) => g.name === name && g.cls.startsWith('series'));
const points = (path) => (path.match(/[ML]/g) || []).length;

const DATA = /<script type="application\/json" id="data">([^]*?)<\/script>/;
const embedded = (page) => JSON.parse(DATA.exec(page)[1]);

/**
 * Nothing the page could fetch, no script that runs: no remote address but the document's own
 * URL shown as text, no element that loads, a CSP that forbids both, one script element: the data.
 */
function assertSelfContained(page, doc) {
  assert.match(page, /<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">/);
  assert.deepEqual(page.match(/<script\b[^>]*>/gi), ['<script type="application/json" id="data">']);
  assert.doesNotMatch(page, /\b(src|href|action|poster|data|xlink:href)\s*=\s*["']?\s*(https?:)?\/\//i);
  assert.doesNotMatch(page, /url\(|@import|<link|<iframe|<img|<object|<embed|<image|<use\b/i);
  const outside = page.replace(DATA, '');
  const own = doc.url ? escapeHtml(doc.url) : null;
  for (const m of outside.matchAll(/https?:\/\//gi)) assert.ok(own && outside.startsWith(own, m.index), `an address that is not the URL: ${outside.slice(m.index, m.index + 80)}`);
}

/** Every string of the document shows escaped, never raw, outside the JSON block. */
function assertEscaped(page, texts) {
  const outside = page.replace(DATA, '');
  for (const text of texts) {
    if (/[<>&"]/.test(text)) assert.ok(!outside.includes(text), `raw in the page: ${text}`);
    assert.ok(outside.includes(escapeHtml(text)), `not shown: ${text}`);
  }
}

const SETTINGS = (doc) => [
  ...doc.runtimes.flatMap((r) => [r.version, r.path]), doc.machine.cpuModel, `${doc.machine.cpus} CPUs`, doc.date, doc.slo ? doc.slo.text : doc.date,
];

function assertSettings(page, doc) {
  const settings = element(page, 'settings');
  for (const text of SETTINGS(doc)) assert.ok(settings.includes(escapeHtml(text)), text);
  assert.match(settings, new RegExp(`<th>server cores</th><td>${doc.serverCpus}</td>`));
  assert.match(settings, new RegExp(`<th>client cores</th><td>${doc.clientCpus}</td>`));
  assert.match(settings, new RegExp(`<th>rounds</th><td>${doc.rounds}</td>`));
  assert.match(settings, new RegExp(`<th>warm-up</th><td>${doc.warmup} s</td>`));
  const candidates = element(page, 'candidates');
  for (const c of doc.candidates) assert.ok(candidates.includes(escapeHtml(c.name)) && candidates.includes(escapeHtml(c.server)), c.name);
  assert.ok(page.includes(`baseline <b>${escapeHtml(doc.baseline)}</b> · ${doc.date}`));
}

// --- the page

test('html: levels of rate: latency, achieved rate and errors against the target, knees ringed on their curves, a table per level', () => {
  const doc = rateDoc();
  const page = compareHtml(doc);
  assert.equal((page.match(/<svg/g) || []).length, 3);
  const latency = element(page, 'latency');
  const rate = element(page, 'rate');
  const errors = element(page, 'errors');
  assert.match(page, /<figure id="fig-latency"><figcaption>Latency against the target rate/);
  assert.match(page, /<figure id="fig-rate"><figcaption>Achieved rate against the target rate/);
  assert.match(page, /<figure id="fig-errors"><figcaption>Errors against the level/);
  // The target rates span 20×: a log axis ticked at each level; latency spans 0.3 to 1000 ms: log too.
  for (const svg of [latency, rate, errors]) {
    assert.match(svg, /target rate, requests\/s, log scale<\/text>/);
    for (const level of ['1000', '5000', '20000']) assert.match(svg, new RegExp(`text-anchor="middle">${level}</text>`));
  }
  assert.match(latency, /latency, ms, log scale<\/text>/);
  // A curve per candidate and percentile through its three medians; p50 dashed.
  for (const name of ['node', 'bun']) {
    for (const key of ['p99', 'p50', 'rps']) assert.equal(points(series(key === 'rps' ? rate : latency, `${name} ${key}`).path), 3, `${name} ${key}`);
    assert.match(series(latency, `${name} p50`).inner, /stroke-dasharray/);
    assert.doesNotMatch(series(latency, `${name} p99`).inner, /stroke-dasharray/);
  }
  // The SLO's rule, the line of achieved = target, the errors' curves.
  assert.match(latency, /<g class="rule slo">.*>SLO p99&lt;10ms<\/text>/);
  assert.ok(series(rate, 'achieved = target') && series(rate, '95 % of target'));
  assert.equal(points(series(errors, 'node errors').path), 3);
  assert.ok(series(errors, 'node errors').inner.includes('<title>node at 20000 rps: errors 21 (rounds 12 – 30)</title>'));
  // Each knee: a ring on its candidate's p99 curve (on the dot of that level) and on its rate curve.
  for (const [svg, key] of [[latency, 'p99'], [rate, 'rps']]) {
    const knees = groups(svg).filter((g) => g.cls === 'knee');
    assert.deepEqual(knees.map((k) => k.name), ['node', 'bun']);
    for (const [name, level, index] of [['node', 5000, 1], ['bun', 20000, 2]]) {
      const ring = knees.find((k) => k.name === name);
      const dot = series(svg, `${name} ${key}`).circles[index];
      assert.deepEqual(ring.circles[0].slice(0, 2), dot.slice(0, 2), `${name}'s ring is on its ${key} at ${level}`);
      assert.match(ring.inner, new RegExp(`>${name} knee: ${level} rps</text>`));
    }
  }
  // The knees' table; each level's table, its cells red where the SLO or the target is missed.
  assert.match(element(page, 'knees'), /<td>node<\/td><td>5000 rps<\/td><td class="num">7.100<\/td><td class="num">4,988<\/td>/);
  assert.match(element(page, 'knees'), /<td>bun<\/td><td>20000 rps<\/td><td class="num">6.500<\/td><td class="num">19,956<\/td>/);
  assert.match(page, /<div class="stat"><span class="label">node: knee<\/span><span class="value">5000 rps<\/span><\/div>/);
  for (const level of doc.levels.values) {
    const t = element(page, `level-${level}`);
    assert.equal(t.split('<tr>').length - 2, 2, `level ${level}: a row per candidate`);
    assert.match(t, /<th class="num">requests\/s<\/th><th class="num">p50 ms<\/th><th class="num">p99 ms<\/th><th class="num">p99.9 ms<\/th><th class="num">errors<\/th><th class="num">server CPU µs\/req<\/th><th class="num">RSS MB<\/th>/);
  }
  const top = element(page, 'level-20000');
  assert.match(top, /<td class="num bad" title="rounds 850.0 – 1,020">935.0<\/td>/);
  assert.match(top, /<td class="num bad" title="rounds 12,850 – 13,410">13,130<\/td>/);
  assert.match(top, /<td class="num" title="rounds 19,950 – 19,961; p = 0.026">19,956 <small>1.52× \*<\/small><\/td>/);
  assertSettings(page, doc);
  assert.match(element(page, 'settings'), /<th>load flags<\/th><td><code>-t 5 -c 10 -k<\/code><\/td>/);
  assert.match(element(page, 'settings'), /<th>levels<\/th><td>target rates 1000, 5000, 20000<\/td>/);
  assert.deepEqual(embedded(page), doc);
  assertSelfContained(page, doc);
});

test('html: levels of concurrency: rate against concurrency on a log axis, a candidate with no knee, its headline red', () => {
  const doc = sweepDoc();
  const page = compareHtml(doc);
  assert.equal((page.match(/<svg/g) || []).length, 3);
  const rate = element(page, 'rate');
  assert.match(page, /<figcaption>Requests per second against concurrency/);
  assert.match(rate, /concurrency \(connections\), log scale<\/text>/);
  assert.match(rate, />achieved requests\/s<\/text>/);
  assert.equal(series(rate, 'achieved = target'), undefined);
  for (const name of ['node', 'deno', 'bun']) assert.equal(points(series(rate, `${name} rps`).path), 3);
  // The concurrencies are evenly spaced on the log axis.
  const xs = series(rate, 'node rps').circles.map((c) => c[0]);
  assert.ok(Math.abs(xs[1] - xs[0] - (xs[2] - xs[1])) < 0.2, xs.join());
  const knees = groups(element(page, 'latency')).filter((g) => g.cls === 'knee');
  assert.deepEqual(knees.map((k) => k.name), ['node', 'bun']);
  assert.match(knees[0].inner, />node knee: 64 connections<\/text>/);
  assert.match(element(page, 'knees'), /<td>deno<\/td><td class="bad">none met p99&lt;5ms<\/td><td class="num"><\/td><td class="num"><\/td>/);
  assert.match(page, /<div class="stat bad"><span class="label">deno: knee<\/span><span class="value">none met p99&lt;5ms<\/span><\/div>/);
  assert.ok(element(page, 'errors'));
  // No server figures (a shared server): no such columns.
  assert.doesNotMatch(element(page, 'level-8'), /server CPU|RSS/);
  assert.match(element(page, 'settings'), /<th>URL<\/th><td><code>http:\/\/127.0.0.1:8080\/<\/code><\/td>/);
  assertSettings(page, doc);
  assert.deepEqual(embedded(page), doc);
  assertSelfContained(page, doc);
});

test('html: levels without an SLO: no knees, no rule, no rings; without errors, no errors plot', () => {
  const doc = { ...rateDoc(), slo: null, knees: null };
  doc.records = doc.records.map((r) => ({ ...r, errors: 0 }));
  doc.byLevel = doc.byLevel.map((l) => ({ level: l.level, summary: Object.fromEntries(Object.entries(l.summary).filter(([k]) => k !== 'errors')) }));
  const page = compareHtml(doc);
  assert.equal((page.match(/<svg/g) || []).length, 2);
  assert.equal(element(page, 'errors'), null);
  assert.doesNotMatch(page, /class="knee"|class="rule slo"|id="headline"/);
  assert.match(element(page, 'knees'), /No knee: give --slo/);
  assert.doesNotMatch(element(page, 'level-20000'), /class="num bad"|<th class="num">errors<\/th>/);
  assertSelfContained(page, doc);
});

test('html: one level: per metric the rounds as dots, the medians as bars, and the table with ratio, p-value and stars', () => {
  const doc = oneLevelDoc();
  const page = compareHtml(doc);
  const keys = ['rps', 'p50', 'p99', 'p999', 'serverCpuPerRequest', 'serverRssMb'];
  assert.deepEqual(Object.keys(doc.summary), keys);
  assert.equal((page.match(/<svg/g) || []).length, keys.length);
  for (const key of keys) {
    const svg = element(page, `metric-${key}`);
    assert.ok(svg, key);
    for (const name of ['node', 'bun', 'deno']) {
      assert.equal(series(svg, name).circles.length, 3, `${key}: ${name}'s rounds`);
      assert.equal(points(series(svg, `${name} median`).path), 2, `${key}: ${name}'s median`);
    }
    assert.match(svg, />node median<\/text>/);
    assert.match(svg, /text-anchor="middle">bun<\/text>/);
    const rows = element(page, `table-${key}`).split('<tr>').slice(2);
    assert.equal(rows.length, 3);
    assert.match(rows[0], /<td class="num">1.00×<\/td><td class="num">baseline<\/td><td><\/td><\/tr>/);
  }
  assert.match(element(page, 'table-rps'), /<td>bun<\/td><td class="num">114,317<\/td><td class="num">89,604 – 127,904<\/td><td class="num">1.44×<\/td><td class="num">0.089<\/td><td><\/td>/);
  assert.match(element(page, 'table-serverRssMb'), /<td>bun<\/td><td class="num">56.00<\/td><td class="num">55.90 – 56.40<\/td><td class="num">0.91×<\/td><td class="num">8.0e-4<\/td><td>\*\*\*<\/td>/);
  assert.ok(series(element(page, 'metric-rps'), 'bun').inner.includes('<title>bun, round 2: 89,604</title>'));
  assert.match(page, /<span class="label">bun<\/span><span class="value">114,317 req\/s · 1.44×<\/span>/);
  assert.doesNotMatch(page, /id="latency"|id="knees"|Each level/);
  assertSettings(page, doc);
  assert.match(element(page, 'settings'), /<th>URL<\/th><td>each built-in server on a free port<\/td>/);
  assert.deepEqual(embedded(page), doc);
  assertSelfContained(page, doc);
});

test('html: names, a URL, flags, a path and a CPU model that are markup are shown escaped, and the JSON reads back', () => {
  const doc = evilDoc();
  const page = compareHtml(doc);
  assert.ok(!page.includes('<script>alert'), 'a script element was injected');
  assert.ok(!/<img src=x|<i>x|<b>&amp;/.test(page.replace(DATA, '')), 'an element was injected');
  assertEscaped(page, [EVIL, EVIL2, doc.url, doc.loadArgs[1], doc.runtimes[1].path, doc.machine.cpuModel, doc.candidates[0].server]);
  // In the plots too: the ids and series names of a curve, the knee labels, the tooltips.
  const latency = element(page, 'latency');
  assert.ok(series(latency, `${escapeHtml(EVIL)} p99`) && series(latency, `${escapeHtml(EVIL2)} p99`));
  assert.ok(latency.includes(`>${escapeHtml(EVIL2)} knee: 20000 rps</text>`));
  assert.deepEqual(embedded(page), doc);
  assert.ok(!DATA.exec(page)[1].includes('<'));
  assertSelfContained(page, doc);
  // The one-level page of such names: the candidate axis and the tables.
  const one = oneLevelDoc();
  one.candidates[1].name = EVIL;
  one.records.forEach((r) => r.candidate === 'bun' && (r.candidate = EVIL));
  for (const rows of Object.values(one.summary)) rows.forEach((r) => r.name === 'bun' && (r.name = EVIL));
  const onePage = compareHtml(one);
  assert.ok(element(onePage, 'metric-rps').includes(`text-anchor="middle">${escapeHtml(EVIL)}</text>`));
  assertEscaped(onePage, [EVIL]);
  assertSelfContained(onePage, one);
});

// --- the Markdown

test('markdown: levels: a table per metric with a column per level, ratios and stars, then the knees', () => {
  const expected = [
    "# loadtest compare: node, bun (baseline node)",
    "",
    "- candidates: node (server: builtin node, client: node); bun (server: builtin bun, client: node)",
    "- baseline: node",
    "- date: 2026-11-24T03:00:00.000Z",
    "- runtime node: 20.20.2 `/usr/bin/node`",
    "- runtime bun: 1.4.5 `/work/main/node_modules/.bin/bun`",
    "- runtime deno: 2.9.5 `/work/main/node_modules/.bin/deno`",
    "- server cores: 1",
    "- client cores: 0",
    "- machine: AMD EPYC 7B13 64-Core Processor, 2 CPUs",
    "- load flags: `-t 5 -c 10 -k`",
    "- rounds: 2",
    "- warm-up: 1 s",
    "- URL: each built-in server on a free port",
    "- levels: target rates 1000, 5000, 20000",
    "- SLO: p99\\<10ms (knee: the highest level up to which p99\\<10ms, the achieved rate at least 95 % of the target and no errors)",
    "- loadtest: 9.0.0-alpha.0",
    "",
    "## requests/s (higher is better)",
    "",
    "| candidate | 1000 rps | 5000 rps | 20000 rps |",
    "| --- | ---: | ---: | ---: |",
    "| node (baseline) | 1,000 | 4,988 | 13,130 |",
    "| bun | 1,000 (1.00×) | 4,999 (1.00×) | 19,956 (1.52×) * |",
    "",
    "## latency p50, ms (lower is better)",
    "",
    "| candidate | 1000 rps | 5000 rps | 20000 rps |",
    "| --- | ---: | ---: | ---: |",
    "| node (baseline) | 0.420 | 0.640 | 210.0 |",
    "| bun | 0.305 (0.73×) * | 0.355 (0.55×) * | 0.950 (0.0045×) |",
    "",
    "## latency p99, ms (lower is better)",
    "",
    "| candidate | 1000 rps | 5000 rps | 20000 rps |",
    "| --- | ---: | ---: | ---: |",
    "| node (baseline) | 2.000 | 7.100 | 935.0 |",
    "| bun | 1.250 (0.63×) * | 2.500 (0.35×) * | 6.500 (0.0070×) |",
    "",
    "## latency p99.9, ms (lower is better)",
    "",
    "| candidate | 1000 rps | 5000 rps | 20000 rps |",
    "| --- | ---: | ---: | ---: |",
    "| node (baseline) | 3.400 | 13.00 | 1,400 |",
    "| bun | 2.100 (0.62×) | 4.300 (0.33×) | 11.50 (0.0082×) * |",
    "",
    "## errors (lower is better)",
    "",
    "| candidate | 1000 rps | 5000 rps | 20000 rps |",
    "| --- | ---: | ---: | ---: |",
    "| node (baseline) | 0 | 0 | 21 |",
    "| bun | 0 | 0 | 0 (0.00×) |",
    "",
    "## server CPU µs per request (lower is better)",
    "",
    "| candidate | 1000 rps | 5000 rps | 20000 rps |",
    "| --- | ---: | ---: | ---: |",
    "| node (baseline) | 50.25 | 31.40 | 24.85 |",
    "| bun | 30.50 (0.61×) * | 20.30 (0.65×) ** | 16.60 (0.67×) ** |",
    "",
    "## server peak RSS, MB (lower is better)",
    "",
    "| candidate | 1000 rps | 5000 rps | 20000 rps |",
    "| --- | ---: | ---: | ---: |",
    "| node (baseline) | 61.30 | 64.15 | 91.25 |",
    "| bun | 40.20 (0.66×) *** | 42.10 (0.66×) *** | 48.70 (0.53×) ** |",
    "",
    "## Knees",
    "",
    "The knee: the highest level up to which p99\\<10ms, the achieved rate at least 95 % of the target and no errors.",
    "",
    "| candidate | knee | p99 ms at the knee | requests/s at the knee |",
    "| --- | --- | ---: | ---: |",
    "| node | 5000 rps | 7.100 | 4,988 |",
    "| bun | 20000 rps | 6.500 | 19,956 |",
    "",
    "Medians of 2 rounds at each level. ratio: a candidate's median over node's; p-value: Welch's t-test of its rounds against node's; \\* p<0.05, \\*\\* p<0.01, \\*\\*\\* p<0.001 (no star: the difference may be noise).",
  ].join('\n') + '\n';
  assert.equal(compareMarkdown(rateDoc()), expected);
});

test('markdown: one level: a table per metric with median, min - max, ratio, p-value and stars', () => {
  const expected = [
    "# loadtest compare: node, bun, deno (baseline node)",
    "",
    "- candidates: node (server: builtin node, client: node); bun (server: builtin bun, client: node); deno (server: builtin deno, client: node)",
    "- baseline: node",
    "- date: 2026-11-24T03:00:00.000Z",
    "- runtime node: 20.20.2 `/usr/bin/node`",
    "- runtime bun: 1.4.5 `/work/main/node_modules/.bin/bun`",
    "- runtime deno: 2.9.5 `/work/main/node_modules/.bin/deno`",
    "- server cores: 1",
    "- client cores: 0",
    "- machine: AMD EPYC 7B13 64-Core Processor, 2 CPUs",
    "- load flags: `-t 3 -c 10 -k`",
    "- rounds: 3",
    "- warm-up: 1 s",
    "- URL: each built-in server on a free port",
    "- loadtest: 9.0.0-alpha.0",
    "",
    "## requests/s (higher is better)",
    "",
    "| candidate | median | min - max | ratio | p-value |  |",
    "| --- | ---: | ---: | ---: | ---: | --- |",
    "| node | 79,154 | 60,051 - 92,952 | 1.00× | baseline |  |",
    "| bun | 114,317 | 89,604 - 127,904 | 1.44× | 0.089 |  |",
    "| deno | 105,440 | 95,705 - 146,163 | 1.33× | 0.116 |  |",
    "",
    "## latency p50, ms (lower is better)",
    "",
    "| candidate | median | min - max | ratio | p-value |  |",
    "| --- | ---: | ---: | ---: | ---: | --- |",
    "| node | 0.096 | 0.090 - 0.115 | 1.00× | baseline |  |",
    "| bun | 0.064 | 0.061 - 0.076 | 0.67× | 0.027 | * |",
    "| deno | 0.065 | 0.065 - 0.079 | 0.68× | 0.034 | * |",
    "",
    "## latency p99, ms (lower is better)",
    "",
    "| candidate | median | min - max | ratio | p-value |  |",
    "| --- | ---: | ---: | ---: | ---: | --- |",
    "| node | 0.326 | 0.213 - 1.464 | 1.00× | baseline |  |",
    "| bun | 0.276 | 0.192 - 1.602 | 0.85× | 0.972 |  |",
    "| deno | 0.225 | 0.144 - 0.414 | 0.69× | 0.417 |  |",
    "",
    "## latency p99.9, ms (lower is better)",
    "",
    "| candidate | median | min - max | ratio | p-value |  |",
    "| --- | ---: | ---: | ---: | ---: | --- |",
    "| node | 1.100 | 0.900 - 2.300 | 1.00× | baseline |  |",
    "| bun | 0.800 | 0.700 - 2.900 | 0.73× | 0.971 |  |",
    "| deno | 0.700 | 0.600 - 1.000 | 0.64× | 0.264 |  |",
    "",
    "## server CPU µs per request (lower is better)",
    "",
    "| candidate | median | min - max | ratio | p-value |  |",
    "| --- | ---: | ---: | ---: | ---: | --- |",
    "| node | 11.07 | 10.54 - 13.27 | 1.00× | baseline |  |",
    "| bun | 7.100 | 6.770 - 8.400 | 0.64× | 0.019 | * |",
    "| deno | 6.810 | 6.660 - 8.310 | 0.62× | 0.017 | * |",
    "",
    "## server peak RSS, MB (lower is better)",
    "",
    "| candidate | median | min - max | ratio | p-value |  |",
    "| --- | ---: | ---: | ---: | ---: | --- |",
    "| node | 61.40 | 61.00 - 62.10 | 1.00× | baseline |  |",
    "| bun | 56.00 | 55.90 - 56.40 | 0.91× | 8.0e-4 | *** |",
    "| deno | 61.10 | 60.80 - 61.50 | 1.00× | 0.399 |  |",
    "",
    "Medians of 3 rounds. ratio: a candidate's median over node's; p-value: Welch's t-test of its rounds against node's; \\* p<0.05, \\*\\* p<0.01, \\*\\*\\* p<0.001 (no star: the difference may be noise).",
  ].join('\n') + '\n';
  assert.equal(compareMarkdown(oneLevelDoc()), expected);
});

test('markdown: names with | and markup stay in their cells; a knee met at no level; the output depends on the document alone', () => {
  const md = compareMarkdown(evilDoc());
  assert.ok(md.startsWith('# loadtest compare: \\</script\\>\\<script\\>alert(1)\\</script\\>, a\\|b\\&"\'\\<i\\>x (baseline '), md.slice(0, 200));
  for (const line of md.split('\n').filter((l) => l.startsWith('| a'))) assert.equal(line.split(/(?<!\\)\|/).length, 6, line);
  assert.ok(md.includes('| a\\|b\\&"\'\\<i\\>x | 1,000 (1.00×) | 4,999 (1.00×) | 19,956 (1.52×) * |'));
  assert.ok(md.includes("- load flags: `-H 'x-evil: <script>alert(3)</script>' -t 5`"));
  const sweep = compareMarkdown(sweepDoc());
  assert.ok(sweep.includes('| deno | none met p99\\<5ms |  |  |'), sweep);
  assert.ok(sweep.includes('| candidate | 8 connections | 64 connections | 512 connections |'));
  assert.equal(compareMarkdown(sweepDoc()), sweep);
  assert.equal((sweep.match(/\d{4}-\d\d-\d\dT/g) || []).length, 1);
});

// --- in headless Chromium


// The page in a browser is the same page whichever runtime wrote it.
test('html in headless Chromium: every plot in the DOM, no console message, no request leaves the page', { skip: oneRuntimeAnd(CHROMIUM ? false : 'no chromium at /usr/bin/chromium (apt-get install chromium)'), timeout: 180000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-compare-html-'));
  const proxy = await countingProxy();
  try {
    // The control: a page that fetches from elsewhere is seen by the proxy, and its log by us.
    const control = join(dir, 'control.html');
    writeFileSync(control, '<!DOCTYPE html><img src="http://fetch.invalid/x.png"><script>console.log("control")</script>');
    const seen = await openInChromium(control, proxy.port, join(dir, 'profile-control'));
    assert.ok(proxy.hosts.includes('fetch.invalid'), `the proxy saw: ${proxy.hosts.join(', ')}`);
    assert.ok(seen.console.some((line) => line.includes('"control"')), 'console lines are not seen');
    const pages = [
      ['levels', evilDoc(), ['latency', 'rate', 'errors']],
      ['one-level', oneLevelDoc(), ['rps', 'p50', 'p99', 'p999', 'serverCpuPerRequest', 'serverRssMb'].map((k) => `metric-${k}`)],
    ];
    for (const [name, doc, ids] of pages) {
      proxy.hosts.length = 0;
      const file = join(dir, `${name}.html`);
      writeFileSync(file, compareHtml(doc));
      const { dom, console: lines } = await openInChromium(file, proxy.port, join(dir, `profile-${name}`));
      assert.deepEqual(lines, [], name);
      assert.deepEqual(proxy.hosts.filter((h) => !CHROMIUM_OWN.test(h)), [], name);
      assert.equal((dom.match(/<svg/g) || []).length, ids.length, name);
      for (const id of ids) {
        const svg = element(dom, id);
        assert.ok(svg, `${name}: plot ${id} is not in the DOM`);
        assert.ok(groups(svg).some((g) => points(g.path) >= 2 || g.circles.length > 0), `${name}: plot ${id} is empty in the DOM`);
      }
      if (name === 'levels') {
        assert.equal(groups(element(dom, 'latency')).filter((g) => g.cls === 'knee').length, 2);
        assert.ok(!dom.includes('<script>alert'), 'a script element in the DOM');
      }
      assert.deepEqual(embedded(dom), doc);
    }
  } finally {
    await proxy.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
