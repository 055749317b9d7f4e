// An error as k6's Go code hands one to a script (sobek's wrapper of a Go error value, as
// k6/secrets rejects with): not an Error, no `message`; its text is String(e) (or e.error()),
// and console.log(e) prints that text, where any other object is printed as JSON.

const made = new WeakSet();

export function hostError(message) {
  const e = { error: () => message };
  Object.defineProperty(e, 'toString', { value: () => message });
  made.add(e);
  return e;
}

export const isHostError = (v) => made.has(v);

/** An error a Go function of k6's throws into the script (common.Throw): String(e) 'GoError: ...'. */
export function thrownGoError(message) {
  const e = new Error(message);
  e.name = 'GoError';
  return e;
}
