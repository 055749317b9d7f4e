// test/grpc-server.js (a real gRPC server, @grpc/grpc-js) for the tests that run against it:
// started by node whatever runtime the test is on.

import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const SERVER = fileURLToPath(new URL('./grpc-server.js', import.meta.url));

/** test/grpc-server.js on node: { port, counts() → its counts, close() }. */
export function grpcServer(args = []) {
  const child = spawn('node', [SERVER, ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  const waiting = [];
  lines.on('line', (line) => waiting.shift()?.(JSON.parse(line)));
  const next = () => new Promise((resolve) => waiting.push(resolve));
  const exited = new Promise((resolve) => child.on('exit', resolve));
  return next().then(({ port }) => ({
    port,
    counts() {
      const answer = next();
      child.stdin.write('counts\n');
      return answer;
    },
    close() {
      child.stdin.end();
      return exited;
    },
  }));
}
