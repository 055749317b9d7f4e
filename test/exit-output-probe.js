// test/exit-output.test.js's child: a line of 1 MiB on stdout, then the runtime layer's exit(),
// as the CLI (src/cli.js) sets its output up.
import { exit, writeStdioWhole } from '../runtimes/index.js';

writeStdioWhole();
console.log('x'.repeat(1 << 20));
exit(0);
