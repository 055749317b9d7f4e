// Cookies four ways: sent with a request only, set by the server into the VU's jar (which is
// emptied between iterations), kept in a jar the script makes, and placed in a jar by hand.
import http from 'k6/http';
import { check, group } from 'k6';

export const options = { iterations: 2, maxRedirects: 3 };

const BASE = __ENV.BASE;

export default function () {
  group('per-request cookies', function () {
    const res = http.get(`${BASE}/cookies`, { cookies: { flavour: 'oat', size: 'large' } });
    check(res, {
      'server saw flavour': (r) => r.json('cookies.flavour') === 'oat',
      'server saw size': (r) => r.json('cookies.size') === 'large',
    });
    const inJar = http.cookieJar().cookiesForURL(res.url);
    check(inJar, { 'request cookies stay out of the jar': (c) => c.flavour === undefined && c.size === undefined });
  });

  group('cookies from the server', function () {
    const before = http.cookieJar().cookiesForURL(`${BASE}/cookies`);
    check(before, { 'jar is empty at the start of an iteration': (c) => Object.keys(c).length === 0 });
    // /cookies/set answers with Set-Cookie and a redirect to /cookies, which sends them back.
    const res = http.get(`${BASE}/cookies/set?session=abc&theme=dark`);
    check(res, {
      'ended on /cookies': (r) => r.url === `${BASE}/cookies`,
      'both came back': (r) => r.json('cookies.session') === 'abc' && r.json('cookies.theme') === 'dark',
    });
    const jar = http.cookieJar();
    const now = jar.cookiesForURL(`${BASE}/cookies`);
    check(now, {
      'jar has the session': (c) => c.session !== undefined && c.session.length === 1 && c.session[0] === 'abc',
      'jar has the theme': (c) => c.theme !== undefined && c.theme[0] === 'dark',
    });
    const replaced = http.get(`${BASE}/cookies`, { cookies: { session: { value: 'xyz', replace: true } } });
    check(replaced, { 'replace:true wins over the jar': (r) => r.json('cookies.session') === 'xyz' });
    jar.set(`${BASE}/cookies`, 'by_hand', 'yes');
    check(http.get(`${BASE}/cookies`), { 'a cookie set by hand in the VU jar goes too': (r) => r.json('cookies.by_hand') === 'yes' });
    jar.delete(`${BASE}/cookies`, 'theme');
    const after = http.get(`${BASE}/cookies`);
    check(after, {
      'deleted cookie is gone': (r) => r.json('cookies.theme') === undefined,
      'the other one stays': (r) => r.json('cookies.session') === 'abc',
    });
  });

  group('a jar of our own', function () {
    const jar = new http.CookieJar();
    jar.set(`${BASE}/cookies`, 'token', 't-1');
    jar.set(`${BASE}/cookies`, 'lang', 'fi', { path: '/cookies' });
    jar.set(`${BASE}/elsewhere`, 'far', 'away', { path: '/elsewhere' });
    const res = http.get(`${BASE}/cookies`, { jar: jar });
    check(res, {
      'own jar cookies sent': (r) => r.json('cookies.token') === 't-1' && r.json('cookies.lang') === 'fi',
      'cookie for another path not sent': (r) => r.json('cookies.far') === undefined,
    });
    check(jar.cookiesForURL(`${BASE}/elsewhere/x`), { 'cookiesForURL matches by path': (c) => c.far !== undefined && c.far[0] === 'away' });
    check(http.cookieJar().cookiesForURL(`${BASE}/cookies`), { 'the VU jar knows nothing of it': (c) => c.token === undefined });
    http.get(`${BASE}/cookies/set?basket=3`, { jar: jar });
    check(jar.cookiesForURL(`${BASE}/cookies`), { 'server cookie landed in our jar': (c) => c.basket !== undefined && c.basket[0] === '3' });
    jar.clear(`${BASE}/cookies`);
    check(jar.cookiesForURL(`${BASE}/cookies`), { 'clear empties it for the URL': (c) => Object.keys(c).length === 0 });
  });
}
