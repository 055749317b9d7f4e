// bench/scripts-websocket.sh: VUS VUs each holding a WebSocket open for the whole run and sending
// a message a second, the echo counted (k6/ws); the sockets are cut at the end (gracefulStop).
import ws from 'k6/ws';

export const options = {
  scenarios: { hold: { executor: 'constant-vus', vus: Number(__ENV.VUS || 5000), duration: __ENV.DURATION || '30s', gracefulStop: '1s' } },
};

export default function () {
  ws.connect(__ENV.URL, function (socket) {
    socket.on('open', () => socket.setInterval(() => socket.send('ping'), 1000));
  });
}
