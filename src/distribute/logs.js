// A shard's result in what its task printed: the one line of JSON its --json (a load run) or
// --result /dev/stdout (a script) wrote, among whatever else the log holds (warnings on stderr).

/** The result document in `text`, or null. `isResult(doc)`: the kind wanted. */
export function resultIn(text, isResult) {
  const lines = text.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i].trim();
    if (!line.startsWith('{')) continue;
    try {
      const doc = JSON.parse(line);
      if (isResult(doc)) return doc;
    } catch {
      // Not the result: a line of the script's own, say.
    }
  }
  return null;
}

/** The last few lines of a log, to name why a shard failed. */
export function tailOf(text, n = 3) {
  const lines = text.split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('{"'));
  return lines.slice(-n).join(' | ');
}
