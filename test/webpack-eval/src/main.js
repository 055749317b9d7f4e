import { Client } from './client.js';
import { visit, later, boom } from './flows.js';
import { tally } from './tally.cjs';

export const options = { vus: 2, iterations: 4 };
const base = __ENV.BASE;

export default async function () {
  const client = new Client(base);
  if (__ENV.THROW) boom(client);
  const a = visit(client, '/get');
  const b = await later(base, '/status/201');
  const n = tally(base);
  console.log(`vu=${__VU} iter=${__ITER} visit=${a} later=${b} calls=${client.calls} tally=${n}`);
}
