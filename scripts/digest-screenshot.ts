/**
 * Regenerates services/dashboard/docs/digest.png: the weekly digest e-mail's HTML (the real
 * renderer, on sample figures with two chatbots, a fired alert and empty lists) as a phone shows
 * it, 375 px wide, in headless Chromium. Needs /usr/bin/chromium. `npx tsx scripts/digest-screenshot.ts`
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { renderDigest } from '@chatlytics/dashboard';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(root, 'services/dashboard/docs/digest.png');
const content = {
  windows: { current: { from: '2026-02-02', to: '2026-02-08' }, previous: { from: '2026-01-26', to: '2026-02-01' } },
  chatbots: [
    {
      id: 'shop', name: 'Shop assistant (de)', visitors: { current: 12480, previous: 11020 }, conversations: { current: 1342, previous: 1410 },
      conversionWithChat: { current: 8.42, previous: 7.1 }, revenueAfterChat: { current: 48210.5, previous: 39870 }, currency: 'EUR',
      topComplaints: [{ item: 'Delivery takes too long', count: 41 }, { item: 'Size chart is confusing', count: 23 }, { item: 'Voucher code not accepted at checkout', count: 9 }],
      topMissingInformation: [{ item: 'Return policy for sale items', count: 17 }, { item: 'Material of the winter jacket', count: 8 }],
      alerts: [{ name: 'Conversion dropped', firedAt: new Date('2026-02-04T10:15:00Z'), detail: 'below 2 % for 3 hours' }],
    },
    {
      id: 'second', name: 'Second bot', visitors: { current: 310, previous: 0 }, conversations: { current: 12, previous: 15 },
      conversionWithChat: { current: 0, previous: 0 }, revenueAfterChat: { current: 0, previous: 120 }, currency: 'SEK',
      topComplaints: [], topMissingInformation: [], alerts: [],
    },
  ],
};
const mail = await renderDigest({ content, appUrl: 'https://dash.example.test', unsubscribeUrl: 'https://dash.example.test/unsubscribe/weekly-digest?u=x&s=y' });
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
try {
  const page = await browser.newPage({ viewport: { width: 375, height: 800 } });
  await page.setContent(mail.html);
  const width = await page.evaluate<number>('document.documentElement.scrollWidth');
  if (width > 375) throw new Error(`the digest is ${width} px wide at 375 px: it scrolls sideways on a phone`);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  await page.screenshot({ path: out, fullPage: true });
} finally {
  await browser.close();
}
console.log(`wrote ${path.relative(root, out)}`);
