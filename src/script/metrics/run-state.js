// What a scripted run records besides the script's own metrics: k6's built-in metrics (http_req_*,
// iterations, checks, data, groups), the tree of groups and checks for the summary, and each
// distinct warning or exception message once, with how often it came.

import { COUNTER, GAUGE, RATE, TREND, subsMade } from './metrics.js';
import { TagSets } from './tag-sets.js';
import { DEFAULT_SYSTEM_TAGS } from '../scenarios/system-tags.js';

export class RunState {
  constructor(registry) {
    const m = (name, type, isTime) => registry.get(name, type, isTime);
    this.registry = registry;
    this.markedFailed = false; // exec.test.fail(): the run goes on, and exits 110
    this.httpReqs = m('http_reqs', COUNTER);
    this.duration = m('http_req_duration', TREND, true);
    // k6 shows the duration of expected responses apart, while expected_response is a system
    // tag of the run (useSystemTags()).
    this.duration.sub('expected_response:true');
    this.ownSubs = 1; // of http_req_duration's sub-metrics, those k6 makes itself
    this.blocked = m('http_req_blocked', TREND, true);
    this.connecting = m('http_req_connecting', TREND, true);
    this.tls = m('http_req_tls_handshaking', TREND, true);
    this.sending = m('http_req_sending', TREND, true);
    this.waiting = m('http_req_waiting', TREND, true);
    this.receiving = m('http_req_receiving', TREND, true);
    this.failed = m('http_req_failed', RATE);
    this.dataSent = m('data_sent', COUNTER);
    this.dataReceived = m('data_received', COUNTER);
    // A request's metrics but http_req_duration (whose expected_response:true is k6's own).
    this.requestMetrics = [this.httpReqs, this.blocked, this.connecting, this.tls, this.sending, this.waiting, this.receiving, this.failed];
    this.requestReaders = new TagReaders(registry, [this.duration, ...this.requestMetrics], this.ownSubs);
    // Where a request's samples go when nothing reads their tags (request()): each metric's sink,
    // in the order of requestValues, http_req_duration{expected_response:true}'s last.
    this.requestSinks = [this.httpReqs, this.duration, this.blocked, this.connecting, this.tls, this.sending, this.waiting, this.receiving, this.failed, this.duration.subs[0]].map((m) => m.sink);
    this.requestValues = new Float64Array(this.requestSinks.length);
    this.iterations = m('iterations', COUNTER);
    this.iterationDuration = m('iteration_duration', TREND, true);
    // A full iteration's samples (iterationEnd()).
    this.iterationReaders = new TagReaders(registry, [this.dataSent, this.dataReceived, this.iterationDuration, this.iterations], 0);
    this.checks = m('checks', RATE);
    this.groupDurations = m('group_duration', TREND, true);
    this.vus = m('vus', GAUGE);
    this.vusMax = m('vus_max', GAUGE);
    this.droppedIterations = null; // made when an arrival-rate executor drops one
    this.root = { name: '', path: '', groups: new Map(), checks: new Map() };
    this.groupsByPath = new Map([['', this.root]]);
    // Every check by its name, whatever its group, in the order they first came: k6 v1's summary.
    this.checksByName = new Map();
    this.lastCheck = null; // the records of the check counted last (check())
    this.messages = new Map(); // message → count
    this.iterationsByScenario = {}; // scenario name → iterations completed (the --html page's)
    // For the progress line: requests begun, ended, and ended in an error (no response).
    this.begun = 0;
    this.ended = 0;
    this.errors = 0;
    // For --metrics: responses by status, failures by reason, bytes received.
    this.statusCounts = {};
    this.reasons = {};
    this.bytesIn = 0;
    this.onMessage = null; // (message) => void, the first time each is seen
    this.secondHistogram = null; // --dashboard: this second's http_req_duration in µs
    this.tagSets = new TagSets(); // shared tag sets, where a sample's tags are read (tag-sets.js)
    this.systemTags = DEFAULT_SYSTEM_TAGS; // the run's (useSystemTags())
  }

  /**
   * The run's system tags (system-tags.js), known once its options are, before its thresholds'
   * sub-metrics are made: without expected_response k6 makes no http_req_duration{expected_response:true}
   * of its own (a threshold may still name it: it then sees no sample, as k6's).
   */
  useSystemTags(systemTags) {
    this.systemTags = systemTags;
    if (systemTags.expected_response || this.ownSubs === 0) return;
    this.duration.subs = this.duration.subs.filter((s) => s.name !== 'http_req_duration{expected_response:true}');
    this.ownSubs = 0;
    this.requestSinks.pop();
    this.requestReaders.own = 0;
    this.requestReaders.at = -1;
  }

  /**
   * Whether a request's samples need their own tags: something reads tags of the http_req_*
   * metrics (--out, the full summary, a sub-metric other than k6's expected_response:true, which
   * the tags k6's default gives a request are enough for: requestTags()).
   */
  requestTagsRead() {
    return this.requestReaders.read();
  }

  // `tagsRead`: requestTagsRead()'s answer, when the caller asked it already (k6/http, for the tags).
  request(t, status, expected, bytesIn, tags, error, tagsRead = this.requestTagsRead()) {
    const r = this.registry;
    this.ended++;
    this.bytesIn += bytesIn;
    if (error) {
      this.errors++;
      this.reasons[error] = (this.reasons[error] || 0) + 1;
    } else {
      this.statusCounts[status] = (this.statusCounts[status] || 0) + 1;
    }
    if (this.secondHistogram !== null) this.secondHistogram.record(t.duration * 1000);
    if (tagsRead) {
      r.add(this.httpReqs, 1, tags);
      r.add(this.duration, t.duration, tags);
      r.add(this.blocked, t.blocked, tags);
      r.add(this.connecting, t.connecting, tags);
      r.add(this.tls, t.tls_handshaking, tags);
      r.add(this.sending, t.sending, tags);
      r.add(this.waiting, t.waiting, tags);
      r.add(this.receiving, t.receiving, tags);
      if (expected !== null) r.add(this.failed, expected ? 0 : 1, tags);
    } else {
      this.sinksAdd(t, expected);
    }
    if (error) this.warn(`request failed: ${error}`);
  }

  // A request's samples when nothing reads their tags (no output, no breakdown, no sub-metric
  // but k6's expected_response:true, whose answer is `expected`): straight into the sinks, in
  // one loop, rather than each through the registry and its metric's sub-metrics. 2 to 7 % less
  // CPU a scripted request in process on every runtime (bench/script-overhead.js, two at once);
  // the same sinks each added in a line of its own were 8 % slower on bun than the loop.
  sinksAdd(t, expected) {
    const v = this.requestValues;
    v[0] = 1;
    v[1] = t.duration;
    v[2] = t.blocked;
    v[3] = t.connecting;
    v[4] = t.tls_handshaking;
    v[5] = t.sending;
    v[6] = t.waiting;
    v[7] = t.receiving;
    v[8] = expected ? 0 : 1;
    v[9] = t.duration;
    // http_req_failed when there is an answer, and k6's own sub-metric (the last, while there is
    // one: useSystemTags()) when it is true.
    const sinks = this.requestSinks;
    const n = expected === null ? 8 : expected === true ? sinks.length : 9;
    for (let i = 0; i < n; i++) sinks[i].add(v[i]);
  }

  /**
   * k6's data_sent and data_received, as its VU's dialer gives them (IOSamples): at the end of
   * each iteration (a cut one too) and of setup() and teardown(), what the VU's connections
   * wrote and read since the last, with the tags the VU has then, zeros included.
   */
  io(vu, tags) {
    const r = this.registry;
    r.add(this.dataSent, vu.bytesSent, tags);
    r.add(this.dataReceived, vu.bytesReceived, tags);
    vu.bytesSent = 0;
    vu.bytesReceived = 0;
  }

  /**
   * A full iteration's samples (io(), iteration()), the VU's tags (vu.currentTags()) asked for
   * only when something reads them (an output, the breakdown, a sub-metric): else straight into
   * the sinks, as a request's (sinksAdd()).
   */
  iterationEnd(vu, ms, scenario) {
    if (this.iterationReaders.read()) {
      const tags = vu.currentTags();
      this.io(vu, tags);
      this.iteration(ms, tags, scenario);
      return;
    }
    this.iterationsByScenario[scenario] = (this.iterationsByScenario[scenario] || 0) + 1;
    this.dataSent.sink.add(vu.bytesSent);
    this.dataReceived.sink.add(vu.bytesReceived);
    vu.bytesSent = 0;
    vu.bytesReceived = 0;
    this.iterationDuration.sink.add(ms);
    this.iterations.sink.add(1);
  }

  group(path, name) {
    if (this.groupsByPath.has(path)) return;
    const parentPath = path.slice(0, path.lastIndexOf('::'));
    const parent = this.groupsByPath.get(parentPath) || this.root;
    const g = { name, path, groups: new Map(), checks: new Map() };
    parent.groups.set(name, g);
    this.groupsByPath.set(path, g);
  }

  check(groupPath, name, ok, tags) {
    // Most iterations run the same check as the last one: its records are kept at hand.
    let last = this.lastCheck;
    if (last === null || last.name !== name || last.groupPath !== groupPath) last = this.lastCheck = this.checkRecords(groupPath, name);
    const pass = ok ? 1 : 0;
    add(last.inGroup, pass, 1 - pass);
    add(last.byName, pass, 1 - pass);
    this.registry.add(this.checks, pass, tags);
  }

  // A check's count in its group and its count by name, made the first time they are asked for.
  checkRecords(groupPath, name) {
    const g = this.groupsByPath.get(groupPath) || this.root;
    return { groupPath, name, inGroup: checkIn(g, name), byName: this.checkByName(name) };
  }

  checkByName(name) {
    let c = this.checksByName.get(name);
    if (c === undefined) {
      c = { name, passes: 0, fails: 0 };
      this.checksByName.set(name, c);
    }
    return c;
  }

  groupDuration(ms, tags) {
    this.registry.add(this.groupDurations, ms, tags);
  }

  iteration(ms, tags, scenario) {
    this.iterationsByScenario[scenario] = (this.iterationsByScenario[scenario] || 0) + 1;
    this.registry.add(this.iterationDuration, ms, tags);
    this.registry.add(this.iterations, 1, tags);
  }

  dropped(tags, n = 1) {
    if (this.droppedIterations === null) this.droppedIterations = this.registry.get('dropped_iterations', COUNTER);
    this.registry.add(this.droppedIterations, n, tags);
  }

  /** What a --cores child sends besides its metrics: counters, the groups and checks, messages. */
  toJSON() {
    const groups = [];
    const walk = (g) => {
      groups.push({ path: g.path, name: g.name, checks: [...g.checks.values()].map((c) => [c.name, c.passes, c.fails]) });
      for (const child of g.groups.values()) walk(child);
    };
    walk(this.root);
    const byName = [...this.checksByName.values()].map((c) => [c.name, c.passes, c.fails]);
    const breakdown = this.registry.breakdown === null ? null : this.registry.breakdown.toJSON();
    return { begun: this.begun, ended: this.ended, errors: this.errors, bytesIn: this.bytesIn, statusCounts: this.statusCounts, reasons: this.reasons, iterationsByScenario: this.iterationsByScenario, groups, byName, breakdown, messages: [...this.messages], markedFailed: this.markedFailed };
  }

  /** Adds a child's state (its toJSON()); groups and checks keep the order they first came in. */
  merge(j) {
    if (j.markedFailed) this.markedFailed = true;
    this.begun += j.begun;
    this.ended += j.ended;
    this.errors += j.errors;
    this.bytesIn += j.bytesIn;
    for (const [k, n] of Object.entries(j.statusCounts)) this.statusCounts[k] = (this.statusCounts[k] || 0) + n;
    for (const [k, n] of Object.entries(j.reasons)) this.reasons[k] = (this.reasons[k] || 0) + n;
    // A shard's result written before it was kept has none.
    for (const [k, n] of Object.entries(j.iterationsByScenario || {})) this.iterationsByScenario[k] = (this.iterationsByScenario[k] || 0) + n;
    for (const g of j.groups) {
      if (g.path !== '') this.group(g.path, g.name);
      const group = this.groupsByPath.get(g.path);
      for (const [name, passes, fails] of g.checks) add(checkIn(group, name), passes, fails);
    }
    for (const [name, passes, fails] of j.byName || []) add(this.checkByName(name), passes, fails);
    if (j.breakdown && this.registry.breakdown !== null) this.registry.breakdown.merge(j.breakdown);
    for (const [message, n] of j.messages) this.messages.set(message, (this.messages.get(message) || 0) + n);
  }

  warn(message) {
    const n = this.messages.get(message) || 0;
    this.messages.set(message, n + 1);
    if (n === 0 && this.onMessage !== null) this.onMessage(message);
  }
}

/**
 * Whether something reads the tags of some metrics' samples: an output, the full summary's
 * breakdown, or a sub-metric but the `own` ones k6 makes itself. Asked at each sample: the answer
 * is worked out again only when an output, the breakdown or a sub-metric may have come.
 */
class TagReaders {
  constructor(registry, metrics, own) {
    this.registry = registry;
    this.metrics = metrics;
    this.own = own;
    this.answer = false;
    this.at = -1; // subsMade when the answer was worked out
    this.out = null;
    this.breakdown = null;
  }

  read() {
    const r = this.registry;
    if (this.at !== subsMade || this.out !== r.out || this.breakdown !== r.breakdown) {
      this.at = subsMade;
      this.out = r.out;
      this.breakdown = r.breakdown;
      let subs = -this.own;
      for (const m of this.metrics) subs += m.subs.length;
      this.answer = r.out !== null || r.breakdown !== null || subs > 0;
    }
    return this.answer;
  }
}

// A group's count of the check `name`, made the first time it is asked for.
function checkIn(group, name) {
  let c = group.checks.get(name);
  if (c === undefined) {
    c = { name, path: `${group.path}::${name}`, passes: 0, fails: 0 };
    group.checks.set(name, c);
  }
  return c;
}

function add(count, passes, fails) {
  count.passes += passes;
  count.fails += fails;
}
