// A reference WebSocket client for bench/websocket.sh: C connections, each sending a message and
// waiting for its echo, for S seconds. Prints the messages per second. No accounting, no
// latency: the least a client can do. It uses the `websocket` package (loadtest 8's), or with
// WS_MODULE=path/to/ws the `ws` package (the most used one on Node), which is not a dependency:
//   node bench/websocket-reference.js URL [connections=10] [seconds=5]
//   WS_MODULE=/tmp/ref/node_modules/ws/wrapper.mjs node bench/websocket-reference.js URL
const [url, c = '10', s = '5'] = process.argv.slice(2);
const message = JSON.stringify({ some: 'message' });
let done = 0;
let stop = false;

if (process.env.WS_MODULE) {
  const { default: WebSocket } = await import(process.env.WS_MODULE);
  for (let i = 0; i < Number(c); i++) {
    const ws = new WebSocket(url);
    ws.on('open', () => ws.send(message));
    ws.on('message', () => {
      done++;
      if (stop) ws.close();
      else ws.send(message);
    });
  }
} else {
  const { default: websocket } = await import('websocket');
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
}
setTimeout(() => {
  stop = true;
  console.log(`messages/s: ${Math.round(done / Number(s))}`);
  process.exit(0);
}, Number(s) * 1000);
