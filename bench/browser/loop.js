// bench/browser-scale.js's script: VUs (VUS, 5 by default) loop a page's load and a click for
// DURATION (30s), on bench/browser/site.js (BASE).
import { browser } from 'k6/browser';

export const options = {
  scenarios: { ui: { executor: 'constant-vus', vus: Number(__ENV.VUS || 5), duration: __ENV.DURATION || '30s', options: { browser: { type: 'chromium' } } } },
};

export default async function () {
  const page = await browser.newPage();
  try {
    await page.goto(`${__ENV.BASE}/test.k6.io/`);
    await Promise.all([page.waitForNavigation(), page.locator('a[href="/news.php"]').click()]);
  } finally {
    await page.close();
  }
}
