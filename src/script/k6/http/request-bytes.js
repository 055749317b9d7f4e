// A k6/http request's bytes (k6/http/http.js once()). A request without cookies or credentials is the
// same bytes each time its URL, method and headers are, but for its body: kept by the URL (its
// infoOf(), request-url.js), whole without a body, its head with one (withBody() adds the body).
// The common one, without headers or a body, by method alone (info.plain); the others under the
// key their method and headers make (info.kept).

import { encodeRequest, encodeHead, withBody } from '../../../http1/request.js';

/**
 * `request`'s bytes (a k6/http/http.js Request); `keepable`: without cookies or credentials;
 * `noHeaders`: without headers of the script's.
 */
export function bytesOf(request, info, keepable, noHeaders) {
  const { method, body } = request;
  if (keepable && body === null && noHeaders) {
    let bytes = info.plain === null ? undefined : info.plain[method];
    if (bytes === undefined) {
      bytes = whole(request, info, wireHeaders(request));
      (info.plain || (info.plain = {}))[method] = bytes;
    }
    return bytes;
  }
  if (keepable && (body === null || body.length > 0)) return keptBytes(request, info, bytesKey(method, request.userHeaders, body !== null));
  return whole(request, info, wireHeaders(request));
}

// The whole request: its head, and its body if any.
const whole = (request, info, headers) => encodeRequest({ method: request.method, path: info.path, headers, body: request.body });

// Whether it is a head without its body, the method, then each of the script's headers, name
// and value, each after its length: no two of these make the same key.
function bytesKey(method, headers, head) {
  let key = `${head ? 'h' : 'b'}${method.length}:${method}`;
  for (const k in headers) {
    const v = headers[k];
    key += `\n${k.length}:${k}${v.length}:${v}`;
  }
  return key;
}

// Kept under `key`: a few dozen a URL (a script's headers may change each time: a token, a
// request id).
function keptBytes(request, info, key) {
  const { method, body } = request;
  let kept = info.kept === null ? undefined : info.kept.get(key);
  if (kept === undefined) {
    const headers = wireHeaders(request);
    kept = body === null ? whole(request, info, headers) : encodeHead({ method, path: info.path, headers });
    if (info.kept === null) info.kept = new Map();
    else if (info.kept.size >= 64) info.kept.clear();
    info.kept.set(key, kept);
  }
  return body === null ? kept : withBody(kept, body);
}

// The request's headers for the wire: lower-cased as the rest of loadtest writes them (HTTP
// field names are case-insensitive, RFC 9110 5.1).
function wireHeaders(request) {
  const headers = request.headers();
  const wire = {};
  for (const k in headers) wire[k.toLowerCase()] = headers[k];
  // noConnectionReuse: said to the server too, as Go's transport says it.
  if (request.ex.vu.options.noConnectionReuse && wire.connection === undefined) wire.connection = 'close';
  return wire;
}
