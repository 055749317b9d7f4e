// The script on stdin (`cat script.js | loadtest run -`, as `k6 run -`): read to its end, as the
// runtime's stream gives it (node, bun and deno alike; a pipe that is slow to fill is waited for).

import process from 'node:process';
import { Buffer } from 'node:buffer';
import { Parser } from 'acorn';

export async function readStdin() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8');
}

// k6 reads a script on stdin as TypeScript when it does not parse as JavaScript (a script in
// JavaScript is never stripped, so that an import it names but does not use still runs).
export function parsesAsJavaScript(source) {
  try {
    Parser.parse(source, { ecmaVersion: 'latest', sourceType: 'module', allowHashBang: true, allowReturnOutsideFunction: true });
    return true;
  } catch {
    return false;
  }
}
