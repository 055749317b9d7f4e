// An InfluxDB for the benches (test/influxdb-server.js's), pinned by whoever starts this: prints its
// URL on the first line, then holds it until stdin closes or the process is signalled.
import { startInflux } from '../test/influxdb-server.js';

const db = await startInflux();
process.stdout.write(`${db.url}\n`);
const stop = () => db.stop().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.stdin.on('end', stop);
process.stdin.resume();
