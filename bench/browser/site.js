// A site for k6's examples/browser scripts made local (bench/browser-beside-k6.js): pages of our
// own with what the examples look for on the site they name (a title, links, a login form that
// sets a cookie, a coin to bet on, a contact page). Prints its base URL; logs each request it
// served to stderr when LOG=1.

import http from 'node:http';

const page = (title, body) => `<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>`;
const HOME = page('QuickPizza Legacy', `<header><h1 class="title">QuickPizza Legacy</h1></header>
<ul><li><a href="/my_messages.php">/my_messages.php</a></li><li><a href="/news.php">/news.php</a></li>
<li><a href="/contacts.php">/contacts.php</a></li><li><a href="/flip_coin.php">/flip_coin.php</a></li></ul>`);
const LOGIN = page('My messages', `<h2>Unauthorized</h2><form method="POST" action="/my_messages.php">
<input name="login" type="text"><input name="password" type="password"><input type="submit" value="Go!"></form>`);

function coin(bet) {
  const said = bet ? `<p>Your bet: ${bet}.</p>` : '<p>Your bet: none.</p>';
  return page('Flip a coin', `${said}<form method="GET" action="/flip_coin.php"><input type="hidden" name="bet" value="heads"><input type="submit" value="Bet on heads!"></form>
<form method="GET" action="/flip_coin.php"><input type="hidden" name="bet" value="tails"><input type="submit" value="Bet on tails!"></form>`);
}

const server = http.createServer((req, res) => {
  let body = '';
  req.on('data', (d) => (body += d));
  req.on('end', () => {
    if (process.env.LOG) process.stderr.write(`${req.method} ${req.url}\n`);
    const u = new URL(req.url, 'http://x');
    const html = (text, headers = {}) => {
      res.writeHead(200, { 'content-type': 'text/html', ...headers });
      res.end(text);
    };
    if (u.pathname === '/' || u.pathname === '/test.k6.io/' || u.pathname === '/test.k6.io') return html(HOME);
    if (u.pathname === '/my_messages.php' && req.method === 'POST') {
      const login = new URLSearchParams(body).get('login');
      return html(page('My messages', `<h2>Welcome, ${login}!</h2>`), { 'set-cookie': 'AWSALB=local; Path=/' });
    }
    if (u.pathname === '/my_messages.php') return html(LOGIN);
    if (u.pathname === '/contacts.php') return html(page('Contacts', '<h3>Contact us</h3>'));
    if (u.pathname === '/news.php') return html(page('News', '<h1>News</h1><p>Nothing new.</p>'));
    if (u.pathname === '/flip_coin.php') return html(coin(u.searchParams.get('bet')));
    if (u.pathname === '/api/tools') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end('{"tools":["oven"]}');
    }
    res.writeHead(404);
    res.end('not here');
  });
});
server.listen(Number(process.env.PORT || 0), '127.0.0.1', () => process.stdout.write(`http://127.0.0.1:${server.address().port}\n`));
