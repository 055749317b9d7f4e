// What a TLS connection says of its session, for the core's secured(protocol, session)
// (src/socket.js): its version as the TLS library names it ('TLSv1.3') and its cipher suite by
// IANA's name; null when the runtime does not tell the version.

/** `cipher`: what the socket's getCipher() returns ({ standardName, name }), or null. */
export function tlsSession(version, cipher) {
  if (!version) return null;
  return { version, cipher: (cipher && (cipher.standardName || cipher.name)) || '' };
}
