// Where a VU's request connects, as k6's dialer (lib/netext/dialer.go) decides it: a hostname
// matching `blockHostnames` is refused, `hosts` maps a name (or name:port) to an address, the
// runtime's resolver does the rest, and an address in a `blacklistIPs` range is refused. A
// refusal is the request's error, with k6's words and code (1111, 1110), not an exception.

/** A request refused before it connects: `short` is the response's error, as k6 words it. */
export class DialError extends Error {
  constructor(message, short) {
    super(message);
    this.short = short;
  }
}

const HOSTNAME = /^(\*\.?)?((([a-z0-9]|[a-z0-9][a-z0-9-]*[a-z0-9])\.)*([a-z0-9]|[a-z0-9][a-z0-9-]*[a-z0-9]))?$/;
const HOST = /^(\*\.?)?((([a-z0-9]|[a-z0-9][a-z0-9-]*[a-z0-9])\.)*([a-z0-9]|[a-z0-9][a-z0-9-]*[a-z0-9]))?(:[0-9]{1,5})?$/;

/**
 * The dialer of `options` (hosts, blockHostnames, blacklistIPs), or null when none is set.
 * Throws the line for a value k6 would refuse.
 */
export function dialerOf(options) {
  const { hosts, blockHostnames, blacklistIPs } = options;
  if (empty(hosts) && empty(blockHostnames) && empty(blacklistIPs)) return null;
  return { hosts: hostsOf(hosts), blocked: patternsOf(blockHostnames), blacklist: rangesOf(blacklistIPs) };
}

const empty = (v) => v === undefined || v === null || (Array.isArray(v) && v.length === 0) || (typeof v === 'object' && Object.keys(v).length === 0);

function hostsOf(hosts) {
  const map = new Map();
  if (empty(hosts)) return map;
  if (typeof hosts !== 'object' || Array.isArray(hosts)) throw new Error("hosts: an object of names and addresses ({ 'test.local': '127.0.0.1' })");
  for (const [key, value] of Object.entries(hosts)) {
    const name = key.toLowerCase();
    if (!HOST.test(name)) throw new Error(`hosts: invalid host pattern '${key}'`);
    const target = addressOf(String(value));
    if (target === null) throw new Error(`hosts: '${value}' (for '${key}') is not an IP address or IP:port`);
    map.set(name, target);
  }
  return map;
}

// '1.2.3.4', '1.2.3.4:8080', '::1', '[::1]:8080' → { ip, port } (port 0: the URL's).
function addressOf(text) {
  let m = /^\[([0-9a-fA-F:.]+)\]:(\d{1,5})$/.exec(text);
  if (m && ipv6(m[1]) !== null) return { ip: m[1], port: Number(m[2]) };
  m = /^([0-9.]+):(\d{1,5})$/.exec(text);
  if (m && ipv4(m[1]) !== null) return { ip: m[1], port: Number(m[2]) };
  if (ipv4(text) !== null || ipv6(text) !== null) return { ip: text, port: 0 };
  return null;
}

function patternsOf(list) {
  if (empty(list)) return [];
  if (!Array.isArray(list)) throw new Error("blockHostnames: a list of hostname patterns (['*.example.com'])");
  return list.map((p) => {
    const pattern = String(p).toLowerCase();
    if (!HOSTNAME.test(pattern)) throw new Error(`blockHostnames: invalid hostname pattern '${p}'`);
    return pattern;
  });
}

function rangesOf(list) {
  if (empty(list)) return [];
  if (!Array.isArray(list)) throw new Error("blacklistIPs: a list of IP ranges (['10.0.0.0/8'])");
  return list.map((text) => {
    const [ip, bitsText] = String(text).split('/');
    const bits = Number(bitsText);
    const v4 = ipv4(ip);
    const v6 = v4 === null ? ipv6(ip) : null;
    const width = v4 !== null ? 32 : 128;
    if ((v4 === null && v6 === null) || !/^\d{1,3}$/.test(bitsText ?? '') || bits > width) throw new Error(`blacklistIPs: '${text}' is not an IP range (10.0.0.0/8, fd00::/8)`);
    const shift = BigInt(width - bits);
    return { text: String(text), v6: v4 === null, prefix: (v4 ?? v6) >> shift, shift };
  });
}

// A pattern as k6's trie matches it: the name itself, or with a leading * any name that ends
// with what follows it.
function matching(patterns, hostname) {
  const name = hostname.toLowerCase();
  for (const p of patterns) if (p.startsWith('*') ? name.endsWith(p.slice(1)) : name === p) return p;
  return null;
}

/**
 * The address and port to connect to for `hostname` and `port` (the URL's), as k6's dialer
 * finds them; `resolve(name)` is the runtime's resolver. Throws DialError for a refusal.
 */
export async function dial(dialer, hostname, port, resolve) {
  const bare = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  const literal = ipv4(bare) !== null || ipv6(bare) !== null;
  if (!literal) {
    const blocked = matching(dialer.blocked, bare);
    if (blocked !== null) throw new DialError(`hostname (${bare}) is in a blocked pattern (${blocked})`, 'hostname is blocked');
  }
  let target = null;
  if (dialer.hosts.size) {
    const withPort = dialer.hosts.get(`${bare.toLowerCase()}:${port}`) ?? hostMatch(dialer.hosts, `${bare}:${port}`);
    if (withPort) target = withPort;
    else {
      const named = dialer.hosts.get(bare.toLowerCase()) ?? hostMatch(dialer.hosts, bare);
      if (named) target = { ip: named.ip, port: named.port || port };
    }
  }
  if (target === null) target = { ip: literal ? bare : await resolve(bare), port };
  for (const range of dialer.blacklist) {
    const v4 = ipv4(target.ip);
    const value = range.v6 ? (v4 === null ? ipv6(target.ip) : null) : v4;
    if (value !== null && value >> range.shift === range.prefix) throw new DialError(`IP (${target.ip}) is in a blacklisted range (${range.text})`, 'ip is blacklisted');
  }
  return { address: target.ip, port: target.port };
}

// A wildcard key of `hosts` matching `name`.
function hostMatch(hosts, name) {
  const lower = name.toLowerCase();
  for (const [key, target] of hosts) if (key.startsWith('*') && lower.endsWith(key.slice(1))) return target;
  return undefined;
}

function ipv4(text) {
  const parts = text.split('.');
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) < 256)) return null;
  return parts.reduce((a, p) => (a << 8n) | BigInt(p), 0n);
}

function ipv6(text) {
  if (!/^[0-9a-fA-F:.]+$/.test(text) || !text.includes(':')) return null;
  let [head, tail] = text.split('::');
  if (text.split('::').length > 2) return null;
  const groups = (s) => (s ? s.split(':') : []);
  let h = groups(head);
  let t = tail === undefined ? [] : groups(tail);
  // An IPv4 tail (::ffff:1.2.3.4) is two groups.
  const last = (t.length ? t : h).at(-1);
  if (last && last.includes('.')) {
    const v4 = ipv4(last);
    if (v4 === null) return null;
    const pair = [(v4 >> 16n).toString(16), (v4 & 0xffffn).toString(16)];
    if (t.length) t = [...t.slice(0, -1), ...pair];
    else h = [...h.slice(0, -1), ...pair];
  }
  const missing = 8 - h.length - t.length;
  if (tail === undefined ? missing !== 0 : missing < 1) return null;
  const all = [...h, ...Array(tail === undefined ? 0 : missing).fill('0'), ...t];
  if (!all.every((g) => /^[0-9a-fA-F]{1,4}$/.test(g))) return null;
  return all.reduce((a, g) => (a << 16n) | BigInt(parseInt(g, 16)), 0n);
}
