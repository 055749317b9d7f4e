// A request ended by a TLS alert from the server (the adapters' reason 'TLS_ALERT_<NAME>', with
// RFC 8446's name: runtimes/sockets/tls-alert.js), in Go's words, as k6 says it: "remote error:
// tls: protocol version not supported" (crypto/tls alert.go), code 1010 (Go's error is a
// net.OpError of no network, k6's "non-TCP" code).

export const TLS_ALERT_CODE = 1010;

const ALERTS = {
  CLOSE_NOTIFY: 'close notify',
  UNEXPECTED_MESSAGE: 'unexpected message',
  BAD_RECORD_MAC: 'bad record MAC',
  DECRYPTION_FAILED: 'decryption failed',
  RECORD_OVERFLOW: 'record overflow',
  DECOMPRESSION_FAILURE: 'decompression failure',
  HANDSHAKE_FAILURE: 'handshake failure',
  BAD_CERTIFICATE: 'bad certificate',
  UNSUPPORTED_CERTIFICATE: 'unsupported certificate',
  CERTIFICATE_REVOKED: 'revoked certificate',
  CERTIFICATE_EXPIRED: 'expired certificate',
  CERTIFICATE_UNKNOWN: 'unknown certificate',
  ILLEGAL_PARAMETER: 'illegal parameter',
  UNKNOWN_CA: 'unknown certificate authority',
  ACCESS_DENIED: 'access denied',
  DECODE_ERROR: 'error decoding message',
  DECRYPT_ERROR: 'error decrypting message',
  EXPORT_RESTRICTION: 'export restriction',
  PROTOCOL_VERSION: 'protocol version not supported',
  INSUFFICIENT_SECURITY: 'insufficient security level',
  INTERNAL_ERROR: 'internal error',
  INAPPROPRIATE_FALLBACK: 'inappropriate fallback',
  USER_CANCELED: 'user canceled',
  NO_RENEGOTIATION: 'no renegotiation',
  MISSING_EXTENSION: 'missing extension',
  UNSUPPORTED_EXTENSION: 'unsupported extension',
  CERTIFICATE_UNOBTAINABLE: 'certificate unobtainable',
  UNRECOGNIZED_NAME: 'unrecognized name',
  BAD_CERTIFICATE_STATUS_RESPONSE: 'bad certificate status response',
  BAD_CERTIFICATE_HASH_VALUE: 'bad certificate hash value',
  UNKNOWN_PSK_IDENTITY: 'unknown PSK identity',
  CERTIFICATE_REQUIRED: 'certificate required',
  NO_APPLICATION_PROTOCOL: 'no application protocol',
};

/** k6's text for `reason` when a TLS alert ended the request, else null. */
export function tlsAlertText(reason) {
  if (!reason.startsWith('TLS_ALERT_')) return null;
  const name = reason.slice(10);
  return `remote error: tls: ${ALERTS[name] || name.toLowerCase().replace(/_/g, ' ')}`;
}
