// HTML: parseHTML on a page, res.html().find(), and res.submitForm() filling in an order form,
// beside a form posted directly as an object (a list value goes as the key repeated).
import http from 'k6/http';
import { check } from 'k6';
import { parseHTML } from 'k6/html';

export const options = { iterations: 2 };

const BASE = __ENV.BASE;

export default function () {
  const page = http.get(`${BASE}/forms/post`);
  const doc = parseHTML(page.body);
  check(doc, {
    'form posts to /post': (d) => d.find('form').attr('action') === '/post',
    'four toppings offered': (d) => d.find('input[name=topping]').size() === 4,
    'title text': (d) => d.find('title').text() === 'Order',
    'third size value': (d) => d.find('input[name=size]').eq(2).attr('value') === 'large',
  });
  check(page, {
    'legend through res.html()': (r) => r.html().find('legend').first().text().trim() === 'Pizza Size',
    'button text': (r) => r.html('button').text() === 'Submit order',
  });

  const sent = page.submitForm({
    formSelector: 'form',
    fields: { custname: 'Ada', custtel: '555-0100', size: 'medium', comments: 'ring twice' },
  });
  check(sent, {
    'submitted to /post': (r) => r.status === 200 && r.url === `${BASE}/post`,
    'name arrived': (r) => r.json('form.custname') === 'Ada',
    'size arrived': (r) => r.json('form.size') === 'medium',
    'comment arrived': (r) => r.json('form.comments') === 'ring twice',
    'empty email still sent': (r) => r.json('form.custemail') === '',
  });

  const direct = http.post(`${BASE}/post`, { custname: 'Bob', topping: ['bacon', 'onion'] });
  check(direct, {
    'plain field': (r) => r.json('form.custname') === 'Bob',
    'list field': (r) => JSON.stringify(r.json('form.topping')) === '["bacon","onion"]',
  });
}
