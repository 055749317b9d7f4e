// k6/html's Element: what Selection.get(i) and each()'s second argument give, a DOM-like view of
// one node. In k6 (Go methods that sobek makes functions) every property is a method:
// el.textContent(), el.id(). Tag-specific elements (an anchor's href(), an input's value()) are
// in html-elements.js. What k6 gives for a missing attribute differs by method (undefined from
// getAttribute() and className(), '' from id()) and is kept so.

import * as lib from './html-lib.js';
import { Selection } from './html-selection.js';
import { toElement, isTag } from './html-node.js';
import { innerHTML } from './html-render.js';
import { parseGoURL, resolveGoURL, formatGoURL } from './go-url-resolve.js';
import { namespaceOf } from './html-namespace.js';

const isDoctype = (n) => n.type === 'directive' && n.name === '!doctype';

const list = (nodes, url) => nodes.map((n) => toElement(n, url));

/** An attribute's value; undefined when it is not there. */
export const attr = (node, name) => (node.attribs && Object.hasOwn(node.attribs, name) ? node.attribs[name] : undefined);

/** The nodes under `node` that `selector` matches (goquery's Find: its descendants). */
export const find = (node, selector) => (isTag(node) || node.type === 'root' ? lib.selectAll(selector, node) : []);

// The top of the tree `node` is in: where k6 looks for a form or a label by id.
export function rootOf(node) {
  while (node.parent) node = node.parent;
  return node;
}

/** The elements of `node`'s document that `test` accepts, in the document's order. */
export const findInDocument = (node, test) => lib.findAll(test, rootOf(node).children || []);

const NAMESPACES = { svg: 'http://www.w3.org/2000/svg', math: 'http://www.w3.org/1998/Math/MathML', '': 'http://www.w3.org/1999/xhtml' };

// goquery's NodeName: a tag's name, a doctype's, or #text, #comment, #document.
function nodeName(node) {
  if (isTag(node)) return node.name;
  if (isDoctype(node)) return (/^!doctype\s+(\S+)/i.exec(node.data)?.[1] ?? '').toLowerCase();
  return { text: '#text', root: '#document' }[node.type] ?? '#comment';
}

const NODE_TYPES = { tag: 1, script: 1, style: 1, text: 3, comment: 8, root: 9 };

// k6 compares only with a plain Element: its isSameNode(), isEqualNode() and contains() take
// an anchor, an li or any element of a kind of its own for no node, and answer false.
const plain = (other) => other instanceof Element && other.constructor === Element;

export class Element {
  constructor(node, url) {
    this.node = node;
    this.url = url;
  }
  // k6's Selection of this node; the page's URL goes with it.
  selection() {
    return new Selection([this.node], this.url);
  }
  getAttribute(name) {
    return attr(this.node, name);
  }
  getAttributeNode(name) {
    const value = attr(this.node, name);
    return value === undefined ? undefined : attribute(this.node, name, value, this.url);
  }
  hasAttribute(name) {
    return attr(this.node, name) !== undefined;
  }
  hasAttributes() {
    return Object.keys(this.node.attribs ?? {}).length > 0;
  }
  attributes() {
    const out = {};
    for (const [name, value] of Object.entries(this.node.attribs ?? {})) out[name] = attribute(this.node, name, value, this.url);
    return out;
  }
  toString() {
    return isTag(this.node) ? '[object html.Node]' : `[object ${nodeName(this.node)}]`;
  }
  hasChildNodes() {
    return (this.node.children?.length ?? 0) > 0;
  }
  textContent() {
    return lib.textContent(this.node);
  }
  id() {
    return string(this.node, 'id');
  }
  isEqualNode(other) {
    return plain(other) && innerHTML(this.node) === innerHTML(other.node);
  }
  isSameNode(other) {
    return plain(other) && other.node === this.node;
  }
  contains(other) {
    if (!plain(other) || other.node === this.node) return false;
    for (let p = other.node.parent; p; p = p.parent) if (p === this.node) return true;
    return false;
  }
  getElementsByClassName(name) {
    return list(find(this.node, `.${name}`), this.url);
  }
  getElementsByTagName(name) {
    return list(find(this.node, name), this.url);
  }
  querySelector(selector) {
    return toElement(find(this.node, selector)[0], this.url);
  }
  querySelectorAll(selector) {
    return list(find(this.node, selector), this.url);
  }
  matches(selector) {
    return isTag(this.node) && lib.matches(this.node, selector);
  }
  nodeName() {
    return nodeName(this.node);
  }
  nodeType() {
    return isDoctype(this.node) ? 10 : NODE_TYPES[this.node.type];
  }
  // A comment's is '' in k6 (goquery's Text() of it), not its text.
  nodeValue() {
    if (this.node.type === 'text') return this.node.data;
    return this.node.type === 'comment' ? '' : undefined;
  }
  // k6 v1.3.0 crashes (a nil pointer) when there is no such node; undefined here.
  firstChild() {
    return toElement(this.node.children?.[0], this.url);
  }
  lastChild() {
    return toElement(this.node.children?.at(-1), this.url);
  }
  previousSibling() {
    return toElement(this.node.prev, this.url);
  }
  nextSibling() {
    return toElement(this.node.next, this.url);
  }
  firstElementChild() {
    return toElement(elementChildren(this.node)[0], this.url);
  }
  lastElementChild() {
    return toElement(elementChildren(this.node).at(-1), this.url);
  }
  previousElementSibling() {
    return toElement(sibling(this.node, 'prev'), this.url);
  }
  nextElementSibling() {
    return toElement(sibling(this.node, 'next'), this.url);
  }
  parentNode() {
    return toElement(this.node.parent, this.url);
  }
  parentElement() {
    const p = this.node.parent;
    return p && isTag(p) ? toElement(p, this.url) : undefined;
  }
  childNodes() {
    return list(this.node.children ?? [], this.url);
  }
  children() {
    return list(elementChildren(this.node), this.url);
  }
  childElementCount() {
    return elementChildren(this.node).length;
  }
  classList() {
    return string(this.node, 'class').split(/\s+/).filter(Boolean);
  }
  className() {
    return attr(this.node, 'class');
  }
  lang() {
    return attr(this.node, 'lang');
  }
  ownerDocument() {
    const root = rootOf(this.node);
    return root.type === 'root' ? toElement(root, this.url) : undefined;
  }
  namespaceURI() {
    return NAMESPACES[namespaceOf(this.node)];
  }
  isDefaultNamespace() {
    return namespaceOf(this.node) === '';
  }
  innerHTML() {
    return innerHTML(this.node);
  }
}

/** An attribute's value or '' (Go's attrAsString). */
export const string = (node, name) => attr(node, name) ?? '';

export const elementChildren = (node) => (node.children ?? []).filter(isTag);

/** An attribute of `el` as a URL resolved against the page's (res.html()'s), as a string; the
 * attribute as it is when there is no page URL (parseHTML), `fallback` when it does not parse. */
export function urlString(el, name, fallback) {
  const value = attr(el.node, name);
  if (!el.url) return value ?? '';
  const u = value === undefined ? null : resolved(el, value);
  return u ? formatGoURL(u) : fallback;
}

/** `value` resolved against the page's URL (Go's parts), null where Go cannot parse either. */
export function resolved(el, value) {
  const base = parseGoURL(el.url ?? '');
  const ref = parseGoURL(value);
  return base && ref ? resolveGoURL(base, ref) : null;
}

function sibling(node, way) {
  let n = node[way];
  while (n && !isTag(n)) n = n[way];
  return n;
}

// k6's Attribute: its fields in snake case (owner_element), as k6 exposes a Go struct's fields.
function attribute(node, name, value, url) {
  return {
    owner_element: new Element(node, url),
    name,
    value,
    localName: () => name,
    namespaceURI: () => NAMESPACES[''],
    prefix: () => '',
  };
}
