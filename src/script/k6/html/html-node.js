// What a parsed node is to k6/html: an element or not (isTag), and the k6 Element made of it
// (toElement), for the Selection (html-selection.js), the Element (html-element.js) and the
// elements of a kind (html-elements.js). Which class an element is, html-elements.js knows: it
// makes the classes on top of Element, and hands its classFor here when it loads (html.js loads
// it), as Element and Selection, below it, make elements too.

// An element (domhandler's node types: a tag, a script or a style).
export const isTag = (n) => n.type === 'tag' || n.type === 'script' || n.type === 'style';

let classFor;

/** Makes toElement build each node as the class `f(node)` gives. */
export function useElementClasses(f) {
  classFor = f;
}

/** The node as k6's Element, or its tag's kind of element; undefined for none. */
export function toElement(node, url) {
  if (!node) return undefined;
  return new (classFor(node))(node, url);
}
