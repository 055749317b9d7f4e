// A --feed's cost in peak RSS beyond the run's own: the same load run (`-n 2000 -c 1 --cores 1`
// against a local server) with and without `--feed FILE`, on a CSV and an NDJSON of about 40 MB,
// each process's peak RSS from /usr/bin/time -v ("Maximum resident set size"), minus the run's
// without a feed, against the file's size. Node runs this script; RUNTIMES picks who runs the
// load (default node,bun,deno; bun and deno on PATH):
//   node bench/feed-rss.js [ROWS] [ROUNDS]
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import { writeFileSync, statSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const rows = Number(process.argv[2] || 560000);
const rounds = Number(process.argv[3] || 3);
const runtimes = (process.env.RUNTIMES || 'node,bun,deno').split(',');
const dir = mkdtempSync(join(tmpdir(), 'feed-rss-'));
// CLI=path/to/src/cli.js: another checkout's (before and after).
const cli = process.env.CLI || new URL('../src/cli.js', import.meta.url).pathname;

// The rows of bench/feed-memory.js's CSV, plus a longer text column.
const row = (i) => [i, `user${i}`, `user${i}@example.com`, `t${(i * 2654435761) % 4294967296}`, `Lorem ipsum ${i}`];
const csv = join(dir, 'users.csv');
const ndjson = join(dir, 'users.ndjson');
const lines = ['id,name,email,token,note'];
for (let i = 0; i < rows; i++) lines.push(row(i).join(','));
writeFileSync(csv, lines.join('\n') + '\n');
lines.length = 0;
// NDJSON repeats the keys: fewer rows for a file of about the CSV's size.
for (let i = 0; i < Math.round(rows * 0.61); i++) {
  const [id, name, email, token, note] = row(i);
  lines.push(JSON.stringify({ id, name, email, token, note }));
}
writeFileSync(ndjson, lines.join('\n') + '\n');
lines.length = 0;

const server = createServer((req, res) => res.end('ok'));
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${server.address().port}/u/{{id}}?n={{name}}`;

const command = { node: ['node'], bun: ['bun'], deno: ['deno', 'run', '-A'] };
function peak(runtime, feed) {
  const args = ['-v', ...command[runtime], cli, '-n', '2000', '-c', '1', '--cores', '1', '--quiet', url];
  if (feed) args.push('--feed', feed);
  else args[args.length - 1] = url.replace('{{id}}', '1').replace('{{name}}', 'user1');
  // The server answers from this process: run the load without blocking its event loop.
  return new Promise((resolve, reject) => {
    import('node:child_process').then(({ execFile }) => {
      execFile('/usr/bin/time', args, { maxBuffer: 1 << 24 }, (err, stdout, stderr) => {
        const m = /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr);
        if (err || !m) return reject(new Error(`${runtime} ${feed || ''}: ${stderr.slice(-2000)}`));
        resolve(Number(m[1]) * 1024);
      });
    });
  });
}

const mb = (n) => (n / 1e6).toFixed(1);
const median = (xs) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const runtime of runtimes) {
  for (const file of [csv, ndjson]) {
    const size = statSync(file).size;
    const base = [];
    const fed = [];
    for (let r = 0; r < rounds; r++) {
      base.push(await peak(runtime, null));
      fed.push(await peak(runtime, file));
    }
    const beyond = median(fed) - median(base);
    console.log(`${runtime} ${file.endsWith('csv') ? 'CSV   ' : 'NDJSON'} ${mb(size)} MB: peak RSS ${mb(median(fed))} MB with the feed, ${mb(median(base))} MB without: ${mb(beyond)} MB beyond = ${(beyond / size).toFixed(2)}x the file`);
  }
}
server.close();
rmSync(dir, { recursive: true });
