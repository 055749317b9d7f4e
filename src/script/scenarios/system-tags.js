// k6's system tags (metrics/system_tag.go): the tags k6 itself puts on samples, of which the
// systemTags option (--system-tags, K6_SYSTEM_TAGS) keeps only those it names. A run has one
// SystemTags, made once from its options: each place that makes a sample's tags reads a boolean
// of it, so the default set costs a property read, and no list is searched a request.

// In k6's order. The last four are not in its default set.
const NAMES = ['proto', 'subproto', 'status', 'method', 'url', 'name', 'group', 'check', 'error', 'error_code', 'tls_version', 'scenario', 'service', 'expected_response', 'iter', 'vu', 'ocsp_status', 'ip'];
export const DEFAULT_NAMES = NAMES.slice(0, 14);

// vu and iter are metadata, not tags, since k6 v0.41: --out json and csv write them apart
// ("metadata"), no threshold nor other output sees them. A tags object carries them under
// their name after this character (a key no script gives), so that a tag set with them is one
// of its own wherever tag sets are told apart by their keys (tag-sets.js keyOf).
export const META = '\u0000';

/** Which system tags a run's samples get: a boolean for each of k6's names. */
export class SystemTags {
  constructor(names) {
    const on = new Set(names);
    this.proto = on.has('proto');
    this.subproto = on.has('subproto');
    this.status = on.has('status');
    this.method = on.has('method');
    this.url = on.has('url');
    this.name = on.has('name');
    this.group = on.has('group');
    this.check = on.has('check');
    this.error = on.has('error');
    this.error_code = on.has('error_code');
    this.tls_version = on.has('tls_version');
    this.scenario = on.has('scenario');
    this.service = on.has('service');
    this.expected_response = on.has('expected_response');
    this.iter = on.has('iter');
    this.vu = on.has('vu');
    this.ocsp_status = on.has('ocsp_status');
    this.ip = on.has('ip');
    Object.freeze(this);
  }

  /** The names kept, in k6's order. */
  names() {
    return NAMES.filter((n) => this[n]);
  }
}

export const DEFAULT_SYSTEM_TAGS = new SystemTags(DEFAULT_NAMES);

/**
 * The run's SystemTags from the systemTags option (the script's, --config's, or the
 * flag's or variable's list): null or absent is k6's default set. A name k6 does not know is
 * left out as k6 leaves it out (no error there), and `warn`ed of here.
 */
export function systemTagsOf(value, warn) {
  if (value === undefined || value === null) return DEFAULT_SYSTEM_TAGS;
  if (!Array.isArray(value) || value.some((n) => typeof n !== 'string')) throw new Error(`systemTags: a list of system tag names (${NAMES.join(', ')}), not ${JSON.stringify(value)}`);
  const unknown = value.filter((n) => n !== '' && !NAMES.includes(n));
  if (unknown.length) warn(`systemTags: ${unknown.map((n) => `'${n}'`).join(', ')} ${unknown.length === 1 ? 'is' : 'are'} not one of k6's system tags (${NAMES.join(', ')}): left out, as k6 leaves ${unknown.length === 1 ? 'it' : 'them'} out`);
  const names = value.filter((n) => NAMES.includes(n));
  return names.length === DEFAULT_NAMES.length && DEFAULT_NAMES.every((n) => names.includes(n)) ? DEFAULT_SYSTEM_TAGS : new SystemTags(names);
}

/** The option as k6 gives it back (exec.test.options): its known names, sorted, once each; none is null. */
export function systemTagsJSON(value) {
  const names = systemTagsOf(value, () => {}).names().sort();
  return names.length ? names : null;
}

/** K6_SYSTEM_TAGS as k6 reads it (SystemTagSet.UnmarshalText): names at commas, trimmed; empty is none. */
export const envSystemTags = (v) => v.split(',').map((n) => n.trim()).filter((n) => n !== '');

/** --system-tags as k6 reads it (a pflag StringSlice): each given once or more, split at commas, not trimmed. */
export const flagSystemTags = (values) => values.flatMap((v) => (String(v) === '' ? [] : String(v).split(',')));
