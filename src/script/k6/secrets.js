// k6/secrets: `await secrets.get(key)` from the default source, `secrets.source(name).get(key)`
// from a named one (--secret-source: src/script/secrets/secrets.js). As k6 v2.2: a lookup is a promise,
// rejected with a Go error in k6's words (no value, no source of that name, no source at all);
// a key or name that is null or undefined is '' (sobek's string of them), anything else its
// String(); only the default export (k6 exports no names).

import { hostError } from './host-error.js';

export function secretsModule(vu) {
  const secrets = vu.shared.secrets;
  const text = (v) => (v === null || v === undefined ? '' : String(v));
  const source = (name) => ({
    get(key) {
      const k = text(key);
      return new Promise((resolve, reject) => {
        const fail = (err) => reject(hostError(err.message));
        try {
          const value = secrets.get(name, k);
          // A url source's secret comes later (src/script/secrets/url-source.js).
          if (value instanceof Promise) value.then(resolve, fail);
          else resolve(value);
        } catch (err) {
          fail(err);
        }
      });
    },
  });
  const api = source('default');
  api.source = (name) => source(text(name));
  return { default: api };
}
