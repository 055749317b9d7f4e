// A node's children as HTML, the way k6's Selection.html() and Element.innerHTML() give them:
// goquery renders with Go's golang.org/x/net/html, which writes void elements as '<br/>', every
// attribute with a value ('disabled=""') and escapes ' and " in text as &#39; and &#34;, where
// dom-serializer writes '<br>' and leaves quotes in text alone.

const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'keygen', 'link', 'meta', 'param', 'source', 'track', 'wbr']);
// Their text is written as it is (Go: childTextNodesAreLiteral).
const LITERAL = new Set(['iframe', 'noembed', 'noframes', 'noscript', 'plaintext', 'script', 'style', 'xmp']);
const ESCAPES = { '&': '&amp;', "'": '&#39;', '<': '&lt;', '>': '&gt;', '"': '&#34;', '\r': '&#13;' };
const escape = (s) => s.replace(/[&'<>"\r]/g, (c) => ESCAPES[c]);

/** The HTML of `node`'s children; a text node's own text is escaped even in a script (as Go's). */
export function innerHTML(node) {
  let out = '';
  for (const c of node.children || []) out += render(c, false);
  return out;
}

function render(node, literal) {
  switch (node.type) {
    case 'text':
      return literal ? node.data : escape(node.data);
    case 'comment':
      return `<!--${node.data}-->`;
    case 'directive':
      return node.name === '!doctype' ? doctype(node.data) : `<!--${node.data}-->`;
    case 'cdata':
      return `<!--[CDATA[${innerHTML(node)}]]-->`;
    case 'root':
      return innerHTML(node);
    default:
      return element(node);
  }
}

function element(node) {
  let out = `<${node.name}`;
  for (const [k, v] of Object.entries(node.attribs)) out += ` ${k}="${escape(v)}"`;
  if (VOID.has(node.name)) return `${out}/>`;
  out += '>';
  const first = node.children[0];
  // Go: a leading newline would be dropped when the HTML is parsed again.
  if (first?.type === 'text' && first.data.startsWith('\n') && /^(pre|listing|textarea)$/.test(node.name)) out += '\n';
  const literal = LITERAL.has(node.name);
  for (const c of node.children) out += render(c, literal);
  return `${out}</${node.name}>`;
}

// htmlparser2 keeps a doctype's text ('!DOCTYPE html PUBLIC "..."'); Go writes its name in lower
// case and its public and system identifiers.
function doctype(data) {
  const m = /^!doctype\s*(\S*)\s*(?:(public)\s*("[^"]*"|'[^']*'))?\s*(?:(?:system\s*)?("[^"]*"|'[^']*'))?/i.exec(data);
  const [, name, pub, publicId, systemId] = m;
  let out = `<!DOCTYPE ${name.toLowerCase()}`;
  if (pub) out += ` PUBLIC ${quoted(publicId)}${systemId ? ` ${quoted(systemId)}` : ''}`;
  else if (systemId) out += ` SYSTEM ${quoted(systemId)}`;
  return `${out}>`;
}

function quoted(q) {
  const s = q.slice(1, -1);
  return s.includes('"') ? `'${s}'` : `"${s}"`;
}
