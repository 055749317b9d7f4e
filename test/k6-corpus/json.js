// Reading JSON answers with res.json(selector): nested keys, array indexes, '#' for a length,
// '#.key' across an array, a missing key, and the whole document. Then a JSON body echoed back.
import http from 'k6/http';
import { check } from 'k6';

export const options = { iterations: 2 };

export default function () {
  const doc = http.get(`${__ENV.BASE}/json`);
  check(doc, {
    'author by path': (r) => r.json('slideshow.author') === 'Yours Truly',
    'title by index': (r) => r.json('slideshow.slides.1.title') === 'Overview',
    'slide count': (r) => r.json('slideshow.slides.#') === 2,
    'items of slide two': (r) => r.json('slideshow.slides.1.items.#') === 2,
    'titles of every slide': (r) => JSON.stringify(r.json('slideshow.slides.#.title')) === '["Wake up to WonderWidgets!","Overview"]',
    'missing key': (r) => r.json('slideshow.publisher') === undefined,
    'whole document': (r) => r.json().slideshow.slides[0].type === 'all',
  });

  const order = { item: 'widget', labels: ['red', 'small'], size: { w: 2, h: 3 }, gift: false };
  const echo = http.post(`${__ENV.BASE}/post`, JSON.stringify(order), { headers: { 'Content-Type': 'application/json' } });
  check(echo, {
    'echoed nested number': (r) => r.json('json.size.h') === 3,
    'echoed array item': (r) => r.json('json.labels.1') === 'small',
    'echoed false': (r) => r.json('json.gift') === false,
    'raw text kept': (r) => JSON.parse(r.json('data')).item === 'widget',
    'parsed by hand': (r) => JSON.parse(r.body).json.labels.length === 2,
  });
}
