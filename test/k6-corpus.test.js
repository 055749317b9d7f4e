// loadtest run beside k6 itself: every script of test/k6-corpus/ runs with `loadtest run` on this
// runtime against test/httpbin.js, and must give what k6 v2.2.0 gave on the same script
// (test/k6-corpus/expected.json, written by test/k6-corpus/record.js): the exit code, the
// requests the server received, the summary export's figures that do not depend on timing, and
// the lines of the end-of-test summary (compact or full) but for timing.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startScript } from './servers.js';
import { startHttpbin } from './httpbin.js';
import { figuresOf, consoleLines, corpusScripts, summaryLines, summaryModeOf } from './k6-corpus/record.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));
const CORPUS = fileURLToPath(new URL('./k6-corpus/', import.meta.url));
const { scripts } = JSON.parse(readFileSync(join(CORPUS, 'expected.json'), 'utf8'));

// k6 runs the init code once more for each instance it makes beside the VUs (for the options,
// for setup and teardown, for handleSummary): what the init code logs (a message beginning
// with 'init') is compared once.
const initOnce = (lines) => lines.filter(([, m], i) => !m.startsWith('init') || lines.findIndex(([, x]) => x === m) === i);

for (const [script, k6] of Object.entries(scripts)) {
  test(`${script} gives what k6 gave`, async () => {
    const server = await startHttpbin(0);
    const dir = mkdtempSync(join(tmpdir(), 'loadtest-k6-corpus-'));
    try {
      const exportFile = join(dir, 'summary.json');
      const { child, done } = startScript(CLI, ['run', '-q', '--summary-mode', summaryModeOf(script), '-e', `BASE=${server.url}`, '--summary-export', exportFile, join(CORPUS, script)], { timeoutMs: 50000 });
      const r = await done;
      const output = `exit ${r.code}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`;
      let summary;
      try {
        summary = JSON.parse(readFileSync(exportFile, 'utf8'));
      } catch {
        assert.fail(`no summary export\n${output}`);
      }
      const counts = Object.fromEntries([...server.counts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
      const ours = { exitCode: r.code, counts, ...figuresOf(summary), summary: summaryLines(r.stdout) };
      for (const figure of Object.keys(k6)) {
        if (figure === 'console') continue;
        assert.deepEqual(ours[figure], k6[figure], `${script}: ${figure} differs from k6's\n${output}`);
      }
      // What the script logged: k6's log lines on stderr, level and message.
      assert.deepEqual(initOnce(consoleLines(r.stderr)), initOnce(k6.console || []), `${script}: console lines differ from k6's\n${output}`);
      // The transformed script beside the original is gone once the run is.
      assert.deepEqual(readdirSync(CORPUS).filter((f) => f.includes(`.loadtest-${child.pid}-`)), []);
    } finally {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

test('every script of the corpus has what k6 gave recorded', () => {
  assert.deepEqual(corpusScripts(), Object.keys(scripts).sort());
});
