// k6/html's Selection (jQuery's, as goquery gives it to k6): a list of the parser's nodes.

import { isWait, waiting } from '../../eventloop/wait.js';
import { thrownGoError } from '../host-error.js';
import { selectAll, matches, textContent, getChildren, getParent } from './html-lib.js';
import { toElement, isTag, plainNode, elementType } from './html-node.js';
import { innerHTML } from './html-render.js';
import { dataProperty, dataAttribute, dataValue } from './html-data.js';
import { valueOf, submitted, encodeForm } from './html-form-values.js';

const uniq = (nodes) => [...new Set(nodes)];
const elementsOf = (nodes) => nodes.filter(isTag);
// A filter given as k6's optional string argument: none when not given, else as a string
// (sobek's: parent(undefined) filters by 'undefined' and keeps nothing).
const test = (node, filter) => filter.length === 0 || (isTag(node) && matches(node, String(filter[0])));
const is = (node, selector) => isTag(node) && selector !== '' && matches(node, selector);
const top = (node) => {
  while (node?.parent) node = node.parent;
  return node;
};

// Each Selection made from another keeps its page's URL (res.html()'s; '' from parseHTML),
// against which its elements resolve their href, src and action (html-elements.js).
export class Selection {
  // The selection this one was made from (end() gives it back) and the document both are in.
  #prev;
  #root;
  constructor(nodes, url = '', prev = undefined) {
    this.nodes = nodes;
    this.url = url;
    this.#prev = prev;
    this.#root = prev ? prev.#root : top(nodes[0]);
  }
  derive(nodes) {
    return new Selection(nodes, this.url, this);
  }
  end() {
    return this.#prev ?? this.#empty();
  }
  // goquery's empty selection: of the same document, made from none.
  #empty() {
    const none = new Selection([], this.url);
    none.#root = this.#root;
    return none;
  }
  // No length: k6's Selection has size() alone (doc.find('img').length is undefined there).
  size() {
    return this.nodes.length;
  }
  // A selector, or a Selection or plain Element of those under this one.
  find(arg) {
    const nodes = selectorNodes(arg);
    if (nodes) return this.derive(uniq(nodes.filter((n) => this.nodes.some((c) => contains(c, n)))));
    return this.derive(uniq(this.nodes.flatMap((n) => selectAll(arg, n))));
  }
  // The first element under this one that `selector` matches (goquery's Single).
  single(selector) {
    return this.derive(this.find(String(selector)).nodes.slice(0, 1));
  }
  // Those of the document that `arg` matches, or its nodes, after this one's.
  add(arg) {
    const nodes = selectorNodes(arg) ?? (this.#root ? selectAll(arg, this.#root) : []);
    return this.derive(uniq([...this.nodes, ...nodes]));
  }
  // The first node's place among its element siblings; or the place in this selection of a
  // Selection's first node or of an Element's; or the first node's among those of the document
  // that a selector matches.
  index(...arg) {
    if (arg.length === 0) return this.nodes.length ? around(this.nodes[0], -1).length : -1;
    const [v] = arg;
    if (v instanceof Selection) return v.nodes.length ? this.nodes.indexOf(v.nodes[0]) : -1;
    if (typeof v === 'string') return this.nodes.length && this.#root ? selectAll(v, this.#root).indexOf(this.nodes[0]) : -1;
    const node = plainNode(v);
    return node ? this.nodes.indexOf(node) : -1;
  }
  attr(name, fallback) {
    const n = this.nodes.find(isTag);
    if (n && Object.hasOwn(n.attribs, name)) return n.attribs[name];
    return fallback;
  }
  text() {
    return this.nodes.map((n) => textContent(n)).join('');
  }
  // '' for an empty selection (goquery's Html()).
  html() {
    return this.nodes.length ? innerHTML(this.nodes[0]) : '';
  }
  val() {
    return valueOf(this.nodes);
  }
  // The first node's data- attributes, or one of them by its property's name; undefined when
  // the node has no attributes at all.
  data(...key) {
    const attribs = this.nodes[0]?.attribs ?? {};
    if (Object.keys(attribs).length === 0) return undefined;
    if (key.length > 0) {
      const name = `data-${dataAttribute(String(key[0]))}`;
      return Object.hasOwn(attribs, name) ? dataValue(attribs[name]) : undefined;
    }
    const all = {};
    for (const [k, v] of Object.entries(attribs)) if (k.startsWith('data-') && k.length > 5) all[dataProperty(k.slice(5))] = dataValue(v);
    return all;
  }
  first() {
    return this.eq(0);
  }
  last() {
    return this.eq(-1);
  }
  // Out of range, an empty selection made from none (end() of it is empty too).
  eq(i) {
    const at = i < 0 ? this.nodes.length + i : i;
    return at >= 0 && at < this.nodes.length ? this.derive([this.nodes[at]]) : this.#empty();
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
  // Every callback's value, undefined and null too; one that throws is left out (k6 drops its
  // error).
  map(fn) {
    const out = [];
    for (let i = 0; i < this.nodes.length; i++) {
      let r;
      try {
        r = fn(i, this.derive([this.nodes[i]]));
      } catch {
        continue;
      }
      if (isWait(r)) return waiting(this.mapFrom(fn, i, r, out));
      out.push(r);
    }
    return out;
  }
  async mapFrom(fn, i, pending, out) {
    for (let k = i; k < this.nodes.length; k++) {
      try {
        const r = k === i ? pending : fn(k, this.derive([this.nodes[k]]));
        out.push(isWait(r) || k === i ? await r : r);
      } catch {
        // left out, as above
      }
    }
    return out;
  }
  filter(arg) {
    if (typeof arg === 'string') return this.derive(this.nodes.filter((n) => is(n, arg)));
    if (arg instanceof Selection) return this.derive(this.nodes.filter((n) => arg.nodes.includes(n)));
    return this.derive(this.nodes.filter(this.#matcher(arg, 'filter')));
  }
  not(arg) {
    if (typeof arg === 'function') {
      const match = this.#matcher(arg, 'not');
      return this.derive(this.nodes.filter((n, i) => !match(n, i)));
    }
    const nodes = selectorNodes(arg);
    if (nodes) return this.derive(this.nodes.filter((n) => !nodes.includes(n)));
    return this.derive(this.nodes.filter((n) => !is(n, arg)));
  }
  is(arg) {
    if (typeof arg === 'string') return this.nodes.some((n) => is(n, arg));
    if (arg instanceof Selection) return this.nodes.some((n) => arg.nodes.includes(n));
    return this.nodes.some(this.#matcher(arg, 'is'));
  }
  // A callback of filter(), not() or is() as a test of a node: called with its index and a
  // Selection of it, and `this` the callback, as k6 calls it.
  #matcher(fn, method) {
    if (typeof fn !== 'function') throw thrownGoError(`the argument to ${method}() must be a function, a selector or a selection`);
    return (n, i) => Boolean(fn.call(fn, i, new Selection([n], this.url)));
  }
  // Those with a node under them that a selector matches, or of a Selection's or Element's.
  has(arg) {
    const nodes = selectorNodes(arg);
    if (nodes) return this.derive(this.nodes.filter((n) => nodes.some((c) => contains(n, c))));
    return this.derive(this.nodes.filter((n) => selectAll(arg, n).length > 0));
  }
  children(...filter) {
    return this.derive(elementsOf(this.nodes.flatMap((n) => getChildren(n) || [])).filter((n) => test(n, filter)));
  }
  contents() {
    return this.derive(this.nodes.flatMap((n) => getChildren(n) || []));
  }
  parent(...filter) {
    return this.derive(uniq(this.nodes.map(getParent).filter((n) => n && isTag(n) && test(n, filter))));
  }
  parents(...filter) {
    return this.derive(uniq(this.nodes.flatMap((n) => ancestors(n, NONE))).filter((n) => test(n, filter)));
  }
  // Each node's ancestors up to the one `until` matches (a selector or a Selection; all of them
  // with none), those a second argument matches.
  parentsUntil(...args) {
    return this.#until(args, (n, stop) => ancestors(n, stop));
  }
  nextUntil(...args) {
    return this.#until(args, (n, stop) => around(n, 1, stop));
  }
  prevUntil(...args) {
    return this.#until(args, (n, stop) => around(n, -1, stop));
  }
  #until(args, walk) {
    const stop = untilTest(args);
    const found = uniq(this.nodes.flatMap((n) => walk(n, stop)));
    return this.derive(args.length === 2 ? found.filter((n) => is(n, String(args[1]))) : found);
  }
  // The first node and its ancestors, up to the first that a selector matches or that is one of
  // a Selection's or an Element's nodes.
  closest(arg) {
    const nodes = selectorNodes(arg);
    const found = (n) => (nodes ? nodes.includes(n) : is(n, arg));
    const out = [];
    for (const n of this.nodes) {
      for (let p = n; p; p = getParent(p)) {
        if (found(p)) {
          out.push(p);
          break;
        }
      }
    }
    return this.derive(uniq(out));
  }
  siblings(...filter) {
    return this.derive(uniq(this.nodes.flatMap((n) => elementsOf(getParent(n) ? getChildren(getParent(n)) : []).filter((s) => s !== n && test(s, filter)))));
  }
  next(...filter) {
    return this.derive(uniq(this.nodes.map((n) => around(n, 1)[0]).filter((n) => n && test(n, filter))));
  }
  prev(...filter) {
    return this.derive(uniq(this.nodes.map((n) => around(n, -1)[0]).filter((n) => n && test(n, filter))));
  }
  nextAll(...filter) {
    return this.derive(uniq(this.nodes.flatMap((n) => around(n, 1).filter((s) => test(s, filter)))));
  }
  prevAll(...filter) {
    return this.derive(uniq(this.nodes.flatMap((n) => around(n, -1).filter((s) => test(s, filter)))));
  }
  // Each field a form of this selection would send (or each field in it), its name and val().
  serializeArray() {
    return submitted(this.nodes).map((n) => ({ name: n.attribs.name, value: valueOf([n]) }));
  }
  serializeObject() {
    const out = {};
    for (const { name, value } of this.serializeArray()) out[name] = value;
    return out;
  }
  serialize() {
    return encodeForm(this.serializeArray());
  }
}

const NONE = () => false;

// The nodes of a Selection or a plain Element given as a selector; undefined for a selector
// string; k6's error for any other value.
function selectorNodes(arg) {
  if (typeof arg === 'string') return undefined;
  if (arg instanceof Selection) return arg.nodes;
  const node = plainNode(arg);
  if (node) return [node];
  throw invalidSelector(arg);
}

const invalidSelector = (arg) => thrownGoError(`invalid argument, cannot use a '${goType(arg)}' as a selector`);

// The *Until methods' end: a selector, a Selection, or nothing (null, undefined: no end).
function untilTest(args) {
  const [until] = args;
  if (args.length > 2) throw invalidSelector(until);
  if (until === undefined || until === null) return NONE;
  if (typeof until === 'string') return (n) => is(n, until);
  if (until instanceof Selection) return (n) => until.nodes.includes(n);
  throw invalidSelector(until);
}

// The name of the Go type sobek makes of a script's value, which k6's errors give.
function goType(v) {
  if (v === undefined || v === null) return '<nil>';
  if (typeof v === 'number') return Number.isInteger(v) && !Object.is(v, -0) ? 'int64' : 'float64';
  const simple = { string: 'string', boolean: 'bool', bigint: '*big.Int', function: 'func(sobek.FunctionCall) sobek.Value' }[typeof v];
  if (simple) return simple;
  if (elementType(v)) return elementType(v);
  if (Array.isArray(v)) return '[]interface {}';
  if (v instanceof Date) return 'time.Time';
  if (v instanceof Map) return '[][2]interface {}';
  if (v instanceof Uint8Array) return '[]uint8';
  if (v instanceof ArrayBuffer) return 'sobek.ArrayBuffer';
  return 'map[string]interface {}';
}

// Whether `node` is under `container` (goquery's Contains: not the node itself).
function contains(container, node) {
  for (let p = getParent(node); p; p = getParent(p)) if (p === container) return true;
  return false;
}

// Each element ancestor of `n`, nearest first, until one that `stop` accepts (the document too).
function ancestors(n, stop) {
  const out = [];
  for (let p = getParent(n); p && !stop(p); p = getParent(p)) if (isTag(p)) out.push(p);
  return out;
}

// The element siblings after `n` (step 1) or before it, nearest first, until one that `stop` accepts.
function around(n, step, stop = NONE) {
  const parent = getParent(n);
  const siblings = parent ? elementsOf(getChildren(parent)) : [];
  const i = siblings.indexOf(n);
  const side = step > 0 ? siblings.slice(i + 1) : siblings.slice(0, i).reverse();
  const end = side.findIndex(stop);
  return end < 0 ? side : side.slice(0, end);
}
