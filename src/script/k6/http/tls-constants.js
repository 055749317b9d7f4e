// k6/http's constants of TLS versions and OCSP answers (k6's lib/netext/tls.go), in k6's order:
// a script that logs the module (JSON.stringify(http)) sees them as k6 lists them.
export const TLS_CONSTANTS = Object.freeze({
  TLS_1_0: 'tls1.0',
  TLS_1_1: 'tls1.1',
  TLS_1_2: 'tls1.2',
  TLS_1_3: 'tls1.3',
  OCSP_STATUS_GOOD: 'good',
  OCSP_STATUS_REVOKED: 'revoked',
  OCSP_STATUS_SERVER_FAILED: 'server_failed',
  OCSP_STATUS_UNKNOWN: 'unknown',
  OCSP_REASON_UNSPECIFIED: 'unspecified',
  OCSP_REASON_KEY_COMPROMISE: 'key_compromise',
  OCSP_REASON_CA_COMPROMISE: 'ca_compromise',
  OCSP_REASON_AFFILIATION_CHANGED: 'affiliation_changed',
  OCSP_REASON_SUPERSEDED: 'superseded',
  OCSP_REASON_CESSATION_OF_OPERATION: 'cessation_of_operation',
  OCSP_REASON_CERTIFICATE_HOLD: 'certificate_hold',
  OCSP_REASON_REMOVE_FROM_CRL: 'remove_from_crl',
  OCSP_REASON_PRIVILEGE_WITHDRAWN: 'privilege_withdrawn',
  OCSP_REASON_AA_COMPROMISE: 'aa_compromise',
});
