// src/script/k6/browser/: k6/browser on playwright-core and a real Chromium (the runtime's:
// runtimes/scripts/browser.js). One Chromium a process, launched at a VU's first use and shared
// by the VUs: each has its own browser context, which is what isolates them, where k6 launches a
// browser a VU and an iteration. As in k6, a VU has one context at a time (browser.newPage()
// makes one), and what it opened is closed at its iteration's end. The objects are Playwright's
// behind k6's names (wrap.js); the requests the pages make are k6's browser_* samples (metrics.js).

import { wrap, wrapped } from './wrap.js';
import { watchRequests, watchWebVitals, browserMetrics, HIDE } from './metrics.js';
import { parseDuration } from '../../scenarios/duration.js';

const NO_CONTEXT = 'existing browser context must be closed before creating a new one';

// k6 rejects with its Go error, whose text is its message (String(e) has no 'Error: ' before it).
class BrowserError extends Error {
  toString() {
    return this.message;
  }
}

/** k6's K6_BROWSER_* settings (`env(name)`), as its browser options read them. */
export function browserSettings(env) {
  const bool = (name, fallback) => {
    const v = env(name);
    if (v === undefined || v === '') return fallback;
    if (v !== 'true' && v !== 'false') throw new Error(`${name}: '${v}' is not true or false`);
    return v === 'true';
  };
  // K6_BROWSER_ARGS: "no-sandbox,window-size=800,600" → --no-sandbox --window-size=800,600.
  const args = (env('K6_BROWSER_ARGS') || '')
    .split(',')
    .map((a) => a.trim())
    .filter((a) => a !== '')
    .map((a) => (a.startsWith('--') ? a : `--${a}`));
  const timeout = env('K6_BROWSER_TIMEOUT');
  return {
    headless: bool('K6_BROWSER_HEADLESS', true),
    debug: bool('K6_BROWSER_DEBUG', false),
    args,
    executablePath: env('K6_BROWSER_EXECUTABLE_PATH') || null,
    wsURL: env('K6_BROWSER_WS_URL') || null,
    timeoutMs: timeout ? parseDuration(timeout, 'K6_BROWSER_TIMEOUT') : 30000,
  };
}

/** The run's one Chromium (`facilities.browser`), opened at the first ask and closed at the run's end. */
function sharedChromium(vu, facilities) {
  const shared = vu.shared;
  if (shared.chromium) return shared.chromium;
  const settings = browserSettings((name) => vu.env[name] ?? facilities.env?.[name]);
  const executablePath = settings.wsURL ? null : facilities.browser.findChromium(settings.executablePath);
  if (!settings.wsURL && executablePath === null) {
    throw new Error(settings.executablePath ? `K6_BROWSER_EXECUTABLE_PATH '${settings.executablePath}': no such file` : 'no Chromium found: install it (Debian: apt-get install chromium) or give its path in K6_BROWSER_EXECUTABLE_PATH');
  }
  // Opened, with what k6 answers at once of it (its version, its user agent).
  shared.chromium = facilities.browser.openChromium({ ...settings, executablePath }).then(async (browser) => {
    const context = await browser.newContext();
    const page = await context.newPage();
    shared.chromiumFacts = { version: browser.version(), userAgent: await page.evaluate(() => navigator.userAgent) };
    await context.close();
    return browser;
  });
  (shared.closers ??= []).push(async () => {
    const browser = await shared.chromium.catch(() => null);
    if (browser !== null) await browser.close().catch(() => {});
  });
  return shared.chromium;
}

export function browserModuleWith(facilities) {
  return function browserModule(vu) {
    for (const [name, type, isTime] of browserMetrics) vu.shared.registry.get(name, type, isTime);
    const state = { context: null, opened: [] };
    // What the VU opened goes at its iteration's end, as k6 closes its browser then.
    (vu.iterationEnds ??= []).push(async () => {
      const contexts = state.opened;
      state.opened = [];
      state.context = null;
      await Promise.all(contexts.map((c) => c.close().catch(() => {})));
    });
    const overridesOf = (target) => overrides(target, vu, state);
    const chromium = () => {
      if (!vu.scenario || vu.scenario.browser !== 'chromium') {
        throw new BrowserError('browser not found in registry. make sure to set browser type option in scenario definition in order to use the browser module');
      }
      return sharedChromium(vu, facilities);
    };
    const facts = () => {
      chromium();
      if (vu.shared.chromiumFacts === undefined) throw new BrowserError('the browser is not started yet: ask after the first newPage() or newContext()');
      return vu.shared.chromiumFacts;
    };
    const newContext = async (options) => {
      if (state.context !== null) throw new BrowserError(NO_CONTEXT);
      const b = await chromium();
      const context = await b.newContext(options ?? undefined);
      state.context = context;
      state.opened.push(context);
      watchRequests(context, vu);
      await watchWebVitals(context, vu, (facilities.webVitals ??= facilities.browser.webVitalsScript()));
      return context;
    };
    const browser = {
      async newContext(options) {
        return wrap(await newContext(options), overridesOf);
      },
      async newPage(options) {
        await chromium();
        let context;
        try {
          context = await newContext(options);
        } catch (err) {
          throw new BrowserError(`new page: ${err.message}`);
        }
        return wrap(await context.newPage(), overridesOf);
      },
      context() {
        return state.context === null ? null : wrap(state.context, overridesOf);
      },
      async closeContext() {
        if (state.context === null) throw new BrowserError('cannot close context: no active context');
        const c = state.context;
        state.context = null;
        await c.close();
      },
      isConnected() {
        return vu.shared.chromiumFacts !== undefined;
      },
      // k6 answers these at once: its browser is up from the iteration's start; here from the
      // VU's first page or context.
      version() {
        return facts().version;
      },
      userAgent() {
        return facts().userAgent;
      },
    };
    return { default: { browser }, browser, devices: facilities.browserDevices || {} };
  };
}

// Where k6's objects differ from Playwright's.
function overrides(target, vu, state) {
  if (target.constructor.name === 'BrowserContext') {
    return {
      close: async () => {
        if (state.context === target) state.context = null;
        await target.close();
      },
      browser: () => null,
    };
  }
  if (target.constructor.name === 'Page') {
    return {
      // k6 gives the page's context as its own object, with close() that frees the VU's slot.
      context: () => wrap(target.context(), (t) => overrides(t, vu, state)),
      // The page's last Web Vitals (LCP, CLS, INP come when it is hidden) before it goes.
      close: async (options) => {
        await target.evaluate(HIDE).catch(() => {});
        await target.close(options);
      },
      on: (event, handler) => {
        if (event === 'metric') throw new Error("page.on('metric') is not supported here yet");
        target.on(event, (arg) => handler(wrapped(arg, (t) => overrides(t, vu, state))));
      },
    };
  }
  return null;
}
