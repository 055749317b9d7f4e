// A TLS alert that ended a handshake, named the same whatever the adapter: code
// 'TLS_ALERT_<NAME>' with RFC 8446's name of the alert (PROTOCOL_VERSION, HANDSHAKE_FAILURE,
// CERTIFICATE_REQUIRED ...), so that k6/http can say it in Go's words ("remote error: tls:
// protocol version not supported"). OpenSSL and BoringSSL (node:tls, Bun) name it in the code
// or message (ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION, TLSV13_ALERT_CERTIFICATE_REQUIRED; node 20
// may give EPROTO with "tlsv1 alert protocol version" in the message), rustls
// (Deno) in the message ("received fatal alert: ProtocolVersion").

const OPENSSL = /(?:SSLV3|TLSV1|TLSV13)_ALERT_([A-Z_]+)|(?:sslv3|tlsv1|tlsv13) alert ([a-z ]+)/;
const RUSTLS = /received fatal alert: ([A-Za-z]+)/;

/** err itself when no alert ended it. */
export function tlsAlert(err) {
  if (!err) return err;
  const text = `${err.code || ''} ${err.message || ''}`;
  let name = null;
  let m = OPENSSL.exec(text);
  if (m) name = m[1] || m[2].trim().toUpperCase().replace(/ /g, '_');
  else if ((m = RUSTLS.exec(text))) name = m[1].replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase();
  if (name === null) return err;
  const e = new Error(`the server ended the TLS handshake: ${name.toLowerCase().replace(/_/g, ' ')}`);
  e.code = `TLS_ALERT_${name}`;
  return e;
}
