// res.json() as k6 v1.3 gives it (js/modules/k6/http/response.go, cachedJSON): without a path,
// the body is parsed at the first call and that value kept, so what the script changes in it is
// there at the next call, even after the script sets res.body; with a path, the value is read
// from the body as it came. The script's output was the same under k6 v1.3.0 against a server
// answering the same body, but for `same`: k6 makes a new wrapper of its value at each call.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { scriptLogged } from './servers.js';
import { startHttpbin } from './httpbin.js';

test('res.json(): parsed once and kept, changes and all; a path reads the body as it came', async () => {
  const server = await startHttpbin(0);
  try {
    const seen = await scriptLogged(
      `import http from 'k6/http';
export const options = { vus: 1, iterations: 1 };
export default function () {
  const res = http.get(\`\${__ENV.BASE}/json\`);
  const a = res.json();
  a.added = 'yes';
  a.slideshow.author = 'changed';
  const b = res.json();
  const out = { added: b.added, author: b.slideshow.author, same: a === b };
  out.pathAuthor = res.json('slideshow.author');
  out.pathAdded = res.json('added') === undefined;
  res.body = '{"replaced":true}';
  out.afterBody = res.json().added;
  out.pathAfterBody = res.json('replaced');
  console.log(JSON.stringify(out));
}`,
      ['-e', `BASE=${server.url}`],
    );
    assert.deepEqual(seen, { added: 'yes', author: 'changed', same: true, pathAuthor: 'Yours Truly', pathAdded: true, afterBody: 'yes', pathAfterBody: true });
  } finally {
    await server.stop();
  }
});
