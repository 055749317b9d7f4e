// How a script's exception reads in a log line.

import { scriptColumn, evalFrame } from '../transform/columns.js';

// A frame in a transformed file: `at f (FILE:L:C)`, or `at FILE:L:C` in a function without a
// name (a group's callback).
const FILE_FRAME = /(?:\(|at )(?:file:\/\/)?[^()\s]*?(\.([^/()\s]+)\.loadtest-\d+-\d+\.mjs):(\d+):(\d+)/;

// An exception as k6 logs it: its message, with where it was thrown in the script when known.
export function messageOf(err) {
  if (!(err instanceof Error)) return String(err);
  // A runtime's own message may name the transformed file beside the script's: the script's name.
  const message = err.message.replace(/([/\\])\.([^/\\\s'"]+)\.loadtest-\d+-\d+\.mjs/g, '$1$2');
  // The innermost frame in the script: in one of its files, or in code it gave eval()
  // (a webpack bundle's modules, named by their sourceURL).
  for (const line of (err.stack || '').split('\n')) {
    const at = FILE_FRAME.exec(line);
    if (at) return `${message} at ${at[2]}:${at[3]}:${scriptColumn(at[1], Number(at[3]), Number(at[4]))}`;
    const inEval = evalFrame(line);
    if (inEval !== null) return `${message} at ${inEval}`;
  }
  return message;
}
