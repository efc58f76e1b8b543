/**
 * popup-metrics shows at most 50 versions: versions are anonymous input, and each one was a row
 * of the statistic and a line of the analytics page. The rest are summed into one `(other)` row
 * whose numbers are exact sums, so the totals over all rows do not change.
 */
import t from 'tap';
import { normalizeEvent, validateTrackingBody, type StoredEvent } from '@chatlytics/events';
import { databaseVariants } from '@chatlytics/postgres/testing';
import { createStatsRepository } from '../src/stats/readers.js';
import { boundPopupRows, OTHER_POPUP_VERSIONS, POPUP_VERSIONS_SHOWN } from '../src/stats/statistics/popup-metrics.js';
import { daysWindow } from '../src/stats/window.js';
import { insertEvents, openClickHouse } from './stats-fixtures.js';

const NOW = Date.parse('2026-05-20T12:00:00.000Z');
const CHATBOT = '0b7d2f4e-54a4-4f43-9d7e-1f0f5c9a1a01';
const VERSIONS = 300;

function ingested(at: number, event: string, token: string, version: string): StoredEvent {
  const v = validateTrackingBody({ event, token, data: { chatbot_id: CHATBOT, popup_version: version } });
  if (!v.ok) throw new Error(`fixture invalid: ${JSON.stringify(v.errors)}`);
  return normalizeEvent(v.value, { receivedAt: new Date(at), log: { warn: () => undefined } });
}

// Version k (100 characters, the longest accepted) is displayed 1 + k % 7 times and opened once when k % 3 = 0.
const versionName = (k: number) => `${String(k).padStart(4, '0')}-${'x'.repeat(95)}`;
const rows: StoredEvent[] = [];
for (let k = 0; k < VERSIONS; k++) {
  const token = `visitor_${String(k).padStart(4, '0')}`;
  for (let d = 0; d <= k % 7; d++) rows.push(ingested(NOW - 3_600_000 + k * 10 + d, 'popup_displayed', token, versionName(k)));
  if (k % 3 === 0) rows.push(ingested(NOW - 3_600_000 + k * 10 + 9, 'popup_opened', token, versionName(k)));
}

const ch = await openClickHouse();
t.teardown(() => ch.close());
await insertEvents(ch.embedded, rows);
const [variant] = databaseVariants();
const pg = await variant.open();
t.teardown(() => pg.destroy());

t.test(`${VERSIONS} anonymous versions: ${POPUP_VERSIONS_SHOWN} rows and one (other) row with the exact sums`, async (t) => {
  const repo = createStatsRepository({ clickhouse: ch.embedded, db: pg.postgres.db, appUrl: 'https://app.example.test' });
  const { metrics } = await repo.popupMetrics(CHATBOT, daysWindow(7, new Date(NOW)));
  t.equal(metrics.length, POPUP_VERSIONS_SHOWN + 1);
  const other = metrics.at(-1)!;
  t.equal(other.popup_version, OTHER_POPUP_VERSIONS);
  t.equal(other.other_versions, VERSIONS - POPUP_VERSIONS_SHOWN);
  const displayed = rows.filter((e) => e.event === 'popup_displayed').length;
  const opened = rows.filter((e) => e.event === 'popup_opened').length;
  t.equal(metrics.reduce((n, m) => n + m.popup_displayed_count, 0), displayed, 'displays over all rows = every display');
  t.equal(metrics.reduce((n, m) => n + m.popup_opened_count, 0), opened, 'opens over all rows = every open');
  const shown = metrics.slice(0, -1);
  // Expected: most displays first, then most opens, then version order.
  const expected = Array.from({ length: VERSIONS }, (_, k) => ({ k, d: 1 + (k % 7), o: k % 3 === 0 ? 1 : 0 }))
    .sort((a, b) => b.d - a.d || b.o - a.o || a.k - b.k).slice(0, POPUP_VERSIONS_SHOWN).map((x) => versionName(x.k)).sort();
  t.same(shown.map((m) => m.popup_version), expected, 'the shown versions are the most displayed');
  t.ok(shown.every((m) => m.other_versions === undefined), 'only the (other) row is flagged');
  t.same(shown.map((m) => m.popup_version), [...shown.map((m) => m.popup_version)].sort(), 'shown in version order');
  t.ok(JSON.stringify(metrics).length < 12_000, `the statistic stays small: ${JSON.stringify(metrics).length} bytes`);
});

t.test('boundPopupRows: ties by opens, then version; nothing cut at or below the bound', async (t) => {
  const row = (v: string, d: number, o: number) => ({ popup_version: v, popup_displayed_count: d, popup_opened_count: o });
  const input = [row('b', 5, 1), row('a', 5, 1), row('c', 5, 2), row('d', 9, 0)];
  t.same(boundPopupRows(input, 4), input, 'at the bound: unchanged');
  t.same(boundPopupRows(input, 2), [row('c', 5, 2), row('d', 9, 0), { ...row(OTHER_POPUP_VERSIONS, 10, 2), other_versions: 2 }]);
  t.same(boundPopupRows(input, 3).map((r) => r.popup_version), ['a', 'c', 'd', OTHER_POPUP_VERSIONS], 'a beats b on the version order');
});
