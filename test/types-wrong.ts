// Must not compile: test/types.test.js checks that tsc rejects it, naming each mistake.
import { loadTest } from 'loadtest';

const result = await loadTest({ url: 'http://127.0.0.1:7357/', maxRequests: 'many' });
// Only the JSON document (result.toJSON()) has the histogram.
console.log(result.latencyHistogram.count);
