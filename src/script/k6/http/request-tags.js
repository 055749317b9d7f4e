// The tags of a k6/http request's samples (http_reqs, http_req_duration and its phases,
// http_req_failed): the VU's and the call's, then k6's for a request, those of the run's system
// tags (src/script/scenarios/system-tags.js), made once for each distinct answer where something
// reads them (src/script/metrics/tag-sets.js).

import { k6ErrorText, responseErrorCode } from './http-response.js';
import { NO_PEER } from '../../net/peer.js';
import { isRequestEntry } from '../../metrics/tag-sets.js';

/**
 * The tags of the samples of `ex`'s request whose result is `r` (the client's), its response
 * `expected` or not (null: no response callback); `ownTags`: the call gave tags of its own;
 * `tagsRead`: whether anything reads them (the run state's requestTagsRead()).
 */
export function requestSamplesTags(vu, method, r, expected, ex, info, ownTags, tagsRead) {
  if (tagsRead) return requestTags(vu, method, r, expected, ex, info, ownTags);
  return expected === true ? EXPECTED : expected === false ? UNEXPECTED : NO_TAGS;
}

// When nothing reads more than expected_response (requestTagsRead()).
const EXPECTED = Object.freeze({ expected_response: 'true' });
const UNEXPECTED = Object.freeze({ expected_response: 'false' });
const NO_TAGS = Object.freeze({});

// A request's samples' own tags: the VU's and the script's, then k6's for a request, those of
// the run's system tags (src/script/scenarios/system-tags.js). Without tags of the call's own nor
// an error, the run's set of the same content serves (src/script/metrics/tag-sets.js).
function requestTags(vu, method, r, expected, ex, info, ownTags) {
  const st = vu.shared.systemTags;
  // As k6: the call's name tag or the VU's (options.tags too), else http.url's (a system tag),
  // else the URL.
  const base = vu.currentTags();
  const name = ex.userTags.name ?? base.name ?? (st.name ? ex.nameTag : null) ?? (ex.digest ? info.bare : info.shown);
  if (ownTags || r.error) return newRequestTags(vu, method, r, expected, ex, name, st);
  // The URL's last entry first: its requests mostly come back with the same answer, and a script
  // whose URLs carry ids (`/items/${id}`) would look each up by its name in a map of a hundred.
  const last = info.lastTags;
  const { status, proto } = r;
  // What of the connection its tags hold: its TLS version (tls_version and ocsp_status), and
  // its address where ip is kept.
  const peer = r.peer || NO_PEER;
  const tls = peer.version;
  const ip = st.ip ? peer.ip : '';
  if (last !== null && isRequestEntry(last, base, name, method, status, proto, expected, tls, ip)) return last.tags;
  const sets = vu.shared.state.tagSets;
  let entry = sets.request(base, name, method, status, proto, expected, tls, ip);
  if (entry === undefined) entry = sets.addRequest(base, name, method, status, proto, expected, tls, ip, newRequestTags(vu, method, r, expected, ex, name, st));
  info.lastTags = entry;
  return entry.tags;
}

function newRequestTags(vu, method, r, expected, ex, name, st) {
  const tags = vu.tags(); // a new object: the request's own tags go on it
  for (const k in ex.userTags) tags[k] = ex.userTags[k];
  // A name the script gave stays a tag of its own whether name is a system tag of the run or not.
  if (st.name) tags.name = name;
  if (st.method) tags.method = method;
  if (st.status) tags.status = String(r.status);
  // As k6 since v0.41: the url tag is the name, whether the script named the request or not (a
  // name keeps the URLs' many values out of the tags).
  if (st.url) tags.url = name;
  // As k6: a request that failed has its error and code, and no proto (no response came).
  // And one whose status is 400 or more has the code k6 gives it (responseErrorCode).
  const peer = r.peer || NO_PEER;
  if (r.error) {
    if (st.error) tags.error = k6ErrorText(r.error);
  } else {
    if (st.proto) tags.proto = r.proto || 'HTTP/1.1';
    // As k6 over TLS: its version, and the OCSP status of the server's certificate, which is
    // 'unknown' where the server stapled none (no stapled response is read here).
    if (peer.version) {
      if (st.tls_version) tags.tls_version = peer.version;
      if (st.ocsp_status) tags.ocsp_status = 'unknown';
    }
  }
  if (st.ip && peer.ip) tags.ip = peer.ip;
  const code = responseErrorCode(r.error, r.status);
  if (code !== 0 && st.error_code) tags.error_code = String(code);
  if (expected !== null && st.expected_response) tags.expected_response = String(expected);
  return tags;
}
