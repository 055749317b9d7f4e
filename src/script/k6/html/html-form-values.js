// k6's Selection.val() and its serializeArray() and serialize(): what a form would send, as k6
// reads it off the page (not as a browser would: only disabled="disabled" is disabled and only
// checked="checked" is checked, a textarea's value and an option's text are their HTML).

import { selectAll, matches } from './html-lib.js';
import { isTag } from './html-node.js';
import { innerHTML } from './html-render.js';

const attr = (n, name) => (n.attribs && Object.hasOwn(n.attribs, name) ? n.attribs[name] : undefined);
const valueOrHTML = (n) => attr(n, 'value') ?? innerHTML(n);

/** val() of a selection: its first node's value by the node's kind; undefined for other kinds. */
export function valueOf(nodes) {
  const n = nodes[0];
  if (!n || !isTag(n)) return undefined;
  switch (n.name) {
    case 'input':
      return attr(n, 'value') ?? (['radio', 'checkbox'].includes(attr(n, 'type')) ? 'on' : '');
    case 'button':
      return attr(n, 'value') ?? '';
    case 'textarea':
      return innerHTML(n);
    case 'option':
      return valueOrHTML(n);
    case 'select': {
      // A multiple select's selected values, every one; a single select's first, '' for none.
      const selected = selectAll('option[selected]', n);
      if (attr(n, 'multiple') !== undefined) return selected.map(valueOrHTML);
      return selected.length ? valueOrHTML(selected[0]) : '';
    }
    default:
      return undefined;
  }
}

const SUBMITTABLE = 'input,select,textarea,keygen';
const NOT_SENT = new Set(['submit', 'button', 'reset', 'image', 'file']);

/** The fields of a selection that a form would send: those in it, or in its forms if it has one. */
export function submitted(nodes) {
  const tags = nodes.filter(isTag);
  const fields = tags.some((n) => matches(n, 'form')) ? [...new Set(tags.flatMap((n) => selectAll(SUBMITTABLE, n)))] : tags.filter((n) => matches(n, SUBMITTABLE));
  return fields.filter((n) => {
    const type = attr(n, 'type') ?? '';
    if ((attr(n, 'name') ?? '') === '' || attr(n, 'disabled') === 'disabled' || NOT_SENT.has(type)) return false;
    return attr(n, 'checked') === 'checked' || (type !== 'checkbox' && type !== 'radio');
  });
}

/** Go's url.Values.Encode of the fields' values: names sorted, a name's last value, a list's every one. */
export function encodeForm(fields) {
  const values = new Map();
  for (const { name, value } of fields) {
    if (typeof value === 'string') values.set(name, [value]);
    else if (Array.isArray(value)) values.set(name, value);
  }
  const names = [...values.keys()].sort();
  return names.flatMap((name) => values.get(name).map((v) => `${queryEscape(name)}=${queryEscape(v)}`)).join('&');
}

// Go's url.QueryEscape: all but letters, digits and -_.~ escaped, a space as '+'.
const queryEscape = (s) =>
  encodeURIComponent(s)
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');
