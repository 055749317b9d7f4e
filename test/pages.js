// What the tests of the --html pages read in a page: an element by id, what a plot draws, the
// embedded document, a headline figure, and that the page fetches nothing.

import assert from 'node:assert/strict';

/** The element with id=`id` in the page, as text (SVGs and tables do not nest themselves). */
export function element(page, id) {
  const start = page.search(new RegExp(`<(svg|table|p)[^>]* id="${id}"`));
  if (start < 0) return null;
  const tag = page.slice(start + 1, page.indexOf(' ', start));
  return page.slice(start, page.indexOf(`</${tag}>`, start) + tag.length + 3);
}

/** What a plot draws: path coordinates, dots and bar rectangles. */
export function drawn(svg) {
  const paths = [...svg.matchAll(/<path d="([^"]*)"/g)].map((m) => m[1]);
  const bars = [...svg.matchAll(/<rect x="[\d.-]+" y="([\d.-]+)" width="[\d.]+" height="([\d.]+)"><title>/g)].map((m) => Number(m[2]));
  const dots = (svg.match(/<circle cx="[\d.-]+" cy="[\d.-]+"/g) || []).length;
  return { paths, bars, dots, points: paths.reduce((n, d) => n + (d.match(/[MLHV]/g) || []).length, 0) };
}

// A run shorter than a second has one point per line; a plot is empty when it has no mark.
export const hasMarks = (d) => d.points >= 2 || d.dots >= 1 || d.bars.length >= 1;

export const embedded = (page) => JSON.parse(/<script type="application\/json" id="loadtest-result">([^]*?)<\/script>/.exec(page)[1]);
export const statValue = (page, key) => {
  const m = new RegExp(`data-key="${key.replace('.', '\\.')}" data-value="([^"]*)"`).exec(page);
  return m ? Number(m[1]) : undefined;
};

/** Nothing the page could fetch: no remote URL in an attribute or in CSS, and a CSP that forbids it. */
export function assertSelfContained(page) {
  assert.doesNotMatch(page, /\b(src|href|action|poster|data|xlink:href)\s*=\s*["']?\s*(https?:)?\/\//i);
  assert.doesNotMatch(page, /url\(|@import|<link|<iframe|<img|<object|<embed/i);
  assert.match(page, /<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">/);
  // One script element, and it is data.
  assert.deepEqual(page.match(/<script\b[^>]*>/g), ['<script type="application/json" id="loadtest-result">']);
}
