// A server that stalls: responses to requests arriving in the first 300 ms of each second wait
// until those 300 ms are over (as a server pausing for GC). Over a long run, 30 % of the
// schedule falls into a stall; at a fixed rate a request intended at phase p waits 300 - p ms,
// so an honest p90 is about 200 ms and p50 is the plain service time.
//   node bench/stall-server.js [port=8090]
import http from 'node:http';

const port = Number(process.argv[2] || 8090);
const t0 = Date.now();
http
  .createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const phase = (Date.now() - t0) % 1000;
      const reply = () => res.end('OK');
      if (phase < 300) setTimeout(reply, 300 - phase);
      else reply();
    });
  })
  .listen(port, '127.0.0.1', () => console.log(`stalling server on http://127.0.0.1:${port}/`));
