// Columns of a transformed module back to the script's. The transform keeps every line on its
// line (src/script/transform/transform.js) but writes text into lines (`(t = call, W(t) ? yield t : t)`),
// so an exception's column in the transformed file is not the script's: each transformed module
// registers, when it is evaluated, where the script's text went on each line it changed, and
// messageOf (src/script/vu/messages.js) reads its frame's column back through it.

const REGISTRY = Symbol.for('loadtest.columns');

/**
 * The map of a transformed module: { line: [[column out, column in, length], ...] } (0-based
 * columns, 1-based lines) for the lines where the script's text moved. `prefix`: the text put
 * before the edited source on line 1; `spans`: Edits' [offset out, offset in, length].
 */
export function columnMap(source, output, prefix, spans) {
  const lineStarts = (text) => {
    const starts = [0];
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
    return starts;
  };
  const inStarts = lineStarts(source);
  const outStarts = lineStarts(output);
  const lineOf = (starts, offset) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  const map = {};
  const moved = new Set();
  for (const [out, from, length] of spans) {
    // A span may cross lines: its lines after the first start at column 0 on both sides.
    let line = lineOf(inStarts, from);
    const outCol = out - outStarts[lineOf(outStarts, out)] + (line === 0 ? prefix.length : 0);
    const inCol = from - inStarts[line];
    const end = from + length;
    (map[line + 1] ??= []).push([outCol, inCol, Math.min(end, inStarts[line + 1] ?? Infinity) - from]);
    if (outCol !== inCol) moved.add(line + 1);
    for (line++; line < inStarts.length && inStarts[line] < end; line++) {
      (map[line + 1] ??= []).push([0, 0, Math.min(end, inStarts[line + 1] ?? Infinity) - inStarts[line]]);
    }
  }
  const kept = {};
  for (const line of moved) kept[line] = map[line];
  return kept;
}

/** What a transformed module runs first: its map, for messageOf (`name`: its file's name). */
export function registration(map) {
  if (Object.keys(map).length === 0) return '';
  return `(globalThis[Symbol.for('loadtest.columns')] ??= new Map()).set(import.meta.url.slice(import.meta.url.lastIndexOf('/') + 1), ${JSON.stringify(map)});`;
}

/** The script's column (1-based) of a 1-based `column` on `line` of the transformed file `file`. */
export function scriptColumn(file, line, column) {
  const maps = globalThis[REGISTRY];
  return columnIn(maps && maps.get(file) && maps.get(file)[line], column);
}

// The script's column of a 1-based `column` of a line whose spans are `spans` (none: unmoved).
function columnIn(spans, column) {
  if (!spans) return column;
  const c = column - 1;
  let best = null;
  for (const s of spans) {
    if (s[0] <= c && c < s[0] + s[2]) return s[1] + (c - s[0]) + 1;
    // In text the transform wrote: the script's text that follows it.
    if (s[0] > c && (best === null || s[0] < best[0])) best = s;
  }
  return best ? best[1] + 1 : column;
}

// The code of a module's eval()s (src/script/transform/eval-bundle.js): its maps by the name its
// frames have (its sourceURL), registered by the module when it is evaluated.
const EVALS = Symbol.for('loadtest.evals');

/** The statement that registers `maps` ({ name: map }), or ''. */
export function evalRegistration(maps) {
  if (Object.keys(maps).length === 0) return '';
  return `Object.entries(${JSON.stringify(maps)}).forEach(([n, m]) => (globalThis[Symbol.for('loadtest.evals')] ??= new Map()).set(n, m));\n`;
}

// A frame's place: node's and bun's `(NAME:L:C)` or `at NAME:L:C`, deno's `(NAME, <anonymous>:L:C)`.
const FRAME = /(?:\(|at )(\S+?)(?:, <anonymous>)?:(\d+):(\d+)\)?$/;

/** Where a line of a stack is in eval'd code of the script: 'name:line:column' (its trailing `?`, webpack's, left out), or null. */
export function evalFrame(stackLine) {
  const maps = globalThis[EVALS];
  const m = maps && FRAME.exec(stackLine);
  if (!m || !maps.has(m[1])) return null;
  const line = Number(m[2]);
  return `${m[1].replace(/\?$/, '')}:${line}:${columnIn(maps.get(m[1])[line], Number(m[3]))}`;
}
