// res.json() of a body that is not JSON throws what k6 v2.2 throws: Go's encoding/json words and
// k6's line and character (src/script/k6/http/go-json-error.js). The table is k6 v2.2.0's output
// for each body (a script that logged String(e) of res.json() against a server answering these);
// over random texts near JSON, the scanner finds an error exactly where JSON.parse does.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { goJSONError } from '../src/script/k6/http/go-json-error.js';

const K6 = [
  ["{\"a\": 1,\n \"b\": x}","cannot parse json due to an error at line 2, character 7 , error: invalid character 'x' looking for beginning of value"],
  ["{\"a\"","cannot parse json due to an error at line 1, character 4 , error: unexpected end of JSON input"],
  ["{\"a\": 1}\n\n}","cannot parse json due to an error at line 3, character 1 , error: invalid character '}' after top-level value"],
  ["","cannot parse json due to an error at line 1, character 0 , error: unexpected end of JSON input"],
  ["   ","cannot parse json due to an error at line 1, character 3 , error: unexpected end of JSON input"],
  ["[1, 2,]","cannot parse json due to an error at line 1, character 7 , error: invalid character ']' looking for beginning of value"],
  ["{\"a\" 1}","cannot parse json due to an error at line 1, character 6 , error: invalid character '1' after object key"],
  ["{\"a\": 1 \"b\": 2}","cannot parse json due to an error at line 1, character 9 , error: invalid character '\"' after object key:value pair"],
  ["{1: 2}","cannot parse json due to an error at line 1, character 2 , error: invalid character '1' looking for beginning of object key string"],
  ["[1 2]","cannot parse json due to an error at line 1, character 4 , error: invalid character '2' after array element"],
  ["\"ab\u0001c\"","cannot parse json due to an error at line 1, character 4 , error: invalid character '\\x01' in string literal"],
  ["\"a\\qb\"","cannot parse json due to an error at line 1, character 4 , error: invalid character 'q' in string escape code"],
  ["\"\\u12G4\"","cannot parse json due to an error at line 1, character 6 , error: invalid character 'G' in \\u hexadecimal character escape"],
  ["-x","cannot parse json due to an error at line 1, character 2 , error: invalid character 'x' in numeric literal"],
  ["1.x","cannot parse json due to an error at line 1, character 3 , error: invalid character 'x' after decimal point in numeric literal"],
  ["1e+","cannot parse json due to an error at line 1, character 3 , error: invalid character ' ' in exponent of numeric literal"],
  ["tru","cannot parse json due to an error at line 1, character 3 , error: invalid character ' ' in literal true (expecting 'e')"],
  ["trux","cannot parse json due to an error at line 1, character 4 , error: invalid character 'x' in literal true (expecting 'e')"],
  ["nul1","cannot parse json due to an error at line 1, character 4 , error: invalid character '1' in literal null (expecting 'l')"],
  ["falsy","cannot parse json due to an error at line 1, character 5 , error: invalid character 'y' in literal false (expecting 'e')"],
  ["<html>","cannot parse json due to an error at line 1, character 1 , error: invalid character '<' looking for beginning of value"],
  ["{\"é\": \"ü\", x}","cannot parse json due to an error at line 1, character 12 , error: invalid character 'x' looking for beginning of object key string"],
  ["01","cannot parse json due to an error at line 1, character 2 , error: invalid character '1' after top-level value"],
  ["[\n\n  1,\n  @]","cannot parse json due to an error at line 4, character 3 , error: invalid character '@' looking for beginning of value"],
  ["'single'","cannot parse json due to an error at line 1, character 1 , error: invalid character '\\'' looking for beginning of value"],
  ["{\"a\":[1,{\"b\":nulll}]}","cannot parse json due to an error at line 1, character 18 , error: invalid character 'l' after object key:value pair"],
  ["﻿{}","cannot parse json due to an error at line 1, character 1 , error: invalid character 'ï' looking for beginning of value"],
  ["[1,\n2]\n3","cannot parse json due to an error at line 3, character 1 , error: invalid character '3' after top-level value"],
  ["-","cannot parse json due to an error at line 1, character 1 , error: invalid character ' ' in numeric literal"],
  ["1.","cannot parse json due to an error at line 1, character 2 , error: invalid character ' ' after decimal point in numeric literal"],
  ["\"\\","cannot parse json due to an error at line 1, character 2 , error: invalid character ' ' in string escape code"],
  ["\"\\u12","cannot parse json due to an error at line 1, character 5 , error: invalid character ' ' in \\u hexadecimal character escape"],
  ["[","cannot parse json due to an error at line 1, character 1 , error: unexpected end of JSON input"],
  ["{\"a\":","cannot parse json due to an error at line 1, character 5 , error: unexpected end of JSON input"],
  ["\"abc","cannot parse json due to an error at line 1, character 4 , error: unexpected end of JSON input"],
  ["{\"a\"  ","cannot parse json due to an error at line 1, character 6 , error: unexpected end of JSON input"]]
;

test('k6 v2.2.0\'s words and position for each body', () => {
  for (const [body, message] of K6) assert.equal(goJSONError(body), message, JSON.stringify(body));
});

test('random texts near JSON: an error exactly where JSON.parse finds one', () => {
  let seed = 11;
  const rand = (n) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  const PIECES = ['{', '}', '[', ']', ',', ':', '"a"', '"é\\n"', '1', '-0.5e+3', 'true', 'null', ' ', '\n', 'x', '"', '\\', '01', '1.', '-', 'e', 'tru', '"\\u00e9"', '"\\u12"'];
  const VALID = ['{"a": [1, 2, {"b": null}], "c": "d"}', '[true, false, -1.5e10, "x\\"y"]', '"\\u00e9"', '0', '{}'];
  let invalid = 0;
  for (let n = 0; n < 20000; n++) {
    let text;
    if (rand(2)) text = Array.from({ length: 1 + rand(8) }, () => PIECES[rand(PIECES.length)]).join('');
    else {
      const v = VALID[rand(VALID.length)];
      const at = rand(v.length + 1);
      text = v.slice(0, at) + (rand(2) ? PIECES[rand(PIECES.length)] : '') + v.slice(at + rand(3));
    }
    let parses = true;
    try {
      JSON.parse(text);
    } catch {
      parses = false;
    }
    const error = goJSONError(text);
    assert.equal(error === null, parses, `${JSON.stringify(text)}: ${error}`);
    if (!parses) invalid++;
  }
  assert.ok(invalid > 5000, `${invalid} invalid texts`);
});
