// test/exit-output.test.js's child: a line of 1 MiB on stdout, then the runtime layer's exit().
import { exit } from '../runtimes/index.js';

console.log('x'.repeat(1 << 20));
exit(0);
