/**
 * The tracker's delivery guarantee in Chromium, against the running app: every event a page
 * tracked is stored exactly once (rows = distinct event_ids = events tracked) whatever happens
 * to the endpoint in between.
 */
import t from 'tap';
import type { Page } from 'playwright-core';
import { newChatbot, skipBrowser, sleep, startHarness, type Harness, type PageGlobals } from './tracker-harness.js';

const track = (page: Page, n: number, event = 'message_sent') =>
  page.evaluate(([n, event]) => {
    for (let i = 0; i < n; i++) (globalThis as unknown as PageGlobals).chatlytics.track(event as string, { n: i });
  }, [n, event] as const);
/** Events waiting in localStorage: a key holds the events of one task, one per line. */
const queued = (page: Page) => page.evaluate(() => {
  const ls = (globalThis as unknown as PageGlobals).localStorage;
  return Object.keys(ls).filter((k) => k.startsWith('chatlytics:e:')).reduce((n, k) => n + ls[k].split('\n').length, 0);
});
const loaded = (page: Page) => page.waitForFunction(() => typeof (globalThis as unknown as PageGlobals).chatlytics.flush === 'function');

// Starting the app in-process (chdb, PGlite, migrations) took up to 4 minutes at load 40 on 2
// cores; each subtest bounds its own waits (60 s at most), this only caps the whole file.
t.setTimeout(600_000);

t.test('the tracker in Chromium', { skip: skipBrowser, timeout: 600_000 }, async (t) => {
  const h: Harness = await startHarness();
  t.teardown(() => h.close());

  t.test('server stopped → 30 events → reload → server started: all 30 stored exactly once', async (t) => {
    const bot = newChatbot();
    const page = await (await h.browser.newContext()).newPage();
    await h.gateway.down();
    await page.goto(h.pageUrl(bot));
    await track(page, 30);
    await loaded(page);
    await sleep(2500);
    t.equal(await queued(page), 30, 'the events wait in localStorage');
    await page.reload();
    await loaded(page);
    t.equal(await queued(page), 30, 'and survive the reload');
    await h.gateway.up();
    const got = await h.waitStored(bot, 30);
    t.same(got, { rows: 30, ids: 30 }, 'each event stored once');
    t.equal(await queued(page), 0, 'the queue is empty');
    await page.context().close();
  });

  for (const status of [503, 429]) {
    t.test(`${status} with Retry-After: 5 → no request before 5 s, then delivered once`, async (t) => {
      const bot = newChatbot();
      const page = await (await h.browser.newContext()).newPage();
      h.gateway.mode = { kind: 'status', status, retryAfter: '5' };
      const from = h.gateway.seen.length;
      await page.goto(h.pageUrl(bot));
      await loaded(page);
      await track(page, 20);
      const deadline = Date.now() + 5000;
      while (h.gateway.seen.length === from && Date.now() < deadline) await sleep(20);
      const first = h.gateway.seen[from];
      t.ok(first, 'the batch was tried');
      h.gateway.mode = { kind: 'pass' };
      await track(page, 5, 'visitor');
      const got = await h.waitStored(bot, 25, 30_000);
      const next = h.gateway.seen.slice(from + 1)[0];
      t.ok(next && next.at - first.at >= 5000, `next request ${next ? next.at - first.at : '-'} ms after the ${status}`);
      t.same(got, { rows: 25, ids: 25 });
      await page.context().close();
    });
  }

  t.test('tab closed mid-flush → delivered on the next visit, once', async (t) => {
    const bot = newChatbot();
    const context = await h.browser.newContext();
    const page = await context.newPage();
    h.gateway.mode = { kind: 'hang' };
    const from = h.gateway.seen.length;
    await page.goto(h.pageUrl(bot));
    await loaded(page);
    await track(page, 20);
    while (h.gateway.seen.length === from) await sleep(20);
    await page.close({ runBeforeUnload: true });
    // Cut the hung requests: the page never got an answer.
    await h.gateway.down();
    h.gateway.mode = { kind: 'pass' };
    await h.gateway.up();
    t.equal((await h.stored(bot)).ids, 0, 'nothing stored yet');
    const again = await context.newPage();
    await again.goto(h.pageUrl(bot));
    t.same(await h.waitStored(bot, 20, 30_000), { rows: 20, ids: 20 });
    t.equal(await queued(again), 0);
    await context.close();
  });

  t.test('a visit arriving from a search result: the page URL and referrer give its source, the browser its device', async (t) => {
    const bot = newChatbot();
    const context = await h.browser.newContext({ userAgent: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1' });
    const page = await context.newPage();
    await page.goto(`${h.pageUrl(bot)}&utm_medium=cpc&utm_campaign=spring`, { referer: 'https://www.google.com/' });
    await loaded(page);
    await page.evaluate(() => (globalThis as unknown as PageGlobals).chatlytics.track('visitor'));
    await track(page, 1);
    await h.waitStored(bot, 2);
    const rows = await h.sql<Record<string, string>>(`SELECT event, source, utm_medium, utm_campaign, device FROM events WHERE chatbot_id = '${bot}' ORDER BY event DESC`);
    t.same(rows, [
      { event: 'visitor', source: 'google.com', utm_medium: 'cpc', utm_campaign: 'spring', device: 'mobile' },
      { event: 'message_sent', source: '', utm_medium: '', utm_campaign: '', device: 'mobile' },
    ]);
    await context.close();
  });
});
