// An option of the wrong type stops the run before it starts, as k6 v2.2.0 stops it (exit 104),
// with Go's words for it: k6 reads a script's options with encoding/json into null.Int, null.Bool,
// null.String, durations, lists and maps. Each line below is k6 v2.2.0's for the same options
// (after its "could not load JS test" preamble), with the option named first.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkOptionTypes } from '../src/script/scenarios/option-types.js';
import { rawServer, spawnScript, ok } from './servers.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));

const REFUSED = [
  [{ vus: 'abc' }, 'options.vus: strconv.ParseInt: parsing "abc": invalid syntax'],
  [{ vus: ' 5' }, 'options.vus: strconv.ParseInt: parsing " 5": invalid syntax'],
  [{ vus: '0x10' }, 'options.vus: strconv.ParseInt: parsing "0x10": invalid syntax'],
  [{ vus: '99999999999999999999' }, 'options.vus: strconv.ParseInt: parsing "99999999999999999999": value out of range'],
  [{ vus: 2.5 }, 'options.vus: json: cannot unmarshal number 2.5 into Go struct field Options.vus of type int64'],
  [{ iterations: 1.5 }, 'options.iterations: json: cannot unmarshal number 1.5 into Go struct field Options.iterations of type int64'],
  [{ vus: true }, 'options.vus: json: cannot unmarshal bool into Go value of type null.Int'],
  [{ maxRedirects: 'x' }, 'options.maxRedirects: strconv.ParseInt: parsing "x": invalid syntax'],
  [{ noConnectionReuse: 'yes' }, 'options.noConnectionReuse: json: cannot unmarshal string into Go value of type null.Bool'],
  [{ insecureSkipTLSVerify: 1 }, 'options.insecureSkipTLSVerify: json: cannot unmarshal float64 into Go value of type null.Bool'],
  [{ throw: 0 }, 'options.throw: json: cannot unmarshal float64 into Go value of type null.Bool'],
  [{ userAgent: 5 }, 'options.userAgent: json: cannot unmarshal float64 into Go value of type null.String'],
  [{ httpDebug: true }, 'options.httpDebug: json: cannot unmarshal bool into Go value of type null.String'],
  [{ duration: true }, "options.duration: 'true' is not a valid duration value"],
  [{ duration: {} }, "options.duration: '{}' is not a valid duration value"],
  [{ tags: { a: 1 } }, 'options.tags: json: cannot unmarshal number into Go struct field Options.tags of type string'],
  [{ tags: ['a'] }, 'options.tags: json: cannot unmarshal array into Go struct field Options.tags of type map[string]string'],
  [{ hosts: [] }, 'options.hosts: json: cannot unmarshal array into Go struct field Options.hosts of type map[string]string'],
  [{ summaryTrendStats: 'avg' }, 'options.summaryTrendStats: json: cannot unmarshal string into Go struct field Options.summaryTrendStats of type []string'],
  [{ summaryTrendStats: [1] }, 'options.summaryTrendStats: json: cannot unmarshal number into Go struct field Options.summaryTrendStats of type string'],
  [{ blockHostnames: 'a' }, 'options.blockHostnames: json: cannot unmarshal string into Go struct field Options.blockHostnames of type []string'],
  [{ stages: 'x' }, 'options.stages: json: cannot unmarshal string into Go struct field Options.stages of type []lib.Stage'],
  [{ stages: [{ duration: '1s', target: 'x' }] }, 'options.stages: strconv.ParseInt: parsing "x": invalid syntax'],
  [{ thresholds: { http_reqs: 'count>0' } }, 'options.thresholds: json: cannot unmarshal string into Go struct field Options.thresholds of type []metrics.thresholdConfig'],
  [{ thresholds: { http_reqs: 5 } }, 'options.thresholds: json: cannot unmarshal number into Go struct field Options.thresholds of type []metrics.thresholdConfig'],
  [{ scenarios: { a: { executor: 'constant-vus', vus: 2.5, duration: '1s' } } }, 'options.scenarios.a.vus: json: cannot unmarshal number 2.5 into Go struct field Options.scenarios.vus of type int64'],
  [{ scenarios: { a: { executor: 'constant-vus', vus: 'x', duration: '1s' } } }, 'options.scenarios.a.vus: strconv.ParseInt: parsing "x": invalid syntax'],
];

// What k6 v2.2.0 takes (and then reads as it would the right type).
const TAKEN = [{ vus: '5', duration: '1s' }, { vus: 1e2 }, { vus: null }, { vus: {} }, { duration: 5 }, { setupTimeout: 5 }, { batch: '3' }, { userAgent: {} }, { noSetup: {} }, { iterations: '2' }, { tags: { a: 'b' } }, { thresholds: { http_reqs: ['count>0'] } }];

test('each option of a type k6 refuses is refused in Go\'s words, with its name', () => {
  for (const [options, line] of REFUSED) assert.throws(() => checkOptionTypes(options), { message: line }, JSON.stringify(options));
  for (const options of TAKEN) assert.doesNotThrow(() => checkOptionTypes(options), JSON.stringify(options));
});

test('vus: \'abc\' stops the run before it starts: one line, exit 104, no request (it ran with a warning)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-option-types-'));
  const server = await rawServer(({ socket }) => socket.write(ok()));
  try {
    const path = join(dir, 'test.js');
    writeFileSync(path, `import http from 'k6/http';\nexport const options = { vus: 'abc' };\nexport default function () { http.get(__ENV.BASE); }\n`);
    const r = await spawnScript(CLI, ['run', '-q', '-e', `BASE=${server.url}`, path], { timeoutMs: 60000 });
    assert.equal(r.code, 104, r.stderr);
    assert.equal(r.stderr, 'loadtest run: options.vus: strconv.ParseInt: parsing "abc": invalid syntax\n');
    assert.equal(server.requests, 0);
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
