// k6/html: parseHTML(text) and k6's Selection (jQuery's, as goquery gives it to k6), on
// htmlparser2 (a forgiving HTML parser), css-select (CSS selectors) and domutils, which are
// well kept and small; a Selection is a list of their nodes.

import { isWait, waiting } from '../wait.js';

// The libraries, loaded before the run when a script may use them (wantHTML(), loadHTML()):
// they cost a run's start some 0.15 s of CPU, which most scripts, never parsing HTML, need not pay.
let parseDocument, selectAll, matches, textContent, getOuterHTML, getInnerHTML, getChildren, getParent;
let wanted = false;

/** A script's module names html(), clickLink() or submitForm(), or imports k6/html (src/script/transform.js). */
export function wantHTML() {
  wanted = true;
}

/** Loads the libraries if a script may use them. */
export async function loadHTML() {
  if (!wanted || parseDocument !== undefined) return;
  const [h, c, d] = await Promise.all([import('htmlparser2'), import('css-select'), import('domutils')]);
  ({ selectAll, is: matches } = c);
  ({ textContent, getOuterHTML, getInnerHTML, getChildren, getParent } = d);
  parseDocument = h.parseDocument;
}

// An element (domhandler's node types: a tag, a script or a style).
const isTag = (n) => n.type === 'tag' || n.type === 'script' || n.type === 'style';

const uniq = (nodes) => [...new Set(nodes)];
const elementsOf = (nodes) => nodes.filter(isTag);
const test = (node, selector) => selector === undefined || (isTag(node) && matches(node, selector));

/** An element as k6's Element: its name, attributes and text. */
class Element {
  constructor(node) {
    this.node = node;
  }
  get nodeName() {
    return this.node.name;
  }
  get nodeType() {
    return this.node.nodeType;
  }
  get id() {
    return this.node.attribs.id || '';
  }
  get textContent() {
    return textContent(this.node);
  }
  get innerHTML() {
    return getInnerHTML(this.node);
  }
  get outerHTML() {
    return getOuterHTML(this.node);
  }
  get className() {
    return this.node.attribs.class || '';
  }
  get classList() {
    return this.className.split(/\s+/).filter(Boolean);
  }
  getAttribute(name) {
    return this.node.attribs[name];
  }
  hasAttribute(name) {
    return name in this.node.attribs;
  }
  hasAttributes() {
    return Object.keys(this.node.attribs).length > 0;
  }
  attributes() {
    const out = {};
    for (const [name, value] of Object.entries(this.node.attribs)) out[name] = { name, value };
    return out;
  }
  toString() {
    return `[object html.HTMLElement]`;
  }
}

export class Selection {
  constructor(nodes) {
    this.nodes = nodes;
  }
  get length() {
    return this.nodes.length;
  }
  size() {
    return this.nodes.length;
  }
  find(selector) {
    return new Selection(uniq(this.nodes.flatMap((n) => selectAll(selector, n))));
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
    return this.nodes.length ? getInnerHTML(this.nodes[0]) : undefined;
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
    return new Selection(this.nodes.slice(0, 1));
  }
  last() {
    return new Selection(this.nodes.slice(-1));
  }
  eq(i) {
    return new Selection(this.nodes.slice(i < 0 ? i : i, i < 0 ? i + 1 || undefined : i + 1));
  }
  slice(start, end) {
    return new Selection(this.nodes.slice(start, end));
  }
  get(i) {
    const n = this.nodes[i < 0 ? this.nodes.length + i : i];
    return n && isTag(n) ? new Element(n) : undefined;
  }
  toArray() {
    return this.nodes.map((n) => new Selection([n]));
  }
  // each() and map() with a callback that waits (it makes a request) await it in turn.
  each(fn) {
    for (let i = 0; i < this.nodes.length; i++) {
      const r = fn(i, new Element(this.nodes[i]));
      if (isWait(r)) return waiting(this.eachFrom(fn, i, r));
    }
    return this;
  }
  async eachFrom(fn, i, pending) {
    await pending;
    for (let k = i + 1; k < this.nodes.length; k++) {
      const r = fn(k, new Element(this.nodes[k]));
      if (isWait(r)) await r;
    }
    return this;
  }
  map(fn) {
    const out = [];
    for (let i = 0; i < this.nodes.length; i++) {
      const r = fn(i, new Selection([this.nodes[i]]));
      if (isWait(r)) return waiting(this.mapFrom(fn, i, r, out));
      if (r !== undefined && r !== null) out.push(r);
    }
    return out;
  }
  async mapFrom(fn, i, pending, out) {
    const first = await pending;
    if (first !== undefined && first !== null) out.push(first);
    for (let k = i + 1; k < this.nodes.length; k++) {
      let r = fn(k, new Selection([this.nodes[k]]));
      if (isWait(r)) r = await r;
      if (r !== undefined && r !== null) out.push(r);
    }
    return out;
  }
  filter(selector) {
    if (typeof selector === 'function') return new Selection(this.nodes.filter((n, i) => selector(i, new Selection([n]))));
    return new Selection(this.nodes.filter((n) => test(n, selector)));
  }
  not(selector) {
    return new Selection(this.nodes.filter((n) => !test(n, selector)));
  }
  is(selector) {
    return this.nodes.some((n) => test(n, selector));
  }
  has(selector) {
    return new Selection(this.nodes.filter((n) => selectAll(selector, n).length > 0));
  }
  children(selector) {
    return new Selection(elementsOf(this.nodes.flatMap((n) => getChildren(n) || [])).filter((n) => test(n, selector)));
  }
  contents() {
    return new Selection(this.nodes.flatMap((n) => getChildren(n) || []));
  }
  parent(selector) {
    return new Selection(uniq(this.nodes.map(getParent).filter((n) => n && isTag(n) && test(n, selector))));
  }
  parents(selector) {
    const out = [];
    for (const n of this.nodes) for (let p = getParent(n); p && isTag(p); p = getParent(p)) if (test(p, selector)) out.push(p);
    return new Selection(uniq(out));
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
    return new Selection(uniq(out));
  }
  siblings(selector) {
    return new Selection(uniq(this.nodes.flatMap((n) => elementsOf(getChildren(getParent(n)) || []).filter((s) => s !== n && test(s, selector)))));
  }
  next(selector) {
    return new Selection(this.nodes.map((n) => nextElement(n, 1)).filter((n) => n && test(n, selector)));
  }
  prev(selector) {
    return new Selection(this.nodes.map((n) => nextElement(n, -1)).filter((n) => n && test(n, selector)));
  }
  nextAll(selector) {
    return new Selection(uniq(this.nodes.flatMap((n) => around(n, 1).filter((s) => test(s, selector)))));
  }
  prevAll(selector) {
    return new Selection(uniq(this.nodes.flatMap((n) => around(n, -1).filter((s) => test(s, selector)))));
  }
  serializeArray() {
    const fields = this.find('input[name], select[name], textarea[name]').nodes;
    return fields
      .filter((n) => !((n.attribs.type === 'checkbox' || n.attribs.type === 'radio') && !('checked' in n.attribs)))
      .map((n) => ({ name: n.attribs.name, value: new Selection([n]).val() ?? '' }));
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
  if (parseDocument === undefined) throw new Error('parseHTML: the HTML parser was not loaded (no module of the script names html, clickLink or submitForm)');
  return new Selection([parseDocument(String(text))]);
}

export function htmlModule() {
  const api = { parseHTML };
  return { default: api, ...api };
}
