// One process of a test server on several cores (see testserver-cores.js for the protocol).

import { Buffer } from 'node:buffer';
import { startServer } from './server.js';
import { onStdinLine, writeLine, onInterrupt, exit } from '../index.js';

const REPORT_MS = 250;

let server = null;
let timer = null;
let reported = '';

function report() {
  const line = `count ${server.requests} ${server.errors}`;
  if (line !== reported) writeLine(line);
  reported = line;
}

async function stop() {
  clearInterval(timer);
  if (server) {
    await server.close();
    report();
  }
  writeLine('stopped', () => exit(0));
}

onStdinLine(async (line) => {
  if (line.startsWith('serve ')) {
    const options = JSON.parse(line.slice(6));
    if (options.body && options.body.base64) options.body = new Uint8Array(Buffer.from(options.body.base64, 'base64'));
    try {
      server = await startServer(options);
    } catch (err) {
      const reason = err.message.replace(/^could not start test server( on port \d+)?: /, '');
      return writeLine(`fail ${err.code || '-'} ${reason}`, () => exit(2));
    }
    writeLine(`listening ${server.port}`);
    timer = setInterval(report, REPORT_MS);
  } else if (line === 'stop') {
    await stop();
  }
}, () => exit(3)); // the parent is gone: a server of its must not go on alone

// Ctrl-C in a terminal reaches the whole process group: the parent stops the children, after
// collecting their counts.
onInterrupt(() => {});
