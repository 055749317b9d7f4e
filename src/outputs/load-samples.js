// A load run's requests as the samples a k6 script's http.get makes, for --out: the same metric
// names, kinds and tags (http_reqs, http_req_duration and its phases, http_req_failed; method,
// url, name, status, proto, expected_response, scenario), so that one dashboard reads both
// kinds of run. A request's phases are k6's: blocked, connecting and tls_handshaking are its
// connection's setup when it opened the connection (0 on a kept one), sending from the ready
// connection to the write, waiting to the first byte, receiving to the last; its duration is
// sending + waiting + receiving. A request with no response counts in http_reqs and
// http_req_failed with status 0 and its reason as `error`. Each second, `vus` is the open
// connections and `vus_max` the run's.

const metric = (name, type, isTime = false) => ({ name, type, isTime, thresholds: [], subs: [] });

export const LOAD_METRICS = {
  reqs: metric('http_reqs', 'counter'),
  duration: metric('http_req_duration', 'trend', true),
  blocked: metric('http_req_blocked', 'trend', true),
  connecting: metric('http_req_connecting', 'trend', true),
  tls: metric('http_req_tls_handshaking', 'trend', true),
  sending: metric('http_req_sending', 'trend', true),
  waiting: metric('http_req_waiting', 'trend', true),
  receiving: metric('http_req_receiving', 'trend', true),
  failed: metric('http_req_failed', 'rate'),
  vus: metric('vus', 'gauge'),
  vusMax: metric('vus_max', 'gauge'),
};

export class LoadSamples {
  /**
   * `config`: the run's (src/run/options.js); `out`: { sample(metric, value, tags) } (the
   * outputs' queue, runtimes/scripts/host.js openOutputs); `scenario`: the `scenario` tag.
   */
  constructor(config, out, scenario = 'default') {
    this.out = out;
    const origin = new URL(config.url).origin;
    const proto = config.http2 ? 'HTTP/2.0' : 'HTTP/1.1';
    const entries = config.sequence || [{ method: config.method, path: config.path }];
    // A tags object per entry and status, made once: the queue keeps a slot per object it sees.
    this.base = entries.map((e) => {
      const url = config.sequence ? origin + e.path : config.url;
      return { group: '', method: e.method, name: url, proto, scenario, url };
    });
    this.byStatus = entries.map(() => []);
    this.byReason = entries.map(() => new Map());
    this.secondTags = { scenario };
  }

  tagsOf(entry, status) {
    let tags = this.byStatus[entry][status];
    if (tags === undefined) {
      const expected = status >= 200 && status < 400;
      tags = this.byStatus[entry][status] = { ...this.base[entry], status: String(status), expected_response: String(expected) };
    }
    return tags;
  }

  /**
   * A response: `start` when the request was claimed, `ready` its connection ready (0: it was),
   * `setup`: { connecting, tls } ms if this request opened the connection, else null; `sent`,
   * `first`, `end`: its write, first byte and last (performance.now()).
   */
  completed(entry, status, start, setup, ready, sent, first, end) {
    const out = this.out;
    const m = LOAD_METRICS;
    const tags = this.tagsOf(entry, status);
    const from = ready > start ? ready : start;
    const sending = sent > from ? sent - from : 0;
    const waiting = first - (sent > from ? sent : from);
    const receiving = end - first;
    out.sample(m.reqs, 1, tags);
    out.sample(m.duration, sending + waiting + receiving, tags);
    out.sample(m.blocked, setup === null ? 0 : setup.connecting + setup.tls, tags);
    out.sample(m.connecting, setup === null ? 0 : setup.connecting, tags);
    out.sample(m.tls, setup === null ? 0 : setup.tls, tags);
    out.sample(m.sending, sending, tags);
    out.sample(m.waiting, waiting, tags);
    out.sample(m.receiving, receiving, tags);
    out.sample(m.failed, status >= 200 && status < 400 ? 0 : 1, tags);
  }

  /** A request that got no response, after `elapsed` ms, for `reason`. */
  failed(entry, reason, elapsed) {
    let tags = this.byReason[entry].get(reason);
    if (tags === undefined) {
      tags = { ...this.base[entry], status: '0', expected_response: 'false', error: reason };
      if (this.byReason[entry].size < 256) this.byReason[entry].set(reason, tags);
    }
    this.out.sample(LOAD_METRICS.reqs, 1, tags);
    this.out.sample(LOAD_METRICS.duration, elapsed, tags);
    this.out.sample(LOAD_METRICS.failed, 1, tags);
  }

  /** Each second: the connections open, and the run's. */
  second(open, max) {
    this.out.sample(LOAD_METRICS.vus, open, this.secondTags);
    this.out.sample(LOAD_METRICS.vusMax, max, this.secondTags);
  }
}
