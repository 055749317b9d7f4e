// What a parsed node is to k6/html: an element or not (isTag), and the k6 Element made of it
// (toElement), for the Selection (html-selection.js), the Element (html-element.js) and the
// elements of a kind (html-elements.js). Which class an element is, html-elements.js knows: it
// makes the classes on top of Element, and hands its classFor here when it loads (html.js loads
// it), as Element and Selection, below it, make elements too.

// An element (domhandler's node types: a tag, a script or a style).
export const isTag = (n) => n.type === 'tag' || n.type === 'script' || n.type === 'style';

let classFor, Element, typeName;

/** Makes toElement build each node as the class `f(node)` gives; `base` is k6's plain Element,
 * `goType(node)` the name of the Go type k6 makes of the node ('LiElement'). */
export function useElementClasses(f, base, goType) {
  classFor = f;
  Element = base;
  typeName = goType;
}

/** The node of `v` when it is a plain Element: k6 takes no other kind as a node to look for. */
export const plainNode = (v) => (v instanceof Element && v.constructor === Element ? v.node : undefined);

/** The Go type k6 names an element by in its errors ('html.LiElement'); undefined for a non-element. */
export const elementType = (v) => (v instanceof Element ? `html.${typeName(v.node)}` : undefined);

/** The node as k6's Element, or its tag's kind of element; undefined for none. */
export function toElement(node, url) {
  if (!node) return undefined;
  return new (classFor(node))(node, url);
}
