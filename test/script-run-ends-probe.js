// test/script-run-ends.test.js's child: runs the script named by its argument with runScript, in
// its own process as the API runs it, and says 'done'. It never calls exit(): it ends when
// nothing is left for its event loop.
import { argv } from '../runtimes/index.js';
import { loadScript } from '../runtimes/scripts/load.js';
import { facilitiesOf } from '../runtimes/scripts/host.js';
import { transformModule } from '../src/script/transform/transform.js';
import { runScript } from '../src/script/runner.js';

const [script] = argv();
const loaded = await loadScript(script, transformModule);
const result = await runScript(loaded.factory, { flags: { quiet: true }, facilities: facilitiesOf(script), hooks: {} });
loaded.cleanup();
console.log(result.data.metrics.iterations.values.count >= 8 ? 'done' : 'too few iterations');
