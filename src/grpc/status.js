// gRPC status codes (grpc/doc/statuscodes.md) by number and name, and the code a call ends with
// when the server sent none: grpc/doc/http-grpc-status-mapping.md, as grpc-js reads it.

export const CODE_NAMES = [
  'OK', 'CANCELLED', 'UNKNOWN', 'INVALID_ARGUMENT', 'DEADLINE_EXCEEDED', 'NOT_FOUND', 'ALREADY_EXISTS',
  'PERMISSION_DENIED', 'RESOURCE_EXHAUSTED', 'FAILED_PRECONDITION', 'ABORTED', 'OUT_OF_RANGE',
  'UNIMPLEMENTED', 'INTERNAL', 'UNAVAILABLE', 'DATA_LOSS', 'UNAUTHENTICATED',
];

export const OK = 0;
export const UNKNOWN = 2;
export const UNIMPLEMENTED = 12;
export const INTERNAL = 13;
export const UNAVAILABLE = 14;

/** 'UNAVAILABLE' for 14; a code past the list (a newer server's) as 'CODE_17'. */
export const codeName = (code) => CODE_NAMES[code] || `CODE_${code}`;

/**
 * The call's code: its grpc-status (`code`, -1 when none came), else the HTTP status's mapping.
 * A 200 without grpc-status is UNKNOWN (the server broke off without one), as in grpc-js.
 */
export function callCode(code, httpStatus) {
  if (code >= 0) return code;
  switch (httpStatus) {
    case 400:
      return INTERNAL;
    case 401:
      return 16; // UNAUTHENTICATED
    case 403:
      return 7; // PERMISSION_DENIED
    case 404:
      return UNIMPLEMENTED;
    case 429:
    case 502:
    case 503:
    case 504:
      return UNAVAILABLE;
    default:
      return UNKNOWN;
  }
}
