// What Bun.serve and Deno.serve share: both hand the test server a fetch-style Request and want
// a Response back.

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A request as loadtest 8's logger and shouldErrorCustom read node's: lower-case headers, body text. */
async function loadtest8Request(req) {
  const url = req.url;
  const path = url.indexOf('/', url.indexOf('//') + 2);
  return {
    method: req.method,
    url: path < 0 ? '/' : url.slice(path),
    headers: Object.fromEntries(req.headers),
    body: req.body ? await req.text() : '',
  };
}

/** Whether a request asks to become a WebSocket (the test server echoes what it is sent). */
export const wantsWebSocket = (req) => (req.headers.get('upgrade') || '').toLowerCase() === 'websocket';

/** The fetch handler for settings `s` (see settingsOf in testserver.js). */
export function fetchHandler(s) {
  const respond = (a) => new Response(a.body, { status: a.status, headers: { 'content-type': a.type } });
  if (!s.wantsRequest && !(s.delay > 0)) return (req) => {
    // An unread body would be drained by the server, but reading it keeps the three alike.
    if (req.body) return req.arrayBuffer().then(() => respond(s.answer(null)));
    return respond(s.answer(null));
  };
  return async (req) => {
    const request = s.wantsRequest ? await loadtest8Request(req) : (req.body && (await req.arrayBuffer()), null);
    if (s.delay > 0) await sleep(s.delay);
    const a = s.answer(request);
    const response = respond(a);
    // loadtest 8's logger gets node's response; here, what was sent.
    if (s.logger) s.logger(request, { statusCode: a.status, headers: { 'content-type': a.type, 'content-length': String(a.body.length) } });
    return response;
  };
}
