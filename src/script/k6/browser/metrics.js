// k6/browser's samples of the requests its pages make, as k6's NetworkManager emits them: each
// response's browser_http_req_duration (from the request's start to the response's end),
// browser_data_received (its body's bytes) and browser_http_req_failed (a status of 400 or
// more), and each request's browser_data_sent, tagged with the VU's tags and the request's
// method, url and name (the URL), status, resource_type and the caches' flags.

export const browserMetrics = [
  ['browser_http_req_duration', 'trend', true],
  ['browser_http_req_failed', 'rate', false],
  ['browser_data_received', 'counter', false],
  ['browser_data_sent', 'counter', false],
  ['browser_web_vital_cls', 'trend', false],
  ['browser_web_vital_fcp', 'trend', true],
  ['browser_web_vital_inp', 'trend', true],
  ['browser_web_vital_lcp', 'trend', true],
  ['browser_web_vital_ttfb', 'trend', true],
];

// What k6 injects beside the web-vitals library: each report to its binding, as JSON.
// What k6 injects beside the web-vitals library: each report to its binding, as JSON. LCP is
// told at each new candidate (its final value comes when the page is hidden or touched, which a
// page closed by a script here may never be): the last of a page load's is its sample.
const REPORT = `(() => { const print = (m) => window.k6browserSendWebVitalMetric(JSON.stringify({ id: m.id, name: m.name, value: m.value, rating: m.rating, url: window.location.href }));
  webVitals.onCLS(print); webVitals.onLCP(print, { reportAllChanges: true }); webVitals.onFCP(print); webVitals.onINP(print); webVitals.onTTFB(print); })();`;

// What a page's web-vitals report when it is hidden (CLS, INP): told before the page closes, a
// few ms for the reports to come back through the binding.
export const HIDE = () => {
  Object.defineProperty(document, 'visibilityState', { value: 'hidden', configurable: true });
  document.dispatchEvent(new Event('visibilitychange'));
  return new Promise((resolve) => setTimeout(resolve, 20));
};

/**
 * The Web Vitals of `context`'s pages (the web-vitals library, `library`: its browser build), as
 * k6's browser_web_vital_* samples: the VU's tags, the page's url and name, the rating. Returns
 * settle(page): the page's last LCP of each load, told (a page's next load, its close, its
 * context's close call it).
 */
export async function watchWebVitals(context, vu, library) {
  const registry = vu.shared.registry;
  const lcp = new Map(); // page → Map(metric id → its last report)
  const add = (m) => {
    const def = browserMetrics.find((x) => x[0] === `browser_web_vital_${String(m.name).toLowerCase()}`);
    // As k6: its url and name where url is a system tag of the run.
    const tags = { ...vu.currentTags() };
    if (vu.shared.systemTags.url) Object.assign(tags, { url: m.url, name: m.url });
    tags.rating = m.rating;
    registry.add(registry.get(...def), m.value, tags);
  };
  const settle = (page) => {
    const pending = lcp.get(page);
    if (pending === undefined) return;
    lcp.delete(page);
    for (const m of pending.values()) add(m);
  };
  await context.exposeBinding('k6browserSendWebVitalMetric', (source, json) => {
    let m;
    try {
      m = JSON.parse(json);
    } catch {
      return;
    }
    const known = browserMetrics.some((x) => x[0] === `browser_web_vital_${String(m.name).toLowerCase()}`);
    // A page of the script's own (setContent: about:blank) has no vitals in k6's; an iframe's
    // srcdoc has.
    if (!known || typeof m.value !== 'number' || m.url === 'about:blank') return;
    if (m.name === 'LCP') {
      // An iframe's srcdoc is never hidden in k6's browser, where LCP is told: none.
      if (!/^https?:/.test(String(m.url))) return;
      if (!lcp.has(source.page)) lcp.set(source.page, new Map());
      lcp.get(source.page).set(m.id, m);
      return;
    }
    // A new load's first report: the last load's LCP is final.
    if (m.name === 'TTFB') settle(source.page);
    add(m);
  });
  await context.addInitScript({ content: `${library}\n${REPORT}` });
  context.on('close', () => {
    for (const page of [...lcp.keys()]) settle(page);
  });
  return settle;
}

/** Emits the samples of the requests of `context`'s pages, as they end, for `vu`. */
export function watchRequests(context, vu) {
  const registry = vu.shared.registry;
  const metric = (name) => registry.get(name, ...browserMetrics.find((m) => m[0] === name).slice(1));
  const ended = async (request, failed) => {
    const url = request.url();
    // A data: URL is no request on the wire (k6 skips them too).
    if (url.startsWith('data:')) return;
    // Of k6's system tags, the run's: method, then url (and name, as k6's browser gives it).
    const st = vu.shared.systemTags;
    const tags = { ...vu.currentTags() };
    if (st.method) tags.method = request.method();
    if (st.url) Object.assign(tags, { url, name: url });
    tags.resource_type = request.resourceType();
    let sizes = null;
    try {
      sizes = await request.sizes();
    } catch {}
    if (sizes !== null) registry.add(metric('browser_data_sent'), sizes.requestHeadersSize + sizes.requestBodySize, tags);
    if (failed) return;
    const response = await request.response().catch(() => null);
    if (response === null) return;
    const timing = request.timing();
    const status = response.status();
    const responseTags = { ...tags };
    if (st.ip) {
      const addr = await response.serverAddr().catch(() => null);
      if (addr) responseTags.ip = addr.ipAddress;
    }
    if (st.status) responseTags.status = String(status);
    Object.assign(responseTags, { from_cache: 'false', from_prefetch_cache: 'false', from_service_worker: String(response.fromServiceWorker()) });
    const duration = timing.responseEnd >= 0 ? timing.responseEnd : 0;
    registry.add(metric('browser_http_req_duration'), duration, responseTags);
    if (sizes !== null) registry.add(metric('browser_data_received'), sizes.responseBodySize, responseTags);
    registry.add(metric('browser_http_req_failed'), status >= 400 ? 1 : 0, responseTags);
  };
  context.on('requestfinished', (request) => ended(request, false));
  context.on('requestfailed', (request) => ended(request, true));
}
