// A reference WebSocket client for bench/websocket.sh: C connections of the `websocket` package
// (the one loadtest 8 uses), each sending a message and waiting for its echo, for S seconds.
// Prints the messages per second. No accounting, no latency: the least a client can do.
//   node bench/websocket-reference.js URL [connections=10] [seconds=5]
import websocket from 'websocket';

const [url, c = '10', s = '5'] = process.argv.slice(2);
const message = JSON.stringify({ some: 'message' });
let done = 0;
let stop = false;
for (let i = 0; i < Number(c); i++) {
  const client = new websocket.client();
  client.on('connect', (connection) => {
    connection.on('message', () => {
      done++;
      if (stop) connection.close();
      else connection.sendUTF(message);
    });
    connection.sendUTF(message);
  });
  client.connect(url);
}
setTimeout(() => {
  stop = true;
  console.log(`messages/s: ${Math.round(done / Number(s))}`);
  process.exit(0);
}, Number(s) * 1000);
