// The browser of k6/browser (src/script/k6/browser/): Chromium driven by playwright-core, which
// runs as it is on node, bun and deno (it launches Chromium over pipes on each). One Chromium a
// process of the run, launched at the first use; K6_BROWSER_WS_URL connects to one already running.

import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

// Where Chromium is found when K6_BROWSER_EXECUTABLE_PATH does not say: Debian's, then others'.
const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable', '/snap/bin/chromium'];

/** The Chromium to run: the path given, or the first installed; null when there is none. */
export function findChromium(given) {
  if (given) return existsSync(given) ? given : null;
  return CANDIDATES.find((p) => existsSync(p)) ?? null;
}

/**
 * A playwright Browser: launched (`executablePath`, `headless`, `args`, `timeoutMs`) or connected
 * to (`wsURL`, Chromium's DevTools endpoint).
 */
export async function openChromium({ executablePath, headless, args, timeoutMs, wsURL }) {
  const { chromium } = await import('playwright-core');
  if (wsURL) return chromium.connectOverCDP(wsURL, { timeout: timeoutMs });
  // As root, Chromium runs only without its sandbox (k6 asks for K6_BROWSER_ARGS=no-sandbox).
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  const all = root && !args.includes('--no-sandbox') ? [...args, '--no-sandbox'] : args;
  return chromium.launch({ executablePath, headless, args: all, timeout: timeoutMs });
}

/** The web-vitals library's browser build (it defines `webVitals`), as k6 injects its own copy. */
export function webVitalsScript() {
  // Its exports name no browser build: found beside its main module.
  const main = createRequire(import.meta.url).resolve('web-vitals');
  return readFileSync(`${main.slice(0, main.lastIndexOf('/dist/'))}/dist/web-vitals.iife.js`, 'utf8');
}

/** playwright-core's device descriptors (k6/browser's `devices`). */
export async function chromiumDevices() {
  return (await import('playwright-core')).devices;
}
