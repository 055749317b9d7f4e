// group, check, sleep and requests in an imported module; an async function; an exception.
import http from 'k6/http';
import { check, group, sleep } from 'k6';

export function visit(client, path) {
  return group(`visit ${path}`, () => {
    const res = client.get(path);
    check(res, { [`${path} is 200`]: (r) => r.status === 200 });
    sleep(0.01);
    return res.status;
  });
}

export async function later(base, path) {
  const res = await http.asyncRequest('GET', `${base}${path}`);
  return res.status;
}

export function boom(client) {
  const body = client.get('/anything/boom').json();
  return body.missing.field;
}
