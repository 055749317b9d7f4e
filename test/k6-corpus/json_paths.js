// res.json(selector) with GJSON paths as scripts write them: keys and indexes, '#' counts and
// '#.key' lists, queries for the first match and for all (==, =, !=, <, >=, %, !%, ~true, a
// nested query), '|' after a list, wildcards, an escaped dot, and modifiers.
import http from 'k6/http';
import { check } from 'k6';

export const options = { iterations: 1 };

const DATA = {
  health: [
    { name: 'postgres', statusText: 'pass', ms: 12 },
    { name: 'redis', statusText: 'fail', ms: 3 },
    { name: 'queue', statusText: 'pass', ms: 40, tags: ['a', 'b'] },
  ],
  kinds: [{ id: 1, name: 'Book' }, { id: 2, name: 'Other' }],
  friends: [
    { first: 'Dale', age: 44, nets: ['ig', 'fb', 'tw'], active: true },
    { first: 'Roger', age: 68, nets: ['fb', 'tw'], active: false },
    { first: 'Jane', age: 47, nets: ['ig', 'tw'], active: 'true' },
  ],
  'fav.movie': 'Deer Hunter',
  nested: [[1, 2], [3, [4, 5]]],
  text: '{"inner":{"x":7}}',
};

export default function () {
  const r = http.post(`${__ENV.BASE}/anything`, JSON.stringify(DATA), { headers: { 'Content-Type': 'application/json' } });
  const j = (path) => JSON.stringify(r.json(`json.${path}`));
  const cases = {
    'health.1.name': '"redis"',
    'health.#': '3',
    'health.#.name': '["postgres","redis","queue"]',
    'health.#(name="postgres").statusText': '"pass"',
    'health.#(name=="redis").statusText': '"fail"',
    'kinds.#(name=="Other").id': '2',
    'kinds.#(id==2).name': '"Other"',
    'health.#(statusText=="pass")#.name': '["postgres","queue"]',
    'health.#(ms>10)#.name': '["postgres","queue"]',
    'health.#(ms<=3).name': '"redis"',
    'health.#(name!="postgres").name': '"redis"',
    'health.#(name%"re*").name': '"redis"',
    'health.#(name!%"*s*").name': '"queue"',
    'health.#(tags).name': '"queue"',
    'health.#(nope=="x").name': undefined,
    'friends.#(nets.#(=="fb"))#.first': '["Dale","Roger"]',
    'friends.#(age>45)#.first': '["Roger","Jane"]',
    'friends.#(active==true).first': '"Dale"',
    'friends.#(active==~true)#.first': '["Dale","Jane"]',
    'friends.#.first|1': '"Roger"',
    'friends.#.nets.0': '["ig","fb","ig"]',
    'friends.#.nets|0': '["ig","fb","tw"]',
    'fri*.1.first': '"Roger"',
    'kind?.0.name': '"Book"',
    'fav\\.movie': '"Deer Hunter"',
    'kinds.@reverse.0.name': '"Other"',
    'kinds|@reverse|#.id': '[2,1]',
    'kinds.0.@keys': '["id","name"]',
    'kinds.1.@values': '[2,"Other"]',
    'nested|@flatten': '[1,2,3,[4,5]]',
    'nested|@flatten:{"deep":true}': '[1,2,3,4,5]',
    'text|@fromstr|inner.x': '7',
    'kinds.0.name|@tostr': '"\\"Book\\""',
    'health.5.name': undefined,
    'kinds.x': undefined,
  };
  for (const [path, want] of Object.entries(cases)) {
    const got = j(path);
    check(got, { [`json('${path}')`]: (x) => x === want });
    if (got !== want) console.log(`${path}: ${got}`);
  }
}
