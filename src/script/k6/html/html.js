// src/script/k6/html/: k6/html, its Selection and elements.
// k6/html: parseHTML(text) and k6's Selection (html-selection.js), on htmlparser2 (a forgiving
// HTML parser), css-select (CSS selectors) and domutils, which are well kept and small
// (html-lib.js loads them); a Selection is a list of their nodes.

import { parseDocument, findAll, NOT_LOADED } from './html-lib.js';
import { Selection } from './html-selection.js';
import { foreignAttributeNames } from './html-namespace.js';
import { addImplied } from './html-implied.js';
// The elements of each kind: loading it hands their classes to toElement (html-node.js).
import './html-elements.js';

export { wantHTML, loadHTML } from './html-lib.js';

export function parseHTML(text) {
  return pageAt(text, '');
}

/** The document of `text`, whose elements resolve their URLs against `url` (res.html()). */
export function pageAt(text, url) {
  if (parseDocument === undefined) throw new Error(NOT_LOADED);
  // As an HTML5 parser (Go's, k6's) reads a page and htmlparser2 does not: a CR or CR LF is a
  // line feed, and the line feed that opens a pre, a textarea or a listing is not text.
  const html = String(text).replace(/\r\n?/g, '\n');
  const doc = parseDocument(html);
  if (OPENS_WITH_NEWLINE.test(html)) for (const n of findAll((e) => NEWLINE_DROPPED.has(e.name), doc.children)) dropFirstNewline(n);
  if (/<(svg|math)\b/i.test(html)) foreignAttributeNames(doc);
  addImplied(doc, parseDocument);
  return new Selection([doc], url);
}

const OPENS_WITH_NEWLINE = /<(pre|textarea|listing)\b[^>]*>\n/i;
const NEWLINE_DROPPED = new Set(['pre', 'textarea', 'listing']);

function dropFirstNewline(node) {
  const first = node.children[0];
  if (first?.type !== 'text' || !first.data.startsWith('\n')) return;
  first.data = first.data.slice(1);
  if (first.data === '') node.children.shift();
}

export function htmlModule() {
  const api = { parseHTML };
  return { default: api, ...api };
}
