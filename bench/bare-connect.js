// The connect-per-request ceiling of a runtime: N concurrent loops of connect, write one GET with
// `Connection: close`, read until the server closes, close, again. Nothing is parsed: a request
// counts once its connection has closed after some bytes came back (as ab counts).
//
//   node bench/bare-connect.js HOST:PORT CONCURRENCY SECONDS [native|node]
//   bun  bench/bare-connect.js ...          native = Bun.connect, node = node:net
//   deno run -A bench/bare-connect.js ...   native = Deno.connect, node = node:net
//
// Prints one JSON line: requests, seconds, api.

const [where = '127.0.0.1:8089', nArg = '10', secondsArg = '5', apiArg = 'native'] = args();
const [host, portText] = where.split(':');
const port = Number(portText);
const N = Number(nArg);
const SECONDS = Number(secondsArg);
const REQ = new TextEncoder().encode(`GET / HTTP/1.1\r\nHost: ${where}\r\nConnection: close\r\n\r\n`);
const runtime = globalThis.Deno ? 'deno' : globalThis.Bun ? 'bun' : 'node';
const api = apiArg === 'node' || runtime === 'node' ? 'node:net' : runtime === 'bun' ? 'Bun.connect' : 'Deno.connect';

let requests = 0;
let failed = 0;
let stopping = false;
const t0 = performance.now();

function args() {
  if (globalThis.Deno) return globalThis.Deno.args;
  return globalThis.process.argv.slice(2);
}

async function nodeNet() {
  const net = await import('node:net');
  const shared = Buffer.allocUnsafe(16 * 1024);
  const loop = () => {
    if (stopping) return;
    let got = 0;
    const socket = net.connect({ host, port, noDelay: true, onread: { buffer: shared, callback: (n) => void (got += n) } });
    socket.on('data', (chunk) => void (got += chunk.length));
    socket.on('error', () => {});
    socket.on('close', () => {
      if (got > 0) requests++;
      else failed++;
      loop();
    });
    socket.write(REQ);
  };
  return loop;
}

function bunConnect() {
  const handlers = {
    open(socket) {
      socket.write(REQ);
    },
    data(socket, chunk) {
      socket.data.got += chunk.length;
    },
    end(socket) {
      socket.end();
    },
    close(socket) {
      if (socket.data.got > 0) requests++;
      else failed++;
      loop();
    },
    connectError() {
      failed++;
      loop();
    },
    error() {},
  };
  const loop = () => {
    if (stopping) return;
    globalThis.Bun.connect({ hostname: host, port, socket: handlers, data: { got: 0 } }).catch(() => {});
  };
  return loop;
}

function denoConnect() {
  const buf = new Uint8Array(16 * 1024); // shared: the bytes are not looked at
  const once = async () => {
    const conn = await globalThis.Deno.connect({ hostname: host, port });
    let got = 0;
    try {
      let bytes = REQ;
      while (bytes.length > 0) bytes = bytes.subarray(await conn.write(bytes));
      for (;;) {
        const n = await conn.read(buf);
        if (n === null) break;
        got += n;
      }
    } finally {
      conn.close();
    }
    return got;
  };
  const loop = async () => {
    while (!stopping) {
      try {
        if ((await once()) > 0) requests++;
        else failed++;
      } catch {
        failed++;
      }
    }
  };
  return loop;
}

const loop = api === 'node:net' ? await nodeNet() : api === 'Bun.connect' ? bunConnect() : denoConnect();
for (let i = 0; i < N; i++) loop();
setTimeout(() => {
  stopping = true;
  const seconds = (performance.now() - t0) / 1000;
  console.log(JSON.stringify({ tool: 'bare-connect', api, connections: N, requests, failed, seconds }));
  setTimeout(() => (globalThis.Deno ? globalThis.Deno.exit(0) : globalThis.process.exit(0)), 50);
}, SECONDS * 1000);
