// Headless Chromium for the tests of the HTML pages: Debian's chromium, a proxy that sees every
// request a page makes, and the page's DOM after load with its console lines.

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import net from 'node:net';
import { pathToFileURL } from 'node:url';
import { runCommand } from './servers.js';

// Debian's chromium; the test setup installs it (apt-get install chromium) where it can.
export const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
// Requests Chromium makes by itself (updates, time, accounts), not the page's.
export const CHROMIUM_OWN = /(^|\.)(google\.com|googleapis\.com|gstatic\.com|gvt1\.com|googleusercontent\.com)(:\d+)?$/;

/** A proxy that answers 502 and notes every request's target host. */
export function countingProxy() {
  const hosts = [];
  const server = net.createServer((socket) => {
    socket.on('error', () => {});
    socket.once('data', (chunk) => {
      const [, target = ''] = chunk.toString('latin1').split(' ');
      hosts.push(target.includes('://') ? new URL(target).host : target);
      socket.end('HTTP/1.1 502 No\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ hosts, port: server.address().port, close: () => new Promise((r) => server.close(r)) })));
}

/** Opens a page in headless Chromium: the DOM after load, and its console lines. */
export async function openInChromium(file, proxyPort, profile) {
  const r = await runCommand(CHROMIUM, [
    '--headless=new', '--disable-gpu', '--no-sandbox', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--disable-default-apps', `--user-data-dir=${profile}`,
    // Every request goes through the proxy, loopback's too ("<-loopback>" removes its bypass).
    `--proxy-server=http://127.0.0.1:${proxyPort}`, '--proxy-bypass-list=<-loopback>',
    '--enable-logging=stderr', '--v=0', '--virtual-time-budget=2000', '--dump-dom', pathToFileURL(file).href,
  ], { timeoutMs: 60000 });
  assert.equal(r.code, 0, `chromium: ${r.stderr.slice(-2000)}`);
  return { dom: r.stdout, console: r.stderr.split('\n').filter((line) => line.includes(':CONSOLE')) };
}
