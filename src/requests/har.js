// HAR files (HTTP Archive, what browsers' developer tools save) as a request sequence: each
// entry's method, URL, headers and body, in the order recorded. Only the run's origin is loaded:
// a page's HAR also holds its fonts, CDNs and trackers, which are not the server under test.

// Headers the client sets itself, or that belong to one hop or to HTTP/2 (':authority').
const DROPPED = new Set(['host', 'content-length', 'connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer']);

/**
 * `har`: the parsed file. `url`: the run's URL, or null to take the first entry's origin.
 * Returns { url, requests, skipped } (skipped: entries on other origins).
 */
export function harRequests(har, url) {
  const entries = har && har.log && Array.isArray(har.log.entries) ? har.log.entries : null;
  if (!entries) throw new Error('not a HAR file (no log.entries)');
  if (entries.length === 0) throw new Error('the HAR file has no entries');
  let origin = null;
  let first = null;
  if (url) origin = new URL(url).origin;
  const requests = [];
  let skipped = 0;
  for (const [i, entry] of entries.entries()) {
    const r = entry && entry.request;
    if (!r || typeof r.url !== 'string' || typeof r.method !== 'string') throw new Error(`HAR entry ${i + 1} has no request method and url`);
    let u;
    try {
      u = new URL(r.url);
    } catch {
      throw new Error(`HAR entry ${i + 1}: bad url '${r.url}'`);
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') {
      skipped++;
      continue;
    }
    if (origin === null) origin = u.origin;
    if (u.origin !== origin) {
      skipped++;
      continue;
    }
    if (first === null) first = u.href;
    const headers = {};
    for (const h of Array.isArray(r.headers) ? r.headers : []) {
      const name = String(h.name).toLowerCase();
      if (name.startsWith(':') || DROPPED.has(name)) continue;
      // The same header twice (cookie lines) joins as a client would send it.
      headers[name] = name in headers ? `${headers[name]}${name === 'cookie' ? '; ' : ', '}${h.value}` : String(h.value);
    }
    const request = { method: r.method.toUpperCase(), url: u.href, headers };
    if (r.postData && typeof r.postData.text === 'string' && r.postData.text !== '') {
      request.body = r.postData.text;
      if (r.postData.mimeType && !headers['content-type']) headers['content-type'] = r.postData.mimeType;
    }
    requests.push(request);
  }
  if (requests.length === 0) throw new Error(`no HAR entry is on ${origin}`);
  return { url: url || first, requests, skipped };
}
