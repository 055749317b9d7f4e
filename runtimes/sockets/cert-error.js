// A failed certificate check, named the same whatever the adapter: code 'CERT_ERROR', with the
// runtime's own code kept in `detail` (DEPTH_ZERO_SELF_SIGNED_CERT, ERR_TLS_CERT_ALTNAME_INVALID,
// UnknownIssuer, ...), so reports and the CLI can say what went wrong.

const CERT_CODES = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER|ALTNAME/;

/** err itself when it is not about a certificate. */
export function certificateError(err) {
  if (!err || !CERT_CODES.test(String(err.code))) return err;
  const e = new Error(`certificate error: ${err.message}`);
  e.code = 'CERT_ERROR';
  e.detail = err.code;
  return e;
}
