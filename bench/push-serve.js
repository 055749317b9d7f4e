// The databases of bench/push-cost.sh, pinned by whoever starts this: a real InfluxDB and a real
// Prometheus (test/influxdb-server.js, test/prometheus-server.js) and the tests' OTLP receiver
// (test/otlp-receiver.js, its lines dropped). Prints one line of JSON, { influx, prometheus,
// otlpGrpc, otlpHttp }, then holds them until stdin closes or the process is signalled.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { startInflux } from '../test/influxdb-server.js';
import { startPrometheus } from '../test/prometheus-server.js';

const influx = await startInflux();
const prometheus = await startPrometheus();
const receiver = spawn('node', [new URL('../test/otlp-receiver.js', import.meta.url).pathname], { stdio: ['pipe', 'pipe', 'inherit'] });
const ports = await new Promise((resolve) => createInterface({ input: receiver.stdout }).once('line', (line) => resolve(JSON.parse(line))));
receiver.stdout.resume();
process.stdout.write(`${JSON.stringify({ influx: influx.url, prometheus: prometheus.url, otlpGrpc: `127.0.0.1:${ports.grpc}`, otlpHttp: `127.0.0.1:${ports.http}` })}\n`);
const stop = async () => {
  receiver.stdin.end();
  await Promise.all([influx.stop(), prometheus.stop()]);
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.stdin.on('end', stop);
process.stdin.resume();
