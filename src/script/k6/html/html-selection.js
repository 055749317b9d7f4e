// k6/html's Selection (jQuery's, as goquery gives it to k6): a list of the parser's nodes.

import { isWait, waiting } from '../../eventloop/wait.js';
import { selectAll, matches, textContent, getChildren, getParent } from './html-lib.js';
import { toElement, isTag } from './html-node.js';
import { innerHTML } from './html-render.js';

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
