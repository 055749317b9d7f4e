// httpDebug ('headers' or 'full', --http-debug): each request and response on stderr as k6 logs
// them (Go's httputil dumps, in a line of its log), the bodies with 'full'.

import { canonicalName } from './http-response.js';
import { logEntry } from '../console.js';

export function debugRequest(vu, method, url, headers, body) {
  // As Go writes a request: Host and User-Agent first, the rest by name.
  const lines = [`${method} ${url.pathname}${url.search} HTTP/1.1`];
  const names = Object.keys(headers).sort((a, b) => rank(a) - rank(b) || (canonicalName(a) < canonicalName(b) ? -1 : 1));
  for (const k of names) lines.push(`${canonicalName(k)}: ${headers[k]}`);
  const full = vu.shared.httpDebug === 'full' && body ? new TextDecoder().decode(body) : '';
  debugLine(vu, `Request:\n${lines.join('\n')}\n\n${full}\n`);
}

export function debugResponse(vu, response, responseType) {
  const lines = [`HTTP/1.1 ${response.status_text}`];
  for (const k of Object.keys(response.headers).sort()) lines.push(`${k}: ${response.headers[k]}`);
  const full = vu.shared.httpDebug === 'full' && typeof response.body === 'string' && responseType !== 'binary' ? response.body : '';
  debugLine(vu, `Response:\n${lines.join('\n')}\n\n${full}\n`);
}

const rank = (name) => ({ host: 0, 'user-agent': 1 })[name.toLowerCase()] ?? 2;

// The run's secrets hidden in the message (a header with a token) and the fields, as in every
// line of k6's log; the fields quoted as logrus quotes them (a group with a space).
function debugLine(vu, msg) {
  const secrets = vu.shared.secrets;
  const scenario = vu.scenario ? vu.scenario.name : '';
  const fields = [['group', vu.groupPath], ['iter', vu.iter], ['scenario', scenario], ['source', 'http-debug'], ['vu', vu.id]];
  globalThis.console.error(logEntry('info', msg, fields, secrets ? (text) => secrets.redact(text) : undefined));
}
