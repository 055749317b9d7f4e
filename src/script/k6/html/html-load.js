// k6/html itself (html.js and the dozen modules of its elements, an eighth of a scripted run's
// modules) is loaded with its libraries, when a script may use them (html-lib.js): what k6/http's
// res.html() and a VU's module('k6/html') take of it is bound here then.

import { loadHTML as loadLibraries, parseDocument, NOT_LOADED } from './html-lib.js';

export let pageAt = () => {
  throw new Error(NOT_LOADED);
};
export let htmlModule = null;

/** Loads k6/html and its libraries if a script may use them (html-lib.js's wantHTML()). */
export async function loadHTML() {
  await loadLibraries();
  if (parseDocument !== undefined && htmlModule === null) ({ pageAt, htmlModule } = await import('./html.js'));
}
