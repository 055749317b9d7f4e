// k6/html: parseHTML(text) and k6's Selection (jQuery's, as goquery gives it to k6), on
// htmlparser2 (a forgiving HTML parser), css-select (CSS selectors) and domutils, which are
// well kept and small; a Selection is a list of their nodes.

import { isWait, waiting } from '../../eventloop/wait.js';
import { toElement, isTag } from './html-element.js';
import { innerHTML } from './html-render.js';

// The libraries, loaded before the run when a script may use them (wantHTML(), loadHTML()):
// they cost a run's start some 0.15 s of CPU, which most scripts, never parsing HTML, need not pay.
// `lib` lends them to the elements (html-element.js).
let parseDocument, selectAll, matches, textContent, getChildren, getParent;
export const lib = {};
let wanted = false;

/** A script's module names html(), clickLink() or submitForm(), or imports k6/html (src/script/transform/transform.js). */
export function wantHTML() {
  wanted = true;
}

/** Loads the libraries if a script may use them. */
export async function loadHTML() {
  if (!wanted || parseDocument !== undefined) return;
  const [h, c, d] = await Promise.all([import('htmlparser2'), import('css-select'), import('domutils')]);
  ({ textContent, getChildren, getParent } = d);
  // goquery matches nothing with a selector it cannot read, where css-select throws.
  selectAll = quiet(c.selectAll, []);
  matches = quiet(c.is, false);
  Object.assign(lib, { selectAll, is: matches, textContent, findAll: d.findAll });
  parseDocument = h.parseDocument;
}

const quiet = (f, none) => (...args) => {
  try {
    return f(...args);
  } catch {
    return none;
  }
};

const uniq = (nodes) => [...new Set(nodes)];
const elementsOf = (nodes) => nodes.filter(isTag);
const test = (node, selector) => selector === undefined || (isTag(node) && matches(node, selector));

// Each Selection made from another keeps its page's URL (res.html()'s; '' from parseHTML),
// against which its elements resolve their href, src and action (html-elements.js).
export class Selection {
  constructor(nodes, url = '') {
    this.nodes = nodes;
    this.url = url;
  }
  derive(nodes) {
    return new Selection(nodes, this.url);
  }
  // No length: k6's Selection has size() alone (doc.find('img').length is undefined there).
  size() {
    return this.nodes.length;
  }
  find(selector) {
    return this.derive(uniq(this.nodes.flatMap((n) => selectAll(selector, n))));
  }
  attr(name, fallback) {
    const n = this.nodes.find(isTag);
    if (n && name in n.attribs) return n.attribs[name];
    return fallback;
  }
  text() {
    return this.nodes.map((n) => textContent(n)).join('');
  }
  html() {
    return this.nodes.length ? innerHTML(this.nodes[0]) : undefined;
  }
  val() {
    const n = this.nodes.find(isTag);
    if (!n) return undefined;
    if (n.name === 'select') {
      const selected = selectAll('option[selected]', n)[0] || selectAll('option', n)[0];
      return selected ? selected.attribs.value ?? textContent(selected) : undefined;
    }
    if (n.name === 'textarea') return textContent(n);
    return n.attribs.value;
  }
  data(key) {
    const n = this.nodes.find(isTag);
    if (!n) return undefined;
    const all = {};
    for (const [k, v] of Object.entries(n.attribs)) if (k.startsWith('data-')) all[k.slice(5).replace(/-([a-z])/g, (_, c) => c.toUpperCase())] = parseData(v);
    return key === undefined ? all : all[key];
  }
  first() {
    return this.derive(this.nodes.slice(0, 1));
  }
  last() {
    return this.derive(this.nodes.slice(-1));
  }
  eq(i) {
    return this.derive(this.nodes.slice(i < 0 ? i : i, i < 0 ? i + 1 || undefined : i + 1));
  }
  slice(start, end) {
    return this.derive(this.nodes.slice(start, end));
  }
  // All the elements without an index; k6 takes -length for none.
  get(i) {
    const n = this.nodes.length;
    if (i === undefined) return this.nodes.map((node) => toElement(node, this.url));
    return i < n && i > -n ? toElement(this.nodes[i < 0 ? n + i : i], this.url) : undefined;
  }
  toArray() {
    return this.nodes.map((n) => this.derive([n]));
  }
  // each() and map() with a callback that waits (it makes a request) await it in turn.
  each(fn) {
    for (let i = 0; i < this.nodes.length; i++) {
      const r = fn(i, toElement(this.nodes[i], this.url));
      if (isWait(r)) return waiting(this.eachFrom(fn, i, r));
    }
    return this;
  }
  async eachFrom(fn, i, pending) {
    await pending;
    for (let k = i + 1; k < this.nodes.length; k++) {
      const r = fn(k, toElement(this.nodes[k], this.url));
      if (isWait(r)) await r;
    }
    return this;
  }
  map(fn) {
    const out = [];
    for (let i = 0; i < this.nodes.length; i++) {
      const r = fn(i, this.derive([this.nodes[i]]));
      if (isWait(r)) return waiting(this.mapFrom(fn, i, r, out));
      if (r !== undefined && r !== null) out.push(r);
    }
    return out;
  }
  async mapFrom(fn, i, pending, out) {
    const first = await pending;
    if (first !== undefined && first !== null) out.push(first);
    for (let k = i + 1; k < this.nodes.length; k++) {
      let r = fn(k, this.derive([this.nodes[k]]));
      if (isWait(r)) r = await r;
      if (r !== undefined && r !== null) out.push(r);
    }
    return out;
  }
  filter(selector) {
    if (typeof selector === 'function') return this.derive(this.nodes.filter((n, i) => selector(i, this.derive([n]))));
    return this.derive(this.nodes.filter((n) => test(n, selector)));
  }
  not(selector) {
    return this.derive(this.nodes.filter((n) => !test(n, selector)));
  }
  is(selector) {
    return this.nodes.some((n) => test(n, selector));
  }
  has(selector) {
    return this.derive(this.nodes.filter((n) => selectAll(selector, n).length > 0));
  }
  children(selector) {
    return this.derive(elementsOf(this.nodes.flatMap((n) => getChildren(n) || [])).filter((n) => test(n, selector)));
  }
  contents() {
    return this.derive(this.nodes.flatMap((n) => getChildren(n) || []));
  }
  parent(selector) {
    return this.derive(uniq(this.nodes.map(getParent).filter((n) => n && isTag(n) && test(n, selector))));
  }
  parents(selector) {
    const out = [];
    for (const n of this.nodes) for (let p = getParent(n); p && isTag(p); p = getParent(p)) if (test(p, selector)) out.push(p);
    return this.derive(uniq(out));
  }
  closest(selector) {
    const out = [];
    for (const n of this.nodes) {
      for (let p = n; p && isTag(p); p = getParent(p)) {
        if (test(p, selector)) {
          out.push(p);
          break;
        }
      }
    }
    return this.derive(uniq(out));
  }
  siblings(selector) {
    return this.derive(uniq(this.nodes.flatMap((n) => elementsOf(getChildren(getParent(n)) || []).filter((s) => s !== n && test(s, selector)))));
  }
  next(selector) {
    return this.derive(this.nodes.map((n) => nextElement(n, 1)).filter((n) => n && test(n, selector)));
  }
  prev(selector) {
    return this.derive(this.nodes.map((n) => nextElement(n, -1)).filter((n) => n && test(n, selector)));
  }
  nextAll(selector) {
    return this.derive(uniq(this.nodes.flatMap((n) => around(n, 1).filter((s) => test(s, selector)))));
  }
  prevAll(selector) {
    return this.derive(uniq(this.nodes.flatMap((n) => around(n, -1).filter((s) => test(s, selector)))));
  }
  serializeArray() {
    const fields = this.find('input[name], select[name], textarea[name]').nodes;
    return fields
      .filter((n) => !((n.attribs.type === 'checkbox' || n.attribs.type === 'radio') && !('checked' in n.attribs)))
      .map((n) => ({ name: n.attribs.name, value: this.derive([n]).val() ?? '' }));
  }
  serializeObject() {
    const out = {};
    for (const { name, value } of this.serializeArray()) out[name] = value;
    return out;
  }
  serialize() {
    return this.serializeArray()
      .map(({ name, value }) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`)
      .join('&');
  }
}

function around(n, step) {
  const siblings = elementsOf(getChildren(getParent(n)) || []);
  const i = siblings.indexOf(n);
  return step > 0 ? siblings.slice(i + 1) : siblings.slice(0, i).reverse();
}

function nextElement(n, step) {
  return around(n, step)[0];
}

function parseData(v) {
  if (v === 'true') return true;
  if (v === 'false') return false;
  if (/^-?\d+(\.\d+)?$/.test(v)) return Number(v);
  if (/^[[{]/.test(v)) {
    try {
      return JSON.parse(v);
    } catch {
      return v;
    }
  }
  return v;
}

export function parseHTML(text) {
  return pageAt(text, '');
}

/** The document of `text`, whose elements resolve their URLs against `url` (res.html()). */
export function pageAt(text, url) {
  if (parseDocument === undefined) throw new Error('parseHTML: the HTML parser was not loaded (no module of the script names html, clickLink or submitForm)');
  // As an HTML5 parser (Go's, k6's) reads a page and htmlparser2 does not: a CR or CR LF is a
  // line feed, and the line feed that opens a pre, a textarea or a listing is not text.
  const html = String(text).replace(/\r\n?/g, '\n');
  const doc = parseDocument(html);
  if (OPENS_WITH_NEWLINE.test(html)) for (const n of lib.findAll((e) => NEWLINE_DROPPED.has(e.name), doc.children)) dropFirstNewline(n);
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
