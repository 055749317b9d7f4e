// Who answered a request, as k6's Response shows it: `remote_ip` and `remote_port` (the address
// the VU's connection was made to, as Go's conn.RemoteAddr()), `tls_version` (k6's names:
// 'tls1.3') and `tls_cipher_suite` (IANA's name, as Go's). One per connection, made when it is
// up (TCP, or TLS's handshake); a request that got no connection has NO_PEER.

const VERSIONS = { TLSv1: 'tls1.0', 'TLSv1.1': 'tls1.1', 'TLSv1.2': 'tls1.2', 'TLSv1.3': 'tls1.3' };

export const NO_PEER = Object.freeze({ ip: '', port: 0, version: '', cipher: '' });

/**
 * `session`: what the adapter said of a TLS connection (src/socket.js), null for one whose
 * runtime does not tell (Deno's own TLS: then the version and cipher are undefined).
 */
export function peerOf(host, port, tls, session) {
  if (!tls) return { ip: host, port, version: '', cipher: '' };
  if (session === null) return { ip: host, port, version: undefined, cipher: undefined };
  return { ip: host, port, version: VERSIONS[session.version] || String(session.version).toLowerCase(), cipher: session.cipher };
}
