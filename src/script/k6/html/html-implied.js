// The html, head and body an HTML5 parser adds around a page. k6 parses with Go's html.Parse,
// which builds them: '<ul>…</ul>' is '<html><head></head><body><ul>…</ul></body></html>', and a
// title or meta before the first content goes to head. htmlparser2 builds none, so they are
// added here to its tree, following the insertion modes of Go's parser (x/net/html parse.go)
// at the top of the page: before html, before head, in head, after head, in body and after.
// What lies inside body is left as htmlparser2 built it (no implied tbody, no table fostering).

const WHITESPACE = /^[ \t\n\f\r]*/;
// Where each mode before body puts a text's leading whitespace: nowhere, head or html.
const SPACE_GOES = { beforeHtml: null, beforeHead: null, inHead: 'head', afterHead: 'html' };
// Elements that, before the page's first content, go to head (Go: inHeadIM)...
const IN_HEAD = new Set(['base', 'basefont', 'bgsound', 'link', 'meta', 'title', 'noscript', 'noframes', 'style', 'script', 'template']);
// ...and those that still go there once head is closed (Go: afterHeadIM; not noscript).
const AFTER_HEAD = new Set([...IN_HEAD].filter((n) => n !== 'noscript'));

/** Puts the top of `doc` (htmlparser2's document) in html, head and body; `parseDocument` makes the elements missing. */
export function addImplied(doc, parseDocument) {
  const skeleton = parseDocument('<html><head></head><body></body></html>').children[0];
  const builder = new Builder(skeleton);
  for (const node of [...doc.children]) builder.step(node);
  builder.finish(doc);
}

class Builder {
  constructor(skeleton) {
    this.spare = { html: skeleton, head: skeleton.children[0], body: skeleton.children[1] };
    this.mode = 'beforeHtml';
    this.root = [];
    this.kids = { html: [], head: [], body: [] };
    this.html = this.head = this.body = undefined;
  }

  step(node) {
    const kind = kindOf(node);
    if (kind === '#text' && this.mode in SPACE_GOES && this.leadingSpace(node)) return;
    this[this.mode](node, kind);
  }

  // Before body, a text's leading whitespace goes where the mode puts whitespace (or nowhere);
  // true when nothing is left of it.
  leadingSpace(node) {
    const space = WHITESPACE.exec(node.data)[0];
    if (space === '') return false;
    const into = SPACE_GOES[this.mode];
    if (into) this.kids[into].push(new node.constructor(space));
    node.data = node.data.slice(space.length);
    return node.data === '';
  }

  beforeHtml(node, kind) {
    if (kind === '#doctype' || kind === '#comment') return this.root.push(node);
    this.open('html', kind === 'html' ? node : undefined);
    this.mode = 'beforeHead';
    if (kind !== 'html') return this.step(node);
    this.within(node);
    if (this.mode === 'inBody' || this.mode === 'afterBody') this.mode = 'afterAfterBody';
  }

  beforeHead(node, kind) {
    if (kind === '#comment') return this.kids.html.push(node);
    if (kind === '#doctype') return;
    if (kind === 'html') return this.within(node);
    this.open('head', kind === 'head' ? node : undefined);
    this.mode = IN_HEAD.has(kind) || kind === 'head' ? 'inHead' : 'afterHead';
    if (kind !== 'head') return this.step(node);
    this.within(node);
    if (this.mode === 'inHead') this.mode = 'afterHead';
  }

  inHead(node, kind) {
    if (kind === '#comment' || IN_HEAD.has(kind)) return this.kids.head.push(node);
    if (kind === '#doctype') return;
    this.mode = 'afterHead';
    this.step(node);
  }

  afterHead(node, kind) {
    if (kind === '#comment') return this.kids.html.push(node);
    if (AFTER_HEAD.has(kind)) return this.kids.head.push(node);
    if (kind === '#doctype' || kind === 'head') return;
    this.open('body', kind === 'body' ? node : undefined);
    if (kind === 'body') {
      this.kids.body = [...node.children];
      this.mode = 'afterBody';
      return;
    }
    this.mode = 'inBody';
    this.step(node);
  }

  inBody(node, kind) {
    if (kind !== '#doctype') this.kids.body.push(node);
  }

  // After '</body>' a comment stays in html, after '</html>' at the page's top (Go: afterBodyIM,
  // afterAfterBodyIM); anything else goes back into body.
  afterBody(node, kind) {
    if (kind === '#comment') this.kids.html.push(node);
    else this.inBody(node, kind);
  }

  afterAfterBody(node, kind) {
    if (kind === '#comment') this.root.push(node);
    else this.inBody(node, kind);
  }

  /** Opens the page's own `name` element if it has one, else a new one. */
  open(name, own) {
    this[name] = own ?? this.spare[name];
    (name === 'html' ? this.root : this.kids.html).push(this[name]);
  }

  /** Steps through the children of a page's own html or head, which take their place. */
  within(node) {
    for (const child of [...node.children]) this.step(child);
  }

  finish(doc) {
    for (const name of ['html', 'head', 'body']) if (!this[name]) this.open(name);
    adopt(this.head, this.kids.head);
    adopt(this.body, this.kids.body);
    adopt(this.html, this.kids.html);
    adopt(doc, this.root);
  }
}

// An element's name, or '#text', '#comment' (as Go reads '<?xml ?>' and CDATA in HTML) or '#doctype'.
function kindOf(node) {
  if (node.type === 'comment' || node.type === 'cdata') return '#comment';
  if (node.type === 'directive') return node.name === '!doctype' ? '#doctype' : '#comment';
  if (node.type === 'text') return '#text';
  return node.name;
}

function adopt(parent, children) {
  parent.children = children;
  children.forEach((child, i) => {
    child.parent = parent;
    child.prev = children[i - 1] ?? null;
    child.next = children[i + 1] ?? null;
  });
}
