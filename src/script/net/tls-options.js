// k6's TLS options (lib/options.go, lib/tlsconfig.go), as its VUs' tls.Config has them
// (js/runner.go): `tlsVersion` the range of versions offered, `tlsCipherSuites` the TLS 1.0-1.2
// suites offered (Go's TLS 1.3 suites cannot be chosen: they stay the library's), `tlsAuth`
// client certificates. Every connection a VU makes over TLS takes them: k6/http, k6/ws,
// k6/experimental/websockets and k6/net/grpc (whose own `tls` param, when given, replaces the
// certificate, as k6's buildTLSConfig does).

const VERSIONS = { 'tls1.0': 'TLSv1', 'tls1.1': 'TLSv1.1', 'tls1.2': 'TLSv1.2', 'tls1.3': 'TLSv1.3' };
const ORDER = ['TLSv1', 'TLSv1.1', 'TLSv1.2', 'TLSv1.3'];

// Go's names of the suites k6 takes (lib/tlsconfig.go), by IANA's name where they differ.
const TLS12_SUITES = new Map([
  ...[
    'TLS_RSA_WITH_RC4_128_SHA', 'TLS_RSA_WITH_3DES_EDE_CBC_SHA', 'TLS_RSA_WITH_AES_128_CBC_SHA',
    'TLS_RSA_WITH_AES_256_CBC_SHA', 'TLS_RSA_WITH_AES_128_CBC_SHA256', 'TLS_RSA_WITH_AES_128_GCM_SHA256',
    'TLS_RSA_WITH_AES_256_GCM_SHA384', 'TLS_ECDHE_ECDSA_WITH_RC4_128_SHA', 'TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA',
    'TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA', 'TLS_ECDHE_RSA_WITH_RC4_128_SHA', 'TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA',
    'TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA', 'TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA', 'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256',
    'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256', 'TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384', 'TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384',
    'TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256', 'TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256',
  ].map((n) => [n, n]),
  ['TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305', 'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256'],
  ['TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305', 'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256'],
]);
const TLS13_SUITES = new Set(['TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384', 'TLS_CHACHA20_POLY1305_SHA256']);

// k6's warning (js/runner.go) when a tlsAuth entry names domains: Go's client sends the first
// certificate the server's request accepts, whatever the name.
const DOMAINS_WARNING =
  "tlsAuth.domains option could be removed in the next releases, it's recommended to leave it empty and let k6 automatically detect from the provided certificate. It follows the Go's NameToCertificate deprecation - https://pkg.go.dev/crypto/tls@go1.17#Config.";

/**
 * The run's TLS settings from `options`, or null when none is set: { minVersion, maxVersion }
 * (node:tls's names, or null), `ciphers` (IANA names of TLS 1.2 suites, or null) and `auth`
 * ([{ domains, cert, key }], the key decrypted). `facilities.clientKey({ cert, key, password })`
 * checks a pair and decrypts its key; `facilities.tlsRefusal(settings)` says what this runtime
 * cannot do. Throws the line for a value k6 refuses.
 */
export function tlsSettingsOf(options, facilities, warn) {
  const { tlsVersion, tlsCipherSuites, tlsAuth } = options;
  const range = versionsOf(tlsVersion);
  const ciphers = ciphersOf(tlsCipherSuites);
  const auth = authOf(tlsAuth, facilities.clientKey);
  if (range === null && ciphers === null && auth.length === 0) return null;
  if (auth.some((a) => a.domains.length > 0)) warn(DOMAINS_WARNING);
  const settings = { minVersion: range ? range.min : null, maxVersion: range ? range.max : null, ciphers, auth };
  const refusal = facilities.tlsRefusal ? facilities.tlsRefusal(settings) : null;
  if (refusal) throw new Error(refusal);
  return settings;
}

/**
 * What a VU's connection to `origin` ({ hostname, ... }) is opened with: the settings' versions
 * and suites, and a tlsAuth certificate unless the origin brings its own (a grpc `tls` param).
 */
export function withTls(settings, origin) {
  if (settings === null || !origin.tls) return origin;
  const out = { ...origin, minVersion: settings.minVersion, maxVersion: settings.maxVersion, ciphers: settings.ciphers };
  if (!('cert' in origin) && settings.auth.length > 0) {
    const pick = certificateFor(settings.auth, origin.hostname);
    out.cert = pick.cert;
    out.key = pick.key;
  }
  return out;
}

// Go's client sends the first of its certificates that the server's request accepts (its CAs
// and signature schemes), which a connection here cannot ask before it is made: the first whose
// domains name the host (as Go's NameToCertificate matches: the name, or `*.` for one label),
// else the first.
function certificateFor(auth, hostname) {
  const name = String(hostname).toLowerCase();
  const wild = `*${name.slice(name.indexOf('.'))}`;
  return auth.find((a) => a.domains.some((d) => d === name || (name.includes('.') && d === wild))) || auth[0];
}

function versionsOf(v) {
  if (v === undefined || v === null || v === '') return null;
  if (typeof v === 'string') {
    const one = versionOf(v);
    return { min: one, max: one };
  }
  if (typeof v !== 'object' || Array.isArray(v)) throw new Error(`tlsVersion: a version ('tls1.2') or { min, max }, not ${JSON.stringify(v)}`);
  for (const k of Object.keys(v)) if (k !== 'min' && k !== 'max') throw new Error(`tlsVersion: unknown field '${k}' (min, max)`);
  const min = v.min === undefined || v.min === '' ? null : versionOf(v.min);
  const max = v.max === undefined || v.max === '' ? null : versionOf(v.max);
  if (min === null && max === null) return null;
  // Go then fails every connection ("no supported versions satisfy MinVersion and MaxVersion"):
  // refused before the run instead. Go's client takes tls1.2 for a min not given.
  const floor = min === null ? 'TLSv1.2' : min;
  if (max !== null && ORDER.indexOf(floor) > ORDER.indexOf(max)) throw new Error(`tlsVersion: max '${v.max}' is below min '${v.min ?? 'tls1.2'}' (Go's default): no version satisfies both`);
  return { min, max };
}

function versionOf(name) {
  if (typeof name !== 'string') throw new Error(`tlsVersion: a version ('tls1.2'), not ${JSON.stringify(name)}`);
  if (!Object.hasOwn(VERSIONS, name)) throw new Error(`tlsVersion: unknown TLS version '${name}' (tls1.0, tls1.1, tls1.2, tls1.3)`);
  return VERSIONS[name];
}

function ciphersOf(list) {
  if (list === undefined || list === null || (Array.isArray(list) && list.length === 0)) return null;
  if (!Array.isArray(list)) throw new Error(`tlsCipherSuites: a list of cipher suites (['TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256']), not ${JSON.stringify(list)}`);
  const out = [];
  for (const name of list) {
    if (TLS12_SUITES.has(name)) out.push(TLS12_SUITES.get(name));
    else if (!TLS13_SUITES.has(name)) throw new Error(`tlsCipherSuites: unknown cipher suite '${name}'`);
  }
  return out;
}

function authOf(list, clientKey) {
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list)) throw new Error('tlsAuth: a list of { domains, cert, key, password } (client certificates)');
  return list.map((entry, i) => {
    const at = `tlsAuth[${i}]`;
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) throw new Error(`${at}: { domains, cert, key, password }, not ${JSON.stringify(entry)}`);
    for (const k of Object.keys(entry)) if (!['domains', 'cert', 'key', 'password'].includes(k)) throw new Error(`${at}: unknown field '${k}' (domains, cert, key, password)`);
    const { domains = [], cert = '', key = '', password = null } = entry;
    if (domains !== null && (!Array.isArray(domains) || domains.some((d) => typeof d !== 'string'))) throw new Error(`${at}.domains: a list of names, not ${JSON.stringify(domains)}`);
    if (typeof cert !== 'string' || typeof key !== 'string') throw new Error(`${at}: cert and key are PEM text`);
    if (password !== null && typeof password !== 'string') throw new Error(`${at}.password: a string`);
    if (password !== null) encryptedKeyCheck(key, at);
    try {
      return { domains: (domains || []).map((d) => d.toLowerCase()), ...clientKey({ cert, key, password }) };
    } catch (err) {
      throw new Error(`${at}: ${err.message}`);
    }
  });
}

// k6 decrypts only a PEM block of the old form (Proc-Type and DEK-Info headers), with Go's
// x509.DecryptPEMBlock, and says so for the rest.
function encryptedKeyCheck(key, at) {
  const m = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END /.exec(key);
  if (m === null) throw new Error(`${at}: failed to decode PEM key`);
  if (m[1] === 'ENCRYPTED PRIVATE KEY') throw new Error(`${at}: encrypted pkcs8 formatted key is not supported`);
  if (!/^DEK-Info:/m.test(m[2])) throw new Error(`${at}: x509: no DEK-Info header in block`);
}
