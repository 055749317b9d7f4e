// What public k6/ws scripts do most (chat and ticker load tests): a burst of sends on open, a
// ping on the socket's interval, a close from a handler, a timeout that closes a session gone
// quiet, and an error handler that tells the expected close from the rest; the upgrade checked
// for its 101.
import ws from 'k6/ws';
import { check } from 'k6';

export const options = { vus: 2, iterations: 4 };

export default function () {
  const url = `${__ENV.BASE.replace('http://', 'ws://')}/ws`;
  const res = ws.connect(url, { tags: { my_tag: 'burst' } }, function (socket) {
    let pongs = 0;
    socket.on('open', function open() {
      for (let i = 0; i < 50; i++) socket.send(`frame ${i}`);
      socket.setInterval(function () {
        socket.ping();
      }, 200);
    });
    socket.on('message', function (m) {
      check(m, { 'an echo of a frame': (x) => x.startsWith('frame ') });
    });
    // Closed on the second pong: the echoes came before it (the server answers in order), and
    // a third pong, if a third ping went, comes after the close. Two pongs a session however
    // late the timers fire on a loaded machine (a close on a 500 ms timer lost one).
    socket.on('pong', function () {
      check(true, { pong: (x) => x });
      if (++pongs === 2) socket.close();
    });
    socket.on('error', function (e) {
      if (e.error() !== 'websocket: close sent') console.log('unexpected error: ', e.error());
    });
    socket.on('close', () => console.log('disconnected'));
    // A session that went quiet is not waited for forever.
    socket.setTimeout(function () {
      socket.close();
    }, 30000);
  });
  check(res, { 'status is 101': (r) => r && r.status === 101 });
}
