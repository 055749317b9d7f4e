// A scripted request's timings as k6 gives them (res.timings, and its http_req_* samples): made
// by the client that sent it (client.js, client-h2.js), `blocked` and `duration` filled in by
// k6/http once it is answered: one object a request, the Response's own. A plain object, as k6's
// is to a script that logs it, its keys in the order of k6's (Go's struct: `looking_up` is always
// 0 there too).
export function timingsOf(connecting, tlsHandshaking, waiting, receiving) {
  return { duration: 0, blocked: 0, looking_up: 0, connecting, tls_handshaking: tlsHandshaking, sending: 0, waiting, receiving };
}
