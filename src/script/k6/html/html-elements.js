// k6/html's elements of a kind: an anchor's href() and host(), an input's value() and form(),
// a select's options()... k6 generates most of them from a table of (method, attribute, kind);
// ours is the table below, its accessors made as the module loads, beside the methods that are
// more than an attribute's value.

import { Element, attr, string, find, findInDocument, urlString, resolved } from './html-element.js';
import { toElement, isTag, useElementClasses } from './html-node.js';
import { parseGoURL, formatGoURL, decodeGo } from './go-url-resolve.js';

// The values an enumerated attribute may take; the first when it has another or none.
const ENUMS = {
  referrer: ['', 'no-referrer', 'no-referrer-when-downgrade', 'origin', 'origin-when-cross-origin', 'unsafe-url'],
  autocomplete: ['on', 'off'],
  preload: ['auto', 'metadata', 'none'],
  buttonType: ['submit', 'button', 'menu', 'reset'],
  enctype: ['application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain'],
  inputType: ['text', 'button', 'checkbox', 'color', 'date', 'datetime-local', 'email', 'file', 'hidden', 'image', 'month', 'number', 'password', 'radio', 'range', 'reset', 'search', 'submit', 'tel', 'time', 'url', 'week'],
  keyType: ['RSA', 'DSA', 'EC'],
  liType: ['', '1', 'a', 'A', 'i', 'I', 'disc', 'square', 'circle'],
  httpEquiv: ['content-type', 'default-style', 'refresh'],
  olType: ['1', 'a', 'A', 'i', 'I'],
  scope: ['', 'row', 'col', 'colgroup', 'rowgroup'],
  autocap: ['sentences', 'none', 'off', 'characters', 'words'],
  wrap: ['soft', 'hard', 'off'],
  kind: ['subtitle', 'captions', 'descriptions', 'chapters', 'metadata'],
};

// A kind of accessor: what it makes of the attribute's value (undefined when it is not there).
const KINDS = {
  string: (el, a) => string(el.node, a),
  bool: (el, a) => attr(el.node, a) !== undefined,
  url: (el, a) => urlString(el, a, ''),
  pageURL: (el, a) => urlString(el, a, el.url), // a base's href: the page's URL when it has none
  int: (el, a) => goInt(attr(el.node, a)) ?? 0,
  int1: (el, a) => goInt(attr(el.node, a)) ?? 1,
  'int-1': (el, a) => goInt(attr(el.node, a)) ?? -1,
  // crossorigin: undefined unless one of its two values.
  crossorigin: (el, a) => (['anonymous', 'use-credentials'].includes(attr(el.node, a)) ? attr(el.node, a) : undefined),
};
for (const [name, values] of Object.entries(ENUMS)) KINDS[name] = (el, a) => (values.slice(1).includes(string(el.node, a)) ? string(el.node, a) : values[0]);

// Each kind of element's accessors, `method[=attribute][:kind]`: the attribute is the method's
// name in lower case unless given, the kind a string ('' when there is none) unless given.
const ACCESSORS = {
  Href: 'download rel target type accessKey hrefLang href:url toString=href:url referrerPolicy:referrer',
  Media: 'autoplay:bool controls:bool loop:bool muted:bool preload:preload src:url crossOrigin:crossorigin currentSrc=src defaultMuted=muted:bool mediaGroup',
  Base: 'href:pageURL target',
  Button: 'accessKey autofocus:bool disabled:bool tabIndex:int type:buttonType',
  Data: 'value',
  Embed: 'height width src type',
  FieldSet: 'disabled:bool name',
  Form: 'action:url name target enctype:enctype encoding=enctype:enctype acceptCharset=accept-charset autocomplete:autocomplete noValidate:bool',
  IFrame: 'allowfullscreen:bool referrerPolicy:referrer height width name src:url',
  Image: 'currentSrc=src:url sizes srcset alt crossOrigin:crossorigin height:int width:int isMap:bool name src:url useMap referrerPolicy:referrer',
  Input:
    'name tabIndex:int type:inputType disabled:bool autofocus:bool required:bool value checked:bool defaultChecked=checked:bool alt src:url height width accept ' +
    'autocomplete:autocomplete maxLength:int-1 size:int pattern placeholder readonly:bool min max defaultValue=value dirName accessKey multiple:bool step',
  Keygen: 'autofocus:bool challenge disabled:bool keytype:keyType name',
  Label: 'htmlFor=for',
  Legend: 'accessKey',
  Li: 'value:int type:liType',
  Link: 'crossOrigin:crossorigin referrerPolicy:referrer href:url hreflang media rel target type',
  Map: 'name',
  Meta: 'content name httpEquiv=http-equiv:httpEquiv',
  Meter: 'min:int max:int high:int low:int optimum:int',
  Mod: 'cite datetime',
  Object: 'data:url height name type tabIndex:int typeMustMatch:bool useMap width',
  OList: 'reversed:bool start:int type:olType',
  OptGroup: 'disabled:bool label',
  Option: 'defaultSelected=selected:bool selected:bool',
  Output: 'htmlFor=for name',
  Param: 'name value',
  Pre: 'name value',
  Quote: 'cite',
  Script: 'crossOrigin type src:url charset async:bool defer:bool noModule:bool',
  Select: 'autofocus:bool disabled:bool multiple:bool name required:bool tabIndex:int',
  Source: 'keySystem media sizes src:url srcset type',
  Style: 'media',
  Table: 'sortable:bool',
  TableCell: 'colSpan:int1 rowSpan:int1 headers',
  TableHeaderCell: 'abbr scope:scope sorted:bool',
  TextArea:
    'value defaultValue=value placeholder rows:int cols:int maxLength:int tabIndex:int accessKey readOnly:bool required:bool ' +
    'autocomplete:autocomplete autocapitalize:autocap wrap:wrap',
  Time: 'datetime',
  Track: 'kind:kind src:url srclang label default:bool',
  UList: 'type',
};

function addAccessors(cls, spec) {
  for (const entry of spec.split(' ').filter(Boolean)) {
    const [, method, attribute = method.toLowerCase(), kind = 'string'] = /^(\w+)(?:=([\w-]+))?(?::([\w-]+))?$/.exec(entry);
    const read = KINDS[kind];
    Object.defineProperty(cls.prototype, method, { value: { [method]() { return read(this, attribute); } }[method], writable: true, configurable: true });
  }
  return cls;
}

// Go's strconv.Atoi: digits with a sign, nothing else.
const goInt = (s) => (s !== undefined && /^[+-]?\d+$/.test(s) ? Number(s) : undefined);
// Go's strconv.ParseFloat, for the forms a page has.
const goFloat = (s) => (s !== undefined && /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(s) ? Number(s) : undefined);

const list = (nodes, url) => nodes.map((n) => toElement(n, url));
const closest = (node, name) => {
  for (let n = node; n && isTag(n); n = n.parent) if (n.name === name) return n;
  return undefined;
};
const ancestorOf = (node, names) => {
  for (let n = node.parent; n && isTag(n); n = n.parent) if (names.includes(n.name)) return n;
  return undefined;
};
const byId = (node, id, name) => findInDocument(node, (n) => n.attribs.id === id && (name === undefined || n.name === name))[0];
const splitAttr = (el, name) => (string(el.node, name) === '' ? [] : string(el.node, name).split(' '));
const valueOrHTML = (el) => attr(el.node, 'value') ?? el.innerHTML();

// The form a field belongs to: the one around it, or the one its form attribute names.
function ownerForm(node) {
  const around = closest(node, 'form');
  if (around) return around;
  const id = string(node, 'form');
  return id === '' ? undefined : byId(node, id);
}

// A field's labels: the one around it, then those whose for names its id.
function labels(el) {
  const around = closest(el.node, 'label');
  const id = string(el.node, 'id');
  const named = id === '' ? [] : findInDocument(el.node, (n) => n.name === 'label' && n.attribs.for === id);
  return list([...new Set([around, ...named].filter(Boolean))], el.url);
}

// The field's own formX attribute, else the form's X.
function formOrOwn(node, name) {
  const own = attr(node, `form${name}`);
  if (own !== undefined) return own;
  const form = ownerForm(node);
  return form ? attr(form, name) : undefined;
}

const formOf = (el) => toElement(ownerForm(el.node), el.url);

// Go's net.SplitHostPort: [host, port], or null without a port.
function splitHostPort(hostport) {
  const m = /^\[([^\]]*)\]:([^:]*)$/.exec(hostport) ?? /^([^:[\]]*):([^:]*)$/.exec(hostport);
  return m ? [m[1], m[2]] : null;
}
const DEFAULT_PORTS = { http: '80', https: '443', ftp: '21' };

class HrefElement extends Element {
  hash() {
    const f = hrefParts(this).fragment;
    return f ? `#${decodeGo(f)}` : '';
  }
  host() {
    const { host, scheme } = hrefParts(this);
    const split = splitHostPort(host);
    return split && split[1] === DEFAULT_PORTS[scheme] ? split[0] : host;
  }
  hostname() {
    const { host } = hrefParts(this);
    return splitHostPort(host)?.[0] ?? host;
  }
  port() {
    return splitHostPort(hrefParts(this).host)?.[1] ?? '';
  }
  username() {
    return hrefParts(this).user?.name ?? '';
  }
  password() {
    return hrefParts(this).user?.password ?? '';
  }
  origin() {
    const { scheme, host } = hrefParts(this);
    if (scheme === '') return '';
    return scheme === 'file' ? this.href() : `${scheme}://${host}`;
  }
  pathname() {
    return decodeGo(hrefParts(this).path);
  }
  protocol() {
    return hrefParts(this).scheme || ':';
  }
  relList() {
    return splitAttr(this, 'rel');
  }
  search() {
    const q = hrefParts(this).query;
    return q ? `?${q}` : '';
  }
  text() {
    return this.textContent();
  }
}
class MediaElement extends Element {
  textTracks() {
    return list(find(this.node, 'track'), this.url);
  }
}
class FormFieldElement extends Element {
  form() {
    return formOf(this);
  }
  formAction() {
    const action = formOrOwn(this.node, 'action');
    if (!this.url) return action ?? '';
    if (!action) return this.url;
    const u = resolved(this, action);
    return u ? formatGoURL(u) : action;
  }
  formEnctype() {
    const e = formOrOwn(this.node, 'enctype');
    return e === 'multipart/form-data' || e === 'text/plain' ? e : 'application/x-www-form-urlencoded';
  }
  formMethod() {
    return formOrOwn(this.node, 'method')?.toLowerCase() === 'post' ? 'post' : 'get';
  }
  formNoValidate() {
    return formOrOwn(this.node, 'novalidate') !== undefined;
  }
  formTarget() {
    return formOrOwn(this.node, 'target') ?? '';
  }
  labels() {
    return labels(this);
  }
  name() {
    return string(this.node, 'name');
  }
}
class TableSectionElement extends Element {
  rows() {
    return list(find(this.node, 'tr'), this.url);
  }
}
class TableCellElement extends Element {
  cellIndex() {
    const row = ancestorOf(this.node, ['tr']);
    return row ? find(row, 'th,td').indexOf(this.node) : -1;
  }
}
// Methods of more than one kind of element.
const withForm = { form() { return formOf(this); } };
const withLabels = { labels() { return labels(this); } };
const withText = { text() { return this.textContent(); } };

// Each kind's class before the table's accessors: Element for a kind with no methods of its own.
const KIND_CLASSES = {
  Href: HrefElement,
  Media: MediaElement,
  Base: Element,
  Button: kind(FormFieldElement, { value() { return valueOrHTML(this); } }),
  Canvas: kind(Element, {
    width() { return goInt(attr(this.node, 'width')) ?? 150; },
    height() { return goInt(attr(this.node, 'height')) ?? 150; },
  }),
  Data: Element,
  DataList: kind(Element, { options() { return list(find(this.node, 'option'), this.url); } }),
  Mod: Element,
  Embed: Element,
  FieldSet: kind(Element, withForm, {
    type() { return 'fieldset'; },
    elements() { return list(find(this.node, 'input,select,button,textarea'), this.url); },
    validity() { return undefined; },
  }),
  Form: kind(Element, {
    elements() { return list(find(this.node, 'input,select,button,textarea,fieldset'), this.url); },
    length() { return find(this.node, 'input,select,button,textarea,fieldset').length; },
    // Only 'post' as written in lower case (k6 compares the attribute as it is).
    method() { return attr(this.node, 'method') === 'post' ? 'post' : 'get'; },
  }),
  IFrame: Element,
  Image: Element,
  Input: kind(FormFieldElement, { list() { return toElement(datalistOf(this.node), this.url); } }),
  Keygen: kind(Element, withForm, withLabels, { type() { return 'keygen'; } }),
  Label: kind(Element, withForm, {
    control() {
      const id = attr(this.node, 'for');
      return id === undefined ? undefined : toElement(byId(this.node, id), this.url);
    },
  }),
  Legend: kind(Element, withForm),
  Li: Element,
  Link: kind(Element, { relList() { return splitAttr(this, 'rel'); } }),
  Map: kind(Element, {
    areas() { return list(find(this.node, 'area'), this.url); },
    images() { return list(mapImages(this.node), this.url); },
  }),
  Meta: Element,
  Meter: kind(Element, withLabels),
  Object: kind(Element, withForm),
  OList: Element,
  OptGroup: Element,
  Option: kind(Element, withText, {
    disabled() {
      if (attr(this.node, 'disabled') !== undefined) return true;
      const group = ancestorOf(this.node, ['optgroup']);
      return group !== undefined && attr(group, 'disabled') !== undefined;
    },
    form() { return toElement(optionForm(this.node), this.url); },
    index() {
      const holder = ancestorOf(this.node, ['select', 'datalist']);
      return holder ? find(holder, 'option').indexOf(this.node) : 0;
    },
    label() { return attr(this.node, 'label') ?? this.textContent(); },
    value() { return valueOrHTML(this); },
  }),
  Output: kind(Element, withForm, withLabels, {
    value() { return this.textContent(); },
    defaultValue() { return this.textContent(); },
    type() { return 'output'; },
  }),
  Param: Element,
  Pre: Element,
  Progress: kind(Element, withLabels, {
    max() {
      const max = goFloat(attr(this.node, 'max'));
      return max === undefined || max < 0 ? 1 : max;
    },
    value() { return progress(this, 0); },
    position() { return progress(this, -1); },
  }),
  Quote: Element,
  Script: kind(Element, withText),
  Select: kind(Element, withForm, withLabels, {
    length() { return find(this.node, 'option').length; },
    options() { return list(find(this.node, 'option'), this.url); },
    selectedIndex() {
      const selected = find(this.node, 'option[selected]')[0];
      return selected ? find(this.node, 'option').indexOf(selected) : -1;
    },
    selectedOptions() { return list(find(this.node, 'option[selected]'), this.url); },
    size() { return attr(this.node, 'multiple') === undefined ? 1 : 4; },
    type() { return attr(this.node, 'multiple') === undefined ? 'select' : 'select-multiple'; },
    value() {
      const selected = find(this.node, 'option[selected]')[0];
      return selected ? valueOrHTML(toElement(selected, this.url)) : '';
    },
  }),
  Source: Element,
  Style: kind(Element, { type() { return string(this.node, 'type') || 'text/css'; } }),
  Table: kind(Element, {
    caption() { return childNamed(this, 'caption'); },
    tHead() { return childNamed(this, 'thead'); },
    tFoot() { return childNamed(this, 'tfoot'); },
    rows() { return list(find(this.node, 'tr'), this.url); },
    tBodies() { return list(find(this.node, 'tbody'), this.url); },
  }),
  TableSection: TableSectionElement,
  TableRow: kind(Element, {
    cells() { return list(find(this.node, 'th,td'), this.url); },
    rowIndex() { return rowIndex(this.node, ['table']); },
    sectionRowIndex() { return rowIndex(this.node, ['thead', 'tbody', 'tfoot']); },
  }),
  TableCol: kind(Element, { span() { return Math.max(goInt(attr(this.node, 'span')) ?? 1, 1); } }),
  TableCell: TableCellElement,
  TableHeaderCell: kind(TableCellElement),
  TextArea: kind(Element, withForm, withLabels, {
    // Go's len(): the value's bytes in UTF-8.
    length() { return new TextEncoder().encode(string(this.node, 'value')).length; },
    type() { return 'textarea'; },
  }),
  Time: Element,
  Title: kind(Element, withText),
  Track: Element,
  UList: Element,
};

// A class of elements: `base` and the methods of `mixins`.
function kind(base, ...mixins) {
  const cls = class extends base {};
  for (const m of mixins) Object.defineProperties(cls.prototype, Object.getOwnPropertyDescriptors(m));
  return cls;
}

// The kind of element each tag is.
const TAGS = {
  a: 'Href', area: 'Href', audio: 'Media', video: 'Media', base: 'Base', button: 'Button', canvas: 'Canvas', data: 'Data', datalist: 'DataList',
  del: 'Mod', ins: 'Mod', embed: 'Embed', fieldset: 'FieldSet', form: 'Form', iframe: 'IFrame', img: 'Image', input: 'Input', keygen: 'Keygen',
  label: 'Label', legend: 'Legend', li: 'Li', link: 'Link', map: 'Map', meta: 'Meta', meter: 'Meter', object: 'Object', ol: 'OList',
  optgroup: 'OptGroup', option: 'Option', output: 'Output', param: 'Param', pre: 'Pre', progress: 'Progress', quote: 'Quote', script: 'Script',
  select: 'Select', source: 'Source', style: 'Style', table: 'Table', thead: 'TableSection', tfoot: 'TableSection', tbody: 'TableSection',
  tr: 'TableRow', col: 'TableCol', td: 'TableCell', th: 'TableHeaderCell', textarea: 'TextArea', time: 'Time', title: 'Title', track: 'Track', ul: 'UList',
};

// A class of its own for each kind (a and area share theirs), the table's accessors on it.
const classes = {};
for (const [name, base] of Object.entries(KIND_CLASSES)) classes[name] = addAccessors(base === Element ? class extends Element {} : base, ACCESSORS[name] ?? '');

/** The class of element `node` is: its tag's, or Element. */
function classFor(node) {
  if (!isTag(node) || !Object.hasOwn(TAGS, node.name)) return Element;
  return classes[TAGS[node.name]];
}

// The Go type of each tag's element (k6's errors name it): its kind's, where it has none of its own.
const GO_TYPES = { a: 'Anchor', area: 'Area', audio: 'Audio', video: 'Video', del: 'Del', ins: 'Ins', thead: 'TableHead', tfoot: 'TableFoot', tbody: 'TableBody', td: 'TableDataCell' };
const goType = (node) => (isTag(node) && Object.hasOwn(TAGS, node.name) ? `${GO_TYPES[node.name] ?? TAGS[node.name]}Element` : 'Element');

useElementClasses(classFor, Element, goType);

function datalistOf(node) {
  const id = string(node, 'list');
  if (id === '' || ['hidden', 'checkbox', 'radio', 'file', 'button'].includes(string(node, 'type'))) return undefined;
  return byId(node, id, 'datalist');
}

// The images and objects that use the map by its id (k6 looks at the id twice, never the name).
function mapImages(node) {
  const id = attr(node, 'id');
  if (id === undefined) return [];
  return findInDocument(node, (n) => (n.name === 'img' || n.name === 'object') && n.attribs.usemap === `#${id}`);
}

function optionForm(node) {
  const form = ancestorOf(node, ['form']);
  if (form) return form;
  const id = attr(ancestorOf(node, ['select']) ?? {}, 'form');
  return id === undefined ? undefined : byId(node, id, 'form');
}

function progress(el, fallback) {
  const value = goFloat(attr(el.node, 'value'));
  return value === undefined || value < 0 ? fallback : value / el.max();
}

function rowIndex(node, sections) {
  const holder = ancestorOf(node, sections);
  return holder ? find(holder, 'tr').indexOf(node) : -1;
}

// An anchor's href resolved, as Go splits it; all empty when there is none or it does not parse.
function hrefParts(el) {
  const href = attr(el.node, 'href');
  return (href !== undefined && resolved(el, href)) || parseGoURL('');
}

// A table's first child of that name.
const childNamed = (el, name) => toElement((el.node.children ?? []).find((n) => isTag(n) && n.name === name), el.url);
