// The environment variables `k6 run` reads (k6 v1.3: lib/options.go's envconfig tags, the
// K6_* of internal/cmd/config.go, runtime_options.go and cmd/state/state.go), each taken as k6
// takes it or refused in one line: none is read and then ignored. The options' variables are
// a tier of their own, over the script's and under the flags (src/script/scenarios/option-tiers.js).

import { parseDuration } from '../script/scenarios/duration.js';
import { envSystemTags } from '../script/scenarios/system-tags.js';

/** A variable's bad value or refusal; `code` is the exit code (k6: 104 for an option's). */
export class EnvError extends Error {
  constructor(message, code = 104) {
    super(message);
    this.code = code;
  }
}

// As envconfig reads each Go type: null.Bool takes true or false alone, null.Int Go's
// ParseInt, a list is split at commas, a map is k:v pairs split at commas.
const bool = (v, name) => {
  if (v === 'true' || v === 'false') return v === 'true';
  throw new EnvError(`${name}: true or false, not '${v}'`);
};
const int = (v, name) => {
  if (!/^[+-]?\d+$/.test(v)) throw new EnvError(`${name}: a whole number, not '${v}'`);
  return Number(v);
};
const duration = (v, name) => {
  try {
    parseDuration(v, name);
  } catch (err) {
    throw new EnvError(err.message);
  }
  return v;
};
const text = (v) => v;
const list = (v) => v.split(',');
const map = (v, name) =>
  Object.fromEntries(
    list(v).map((pair) => {
      const colon = pair.indexOf(':');
      if (colon < 0) throw new EnvError(`${name}: key:value pairs, not '${pair}'`);
      return [pair.slice(0, colon), pair.slice(colon + 1)];
    }),
  );
const stages = (v, name) =>
  list(v).map((s) => {
    const [d, target = ''] = s.split(':');
    if (target !== '' && !/^[+-]?\d+$/.test(target)) throw new EnvError(`${name}: DURATION:TARGET stages, not '${s}'`);
    return { duration: duration(d, name), target: target === '' ? 0 : Number(target) };
  });

const OPTIONS = {
  K6_PAUSED: ['paused', bool],
  K6_VUS: ['vus', int],
  K6_DURATION: ['duration', duration],
  K6_ITERATIONS: ['iterations', int],
  K6_STAGES: ['stages', stages],
  K6_NO_SETUP: ['noSetup', bool],
  K6_SETUP_TIMEOUT: ['setupTimeout', duration],
  K6_NO_TEARDOWN: ['noTeardown', bool],
  K6_TEARDOWN_TIMEOUT: ['teardownTimeout', duration],
  K6_HANDLE_SUMMARY_TIMEOUT: ['handleSummaryTimeout', duration],
  K6_RPS: ['rps', int],
  K6_MAX_REDIRECTS: ['maxRedirects', int],
  K6_USER_AGENT: ['userAgent', text],
  K6_BATCH: ['batch', int],
  K6_BATCH_PER_HOST: ['batchPerHost', int],
  K6_HTTP_DEBUG: ['httpDebug', text],
  K6_INSECURE_SKIP_TLS_VERIFY: ['insecureSkipTLSVerify', bool],
  K6_THROW: ['throw', bool],
  K6_BLACKLIST_IPS: ['blacklistIPs', list],
  K6_BLOCK_HOSTNAMES: ['blockHostnames', list],
  K6_NO_CONNECTION_REUSE: ['noConnectionReuse', bool],
  K6_NO_VU_CONNECTION_REUSE: ['noVUConnectionReuse', bool],
  K6_MIN_ITERATION_DURATION: ['minIterationDuration', duration],
  K6_SUMMARY_TREND_STATS: ['summaryTrendStats', list],
  K6_SUMMARY_TIME_UNIT: ['summaryTimeUnit', text],
  K6_TAGS: ['tags', map],
  K6_NO_COOKIES_RESET: ['noCookiesReset', bool],
  K6_DISCARD_RESPONSE_BODIES: ['discardResponseBodies', bool],
};

// What k6 does with these that loadtest does not (each taken at the value that asks for what
// happens here anyway).
const REFUSED = {
  K6_DNS: "the runtime's resolver is used",
  K6_TLS_CIPHER_SUITES: 'give the tlsCipherSuites option in the script or --config',
  K6_TLSAUTH: 'give the tlsAuth option in the script or --config',
  K6_ADDRESS: ['', 'there is no REST API here, and k6 v2 serves none without an address'],
  K6_THRESHOLDS: 'give the thresholds option in the script or --config',
  K6_METRIC_SAMPLES_BUFFER_SIZE: 'samples are not buffered that way here',
  K6_CONSOLE_OUTPUT: 'the console goes to stderr here',
  K6_LOCAL_IPS: 'requests leave from the address the system picks',
  K6_LINGER: ['false', 'no REST API to keep up here (--metrics-linger keeps --metrics and --dashboard)'],
  K6_PROFILING_ENABLED: 'no pprof here',
  K6_TYPE: ['js', 'a script here, not an archive'],
  K6_COMPATIBILITY_MODE: [['extended', 'experimental_enhanced'], "the runtime's JavaScript is the script's, TypeScript too"],
  K6_TRACES_OUTPUT: ['none', 'no traces output here'],
  K6_LOG_OUTPUT: ['stderr', 'the log goes to stderr here'],
  K6_LOG_FORMAT: ['', "k6's default text format only here"],
  K6_CSV_FILENAME: '--out csv=FILE names the file',
  K6_CSV_SAVE_INTERVAL: '--out csv writes as it goes',
  K6_CSV_TIME_FORMAT: "--out csv's time is k6's default (unix seconds)",
};

/**
 * The command line's flags that were not given, from their K6_* variables (a flag wins, as in
 * k6), in `args` (mri's); returns the options' tier, what to warn of, whether __ENV has the
 * system's variables and whether k6 would have no colour.
 */
export function withEnv(args, envVar) {
  const given = (v) => v !== undefined && v !== '';
  const warnings = [];
  if (args.thresholds !== false && envBool(envVar, 'K6_NO_THRESHOLDS')) args.thresholds = false;
  // k6 v2.0 removed --no-summary and stopped reading K6_NO_SUMMARY; v1 pipelines set them: taken
  // as v1.3 took them, and said.
  if (args.summary === false) warnings.push('--no-summary was removed in k6 v2.0 (--summary-mode=disabled is its form now): taken as k6 v1 took it');
  else if (envBool(envVar, 'K6_NO_SUMMARY')) {
    args.summary = false;
    warnings.push('K6_NO_SUMMARY is no longer read by k6 v2.0 (K6_SUMMARY_MODE=disabled is its form now): taken as k6 v1 took it');
  }
  if (args['summary-mode'] === undefined && given(envVar('K6_SUMMARY_MODE'))) args['summary-mode'] = envVar('K6_SUMMARY_MODE');
  if (args['summary-export'] === undefined && given(envVar('K6_SUMMARY_EXPORT'))) args['summary-export'] = envVar('K6_SUMMARY_EXPORT');
  // As k6 v1.5 and later: checked even when the flag is given, which wins.
  const machineReadable = envBool(envVar, 'K6_NEW_MACHINE_READABLE_SUMMARY');
  if (args['new-machine-readable-summary'] === undefined && machineReadable !== undefined) args['new-machine-readable-summary'] = machineReadable;
  if (args.out === undefined && given(envVar('K6_OUT'))) args.out = envVar('K6_OUT').split(',');
  if (args.config === undefined && given(envVar('K6_CONFIG'))) args.config = envVar('K6_CONFIG');
  // k6 ignores K6_HOSTS (its type reads no text): said, not refused. SSLKEYLOGFILE, which k6
  // honors, is said too: it is often set for every program (a browser's keys for Wireshark), and
  // a run refused for it would stop for nothing the test asked.
  if (envVar('K6_HOSTS') !== undefined) warnings.push('K6_HOSTS is ignored, as k6 v1.3 ignores it: give the hosts option');
  if (given(envVar('SSLKEYLOGFILE'))) warnings.push("SSLKEYLOGFILE is not honored: a script's TLS keys are not logged here");
  return {
    options: envOptions(envVar),
    warnings,
    // As `k6 run`: __ENV has the system's variables unless told otherwise.
    systemEnv: args['include-system-env-vars'] ?? envBool(envVar, 'K6_INCLUDE_SYSTEM_ENV_VARS') ?? true,
    noColor: args.color === false || envNoColor(envVar),
  };
}

/** The options the K6_* variables give (k6's names), after refusing what is not done here. */
export function envOptions(envVar) {
  for (const [name, why] of Object.entries(REFUSED)) {
    const v = envVar(name);
    if (v === undefined) continue;
    const [ok, reason] = Array.isArray(why) ? why : [null, why];
    if (Array.isArray(ok) ? !ok.includes(v) : v !== ok) throw new EnvError(`${name} is not supported by loadtest run (${reason}): unset it`);
  }
  const o = {};
  for (const [name, [key, parse]] of Object.entries(OPTIONS)) {
    const v = envVar(name);
    // As envconfig: an empty value is no value.
    if (v !== undefined && v !== '') o[key] = parse(v, name);
  }
  // Empty is a value here: k6 reads K6_SYSTEM_TAGS= as no system tags at all.
  const systemTags = envVar('K6_SYSTEM_TAGS');
  if (systemTags !== undefined) o.systemTags = envSystemTags(systemTags);
  return o;
}

/** A runtime option's boolean as k6 reads it (Go's strconv.ParseBool); undefined when unset. */
export function envBool(envVar, name) {
  const v = envVar(name);
  if (v === undefined) return undefined;
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(v)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(v)) return false;
  throw new EnvError(`env var '${name}' is not a valid boolean value: '${v}'`, 2);
}

/** k6's global no-color: K6_NO_COLOR not empty, or NO_COLOR set at all (no-color.org). */
export const envNoColor = (envVar) => Boolean(envVar('K6_NO_COLOR')) || envVar('NO_COLOR') !== undefined;
