// k6/html's Element as k6 v1.3.0 gives it: every property a method (el.textContent(), el.id()),
// what each returns for a missing attribute, a text node or a comment, and the elements of a
// kind (an anchor's href parts, a form's fields, a select's options). Each value below is what
// k6 v1.3.0 gave for the same script.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rawServer, scriptLogged } from './servers.js';

const PAGE = `<!DOCTYPE html><html lang="en"><head><title>T &amp; x</title></head><body>
<div id="main" class=" a  b " data-x="1"><p>Hello <b>world</b><!-- note --> end</p><br><input disabled value='a"b'></div>
<ul><li class="x">one</li>text<li>two</li></ul><span></span><p>x</p></body></html>`;

test('an element: its name, attributes, text and HTML, its neighbours, and what a missing attribute gives', async () => {
  const out = await scriptLogged(`import { parseHTML } from 'k6/html';
const doc = parseHTML(${JSON.stringify(PAGE)});
export default function () {
  const div = doc.find('#main').get(0), span = doc.find('span').get(0), li = doc.find('li').get(0), ul = doc.find('ul').get(0);
  const p = doc.find('p').get(0), name = (e) => e && e.nodeName();
  const text = p.firstChild(), comment = p.childNodes()[2];
  const texts = [];
  doc.find('ul').contents().each((i, el) => texts.push(el.nodeName() + ':' + el.textContent()));
  console.log(JSON.stringify({
    div: [div.nodeName(), div.nodeType(), div.nodeValue() === undefined, div.id(), div.className(), div.classList(), div.lang() === undefined, div.textContent(), div.innerHTML()],
    tree: [name(div.firstChild()), name(div.lastChild()), name(div.previousSibling()), name(div.previousElementSibling()), name(div.nextElementSibling()), name(div.parentNode()), name(div.parentElement()), name(div.ownerDocument()), div.childNodes().map(name), div.childElementCount()],
    span: [span.id(), span.className() === undefined, span.classList(), span.hasAttributes(), span.hasChildNodes(), span.textContent(), span.firstElementChild() === undefined],
    attrs: [div.getAttribute('nope') === undefined, div.getAttribute('toString') === undefined, div.hasAttribute('data-x'), div.getAttributeNode('nope') === undefined, Object.keys(div.getAttributeNode('id')), div.attributes()['class'].value, div.attributes()['class'].owner_element.id()],
    select: [name(div.querySelector('b')), div.querySelector('nope') === undefined, div.querySelectorAll('*').map(name), ul.getElementsByClassName('x').length, doc.get(0).firstChild().nodeName(), div.matches('.a'), div.matches('[[')],
    same: [div.contains(p), div.contains(div), ul.contains(li), div.isSameNode(doc.find('div').get(0)), li.isSameNode(doc.find('li').get(0)), p.isEqualNode(doc.find('p').get(1))],
    text: [text.nodeName(), text.nodeType(), text.nodeValue(), text.toString(), text.textContent(), text.id(), text.className() === undefined, text.innerHTML(), name(text.nextElementSibling()), name(text.parentElement()), text.childNodes(), text.matches('*')],
    comment: [comment.nodeName(), comment.nodeType(), comment.nodeValue(), comment.textContent(), comment.toString()],
    doc: [div.ownerDocument().nodeType(), div.ownerDocument().toString(), div.ownerDocument().parentNode() === undefined, doc.get(0).firstChild().nodeType(), doc.get(0).firstChild().toString()],
    strings: [String(li), \`\${div}\`, div.toString()],
    get: [doc.find('li').get().length, doc.find('li').get(-2) === undefined, name(doc.find('li').get(-1)), doc.find('li').get(2) === undefined, texts],
  }));
}`);
  assert.deepEqual(out, {
    div: ['div', 1, true, 'main', ' a  b ', ['a', 'b'], true, 'Hello world end', '<p>Hello <b>world</b><!-- note --> end</p><br/><input disabled="" value="a&#34;b"/>'],
    tree: ['p', 'input', '#text', null, 'ul', 'body', 'body', '#document', ['p', 'br', 'input'], 3],
    span: ['', true, [], false, false, '', true],
    attrs: [true, true, true, true, ['owner_element', 'name', 'value', 'localName', 'namespaceURI', 'prefix'], ' a  b ', 'main'],
    select: ['b', true, ['p', 'b', 'br', 'input'], 1, 'html', true, false],
    same: [true, false, false, true, false, false],
    text: ['#text', 3, 'Hello ', '[object #text]', 'Hello ', '', true, '', 'b', 'p', [], false],
    comment: ['#comment', 8, '', '', '[object #comment]'],
    doc: [9, '[object #document]', true, 10, '[object html]'],
    strings: ['[object html.Node]', '[object html.Node]', '[object html.Node]'],
    get: [2, true, 'li', true, ['li:one', '#text:text', 'li:two']],
  });
});

const FORM = `<html><body>
<a id="a1" href="http://user:pw@example.com:80/p/q?x=1#frag" rel="noopener  nofollow" referrerpolicy="origin">link</a><a id="a2" href="/rel/path?y=2">rel</a><a id="a3">none</a>
<form id="f1" action="/submit" method="POST" enctype="multipart/form-data" novalidate>
 <fieldset id="fs" disabled><input id="in1" name="n1" type="checkbox" checked tabindex="3" maxlength="x"></fieldset>
 <label for="in2" id="lb">Label <input id="in2" name="n2" value="v2" list="dl"></label>
 <button id="b1" type="reset">Btn <b>x</b></button><button id="b2" value="bv" formaction="/other" formmethod="get">B2</button>
 <select id="s1" name="sel" multiple><optgroup label="og" disabled><option id="o1" value="ov1">One</option></optgroup><option id="o2" selected>Two</option><option id="o3" label="three" selected value="3">Three</option></select>
 <textarea id="ta" rows="4" cols="x">Some &amp; text</textarea>
</form>
<input id="in4" type="radio" list="dl"><datalist id="dl"><option value="d1"><option value="d2"></datalist>
<img id="img" src="/i.png" width="10" height="x" crossorigin="anonymous"><img id="img2" crossorigin="bogus">
<progress id="pg" value="3" max="4"></progress><canvas id="cv" width="300"></canvas>
<table id="tb"><caption>C</caption><thead><tr><th id="th" colspan="2">H</th></tr></thead><tbody><tr id="tr2"><td>1</td><td id="td2" rowspan="3">2</td></tr></tbody></table>
<ol id="ol" start="5" type="a"><li id="li" value="7" type="square">x</li></ol><style id="st">p{}</style><script id="sc">var a = 1 < 2;</script>
</body></html>`;

test('elements of a kind: an anchor, form fields, a select, a table, with what k6 makes of their attributes', async () => {
  const out = await scriptLogged(`import { parseHTML } from 'k6/html';
const doc = parseHTML(${JSON.stringify(FORM)});
export default function () {
  const el = (id) => doc.find('#' + id).get(0), name = (e) => e && e.nodeName();
  const a1 = el('a1'), a2 = el('a2'), a3 = el('a3');
  console.log(JSON.stringify({
    a1: [a1.href(), a1.host(), a1.hostname(), a1.port(), a1.username(), a1.password(), a1.origin(), a1.pathname(), a1.protocol(), a1.search(), a1.hash(), a1.relList(), a1.referrerPolicy(), a1.text(), String(a1)],
    a2: [a2.href(), a2.host(), a2.origin(), a2.pathname(), a2.protocol(), a2.search(), \`\${a2}\`],
    a3: [a3.href(), a3.protocol(), a3.relList()],
    form: [el('f1').action(), el('f1').method(), el('f1').enctype(), el('f1').noValidate(), el('f1').length(), el('f1').elements().map(name), el('fs').type(), name(el('fs').form())],
    in1: [el('in1').type(), el('in1').checked(), el('in1').tabIndex(), el('in1').maxLength(), el('in1').value(), el('in1').disabled(), el('in1').formMethod(), el('in1').formAction(), el('in1').formEnctype(), el('in1').labels(), el('in1').list() === undefined],
    in2: [el('in2').value(), el('in2').type(), name(el('in2').list()), el('in2').labels().map((l) => l.id()), el('lb').htmlFor(), el('lb').control().id(), el('in4').list() === undefined, el('in4').form() === undefined, el('in4').formMethod()],
    buttons: [el('b1').type(), el('b1').value(), el('b2').type(), el('b2').value(), el('b2').formAction(), el('b2').formMethod()],
    select: [el('s1').type(), el('s1').size(), el('s1').length(), el('s1').selectedIndex(), el('s1').selectedOptions().map((o) => o.id()), el('s1').value(), el('o1').disabled(), el('o1').index(), el('o2').value(), el('o3').label(), el('o3').index(), el('o2').selected(), name(el('o1').form())],
    ta: [el('ta').type(), el('ta').value(), el('ta').textContent(), el('ta').rows(), el('ta').cols(), el('ta').wrap(), el('ta').length(), el('ta').name === undefined],
    media: [el('img').src(), el('img').width(), el('img').height(), el('img').crossOrigin(), el('img2').crossOrigin() === undefined, el('pg').value(), el('pg').max(), el('pg').position(), el('cv').width(), el('cv').height()],
    table: [name(el('tb').caption()), name(el('tb').tHead()), el('tb').tFoot() === undefined, el('tb').rows().length, el('th').colSpan(), el('th').scope(), el('td2').cellIndex(), el('td2').rowSpan(), el('tr2').rowIndex(), el('tr2').sectionRowIndex(), el('tr2').cells().length],
    other: [el('ol').start(), el('ol').type(), el('ol').reversed(), el('li').value(), el('li').type(), el('st').type(), el('sc').text(), el('sc').innerHTML()],
  }));
}`);
  assert.deepEqual(out, {
    a1: ['http://user:pw@example.com:80/p/q?x=1#frag', 'example.com', 'example.com', '80', 'user', 'pw', 'http://example.com:80', '/p/q', 'http', '?x=1', '#frag', ['noopener', '', 'nofollow'], 'origin', 'link', 'http://user:pw@example.com:80/p/q?x=1#frag'],
    a2: ['/rel/path?y=2', '', '', '/rel/path', ':', '?y=2', '/rel/path?y=2'],
    a3: ['', ':', []],
    form: ['/submit', 'get', 'multipart/form-data', true, 7, ['fieldset', 'input', 'input', 'button', 'button', 'select', 'textarea'], 'fieldset', 'form'],
    in1: ['checkbox', true, 3, -1, '', false, 'post', '/submit', 'multipart/form-data', [], true],
    in2: ['v2', 'text', 'datalist', ['lb'], 'in2', 'in2', true, true, 'get'],
    buttons: ['reset', 'Btn <b>x</b>', 'submit', 'bv', '/other', 'get'],
    select: ['select-multiple', 4, 3, 1, ['o2', 'o3'], 'Two', true, 0, 'Two', 'three', 2, true, 'form'],
    ta: ['textarea', '', 'Some & text', 4, 0, 'soft', 0, true],
    media: ['/i.png', 10, 0, 'anonymous', true, 0.75, 4, 0.75, 300, 150],
    table: ['caption', 'thead', true, 2, 2, '', 1, 3, 1, 0, 2],
    other: [5, 'a', false, 7, 'square', 'text/css', 'var a = 1 < 2;', 'var a = 1 &lt; 2;'],
  });
});

test("res.html()'s elements resolve href, src and action against the response's URL, after a redirect too, as Go's url package does", async () => {
  const page = `<a id="r1" href="other.html?q=1#top">r</a><a id="r2" href="../up/x">u</a><a id="r3" href="//cdn.example.com:443/lib.js">c</a>
<a id="r4" href="?only=query">q</a><a id="r5" href="https://Example.COM:443/A%20b/c d?x=y z#h%20i">e</a><a id="r6" href="http://a b/">bad</a>
<img id="i1" src="img/p.png"><base id="b1"><form id="f1" action="post.php"><input id="in1"><button id="bt1" formaction="../alt">b</button></form><form><input id="in2"></form>`;
  const server = await rawServer(({ socket }, req) => {
    if (req.path.startsWith('/redir')) return socket.write('HTTP/1.1 302 Found\r\nLocation: /dir/sub/page.html?from=redir\r\nContent-Length: 0\r\n\r\n');
    socket.write(`HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: ${Buffer.byteLength(page)}\r\n\r\n${page}`);
  });
  try {
    const out = await scriptLogged(
      `import http from 'k6/http';
export default function () {
  const res = http.get(__ENV.BASE + '/redir');
  const doc = res.html(), el = (id) => doc.find('#' + id).get(0);
  const hrefs = [];
  doc.find('a').each((i, a) => hrefs.push(a.href()));
  const r5 = el('r5');
  console.log(JSON.stringify({
    url: [doc.url === res.url, doc.find('a').url === res.url, el('r1').selection().url === res.url],
    hrefs, r5: [r5.host(), r5.port(), r5.origin(), r5.pathname(), r5.search(), r5.hash()], r6: [el('r6').host(), el('r6').protocol()],
    other: [el('r1').pathname(), el('r3').host(), el('i1').src(), el('b1').href(), el('f1').action(), el('in1').formAction(), el('bt1').formAction(), el('in2').formAction()],
  }));
}`,
      ['-e', `BASE=${server.url.replace(/\/$/, '')}`],
    );
    const base = server.url.replace(/\/$/, '');
    assert.deepEqual(out, {
      url: [true, true, true],
      hrefs: [`${base}/dir/sub/other.html?q=1#top`, `${base}/dir/up/x`, 'http://cdn.example.com:443/lib.js', `${base}/dir/sub/page.html?only=query`, 'https://Example.COM:443/A%20b/c%20d?x=y z#h%20i', ''],
      r5: ['Example.COM', '443', 'https://Example.COM:443', '/A b/c d', '?x=y z', '#h i'],
      r6: ['', ':'],
      other: ['/dir/sub/other.html', 'cdn.example.com:443', `${base}/dir/sub/img/p.png`, `${base}/dir/sub/page.html?from=redir`, `${base}/dir/sub/post.php`, `${base}/dir/sub/post.php`, `${base}/dir/alt`, `${base}/dir/sub/page.html?from=redir`],
    });
  } finally {
    await server.close();
  }
});
