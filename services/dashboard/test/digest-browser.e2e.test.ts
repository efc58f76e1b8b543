/**
 * The weekly digest's HTML as a phone shows it (Chromium through playwright-core, 375 px wide):
 * no sideways scrolling, even with long unbroken names and items, and every figure readable.
 */
import fs from 'node:fs';
import t from 'tap';
import { chromium } from 'playwright-core';
import { renderDigest } from '../src/digest/render.js';
import type { ChatbotDigest, DigestContent } from '../src/digest/content.js';

const CHROMIUM = '/usr/bin/chromium';
// Under CI a missing browser is a failure, never a skip (CI installs chromium).
const skip = !fs.existsSync(CHROMIUM) && process.env.CI !== 'true' ? `${CHROMIUM} not installed` : false;

const bot = (name: string, item: string): ChatbotDigest => ({
  id: 'b', name, visitors: { current: 1_234_567, previous: 1_100_000 }, conversations: { current: 98_765, previous: 0 },
  conversionWithChat: { current: 12.34, previous: 56.78 }, revenueAfterChat: { current: 9_876_543.21, previous: 1_234_567.89 }, currency: 'EUR',
  topComplaints: [{ item, count: 12_345 }, { item: 'Slow delivery', count: 3 }], topMissingInformation: [{ item, count: 1 }],
  alerts: [{ name: item, firedAt: new Date('2026-02-04T10:15:00Z'), detail: item }],
});
const content: DigestContent = {
  windows: { current: { from: '2026-02-02', to: '2026-02-08' }, previous: { from: '2026-01-26', to: '2026-02-01' } },
  chatbots: [bot(`Shop-${'x'.repeat(70)}`, `https://shop.example/products/${'very-long-slug-'.repeat(6)}`), bot('Plain', 'Size chart')],
};

t.test('the digest fits a 375 px phone screen', { skip }, async (t) => {
  const mail = await renderDigest({ content, appUrl: 'https://dash.example.test', unsubscribeUrl: `https://dash.example.test/unsubscribe/weekly-digest?u=${'0'.repeat(36)}&s=${'A'.repeat(43)}` });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
  t.teardown(() => browser.close());
  const page = await browser.newPage({ viewport: { width: 375, height: 800 } });
  await page.setContent(mail.html);
  t.ok(await page.evaluate<number>('document.documentElement.scrollWidth') <= 375, 'no sideways scrolling');
  // The figures: big enough to read without zooming, and inside the screen.
  const figures = await page.evaluate<{ text: string; size: number; right: number }[]>(`[...document.querySelectorAll('strong')]
    .filter((el) => /[0-9]/.test(el.textContent))
    .map((el) => ({ text: el.textContent, size: parseFloat(getComputedStyle(el).fontSize), right: el.getBoundingClientRect().right }))`);
  t.equal(figures.length, 8, 'four figures per chatbot');
  for (const f of figures) {
    t.ok(f.size >= 14, `${f.text}: ${f.size} px`);
    t.ok(f.right <= 375, `${f.text} ends inside the screen (${f.right})`);
  }
  t.ok(figures.some((f) => f.text === '€9,876,543.21'), 'the revenue as written in the text part');
});
