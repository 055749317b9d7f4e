// The libraries k6/html stands on, as one set of bindings for its modules: htmlparser2 (a
// forgiving HTML parser), css-select (CSS selectors) and domutils.

// Loaded before the run when a script may use them (wantHTML(), loadHTML()): they cost a run's
// start some 0.15 s of CPU, which most scripts, never parsing HTML, need not pay.
export let parseDocument, selectAll, matches, textContent, getChildren, getParent, findAll;
let wanted = false;

/** What k6/html says when a script parses HTML that no module of it named. */
export const NOT_LOADED = 'parseHTML: the HTML parser was not loaded (no module of the script names html, clickLink or submitForm)';

/** A script's module names html(), clickLink() or submitForm(), or imports k6/html (src/script/transform/transform.js). */
export function wantHTML() {
  wanted = true;
}

/** Loads the libraries if a script may use them. */
export async function loadHTML() {
  if (!wanted || parseDocument !== undefined) return;
  const [h, c, d] = await Promise.all([import('htmlparser2'), import('css-select'), import('domutils')]);
  ({ textContent, getChildren, getParent, findAll } = d);
  // goquery matches nothing with a selector it cannot read, where css-select throws.
  selectAll = quiet(c.selectAll, []);
  matches = quiet(c.is, false);
  parseDocument = h.parseDocument;
}

const quiet = (f, none) => (...args) => {
  try {
    return f(...args);
  } catch {
    return none;
  }
};
