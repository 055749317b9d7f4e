// http.batch in its three shapes: a list of URLs, an object of named requests, and a list of
// [method, url, body, params] tuples. Two VUs share four iterations.
import http from 'k6/http';
import { check } from 'k6';

export const options = { vus: 2, iterations: 4 };

const BASE = __ENV.BASE;

export default function () {
  const pages = http.batch([`${BASE}/get?page=1`, `${BASE}/get?page=2`, `${BASE}/status/404`]);
  check(pages, {
    'three responses': (r) => r.length === 3,
    'in the order asked': (r) => r[0].json('args.page') === '1' && r[1].json('args.page') === '2',
    'the missing one is a 404': (r) => r[2].status === 404,
  });

  const named = http.batch({
    ip: `${BASE}/ip`,
    agent: { method: 'GET', url: `${BASE}/user-agent` },
    form: { method: 'POST', url: `${BASE}/post`, body: { colour: 'teal' }, params: { tags: { part: 'form' } } },
  });
  check(named, {
    'keys kept': (r) => Object.keys(r).sort().join(',') === 'agent,form,ip',
    'ip answered': (r) => r.ip.json('origin') === '127.0.0.1',
    'form posted': (r) => r.form.json('form.colour') === 'teal',
  });

  const tuples = http.batch([
    ['PUT', `${BASE}/put`, JSON.stringify({ n: 1 }), { headers: { 'Content-Type': 'application/json' } }],
    ['DELETE', `${BASE}/delete`],
    ['GET', `${BASE}/headers`, null, { headers: { 'X-Batch': 'yes' } }],
  ]);
  check(tuples, {
    'put body echoed': (r) => r[0].json('json.n') === 1,
    'delete answered': (r) => r[1].status === 200,
    'header sent': (r) => r[2].json('headers.X-Batch') === 'yes',
  });
}
