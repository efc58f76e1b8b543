/**
 * The app pages added after the first browser test (app-pages-browser.e2e.test.ts), in a real
 * Chromium against `npm start`'s application on the demo data: the CSV downloads of the
 * analytics page (the downloaded file against the JSON API for the same window), the
 * data-source pages reached from the header
 * (list, filters, detail, children, the search test form against the JSON search), and the
 * password form on the settings page. No CSP violation or script error, axe-core without
 * serious or critical findings, screenshots at 1280×800 and 390×844.
 */
import fs from 'node:fs';
import t from 'tap';
import { expectedTable, parseCsv } from '../../dashboard/test/csv-helpers.js';
import { startAppBrowser } from './app-browser-harness.js';
import { skipBrowser } from './tracker-harness.js';

const AB_BOT = 'Outdoor Store Assistant';

t.test('CSV downloads, data-source pages and the password form in Chromium', { skip: skipBrowser }, async (t) => {
  t.setTimeout(600_000);
  const { origin, page, problems, shots, shoot, axe } = await startAppBrowser(t, { dirPrefix: 'chatlytics-app-data' });
  await page.getByRole('link', { name: AB_BOT }).click();
  await page.waitForURL(/\/app\/[0-9a-f-]+\/analytics$/);
  const chatbotId = /\/app\/([0-9a-f-]+)\//.exec(page.url())![1];
  /** JSON of a same-origin GET, with the page's session cookie. */
  const getJson = (url: string) => page.evaluate(`fetch(${JSON.stringify(url)}).then((r) => r.json())`) as Promise<Record<string, unknown>>;

  // CSV downloads: the file of each statistic against the JSON API for the same window, value for value.
  const day = (back: number) => new Date(Date.now() - back * 86_400_000).toISOString().slice(0, 10);
  for (const window of ['timeframe=7', `from=${day(6)}&to=${day(2)}`]) {
    await page.goto(`${origin}/app/${chatbotId}/analytics?${window}`);
    const links = page.locator('a[data-csv]');
    const stats = ['overview', 'engagement', 'sources', 'timeseries', 'cart', 'popup-metrics', 'purchases'];
    t.same(await links.evaluateAll((els) => els.map((e) => e.getAttribute('data-csv'))), stats, `${window}: a download per statistic`);
    for (const stat of stats) {
      const [download] = await Promise.all([page.waitForEvent('download'), page.locator(`a[data-csv="${stat}"]`).click()]);
      const text = fs.readFileSync((await download.path())!, 'utf8');
      const json = await getJson(`/api/dashboard/analytics/stats/${stat}?chatbot_id=${chatbotId}&${window}`);
      const label = window.startsWith('from') ? `${day(6)}_${day(2)}` : '7';
      t.equal(download.suggestedFilename(), `chatlytics-${stat}-${chatbotId}-${label}.csv`, `${window} ${stat}: the file name`);
      t.same(parseCsv(text), expectedTable(stat, json), `${window} ${stat}: a header of column names, then one row per record`);
    }
  }
  await shoot('analytics-downloads');

  // Data sources, from the header: the list equals the JSON list, the filters narrow it.
  await page.getByRole('navigation', { name: 'Account' }).getByRole('link', { name: 'Data sources' }).click();
  await page.waitForURL(`${origin}/app/data-sources`);
  const list = (await getJson('/api/dashboard/data-sources')).data as { dataSources: { id: string; name: string; chatbotId: string }[] };
  t.same(await page.locator('tr[data-source-id]').evaluateAll((els) => els.map((e) => e.getAttribute('data-source-id'))), list.dataSources.map((d) => d.id), 'the JSON list');
  await shoot('data-sources');
  await page.locator('form.filters').getByLabel('Chatbot').selectOption({ label: AB_BOT });
  await page.locator('form.filters').getByLabel('Tag').selectOption('help');
  await page.locator('form.filters').getByRole('button', { name: 'Filter' }).click();
  await page.waitForURL(/tag=help/);
  t.same(await page.locator('tr[data-source-id] th a').allTextContents(), ['Help center'], "the chatbot's help center only");
  await shoot('data-sources-filtered');

  // The detail with its children, a child's page, the catalog with its chunks and raw preview.
  await page.getByRole('link', { name: 'Help center' }).click();
  await page.waitForURL(/\/app\/data-sources\/[0-9a-f-]+$/);
  const helpId = page.url().split('/').at(-1)!;
  const help = (await getJson(`/api/dashboard/data-sources/${helpId}`)).data as { chunks: { content: string }[]; children: { name: string }[] };
  t.same(await page.locator('.chunks .text').allTextContents(), help.chunks.map((c) => c.content), 'chunks as the JSON detail');
  t.same(await page.locator('tr[data-source-id] th a').allTextContents(), help.children.map((c) => c.name), 'children as the JSON detail');
  await shoot('data-source-children');
  await page.getByRole('link', { name: help.children[0]!.name }).click();
  await page.getByRole('link', { name: 'Parent data source' }).waitFor();
  const catalogId = list.dataSources.find((d) => d.chatbotId === chatbotId && d.name === 'Product catalog')!.id;
  await page.goto(`${origin}/app/data-sources/${catalogId}`);
  const catalog = (await getJson(`/api/dashboard/data-sources/${catalogId}`)).data as { rawContent: string };
  t.equal(await page.locator('#raw-content').textContent(), catalog.rawContent, 'the raw preview as the JSON detail');
  await shoot('data-source');

  // The search test: the form's results against the JSON search of the same question.
  await page.getByRole('link', { name: /^Search test for/ }).click();
  await page.getByLabel('Question').fill('free returns shipping');
  await page.getByLabel('Results (1–50)').fill('5');
  await page.getByRole('button', { name: 'Search' }).click();
  await page.getByRole('heading', { name: /^Results/ }).waitFor();
  const search = await page.evaluate(`fetch('/app/data-sources/search-test', { method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ chatbot_id: ${JSON.stringify(chatbotId)}, query: 'free returns shipping', document_count: 5 }) }).then((r) => r.json())`) as { docs: { content: string; name: string }[] };
  t.ok(search.docs.length > 0, 'the question finds chunks');
  t.same(await page.locator('.results .text').allTextContents(), search.docs.map((d) => d.content), 'the page shows the JSON search results, in order');
  t.same(await page.locator('.results .name').allTextContents(), search.docs.map((d) => d.name));
  await shoot('search-test');

  // The password form on the settings page: a wrong current password comes back as its error.
  await page.goto(`${origin}/app/settings`);
  await page.getByLabel('Current password').fill('not-the-password');
  await page.getByLabel('New password', { exact: true }).fill('a new passphrase');
  await page.getByLabel('Confirm the new password').fill('a new passphrase');
  await page.getByRole('button', { name: 'Change password' }).click();
  await page.locator('#current_password-error').waitFor();
  t.equal(await page.locator('#current_password-error').textContent(), 'The password is incorrect.');
  await shoot('settings-password');

  t.same(problems, [], 'no CSP violation or script error on any page');
  for (const url of ['/app/data-sources', `/app/data-sources?chatbot_id=${chatbotId}&tag=help`, `/app/data-sources/${helpId}`, `/app/data-sources/${catalogId}`,
    `/app/data-sources/search?chatbot_id=${chatbotId}`, '/app/settings', `/app/${chatbotId}/analytics?timeframe=7`]) {
    const { severe, minor } = await axe(url);
    t.same(severe, [], `${url}: no serious or critical axe violation`);
    if (minor.length) t.comment(`${url}: minor axe findings ${JSON.stringify(minor)}`);
  }
  t.comment(`screenshots in ${shots}`);
});
