// k6/html's Selection beside k6 v2.2.0 (goquery's, jQuery's semantics): the *Until methods,
// not/filter/is with each kind of argument, find/closest/has/add with a Selection or an Element,
// end(), index(), single(), val() and serialize() of a form, data()'s names and values, and SVG's
// attribute names. Each expected value is what k6 v2.2.0 logged for the same script.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { scriptLogged } from './servers.js';

test("nextUntil, prevUntil and parentsUntil: a selector, a Selection or nothing for their end, a filter as a second argument, k6's errors for other kinds; parents() every ancestor; a filter passed as undefined filters by 'undefined'", async () => {
  const out = await scriptLogged(`import { parseHTML } from 'k6/html';
const doc = parseHTML(\`<dl><dt id="t1">1</dt><dd id="a">1a</dd><dd id="b" class="c">1b</dd><dt id="t2">2</dt><dd id="d">2a</dd><dt id="t3">3</dt><dd id="e" class="c">3a</dd></dl>
<section id="s"><ul id="l1"><li id="i1"><ul id="l2"><li id="i2"><ul id="l3"><li id="i3">x</li></ul></li></ul></li></ul></section>\`);
const ids = (s) => s.map((i, e) => e.attr('id')).join(' ');
const err = (f) => { try { return ids(f()); } catch (e) { return String(e); } };
export default function () {
  const t1 = doc.find('#t1'), t3 = doc.find('#t3'), i3 = doc.find('#i3');
  console.log(JSON.stringify({
    next: [ids(t1.nextUntil('dt')), ids(t1.nextUntil('dt', '.c')), ids(t1.nextUntil(t3)), ids(t1.nextUntil(t3, 'dd')), ids(t1.nextUntil()), ids(t1.nextUntil(null, '.c')), ids(t1.nextUntil(undefined)), ids(doc.find('dt').nextUntil('dt')), ids(t1.nextUntil('dt', undefined))],
    prev: [ids(t3.prevUntil('dt')), ids(t3.prevUntil('#t1', '.c')), ids(t3.prevUntil(doc.find('#t1'))), ids(t3.prevUntil()), ids(t3.prevUntil(null, 'dt')), ids(doc.find('dt').prevUntil('dt'))],
    parents: [ids(i3.parentsUntil('#l1')), ids(i3.parentsUntil('#l1', 'ul')), ids(i3.parentsUntil(doc.find('section'))), ids(i3.parentsUntil(doc.find('section'), 'li')), ids(i3.parentsUntil(null, 'li')), ids(doc.find('#i3, #i2').parentsUntil('#l1')), ids(i3.parents('ul')), ids(i3.parents('ul', 'li')), i3.parentsUntil().size() === i3.parents().size()],
    errors: [err(() => t1.nextUntil(3)), err(() => t1.nextUntil(doc.find('#t3').get(0))), err(() => t1.nextUntil(doc.find('dl').get(0))), err(() => t1.prevUntil('a', 'b', 'c')), err(() => i3.parentsUntil(1, 'ul'))],
    filters: [doc.find('dd').next(undefined).size(), doc.find('dl').children(undefined).size(), doc.find('dd').parent(null).size()],
  }));
}
`);
  assert.deepEqual(out, {
    next: ['a b', 'b', 'a b t2 d', 'a b d', 'a b t2 d t3 e', 'b e', 'a b t2 d t3 e', 'a b d e', ''],
    prev: ['d', 'b', 'd t2 b a', 'd t2 b a t1', 't2 t1', 'b a d'],
    parents: ['l3 i2 l2 i1', 'l3 l2', 'l3 i2 l2 i1 l1', 'i2 i1', 'i2 i1', 'l2 i1 l3 i2', 'l3 l2 l1', 'l3 l2 l1', true],
    errors: ["GoError: invalid argument, cannot use a 'int64' as a selector", "GoError: invalid argument, cannot use a 'html.Element' as a selector", "GoError: invalid argument, cannot use a 'html.Element' as a selector", "GoError: invalid argument, cannot use a 'string' as a selector", "GoError: invalid argument, cannot use a 'int64' as a selector"],
    filters: [0, 0, 0],
  });
});

test("not, filter and is with a selector, a function, a Selection; find, closest, has and add with a Selection or a plain Element; end, index, single; k6's errors for other arguments; html() of nothing is ''", async () => {
  const out = await scriptLogged(`import { parseHTML } from 'k6/html';
const doc = parseHTML(\`<ul><li id="a">A</li><li id="b" class="x">B<ul><li id="b1">1</li></ul></li><li id="c">C</li><li id="d" class="x">D</li></ul><div id="d1"><p id="p1">1</p><p id="p2">2</p></div><div id="d2"><p id="p3">3</p></div>\`);
const ids = (s) => s.map((i, e) => e.attr('id')).join(' ');
const err = (f) => { try { const r = f(); return typeof r === 'boolean' || typeof r === 'number' ? r : ids(r); } catch (e) { return String(e); } };
export default function () {
  const lis = doc.find('li');
  let self;
  console.log(JSON.stringify({
    not: [ids(lis.not('.x')), ids(lis.not((i) => i % 2 === 0)), ids(lis.not((i, s) => s.find('ul').size() > 0)), ids(lis.not(doc.find('#b1, #c'))), ids(doc.find('div').not(doc.find('#d2').get(0))), err(() => lis.not(doc.find('#a').get(0))), err(() => lis.not()), err(() => lis.not(1))],
    filter: [ids(lis.filter('.x')), ids(lis.filter((i, s) => s.text().length === 1)), ids(lis.filter(doc.find('#b li, #c'))), err(() => lis.filter(doc.find('div').get(0))), err(() => lis.filter(1)), err(() => lis.filter(undefined))],
    is: [lis.is('.x'), lis.is('p'), lis.is(doc.find('#c')), lis.is(doc.find('p')), lis.is((i, s) => s.text() === 'C'), lis.is((i, s) => s.text() === 'Z'), err(() => lis.is(doc.find('div').get(0))), err(() => lis.is(null))],
    callback: [lis.first().filter(function (i, s) { self = this; return typeof i === 'number' && s.size() === 1; }).size(), typeof self],
    find: [ids(doc.find('#d1').find(doc.find('p'))), ids(doc.find('#d1').find(doc.find('#p3').get(0))), ids(doc.find('div').find(doc.find('#p3').get(0))), err(() => doc.find('div').find(doc.find('#a').get(0))), err(() => doc.find('div').find(null)), err(() => doc.find('div').find({})), err(() => doc.find('div').find([])), err(() => doc.find('div').find(() => 1)), err(() => doc.find('div').find(true)), err(() => doc.find('div').find(1.5)), err(() => doc.find('div').find(doc.find('a').get(0)))],
    closest: [ids(doc.find('p, #b1').closest(doc.find('div'))), ids(doc.find('p').closest(doc.find('#d2').get(0))), ids(doc.find('#b1').closest('li'))],
    has: [ids(doc.find('div, ul').has(doc.find('#p3, #b1'))), ids(doc.find('div').has(doc.find('#p1').get(0))), ids(doc.find('div').has('#p2')), err(() => doc.find('div').has(2))],
    add: [ids(doc.find('li').first().add('p')), ids(doc.find('p').add(doc.find('li').eq(2))), ids(doc.find('li').add('.x')), ids(doc.find('li').first().add(doc.find('#d1').get(0))), err(() => doc.find('li').add(5)), ids(doc.find('nope').add('#p3'))],
    end: [ids(lis.filter('.x').end()), ids(doc.find('div').find('p').end()), doc.end().size(), lis.eq(10).end().size(), ids(lis.first().end()), ids(lis.slice(1, 2).end()), ids(lis.eq(1).children().end()), ids(lis.single('ul').end())],
    index: [lis.eq(2).index(), doc.find('#b1').index(), doc.find('#p3, #p2').index(), doc.find('nope').index(), doc.find('#c').index('li'), doc.find('#c').index('.x'), lis.index(doc.find('#d')), lis.index(doc.find('p')), lis.index(doc.find('#c').get(0)), doc.find('div').index(doc.find('#d2').get(0)), lis.index(3)],
    single: [ids(doc.single('p')), ids(doc.find('div').single('p')), ids(doc.single('nope')), ids(lis.single('li'))],
    empty: [doc.find('nope').html(), doc.find('nope').text(), doc.find('nope').attr('x', 'dflt'), doc.find('nope').val() === undefined],
  }));
}
`);
  assert.deepEqual(out, {
    not: ['a b1 c', 'b c', 'a b1 c d', 'a b d', 'd1', "GoError: invalid argument, cannot use a 'html.LiElement' as a selector", "GoError: invalid argument, cannot use a '<nil>' as a selector", "GoError: invalid argument, cannot use a 'int64' as a selector"],
    filter: ['b d', 'a b1 c d', 'b1 c', 'GoError: the argument to filter() must be a function, a selector or a selection', 'GoError: the argument to filter() must be a function, a selector or a selection', 'GoError: the argument to filter() must be a function, a selector or a selection'],
    is: [true, false, true, false, true, false, 'GoError: the argument to is() must be a function, a selector or a selection', 'GoError: the argument to is() must be a function, a selector or a selection'],
    callback: [1, 'function'],
    find: ['p1 p2', '', 'p3', "GoError: invalid argument, cannot use a 'html.LiElement' as a selector", "GoError: invalid argument, cannot use a '<nil>' as a selector", "GoError: invalid argument, cannot use a 'map[string]interface {}' as a selector", "GoError: invalid argument, cannot use a '[]interface {}' as a selector", "GoError: invalid argument, cannot use a 'func(sobek.FunctionCall) sobek.Value' as a selector", "GoError: invalid argument, cannot use a 'bool' as a selector", "GoError: invalid argument, cannot use a 'float64' as a selector", "GoError: invalid argument, cannot use a '<nil>' as a selector"],
    closest: ['d1 d2', 'd2', 'b1'],
    has: ['  d2', 'd1', 'd1', "GoError: invalid argument, cannot use a 'int64' as a selector"],
    add: ['a p1 p2 p3', 'p1 p2 p3 b1', 'a b b1 c d', 'a d1', "GoError: invalid argument, cannot use a 'int64' as a selector", 'p3'],
    end: ['a b b1 c d', 'd1 d2', 0, 0, 'a b b1 c d', 'a b b1 c d', 'b', 'a b b1 c d'],
    index: [0, 0, 1, -1, 3, -1, 4, -1, -1, 1, -1],
    single: ['p1', 'p1', '', 'b1'],
    empty: ['', '', 'dflt', true],
  });
});

test("val() of a multiple select is the selected values, of a textarea its HTML; serializeArray and serialize as k6 reads a form; data() camel-cases its keys with golint's initialisms and keeps a number only as Go writes it back", async () => {
  const out = await scriptLogged(`import { parseHTML } from 'k6/html';
const doc = parseHTML(\`<form id="f"><input name="a" value="1"><input name="a" value="2"><input name="dis" disabled value="x"><input name="dis2" disabled="disabled" value="y">
<input type="checkbox" name="c1" checked="checked" value="cv"><input type="checkbox" name="c2" checked><input type="radio" name="r" checked="checked">
<input type="submit" name="s" value="go"><input type="file" name="fi"><input name="" value="noname"><input value="nn"><input name="plain">
<select name="m" multiple><option selected value="x y">1</option><option selected>B &amp; b</option><option>3</option></select>
<select name="m2" multiple><option>1</option></select><select name="s1"><option>plain</option><option selected>sel &lt;1&gt;</option><option selected value="v2">sel2</option></select>
<select name="s2"><option value="z">Z</option></select><keygen name="kg"><textarea name="ta">a &lt; b "q"</textarea><button name="bt" value="b">b</button><button id="b2">b2</button></form>
<span id="data" data-foo-bar="1" data-user-id="5" data-my-url="u" data-x-oauth="o" data-oauth-token="t" data-api-key="k" data-a--b="ab" data-my_key="m" data-ABC="up"
 data-n="1.50" data-n2="-3" data-n3="1e2" data-n4="007" data-n5="0.000001" data-n6="0.0000001" data-n7="+5" data-n8="9007199254740993" data-n9="1000000000000000000000" data-nan="NaN" data-inf="+Inf" data-neg="-0"
 data-j='{"a":[1,2.50]}' data-arr='[1,"x"]' data-bad='{x' data-ws=' [1]' data-t="true" data-f="false" data-nul="null" data-u="undefined" data-e="" data-="none"></span><p id="bare">x</p><p id="cls" class="c">y</p>\`);
const sorted = (o) => Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : 1)));
export default function () {
  const d = doc.find('#data'), all = d.data();
  console.log(JSON.stringify({
    val: [doc.find('select[name=m]').val(), doc.find('select[name=m2]').val(), doc.find('select[name=s1]').val(), doc.find('select[name=s2]').val(), doc.find('textarea').val(), doc.find('input[name=plain]').val(), doc.find('input[name=c2]').val(), doc.find('input[name=r]').val(), doc.find('#b2').val(), doc.find('select[name=m] option').eq(1).val(), doc.find('keygen').val() === undefined, doc.find('form').val() === undefined],
    array: Array.isArray(doc.find('select[name=m]').val()),
    serializeArray: doc.find('form').serializeArray(),
    serializeObject: sorted(doc.find('form').serializeObject()),
    serialize: [doc.find('form').serialize(), doc.serialize(), doc.find('input').serialize(), doc.find('input[name=a], form').serialize()],
    data: sorted(all),
    keys: Object.keys(all).sort(),
    special: [Number.isNaN(all.nan), all.inf, Object.is(all.neg, -0), all.nul === undefined && 'nul' in all],
    byKey: [d.data('fooBar'), d.data('foo-bar'), d.data('userID'), d.data('userId'), d.data('myURL'), d.data('xOAuth'), d.data('apiKey'), d.data('aPIKey'), d.data('n'), d.data('j'), d.data('nope'), d.data('u')],
    none: [doc.find('#bare').data(), doc.find('#cls').data(), doc.find('#cls').data('x'), doc.data(), doc.find('nope').data()],
  }));
}
`);
  assert.deepEqual(out, {
    val: [['x y', 'B &amp; b'], [], 'sel &lt;1&gt;', '', 'a &lt; b &#34;q&#34;', '', 'on', 'on', '', 'B &amp; b', true, true],
    array: true,
    serializeArray: [{ name: 'a', value: '1' }, { name: 'a', value: '2' }, { name: 'dis', value: 'x' }, { name: 'c1', value: 'cv' }, { name: 'r', value: 'on' }, { name: 'plain', value: '' }, { name: 'm', value: ['x y', 'B &amp; b'] }, { name: 'm2', value: [] }, { name: 's1', value: 'sel &lt;1&gt;' }, { name: 's2', value: '' }, { name: 'kg' }, { name: 'ta', value: 'a &lt; b &#34;q&#34;' }],
    serializeObject: { a: '2', c1: 'cv', dis: 'x', m: ['x y', 'B &amp; b'], m2: [], plain: '', r: 'on', s1: 'sel &lt;1&gt;', s2: '', ta: 'a &lt; b &#34;q&#34;' },
    serialize: ['a=2&c1=cv&dis=x&m=x+y&m=B+%26amp%3B+b&plain=&r=on&s1=sel+%26lt%3B1%26gt%3B&s2=&ta=a+%26lt%3B+b+%26%2334%3Bq%26%2334%3B', '', 'a=2&c1=cv&dis=x&plain=&r=on', 'a=2&c1=cv&dis=x&m=x+y&m=B+%26amp%3B+b&plain=&r=on&s1=sel+%26lt%3B1%26gt%3B&s2=&ta=a+%26lt%3B+b+%26%2334%3Bq%26%2334%3B'],
    data: { aB: 'ab', abc: 'up', apiKey: 'k', arr: [1, 'x'], bad: '{x', f: false, fooBar: 1, inf: null, j: { a: [1, 2.5] }, myURL: 'u', my_key: 'm', n: '1.50', n2: -3, n3: '1e2', n4: '007', n5: 0.000001, n6: 1e-7, n7: '+5', n8: '9007199254740993', n9: 1e+21, nan: null, neg: 0, oauthToken: 't', t: true, userID: 5, ws: ' [1]', xOAuth: 'o' },
    keys: ['aB', 'abc', 'apiKey', 'arr', 'bad', 'e', 'f', 'fooBar', 'inf', 'j', 'myURL', 'my_key', 'n', 'n2', 'n3', 'n4', 'n5', 'n6', 'n7', 'n8', 'n9', 'nan', 'neg', 'nul', 'oauthToken', 't', 'u', 'userID', 'ws', 'xOAuth'],
    special: [true, null, true, true],
    byKey: [1, 1, 5, 5, 'u', 'o', 'k', null, '1.50', { a: [1, 2.5] }, null, null],
    none: [{}, {}, null, null, null],
  });
});

test("SVG and MathML attributes keep the case Go's parser gives them (viewBox, definitionURL) in html(), attr() and attributes(); namespaceURI() as Go's namespaces", async () => {
  const out = await scriptLogged(`import { parseHTML } from 'k6/html';
const doc = parseHTML(\`<div id="x"><svg viewBox="0 0 10 10" preserveAspectRatio="none" DATA-X="1"><linearGradient gradientUnits="userSpaceOnUse" id="g"><stop id="st" stopColor="red"/></linearGradient><foreignObject><div id="fd" dataFoo="1" viewBox="h">x</div></foreignObject><desc><b id="db" viewBox="d">d</b></desc><clipPath clipPathUnits="x"></clipPath></svg><math definitionURL="u"><mi><mark id="mb" definitionURL="h">x</mark></mi><mrow definitionURL="m"></mrow></math><p viewBox="p" definitionURL="q"></p></div>\`);
export default function () {
  const svg = doc.find('svg');
  console.log(JSON.stringify({
    html: doc.find('#x').html(),
    attr: [svg.attr('viewBox'), svg.attr('viewbox'), svg.get(0).getAttribute('viewBox'), doc.find('linearGradient').size(), doc.find('#g').attr('gradientUnits'), doc.find('math').attr('definitionURL'), doc.find('p').attr('viewbox')],
    names: Object.keys(svg.get(0).attributes()),
    ns: [doc.find('#fd').get(0).namespaceURI(), doc.find('#db').get(0).namespaceURI(), doc.find('#mb').get(0).namespaceURI(), doc.find('mrow').get(0).namespaceURI(), doc.find('#st').get(0).namespaceURI()],
  }));
}
`);
  assert.deepEqual(out, {
    html: '<svg viewBox="0 0 10 10" preserveAspectRatio="none" data-x="1"><linearGradient gradientUnits="userSpaceOnUse" id="g"><stop id="st" stopcolor="red"></stop></linearGradient><foreignObject><div id="fd" datafoo="1" viewbox="h">x</div></foreignObject><desc><b id="db" viewbox="d">d</b></desc><clipPath clipPathUnits="x"></clipPath></svg><math definitionURL="u"><mi><mark id="mb" definitionurl="h">x</mark></mi><mrow definitionURL="m"></mrow></math><p viewbox="p" definitionurl="q"></p>',
    attr: ['0 0 10 10', null, '0 0 10 10', 0, 'userSpaceOnUse', 'u', 'p'],
    names: ['viewBox', 'preserveAspectRatio', 'data-x'],
    ns: ['http://www.w3.org/1999/xhtml', 'http://www.w3.org/1999/xhtml', 'http://www.w3.org/1999/xhtml', 'http://www.w3.org/1998/Math/MathML', 'http://www.w3.org/2000/svg'],
  });
});

test("map() keeps every callback's value, undefined and null too, and leaves out one that throws, as k6", async () => {
  const out = await scriptLogged(`import { parseHTML } from 'k6/html';
const doc = parseHTML('<ul><li id="a">A</li><li>B</li><li id="c">C</li></ul>');
export default function () {
  const lis = doc.find('li');
  const ids = lis.map((i, s) => s.attr('id'));
  const thrown = lis.map((i) => { if (i === 1) throw new Error('x'); return i; });
  console.log(JSON.stringify([ids.length, ids, lis.map((i) => (i === 1 ? null : i)), thrown]));
}
`);
  assert.deepEqual(out, [3, ['a', null, 'c'], [0, null, 2], [0, 2]]);
});
