// k6/browser's objects are Playwright's, as k6 models its API on Playwright's: a Page, Locator,
// ElementHandle, Frame, Request, Response... is the Playwright object behind a Proxy that gives
// the script what k6 gives (its own methods where k6's differ, in `overrides`) and wraps what
// each call returns in turn. A script's value handed back (an ElementHandle to evaluate, a
// Locator to filter by) is unwrapped on the way in.

const WRAPPED = Symbol('k6/browser: the Playwright object');

// The Playwright classes whose objects a script gets wrapped (by their constructors' names).
const CLASSES = new Set(['Page', 'Locator', 'FrameLocator', 'ElementHandle', 'JSHandle', 'Frame', 'Request', 'Response', 'BrowserContext', 'Keyboard', 'Mouse', 'Touchscreen', 'ConsoleMessage', 'Route', 'Worker']);

/** The Playwright object behind `value`, or `value`. */
export function unwrap(value) {
  if (value !== null && typeof value === 'object' && value[WRAPPED] !== undefined) return value[WRAPPED];
  if (Array.isArray(value)) return value.map(unwrap);
  return value;
}

/** A Playwright object's class, as its source names it (its bundle names them `_Page`, `Keyboard2`). */
export const kindOf = (v) => String(v?.constructor?.name ?? '').replace(/^_+/, '').replace(/\d+$/, '');

const isPlaywright = (v) => v !== null && typeof v === 'object' && CLASSES.has(kindOf(v));

/** What a call returned, wrapped where it is a Playwright object (or a list, or a promise, of them). */
export function wrapped(value, overridesOf) {
  if (value instanceof Promise) return value.then((v) => wrapped(v, overridesOf));
  if (Array.isArray(value)) return value.map((v) => wrapped(v, overridesOf));
  if (isPlaywright(value)) return wrap(value, overridesOf);
  return value;
}

const proxies = new WeakMap();

/**
 * The script's view of Playwright object `target`: `overridesOf(target)` gives the methods k6
 * has its own way (a { name: function } object, or null). The same object gets the same view.
 */
export function wrap(target, overridesOf) {
  let proxy = proxies.get(target);
  if (proxy !== undefined) return proxy;
  const own = overridesOf(target) || {};
  const methods = new Map();
  proxy = new Proxy(target, {
    get(t, name) {
      if (name === WRAPPED) return t;
      if (Object.hasOwn(own, name)) return own[name];
      const v = t[name];
      if (typeof v !== 'function') return wrapped(v, overridesOf);
      let m = methods.get(name);
      if (m === undefined) {
        m = (...args) => wrapped(v.apply(t, args.map(unwrap)), overridesOf);
        methods.set(name, m);
      }
      return m;
    },
  });
  proxies.set(target, proxy);
  return proxy;
}
