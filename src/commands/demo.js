// `npm start`: a short load test against the built-in test server, to see loadtest work.

import { loadTest, startServer } from '../index.js';
import { wantsColor } from '../../runtimes/index.js';

const server = await startServer({ port: 0, host: '127.0.0.1', quiet: true });
try {
  const result = await loadTest({ url: `http://127.0.0.1:${server.port}/`, maxSeconds: 3, concurrency: 10, agentKeepAlive: true });
  result.show(wantsColor());
  console.log(`\nThe test server counted ${server.requests} requests.`);
} finally {
  await server.close();
}
