// What public k6/ws scripts do most (chat and ticker load tests): a burst of sends on open, a
// ping on the socket's interval, a close on the socket's timeout, and an error handler that
// tells the expected close from the rest; the upgrade checked for its 101.
import ws from 'k6/ws';
import { check } from 'k6';

export const options = { vus: 2, iterations: 4 };

export default function () {
  const url = `${__ENV.BASE.replace('http://', 'ws://')}/ws`;
  const res = ws.connect(url, { tags: { my_tag: 'burst' } }, function (socket) {
    socket.on('open', function open() {
      for (let i = 0; i < 50; i++) socket.send(`frame ${i}`);
      socket.setInterval(function () {
        socket.ping();
      }, 200);
    });
    socket.on('message', function (m) {
      check(m, { 'an echo of a frame': (x) => x.startsWith('frame ') });
    });
    socket.on('pong', function () {
      check(true, { pong: (x) => x });
    });
    socket.on('error', function (e) {
      if (e.error() !== 'websocket: close sent') console.log('unexpected error: ', e.error());
    });
    socket.on('close', () => console.log('disconnected'));
    // Between the second ping and the third: two pongs a session, whatever the timers' jitter.
    socket.setTimeout(function () {
      socket.close();
    }, 500);
  });
  check(res, { 'status is 101': (r) => r && r.status === 101 });
}
