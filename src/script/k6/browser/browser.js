// src/script/k6/browser/: k6/browser on playwright-core and a real Chromium (the runtime's:
// runtimes/scripts/browser.js). One Chromium a process, launched at a VU's first use and shared
// by the VUs: each has its own browser context, which is what isolates them, where k6 launches a
// browser a VU and an iteration. As in k6, a VU has one context at a time (browser.newPage()
// makes one), and what it opened is closed at its iteration's end. The objects are Playwright's
// behind k6's names (wrap.js); the requests the pages make are k6's browser_* samples (metrics.js).

import { wrap, wrapped, unwrap, kindOf } from './wrap.js';
import { watchRequests, watchWebVitals, browserMetrics, HIDE } from './metrics.js';
import { parseDuration } from '../../scenarios/duration.js';

const NO_CONTEXT = 'existing browser context must be closed before creating a new one';
// A context's settle(page) (metrics.js watchWebVitals): a page's last LCP told.
const settles = new WeakMap();

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
  // k6 logs its CDP messages; Playwright's are not ours to print.
  if (bool('K6_BROWSER_DEBUG', false)) throw new Error('K6_BROWSER_DEBUG is not supported here: leave it out');
  return {
    headless: bool('K6_BROWSER_HEADLESS', true),
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
    // k6's pages say Chrome, not HeadlessChrome, in their user agent.
    shared.chromiumFacts = { version: browser.version(), userAgent: (await page.evaluate(() => navigator.userAgent)).replace('HeadlessChrome', 'Chrome') };
    await context.close();
    return browser;
  });
  (shared.closers ??= []).push(async () => {
    const browser = await shared.chromium.catch(() => null);
    if (browser !== null) await browser.close().catch(() => {});
  });
  return shared.chromium;
}

/** A script whose scenarios ask for a browser, where there is none: said before the run. */
function checkChromium(vu, facilities) {
  const scenarios = Object.values(vu.shared.options?.scenarios || {});
  if (!scenarios.some((s) => s?.options?.browser?.type === 'chromium')) return;
  // A setting refused is said before the run too.
  const settings = browserSettings((name) => vu.env[name] ?? facilities.env?.[name]);
  if (settings.wsURL || facilities.browser.findChromium(settings.executablePath) !== null) return;
  throw new Error(settings.executablePath ? `K6_BROWSER_EXECUTABLE_PATH '${settings.executablePath}': no such file` : 'k6/browser: no Chromium found: install it (Debian: apt-get install chromium) or give its path in K6_BROWSER_EXECUTABLE_PATH');
}

export function browserModuleWith(facilities) {
  return function browserModule(vu) {
    // The first VU made once the options are known (VU 0's init reads them from the script).
    if (vu.shared.options?.scenarios && !vu.shared.chromiumChecked) {
      vu.shared.chromiumChecked = true;
      checkChromium(vu, facilities);
    }
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
      const context = await b.newContext({ userAgent: vu.shared.chromiumFacts.userAgent, ...(options ?? {}) });
      state.context = context;
      state.opened.push(context);
      watchRequests(context, vu);
      settles.set(context, await watchWebVitals(context, vu, (facilities.webVitals ??= facilities.browser.webVitalsScript())));
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
    state.browser = browser;
    return { default: { browser }, browser, devices: facilities.browserDevices || {} };
  };
}

async function tap(page, x, y) {
  const session = await page.context().newCDPSession(page);
  try {
    await session.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [{ x, y }] });
    await session.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
  } finally {
    await session.detach().catch(() => {});
  }
}

// k6's evaluate takes the function's arguments one by one (Playwright's, one): they go as one
// array, which a function made of the script's text spreads again, in the page.
function evaluating(target, name, overridesOf) {
  return (fn, ...args) => {
    if (args.length <= 1 || typeof fn !== 'function') return wrapped(target[name](fn, ...args.map(unwrap)), overridesOf);
    const spread = new Function('__k6args', `return (${fn.toString()})(...__k6args);`);
    return wrapped(target[name](spread, args.map(unwrap)), overridesOf);
  };
}

// k6's editable: an element neither disabled nor (an input, a textarea, a select) read-only;
// Playwright refuses the question of an element that is not a form control.
function editable(target) {
  return async (options) => {
    try {
      return await target.isEditable(options);
    } catch (err) {
      if (!/Element is not an <input>/.test(err.message)) throw err;
      return target.evaluate((e) => !e.disabled && !(['INPUT', 'TEXTAREA', 'SELECT'].includes(e.nodeName) && e.hasAttribute('readonly')));
    }
  };
}

// Where k6's objects differ from Playwright's.
function overrides(target, vu, state) {
  const kind = kindOf(target);
  const evaluates = ['Page', 'Frame', 'Locator', 'ElementHandle', 'JSHandle', 'Worker'].includes(kind);
  const overridesOf = (t) => overrides(t, vu, state);
  const own = evaluates ? { evaluate: evaluating(target, 'evaluate', overridesOf), evaluateHandle: evaluating(target, 'evaluateHandle', overridesOf) } : {};
  if (kind === 'Locator' || kind === 'ElementHandle') own.isEditable = editable(target);
  return { ...own, ...kindOverrides(kind, target, vu, state) };
}

function kindOverrides(kind, target, vu, state) {
  if (kind === 'BrowserContext') {
    return {
      close: async () => {
        if (state.context === target) state.context = null;
        await target.close();
      },
      browser: () => state.browser,
    };
  }
  if (kind === 'Page') {
    const handling = new Set(); // the promises of its event handlers under way
    return {
      // k6 gives the page's context as its own object, with close() that frees the VU's slot.
      context: () => wrap(target.context(), (t) => overrides(t, vu, state)),
      // The page's last Web Vitals (LCP, CLS, INP come when it is hidden) before it goes.
      close: async (options) => {
        await Promise.allSettled([...handling]);
        await target.evaluate(HIDE).catch(() => {});
        settles.get(target.context())?.(target);
        await target.close(options);
      },
      // k6 taps through Chromium's touch events, whether the context has touch or not (where
      // Playwright refuses).
      touchscreen: { tap: (x, y) => tap(target, x, y) },
      on: (event, handler) => {
        if (event === 'metric') throw new Error("page.on('metric') is not supported here yet");
        // k6 tells the console API's calls, not what Chromium logs of its own (a resource's 404).
        // A handler's promise is waited for before the page closes, as k6 runs its handlers
        // before the page's next step.
        const tell = (arg) => {
          const r = handler(wrapped(arg, (t) => overrides(t, vu, state)));
          if (r instanceof Promise) {
            handling.add(r);
            r.then(() => handling.delete(r), () => handling.delete(r));
          }
          return r;
        };
        target.on(event, event === 'console' ? (msg) => msg.args().length > 0 && tell(msg) : tell);
      },
    };
  }
  return null;
}
