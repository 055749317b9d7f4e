// k6/html builds the html, head and body Go's html.Parse implies (k6 parses with goquery): a
// fragment is put in body, a title or meta before the first content in head, a doctype and the
// comments before html stay at the top. Each row: the page, then what k6 v2.2.0 logged for it
// (doc.html(), doc.find('body').size(), doc.find('head').children().size() and the nodeName of
// each of #x's parents()).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { scriptLogged } from './servers.js';

const ROWS = [
    ["<ul><li id=\"x\">a</li></ul>", "<html><head></head><body><ul><li id=\"x\">a</li></ul></body></html>", 1, 0, ["ul","body","html"]],
    ["<!DOCTYPE html><html><head><title>T</title></head><body><p id=\"x\">a</p></body></html>", "<!DOCTYPE html><html><head><title>T</title></head><body><p id=\"x\">a</p></body></html>", 1, 1, ["body","html"]],
    ["<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>T</title>\n</head>\n<body>\n<p id=\"x\">a</p>\n</body>\n</html>\n", "<!DOCTYPE html><html lang=\"en\"><head>\n<meta charset=\"utf-8\"/>\n<title>T</title>\n</head>\n<body>\n<p id=\"x\">a</p>\n\n\n</body></html>", 1, 2, ["body","html"]],
    ["<head><title id=\"x\">T</title></head>", "<html><head><title id=\"x\">T</title></head><body></body></html>", 1, 1, ["head","html"]],
    ["<body class=\"c\"><div><span id=\"x\">a</span></div></body>", "<html><head></head><body class=\"c\"><div><span id=\"x\">a</span></div></body></html>", 1, 0, ["div","body","html"]],
    ["<title id=\"x\">T</title><div>a</div>", "<html><head><title id=\"x\">T</title></head><body><div>a</div></body></html>", 1, 1, ["head","html"]],
    ["hello world", "<html><head></head><body>hello world</body></html>", 1, 0, []],
    ["  <!--c--> <p id=\"x\">a</p>", "<!--c--><html><head></head><body><p id=\"x\">a</p></body></html>", 1, 0, ["body","html"]],
    ["<!doctype html><p id=\"x\">a</p>", "<!DOCTYPE html><html><head></head><body><p id=\"x\">a</p></body></html>", 1, 0, ["body","html"]],
    ["", "<html><head></head><body></body></html>", 1, 0, []],
    ["<meta charset=\"utf-8\"><link rel=\"x\" href=\"/a\"><div id=\"x\">b</div><script>1</script>", "<html><head><meta charset=\"utf-8\"/><link rel=\"x\" href=\"/a\"/></head><body><div id=\"x\">b</div><script>1</script></body></html>", 1, 2, ["body","html"]],
    ["<html><!--c1--><head></head><!--c2--><body><i id=\"x\">a</i></body><!--c3--></html><!--c4-->", "<html><!--c1--><head></head><!--c2--><body><i id=\"x\">a</i></body><!--c3--></html><!--c4-->", 1, 0, ["body","html"]],
    ["   \n  <title>T</title>  x <b id=\"x\">y</b>", "<html><head><title>T</title>  </head><body>x <b id=\"x\">y</b></body></html>", 1, 1, ["body","html"]],
    ["<div>a</div><title id=\"x\">T</title>", "<html><head></head><body><div>a</div><title id=\"x\">T</title></body></html>", 1, 0, ["body","html"]],
    ["<form action=\"/p\"><input id=\"x\" name=\"a\" value=\"1\"></form>", "<html><head></head><body><form action=\"/p\"><input id=\"x\" name=\"a\" value=\"1\"/></form></body></html>", 1, 0, ["form","body","html"]],
    ["<html><body>x</body></html>\n", "<html><head></head><body>x\n</body></html>", 1, 0, []],
    ["<p id=\"x\">a</p><!--c-->", "<html><head></head><body><p id=\"x\">a</p><!--c--></body></html>", 1, 0, ["body","html"]],
    ["<html><body>x</body></html><!--c-->\n<p id=\"x\">y</p>", "<html><head></head><body>x\n<p id=\"x\">y</p></body></html><!--c-->", 1, 0, ["body","html"]],
    ["<head></head><title>T</title><noscript>n</noscript><p id=\"x\">a</p>", "<html><head><title>T</title></head><body><noscript>n</noscript><p id=\"x\">a</p></body></html>", 1, 1, ["body","html"]],
    ["<!--a--><!DOCTYPE html><p id=\"x\">a</p>", "<!--a--><!DOCTYPE html><html><head></head><body><p id=\"x\">a</p></body></html>", 1, 0, ["body","html"]],
    ["<?xml version=\"1.0\"?><p id=\"x\">a</p>", "<!--?xml version=\"1.0\"?--><html><head></head><body><p id=\"x\">a</p></body></html>", 1, 0, ["body","html"]],
    ["<html lang=\"x\">text <b id=\"x\">b</b>", "<html lang=\"x\"><head></head><body>text <b id=\"x\">b</b></body></html>", 1, 0, ["body","html"]],
    ["<!DOCTYPE html>", "<!DOCTYPE html><html><head></head><body></body></html>", 1, 0, []],
    ["<!--only-->", "<!--only--><html><head></head><body></body></html>", 1, 0, []],
    ["  \n ", "<html><head></head><body></body></html>", 1, 0, []],
    ["<noscript>n</noscript><div id=\"x\">a</div>", "<html><head><noscript>n</noscript></head><body><div id=\"x\">a</div></body></html>", 1, 1, ["body","html"]],
    ["<head><div id=\"x\">a</div></head>", "<html><head></head><body><div id=\"x\">a</div></body></html>", 1, 0, ["body","html"]],
    ["<html><head><title>T</title></head>\n<!--c-->\n<body><b id=\"x\">b</b></body>\n</html>", "<html><head><title>T</title></head>\n<!--c-->\n<body><b id=\"x\">b</b>\n</body></html>", 1, 1, ["body","html"]],
    // An element named as a kind of node is an element.
    ['<text id="x">hi</text><doctype>x</doctype><comment>c</comment>', '<html><head></head><body><text id="x">hi</text><doctype>x</doctype><comment>c</comment></body></html>', 1, 0, ['body', 'html']],
];

test("parseHTML puts a page in the html, head and body Go's parser implies, as k6's: a fragment in body, a title or meta before content in head, a doctype and leading comments at the top, whitespace before content dropped", async () => {
  const out = await scriptLogged(`import { parseHTML } from 'k6/html';
const pages = ${JSON.stringify(ROWS.map((r) => r[0]))};
const names = (s) => { const out = []; for (let i = 0; i < s.size(); i++) out.push(s.get(i).nodeName()); return out; };
export default function () {
  console.log(JSON.stringify(pages.map((page) => {
    const doc = parseHTML(page);
    return [page, doc.html(), doc.find('body').size(), doc.find('head').children().size(), names(doc.find('#x').parents())];
  })));
}
`);
  assert.deepEqual(out, ROWS);
});
