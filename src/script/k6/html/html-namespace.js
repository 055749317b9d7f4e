// The namespace of an element as an HTML5 parser (Go's, k6's) gives it, and the attribute names
// it writes in mixed case there: htmlparser2 has no namespaces and lowers every attribute's
// name, where Go's parser lowers them and then gives an SVG element's their SVG spelling
// (viewBox, preserveAspectRatio) and a MathML element's definitionURL, which k6's attr() and
// html() show.

import { isTag } from './html-node.js';

// Where an svg's or math's content is HTML again (Go: htmlIntegrationPoint and
// mathMLTextIntegrationPoint).
const SVG_HTML_POINTS = new Set(['foreignObject', 'desc', 'title']);
const MATH_TEXT_POINTS = new Set(['mi', 'mo', 'mn', 'ms', 'mtext']);

/** 'svg', 'math' or '' (HTML): the namespace of `node`. */
export function namespaceOf(node) {
  if (!isTag(node)) return '';
  if (node.name === 'svg' || node.name === 'math') return node.name;
  const parent = node.parent;
  return parent && isTag(parent) ? childNamespace(parent, namespaceOf(parent)) : '';
}

// The namespace of an element (neither svg nor math) inside `parent`, of namespace `ns`.
function childNamespace(parent, ns) {
  if (ns === 'svg' && !SVG_HTML_POINTS.has(parent.name)) return 'svg';
  if (ns === 'math' && !MATH_TEXT_POINTS.has(parent.name) && !htmlAnnotation(parent)) return 'math';
  return '';
}

const htmlAnnotation = (n) => n.name === 'annotation-xml' && /^(text\/html|application\/xhtml\+xml)$/i.test(n.attribs.encoding ?? '');

/** Gives the svg and math elements under `node` the attribute names Go's parser gives them. */
export function foreignAttributeNames(node, ns = '') {
  for (const child of node.children ?? []) {
    if (!isTag(child)) continue;
    const own = child.name === 'svg' || child.name === 'math' ? child.name : isTag(node) ? childNamespace(node, ns) : '';
    if (own !== '') renameAttributes(child, own === 'svg' ? SVG_ATTRIBUTES : MATH_ATTRIBUTES);
    foreignAttributeNames(child, own);
  }
}

// In place, keeping their order.
function renameAttributes(node, names) {
  if (!Object.keys(node.attribs).some((k) => Object.hasOwn(names, k))) return;
  node.attribs = Object.fromEntries(Object.entries(node.attribs).map(([k, v]) => [Object.hasOwn(names, k) ? names[k] : k, v]));
}

const MATH_ATTRIBUTES = { definitionurl: 'definitionURL' };
const SVG_ATTRIBUTES = Object.fromEntries(
  (
    'attributeName attributeType baseFrequency baseProfile calcMode clipPathUnits diffuseConstant edgeMode filterUnits ' +
    'glyphRef gradientTransform gradientUnits kernelMatrix kernelUnitLength keyPoints keySplines keyTimes lengthAdjust ' +
    'limitingConeAngle markerHeight markerUnits markerWidth maskContentUnits maskUnits numOctaves pathLength ' +
    'patternContentUnits patternTransform patternUnits pointsAtX pointsAtY pointsAtZ preserveAlpha preserveAspectRatio ' +
    'primitiveUnits refX refY repeatCount repeatDur requiredExtensions requiredFeatures specularConstant ' +
    'specularExponent spreadMethod startOffset stdDeviation stitchTiles surfaceScale systemLanguage tableValues ' +
    'targetX targetY textLength viewBox viewTarget xChannelSelector yChannelSelector zoomAndPan'
  )
    .split(' ')
    .map((name) => [name.toLowerCase(), name]),
);
